// numerics/f32 (the f32/f64 instructions' IEEE operations) against MPFR, the independent oracle:
// every operation in every rounding direction on edge values (zeros of both signs, the smallest
// and largest subnormals, FLT_MIN/DBL_MIN, the largest finite values, infinities, NaNs with
// payloads) and on random bit patterns; MPFR runs at the format's precision and exponent range
// with mpfr_subnormalize, so its result is the correctly rounded IEEE result. NaN results must
// be the canonical NaN. min/max against the PTX ISA's table (9.7.3.10/11), -0 < +0 included.
#include <gtest/gtest.h>

#include "ci_skip.hpp"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <random>
#include <vector>

#include "numerics/approx.hpp"
#include "numerics/f16.hpp"
#include "numerics/f32.hpp"

#if defined(RRSWIN_HAVE_MPFR)
#include "reference/mpfr_oracle.hpp"
using rrswin_test::mpfr_mode;
using rrswin_test::Oracle;
#endif

using rrswin::Round;

namespace {

constexpr Round kRounds[] = {Round::rn, Round::rz, Round::rm, Round::rp};

std::vector<float> f32_values(std::uint32_t seed, int randoms) {
  std::vector<std::uint32_t> bits = {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000,
                                     0x3F800000, 0xBF800000, 0x3F800001, 0x3F7FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
                                     0x7FC00000, 0x7FC00001, 0xFF800001, 0x40400000, 0x3DCCCCCD, 0x4B800000, 0x33800000, 0x00400000};
  std::mt19937 g(seed);
  for (int k = 0; k < randoms; ++k) {
    std::uint32_t b = g();
    if (k % 3 == 0) b = (b & 0x807FFFFFu) | ((0x70u + (g() % 32u)) << 23);  // exponents near 1, where sums cancel
    bits.push_back(b);
  }
  std::vector<float> v;
  for (std::uint32_t b : bits) v.push_back(std::bit_cast<float>(b));
  return v;
}

std::vector<double> f64_values(std::uint32_t seed, int randoms) {
  std::vector<std::uint64_t> bits = {0,
                                     0x8000000000000000ull,
                                     1,
                                     0x8000000000000001ull,
                                     0x000FFFFFFFFFFFFFull,
                                     0x0010000000000000ull,
                                     0x3FF0000000000000ull,
                                     0xBFF0000000000000ull,
                                     0x3FF0000000000001ull,
                                     0x7FEFFFFFFFFFFFFFull,
                                     0x7FF0000000000000ull,
                                     0xFFF0000000000000ull,
                                     0x7FF8000000000000ull,
                                     0x7FF0000000000001ull,
                                     0x4008000000000000ull,
                                     0x3FB999999999999Aull,
                                     0x3CA0000000000000ull};
  std::mt19937_64 g(seed);
  for (int k = 0; k < randoms; ++k) {
    std::uint64_t b = g();
    if (k % 3 == 0) b = (b & 0x800FFFFFFFFFFFFFull) | ((0x3E0ull + (g() % 64)) << 52);
    bits.push_back(b);
  }
  std::vector<double> v;
  for (std::uint64_t b : bits) v.push_back(std::bit_cast<double>(b));
  return v;
}

std::uint32_t bits_of(float f) { return std::bit_cast<std::uint32_t>(f); }
std::uint64_t bits_of(double d) { return std::bit_cast<std::uint64_t>(d); }

}  // namespace

TEST(F32, AddSubMulDivFmaSqrtMatchMpfrInEveryDirection) {
#if !defined(RRSWIN_HAVE_MPFR)
  RRSWIN_SKIP_UNLESS_CI() << "MPFR (libmpfr-dev) not found: the f32/f64 oracle is missing";
#else
  const std::vector<float> v = f32_values(1, 40);
  Oracle<float> o;
  std::uint64_t n = 0;
  for (Round r : kRounds) {
    for (float a : v) {
      EXPECT_EQ(bits_of(rrswin::f32_sqrt(a, r)), bits_of(o.sqrt(a, r))) << "sqrt " << a;
      EXPECT_EQ(bits_of(rrswin::f32_rcp(a, r)), bits_of(o.bin(3, 1.0f, a, r))) << "rcp " << a;
      for (float b : v) {
        EXPECT_EQ(bits_of(rrswin::f32_add(a, b, r)), bits_of(o.bin(0, a, b, r))) << a << " + " << b << " mode " << int(r);
        EXPECT_EQ(bits_of(rrswin::f32_sub(a, b, r)), bits_of(o.bin(1, a, b, r))) << a << " - " << b;
        EXPECT_EQ(bits_of(rrswin::f32_mul(a, b, r)), bits_of(o.bin(2, a, b, r))) << a << " * " << b;
        EXPECT_EQ(bits_of(rrswin::f32_div(a, b, r)), bits_of(o.bin(3, a, b, r))) << a << " / " << b;
        n += 4;
      }
    }
    std::mt19937 g(7);
    for (int k = 0; k < 3000; ++k) {
      const float a = v[g() % v.size()], b = v[g() % v.size()], c = v[g() % v.size()];
      EXPECT_EQ(bits_of(rrswin::f32_fma(a, b, c, r)), bits_of(o.fma(a, b, c, r))) << a << " * " << b << " + " << c;
      ++n;
    }
  }
  EXPECT_GT(n, 40000u);
#endif
}

