// Synthetic weight images: determinism, plausible ranges, no NaN codes, and a weight-level census
// of the stress design (docs/readings.md §4 "stress design"): for each nonlinear branch of the
// layer, the stress image holds the values that drive it and the default image does not.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "assets/synthetic_weights.hpp"
#include "layout/tables.hpp"
#include "model/weight_image.hpp"

namespace {

using rrswin::Region;
using rrswin::WeightImage;

std::uint64_t fnv1a64(std::span<const std::uint8_t> bytes) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (std::uint8_t b : bytes) h = (h ^ b) * 0x100000001B3ull;
  return h;
}

// Exact binary16 decode, typed here (independent of the code under test).
double f16(std::uint16_t h) {
  const int e = (h >> 10) & 31, f = h & 1023;
  const double s = (h & 0x8000) ? -1 : 1;
  if (e == 31) return f ? NAN : s * INFINITY;
  return e ? s * std::ldexp(1 + f / 1024.0, e - 15) : s * std::ldexp(f, -24);
}

struct Census {
  std::uint64_t e4m3_pos448 = 0, e4m3_neg448 = 0, e4m3_nan = 0;
  std::uint64_t f16_subnormal = 0, f16_nonfinite = 0;
  std::uint64_t score_clamp_hi = 0, score_clamp_lo = 0;  // |0.01718 * bias| > 0.556 (E11 clamp)
  std::uint64_t b1_above_2 = 0, b1_below_m2 = 0;         // activation clamp (E21/E23..)
  std::uint64_t t3_above_448 = 0, t3_below_m448 = 0;     // q8(x2) saturation (E60)
  std::uint64_t gain_subnormal = 0;                      // g1/g2: normalised value -> subnormal
};

Census census(const WeightImage& w) {
  Census c;
  const auto b = w.bytes();
  for (const Region& r : rrswin::weight_regions()) {
    if (r.type == Region::Type::e4m3) {
      for (std::uint32_t o = r.begin; o < r.end; ++o) {
        c.e4m3_pos448 += b[o] == 0x7E;
        c.e4m3_neg448 += b[o] == 0xFE;
        c.e4m3_nan += (b[o] & 0x7F) == 0x7F;
      }
      continue;
    }
    for (std::uint32_t o = r.begin; o < r.end; o += 2) {
      const std::uint16_t h = w.f16_at(o);
      const double v = f16(h);
      const bool sub = ((h >> 10) & 31) == 0 && (h & 1023) != 0;
      c.f16_subnormal += sub;
      c.f16_nonfinite += !std::isfinite(v);
      if (r.role == Region::Role::score_bias) {
        c.score_clamp_hi += 0.017181396484375 * v > 0.55615234375;
        c.score_clamp_lo += 0.017181396484375 * v < -0.55615234375;
      }
      if (r.role == Region::Role::b1) {
        c.b1_above_2 += v > 2;
        c.b1_below_m2 += v < -2;
      }
      if (r.role == Region::Role::t3) {
        c.t3_above_448 += v > 448;
        c.t3_below_m448 += v < -448;
      }
      if (r.role == Region::Role::g1 || r.role == Region::Role::g2) c.gain_subnormal += sub;
    }
  }
  return c;
}

TEST(SyntheticWeights, DeterministicPerSeed) {
  const WeightImage a = rrswin::make_synthetic_weights({7, false});
  const WeightImage b = rrswin::make_synthetic_weights({7, false});
  const WeightImage c = rrswin::make_synthetic_weights({8, false});
  ASSERT_EQ(a.bytes().size(), rrswin::kWeightImageBytes);
  EXPECT_TRUE(std::equal(a.bytes().begin(), a.bytes().end(), b.bytes().begin()));
  EXPECT_FALSE(std::equal(a.bytes().begin(), a.bytes().end(), c.bytes().begin()));
  const WeightImage s1 = rrswin::make_synthetic_weights({7, true});
  const WeightImage s2 = rrswin::make_synthetic_weights({7, true});
  EXPECT_TRUE(std::equal(s1.bytes().begin(), s1.bytes().end(), s2.bytes().begin()));
}

