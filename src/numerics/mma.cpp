// mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 (numerics.md "mma"; facts D1).
//
// All arithmetic is exact integer fixed point: an e4m3 value is an integer multiple of 2^-9, so a
// product of two is a multiple of 2^-18, and an f16 value is a multiple of 2^-24 (its subnormal
// step). Every quantity below is therefore an int64 count of 2^-24 units ("units"):
//   |product| <= 448^2 = 200704 < 2^17.7  ->  < 2^41.7 units
//   |C|       <= 65504                    ->  < 2^40   units
//   |sum of 32 products + C|              <  2^46.8 units      (no int64 overflow anywhere).
// Because one unit is exactly the f16 subnormal step, rounding a unit count to f16 is "keep 11
// significant bits, ties to even" with no separate subnormal case (see round_sig_bits).
//
// Special values (not covered by any measurement; each is a reading of Profile::corners, the
// defaults below are those of every profile; decisions and evidence in docs/readings.md §3):
//   * mma-nan-operand: a NaN code (0x7F/0xFF) anywhere in a[] or b[] (whatever the other factor;
//     `nonzero-partner`: only when the other factor is nonzero), or a NaN C, gives a NaN;
//   * mma-nan-payload: that NaN is the canonical f16 NaN 0x7FFF (`quiet-c`: a NaN C is returned
//     quieted, C | 0x0200);
//   * e4m3 has no infinity, so every product is finite; an infinite C (or, in `ada`, an infinite
//     first-half result; in `hopper`, an infinite HMMA result) passes through unchanged:
//     Inf + finite = Inf. `hopper`'s final f16 add can meet two infinities: Inf - Inf = NaN;
//   * mma-overflow: a finite sum beyond the f16 range rounds to +-Inf (IEEE round-to-nearest
//     overflow: every |S| >= 65520 becomes Inf; `saturate`: +-65504);
//   * mma-zero-sign: an exact zero result is -0 only when the accumulator is -0 and all products
//     are -0 (IEEE 754 §6.3 for a sum of several addends under round to nearest); otherwise +0
//     (`plus`: always +0). In `hopper` the HMMAs start from +0 and the final add is an IEEE f16
//     add, so its result is never -0: (+0) + (-0) = +0.
//     `blackwell` (MMA-Sim's model) has `plus` as its profile value: its model returns +0 for every
//     zero sum (profile.cpp); its accumulation below computes the IEEE sign like the others.
#include "numerics/mma.hpp"

#include <array>
#include <bit>
#include <cstdint>

#include "numerics/f16.hpp"
#include "numerics/mma_fragment.hpp"

