// The `hopper` profile's mma (numerics.md "hopper"; src/numerics/mma.cpp) against:
//   * the 3 x 3000 H100, H200 and B200 measurements (RRSWIN_SHARED_DIR/data/hopper-mma-e4m3-f16/,
//     A and B from the Ada folder), through mma_dot and through the fragment form;
//   * a parameterised copy of numerics.md's pseudo-code written here in long double (exact: every
//     partial sum has at most 36 significant bits against 64), which also shows that the variants
//     numerics.md rules out miss measured cases, and which the library must equal on random cases;
//   * hand-worked corner cases: the sign of a zero result, NaN and Inf operands, overflow, and the
//     mma-* readings that switch them (model/readings.hpp), in all three profiles.
// Under CI=true a missing measurement folder fails the data tests instead of skipping them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ada_mma_data.hpp"
#include "ci_skip.hpp"
#include "layout/fragment.hpp"
#include "mma_dot_case.hpp"
#include "model/readings.hpp"
#include "numerics/mma.hpp"
#include "numerics/profile.hpp"

using rrswin::e4m3_t;
using rrswin::f16_t;
using rrswin_test::AdaMmaCase;
using rrswin_test::round_ld;
using rrswin_test::scaled;
using rrswin_test::test_e4m3_value;

namespace {

const rrswin::Profile& hopper() { return rrswin::profile_hopper(); }

// ---- the test's own exact rounding (independent of mma.cpp) ---------------------------------

// f16 round to nearest even, subnormals kept; |x| >= 65520 overflows to Inf.
long double rne_f16(long double x) {
  const long double r = round_ld(x, 11, -14);
  if (std::fabs(r) > 65504.0L) return std::copysign(static_cast<long double>(INFINITY), r);
  return r;
}
f16_t bits_f16(long double x) {
  if (std::isnan(x)) return 0x7FFF;
  return rrswin_test::f16_bits(static_cast<_Float16>(x));  // x is an f16 value (or +-Inf): exact
}
long double value_f16(f16_t h) {
  _Float16 v;
  std::memcpy(&v, &h, 2);
  return static_cast<long double>(v);
}
bool e4m3_nan(e4m3_t c) { return (c & 0x7F) == 0x7F; }
bool any_nan(const e4m3_t* a, const e4m3_t* b, f16_t c) {
  if ((c & 0x7C00) == 0x7C00 && (c & 0x3FF) != 0) return true;
  for (int k = 0; k < 32; ++k)
    if (e4m3_nan(a[k]) || e4m3_nan(b[k])) return true;
  return false;
}

// ---- numerics.md `hopper`, parameterised; the defaults are the spec's model -------------------

struct HopperVariant {
  bool mod4_groups = true;   // G1 = {k mod 4 in {0,1}}, G2 = {2,3}; false: k 0..15, then 16..31
  bool c_first = false;      // C as the first accumulator (and no final add)
  bool c_exact_f32 = false;  // the final add uses the harness's f32 C instead of the f16 C
  bool p1_f32 = false;       // p1 kept in f32 instead of f16
  bool fused32 = false;      // one fused 32-term sum with C inside (the sm_120 model of numerics.md)
  int kept_bits = 25;        // q = 2^(maxE - kept_bits)
};

// One f16 HMMA: the exact truncated sum over the k with in_group(k), on top of acc; unrounded.
template <class InGroup>
long double hmma(const HopperVariant& v, const e4m3_t* a, const e4m3_t* b, InGroup in_group, long double acc) {
  if (std::isinf(acc)) return acc;  // Inf + finite products
  bool have = false;
  int max_e = 0;
  auto consider = [&](int e) {
    max_e = have ? std::max(max_e, e) : e;
    have = true;
  };
  for (int k = 0; k < 32; ++k) {
    if (!in_group(k)) continue;
    const long double x = test_e4m3_value(a[k]), y = test_e4m3_value(b[k]);
    if (x != 0 && y != 0) consider(std::ilogb(x) + std::ilogb(y));  // the f16 operands' exponents
  }
  if (acc != 0) consider(std::max(std::ilogb(acc), -14));
  const long double q = std::ldexp(1.0L, max_e - v.kept_bits);
  // IEEE addition from acc: a +0 acc plus -0 products stays +0; truncation keeps zero signs.
  long double s = acc == 0 ? acc : std::trunc(acc / q) * q;
  for (int k = 0; k < 32; ++k)
    if (in_group(k)) s += std::trunc(static_cast<long double>(test_e4m3_value(a[k])) * test_e4m3_value(b[k]) / q) * q;
  return s;
}

f16_t oracle_hopper(const HopperVariant& v, const e4m3_t* a, const e4m3_t* b, f16_t c, std::uint32_t c32 = 0) {
  if (any_nan(a, b, c)) return 0x7FFF;
  const long double cv = value_f16(c);
  auto g1 = [&](int k) { return v.mod4_groups ? (k & 3) < 2 : k < 16; };
  auto g2 = [&](int k) { return !g1(k); };
  if (v.fused32)
    return bits_f16(rne_f16(hmma(
        v, a, b, [](int) { return true; }, cv)));
  const long double p1s = hmma(v, a, b, g1, v.c_first ? cv : 0.0L);
  const long double p1 = v.p1_f32 ? round_ld(p1s, 24, -126) : rne_f16(p1s);
  const long double p2 = rne_f16(hmma(v, a, b, g2, p1));
  if (v.c_first) return bits_f16(p2);
  const long double cadd = v.c_exact_f32 ? static_cast<long double>(rrswin_test::f32_from_bits(c32)) : cv;
  return bits_f16(rne_f16(p2 + cadd));  // the f16 add: exact sum, one rounding (Inf - Inf = NaN)
}

// ---- the measurements -------------------------------------------------------------------------

struct Gpu {
  std::string name;
  std::vector<AdaMmaCase> cases;
};

class HopperMeasurements : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* g : rrswin_test::kHopperGpus) {
      Gpu gpu{g, {}};
      std::string why;
      if (!rrswin_test::load_hopper_mma_cases(g, gpu.cases, why)) {
        RRSWIN_SKIP_UNLESS_CI() << why;
      }
      gpus_.push_back(std::move(gpu));
    }
  }
  std::vector<Gpu> gpus_;
};

