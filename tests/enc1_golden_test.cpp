// enc1's golden model (issue 35): what the layer does differently from the template, checked by
// what DOC-e1 states rather than by re-deriving the model's arithmetic:
//   * its two heads run one after the other in one warp, each on its own weights (DOC-e1 §2.1: head 0
//     = phases 1..7, head 1 = phases 8..14; score biases at 4224 and 22656, §3/E4, E11), head 1's
//     stem on the prologue's A, not on head 0's output (REC-e1 AS1/AS2 feed phases 1..4 and 8..11);
//   * the output projections chain: P7's C = f16(T1 + x), P14's C = D7 (DOC-e1 §3/E6, E13);
//   * E32 gathers its logits from registers (DOC-e1 §3/E32(a): selp + shfl.sync.idx, no shared
//     memory, REC-e1 "0014 has none"): the shared-record guard of enc2..enc5 changes nothing.
// The register merge's copy test is beside the other merges' in layer_golden_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "model/layer_golden.hpp"
#include "numerics/profile.hpp"

namespace {

using rrswin::LayerId;

struct Enc1Run {
  std::map<std::string, rrswin::TraceStage> stages;
  std::vector<std::uint8_t> arena, merged, s112, s120, s128;
};

// One 8x8 block of enc1 (frame 8 x 8, no offset), every stage traced.
Enc1Run run_enc1(const std::vector<std::uint8_t>& weights, const rrswin::Readings& r = {}, const rrswin::LayerReadings& lr = {}) {
  const rrswin::WeightImage image(std::vector<std::uint8_t>(weights), LayerId::enc1, "test");
  const rrswin::SyntheticFrame in = rrswin::make_synthetic_frame(8, 8, 11, false, 2);
  rrswin::LayerFrame f;
  f.ex = 8;
  f.ey = 8;
  f.input_arena = in.input_arena;
  f.weights = &image;
  f.texture = &in.texture;
  rrswin::TraceRequest req;
  req.stages = {"all"};
  rrswin::Trace t;
  rrswin::run_layer_frame_golden(f, rrswin::profile_ada(), r, lr, nullptr, &req, &t);
  Enc1Run out;
  for (const rrswin::TraceStage& s : t.stages) out.stages[s.name] = s;
  out.arena = f.output_arena;
  out.merged = f.merged_output;
  out.s112 = f.surface112.bytes;
  out.s120 = f.surface120.bytes;
  out.s128 = f.surface128.bytes;
  return out;
}

std::vector<std::uint8_t> default_bytes() {
  const auto b = rrswin::default_layer_weights(LayerId::enc1).bytes();
  return {b.begin(), b.end()};
}

// The registers of one warp index (= head for the attention stages) of a stage.
std::vector<std::uint32_t> warp_regs(const Enc1Run& r, const std::string& stage, int warp) {
  const rrswin::TraceStage& s = r.stages.at(stage);
  const auto begin = s.values.begin() + static_cast<std::ptrdiff_t>(warp) * s.lanes * s.regs;
  return {begin, begin + s.lanes * s.regs};
}

// f16x2 registers equal but for the sign of a zero half.
bool same_up_to_zero_sign(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  if (a.size() != b.size()) return false;
  auto norm = [](std::uint32_t v) {
    for (int h = 0; h < 2; ++h)
      if (((v >> (16 * h)) & 0xFFFFu) == 0x8000u) v &= ~(0xFFFFu << (16 * h));
    return v;
  };
  for (std::size_t i = 0; i < a.size(); ++i)
    if (norm(a[i]) != norm(b[i])) return false;
  return true;
}

TEST(Enc1Golden, TheStagesAreTheTablesAndTheHeadsAreTwoRecordsEach) {
  const Enc1Run base = run_enc1(default_bytes());
  const std::vector<rrswin::StageRow> table = rrswin::trace_stage_table(rrswin::layer_spec(LayerId::enc1));
  ASSERT_EQ(table.size(), base.stages.size());
  for (const rrswin::StageRow& row : table) {
    ASSERT_TRUE(base.stages.count(row.name)) << row.name;
    EXPECT_EQ(base.stages.at(row.name).warps, row.shape.warps) << row.name;
    EXPECT_EQ(base.stages.at(row.name).regs, row.shape.regs) << row.name;
  }
  // DOC-e1 §2.1: head 0's score is phase 5, its P V phase 6, the projections phases 7 and 14; the
  // MLP's first up-projection phase 15, the merge 31, the final phase 32.
  for (const char* n : {"w1", "w4", "w5", "e5.p", "w6", "p7c", "p7d", "p14d", "e14.n", "p15d", "p16c", "p30d", "e30.words", "p31d", "p32d",
                        "e32.gate", "e32.quad", "e32.sum"})
    EXPECT_TRUE(base.stages.count(n)) << n;
  EXPECT_EQ(base.stages.at("w5").warps, 2);  // one record per head
  EXPECT_EQ(base.stages.count("p8d"), 0u);   // phase 8 is head 1's first stem phase, not a projection
}

TEST(Enc1Golden, EachHeadReadsItsOwnScoreBias) {
  const rrswin::WeightMap m = rrswin::weight_map(rrswin::layer_spec(LayerId::enc1));
  ASSERT_EQ(m.score_bias(0), 4224u);   // DOC-e1 §3/E4
  ASSERT_EQ(m.score_bias(1), 22656u);  // DOC-e1 §3/E11
  const std::vector<std::uint8_t> w = default_bytes();
  const Enc1Run base = run_enc1(w);
  for (int head = 0; head < 2; ++head) {
    SCOPED_TRACE("score bias of head " + std::to_string(head) + " set to 0");
    std::vector<std::uint8_t> v = w;
    std::fill(v.begin() + m.score_bias(head), v.begin() + m.score_bias(head) + 12288, 0);
    const Enc1Run r = run_enc1(v);
    const int other = 1 - head;
    EXPECT_NE(warp_regs(r, "w5", head), warp_regs(base, "w5", head));
    EXPECT_EQ(warp_regs(r, "w5", other), warp_regs(base, "w5", other));
    // Head 1's stem reads the prologue's A (AS1/AS2), not head 0's output: its Q chain is the same.
    EXPECT_EQ(warp_regs(r, "w3", 1), warp_regs(base, "w3", 1));
    // Head 0's projection (phase 7) sees head 0's attention only.
    EXPECT_EQ(warp_regs(r, "p7d", 0) == warp_regs(base, "p7d", 0), head == 1);
    EXPECT_NE(r.arena, base.arena);
  }
}

TEST(Enc1Golden, TheProjectionsChainFromT1PlusTheInput) {
  // Wo of both heads 0: D7 = 0 + C7 = f16(T1 + x) and D14 = 0 + D7 (DOC-e1 §3/E6 item 2, §3/E13).
  const rrswin::WeightMap m = rrswin::weight_map(rrswin::layer_spec(LayerId::enc1));
  ASSERT_EQ(m.wo(0), 16512u);
  ASSERT_EQ(m.wo(1), 34944u);
  std::vector<std::uint8_t> v = default_bytes();
  std::fill(v.begin() + m.wo(0), v.begin() + m.wo(0) + 32 * 64, 0);
  std::fill(v.begin() + m.wo(1), v.begin() + m.wo(1) + 32 * 64, 0);
  const Enc1Run r = run_enc1(v);
  EXPECT_TRUE(same_up_to_zero_sign(warp_regs(r, "p7d", 0), warp_regs(r, "p7c", 0)));
  EXPECT_TRUE(same_up_to_zero_sign(r.stages.at("p14d").values, r.stages.at("p7d").values));
  // Only head 1's Wo at 0: D14 = D7 still, and D7 is not its C any more.
  std::vector<std::uint8_t> u = default_bytes();
  std::fill(u.begin() + m.wo(1), u.begin() + m.wo(1) + 32 * 64, 0);
  const Enc1Run r1 = run_enc1(u);
  EXPECT_TRUE(same_up_to_zero_sign(r1.stages.at("p14d").values, r1.stages.at("p7d").values));
  EXPECT_FALSE(same_up_to_zero_sign(r1.stages.at("p7d").values, r1.stages.at("p7c").values));
}

TEST(Enc1Golden, E32TakesItsLogitsFromRegistersNotSharedRecords) {
  // filter-record-guard decides which lanes store enc2..enc5's shared records (facts C14.1); E32
  // has none (DOC-e1 §3/E32(a)), so both values give enc1 the same bytes, where enc2's differ
  // (LayerSettle.EveryPairOfValuesDiffersOnTheBorderLaunch).
  const std::vector<std::uint8_t> w = default_bytes();
  rrswin::Readings guard, none;
  none.e61_record_guard = rrswin::E61RecordGuard::none;
  const Enc1Run a = run_enc1(w, guard), b = run_enc1(w, none);
  EXPECT_EQ(a.s112, b.s112);
  EXPECT_EQ(a.s120, b.s120);
  EXPECT_EQ(a.s128, b.s128);
  // ... and the logits are the final phase's D: a gate on logit 9 changes +120.
  rrswin::LayerReadings nine;
  nine.e62_gate = rrswin::E62Gate::logit9;
  EXPECT_NE(run_enc1(w, {}, nine).s120, a.s120);
}

}  // namespace
