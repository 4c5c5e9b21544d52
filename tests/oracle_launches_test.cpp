// The launch set of `rrswin settle --oracle` (assets/oracle_launches.hpp, issue 20 §5) decides every
// reading: for every reading settle searches, and for the profiles, every PAIR of values gives
// different output bytes (arena and surface) on at least one launch of the set, the other readings
// at their defaults. Runs the fast engine (bit-identical to golden: engine_diff_test.cpp).
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "api/frame.hpp"
#include "assets/oracle_launches.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "layout/arena.hpp"
#include "layout/tables.hpp"
#include "model/layer.hpp"
#include "model/readings.hpp"
#include "numerics/f16.hpp"

using namespace rrswin;

namespace {

// The launch's outputs: arena bytes then surface bytes.
std::vector<std::uint8_t> outputs(const OracleLaunch& l, const Profile& profile, const Readings& r) {
  std::vector<std::uint8_t> arena(layout::PlaneArena{l.ex, l.ey}.total_bytes(), 0);
  Surface surf = Surface::make(l.ex, l.ey);
  LaunchParams p =
      frame_launch(static_cast<std::uint32_t>(l.ex), static_cast<std::uint32_t>(l.ey), l.input_arena, l.weights, arena, l.texture, surf);
  p.block_offset_x = static_cast<std::uint16_t>(l.ox);
  p.block_offset_y = static_cast<std::uint16_t>(l.oy);
  RunOptions o;
  o.profile = &profile;
  o.readings = r;
  o.threads = 2;
  run_frame(p, o);
  arena.insert(arena.end(), surf.bytes.begin(), surf.bytes.end());
  return arena;
}

}  // namespace

TEST(OracleLaunches, EveryPairOfAlternativesDiffersOnSomeLaunch) {
  const std::vector<OracleLaunch> launches = oracle_launches();
  ASSERT_EQ(launches.size(), 5u);
  // (reading, value) -> the outputs on each launch. "profile" is searched like a reading.
  std::map<std::string, std::map<std::string, std::vector<std::vector<std::uint8_t>>>> out;
  for (const OracleLaunch& l : launches) {
    const std::vector<std::uint8_t> base = outputs(l, profile_ada(), Readings{});
    for (const char* p : {"ada", "zluda", "hopper"})
      out["profile"][p].push_back(std::string(p) == "ada" ? base : outputs(l, *find_profile(p), Readings{}));
    for (const ReadingInfo& info : reading_registry()) {
      if (is_instruction_reading(info.name) || info.values.size() < 2) continue;  // settle searches neither
      for (const std::string& v : info.values) {
        Readings r;
        ASSERT_TRUE(set_reading(r, info.name, v, nullptr)) << info.name << "=" << v;
        out[info.name][v].push_back(v == info.default_value ? base : outputs(l, profile_ada(), r));
      }
    }
  }
  int pairs = 0;
  for (const auto& [name, values] : out)
    for (auto a = values.begin(); a != values.end(); ++a)
      for (auto b = std::next(a); b != values.end(); ++b) {
        ++pairs;
        bool differ = false;
        for (std::size_t k = 0; k < launches.size(); ++k) differ = differ || a->second[k] != b->second[k];
        EXPECT_TRUE(differ) << name << ": " << a->first << " and " << b->first << " give the same bytes on every launch";
      }
  EXPECT_GE(pairs, 40);
}

// The softmax launches' logits reach E61 unchanged (phase 61's B tiles zero, b61 = the logits) and
// split the three f32 sum orders as oracle_launches.hpp says: f16(1/sum) differs between the named
// orders (the pair the other vector leaves equal is split by the other one).
TEST(OracleLaunches, ConstantLogitsSplitTheSumOrders) {
  const WeightImage w = with_constant_logits(default_weights(), kSoftmaxLogitsA);
  for (std::uint32_t o = wmap::w61; o < wmap::w61 + 2560; ++o) ASSERT_EQ(w.byte(o), 0) << o;
  for (int n = 0; n < 10; ++n) EXPECT_EQ(w.f16_at(layout::record_bias_offset(wmap::b61, n)), kSoftmaxLogitsA[n]) << n;
  const Texture tex = make_synthetic_frame(8, 8, 1, false).texture;
  const auto rinv16 = [&](const std::array<f16_t, 10>& l, E61SumOrder order) {
    Readings r;
    r.e61_sum_order = order;
    return f32_to_f16(golden::e61_pixel(r, l, tex, 3, 3, 8, 8).rinv);
  };
  using O = E61SumOrder;
  EXPECT_NE(rinv16(kSoftmaxLogitsA, O::sequential), rinv16(kSoftmaxLogitsA, O::pairs));
  EXPECT_NE(rinv16(kSoftmaxLogitsA, O::sequential), rinv16(kSoftmaxLogitsA, O::tree));
  EXPECT_NE(rinv16(kSoftmaxLogitsB, O::tree), rinv16(kSoftmaxLogitsB, O::sequential));
  EXPECT_NE(rinv16(kSoftmaxLogitsB, O::tree), rinv16(kSoftmaxLogitsB, O::pairs));
  // The sum-tree arena holds no NaN code (0x7F / 0xFF).
  for (std::uint8_t c : sum_tree_arena(kSumTreeExtentX, kSumTreeExtentY, kSumTreeSeed)) ASSERT_NE(c & 0x7F, 0x7F);
}

// even-odd-quads and planes are one tree (docs/readings.md, the proof): each sum-tree reading lists
// three values, accepts the other name as its first, and the two enum values sum alike.
TEST(OracleLaunches, TheTwoNamesOfOneTreeAreOneValue) {
  for (const char* name : {"prologue-sum-tree", "mlp-norm-sum-tree"}) {
    for (const ReadingInfo& info : reading_registry()) {
      if (info.name == name) {
        EXPECT_EQ(info.values.size(), 3u) << name;
      }
    }
    Readings a, b;
    ASSERT_TRUE(set_reading(a, name, "planes", nullptr));
    ASSERT_TRUE(set_reading(b, name, "even-odd-quads", nullptr));
    EXPECT_EQ(reading_value(a, name), reading_value(b, name));
  }
  Readings d;
  EXPECT_EQ(reading_value(d, "prologue-sum-tree"), "planes");
  EXPECT_EQ(reading_value(d, "mlp-norm-sum-tree"), "even-odd-quads");
  SplitMix64 rng(7);
  std::array<f16_t, 160> row;
  for (int k = 0; k < 20000; ++k) {
    for (auto& h : row) h = static_cast<f16_t>(rng.next() & 0x7BFF);  // finite
    ASSERT_EQ(golden::rms_sum_of_squares(row.data(), SumTree::planes), golden::rms_sum_of_squares(row.data(), SumTree::even_odd_quads));
  }
}