namespace rrswin {
namespace {

// NVIDIA's canonical f16 NaN (numerics.md "f16 arithmetic"), the one the f16 operations return too.
constexpr f16_t kCanonicalNaN = kF16CanonicalNaN;

// ---- operand decoding ------------------------------------------------------------------------

bool e4m3_code_is_neg(e4m3_t c) { return (c & 0x80) != 0; }

// What the accumulation needs of an e4m3 code, precomputed for all 256 codes.
struct E4m3Entry {
  std::int32_t units9;   // signed value in units of 2^-9 (0 for the NaN codes)
  std::int8_t ada_e;     // numerics.md `ada`: e(x) = max(floor(log2|x|), -6)
  std::int8_t hopper_e;  // numerics.md `hopper`: e(x) = floor(log2|x|) of the f16 operand (exact)
  bool nan;              // 0x7F / 0xFF (numerics.md "Formats")
};

constexpr std::array<E4m3Entry, 256> make_e4m3_table() {
  std::array<E4m3Entry, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const int m = c & 0x7F;
    // numerics.md "Formats": m >= 8 gives (1 + (m&7)/8) 2^((m>>3)-7) = (8 + (m&7)) 2^((m>>3)-1) 2^-9;
    // m < 8 gives m 2^-9.
    const std::int32_t mag = m >= 8 ? (8 + (m & 7)) << ((m >> 3) - 1) : m;
    // For a normal code floor(log2|x|) is its unbiased exponent (m>>3) - 7 >= -6; a subnormal is
    // below 2^-6, so it gets -6.
    const int e = m >= 8 ? (m >> 3) - 7 : -6;
    // `hopper` converts the operand to f16 first, where an e4m3 subnormal m 2^-9 is an f16
    // normal: its exponent is floor(log2 m) - 9 (0 for a zero, never used: zero terms are dropped).
    const int he = m >= 8 ? e : m >= 4 ? -7 : m >= 2 ? -8 : m == 1 ? -9 : 0;
    const bool nan = m == 0x7F;
    t[c] = {nan ? 0 : (c & 0x80) != 0 ? -mag : mag, static_cast<std::int8_t>(e), static_cast<std::int8_t>(he), nan};
  }
  return t;
}
constexpr std::array<E4m3Entry, 256> kE4m3 = make_e4m3_table();
static_assert(kE4m3[0x7E].units9 == 448 * 512 && kE4m3[0x01].units9 == 1 && kE4m3[0xB8].units9 == -512);
static_assert(kE4m3[0x01].hopper_e == -9 && kE4m3[0x07].hopper_e == -7 && kE4m3[0x08].hopper_e == -6 && kE4m3[0x7E].hopper_e == 8);

enum class F16Class { zero, finite, inf, nan };

struct F16Parts {
  F16Class cls;
  bool neg;
  std::int64_t units;  // signed value in 2^-24 units (finite and zero only)
  int ada_exponent;    // max(floor(log2|x|), -14) for a nonzero finite value
};

F16Parts f16_parts(f16_t h) {
  const bool neg = (h & 0x8000) != 0;
  const int ef = (h >> 10) & 0x1F;
  const int frac = h & 0x3FF;
  if (ef == 0x1F) return {frac != 0 ? F16Class::nan : F16Class::inf, neg, 0, 0};
  if (ef == 0 && frac == 0) return {F16Class::zero, neg, 0, 0};
  // normal: (1024 + frac) 2^(ef-25) = (1024 + frac) 2^(ef-1) units; subnormal: frac units.
  // floor(log2|x|) is ef - 15 for a normal; a subnormal is below 2^-14, so it gets -14.
  const std::int64_t mag = ef != 0 ? static_cast<std::int64_t>(1024 + frac) << (ef - 1) : frac;
  return {F16Class::finite, neg, neg ? -mag : mag, ef != 0 ? ef - 15 : -14};
}

// ---- exact rounding --------------------------------------------------------------------------

// Round a non-negative integer to `bits` significant bits, ties to even. The result is the
// rounded value itself (same units), so it may carry into one more bit (e.g. 2047.5 -> 2048).
std::uint64_t round_sig_bits(std::uint64_t mag, int bits) {
  const int len = std::bit_width(mag);
  if (len <= bits) return mag;
  const int drop = len - bits;
  const std::uint64_t kept = mag >> drop;
  const std::uint64_t rest = mag & ((std::uint64_t{1} << drop) - 1);
  const std::uint64_t half = std::uint64_t{1} << (drop - 1);
  const bool up = rest > half || (rest == half && (kept & 1) != 0);
  return (kept + (up ? 1 : 0)) << drop;
}

// f16 bits of an already-rounded magnitude (at most 11 significant bits, in 2^-24 units).
// A normal with biased exponent E holds (1024 + frac) 2^(E-1) units, i.e. bit_width = E + 10.
f16_t f16_encode_rounded(bool neg, std::uint64_t mag, MmaOverflow overflow) {
  const f16_t sign = neg ? 0x8000 : 0;
  if (mag < 1024) return static_cast<f16_t>(sign | mag);  // subnormal (or zero)
  const int e = std::bit_width(mag) - 10;
  // RNE overflow -> Inf (reading mma-overflow: or the largest finite value, 65504 = 0x7BFF)
  if (e >= 31) return static_cast<f16_t>(sign | (overflow == MmaOverflow::saturate ? 0x7BFF : 0x7C00));
  const std::uint64_t frac = (mag >> (e - 1)) - 1024;
  return static_cast<f16_t>(sign | (e << 10) | frac);
}

// f16 round-to-nearest-even of an exact value given in 2^-24 units, subnormals kept. A zero
// value gets the sign the caller decided (see the zero-sign rule at the top).
f16_t f16_rne_units(std::int64_t v, bool zero_is_negative, MmaOverflow overflow) {
  if (v == 0) return zero_is_negative ? 0x8000 : 0x0000;
  const bool neg = v < 0;
  const std::uint64_t mag = neg ? static_cast<std::uint64_t>(-v) : static_cast<std::uint64_t>(v);
  return f16_encode_rounded(neg, round_sig_bits(mag, 11), overflow);
}

// f32 round-to-nearest-even of an exact value in 2^-24 units. Every nonzero value here is at
// least 2^-24 and below 2^24, deep inside f32's normal range, so only the 24-bit significand
// limit applies. The result stays in units (it is exactly representable as such).
std::int64_t f32_rne_units(std::int64_t v) {
  const bool neg = v < 0;
  const std::uint64_t mag = neg ? static_cast<std::uint64_t>(-v) : static_cast<std::uint64_t>(v);
  const auto r = static_cast<std::int64_t>(round_sig_bits(mag, 24));
  return neg ? -r : r;
}

// ---- the four accumulation models -------------------------------------------------------------

// A product in units: (x 2^-9)(y 2^-9) = xy 2^-18 = xy 2^6 units.
std::int64_t product_units(e4m3_t a, e4m3_t b) { return static_cast<std::int64_t>(kE4m3[a].units9) * kE4m3[b].units9 * 64; }

// A product's zero sign, for the zero-sign rule: the IEEE sign of a*b is sign(a) xor sign(b).
bool product_is_negative_zero(e4m3_t a, e4m3_t b) {
  return (kE4m3[a].units9 == 0 || kE4m3[b].units9 == 0) && (e4m3_code_is_neg(a) != e4m3_code_is_neg(b));
}

// One block of n products (k in the ISA order) and the f16 accumulator, each term truncated to
// q = 2^(maxE - kept_bits), exact sum, one f16 RNE: numerics.md `ada`'s half (n = 16, 13 kept bits)
// and MMA-Sim's sm_120 model (`blackwell`: n = 32, 25 kept bits, docs/readings.md §3), which differ
// only in the block and the window. E(product) = e(a) + e(b) with e(x) = max(floor(log2|x|), -6),
// E(acc) = max(floor(log2|acc|), -14); zero terms never set the maximum.
// Written without data-dependent branches in the loops (the PTX interpreter runs it 256 times per
// mma.sync): a zero product is a term of value 0 that does not take part in the maximum.
f16_t truncated_block(const e4m3_t* a, const e4m3_t* b, int n, f16_t acc, int kept_bits, MmaOverflow overflow) {
  const F16Parts c = f16_parts(acc);
  if (c.cls == F16Class::inf) return acc;  // products are finite: Inf + finite = Inf
  // The terms: each product (zero ones are inert), plus acc when it is nonzero (c.units = 0 else).
  constexpr int kNoTerm = -1000;  // below every E: a zero term never raises the maximum
  std::int64_t term[32];
  int max_e = c.cls == F16Class::finite ? c.ada_exponent : kNoTerm;  // E(acc) = max(floor(log2|acc|), -14)
  for (int k = 0; k < n; ++k) {
    const std::int64_t p = product_units(a[k], b[k]);
    term[k] = p;
    const int e = kE4m3[a[k]].ada_e + kE4m3[b[k]].ada_e;  // E = e(a) + e(b)
    max_e = (p != 0 && e > max_e) ? e : max_e;
  }
  if (max_e == kNoTerm) {
    // No nonzero term: the exact sum is a zero, -0 only when acc and every product are -0.
    bool all_negative_zero = c.cls == F16Class::zero && c.neg;
    for (int k = 0; k < n; ++k) all_negative_zero = all_negative_zero && product_is_negative_zero(a[k], b[k]);
    return all_negative_zero ? 0x8000 : 0x0000;
  }
  // q = 2^(maxE - kept_bits) = 2^(maxE + 24 - kept_bits) units. When q is below one unit every
  // term, a multiple of one unit, is already a multiple of q and truncation changes nothing.
  const int q_log2_units = max_e + 24 - kept_bits;
  const int shift = q_log2_units > 0 ? q_log2_units : 0;
  // sign(t) * floor(|t| / q) * q: truncation toward zero, done on the magnitude.
  auto truncate = [shift](std::int64_t t) {
    const std::int64_t mag = ((t < 0 ? -t : t) >> shift) << shift;
    return t < 0 ? -mag : mag;
  };
  std::int64_t sum = truncate(c.units);
  for (int k = 0; k < n; ++k) sum += truncate(term[k]);
  // The largest term keeps at least its leading bit (a product is >= 2^(E-6), acc >= 2^(E-10),
  // both >= q for kept_bits >= 10), so a zero sum here is a cancellation: +0 under round to nearest.
  return f16_rne_units(sum, false, overflow);
}

f16_t ada_half(const e4m3_t* a, const e4m3_t* b, f16_t acc, MmaOverflow overflow) {
  return truncated_block(a, b, 16, acc, 13, overflow);  // q = 2^(maxE - 13)
}

f16_t mma_dot_ada(const e4m3_t a[32], const e4m3_t b[32], f16_t c, MmaOverflow overflow) {
  const f16_t first = ada_half(a, b, c, overflow);   // k = 0..15 (ISA order), then f16 rounding
  return ada_half(a + 16, b + 16, first, overflow);  // k = 16..31 on top of the rounded first half
}

// numerics.md `zluda` / facts D1: f16_RN(f32_RN(exact(sum of 32 products) + C)).
f16_t mma_dot_zluda(const e4m3_t a[32], const e4m3_t b[32], f16_t c, MmaOverflow overflow) {
  const F16Parts cp = f16_parts(c);
  if (cp.cls == F16Class::inf) return c;  // f32(+-Inf + finite) = +-Inf, and f16 keeps it
  std::int64_t sum = cp.units;
  bool all_negative_zero = cp.cls == F16Class::zero && cp.neg;
  for (int k = 0; k < 32; ++k) {
    const std::int64_t p = product_units(a[k], b[k]);
    sum += p;
    all_negative_zero = all_negative_zero && p == 0 && product_is_negative_zero(a[k], b[k]);
  }
  if (sum == 0) return all_negative_zero ? 0x8000 : 0x0000;
  return f16_rne_units(f32_rne_units(sum), false, overflow);
}

// numerics.md "Consumer Blackwell" / MMA-Sim's sm_120 model (docs/readings.md §3 "blackwell"): one
// fused block of the 32 products and C, each truncated to q = 2^(maxE - 25), one f16 RNE. The k
// order does not matter (an exact sum, and the maximum is over the whole block).
f16_t mma_dot_blackwell(const e4m3_t a[32], const e4m3_t b[32], f16_t c, MmaOverflow overflow) {
  return truncated_block(a, b, 32, c, 25, overflow);
}

// numerics.md `hopper`, one f16 HMMA over the k of one group (ISA order, k mod 4 in {0,1} or
// {2,3}) applied to the f16 accumulator acc. The same shape as ada_half with the f16 exponents of
// the operands and q = 2^(maxE - 25) = 2^(maxE - 1) units.
f16_t hopper_hmma(const e4m3_t a[32], const e4m3_t b[32], int group, f16_t acc, MmaOverflow overflow) {
  const F16Parts c = f16_parts(acc);
  if (c.cls == F16Class::inf) return acc;  // products are finite: Inf + finite = Inf
  std::int64_t term[17];
  int exponent[17];
  int n = 0;
  bool all_negative_zero = c.cls == F16Class::zero && c.neg;
  for (int k = 0; k < 32; ++k) {
    if (((k >> 1) & 1) != group) continue;  // group 0: k mod 4 in {0, 1}; group 1: {2, 3}
    const std::int64_t p = product_units(a[k], b[k]);
    if (p == 0) {
      all_negative_zero = all_negative_zero && product_is_negative_zero(a[k], b[k]);
      continue;
    }
    all_negative_zero = false;
    term[n] = p;
    exponent[n] = kE4m3[a[k]].hopper_e + kE4m3[b[k]].hopper_e;  // E = e(a) + e(b), f16 exponents
    ++n;
  }
  if (c.cls == F16Class::finite) {
    term[n] = c.units;
    exponent[n] = c.ada_exponent;  // E(acc) = max(floor(log2|acc|), -14)
    ++n;
  }
  if (n == 0) return all_negative_zero ? 0x8000 : 0x0000;
  int max_e = exponent[0];
  for (int i = 1; i < n; ++i) max_e = exponent[i] > max_e ? exponent[i] : max_e;
  // q = 2^(maxE - 25) = 2^(maxE - 1) units; below one unit truncation changes nothing.
  const int q_log2_units = max_e - 1;
  std::int64_t sum = 0;
  for (int i = 0; i < n; ++i) {
    std::int64_t t = term[i];
    if (q_log2_units > 0) {
      const bool neg = t < 0;
      std::int64_t mag = neg ? -t : t;
      mag = (mag >> q_log2_units) << q_log2_units;
      t = neg ? -mag : mag;
    }
    sum += t;
  }
  // The largest term keeps its leading bits (|term| >= 2^E >= q), so a zero sum is a
  // cancellation: +0.
  return f16_rne_units(sum, false, overflow);
}

f16_t mma_dot_hopper(const e4m3_t a[32], const e4m3_t b[32], f16_t c, MmaOverflow overflow) {
  const f16_t p1 = hopper_hmma(a, b, 0, 0x0000, overflow);  // C is NOT the first accumulator
  const f16_t p2 = hopper_hmma(a, b, 1, p1, overflow);
  // D = p2 + C as an f16 add (add.rn.f16: exact sum, one rounding; numerics/f16.cpp). A finite
  // overflow there follows the same reading as the HMMAs.
  const f16_t d = f16_add(p2, c);
  const bool finite_operands = (p2 & 0x7C00) != 0x7C00 && (c & 0x7C00) != 0x7C00;
  if (overflow == MmaOverflow::saturate && finite_operands && (d & 0x7FFF) == 0x7C00) return static_cast<f16_t>(d - 1);
  return d;
}

// mma-nan-operand: does a NaN code at this k poison the result?
bool nan_poisons(e4m3_t a, e4m3_t b, MmaNanOperand rule) {
  if (!kE4m3[a].nan && !kE4m3[b].nan) return false;
  if (rule == MmaNanOperand::any) return true;
  // nonzero-partner: NaN x NaN, or NaN x a nonzero value; NaN x +-0 is a dropped zero product.
  return kE4m3[a].units9 != 0 || kE4m3[b].units9 != 0 || (kE4m3[a].nan && kE4m3[b].nan);
}

}  // namespace