TEST(F32, F64OperationsMatchMpfrInEveryDirection) {
#if !defined(RRSWIN_HAVE_MPFR)
  RRSWIN_SKIP_UNLESS_CI() << "MPFR (libmpfr-dev) not found: the f32/f64 oracle is missing";
#else
  const std::vector<double> v = f64_values(2, 30);
  Oracle<double> o;
  for (Round r : kRounds) {
    for (double a : v) {
      EXPECT_EQ(bits_of(rrswin::f64_sqrt(a, r)), bits_of(o.sqrt(a, r))) << "sqrt " << a;
      for (double b : v) {
        EXPECT_EQ(bits_of(rrswin::f64_add(a, b, r)), bits_of(o.bin(0, a, b, r))) << a << " + " << b;
        EXPECT_EQ(bits_of(rrswin::f64_sub(a, b, r)), bits_of(o.bin(1, a, b, r))) << a << " - " << b;
        EXPECT_EQ(bits_of(rrswin::f64_mul(a, b, r)), bits_of(o.bin(2, a, b, r))) << a << " * " << b;
        EXPECT_EQ(bits_of(rrswin::f64_div(a, b, r)), bits_of(o.bin(3, a, b, r))) << a << " / " << b;
      }
    }
    std::mt19937 g(9);
    for (int k = 0; k < 2000; ++k) {
      const double a = v[g() % v.size()], b = v[g() % v.size()], c = v[g() % v.size()];
      EXPECT_EQ(bits_of(rrswin::f64_fma(a, b, c, r)), bits_of(o.fma(a, b, c, r))) << a << " * " << b << " + " << c;
    }
  }
#endif
}

TEST(F32, ConversionsMatchMpfrInEveryDirection) {
#if !defined(RRSWIN_HAVE_MPFR)
  RRSWIN_SKIP_UNLESS_CI() << "MPFR (libmpfr-dev) not found: the f32/f64 oracle is missing";
#else
  std::vector<std::int64_t> ints = {0,         1,         -1,        16777217,        -16777217,          33554435,           INT32_MAX,
                                    INT32_MIN, INT64_MAX, INT64_MIN, (1ll << 53) + 1, -((1ll << 53) + 1), 0x123456789ABCDEFll};
  std::mt19937_64 g(3);
  for (int k = 0; k < 200; ++k) ints.push_back(static_cast<std::int64_t>(g() >> (g() % 60)));
  Oracle<float> of;
  Oracle<double> od;
  for (Round r : kRounds) {
    for (std::int64_t i : ints) {
      const auto u = static_cast<std::uint64_t>(i);
      EXPECT_EQ(bits_of(rrswin::int_to_f32(u, true, r)), bits_of(of.from_int(i, true, r))) << i;
      EXPECT_EQ(bits_of(rrswin::int_to_f32(u, false, r)), bits_of(of.from_int(i, false, r))) << i;
      EXPECT_EQ(bits_of(rrswin::int_to_f64(u, true, r)), bits_of(od.from_int(i, true, r))) << i;
      EXPECT_EQ(bits_of(rrswin::int_to_f64(u, false, r)), bits_of(od.from_int(i, false, r))) << i;
    }
    // f64 -> f32, subnormal results and overflow included.
    for (double d : f64_values(4, 200)) {
      for (double e : {d, std::ldexp(d, -900), std::ldexp(1.0 + 0x1p-30, -140), 0x1.FFFFFFp127, -0x1.FFFFFFp127, 0x1.FFFFFF8p-127})
        EXPECT_EQ(bits_of(rrswin::f64_to_f32(e, r)), bits_of(of.from_f64(e, r))) << e << " mode " << int(r);
    }
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    // Float -> integer: MPFR rounds to an integral value, then the PTX saturation and NaN -> 0.
    for (double d : f64_values(5, 100)) {
      for (double e : {d, std::ldexp(d, 40), std::ldexp(d, -1000), 2.5, -2.5, 0.5, -0.5, 4294967295.5, -2147483648.5, 9.3e18, 1.9e19}) {
        for (int bits : {8, 16, 32, 64}) {
          for (bool sg : {false, true}) {
            std::uint64_t want = 0;
            if (!std::isnan(e)) {
              mpfr_t q;
              mpfr_init2(q, 2100);
              mpfr_set_d(q, e, MPFR_RNDN);
              mpfr_rint(q, q, mpfr_mode(r));
              mpfr_t lim;
              mpfr_init2(lim, 2100);
              if (sg) {
                mpfr_set_ui_2exp(lim, 1, bits - 1, MPFR_RNDN);
                if (mpfr_cmp(q, lim) >= 0)
                  want = (1ull << (bits - 1)) - 1;
                else {
                  mpfr_neg(lim, lim, MPFR_RNDN);
                  if (mpfr_cmp(q, lim) <= 0)
                    want = 1ull << (bits - 1);
                  else
                    want = static_cast<std::uint64_t>(mpfr_get_sj(q, MPFR_RNDN));
                }
              } else {
                mpfr_set_ui_2exp(lim, 1, bits, MPFR_RNDN);
                if (mpfr_sgn(q) <= 0)
                  want = 0;
                else if (mpfr_cmp(q, lim) >= 0)
                  want = ~0ull;
                else
                  want = mpfr_get_uj(q, MPFR_RNDN);
              }
              mpfr_clears(q, lim, static_cast<mpfr_ptr>(nullptr));
              if (bits < 64) want &= (1ull << bits) - 1;
            }
            EXPECT_EQ(rrswin::f64_to_int(e, r, bits, sg), want) << e << " bits " << bits << " signed " << sg << " mode " << int(r);
          }
        }
      }
    }
  }
#endif
}

