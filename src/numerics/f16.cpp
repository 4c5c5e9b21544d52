// binary16 conversions and arithmetic (numerics.md "Conversions" and "f16 arithmetic").
// Everything here is software: no _Float16, no F16C. All roundings go through one exact
// integer routine (round_detail.hpp), so correctness does not depend on the host's FPU modes
// beyond IEEE double + and * (used only where they are exact, see the proofs below).
#include "numerics/f16.hpp"

#include <bit>
#include <cmath>
#include <cstdint>

#include "numerics/round_detail.hpp"

namespace enc5 {
namespace {

using detail::u128;

constexpr f16_t kSign = 0x8000;
constexpr f16_t kInf = 0x7C00;

bool is_inf(f16_t h) { return (h & 0x7FFF) == kInf; }
bool is_zero(f16_t h) { return (h & 0x7FFF) == 0; }
bool is_negative(f16_t h) { return (h & kSign) != 0; }

// |h| of a finite f16 as an integer multiple of 2^-24 (every finite f16 is one: the subnormal
// spacing is 2^-24 and every normal is (1024 + f) * 2^(e - 25) with e >= 1). |h| <= 65504 =
// 2047 * 2^5, so the integer is below 2^40.
std::uint64_t magnitude_units(f16_t h) {
  const unsigned e = (h >> 10) & 0x1F;
  const unsigned f = h & 0x3FF;
  if (e == 0) return f;
  return static_cast<std::uint64_t>(1024 + f) << (e - 1);
}

}  // namespace

bool f16_is_nan(f16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0; }

// cvt.f32.f16: exact (every binary16 value is a binary32 normal or zero). NaN payloads are moved
// along with the top mantissa bits (PTX leaves the NaN pattern unspecified).
float f16_to_f32(f16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & kSign) << 16;
  const unsigned e = (h >> 10) & 0x1F;
  const std::uint32_t f = h & 0x3FF;
  if (e == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (f << 13));
  if (e == 0) {
    // f * 2^-24: the product of a small integer and a power of two, exact in binary32.
    const float v = std::ldexp(static_cast<float>(f), -24);
    return (h & kSign) ? -v : v;
  }
  return std::bit_cast<float>(sign | ((e + 127 - 15) << 23) | (f << 13));
}

double f16_to_f64(f16_t h) {
  const std::uint64_t sign = static_cast<std::uint64_t>(h & kSign) << 48;
  const std::uint64_t e = (h >> 10) & 0x1F;
  const std::uint64_t f = h & 0x3FF;
  if (e == 0x1F) return std::bit_cast<double>(sign | 0x7FF0000000000000ull | (f << 42));
  if (e == 0) {
    const double v = std::ldexp(static_cast<double>(f), -24);
    return (h & kSign) ? -v : v;
  }
  return std::bit_cast<double>(sign | ((e + 1023 - 15) << 52) | (f << 42));
}

// cvt.rn.f16.f32: RNE, subnormals kept, overflow to Inf, NaN -> 0x7FFF (NVIDIA's canonical NaN).
f16_t f32_to_f16(float x) {
  const std::uint32_t b = std::bit_cast<std::uint32_t>(x);
  const bool neg = (b >> 31) != 0;
  const std::uint32_t e = (b >> 23) & 0xFF;
  const std::uint32_t f = b & 0x7FFFFF;
  if (e == 0xFF) return f != 0 ? kF16CanonicalNaN : static_cast<f16_t>((neg ? kSign : 0) | kInf);
  // value = M * 2^E exactly (binary32 subnormals: M = f, E = -149).
  const std::uint32_t m = (e == 0) ? f : (f | 0x800000u);
  const int ex = (e == 0) ? -149 : static_cast<int>(e) - 150;
  return detail::round_to_f16(neg, m, ex);
}