namespace {

bool any_nan_code(const e4m3_t v[32]) {
  bool nan = false;
  for (int k = 0; k < 32; ++k) nan |= kE4m3[v[k]].nan;
  return nan;
}

// The dot product once the NaN rule (top of the file) has been applied by the caller: the codes
// left may be NaN only where mma-nan-operand=nonzero-partner drops them (a product of value 0).
f16_t mma_dot_finite_codes(const Profile& p, const e4m3_t a[32], const e4m3_t b[32], f16_t c) {
  const MmaCorners& k = p.corners;
  f16_t d = kCanonicalNaN;
  switch (p.mma) {
    case MmaAccumulation::ada_truncated_halves: d = mma_dot_ada(a, b, c, k.overflow); break;
    case MmaAccumulation::exact_sum_f32_then_f16: d = mma_dot_zluda(a, b, c, k.overflow); break;
    case MmaAccumulation::hopper_two_hmma: d = mma_dot_hopper(a, b, c, k.overflow); break;
    case MmaAccumulation::blackwell_fused_sum: d = mma_dot_blackwell(a, b, c, k.overflow); break;
  }
  // mma-zero-sign `plus`: a final map is the same as +0 at every inner rounding, because an inner
  // -0 can only lead to a final -0 or to the same nonzero / cancelled (+0) result.
  if (k.zero_sign == MmaZeroSign::plus && d == 0x8000) d = 0x0000;
  return d;
}

// The NaN rule under the profile's corners: true (and *out set) when the result is a NaN.
bool nan_result(const MmaCorners& k, const e4m3_t a[32], const e4m3_t b[32], f16_t c, f16_t* out) {
  if (f16_parts(c).cls == F16Class::nan) {
    *out = k.nan_payload == MmaNanPayload::quiet_c ? static_cast<f16_t>(c | 0x0200) : kCanonicalNaN;
    return true;
  }
  bool nan = false;
  if (k.nan_operand == MmaNanOperand::any) {
    nan = any_nan_code(a) || any_nan_code(b);
  } else {
    for (int i = 0; i < 32; ++i) nan |= nan_poisons(a[i], b[i], k.nan_operand);
  }
  *out = kCanonicalNaN;
  return nan;
}

}  // namespace