// PTX ISA 9.7.3.10/11 (min/max): -0 is less than +0; a NaN operand gives the other operand, two
// NaNs the canonical NaN; with .NaN any NaN operand gives the canonical NaN. Written out by hand
// from the ISA's text, not from the implementation.
TEST(F32, MinMaxFollowThePtxTable) {
  const float nan = std::bit_cast<float>(0x7FC00001u), pz = 0.0f, nz = -0.0f;
  const std::uint32_t cn = rrswin::kF32CanonicalNaN;
  struct Case {
    float a, b;
    std::uint32_t min, max, min_nan, max_nan;
  };
  const Case cases[] = {
      {pz, nz, 0x80000000u, 0x00000000u, 0x80000000u, 0x00000000u},
      {nz, pz, 0x80000000u, 0x00000000u, 0x80000000u, 0x00000000u},
      {1.0f, nan, 0x3F800000u, 0x3F800000u, cn, cn},
      {nan, -2.0f, 0xC0000000u, 0xC0000000u, cn, cn},
      {nan, nan, cn, cn, cn, cn},
      {-INFINITY, 3.0f, 0xFF800000u, 0x40400000u, 0xFF800000u, 0x40400000u},
      {std::bit_cast<float>(1u), std::bit_cast<float>(0x80000001u), 0x80000001u, 0x00000001u, 0x80000001u, 0x00000001u},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(bits_of(rrswin::f32_min(c.a, c.b, false)), c.min);
    EXPECT_EQ(bits_of(rrswin::f32_max(c.a, c.b, false)), c.max);
    EXPECT_EQ(bits_of(rrswin::f32_min(c.a, c.b, true)), c.min_nan);
    EXPECT_EQ(bits_of(rrswin::f32_max(c.a, c.b, true)), c.max_nan);
  }
  EXPECT_EQ(bits_of(rrswin::f64_max(-0.0, 0.0, false)), 0u);
  EXPECT_EQ(bits_of(rrswin::f64_min(0.0, -0.0, false)), 0x8000000000000000ull);
  EXPECT_EQ(bits_of(rrswin::f64_max(std::bit_cast<double>(0x7FF0000000000001ull), 1.0, false)), 0x3FF0000000000000ull);
  EXPECT_EQ(bits_of(rrswin::f64_max(std::bit_cast<double>(0x7FF0000000000001ull), 1.0, true)), rrswin::kF64CanonicalNaN);
  // .sat: NaN -> +0, -0 -> +0, clamp to 1 (PTX ISA 9.7.3 "Saturation modifier").
  EXPECT_EQ(bits_of(rrswin::f32_sat(nan)), 0u);
  EXPECT_EQ(bits_of(rrswin::f32_sat(nz)), 0u);
  EXPECT_EQ(bits_of(rrswin::f32_sat(2.0f)), 0x3F800000u);
  EXPECT_EQ(bits_of(rrswin::f32_sat(0.25f)), 0x3E800000u);
}