// numerics.md: the `hopper` model "reproduces all 15000 published measurements" (3 x 3000 here).
TEST_F(HopperMeasurements, HopperProfileMatchesEveryMeasuredCase) {
  for (const Gpu& g : gpus_) {
    ASSERT_EQ(g.cases.size(), 3000u) << g.name;
    int matches = 0;
    for (std::size_t i = 0; i < g.cases.size(); ++i) {
      const AdaMmaCase& cs = g.cases[i];
      const f16_t got = rrswin::mma_dot(hopper(), cs.a, cs.b, cs.c);
      EXPECT_EQ(got, cs.d) << g.name << " line " << i + 1;
      matches += got == cs.d;
    }
    std::printf("[ hopper  ] %d / %zu %s measurements reproduced\n", matches, g.cases.size(), g.name.c_str());
  }
}

// The same cases through the fragment form (the PTX interpreter's entry point): eight cases per
// instruction, case j in A's row j, B's column j and C[j][j], registers built with the ISA maps.
TEST_F(HopperMeasurements, FragmentFormMatchesEveryMeasuredCase) {
  for (const Gpu& g : gpus_) {
    int matches = 0;
    for (std::size_t i0 = 0; i0 < g.cases.size(); i0 += 8) {
      rrswin::MmaFragA fa{};
      rrswin::MmaFragB fb{};
      rrswin::MmaFragC fc{};
      auto case_at = [&](int j) -> const AdaMmaCase* { return i0 + j < g.cases.size() ? &g.cases[i0 + j] : nullptr; };
      for (int lane = 0; lane < 32; ++lane) {
        for (int reg = 0; reg < 4; ++reg)
          for (int byte = 0; byte < 4; ++byte) {
            const rrswin::layout::RowK e = rrswin::layout::a_element_isa(lane, reg, byte);
            const AdaMmaCase* cs = e.row < 8 ? case_at(e.row) : nullptr;
            fa.reg[lane][reg] |= static_cast<std::uint32_t>(cs ? cs->a[e.k] : 0x38) << (8 * byte);  // 1.0 elsewhere
          }
        for (int reg = 0; reg < 2; ++reg)
          for (int byte = 0; byte < 4; ++byte) {
            const rrswin::layout::KCol e = rrswin::layout::b_element_isa(lane, reg, byte);
            const AdaMmaCase* cs = case_at(e.col);
            fb.reg[lane][reg] |= static_cast<std::uint32_t>(cs ? cs->b[e.k] : 0x00) << (8 * byte);
          }
        for (int reg = 0; reg < 2; ++reg)
          for (int half = 0; half < 2; ++half) {
            const rrswin::layout::RowCol e = rrswin::layout::cd_element(lane, reg, half);
            const AdaMmaCase* cs = e.row == e.col ? case_at(e.row) : nullptr;
            const std::uint32_t c = cs ? cs->c : 0x3C00;
            fc.reg[lane][reg] |= c << (16 * half);
          }
      }
      const rrswin::MmaFragC d = rrswin::mma_m16n8k32(hopper(), fa, fb, fc);
      for (int lane = 0; lane < 32; ++lane)
        for (int reg = 0; reg < 2; ++reg)
          for (int half = 0; half < 2; ++half) {
            const rrswin::layout::RowCol e = rrswin::layout::cd_element(lane, reg, half);
            const AdaMmaCase* cs = e.row == e.col ? case_at(e.row) : nullptr;
            if (!cs) continue;
            const auto got = static_cast<f16_t>(d.reg[lane][reg] >> (16 * half));
            EXPECT_EQ(got, cs->d) << g.name << " line " << i0 + e.row + 1;
            matches += got == cs->d;
          }
    }
    EXPECT_EQ(matches, static_cast<int>(g.cases.size())) << g.name;
  }
}

