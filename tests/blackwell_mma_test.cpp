// The `blackwell` profile's mma (numerics.md "Consumer Blackwell"; MMA-Sim's model of sm_120, cited
// in docs/readings.md §3 "blackwell"; src/numerics/mma.cpp) against:
//   * an exact oracle of that model written here in integer arithmetic, in the model's own terms
//     (a significand and an exponent per term, as MMA-Sim describes them: products of e4m3
//     significands with exponent e(a) + e(b), C with its f16 exponent; each truncated to 25
//     fraction bits below 2^emax; exact sum; one f16 RNE by integer rounding), sharing no code
//     with mma.cpp, on random cases built to reach every part of the model;
//   * hand-worked cases, one per fact of the model (25 kept bits, C inside the maximum and
//     truncated, e4m3 subnormals at exponent -6, one fused block instead of halves, k order
//     irrelevant, zero sign, NaN, Inf, overflow) and the mma-* readings that switch its corners.
// No measurement exists (the profile is a model): nothing here compares with a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "ada_mma_data.hpp"
#include "layout/fragment.hpp"
#include "mma_dot_case.hpp"
#include "model/readings.hpp"
#include "numerics/mma.hpp"
#include "numerics/profile.hpp"

using rrswin::e4m3_t;
using rrswin::f16_t;
using rrswin_test::scaled;