// The bytes are pinned: the generator uses integer arithmetic and exact rounding only, so these
// hashes must hold on every platform and compiler. If the design changes on purpose, update them
// and say so in docs/readings.md §4.
TEST(SyntheticWeights, BytesArePinned) {
  EXPECT_EQ(fnv1a64(rrswin::make_synthetic_weights({1, false}).bytes()), 0xeb6d20e9317a6029ull);
  EXPECT_EQ(fnv1a64(rrswin::make_synthetic_weights({1, true}).bytes()), 0x0a4f18414e4ed13dull);
}

TEST(SyntheticWeights, DefaultIsSeedOneAndCachedThreadSafely) {
  const WeightImage* seen[4] = {};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back([&seen, i] { seen[i] = &rrswin::default_weights(); });
  for (auto& t : threads) t.join();
  for (int i = 1; i < 4; ++i) EXPECT_EQ(seen[i], seen[0]);
  const WeightImage one = rrswin::make_synthetic_weights({1, false});
  EXPECT_TRUE(std::equal(one.bytes().begin(), one.bytes().end(), rrswin::default_weights().bytes().begin()));
}

TEST(SyntheticWeights, NoNaNOrInfinityAnywhere) {
  for (std::uint64_t seed : {1ull, 2ull, 0xFFFFFFFFFFFFFFFFull}) {
    for (bool stress : {false, true}) {
      for (const auto& s : rrswin::region_statistics(rrswin::make_synthetic_weights({seed, stress}))) {
        EXPECT_EQ(s.nan, 0u) << s.region.name << " seed " << seed << " stress " << stress;
        EXPECT_EQ(s.inf, 0u) << s.region.name;
      }
    }
  }
}

// docs/readings.md §4 "synthetic weights": e4m3 weights ~ N(0, sigma^2), gains ~ sqrt(160).
TEST(SyntheticWeights, DefaultRangesArePlausible) {
  const double sqrt160 = std::sqrt(160.0);
  for (const auto& s : rrswin::region_statistics(rrswin::default_weights())) {
    double sigma = 0;
    switch (s.region.role) {
      case Region::Role::wq: sigma = 0.5 / sqrt160; break;
      case Region::Role::wv:
      case Region::Role::w1:
      case Region::Role::w61: sigma = 1 / sqrt160; break;
      case Region::Role::wo: sigma = 1.0 / 16; break;
      case Region::Role::w2: sigma = 1 / std::sqrt(640.0); break;
      case Region::Role::score_bias: sigma = 0.5; break;
      case Region::Role::t1:
      case Region::Role::t3:
      case Region::Role::b1:
      case Region::Role::b61: sigma = 0.1; break;
      case Region::Role::g1:
      case Region::Role::g2:
        EXPECT_NEAR(s.mean_abs, sqrt160, 0.05 * sqrt160) << s.region.name;
        EXPECT_GT(s.min, 0.6 * sqrt160);
        EXPECT_LT(s.max, 1.4 * sqrt160);
        continue;
      case Region::Role::wm:
      case Region::Role::bm: ADD_FAILURE() << s.region.name << ": enc5 has no patch merge"; continue;
      case Region::Role::unread:
      case Region::Role::we:
      case Region::Role::be:
      case Region::Role::wx:
      case Region::Role::bx: ADD_FAILURE() << s.region.name << ": enc5 has no front"; continue;
    }
    // E|x| = sigma * sqrt(2/pi) for a normal; small regions (b61: 16 values) get a wide margin.
    const double tol = s.count >= 1000 ? 0.15 : 0.6;
    EXPECT_NEAR(s.mean_abs, sigma * std::sqrt(2 / M_PI), tol * sigma) << s.region.name;
    EXPECT_LE(std::fabs(s.max), 6.5 * sigma) << s.region.name;  // Irwin-Hall support is +-6 sigma
    EXPECT_LE(std::fabs(s.min), 6.5 * sigma) << s.region.name;
  }
}