// The other profiles are different functions: each misses some hopper cases, and the hopper
// model misses some Ada cases.
TEST_F(HopperMeasurements, OtherProfilesDiffer) {
  for (const Gpu& g : gpus_)
    for (const rrswin::Profile* p : {&rrswin::profile_ada(), &rrswin::profile_zluda()}) {
      int misses = 0;
      for (const AdaMmaCase& cs : g.cases) misses += rrswin::mma_dot(*p, cs.a, cs.b, cs.c) != cs.d;
      std::printf("[ %-7s ] misses %d / %zu %s measurements\n", std::string(p->name).c_str(), misses, g.cases.size(), g.name.c_str());
      EXPECT_GT(misses, 0) << p->name << " on " << g.name;
    }
  std::vector<AdaMmaCase> ada;
  std::string why;
  if (!rrswin_test::load_ada_mma_cases(ada, why)) {
    RRSWIN_SKIP_UNLESS_CI() << why;
  }
  int misses = 0;
  for (const AdaMmaCase& cs : ada) misses += rrswin::mma_dot(hopper(), cs.a, cs.b, cs.c) != cs.d;
  std::printf("[ hopper  ] misses %d / %zu Ada measurements\n", misses, ada.size());
  EXPECT_GT(misses, 0);
}

// numerics.md's variants "the data rules out" (its counts are over 5000 cases per GPU; here
// 3 x 3000): each must miss, and the spec's model (the test's own copy) must miss nothing. The
// kept bits are bounded only from below: 17 or more give no miss.
TEST_F(HopperMeasurements, RuledOutVariantsMissCases) {
  auto misses = [&](const HopperVariant& v) {
    int n = 0;
    for (const Gpu& g : gpus_)
      for (const AdaMmaCase& cs : g.cases) n += oracle_hopper(v, cs.a, cs.b, cs.c, cs.c32) != cs.d;
    return n;
  };
  EXPECT_EQ(misses(HopperVariant{}), 0) << "the test's copy of the spec model";
  struct Named {
    const char* name;
    HopperVariant v;
    const char* spec_count_5000;
  };
  const Named variants[] = {
      {"k 0..15 then 16..31",
       [] {
         HopperVariant v;
         v.mod4_groups = false;
         return v;
       }(),
       "about 2200"},
      {"C as the first accumulator",
       [] {
         HopperVariant v;
         v.c_first = true;
         return v;
       }(),
       "about 1900"},
      {"exact f32 C in the final add",
       [] {
         HopperVariant v;
         v.c_exact_f32 = true;
         return v;
       }(),
       "about 550"},
      {"p1 kept in f32",
       [] {
         HopperVariant v;
         v.p1_f32 = true;
         return v;
       }(),
       "about 1070"},
      {"one fused 32-term sum",
       [] {
         HopperVariant v;
         v.fused32 = true;
         return v;
       }(),
       "about 1900"},
  };
  for (const Named& n : variants) {
    const int m = misses(n.v);
    std::printf("[ variant ] %-30s misses %5d / 9000 = %4.1f %% (numerics.md: %s in 5000)\n", n.name, m, m / 90.0, n.spec_count_5000);
    EXPECT_GT(m, 0) << n.name;
  }
  for (int bits : {17, 20, 30}) {
    HopperVariant v;
    v.kept_bits = bits;
    EXPECT_EQ(misses(v), 0) << bits << " kept bits";
  }
  HopperVariant v16;
  v16.kept_bits = 16;
  std::printf("[ variant ] 16 kept bits                   misses %5d / 9000 (numerics.md: 17 or more give none)\n", misses(v16));
}