// The .approx models (numerics/approx.hpp): correctly rounded, checked against MPFR on edge values,
// every exponent and random inputs; sin/cos up to |x| = 2^127 (full argument reduction).
TEST(F32, ApproxModelsAreCorrectlyRoundedAgainstMpfr) {
#if !defined(RRSWIN_HAVE_MPFR)
  RRSWIN_SKIP_UNLESS_CI() << "MPFR (libmpfr-dev) not found: the approx models' oracle is missing";
#else
  Oracle<float> o;
  auto mp = [&](int (*fn)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t), float x) {
    o.range();
    o.set(o.x, x);
    return o.get(fn(o.z, o.x, MPFR_RNDN), Round::rn);
  };
  auto rsqrt = [](mpfr_ptr z, mpfr_srcptr x, mpfr_rnd_t r) { return mpfr_rec_sqrt(z, x, r); };
  std::vector<float> v = f32_values(11, 3000);
  for (int e = -149; e < 128; ++e) {
    v.push_back(std::ldexp(1.0f, e));
    v.push_back(std::ldexp(1.3f, e));
    v.push_back(-std::ldexp(1.7f, e));
  }
  std::uint64_t checked = 0;
  for (float x : v) {
    EXPECT_EQ(bits_of(rrswin::sin_approx_f32(x, false)), bits_of(mp(mpfr_sin, x))) << "sin " << x;
    EXPECT_EQ(bits_of(rrswin::cos_approx_f32(x, false)), bits_of(mp(mpfr_cos, x))) << "cos " << x;
    EXPECT_EQ(bits_of(rrswin::tanh_approx_f32(x)), bits_of(mp(mpfr_tanh, x))) << "tanh " << x;
    if (!(x < 0) && x != 0) {
      EXPECT_EQ(bits_of(rrswin::lg2_approx_f32(x, false)), bits_of(mp(mpfr_log2, x))) << "lg2 " << x;
    }
    if (x > 0 && !std::isinf(x)) {
      EXPECT_EQ(bits_of(rrswin::rsqrt_approx_f32(x)), bits_of(mp(rsqrt, x))) << "rsqrt " << x;
    }
    if (std::fabs(x) < 150.0f) {
      EXPECT_EQ(bits_of(rrswin::ex2_approx_f32(x)), bits_of(mp(mpfr_exp2, x))) << "ex2 " << x;
    }
    ++checked;
  }
  // PTX specials (9.7.3.x): sin/cos of +-Inf are NaN, lg2(+-0) = -Inf, lg2 of a negative is NaN,
  // tanh(+-Inf) = +-1, and the .ftz forms flush subnormal inputs.
  EXPECT_EQ(bits_of(rrswin::sin_approx_f32(INFINITY, false)), rrswin::kF32CanonicalNaN);
  EXPECT_EQ(bits_of(rrswin::lg2_approx_f32(-0.0f, false)), bits_of(-INFINITY));
  EXPECT_EQ(bits_of(rrswin::lg2_approx_f32(-1.0f, false)), rrswin::kF32CanonicalNaN);
  EXPECT_EQ(bits_of(rrswin::lg2_approx_f32(std::bit_cast<float>(1u), true)), bits_of(-INFINITY));
  EXPECT_EQ(bits_of(rrswin::tanh_approx_f32(-INFINITY)), bits_of(-1.0f));
  EXPECT_EQ(bits_of(rrswin::cos_approx_f32(std::bit_cast<float>(0x80000001u), true)), bits_of(1.0f));
  EXPECT_GT(checked, 3000u);
#endif
}

