// Classification and comparison on bit patterns (fp_class.hpp). One implementation for the four
// formats, parameterised by their exponent and fraction widths: a value's sign and magnitude
// (exponent and fraction together, an unsigned integer ordered as the values are) decide every
// relation without a host float comparison.
#include "numerics/fp_class.hpp"

namespace rrswin {

namespace {

template <int ExpBits, int FracBits>
struct Format {
  static constexpr int kBits = 1 + ExpBits + FracBits;
  static constexpr std::uint64_t kFracMask = (1ull << FracBits) - 1;
  static constexpr std::uint64_t kExpMask = ((1ull << ExpBits) - 1) << FracBits;
  static constexpr std::uint64_t kMagMask = kExpMask | kFracMask;
  static constexpr std::uint64_t kSign = 1ull << (kBits - 1);

  static bool is_nan(std::uint64_t x) { return (x & kExpMask) == kExpMask && (x & kFracMask) != 0; }
  static bool is_inf(std::uint64_t x) { return (x & kMagMask) == kExpMask; }
  static bool is_subnormal(std::uint64_t x) { return (x & kExpMask) == 0 && (x & kFracMask) != 0; }

  // The magnitude, a subnormal flushed to 0 under ftz.
  static std::uint64_t magnitude(std::uint64_t x, bool ftz) { return ftz && (x & kExpMask) == 0 ? 0 : x & kMagMask; }

  static std::uint8_t relation(std::uint64_t a, std::uint64_t b, bool ftz) {
    if (is_nan(a) || is_nan(b)) return kFpUnordered;
    const std::uint64_t ma = magnitude(a, ftz), mb = magnitude(b, ftz);
    // Signed keys: -m for a negative value, so -0 and +0 are both 0 (equal).
    const std::int64_t ka = (a & kSign) ? -static_cast<std::int64_t>(ma) : static_cast<std::int64_t>(ma);
    const std::int64_t kb = (b & kSign) ? -static_cast<std::int64_t>(mb) : static_cast<std::int64_t>(mb);
    return ka < kb ? kFpLess : ka > kb ? kFpGreater : kFpEqual;
  }

  static bool testp(std::uint64_t x, FpTest t) {
    switch (t) {
      case FpTest::finite: return (x & kExpMask) != kExpMask;
      case FpTest::infinite: return is_inf(x);
      case FpTest::number: return !is_nan(x);
      case FpTest::notanumber: return is_nan(x);
      case FpTest::normal: return (x & kExpMask) != kExpMask && (x & kExpMask) != 0;
      case FpTest::subnormal: return is_subnormal(x);
    }
    return false;
  }
};

using F16 = Format<5, 10>;
using BF16 = Format<8, 7>;
using F32 = Format<8, 23>;
using F64 = Format<11, 52>;

}  // namespace

std::uint8_t fp_compare_mask(FpCompare c) {
  constexpr std::uint8_t L = kFpLess, E = kFpEqual, G = kFpGreater, U = kFpUnordered;
  switch (c) {
    case FpCompare::eq: return E;
    case FpCompare::ne: return L | G;
    case FpCompare::lt: return L;
    case FpCompare::le: return L | E;
    case FpCompare::gt: return G;
    case FpCompare::ge: return G | E;
    case FpCompare::equ: return E | U;
    case FpCompare::neu: return L | G | U;
    case FpCompare::ltu: return L | U;
    case FpCompare::leu: return L | E | U;
    case FpCompare::gtu: return G | U;
    case FpCompare::geu: return G | E | U;
    case FpCompare::num: return L | E | G;
    case FpCompare::nan: return U;
  }
  return 0;
}

std::uint8_t f16_relation(std::uint16_t a, std::uint16_t b, bool ftz) { return F16::relation(a, b, ftz); }
std::uint8_t bf16_relation(std::uint16_t a, std::uint16_t b, bool ftz) { return BF16::relation(a, b, ftz); }
std::uint8_t f32_relation(std::uint32_t a, std::uint32_t b, bool ftz) { return F32::relation(a, b, ftz); }
std::uint8_t f64_relation(std::uint64_t a, std::uint64_t b) { return F64::relation(a, b, false); }

bool f32_slct_selects_a(std::uint32_t c, bool ftz) { return (F32::relation(c, 0, ftz) & (kFpGreater | kFpEqual)) != 0; }

bool f32_testp(std::uint32_t a, FpTest t) { return F32::testp(a, t); }
bool f64_testp(std::uint64_t a, FpTest t) { return F64::testp(a, t); }

}  // namespace rrswin