// ---- random cases against the oracle ------------------------------------------------------------

struct Gen {
  std::mt19937_64 rng;
  explicit Gen(std::uint64_t seed) : rng(seed) {}
  unsigned u(unsigned n) { return static_cast<unsigned>(rng() % n); }
  e4m3_t code_in(int lo, int hi) {  // exponent field in [lo, hi], never NaN
    for (;;) {
      const int ef = lo + static_cast<int>(u(static_cast<unsigned>(hi - lo + 1)));
      const auto c = static_cast<e4m3_t>((u(2) << 7) | (ef << 3) | u(8));
      if (!e4m3_nan(c)) return c;
    }
  }
  // Wide exponent spreads (the 25-bit truncation acts 19 binades below the maximum), sparse and
  // zero products, subnormal codes, cancellation between the groups, C of every magnitude.
  void fill(e4m3_t* a, e4m3_t* b, f16_t& c) {
    const unsigned kind = u(6);
    for (int k = 0; k < 32; ++k) {
      switch (kind) {
        case 0:
          a[k] = code_in(0, 15);
          b[k] = code_in(0, 15);
          break;
        case 1:  // one huge product, the rest tiny: truncation of the small terms
          a[k] = k == static_cast<int>(u(32)) ? code_in(14, 15) : code_in(0, 2);
          b[k] = k % 7 == 0 ? code_in(13, 15) : code_in(0, 3);
          break;
        case 2:
          a[k] = u(3) == 0 ? code_in(0, 15) : static_cast<e4m3_t>(u(2) << 7);
          b[k] = code_in(0, 15);
          break;
        case 3:
          a[k] = code_in(13, 15);
          b[k] = code_in(13, 15);
          break;  // sums past 65504
        case 4:   // k with k mod 4 in {2,3} cancels k - 2: p2 = an exact cancellation of p1
          if ((k & 3) < 2) {
            a[k] = code_in(0, 15);
            b[k] = code_in(0, 15);
          } else {
            a[k] = static_cast<e4m3_t>(a[k - 2] ^ 0x80);
            b[k] = b[k - 2];
          }
          break;
        default:
          a[k] = static_cast<e4m3_t>(u(2) << 7);
          b[k] = code_in(0, 15);
          break;  // zero products
      }
    }
    switch (u(7)) {
      case 0: c = static_cast<f16_t>(u(2) << 15); break;
      case 1: c = static_cast<f16_t>((u(2) << 15) | (1 + u(1023))); break;
      case 2: c = static_cast<f16_t>((u(2) << 15) | ((28 + u(3)) << 10) | u(1024)); break;
      case 3: c = static_cast<f16_t>((u(2) << 15) | 0x7C00); break;  // +-Inf
      default:
        for (;;) {
          c = static_cast<f16_t>(rng());
          if ((c & 0x7C00) != 0x7C00) break;
        }
    }
  }
};

TEST(HopperRandom, MatchesTestCopyOfPseudoCode) {
  Gen g(0x40990);
  const long n = scaled(400000);
  long fails = 0;
  for (long i = 0; i < n; ++i) {
    e4m3_t a[32], b[32];
    f16_t c;
    g.fill(a, b, c);
    const f16_t want = oracle_hopper(HopperVariant{}, a, b, c), got = rrswin::mma_dot(hopper(), a, b, c);
    if (want != got && ++fails <= 5) ADD_FAILURE() << "case " << i << ": oracle " << want << " library " << got;
  }
  std::printf("[ hopper  ] %ld random cases against the test's copy of the pseudo-code, %ld mismatches\n", n, fails);
  EXPECT_EQ(fails, 0);
}