// numerics' f16_bilinear (the linear sampler's blend of four f16 texels with weights (256-a)(256-b),
// a(256-b), (256-a)b, ab in units of 2^-16, rounded once to f16) against MPFR: the sum of the terms of
// nonzero weight exact at 160 bits (a term is an 11-bit significand times a 17-bit weight, the sum
// spans below 2^100), then rounded into binary16 (precision 11, MPFR exponents -23..16, subnormalised:
// the largest finite 65504, the smallest subnormal 2^-24), its bits by GCC's _Float16 (exact: the value
// is representable). Texels over every binade, both signs, zeros, subnormals and the largest finite;
// weights at the corners (0, 1, 128, 255, 256) and random, so that ties, carries into the next
// binade and the subnormal range occur (the blend is a convex combination: it never passes the
// largest texel, so it never overflows). Texels of Inf or NaN take IEEE binary64
// arithmetic (another branch) and are left out.
TEST(F16Bilinear, RoundsTheExactBlendOnceAsMpfr) {
#if !defined(RRSWIN_HAVE_MPFR)
  RRSWIN_SKIP_UNLESS_CI() << "MPFR (libmpfr-dev) not found: the f16 blend oracle is missing";
#else
  const mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
  mpfr_t acc, term, r;
  mpfr_inits2(160, acc, term, static_cast<mpfr_ptr>(nullptr));
  mpfr_init2(r, 11);
  std::mt19937 rng(17);
  const std::uint16_t corners[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x7BFF, 0xFBFF, 0x7BFE};
  auto texel = [&]() -> std::uint16_t {
    const unsigned u = rng();
    if (u % 5 == 0) return corners[(u >> 8) % std::size(corners)];
    std::uint16_t h = static_cast<std::uint16_t>(u >> 16);
    if ((h & 0x7C00) == 0x7C00) h = static_cast<std::uint16_t>(h & 0xBFFF);  // finite
    return h;
  };
  const unsigned weights[] = {0, 1, 128, 255, 256};
  std::uint64_t ties = 0, subnormals = 0;
  for (int i = 0; i < 200000; ++i) {
    std::uint16_t t[4];
    for (auto& v : t) v = texel();
    if (i % 3 == 0) {  // texels of one binade: the terms' sums land on ties and cancel
      const std::uint16_t e = static_cast<std::uint16_t>(t[0] & 0x7C00);
      for (auto& v : t) v = static_cast<std::uint16_t>((v & 0x83FF) | e);
    }
    const unsigned a = i % 2 ? rng() % 257 : weights[rng() % 5], b = i % 4 < 2 ? rng() % 257 : weights[rng() % 5];
    const unsigned w[4] = {(256 - a) * (256 - b), a * (256 - b), (256 - a) * b, a * b};
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    bool first = true;
    for (int k = 0; k < 4; ++k) {
      if (w[k] == 0) continue;
      mpfr_set_d(term, static_cast<double>(std::bit_cast<_Float16>(t[k])), MPFR_RNDN);
      mpfr_mul_ui(term, term, w[k], MPFR_RNDN);
      if (first)
        mpfr_set(acc, term, MPFR_RNDN);
      else
        mpfr_add(acc, acc, term, MPFR_RNDN);  // exact at 160 bits: an exact zero is +0 unless both are -0
      first = false;
    }
    mpfr_div_2ui(acc, acc, 16, MPFR_RNDN);
    mpfr_set_emin(-23);
    mpfr_set_emax(16);
    int tern = mpfr_set(r, acc, MPFR_RNDN);
    tern = mpfr_check_range(r, tern, MPFR_RNDN);
    mpfr_subnormalize(r, tern, MPFR_RNDN);
    const auto want = std::bit_cast<std::uint16_t>(static_cast<_Float16>(mpfr_get_d(r, MPFR_RNDN)));
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    {  // a tie: the exact value is a midpoint of two f16 neighbours (it takes 12 bits at the f16 quantum)
      mpfr_t twice;
      mpfr_init2(twice, 160);
      mpfr_mul_2ui(twice, acc, 25, MPFR_RNDN);  // in units of half the smallest quantum 2^-24
      if (mpfr_integer_p(twice) && !mpfr_zero_p(r) && !mpfr_equal_p(r, acc) && !mpfr_inf_p(r)) {
        mpfr_t diff;
        mpfr_init2(diff, 160);
        mpfr_sub(diff, acc, r, MPFR_RNDN);
        mpfr_abs(diff, diff, MPFR_RNDN);
        mpfr_t ulp;
        mpfr_init2(ulp, 160);
        const long ulp_exp = std::max<long>(mpfr_get_exp(r) - 11, -24);  // r's quantum 2^ulp_exp
        mpfr_set_ui_2exp(ulp, 1, ulp_exp - 1, MPFR_RNDN);
        ties += mpfr_equal_p(diff, ulp) ? 1 : 0;
        mpfr_clears(diff, ulp, static_cast<mpfr_ptr>(nullptr));
      }
      mpfr_clear(twice);
    }
    subnormals += (want & 0x7C00) == 0 && (want & 0x3FF) != 0;
    ASSERT_EQ(rrswin::f16_bilinear(t[0], t[1], t[2], t[3], a, b), want)
        << std::hex << t[0] << " " << t[1] << " " << t[2] << " " << t[3] << std::dec << " a " << a << " b " << b;
  }
  mpfr_clears(acc, term, r, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_emin(old_emin);
  mpfr_set_emax(old_emax);
  EXPECT_GT(ties, 100u);
  EXPECT_GT(subnormals, 100u);
#endif
}