namespace {

const rrswin::Profile& blackwell() { return rrswin::profile_blackwell(); }

// ---- the oracle: MMA-Sim's sm_120 FP8 model in exact integers --------------------------------

// A term as (significand integer, exponent, fraction bits): value = sig * 2^(exp - frac).
struct Term {
  std::int64_t sig;  // signed; 0 for a zero
  int exp;
  int frac;
};

// numerics.md "Formats": normal m >= 8: (8 + (m&7)) / 8 * 2^((m>>3) - 7); subnormal m / 8 * 2^-6.
Term e4m3_term(e4m3_t c) {
  const int m = c & 0x7F;
  const std::int64_t mag = m >= 8 ? 8 + (m & 7) : m;
  return {(c & 0x80) != 0 ? -mag : mag, m >= 8 ? (m >> 3) - 7 : -6, 3};
}
// f16: normal (1024 + f) / 1024 * 2^(E - 15); subnormal f / 1024 * 2^-14.
Term f16_term(f16_t h) {
  const int ef = (h >> 10) & 31, f = h & 0x3FF;
  const std::int64_t mag = ef != 0 ? 1024 + f : f;
  return {(h & 0x8000) != 0 ? -mag : mag, ef != 0 ? ef - 15 : -14, 10};
}

// f16 bits of sig * 2^p, rounded to nearest even (subnormals kept, >= 65520 -> Inf); +0 for 0.
f16_t f16_of(std::int64_t sig, int p) {
  if (sig == 0) return 0x0000;
  const bool neg = sig < 0;
  std::uint64_t mag = static_cast<std::uint64_t>(neg ? -sig : sig);
  int len = 0;
  while ((mag >> len) != 0) ++len;
  const int msb = p + len - 1;              // floor(log2 |value|)
  const int ulp = std::max(msb - 10, -24);  // the f16 spacing at that magnitude
  std::uint64_t m;                          // |value| / 2^ulp, rounded
  if (ulp <= p) {
    m = mag << (p - ulp);
  } else {
    const int drop = ulp - p;
    m = drop >= 64 ? 0 : mag >> drop;
    const std::uint64_t rest = drop >= 64 ? mag : mag - (m << drop);
    const std::uint64_t half = drop - 1 >= 64 ? ~0ull : 1ull << (drop - 1);
    if (rest > half || (rest == half && (m & 1) != 0)) ++m;
  }
  // value = m 2^ulp with m <= 2048; re-encode
  const f16_t sign = neg ? 0x8000 : 0;
  if (ulp == -24 && m < 1024) return static_cast<f16_t>(sign | m);  // subnormal
  int e = ulp + 10;                                                 // m in [1024, 2048]
  if (m == 2048) m = 1024, ++e;
  if (e > 15) return static_cast<f16_t>(sign | 0x7C00);
  return static_cast<f16_t>(sign | ((e + 15) << 10) | (m - 1024));
}

// The model, with the zero sign of its corner reading: +0 (the model's), or IEEE (-0 only when C
// and every product are -0).
f16_t oracle(const e4m3_t* a, const e4m3_t* b, f16_t c, bool ieee_zero = false) {
  bool nan = (c & 0x7C00) == 0x7C00 && (c & 0x3FF) != 0;
  for (int k = 0; k < 32; ++k) nan = nan || (a[k] & 0x7F) == 0x7F || (b[k] & 0x7F) == 0x7F;  // NaN x 0 too
  if (nan) return 0x7FFF;
  if ((c & 0x7FFF) == 0x7C00) return c;  // +-Inf + finite products
  Term t[33];
  int n = 0;
  bool all_neg_zero = (c == 0x8000);
  for (int k = 0; k < 32; ++k) {
    const Term x = e4m3_term(a[k]), y = e4m3_term(b[k]);
    t[n++] = {x.sig * y.sig, x.exp + y.exp, 6};
    all_neg_zero = all_neg_zero && x.sig * y.sig == 0 && (((a[k] ^ b[k]) & 0x80) != 0);
  }
  t[n++] = f16_term(c);
  bool any = false;
  int emax = 0;
  for (const Term& x : t)
    if (x.sig != 0) emax = any ? std::max(emax, x.exp) : x.exp, any = true;  // zero terms never set it
  if (!any) return ieee_zero && all_neg_zero ? 0x8000 : 0x0000;
  // Each term in units of 2^(emax - 25), truncated toward zero.
  std::int64_t s = 0;
  for (const Term& x : t) {
    const int shift = x.exp - x.frac - (emax - 25);
    const std::int64_t mag = x.sig < 0 ? -x.sig : x.sig;
    const std::int64_t tr = shift >= 0 ? mag << shift : (-shift >= 63 ? 0 : mag >> -shift);
    s += x.sig < 0 ? -tr : tr;
  }
  return f16_of(s, emax - 25);
}

// ---- the oracle's own rounding, checked on its own ------------------------------------------

TEST(BlackwellOracle, RoundingAgreesWithTheCompilersF16) {
  // f16_of against _Float16(long double) on values with at most 60 significant bits (long double
  // holds them exactly; the compiler's conversion is a single RNE).
  std::mt19937_64 rng(120);
  for (int i = 0; i < 200000; ++i) {
    const std::int64_t sig = static_cast<std::int64_t>(rng() >> (4 + rng() % 58)) * ((rng() & 1) != 0 ? -1 : 1);
    const int p = -60 + static_cast<int>(rng() % 70);
    const long double v = std::ldexp(static_cast<long double>(sig), p);
    const f16_t want = sig == 0 ? 0x0000 : rrswin_test::f16_bits(static_cast<_Float16>(v));
    ASSERT_EQ(f16_of(sig, p), want) << sig << " * 2^" << p;
  }
}

// ---- random cases ---------------------------------------------------------------------------

struct Gen {
  std::mt19937_64 rng;
  explicit Gen(std::uint64_t seed) : rng(seed) {}
  unsigned u(unsigned n) { return static_cast<unsigned>(rng() % n); }
  // a non-NaN code with exponent field in [lo, hi] (0: zero and subnormals), random sign
  e4m3_t code_in(unsigned lo, unsigned hi) {
    for (;;) {
      const unsigned c = (u(2) << 7) | ((lo + u(hi - lo + 1)) << 3) | u(8);
      if ((c & 0x7F) != 0x7F) return static_cast<e4m3_t>(c);
    }
  }
  void fill(e4m3_t* a, e4m3_t* b, f16_t& c) {
    const unsigned kind = u(7);
    const int big = static_cast<int>(u(32));
    for (int k = 0; k < 32; ++k) {
      switch (kind) {
        case 0:
          a[k] = code_in(0, 15);
          b[k] = code_in(0, 15);
          break;
        case 1:  // one large product over tiny ones: truncation below the window
          a[k] = k == big ? code_in(12, 15) : code_in(0, 3);
          b[k] = k == big ? code_in(12, 15) : code_in(0, 4);
          break;
        case 2:
          a[k] = code_in(13, 15);
          b[k] = code_in(13, 15);
          break;  // past 65504
        case 3:   // the second half cancels the first: only the fused sum sees it
          if (k < 16)
            a[k] = code_in(4, 12), b[k] = code_in(4, 12);
          else
            a[k] = static_cast<e4m3_t>(a[k - 16] ^ 0x80), b[k] = b[k - 16];
          if (k == 31) a[k] = code_in(0, 2);
          break;
        case 4:
          a[k] = code_in(0, 1);
          b[k] = code_in(0, 8);
          break;  // subnormal operands
        case 5:
          a[k] = static_cast<e4m3_t>(u(2) << 7);
          b[k] = code_in(0, 15);
          break;  // zero products
        default:
          a[k] = static_cast<e4m3_t>(u(256));
          b[k] = static_cast<e4m3_t>(u(256));
          break;  // random bits (NaN too)
      }
    }
    switch (u(7)) {
      case 0: c = static_cast<f16_t>(u(2) << 15); break;
      case 1: c = static_cast<f16_t>((u(2) << 15) | (1 + u(1023))); break;                  // subnormal
      case 2: c = static_cast<f16_t>((u(2) << 15) | ((26 + u(5)) << 10) | u(1024)); break;  // large
      case 3: c = static_cast<f16_t>(u(65536)); break;                                      // any bits, Inf/NaN too
      default: c = static_cast<f16_t>((u(2) << 15) | ((5 + u(20)) << 10) | u(1024)); break;
    }
  }
};

TEST(BlackwellRandom, MatchesTheExactOracle) {
  Gen g(0x5090);
  const long n = scaled(400000);
  long fails = 0, differs_from_ada = 0, differs_from_zluda = 0;
  for (long i = 0; i < n; ++i) {
    e4m3_t a[32], b[32];
    f16_t c;
    g.fill(a, b, c);
    const f16_t want = oracle(a, b, c), got = rrswin::mma_dot(blackwell(), a, b, c);
    if (want != got && ++fails <= 5) ADD_FAILURE() << "case " << i << ": oracle " << want << " library " << got;
    differs_from_ada += got != rrswin::mma_dot(rrswin::profile_ada(), a, b, c);
    differs_from_zluda += got != rrswin::mma_dot(rrswin::profile_zluda(), a, b, c);
  }
  std::printf("[blackwell] %ld random cases against the exact oracle: %ld mismatches; %ld differ from ada, %ld from zluda\n", n, fails,
              differs_from_ada, differs_from_zluda);
  EXPECT_EQ(fails, 0);
  EXPECT_GT(differs_from_ada, n / 100);  // a different function, not a renamed one
  EXPECT_GT(differs_from_zluda, 0);
}

TEST(BlackwellRandom, KOrderDoesNotMatter) {
  // One fused block: any permutation of k (the same one for A and B) gives the same D.
  Gen g(0x5080);
  std::mt19937_64 perm_rng(7);
  for (long i = 0; i < scaled(20000); ++i) {
    e4m3_t a[32], b[32], pa[32], pb[32];
    f16_t c;
    g.fill(a, b, c);
    int perm[32];
    for (int k = 0; k < 32; ++k) perm[k] = k;
    std::shuffle(perm, perm + 32, perm_rng);
    for (int k = 0; k < 32; ++k) pa[k] = a[perm[k]], pb[k] = b[perm[k]];
    ASSERT_EQ(rrswin::mma_dot(blackwell(), a, b, c), rrswin::mma_dot(blackwell(), pa, pb, c)) << "case " << i;
  }
}

TEST(BlackwellRandom, FragmentFormEqualsPerElement) {
  // The fragment form (what the PTX interpreter runs) equals mma_dot on every element.
  Gen g(0x120);
  for (int t = 0; t < 200; ++t) {
    rrswin::MmaA ma{};
    rrswin::MmaB mb{};
    rrswin::MmaC mc{};
    for (int m = 0; m < 16; ++m) {
      e4m3_t b[32];
      g.fill(ma.v[m], b, mc.v[m][0]);
      for (int nn = 1; nn < 8; ++nn) mc.v[m][nn] = mc.v[m][0] ^ static_cast<f16_t>(nn);
      if (m < 8)
        for (int k = 0; k < 32; ++k) mb.v[k][m] = b[k];
    }
    const rrswin::MmaC md = rrswin::mma_m16n8k32(blackwell(), ma, mb, mc);
    for (int m = 0; m < 16; ++m)
      for (int nn = 0; nn < 8; ++nn) {
        e4m3_t col[32];
        for (int k = 0; k < 32; ++k) col[k] = mb.v[k][nn];
        ASSERT_EQ(md.v[m][nn], oracle(ma.v[m], col, mc.v[m][nn])) << "tile " << t << " m " << m << " n " << nn;
      }
  }
}

// ---- hand-worked facts of the model ------------------------------------------------------------

using mma_case::Dot;
using mma_case::run;
using mma_case::with;

TEST(BlackwellHand, TwentyFiveKeptBits) {
  // 4096 (2^8 * 2^4, E = 12: q = 2^(12-25) = 2^-13), 2 (half an f16 ulp of 4096: a tie), and a
  // third term at k = 20 (the second half: one block either way).
  Dot d;
  d.a[0] = 0x78, d.b[0] = 0x58;    // 2^8 * 2^4
  d.a[1] = 0x40, d.b[1] = 0x38;    // 2 * 1
  d.a[20] = 0x08, d.b[20] = 0x04;  // 2^-6 * 2^-7 = 2^-13 = q: kept, above the tie -> 4100
  EXPECT_EQ(run(blackwell(), d), 0x6C01);
  EXPECT_EQ(oracle(d.a, d.b, d.c), 0x6C01);
  d.b[20] = 0x02;  // 2^-6 * 2^-8 = 2^-14 < q: truncated, the tie goes to even 4096
  EXPECT_EQ(run(blackwell(), d), 0x6C00);
  // with the tiny term 2^-13, ada's 13 bits truncate it (q = 2^-1): 4096 where blackwell gives 4100
  d.b[20] = 0x04;
  EXPECT_EQ(run(rrswin::profile_ada(), d), 0x6C00);
  // zluda's f32 keeps 24 bits from the top of the sum: 4098 + 2^-13 needs 26, so 2^-13 is rounded
  // away there too (4096)
  EXPECT_EQ(run(rrswin::profile_zluda(), d), 0x6C00);
}

TEST(BlackwellHand, CIsInsideTheMaximumAndTruncated) {
  // C = 4096 (E = 12) sets the maximum: the products 2 (the tie) and 2^-14 (< q = 2^-13) are
  // truncated against C's exponent, so the tie goes to even.
  Dot d;
  d.c = 0x6C00;
  d.a[3] = 0x40, d.b[3] = 0x38;  // 2
  d.a[9] = 0x08, d.b[9] = 0x02;  // 2^-14
  EXPECT_EQ(run(blackwell(), d), 0x6C00);
  d.b[9] = 0x04;  // 2^-13 = q: kept -> 4100
  EXPECT_EQ(run(blackwell(), d), 0x6C01);
  // C itself is truncated: with 4 the largest term (E = 2: q = 2^-23), C = 2^-24 (E(C) = -14)
  // is cut to 0, so 4 + 2^-9 (the tie: an f16 ulp of 4 is 2^-8) goes to even 4.
  Dot s;
  s.a[0] = 0x48, s.b[0] = 0x38;  // 4
  s.a[1] = 0x10, s.b[1] = 0x18;  // 2^-5 * 2^-4 = 2^-9
  s.c = 0x0001;                  // 2^-24 < q: truncated to 0
  EXPECT_EQ(run(blackwell(), s), 0x4400);
  EXPECT_EQ(oracle(s.a, s.b, s.c), 0x4400);
  s.c = 0x0002;  // 2^-23 = q: kept -> above the tie: 4 + 2^-8
  EXPECT_EQ(run(blackwell(), s), 0x4401);
}

TEST(BlackwellHand, SubnormalOperandsHaveExponentMinus6) {
  // 2^-9 * 448 = 0.875 has E = e(0x01) + e(0x7E) = -6 + 8 = 2 (MMA-Sim: e4m3 subnormals at -6),
  // so q = 2^-23 and C = 2^-24 is truncated: 0.875 + 2^-12 (the tie) + 0 goes to even 0.875.
  // With the true exponent (hopper's f16 operands: -9 + 8 = -1) q = 2^-26 would keep C -> 0x3B01.
  Dot d;
  d.a[0] = 0x01, d.b[0] = 0x7E;  // 0.875
  d.a[1] = 0x08, d.b[1] = 0x08;  // 2^-12, half an f16 ulp of 0.875
  d.c = 0x0001;
  EXPECT_EQ(run(blackwell(), d), 0x3B00);
  EXPECT_EQ(oracle(d.a, d.b, d.c), 0x3B00);
}

TEST(BlackwellHand, OneFusedBlockNotHalves) {
  // 1 + 2^-11 (a tie) in k 0..15 and another 2^-11 at k = 16: the fused sum is 1 + 2^-10 exactly
  // (0x3C01); ada rounds the first half to 1.0 (tie to even) and then 1 + 2^-11 to 1.0 again.
  Dot d;
  d.a[0] = 0x38, d.b[0] = 0x38;    // 1
  d.a[1] = 0x08, d.b[1] = 0x10;    // 2^-6 * 2^-5 = 2^-11
  d.a[16] = 0x08, d.b[16] = 0x10;  // 2^-11
  EXPECT_EQ(run(blackwell(), d), 0x3C01);
  EXPECT_EQ(run(rrswin::profile_ada(), d), 0x3C00);
}

TEST(BlackwellHand, ZeroSignIsTheModelsPlus) {
  // C = -0 and every product -0: MMA-Sim's model gives +0 (its profile value mma-zero-sign=plus);
  // the reading's `ieee` gives -0 (as ada and zluda do).
  Dot d;
  for (int k = 0; k < 32; ++k) d.a[k] = 0x00, d.b[k] = 0xB8;
  d.c = 0x8000;
  EXPECT_EQ(blackwell().corners.zero_sign, rrswin::MmaZeroSign::plus);
  EXPECT_EQ(run(blackwell(), d), 0x0000);
  EXPECT_EQ(run(with(blackwell(), "mma-zero-sign=ieee"), d), 0x8000);
  EXPECT_EQ(oracle(d.a, d.b, d.c, /*ieee_zero=*/true), 0x8000);
  // a cancellation is +0 under both
  Dot x;
  x.a[0] = 0x38, x.b[0] = 0x38, x.a[17] = 0xB8, x.b[17] = 0x38, x.c = 0x8000;
  EXPECT_EQ(run(blackwell(), x), 0x0000);
  EXPECT_EQ(run(with(blackwell(), "mma-zero-sign=ieee"), x), 0x0000);
}

TEST(BlackwellHand, NanInfAndOverflow) {
  Dot n;
  n.a[5] = 0x7F;  // NaN x 0: NaN in the model (its binary64 check sees NaN * 0 = NaN)
  EXPECT_EQ(run(blackwell(), n), 0x7FFF);
  EXPECT_EQ(run(with(blackwell(), "mma-nan-operand=nonzero-partner"), n), 0x0000);
  Dot q;
  q.c = 0xFC01;  // a NaN C: 0x7FFF whatever its payload
  EXPECT_EQ(run(blackwell(), q), 0x7FFF);
  EXPECT_EQ(run(with(blackwell(), "mma-nan-payload=quiet-c"), q), 0xFE01);
  // C = -Inf with 32 x +448^2: Inf + finite = C (no Inf - Inf: products never overflow inside)
  Dot i;
  for (int k = 0; k < 32; ++k) i.a[k] = 0x7E, i.b[k] = 0x7E;
  i.c = 0xFC00;
  EXPECT_EQ(run(blackwell(), i), 0xFC00);
  // +448^2 and -448^2 in the two halves cancel in the fused block (ada: +Inf after its first half)
  Dot h;
  h.a[0] = 0x7E, h.b[0] = 0x7E, h.a[16] = 0xFE, h.b[16] = 0x7E;
  EXPECT_EQ(run(blackwell(), h), 0x0000);
  EXPECT_EQ(run(rrswin::profile_ada(), h), 0x7C00);
  // overflow: 65504 + 16 = 65520 is the tie to 65536: Inf; saturate: 65504; 65504 + 8 stays
  Dot o;
  o.a[0] = 0x48, o.b[0] = 0x48;  // 16
  o.c = 0x7BFF;
  EXPECT_EQ(run(blackwell(), o), 0x7C00);
  EXPECT_EQ(run(with(blackwell(), "mma-overflow=saturate"), o), 0x7BFF);
  o.b[0] = 0x40;  // 8
  EXPECT_EQ(run(blackwell(), o), 0x7BFF);
  // 32 x -448^2: -Inf
  for (int k = 0; k < 32; ++k) i.a[k] = 0xFE;
  i.c = 0;
  EXPECT_EQ(run(blackwell(), i), 0xFC00);
}

TEST(BlackwellHand, TheProfileIsAMarkedModel) {
  EXPECT_EQ(blackwell().name, "blackwell");
  EXPECT_FALSE(blackwell().measured);
  EXPECT_EQ(rrswin::find_profile("blackwell"), &blackwell());
  EXPECT_NE(std::string(rrswin::profile_names()).find("blackwell"), std::string::npos);
  const rrswin::Profile p = with(blackwell(), "mma-zero-sign=ieee");
  EXPECT_EQ(p.name, "blackwell");
  EXPECT_EQ(p.mma, rrswin::MmaAccumulation::blackwell_fused_sum);
  EXPECT_EQ(with(blackwell(), "mma-zero-sign=profile").corners, blackwell().corners);
}

}  // namespace