// ---- hand-worked corners (docs/readings.md §3), in all three profiles -----------------------

using mma_case::Dot;
using mma_case::run;
using mma_case::with;

TEST(HopperHand, GroupsAreKMod4) {
  // +448^2 at k = 1 (G1) overflows p1 to +Inf; -448^2 at k = 3 (G2) cannot bring it back: D = Inf.
  // In ISA halves (k 0..15, ada and the ruled-out hopper variant) both meet in one sum and cancel.
  Dot o;
  o.a[1] = 0x7E, o.b[1] = 0x7E;
  o.a[3] = 0xFE, o.b[3] = 0x7E;
  EXPECT_EQ(run(hopper(), o), 0x7C00);
  EXPECT_EQ(run(rrswin::profile_ada(), o), 0x0000);
  // The same pair at k = 1 and k = 5 (both G1) cancels in hopper too.
  Dot p = o;
  p.a[3] = p.b[3] = 0x00;
  p.a[5] = 0xFE, p.b[5] = 0x7E;
  EXPECT_EQ(run(hopper(), p), 0x0000);
}

TEST(HopperHand, TwentyFiveKeptBits) {
  // 256 at k = 0 (16 * 16, E = 8: q = 2^(8-25) = 2^-17), 2^-3 at k = 1 (half an f16 ulp of 256:
  // a tie), and a third G1 term at k = 4.
  Dot d;
  d.a[0] = 0x58, d.b[0] = 0x58;  // 2^4 * 2^4
  d.a[1] = 0x30, d.b[1] = 0x28;  // 2^-1 * 2^-2
  d.a[4] = 0x01, d.b[4] = 0x01;  // 2^-9 * 2^-9 = 2^-18 < q: truncated, the tie goes to even 256
  EXPECT_EQ(run(hopper(), d), 0x5C00);
  d.a[4] = 0x08, d.b[4] = 0x08;  // 2^-6 * 2^-6 = 2^-12 >= q: kept, above the tie -> 256.25
  EXPECT_EQ(run(hopper(), d), 0x5C01);
  // ada keeps 13 bits (q = 2^-5): 2^-12 is truncated there, the tie goes to even
  EXPECT_EQ(run(rrswin::profile_ada(), d), 0x5C00);
  // e4m3 subnormals are f16 normals in hopper: e(0x01) = -9, not ada's clamped -6. With 2^-9 *
  // 2^7 = 2^-2 (E = -2) the largest, q = 2^-27 and the 2^-18 term (E = -18) is kept exactly.
  Dot s;
  s.a[0] = 0x01, s.b[0] = 0x70;         // 2^-9 * 2^7 = 2^-2
  s.a[1] = 0x01, s.b[1] = 0x01;         // 2^-18
  EXPECT_EQ(run(hopper(), s), 0x3400);  // 0.25 + 2^-18 rounds to 0.25 in f16
}

TEST(HopperHand, ZeroSignDiffersBetweenProfiles) {
  // C = -0 and every product -0 (0 * -x): IEEE sum -0 in ada and zluda; in hopper the HMMAs start
  // from +0 and the final f16 add (+0) + (-0) is +0 under round to nearest.
  Dot d;
  for (int k = 0; k < 32; ++k) d.a[k] = 0x00, d.b[k] = 0xB8;
  d.c = 0x8000;
  EXPECT_EQ(run(rrswin::profile_ada(), d), 0x8000);
  EXPECT_EQ(run(rrswin::profile_zluda(), d), 0x8000);
  EXPECT_EQ(run(hopper(), d), 0x0000);
  // reading mma-zero-sign=plus: +0 everywhere
  for (const rrswin::Profile* p : rrswin::all_profiles()) EXPECT_EQ(run(with(*p, "mma-zero-sign=plus"), d), 0x0000) << p->name;
  // C = -0 with +0 products: +0 in every profile
  for (int k = 0; k < 32; ++k) d.b[k] = 0x38;
  for (const rrswin::Profile* p : rrswin::all_profiles()) EXPECT_EQ(run(*p, d), 0x0000) << p->name;
  // a cancellation (1 - 1) with C = -0: +0 everywhere
  Dot x;
  x.a[0] = 0x38, x.b[0] = 0x38, x.a[2] = 0xB8, x.b[2] = 0x38, x.c = 0x8000;
  for (const rrswin::Profile* p : rrswin::all_profiles()) EXPECT_EQ(run(*p, x), 0x0000) << p->name;
}

