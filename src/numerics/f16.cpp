// binary16 conversions and arithmetic (numerics.md "Conversions" and "f16 arithmetic").
// Everything here is software: no _Float16, no F16C. The conversions round in integers (the f64
// one through the exact routine of round_detail.hpp, the f32 one with the same rule inline), so
// correctness does not depend on the host's FPU modes beyond IEEE binary32 / binary64 + and * in
// round-to-nearest-even, the C++ default (used where exact or where double rounding provably
// cannot change the result, see the proofs below).
#include "numerics/f16.hpp"

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>

#include "numerics/round_detail.hpp"

static_assert(FLT_EVAL_METHOD == 0, "binary32 arithmetic must be evaluated in binary32");

namespace rrswin {
namespace {

constexpr f16_t kSign = 0x8000;
constexpr f16_t kInf = 0x7C00;

}  // namespace

// The operations are defined once, inline, in `fast`, and the public functions forward to them:
// the library is built position-independent, where GCC does not inline one exported function
// into another (semantic interposition), and the f16x2 and scalar operations call the
// conversions per half.
namespace {
namespace fast {
inline bool f16_is_nan(f16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0; }

// cvt.f32.f16: exact (every binary16 value is a binary32 normal or zero). NaN payloads are moved
// along with the top mantissa bits (PTX leaves the NaN pattern unspecified).
inline float f16_to_f32(f16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & kSign) << 16;
  const std::uint32_t em = h & 0x7FFFu;  // exponent and mantissa fields
  if (em >= 0x7C00u) return std::bit_cast<float>(sign | 0x7F800000u | ((em & 0x3FFu) << 13));
  if (em >= 0x0400u) return std::bit_cast<float>(sign | ((em << 13) + ((127u - 15u) << 23)));
  // A subnormal f * 2^-24: a small integer times a power of two, exact in binary32.
  const float v = static_cast<float>(em) * 0x1p-24f;
  return sign ? -v : v;
}

inline double f16_to_f64(f16_t h) {
  const std::uint64_t sign = static_cast<std::uint64_t>(h & kSign) << 48;
  const std::uint64_t e = (h >> 10) & 0x1F;
  const std::uint64_t f = h & 0x3FF;
  if (e == 0x1F) return std::bit_cast<double>(sign | 0x7FF0000000000000ull | (f << 42));
  if (e == 0) {
    const double v = static_cast<double>(f) * 0x1p-24;  // exact
    return (h & kSign) ? -v : v;
  }
  return std::bit_cast<double>(sign | ((e + 1023 - 15) << 52) | (f << 42));
}

// cvt.rn.f16.f32: RNE, subnormals kept, overflow to Inf, NaN -> 0x7FFF (NVIDIA's canonical NaN).
// In integers (round_detail.hpp's rule, specialised): a normal f16 result keeps the top 10 of the
// 23 mantissa bits, rounded on the 13 below (the carry runs into the exponent field, up to Inf);
// a subnormal one is the value in units of 2^-24, rounded on the bits below the unit.
inline f16_t f32_to_f16(float x) {
  const std::uint32_t b = std::bit_cast<std::uint32_t>(x);
  const auto sign = static_cast<f16_t>((b >> 16) & kSign);
  const std::uint32_t a = b & 0x7FFFFFFFu;
  if (a >= 0x7F800000u) return a > 0x7F800000u ? kF16CanonicalNaN : static_cast<f16_t>(sign | kInf);
  if (a >= 0x477FF000u) return static_cast<f16_t>(sign | kInf);  // >= 65520 = the midpoint of 65504 and 2^16 (ties to Inf)
  if (a >= 0x38800000u) {                                        // >= 2^-14: a normal f16
    const std::uint32_t r = a + ((15u - 127u) << 23) + 0xFFFu + ((a >> 13) & 1u);  // + half - 1 + the kept lsb (ties to even)
    return static_cast<f16_t>(sign | (r >> 13));
  }
  const std::uint32_t e = a >> 23;  // biased binary32 exponent, <= 112
  if (e < 102) return sign;         // below 2^-25: rounds to zero (2^-25 itself is e = 102, a tie to 0)
  // value = m 2^(e - 150) = m 2^-24 / 2^(126 - e) with m the 24-bit significand: s = 126 - e in 14..24.
  const std::uint32_t m = (a & 0x7FFFFFu) | 0x800000u, s = 126u - e;
  std::uint32_t k = m >> s;
  const std::uint32_t rem = m & ((1u << s) - 1u), half = 1u << (s - 1u);
  if (rem > half || (rem == half && (k & 1u))) ++k;  // k = 0x400 is the smallest normal: the right pattern
  return static_cast<f16_t>(sign | k);
}

// cvt.rn.f16.f64: directly from the double (one rounding; going through f32 would round twice,
// numerics.md "Conversions").
inline f16_t f64_to_f16(double x) {
  const std::uint64_t b = std::bit_cast<std::uint64_t>(x);
  const bool neg = (b >> 63) != 0;
  const std::uint64_t e = (b >> 52) & 0x7FF;
  const std::uint64_t f = b & 0xFFFFFFFFFFFFFull;
  if (e == 0x7FF) return f != 0 ? kF16CanonicalNaN : static_cast<f16_t>((neg ? kSign : 0) | kInf);
  const std::uint64_t m = (e == 0) ? f : (f | (1ull << 52));
  const int ex = (e == 0) ? -1074 : static_cast<int>(e) - 1075;
  return detail::round_to_f16(neg, m, ex);
}

// add/sub/mul.rn.f16 in binary32, as cuda_fp16.h's host code computes __hadd/__hsub/__hmul
// (convert to float, operate, __float2half_rn):
//  * mul: each significand has at most 11 bits, the product at most 22 <= 24 bits, its exponent
//    (2^-48 .. 2^32) inside binary32's normal range: the binary32 product is exact, then rounded once.
//  * add/sub: both operands are integer multiples of 2^-24 below 2^16, so the exact sum has at most
//    41 significant bits and the binary32 sum rounds it. That second rounding is innocuous: binary32
//    has p' = 24 >= 2p + 2 = 24 bits for binary16's p = 11, the condition under which rounding to
//    nearest twice equals rounding once for + - * / sqrt (S. Figueroa, "When is double rounding
//    innocuous?", SIGNUM Newsletter 30(3), 1995); a subnormal f16 result (|sum| < 2^-14) is a
//    multiple of 2^-24 below 2^-14, exact in both formats. x + (-x) gives +0 and (-0) + (-0) gives
//    -0 in binary32 as IEEE RN requires for f16. Checked exhaustively against the exact binary64
//    form f64_to_f16(f16_to_f64(a) op f16_to_f64(b)) (tests/f16_test.cpp, RRSWIN_EXHAUSTIVE=1: all
//    2^32 operand pairs), and on a subset in every run of the suite.
// Inf - Inf and 0 * Inf give a binary32 NaN, which f32_to_f16 maps to 0x7FFF, as do NaN operands.
inline f16_t f16_add(f16_t a, f16_t b) { return f32_to_f16(f16_to_f32(a) + f16_to_f32(b)); }
inline f16_t f16_sub(f16_t a, f16_t b) { return f32_to_f16(f16_to_f32(a) - f16_to_f32(b)); }
inline f16_t f16_mul(f16_t a, f16_t b) { return f32_to_f16(f16_to_f32(a) * f16_to_f32(b)); }

// fma.rn.f16: a*b + c with a single rounding (RNE, subnormals, overflow to Inf).
// A binary64 FMA rounded to f16 gives that single rounding, as numerics.md measured: the exact sum
// needs more than 53 bits only if (i) |a*b| >= 2^29 (its top bit 53 places above c's
// lowest possible bit 2^-24): then |result| > 65520 and both give Inf; or (ii) c is normal and
// |a*b| < 2^-31 |c|, far below c's distance to its nearest f16 midpoint (> 2^-13 |c|):
// then the double result stays strictly between the same two midpoints.
// Computed as that binary64 form: a*b is exact in binary64 (22 significant bits), so the binary64
// sum a*b + c is the binary64 FMA's result, which the argument above shows rounds to the same f16
// as the exact sum; the rounding to f16 is f64_to_f16's rule in 64-bit integers (round_f64_rne).
// Tested against the exact integer oracle (tests/f16_test.cpp: random triples, every tie case,
// constructed hard cases).
namespace {
// f64_to_f16 for a binary64 that is not NaN, in 64-bit integers (as f32_to_f16 does for binary32).
inline f16_t round_f64_rne(double x) {
  const std::uint64_t b = std::bit_cast<std::uint64_t>(x);
  const auto sign = static_cast<f16_t>((b >> 48) & kSign);
  const std::uint64_t a = b & 0x7FFFFFFFFFFFFFFFull;
  if (a >= 0x40EFFE0000000000ull) return static_cast<f16_t>(sign | kInf);  // >= 65520 (or Inf)
  if (a >= 0x3F10000000000000ull) {                                        // >= 2^-14: a normal f16
    const std::uint64_t r = a - (static_cast<std::uint64_t>(1023 - 15) << 52) + 0x1FFFFFFFFFFull + ((a >> 42) & 1u);
    return static_cast<f16_t>(sign | (r >> 42));
  }
  const std::uint64_t e = a >> 52;  // biased exponent, <= 1008
  if (e < 998) return sign;         // below 2^-25: zero
  // value = m 2^(e - 1075) = m 2^-24 / 2^(1051 - e), s = 1051 - e in 43..53.
  const std::uint64_t m = (a & 0xFFFFFFFFFFFFFull) | (1ull << 52), s = 1051 - e;
  std::uint64_t k = m >> s;
  const std::uint64_t rem = m & ((1ull << s) - 1), half = 1ull << (s - 1);
  if (rem > half || (rem == half && (k & 1u))) ++k;
  return static_cast<f16_t>(sign | k);
}
}  // namespace

inline f16_t f16_fma(f16_t a, f16_t b, f16_t c) {
  if (f16_is_nan(a) || f16_is_nan(b) || f16_is_nan(c)) return kF16CanonicalNaN;
  const double r = f16_to_f64(a) * f16_to_f64(b) + f16_to_f64(c);
  if (r != r) return kF16CanonicalNaN;  // Inf * 0, Inf - Inf
  return round_f64_rne(r);
}

// max/min.f16 (PTX ISA): one NaN operand -> the other operand; both NaN -> NaN (canonical);
// +0 is greater than -0. Non-NaN patterns compare by an integer key that orders them as their
// values with -0 just below +0: the magnitude bits above 0x8000 for a positive pattern, their
// complement below it for a negative one (two equal keys are the same pattern).
namespace {
inline unsigned order_key(f16_t h) { return (h & kSign) ? (~h & 0xFFFFu) : (h | 0x8000u); }
}  // namespace

inline f16_t f16_max(f16_t a, f16_t b) {
  const bool na = f16_is_nan(a), nb = f16_is_nan(b);
  if (na && nb) return kF16CanonicalNaN;
  if (na) return b;
  if (nb) return a;
  return order_key(a) >= order_key(b) ? a : b;
}

inline f16_t f16_min(f16_t a, f16_t b) {
  const bool na = f16_is_nan(a), nb = f16_is_nan(b);
  if (na && nb) return kF16CanonicalNaN;
  if (na) return b;
  if (nb) return a;
  return order_key(a) <= order_key(b) ? a : b;
}

// neg/abs.f16: sign-bit flip / clear, every pattern including NaN (numerics.md).
inline f16_t f16_neg(f16_t a) { return static_cast<f16_t>(a ^ kSign); }
inline f16_t f16_abs(f16_t a) { return static_cast<f16_t>(a & ~kSign); }

// .f16x2: the scalar operation per half (low half = bits 0..15).
inline f16x2_t f16x2_add(f16x2_t a, f16x2_t b) { return f16x2_pack(f16_add(f16x2_lo(a), f16x2_lo(b)), f16_add(f16x2_hi(a), f16x2_hi(b))); }
inline f16x2_t f16x2_sub(f16x2_t a, f16x2_t b) { return f16x2_pack(f16_sub(f16x2_lo(a), f16x2_lo(b)), f16_sub(f16x2_hi(a), f16x2_hi(b))); }
inline f16x2_t f16x2_mul(f16x2_t a, f16x2_t b) { return f16x2_pack(f16_mul(f16x2_lo(a), f16x2_lo(b)), f16_mul(f16x2_hi(a), f16x2_hi(b))); }
inline f16x2_t f16x2_fma(f16x2_t a, f16x2_t b, f16x2_t c) {
  return f16x2_pack(f16_fma(f16x2_lo(a), f16x2_lo(b), f16x2_lo(c)), f16_fma(f16x2_hi(a), f16x2_hi(b), f16x2_hi(c)));
}
inline f16x2_t f16x2_max(f16x2_t a, f16x2_t b) { return f16x2_pack(f16_max(f16x2_lo(a), f16x2_lo(b)), f16_max(f16x2_hi(a), f16x2_hi(b))); }
inline f16x2_t f16x2_min(f16x2_t a, f16x2_t b) { return f16x2_pack(f16_min(f16x2_lo(a), f16x2_lo(b)), f16_min(f16x2_hi(a), f16x2_hi(b))); }
inline f16x2_t f16x2_neg(f16x2_t a) { return a ^ 0x80008000u; }
inline f16x2_t f16x2_abs(f16x2_t a) { return a & 0x7FFF7FFFu; }
}  // namespace fast
}  // namespace