TEST(SyntheticWeights, StressHasEveryBranchDriverAndDefaultHasNone) {
  for (std::uint64_t seed : {1ull, 99ull}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Census d = census(rrswin::make_synthetic_weights({seed, false}));
    const Census s = census(rrswin::make_synthetic_weights({seed, true}));
    // e4m3 saturation: +-448 codes (0x7E / 0xFE) — none by default, both signs under stress.
    EXPECT_EQ(d.e4m3_pos448 + d.e4m3_neg448, 0u);
    EXPECT_GE(s.e4m3_pos448, 32u);
    EXPECT_GE(s.e4m3_neg448, 32u);
    // NaN codes never.
    EXPECT_EQ(d.e4m3_nan + s.e4m3_nan, 0u);
    EXPECT_EQ(d.f16_nonfinite + s.f16_nonfinite, 0u);
    // f16 subnormals: none by default (flushed), several tables under stress.
    EXPECT_EQ(d.f16_subnormal, 0u);
    EXPECT_GE(s.f16_subnormal, 7u * 4u);
    EXPECT_EQ(s.gain_subnormal, 8u);
    // E11 score clamp: bias alone beyond +-32.4 (head 1: +64 diagonal, -64 halo keys).
    EXPECT_EQ(d.score_clamp_hi + d.score_clamp_lo, 0u);
    EXPECT_EQ(s.score_clamp_hi, 64u);
    EXPECT_EQ(s.score_clamp_lo, 64u * 32u);
    // Activation clamp at +-2 on both sides: b1 beyond +-2.
    EXPECT_EQ(d.b1_above_2 + d.b1_below_m2, 0u);
    EXPECT_GE(s.b1_above_2, 8u + 4u);
    EXPECT_GE(s.b1_below_m2, 8u);
    // q8(x2) saturation on both signs through T3.
    EXPECT_EQ(d.t3_above_448 + d.t3_below_m448, 0u);
    EXPECT_EQ(s.t3_above_448, 1u);
    EXPECT_EQ(s.t3_below_m448, 1u);
  }
}

TEST(SyntheticWeights, StressPlacesItsValuesAtTheDocumentedPositions) {
  const WeightImage s = rrswin::make_synthetic_weights({1, true});
  namespace L = rrswin::layout;
  namespace w = rrswin::wmap;
  // Head 1: diagonal +64, halo keys -64 (0x5400 = 64, 0xD400 = -64).
  for (int r = 0; r < 64; ++r) {
    EXPECT_EQ(s.f16_at(L::score_bias_offset(w::score_bias(1), r, r)), 0x5400);
    EXPECT_EQ(s.f16_at(L::score_bias_offset(w::score_bias(1), r, 64 + r % 32)), 0xD400);
  }
  // b1_3: columns 0..7 = +6 (0x4600), 8..15 = -6 (0xC600), 24..27 = +600 (0x60B0).
  for (int c = 0; c < 8; ++c) EXPECT_EQ(s.f16_at(L::record_bias_offset(w::b1(3), c)), 0x4600);
  for (int c = 8; c < 16; ++c) EXPECT_EQ(s.f16_at(L::record_bias_offset(w::b1(3), c)), 0xC600);
  for (int c = 24; c < 28; ++c) EXPECT_EQ(s.f16_at(L::record_bias_offset(w::b1(3), c)), 0x60B0);
  // T3 columns 5 / 6 = +600 / -600.
  EXPECT_EQ(s.f16_at(L::column_table_offset(w::t3, 5)), 0x60B0);
  EXPECT_EQ(s.f16_at(L::column_table_offset(w::t3, 6)), 0xE0B0);
  // Regions the stress design does not touch are identical to the default image.
  const WeightImage d = rrswin::make_synthetic_weights({1, false});
  for (const Region& r : rrswin::weight_regions()) {
    const bool touched = (r.role == Region::Role::wv && r.index == 2) || (r.role == Region::Role::wo && r.index == 2) ||
                         (r.role == Region::Role::score_bias && (r.index == 1 || r.index == 3)) ||
                         (r.role == Region::Role::b1 && (r.index == 0 || r.index == 3)) ||
                         (r.role == Region::Role::w2 && (r.index == 3 || r.index == 5)) || (r.role == Region::Role::w1 && r.index == 5) ||
                         r.role == Region::Role::t3 || r.role == Region::Role::t1 || r.role == Region::Role::g1 ||
                         r.role == Region::Role::g2 || r.role == Region::Role::b61;
    const bool same = std::equal(s.bytes().begin() + r.begin, s.bytes().begin() + r.end, d.bytes().begin() + r.begin);
    EXPECT_EQ(same, !touched) << r.name;
  }
}

}  // namespace
