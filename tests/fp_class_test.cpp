// numerics/fp_class (testp, the setp/set comparisons, slct's sign test), numerics/f32's NaN
// canonicalisation of the widening cvt, f16_flush and numerics/texcoord, against independent
// references: the host's IEEE comparisons and std::fpclassify on values decoded here from the bit
// patterns by ldexp (not by numerics' own conversions), and tables derived by hand from the PTX
// ISA manual (9.7.3.3 testp, "Comparison operators", 9.7.8.3 slct, 9.7.9.21 cvt) and the CUDA
// Programming Guide's texture fetching (x_B = x - 0.5, 8 fractional bits of weight).
#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "numerics/f16.hpp"
#include "numerics/f32.hpp"
#include "numerics/fp_class.hpp"
#include "numerics/texcoord.hpp"

using namespace rrswin;

namespace {

// A binary format's value decoded by hand (sign, biased exponent, fraction): NaN for NaNs.
double decode(std::uint64_t bits, int exp_bits, int frac_bits, bool ftz) {
  const std::uint64_t frac = bits & ((1ull << frac_bits) - 1);
  const int e = static_cast<int>((bits >> frac_bits) & ((1u << exp_bits) - 1));
  const bool neg = (bits >> (exp_bits + frac_bits)) & 1;
  const int bias = (1 << (exp_bits - 1)) - 1;
  double v;
  if (e == (1 << exp_bits) - 1)
    v = frac ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (e == 0)
    v = ftz ? 0.0 : std::ldexp(static_cast<double>(frac), 1 - bias - frac_bits);
  else
    v = std::ldexp(static_cast<double>(frac | (1ull << frac_bits)), e - bias - frac_bits);
  return neg ? -v : v;
}

// The relation by the host's IEEE comparisons.
std::uint8_t host_relation(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return kFpUnordered;
  return x < y ? kFpLess : x > y ? kFpGreater : kFpEqual;
}

std::vector<std::uint16_t> half_edges(std::uint32_t seed) {
  std::vector<std::uint16_t> v = {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x3C00, 0xBC00, 0x3C01, 0x7BFF,
                                  0xFBFF, 0x7C00, 0xFC00, 0x7C01, 0x7E00, 0xFE00, 0x7FFF, 0x3F80, 0x0080, 0x8080, 0x007F, 0x7F80};
  std::mt19937 g(seed);
  for (int k = 0; k < 100; ++k) v.push_back(static_cast<std::uint16_t>(g()));
  return v;
}

TEST(FpClass, F16AndBf16RelationsAgainstHostComparisonsForEveryValue) {
  const std::vector<std::uint16_t> bs = half_edges(1);
  for (std::uint32_t a = 0; a < 0x10000; ++a)
    for (const std::uint16_t b : bs)
      for (const bool ftz : {false, true}) {
        const auto ah = static_cast<std::uint16_t>(a);
        ASSERT_EQ(f16_relation(ah, b, ftz), host_relation(decode(a, 5, 10, ftz), decode(b, 5, 10, ftz)))
            << std::hex << a << " " << b << " ftz " << ftz;
        ASSERT_EQ(bf16_relation(ah, b, ftz), host_relation(decode(a, 8, 7, ftz), decode(b, 8, 7, ftz)))
            << std::hex << a << " " << b << " ftz " << ftz;
      }
}

TEST(FpClass, F32AndF64RelationsAgainstHostComparisons) {
  std::vector<std::uint32_t> v = {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x3F800000,
                                  0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFFFFFFF};
  std::mt19937 g(7);
  for (int k = 0; k < 400; ++k) v.push_back(g());
  for (const std::uint32_t a : v)
    for (const std::uint32_t b : v) {
      // Host comparison of the f32 values; .ftz: std::fpclassify decides what flushes.
      auto val = [](std::uint32_t x, bool ftz) {
        const float f = std::bit_cast<float>(x);
        return ftz && std::fpclassify(f) == FP_SUBNORMAL ? 0.0 : static_cast<double>(f);
      };
      ASSERT_EQ(f32_relation(a, b, false), host_relation(val(a, false), val(b, false))) << std::hex << a << " " << b;
      ASSERT_EQ(f32_relation(a, b, true), host_relation(val(a, true), val(b, true))) << std::hex << a << " " << b;
      const std::uint64_t da = (static_cast<std::uint64_t>(a) << 32) | b, db = (static_cast<std::uint64_t>(b) << 32) | a;
      ASSERT_EQ(f64_relation(da, db), host_relation(std::bit_cast<double>(da), std::bit_cast<double>(db))) << std::hex << da << " " << db;
    }
  // By hand: -0 == +0; the smallest subnormals differ without .ftz and equal zero with it.
  EXPECT_EQ(f32_relation(0x80000000, 0x00000000, false), kFpEqual);
  EXPECT_EQ(f32_relation(0x00000001, 0x80000000, false), kFpGreater);
  EXPECT_EQ(f32_relation(0x00000001, 0x80000000, true), kFpEqual);
  EXPECT_EQ(f32_relation(0x80000001, 0x00000001, true), kFpEqual);
  EXPECT_EQ(f64_relation(0x8000000000000000ull, 0), kFpEqual);
  EXPECT_EQ(f32_relation(0xFF800000, 0x7F800000, false), kFpLess);
  EXPECT_EQ(f32_relation(0x7FC00000, 0x7FC00000, false), kFpUnordered);
}

TEST(FpClass, ComparisonOperatorsFollowTheIsaTable) {
  // PTX ISA "Comparison operators": for (a, b) = (1, 2), (2, 2), (2, 1), (NaN, 1): the result.
  struct Row {
    FpCompare c;
    bool lt, eq, gt, un;
  };
  const Row rows[] = {
      {FpCompare::eq, 0, 1, 0, 0},  {FpCompare::ne, 1, 0, 1, 0},  {FpCompare::lt, 1, 0, 0, 0},  {FpCompare::le, 1, 1, 0, 0},
      {FpCompare::gt, 0, 0, 1, 0},  {FpCompare::ge, 0, 1, 1, 0},  {FpCompare::equ, 0, 1, 0, 1}, {FpCompare::neu, 1, 0, 1, 1},
      {FpCompare::ltu, 1, 0, 0, 1}, {FpCompare::leu, 1, 1, 0, 1}, {FpCompare::gtu, 0, 0, 1, 1}, {FpCompare::geu, 0, 1, 1, 1},
      {FpCompare::num, 1, 1, 1, 0}, {FpCompare::nan, 0, 0, 0, 1},
  };
  const std::uint32_t one = 0x3F800000, two = 0x40000000, nan = 0x7FC00000;
  for (const Row& r : rows) {
    const std::uint8_t m = fp_compare_mask(r.c);
    EXPECT_EQ((f32_relation(one, two, false) & m) != 0, r.lt) << static_cast<int>(r.c);
    EXPECT_EQ((f32_relation(two, two, false) & m) != 0, r.eq) << static_cast<int>(r.c);
    EXPECT_EQ((f32_relation(two, one, false) & m) != 0, r.gt) << static_cast<int>(r.c);
    EXPECT_EQ((f32_relation(nan, one, false) & m) != 0, r.un) << static_cast<int>(r.c);
  }
}

TEST(FpClass, SlctSelectsAForNonNegativeSelectors) {
  // 9.7.8.3: a if c >= 0 (-0 too); .ftz: a negative subnormal is -0; NaN selects b.
  EXPECT_TRUE(f32_slct_selects_a(0x00000000, false));
  EXPECT_TRUE(f32_slct_selects_a(0x80000000, false));
  EXPECT_TRUE(f32_slct_selects_a(0x00000001, false));
  EXPECT_FALSE(f32_slct_selects_a(0x80000001, false));
  EXPECT_TRUE(f32_slct_selects_a(0x80000001, true));
  EXPECT_FALSE(f32_slct_selects_a(0xBF800000, true));
  EXPECT_TRUE(f32_slct_selects_a(0x7F800000, false));
  EXPECT_FALSE(f32_slct_selects_a(0xFF800000, false));
  EXPECT_FALSE(f32_slct_selects_a(0x7FC00000, false));
  EXPECT_FALSE(f32_slct_selects_a(0xFFC00000, true));
}

TEST(FpClass, TestpAgainstFpclassifyAndByHand) {
  std::vector<std::uint32_t> v = {0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x3F800000,
                                  0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFFFFFFF};
  std::mt19937 g(3);
  for (int k = 0; k < 2000; ++k) v.push_back(g());
  for (const std::uint32_t a : v) {
    const float f = std::bit_cast<float>(a);
    const int c = std::fpclassify(f);
    EXPECT_EQ(f32_testp(a, FpTest::finite), c != FP_INFINITE && c != FP_NAN) << std::hex << a;
    EXPECT_EQ(f32_testp(a, FpTest::infinite), c == FP_INFINITE) << std::hex << a;
    EXPECT_EQ(f32_testp(a, FpTest::number), c != FP_NAN) << std::hex << a;
    EXPECT_EQ(f32_testp(a, FpTest::notanumber), c == FP_NAN) << std::hex << a;
    EXPECT_EQ(f32_testp(a, FpTest::normal), c == FP_NORMAL) << std::hex << a;
    EXPECT_EQ(f32_testp(a, FpTest::subnormal), c == FP_SUBNORMAL) << std::hex << a;
    const std::uint64_t d = (static_cast<std::uint64_t>(a) << 32) | g();
    const int cd = std::fpclassify(std::bit_cast<double>(d));
    EXPECT_EQ(f64_testp(d, FpTest::normal), cd == FP_NORMAL) << std::hex << d;
    EXPECT_EQ(f64_testp(d, FpTest::subnormal), cd == FP_SUBNORMAL) << std::hex << d;
    EXPECT_EQ(f64_testp(d, FpTest::notanumber), cd == FP_NAN) << std::hex << d;
    EXPECT_EQ(f64_testp(d, FpTest::infinite), cd == FP_INFINITE) << std::hex << d;
    EXPECT_EQ(f64_testp(d, FpTest::finite), cd != FP_INFINITE && cd != FP_NAN) << std::hex << d;
    EXPECT_EQ(f64_testp(d, FpTest::number), cd != FP_NAN) << std::hex << d;
  }
  // By hand (9.7.3.3): zeros are finite numbers, neither normal nor subnormal.
  EXPECT_FALSE(f32_testp(0x80000000, FpTest::normal));
  EXPECT_FALSE(f32_testp(0x80000000, FpTest::subnormal));
  EXPECT_TRUE(f32_testp(0x80000000, FpTest::finite));
  EXPECT_TRUE(f64_testp(0x0000000000000001ull, FpTest::subnormal));
  EXPECT_TRUE(f64_testp(0x7FF0000000000000ull, FpTest::infinite));
  EXPECT_TRUE(f64_testp(0x7FF0000000000000ull, FpTest::number));
}

TEST(FpClass, WideningConversionsGiveTheCanonicalNaN) {
  // cvt.f64.f32 / cvt.f32.f16 / cvt.f64.f16 of a NaN: 0x7FFFFFFF(FFFFFFFF), whatever its payload and
  // sign; every other value exactly.
  for (const std::uint32_t n : {0x7FC00000u, 0x7F800001u, 0xFFC00000u, 0xFFFFFFFFu, 0x7FA5A5A5u}) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(f32_to_f64(std::bit_cast<float>(n))), 0x7FFFFFFFFFFFFFFFull) << std::hex << n;
    EXPECT_EQ(std::bit_cast<std::uint32_t>(f32_canonicalize(std::bit_cast<float>(n))), 0x7FFFFFFFu) << std::hex << n;
  }
  EXPECT_EQ(std::bit_cast<std::uint64_t>(f64_canonicalize(std::bit_cast<double>(0xFFF0000000000001ull))), 0x7FFFFFFFFFFFFFFFull);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(f32_to_f64(std::bit_cast<float>(0x80000001u))), 0xB6A0000000000000ull);  // -2^-149
  EXPECT_EQ(std::bit_cast<std::uint64_t>(f32_to_f64(-0.0f)), 0x8000000000000000ull);
  EXPECT_EQ(f32_to_f64(std::bit_cast<float>(0x3FC00000u)), 1.5);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(f32_canonicalize(std::bit_cast<float>(0xFF800000u))), 0xFF800000u);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(f64_canonicalize(-0.0)), 0x8000000000000000ull);
}