f16_t mma_dot(const Profile& p, const e4m3_t a[32], const e4m3_t b[32], f16_t c) {
  f16_t nan;
  if (nan_result(p.corners, a, b, c, &nan)) return nan;
  return mma_dot_finite_codes(p, a, b, c);
}

MmaC mma_m16n8k32(const Profile& p, const MmaA& a, const MmaB& b, const MmaC& c) {
  // mma_dot per element, with the NaN rule decided once per row of A and column of B.
  MmaC d{};
  bool row_nan[16];
  for (int m = 0; m < 16; ++m) row_nan[m] = any_nan_code(a.v[m]);
  for (int n = 0; n < 8; ++n) {
    e4m3_t column[32];
    for (int k = 0; k < 32; ++k) column[k] = b.v[k][n];
    const bool col_nan = any_nan_code(column);
    if (p.corners.nan_operand != MmaNanOperand::any || p.corners.nan_payload != MmaNanPayload::canonical) {
      // A NaN rule that depends on the pair or on C's payload: mma_dot's, element by element.
      for (int m = 0; m < 16; ++m) d.v[m][n] = mma_dot(p, a.v[m], column, c.v[m][n]);
      continue;
    }
    for (int m = 0; m < 16; ++m) {
      const f16_t cv = c.v[m][n];
      d.v[m][n] =
          (col_nan || row_nan[m] || f16_parts(cv).cls == F16Class::nan) ? kCanonicalNaN : mma_dot_finite_codes(p, a.v[m], column, cv);
    }
  }
  return d;
}

