// FP8 E4M3 ("fn": bias 7, no Inf, NaN = 0x7F/0xFF, max 448) conversions
// (numerics.md "Formats" and "Conversions"; facts D2, D3).
#include "numerics/e4m3.hpp"

#include <array>
#include <cmath>
#include <limits>

#include "numerics/f16.hpp"
#include "numerics/round_detail.hpp"

namespace rrswin {
namespace {

// Magnitude of code c (sign dropped) as an integer multiple of 2^-9, per numerics.md "Formats":
// m >= 8: (1 + (m & 7)/8) * 2^((m >> 3) - 7) = (8 + (m & 7)) * 2^((m >> 3) - 1) * 2^-9;
// m < 8:  m * 2^-9.  (m = 0x7F is NaN and never passed here.)
std::uint32_t magnitude_units(unsigned m) {
  if (m < 8) return m;
  return (8u + (m & 7u)) << ((m >> 3) - 1);
}

// cvt.rn.f16x2.e4m3x2 per byte: exact (every e4m3 value is an f16 normal or zero: 2^-9 >= 2^-14).
std::array<f16_t, 256> make_decode_table() {
  std::array<f16_t, 256> t{};
  for (unsigned c = 0; c < 256; ++c) {
    const unsigned m = c & 0x7F;
    if (m == 0x7F) {
      t[c] = kF16CanonicalNaN;  // NVIDIA's host code returns 0x7FFF for both NaN codes
    } else {
      // Exact: the value has at most 4 significant bits, so the "rounding" changes nothing.
      t[c] = detail::round_to_f16((c & 0x80) != 0, magnitude_units(m), -9);
    }
  }
  return t;
}

const std::array<f16_t, 256>& decode_table() {
  static const std::array<f16_t, 256> t = make_decode_table();
  return t;
}

}  // namespace

bool e4m3_is_nan(e4m3_t c) { return (c & 0x7F) == 0x7F; }

double e4m3_to_f64(e4m3_t c) {
  const unsigned m = c & 0x7F;
  if (m == 0x7F) return std::numeric_limits<double>::quiet_NaN();
  const double v = std::ldexp(static_cast<double>(magnitude_units(m)), -9);  // exact
  return (c & 0x80) ? -v : v;
}

f16_t e4m3_to_f16(e4m3_t c) { return decode_table()[c]; }

// cvt.rn.satfinite.e4m3x2.f16x2, one half (PTX ISA cvt; numerics.md "Conversions"; facts D3):
//  - NaN -> NaN: 0x7F in `ada` (NVIDIA's host emulation drops the sign; what an Ada GPU returns
//    for a negative NaN is unmeasured), 0x7F | sign in `zluda` (d4r's codec and gfx12 keep it).
//  - +-Inf and |x| > 448 -> +-448 (0x7E / 0xFE): .satfinite.
//  - otherwise round to nearest, ties to even, e4m3 subnormals kept (quantum 2^-9). Every
//    |x| <= 2^-10 (half the smallest subnormal, a tie that goes to the even 0) and therefore
//    every f16 subnormal becomes a zero that keeps the sign (-0 -> 0x80).
e4m3_t f16_to_e4m3(f16_t h, const Profile& p) {
  const e4m3_t sign = static_cast<e4m3_t>((h >> 8) & 0x80);
  if (f16_is_nan(h)) return p.e4m3_nan_keeps_sign ? static_cast<e4m3_t>(0x7F | sign) : e4m3_t{0x7F};
  const unsigned a = h & 0x7FFFu;
  // Above 448 = 0x5F00 (Inf included): satfinite. <= 448 rounds to at most 448 (448 is
  // representable and rounding is monotone): no overflow below.
  if (a > 0x5F00u) return static_cast<e4m3_t>(sign | kE4m3MaxFinite);
  // round_detail.hpp's rule (P = 3, QMIN = -9) in 32-bit integers. A value >= 2^-6 (f16 exponent
  // field >= 9) is an e4m3 normal: re-bias the exponent (15 -> 7) and keep the top 3 mantissa bits,
  // rounded on the 7 below, ties to even (a carry runs into the exponent).
  if (a >= (9u << 10)) return static_cast<e4m3_t>(sign | ((a - (8u << 10) + 0x3Fu + ((a >> 7) & 1u)) >> 7));
  // Below 2^-6: the value in units of 2^-9 (e4m3's subnormal spacing) is units24 / 2^15, with
  // |h| = units24 * 2^-24 exactly; the rounding may carry into 8 = the smallest normal's pattern.
  const unsigned e = a >> 10, f = a & 0x3FFu;
  const unsigned units = (e == 0) ? f : ((1024u + f) << (e - 1));
  unsigned k = units >> 15;
  const unsigned rem = units & 0x7FFFu;
  if (rem > 0x4000u || (rem == 0x4000u && (k & 1u))) ++k;
  return static_cast<e4m3_t>(sign | k);
}

f16x2_t cvt_f16x2_e4m3x2(std::uint16_t pair) {
  return f16x2_pack(e4m3_to_f16(static_cast<e4m3_t>(pair & 0xFF)), e4m3_to_f16(static_cast<e4m3_t>(pair >> 8)));
}

std::uint16_t cvt_e4m3x2_f16x2(f16x2_t v, const Profile& p) {
  const unsigned lo = f16_to_e4m3(f16x2_lo(v), p);
  const unsigned hi = f16_to_e4m3(f16x2_hi(v), p);
  return static_cast<std::uint16_t>(lo | (hi << 8));
}

e4m3_t e4m3_relu(e4m3_t c, ReluNegativeZero z) {
  if (e4m3_is_nan(c)) return 0x7F;
  if (c == 0x80 && z == ReluNegativeZero::keep) return c;
  return (c & 0x80) ? static_cast<e4m3_t>(0) : c;
}

std::uint16_t cvt_e4m3x2_f16x2_relu(f16x2_t v, const Profile& p, ReluNegativeZero z) {
  const unsigned lo = e4m3_relu(f16_to_e4m3(f16x2_lo(v), p), z);
  const unsigned hi = e4m3_relu(f16_to_e4m3(f16x2_hi(v), p), z);
  return static_cast<std::uint16_t>(lo | (hi << 8));
}

}  // namespace rrswin