// cvt.rn.f16.f64: directly from the double (one rounding; going through f32 would round twice,
// numerics.md "Conversions").
f16_t f64_to_f16(double x) {
  const std::uint64_t b = std::bit_cast<std::uint64_t>(x);
  const bool neg = (b >> 63) != 0;
  const std::uint64_t e = (b >> 52) & 0x7FF;
  const std::uint64_t f = b & 0xFFFFFFFFFFFFFull;
  if (e == 0x7FF) return f != 0 ? kF16CanonicalNaN : static_cast<f16_t>((neg ? kSign : 0) | kInf);
  const std::uint64_t m = (e == 0) ? f : (f | (1ull << 52));
  const int ex = (e == 0) ? -1074 : static_cast<int>(e) - 1075;
  return detail::round_to_f16(neg, m, ex);
}

// add/sub/mul.rn.f16: the exact result, rounded once (f64_to_f16). The double operation is exact:
//  * add/sub: both operands are integer multiples of 2^-24 below 2^16 in magnitude, so the exact
//    sum is an integer multiple of 2^-24 below 2^17, i.e. an integer below 2^41 times 2^-24: it
//    has at most 41 significant bits <= 53, and IEEE double addition returns it unchanged.
//    x + (-x) gives +0 and (-0) + (-0) gives -0 in double exactly as IEEE RN requires for f16.
//  * mul: each significand has at most 11 bits, the product at most 22 <= 53 bits, and its
//    exponent (2^-48 .. 2^32) is far inside double's normal range: exact, sign of zero as IEEE.
// Inf - Inf and 0 * Inf give a double NaN, which f64_to_f16 maps to 0x7FFF, as do NaN operands.
f16_t f16_add(f16_t a, f16_t b) { return f64_to_f16(f16_to_f64(a) + f16_to_f64(b)); }
f16_t f16_sub(f16_t a, f16_t b) { return f64_to_f16(f16_to_f64(a) - f16_to_f64(b)); }
f16_t f16_mul(f16_t a, f16_t b) { return f64_to_f16(f16_to_f64(a) * f16_to_f64(b)); }

// fma.rn.f16: a*b + c with a single rounding, computed exactly in integers.
// In units of 2^-24 each finite operand is an integer below 2^40 (magnitude_units), so in units of
// 2^-48 the product is below 2^80 and c (shifted by 24) below 2^64: the exact sum fits a signed
// 128-bit integer, and round_to_f16 rounds it once (RNE, subnormals, overflow to Inf).
// (For the record, an f64 FMA rounded to f16 would also be exact, as numerics.md measured. The
// exact sum needs more than 53 bits only if (i) |a*b| >= 2^29 (its top bit 53 places above c's
// lowest possible bit 2^-24): then |result| > 65520 and both give Inf; or (ii) c is normal and
// |a*b| < 2^-31 |c|, far below c's distance to its nearest f16 midpoint (> 2^-13 |c|):
// then the double result stays strictly between the same two midpoints. The integer form needs
// no such argument.)
f16_t f16_fma(f16_t a, f16_t b, f16_t c) {
  if (f16_is_nan(a) || f16_is_nan(b) || f16_is_nan(c)) return kF16CanonicalNaN;
  const bool prod_neg = is_negative(a) != is_negative(b);
  const bool prod_inf = is_inf(a) || is_inf(b);
  if (prod_inf) {
    if (is_zero(a) || is_zero(b)) return kF16CanonicalNaN;                  // Inf * 0
    if (is_inf(c) && is_negative(c) != prod_neg) return kF16CanonicalNaN;   // Inf - Inf
    return static_cast<f16_t>((prod_neg ? kSign : 0) | kInf);
  }
  if (is_inf(c)) return c;  // finite product + Inf
  const u128 prod_mag = static_cast<u128>(magnitude_units(a)) * magnitude_units(b);  // units 2^-48
  const u128 c_mag = static_cast<u128>(magnitude_units(c)) << 24;                      // units 2^-48
  if (prod_mag == 0 && c_mag == 0) {
    // IEEE 754 6.3: an exact zero sum of zeros is -0 only when both addends are -0 (RN).
    return (prod_neg && is_negative(c)) ? static_cast<f16_t>(kSign) : static_cast<f16_t>(0);
  }
  bool neg;
  u128 mag;
  if (prod_neg == is_negative(c)) {
    neg = prod_neg;
    mag = prod_mag + c_mag;
  } else if (prod_mag >= c_mag) {
    neg = prod_neg;
    mag = prod_mag - c_mag;
  } else {
    neg = is_negative(c);
    mag = c_mag - prod_mag;
  }
  if (mag == 0) return 0;  // exact cancellation of nonzero addends: +0 in RN (IEEE 754 6.3)
  return detail::round_to_f16(neg, mag, -48);
}