bool f16_is_nan(f16_t h) { return fast::f16_is_nan(h); }
float f16_to_f32(f16_t h) { return fast::f16_to_f32(h); }
double f16_to_f64(f16_t h) { return fast::f16_to_f64(h); }
f16_t f32_to_f16(float x) { return fast::f32_to_f16(x); }
f16_t f64_to_f16(double x) { return fast::f64_to_f16(x); }
f16_t f16_add(f16_t a, f16_t b) { return fast::f16_add(a, b); }
f16_t f16_sub(f16_t a, f16_t b) { return fast::f16_sub(a, b); }
f16_t f16_mul(f16_t a, f16_t b) { return fast::f16_mul(a, b); }
f16_t f16_fma(f16_t a, f16_t b, f16_t c) { return fast::f16_fma(a, b, c); }
f16_t f16_max(f16_t a, f16_t b) { return fast::f16_max(a, b); }
f16_t f16_min(f16_t a, f16_t b) { return fast::f16_min(a, b); }
f16_t f16_neg(f16_t a) { return fast::f16_neg(a); }
f16_t f16_abs(f16_t a) { return fast::f16_abs(a); }
f16x2_t f16x2_add(f16x2_t a, f16x2_t b) { return fast::f16x2_add(a, b); }
f16x2_t f16x2_sub(f16x2_t a, f16x2_t b) { return fast::f16x2_sub(a, b); }
f16x2_t f16x2_mul(f16x2_t a, f16x2_t b) { return fast::f16x2_mul(a, b); }
f16x2_t f16x2_fma(f16x2_t a, f16x2_t b, f16x2_t c) { return fast::f16x2_fma(a, b, c); }
f16x2_t f16x2_max(f16x2_t a, f16x2_t b) { return fast::f16x2_max(a, b); }
f16x2_t f16x2_min(f16x2_t a, f16x2_t b) { return fast::f16x2_min(a, b); }
f16x2_t f16x2_neg(f16x2_t a) { return fast::f16x2_neg(a); }
f16_t f16_relu(f16_t a, ReluNegativeZero z) {
  if (fast::f16_is_nan(a)) return kF16CanonicalNaN;
  if (a == kSign && z == ReluNegativeZero::keep) return a;  // -0 (docs/readings.md "ptx-relu-negative-zero")
  return (a & kSign) ? static_cast<f16_t>(0) : a;
}
f16_t f16_flush(f16_t a) { return (a & 0x7C00) == 0 ? static_cast<f16_t>(a & kSign) : a; }
f16_t f16_sat(f16_t a) {
  if (fast::f16_is_nan(a) || (a & kSign)) return 0;    // NaN, negative values and -0
  return a > 0x3C00 ? static_cast<f16_t>(0x3C00) : a;  // above 1.0 (Inf included) -> 1.0
}
f16x2_t f16x2_relu(f16x2_t a, ReluNegativeZero z) { return f16x2_pack(f16_relu(f16x2_lo(a), z), f16_relu(f16x2_hi(a), z)); }
f16x2_t f16x2_abs(f16x2_t a) { return fast::f16x2_abs(a); }

