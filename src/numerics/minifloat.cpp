// e5m2, e4m3 from f32, bf16 (minifloat.hpp): exact rounding of m * 2^e (round_detail.hpp).
#include "numerics/minifloat.hpp"

#include <bit>
#include <cmath>

#include "numerics/round_detail.hpp"

namespace rrswin {

namespace {

// A finite nonzero binary32 as m * 2^e exactly.
void decompose(float x, std::uint64_t& m, int& e) {
  const std::uint32_t b = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t ex = (b >> 23) & 0xFF, f = b & 0x7FFFFF;
  m = ex == 0 ? f : (f | 0x800000u);
  e = ex == 0 ? -149 : static_cast<int>(ex) - 150;
}

// P mantissa bits, QMIN the subnormal spacing's exponent, max the MAX_NORM pattern, limit its value.
template <int P, int QMIN>
std::uint8_t fp8_satfinite(float x, std::uint8_t max, double limit, const Profile& p) {
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0;
  if (std::isnan(x)) return p.e4m3_nan_keeps_sign ? static_cast<std::uint8_t>(0x7F | sign) : std::uint8_t{0x7F};
  if (std::fabs(static_cast<double>(x)) > limit) return static_cast<std::uint8_t>(sign | max);  // also +-Inf
  if (x == 0) return sign;
  std::uint64_t m;
  int e;
  decompose(x, m, e);
  // <= MAX_NORM rounds to at most MAX_NORM (representable, rounding monotone).
  return static_cast<std::uint8_t>(sign | detail::round_magnitude_rne<P, QMIN>(m, e));
}

}  // namespace

std::uint8_t f32_to_e4m3(float x, const Profile& p) { return fp8_satfinite<3, -9>(x, 0x7E, 448.0, p); }
std::uint8_t f32_to_e5m2(float x, const Profile& p) { return fp8_satfinite<2, -16>(x, 0x7B, 57344.0, p); }
std::uint8_t f16_to_e5m2(f16_t h, const Profile& p) {
  // Every f16 is a binary32 exactly, so rounding its value once is the f16 -> e5m2 conversion.
  const std::uint32_t e = (h >> 10) & 0x1F, f = h & 0x3FF;
  float v;
  if (e == 0x1F)
    v = f ? std::bit_cast<float>(0x7FC00000u) : INFINITY;
  else
    v = e == 0 ? std::ldexp(static_cast<float>(f), -24) : std::ldexp(static_cast<float>(f | 0x400), static_cast<int>(e) - 25);
  if (h & 0x8000) v = -v;
  return f32_to_e5m2(v, p);
}
f16_t e5m2_to_f16(std::uint8_t c) {
  // e5m2 is the upper byte of a binary16 (same exponent field and bias).
  const f16_t h = static_cast<f16_t>(c << 8);
  return ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) ? static_cast<f16_t>(0x7FFF) : h;
}
std::uint16_t f32_to_bf16(float x) {
  if (std::isnan(x)) return 0x7FFF;
  const std::uint32_t b = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t rest = b & 0xFFFF, half = 0x8000;
  std::uint32_t r = b >> 16;
  if (rest > half || (rest == half && (r & 1))) ++r;  // RNE on the binary32 pattern: carries into
  return static_cast<std::uint16_t>(r);               // the exponent (and to Inf) correctly
}
float bf16_to_f32(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

std::uint16_t bf16_relu(std::uint16_t b, ReluNegativeZero z) {
  if ((b & 0x7F80u) == 0x7F80u && (b & 0x7Fu) != 0) return 0x7FFF;
  if (b == 0x8000u && z == ReluNegativeZero::keep) return b;  // -0 (docs/readings.md "ptx-relu-negative-zero")
  return (b & 0x8000u) ? std::uint16_t{0} : b;
}

namespace {
bool bf16_nan(std::uint16_t b) { return (b & 0x7F80u) == 0x7F80u && (b & 0x7Fu) != 0; }
// A binary64 that is not NaN rounded once to bf16 (round_detail.hpp: P = 7, QMIN = -133).
std::uint16_t f64_to_bf16_rne(double x) {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
  const auto sign = static_cast<std::uint16_t>((bits >> 48) & 0x8000u);
  const std::uint64_t e = (bits >> 52) & 0x7FF, f = bits & 0xFFFFFFFFFFFFFull;
  if (e == 0x7FF) return static_cast<std::uint16_t>(sign | 0x7F80u);  // Inf (NaN is the caller's)
  const std::uint64_t m = e == 0 ? f : (f | (1ull << 52));
  const int ex = e == 0 ? -1074 : static_cast<int>(e) - 1075;
  const std::uint64_t mag = detail::round_magnitude_rne<7, -133>(m, ex);
  return static_cast<std::uint16_t>(sign | (mag >= 0x7F80u ? 0x7F80u : mag));
}
unsigned bf16_key(std::uint16_t h) { return (h & 0x8000u) ? (~h & 0xFFFFu) : (h | 0x8000u); }
template <class Op>
std::uint32_t per_half(std::uint32_t a, std::uint32_t b, Op op) {
  return op(static_cast<std::uint16_t>(a), static_cast<std::uint16_t>(b)) |
         (static_cast<std::uint32_t>(op(static_cast<std::uint16_t>(a >> 16), static_cast<std::uint16_t>(b >> 16))) << 16);
}
}  // namespace

// add/sub: the binary32 sum of two bf16 values rounded to bf16 (cvt.rn.bf16.f32) is the sum
// rounded once: binary32 has p' = 24 >= 2p + 2 = 18 bits for bf16's p = 8 (Figueroa's condition,
// as numerics/f16.cpp's add), a sum below bf16's normal range is a multiple of 2^-133 and exact in
// binary32, and the overflow threshold (2 - 2^-8) 2^127 is a binary32 number.
std::uint16_t bf16_add(std::uint16_t a, std::uint16_t b) { return f32_to_bf16(bf16_to_f32(a) + bf16_to_f32(b)); }
std::uint16_t bf16_sub(std::uint16_t a, std::uint16_t b) { return f32_to_bf16(bf16_to_f32(a) - bf16_to_f32(b)); }
// mul: the product of two 8-bit significands is exact in binary64 (2^-266 .. 2^256 inside its
// normal range), rounded once to bf16.
std::uint16_t bf16_mul(std::uint16_t a, std::uint16_t b) {
  const double p = static_cast<double>(bf16_to_f32(a)) * static_cast<double>(bf16_to_f32(b));
  return p != p ? std::uint16_t{0x7FFF} : f64_to_bf16_rne(p);
}
std::uint16_t bf16_max(std::uint16_t a, std::uint16_t b) {
  const bool na = bf16_nan(a), nb = bf16_nan(b);
  if (na && nb) return 0x7FFF;
  if (na) return b;
  if (nb) return a;
  return bf16_key(a) >= bf16_key(b) ? a : b;
}
std::uint16_t bf16_min(std::uint16_t a, std::uint16_t b) {
  const bool na = bf16_nan(a), nb = bf16_nan(b);
  if (na && nb) return 0x7FFF;
  if (na) return b;
  if (nb) return a;
  return bf16_key(a) <= bf16_key(b) ? a : b;
}
// fma.rn.bf16: a*b + c rounded once. The product of two bf16 values (8-bit significands, exponents
// down to 2^-133) is exact in binary64; the sum p + c is taken exactly as s + e (TwoSum: s = RN(p + c),
// e the exact remainder, no overflow below 2^257) and rounded to odd in binary64 (truncated, the last
// bit set when inexact), which a second rounding to bf16's 8 bits turns into the single rounding of
// the exact sum (round-to-odd: 53 >= 8 + 2 bits; Boldo and Melquiond, "Emulation of FMA and
// correctly rounded sums: proved algorithms using rounding to odd", IEEE TC 2008). Subnormal
// results: the exact sum is a multiple of 2^-266, the same argument at bf16's fixed exponent 2^-133.
std::uint16_t bf16_fma(std::uint16_t a, std::uint16_t b, std::uint16_t c) {
  const double p = static_cast<double>(bf16_to_f32(a)) * static_cast<double>(bf16_to_f32(b));
  const double cv = static_cast<double>(bf16_to_f32(c));
  const double s = p + cv;
  if (s != s) return 0x7FFF;  // a NaN operand, Inf * 0, Inf - Inf
  if (std::isinf(s)) return f64_to_bf16_rne(s);
  const double bp = s - cv, bc = s - bp;  // TwoSum (Knuth): p + cv = s + e exactly
  const double e = (p - bp) + (cv - bc);
  if (e == 0) return f64_to_bf16_rne(s);
  const double z = (e < 0) == (s > 0) ? std::nextafter(s, 0.0) : s;  // RZ(p + cv)
  return f64_to_bf16_rne(std::bit_cast<double>(std::bit_cast<std::uint64_t>(z) | 1u));
}
std::uint32_t bf16x2_fma(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  const auto h = [](std::uint32_t x, int k) { return static_cast<std::uint16_t>(x >> (16 * k)); };
  return bf16_fma(h(a, 0), h(b, 0), h(c, 0)) | (static_cast<std::uint32_t>(bf16_fma(h(a, 1), h(b, 1), h(c, 1))) << 16);
}
std::uint32_t bf16x2_add(std::uint32_t a, std::uint32_t b) { return per_half(a, b, bf16_add); }
std::uint32_t bf16x2_sub(std::uint32_t a, std::uint32_t b) { return per_half(a, b, bf16_sub); }
std::uint32_t bf16x2_mul(std::uint32_t a, std::uint32_t b) { return per_half(a, b, bf16_mul); }
std::uint32_t bf16x2_min(std::uint32_t a, std::uint32_t b) { return per_half(a, b, bf16_min); }
std::uint32_t bf16x2_max(std::uint32_t a, std::uint32_t b) { return per_half(a, b, bf16_max); }

namespace {
std::uint16_t bf16_xorsign(std::uint16_t r, std::uint16_t a, std::uint16_t b) {
  return bf16_nan(r) ? r : static_cast<std::uint16_t>((r & 0x7FFFu) | ((a ^ b) & 0x8000u));
}
}  // namespace
std::uint16_t bf16_min_xorsign_abs(std::uint16_t a, std::uint16_t b) { return bf16_xorsign(bf16_min(a & 0x7FFFu, b & 0x7FFFu), a, b); }
std::uint16_t bf16_max_xorsign_abs(std::uint16_t a, std::uint16_t b) { return bf16_xorsign(bf16_max(a & 0x7FFFu, b & 0x7FFFu), a, b); }
std::uint32_t bf16x2_min_xorsign_abs(std::uint32_t a, std::uint32_t b) { return per_half(a, b, bf16_min_xorsign_abs); }
std::uint32_t bf16x2_max_xorsign_abs(std::uint32_t a, std::uint32_t b) { return per_half(a, b, bf16_max_xorsign_abs); }

}  // namespace rrswin