// max/min.f16 (PTX ISA): one NaN operand -> the other operand; both NaN -> NaN (canonical);
// +0 is greater than -0.
f16_t f16_max(f16_t a, f16_t b) {
  const bool na = f16_is_nan(a), nb = f16_is_nan(b);
  if (na && nb) return kF16CanonicalNaN;
  if (na) return b;
  if (nb) return a;
  if (is_zero(a) && is_zero(b)) return (is_negative(a) && is_negative(b)) ? a : static_cast<f16_t>(0);
  return f16_to_f64(a) >= f16_to_f64(b) ? a : b;
}

f16_t f16_min(f16_t a, f16_t b) {
  const bool na = f16_is_nan(a), nb = f16_is_nan(b);
  if (na && nb) return kF16CanonicalNaN;
  if (na) return b;
  if (nb) return a;
  if (is_zero(a) && is_zero(b)) return (is_negative(a) || is_negative(b)) ? static_cast<f16_t>(kSign) : a;
  return f16_to_f64(a) <= f16_to_f64(b) ? a : b;
}

// neg/abs.f16: sign-bit flip / clear, every pattern including NaN (numerics.md).
f16_t f16_neg(f16_t a) { return static_cast<f16_t>(a ^ kSign); }
f16_t f16_abs(f16_t a) { return static_cast<f16_t>(a & ~kSign); }

// .f16x2: the scalar operation per half (low half = bits 0..15).
f16x2_t f16x2_add(f16x2_t a, f16x2_t b) {
  return f16x2_pack(f16_add(f16x2_lo(a), f16x2_lo(b)), f16_add(f16x2_hi(a), f16x2_hi(b)));
}
f16x2_t f16x2_sub(f16x2_t a, f16x2_t b) {
  return f16x2_pack(f16_sub(f16x2_lo(a), f16x2_lo(b)), f16_sub(f16x2_hi(a), f16x2_hi(b)));
}
f16x2_t f16x2_mul(f16x2_t a, f16x2_t b) {
  return f16x2_pack(f16_mul(f16x2_lo(a), f16x2_lo(b)), f16_mul(f16x2_hi(a), f16x2_hi(b)));
}
f16x2_t f16x2_fma(f16x2_t a, f16x2_t b, f16x2_t c) {
  return f16x2_pack(f16_fma(f16x2_lo(a), f16x2_lo(b), f16x2_lo(c)),
                    f16_fma(f16x2_hi(a), f16x2_hi(b), f16x2_hi(c)));
}
f16x2_t f16x2_max(f16x2_t a, f16x2_t b) {
  return f16x2_pack(f16_max(f16x2_lo(a), f16x2_lo(b)), f16_max(f16x2_hi(a), f16x2_hi(b)));
}
f16x2_t f16x2_min(f16x2_t a, f16x2_t b) {
  return f16x2_pack(f16_min(f16x2_lo(a), f16x2_lo(b)), f16_min(f16x2_hi(a), f16x2_hi(b)));
}
f16x2_t f16x2_neg(f16x2_t a) { return a ^ 0x80008000u; }
f16x2_t f16x2_abs(f16x2_t a) { return a & 0x7FFF7FFFu; }

}  // namespace enc5

namespace enc5 {

// Exact: a finite f16 is an integer number of units 2^-24 below 2^40; each weight product is an
// integer below 2^16 + 1 in units of 2^-16, so each term is below 2^57 units of 2^-40 and the
// sum of four below 2^59: a signed 64-bit integer holds it, and round_to_f16 rounds it once.
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
  return detail::round_to_f16(neg, static_cast<std::uint64_t>(neg ? -sum : sum), -40);
}

}  // namespace enc5