namespace {

// The ISA fragment maps of numerics/mma_fragment.hpp as tables (one evaluation per element at first use;
// the PTX interpreter runs this form for every mma.sync).
struct FragmentMaps {
  mma_fragment::RowK a[32][4][4];
  mma_fragment::KCol b[32][2][4];
  mma_fragment::RowCol cd[32][2][2];
};
const FragmentMaps& fragment_maps() {
  static const FragmentMaps m = [] {
    FragmentMaps t{};
    for (int lane = 0; lane < 32; ++lane) {
      for (int reg = 0; reg < 4; ++reg)
        for (int byte = 0; byte < 4; ++byte) t.a[lane][reg][byte] = mma_fragment::a_element_isa(lane, reg, byte);
      for (int reg = 0; reg < 2; ++reg)
        for (int byte = 0; byte < 4; ++byte) t.b[lane][reg][byte] = mma_fragment::b_element_isa(lane, reg, byte);
      for (int reg = 0; reg < 2; ++reg)
        for (int half = 0; half < 2; ++half) t.cd[lane][reg][half] = mma_fragment::cd_element(lane, reg, half);
    }
    return t;
  }();
  return m;
}

}  // namespace

// The fragment form gathers the registers into matrices with the ISA maps of numerics/mma_fragment.hpp
// (the instruction itself defines k by the ISA order), runs the matrix form, and scatters D back.
MmaFragC mma_m16n8k32(const Profile& p, const MmaFragA& a, const MmaFragB& b, const MmaFragC& c) {
  const FragmentMaps& map = fragment_maps();
  MmaA ma{};
  MmaB mb{};
  MmaC mc{};
  for (int lane = 0; lane < 32; ++lane) {
    for (int reg = 0; reg < 4; ++reg)
      for (int byte = 0; byte < 4; ++byte) {
        const mma_fragment::RowK e = map.a[lane][reg][byte];
        ma.v[e.row][e.k] = static_cast<e4m3_t>(a.reg[lane][reg] >> (8 * byte));
      }
    for (int reg = 0; reg < 2; ++reg)
      for (int byte = 0; byte < 4; ++byte) {
        const mma_fragment::KCol e = map.b[lane][reg][byte];
        mb.v[e.k][e.col] = static_cast<e4m3_t>(b.reg[lane][reg] >> (8 * byte));
      }
    for (int reg = 0; reg < 2; ++reg)
      for (int half = 0; half < 2; ++half) {
        const mma_fragment::RowCol e = map.cd[lane][reg][half];
        mc.v[e.row][e.col] = half == 0 ? f16x2_lo(c.reg[lane][reg]) : f16x2_hi(c.reg[lane][reg]);
      }
  }
  const MmaC md = mma_m16n8k32(p, ma, mb, mc);
  MmaFragC d{};
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < 2; ++reg) {
      const mma_fragment::RowCol lo = map.cd[lane][reg][0];
      const mma_fragment::RowCol hi = map.cd[lane][reg][1];
      d.reg[lane][reg] = f16x2_pack(md.v[lo.row][lo.col], md.v[hi.row][hi.col]);
    }
  return d;
}

}  // namespace rrswin