TEST(HopperHand, NanOperandsAndPayload) {
  Dot d;
  d.a[5] = 0x7F;  // NaN times zero
  for (const rrswin::Profile* p : rrswin::all_profiles()) {
    EXPECT_EQ(run(*p, d), 0x7FFF) << p->name;                                           // default: any
    EXPECT_EQ(run(with(*p, "mma-nan-operand=nonzero-partner"), d), 0x0000) << p->name;  // dropped zero product
  }
  d.b[5] = 0x38;  // NaN times 1.0: NaN under both values
  for (const rrswin::Profile* p : rrswin::all_profiles()) EXPECT_EQ(run(with(*p, "mma-nan-operand=nonzero-partner"), d), 0x7FFF) << p->name;
  Dot n;
  n.c = 0xFC01;  // a negative signalling-pattern NaN C
  for (const rrswin::Profile* p : rrswin::all_profiles()) {
    EXPECT_EQ(run(*p, n), 0x7FFF) << p->name;
    EXPECT_EQ(run(with(*p, "mma-nan-payload=quiet-c"), n), 0xFE01) << p->name;
  }
}

TEST(HopperHand, InfinitiesAndOverflow) {
  // C = +Inf and products that overflow negatively: ada keeps C's Inf (Inf + finite), hopper's
  // p1 = -Inf and its final add is -Inf + Inf = NaN.
  Dot d;
  for (int k = 0; k < 32; ++k) d.a[k] = 0xFE, d.b[k] = 0x7E;  // 32 x -448^2
  d.c = 0x7C00;
  EXPECT_EQ(run(rrswin::profile_ada(), d), 0x7C00);
  EXPECT_EQ(run(rrswin::profile_zluda(), d), 0x7C00);
  EXPECT_EQ(run(hopper(), d), 0x7FFF);
  // overflow boundary: C = 65504 (0x7BFF) + 16 = 65520, a tie that rounds to the even 65536: Inf
  Dot o;
  o.a[0] = 0x48, o.b[0] = 0x48;  // 4 * 4 = 16
  o.c = 0x7BFF;
  for (const rrswin::Profile* p : rrswin::all_profiles()) {
    EXPECT_EQ(run(*p, o), 0x7C00) << p->name;
    EXPECT_EQ(run(with(*p, "mma-overflow=saturate"), o), 0x7BFF) << p->name;
  }
  // saturation inside hopper's HMMA: p1 = 65504 instead of Inf, so G2's -448^2 brings it back
  Dot s;
  s.a[0] = 0x7E, s.b[0] = 0x7E;  // +448^2 in G1
  s.a[2] = 0xFE, s.b[2] = 0x7E;  // -448^2 in G2
  EXPECT_EQ(run(hopper(), s), 0x7C00);
  // 65504 - 200704 = -135200 -> saturates to -65504
  EXPECT_EQ(run(with(hopper(), "mma-overflow=saturate"), s), 0xFBFF);
  // an infinite C stays infinite under saturation
  Dot i;
  i.c = 0xFC00;
  EXPECT_EQ(run(with(hopper(), "mma-overflow=saturate"), i), 0xFC00);
}

TEST(HopperHand, ReadingsLeaveTheProfileNameAndAccumulation) {
  const rrswin::Profile p = with(hopper(), "mma-zero-sign=plus");
  EXPECT_EQ(p.name, "hopper");
  EXPECT_EQ(p.mma, rrswin::MmaAccumulation::hopper_two_hmma);
  EXPECT_EQ(p.corners.zero_sign, rrswin::MmaZeroSign::plus);
  EXPECT_EQ(with(hopper(), "mma-zero-sign=profile").corners, hopper().corners);
}

}  // namespace