namespace {
f16_t xorsign(f16_t r, f16_t a, f16_t b) { return fast::f16_is_nan(r) ? r : static_cast<f16_t>((r & ~kSign) | ((a ^ b) & kSign)); }
}  // namespace
f16_t f16_min_xorsign_abs(f16_t a, f16_t b) { return xorsign(f16_min(a & ~kSign, b & ~kSign), a, b); }
f16_t f16_max_xorsign_abs(f16_t a, f16_t b) { return xorsign(f16_max(a & ~kSign, b & ~kSign), a, b); }
f16x2_t f16x2_min_xorsign_abs(f16x2_t a, f16x2_t b) {
  return f16x2_pack(f16_min_xorsign_abs(f16x2_lo(a), f16x2_lo(b)), f16_min_xorsign_abs(f16x2_hi(a), f16x2_hi(b)));
}
f16x2_t f16x2_max_xorsign_abs(f16x2_t a, f16x2_t b) {
  return f16x2_pack(f16_max_xorsign_abs(f16x2_lo(a), f16x2_lo(b)), f16_max_xorsign_abs(f16x2_hi(a), f16x2_hi(b)));
}

}  // namespace rrswin

namespace rrswin {

// Exact: a finite f16 is an integer number of units 2^-24 below 2^40; each weight product is an
// integer below 2^16 + 1 in units of 2^-16, so each term is below 2^57 units of 2^-40 and the
// sum of four below 2^59: a signed 64-bit integer holds it, and round_to_f16 rounds it once (in
// 64-bit arithmetic).
f16_t f16_bilinear(f16_t t00, f16_t t10, f16_t t01, f16_t t11, unsigned a, unsigned b) {
  const f16_t t[4] = {t00, t10, t01, t11};
  const std::uint64_t w[4] = {(256u - a) * (256u - b), a * (256u - b), (256u - a) * b, a * b};
  bool finite = true;
  for (int k = 0; k < 4; ++k)
    if (w[k] != 0 && (t[k] & 0x7C00) == 0x7C00) finite = false;
  if (!finite) {  // NaN or Inf involved: IEEE arithmetic on the (exact) doubles
    double s = 0;
    for (int k = 0; k < 4; ++k)
      if (w[k] != 0) s += f16_to_f64(t[k]) * static_cast<double>(w[k]);
    return f64_to_f16(s);
  }
  std::int64_t sum = 0;
  for (int k = 0; k < 4; ++k) {
    const std::uint32_t e = (t[k] >> 10) & 0x1F, f = t[k] & 0x3FF;
    const std::int64_t units = e == 0 ? f : static_cast<std::int64_t>(f | 0x400) << (e - 1);  // x 2^-24
    sum += ((t[k] & 0x8000) ? -units : units) * static_cast<std::int64_t>(w[k]);
  }
  if (sum == 0) {
    // An exact zero: IEEE's sign rule for a sum (-0 only when every nonzero-weight term is -0).
    bool all_neg = true;
    for (int k = 0; k < 4; ++k)
      if (w[k] != 0 && !(t[k] & 0x8000)) all_neg = false;
    return all_neg ? static_cast<f16_t>(0x8000) : static_cast<f16_t>(0);
  }
  const bool neg = sum < 0;
  return detail::round_to_f16<std::uint64_t>(neg, static_cast<std::uint64_t>(neg ? -sum : sum), -40);
}

}  // namespace rrswin