TEST(FpClass, F16FlushKeepsTheSign) {
  EXPECT_EQ(f16_flush(0x0001), 0x0000);
  EXPECT_EQ(f16_flush(0x83FF), 0x8000);
  EXPECT_EQ(f16_flush(0x8000), 0x8000);
  EXPECT_EQ(f16_flush(0x0400), 0x0400);  // the smallest normal stays
  EXPECT_EQ(f16_flush(0x7E01), 0x7E01);  // NaN untouched
  EXPECT_EQ(f16_flush(0xFC00), 0xFC00);
}

TEST(TexCoord, PointAndLinearTexelsByHand) {
  // Point: floor(x); NaN -> 0; clamped to +-2^30.
  EXPECT_EQ(tex_point_texel(0.0f), 0);
  EXPECT_EQ(tex_point_texel(0.999f), 0);
  EXPECT_EQ(tex_point_texel(-0.25f), -1);
  EXPECT_EQ(tex_point_texel(7.5f), 7);
  EXPECT_EQ(tex_point_texel(std::numeric_limits<float>::quiet_NaN()), 0);
  EXPECT_EQ(tex_point_texel(1e30f), 1 << 30);
  EXPECT_EQ(tex_point_texel(-std::numeric_limits<float>::infinity()), -(1 << 30));
  // Linear: x_B = x - 0.5; i = floor(x_B); alpha = frac(x_B) * 256 rounded to nearest even.
  struct Case {
    float x;
    std::int32_t i;
    std::uint32_t alpha;
  };
  const Case cases[] = {
      {1.0f, 0, 128},                   // x_B = 0.5
      {0.5f, 0, 0},                     // a texel centre
      {0.25f, -1, 192},                 // x_B = -0.25 = -1 + 0.75
      {0.5f + 1.0f / 512, 0, 0},        // frac 1/512: 0.5 units, tie -> even 0
      {0.5f + 3.0f / 512, 0, 2},        // 1.5 units -> 2
      {0.5f + 5.0f / 512, 0, 2},        // 2.5 units -> 2
      {0.5f + 1023.0f / 1024, 0, 256},  // 255.75 units -> 256: all weight on texel i+1
      {10.5f + 100.0f / 256, 10, 100},  // exact units
      {std::numeric_limits<float>::quiet_NaN(), 0, 0},
      {1e30f, 1 << 30, 256},
      {-1e30f, -(1 << 30), 0},
  };
  for (const Case& c : cases) {
    const TexLinearTexel t = tex_linear_texel(c.x);
    EXPECT_EQ(t.i, c.i) << c.x;
    EXPECT_EQ(t.alpha, c.alpha) << c.x;
  }
  EXPECT_EQ(tex_unnormalize(0.5f, 64), 32.0f);
  EXPECT_EQ(tex_unnormalize(1.0f / 3.0f, 3), 1.0f);  // 3 * 0x3EAAAAAB = 1.00000003 rounds to 1
}

}  // namespace
