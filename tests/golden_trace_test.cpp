// Traces: every stage of the traced block is present with its documented shape, and the register
// orders agree with the bytes the layer writes (E60 words in the arena, E61 values on the surface).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <map>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "layout/arena.hpp"
#include "model/layer.hpp"
#include "model/layer_golden.hpp"
#include "model/trace.hpp"

namespace rrswin {
namespace {

TEST(GoldenTrace, AllStagesWithTheirShapesAndConsistentOrders) {
  const int ex = 16, ey = 8;
  const SyntheticFrame f = make_synthetic_frame(ex, ey, 2, false);
  std::vector<std::uint8_t> arena(f.input_arena.size(), 0);
  Surface s = Surface::make(ex, ey);
  LaunchParams p = frame_launch(ex, ey, f.input_arena, default_weights(), arena, f.texture, s);
  TraceRequest req;
  req.stages = {"all"};
  req.block_x = 1;
  req.block_y = 0;
  Trace t;
  RunOptions o;
  o.engine = Engine::golden;  // these tests are about the golden model itself
  o.trace = &req;
  o.trace_out = &t;
  run_frame(p, o);
  EXPECT_EQ(t.block_x, 1);
  std::map<std::string, const TraceStage*> by;
  for (const auto& st : t.stages) {
    EXPECT_EQ(st.values.size(), static_cast<std::size_t>(st.warps) * st.lanes * st.regs) << st.name;
    EXPECT_FALSE(st.description.empty()) << st.name;
    by[st.name] = &st;
  }
  // The stage table (model/trace.hpp) lists exactly the stages recorded, in their order, with their
  // shapes; the literal numbers below check the table itself against facts F2 and the layouts.
  const std::vector<StageRow> table = trace_stage_table(layer_spec(LayerId::enc5));
  ASSERT_EQ(table.size(), t.stages.size());
  for (std::size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(table[i].name, t.stages[i].name) << i;
    EXPECT_EQ(table[i].shape.warps, t.stages[i].warps) << table[i].name;
    EXPECT_EQ(table[i].shape.regs, t.stages[i].regs) << table[i].name;
  }
  auto shape = [&](const std::string& n, int warps, int regs) {
    ASSERT_TRUE(by.count(n)) << n;
    EXPECT_EQ(by[n]->warps, warps) << n;
    EXPECT_EQ(by[n]->regs, regs) << n;
  };
  for (int ph = 1; ph <= 10; ++ph) shape(golden::cat("w", ph), 8, 48);  // facts F2
  shape("w11", 8, 96);
  shape("w12", 8, 32);
  shape("e11.p", 8, 96);
  shape("e11.sum", 8, 8);
  shape("e11.rcp", 8, 8);
  shape("p13c", 4, 40);
  for (int ph = 13; ph <= 20; ++ph) shape(golden::cat("p", ph, "d"), 4, 40);
  shape("e20.sum", 4, 2);
  shape("e20.inv", 4, 2);
  shape("e20.n", 4, 40);
  for (int ph = 21; ph <= 60; ph += 2) {
    shape(golden::cat("p", ph, "d"), 4, 8);
    shape(golden::cat("e", ph, ".act"), 4, 8);
    shape(golden::cat("p", ph + 1, "d"), 4, 40);
  }
  shape("p22c", 4, 40);
  shape("e60.words", 4, 20);
  shape("p61d", 4, 4);
  shape("e61.logits", 2, 5);
  shape("e61.w", 2, 5);
  shape("e61.out", 2, 2);
  // E60: word 4q+o of warp z lane L is at pixel (x0 + g, 2z + row_half) under the default
  // (fragment) order: reg o -> row half o>>1, word t | 4(o&1).
  const layout::PlaneArena pa{ex, ey};
  const TraceStage& w = *by["e60.words"];
  for (int z = 0; z < 4; ++z)
    for (int lane = 0; lane < 32; ++lane)
      for (int q = 0; q < 5; ++q)
        for (int reg = 0; reg < 4; ++reg) {
          const int x = 8 + (lane >> 2), y = 2 * z + (reg >> 1), d = (lane & 3) | (4 * (reg & 1));
          std::uint32_t v;
          std::memcpy(&v, &arena[4 * pa.word_index(q, x, y, d)], 4);
          ASSERT_EQ(v, w.at(z, lane, 4 * q + reg));
        }
  // E61: thread T = 32 warp + lane writes pixel (x0 + (T&7), T>>3).
  const TraceStage& out = *by["e61.out"];
  for (int T = 0; T < 64; ++T) {
    std::uint32_t lo, hi;
    std::memcpy(&lo, &s.bytes[(T >> 3) * s.pitch + 8 * (8 + (T & 7))], 4);
    std::memcpy(&hi, &s.bytes[(T >> 3) * s.pitch + 8 * (8 + (T & 7)) + 4], 4);
    EXPECT_EQ(lo, out.at(T >> 5, T & 31, 0));
    EXPECT_EQ(hi, out.at(T >> 5, T & 31, 1));
  }
  // Phase 20's D is E20's input: e20.n = 0 only where p20d is 0 (a weak link of the orders).
  const TraceStage& d20 = *by["p20d"];
  const TraceStage& n = *by["e20.n"];
  for (int z = 0; z < 4; ++z)
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < 40; ++r)
        if ((d20.at(z, lane, r) & 0x7FFF7FFF) == 0) {
          EXPECT_EQ(n.at(z, lane, r) & 0x7FFF7FFF, 0u);
        }
}

// The merge layers' traces (`--trace all` of enc4 and enc3): the stages their table lists, in its
// order and with its shapes; a few shapes stated by the docs' register counts (DOC3 §1.4: 24 staged
// fragments = 96 prologue registers; E46(b): 16 arena words per lane; enc3's 16 n-tiles).
TEST(GoldenTrace, MergeLayersRecordTheirStageTables) {
  for (LayerId id : {LayerId::enc4, LayerId::enc3}) {
    const LayerSpec& l = layer_spec(id);
    const SyntheticFrame f = make_synthetic_frame(16, 8, 2, false, l.k_slices());
    LayerFrame m;
    m.ex = 16;
    m.ey = 8;
    m.input_arena = f.input_arena;
    m.weights = &default_layer_weights(id);
    m.texture = &f.texture;
    TraceRequest req;
    req.stages = {"all"};
    req.block_x = 1;
    Trace t;
    run_layer_frame_golden(m, profile_ada(), Readings{}, LayerReadings{}, nullptr, &req, &t);
    const std::vector<StageRow> table = trace_stage_table(l);
    ASSERT_EQ(table.size(), t.stages.size()) << l.name;
    std::map<std::string, const TraceStage*> by;
    for (std::size_t i = 0; i < table.size(); ++i) {
      EXPECT_EQ(table[i].name, t.stages[i].name) << l.name << " " << i;
      EXPECT_EQ(table[i].shape.warps, t.stages[i].warps) << table[i].name;
      EXPECT_EQ(table[i].shape.regs, t.stages[i].regs) << table[i].name;
      by[t.stages[i].name] = &t.stages[i];
    }
    if (id == LayerId::enc3) {
      EXPECT_EQ(by.at("prologue.a")->regs, 96);
      EXPECT_EQ(by.at("e46.words")->regs, 16);
      EXPECT_EQ(by.at("p14d")->regs, 32);
      EXPECT_EQ(by.at("w8")->warps, 4);
      EXPECT_EQ(by.at("p47d")->regs, 40);
      EXPECT_EQ(by.at("e48.sum")->regs, 2);
      EXPECT_EQ(by.count("w11"), 0u);
    } else {
      EXPECT_EQ(by.at("prologue.a")->regs, 120);
      EXPECT_EQ(by.at("p61d")->regs, 40);
      EXPECT_EQ(by.at("p62d")->regs, 4);
    }
  }
}

// The decoders' stages: p1d (the patch expand's D, each warp's 48 rows) first, then the template's at
// the phase numbers after the front (dec4: w2..w11, the score w12, ..., e61.words, p62d).
TEST(GoldenTrace, DecodersRecordTheirStageTable) {
  for (LayerId id : {LayerId::dec4, LayerId::dec3, LayerId::dec2}) {
    const LayerSpec& l = layer_spec(id);
    SCOPED_TRACE(std::string(l.name));
    const SyntheticFrame in = make_synthetic_frame(8, 4, 2, false, l.front.k / 32);
    const SyntheticFrame skip = make_synthetic_frame(16, 8, 3, false, l.k_slices());
    LayerFrame m;
    m.ex = 16;
    m.ey = 8;
    m.input_arena = in.input_arena;
    m.skip_arena = skip.input_arena;
    m.weights = &default_layer_weights(id);
    m.texture = &in.texture;
    m.texture96 = &skip.texture;
    m.texture104 = &skip.texture;
    m.scale = {0.5f, 0.5f};
    TraceRequest req;
    req.stages = {"all"};
    req.block_x = 1;
    Trace t;
    run_layer_frame_golden(m, profile_ada(), Readings{}, LayerReadings{}, nullptr, &req, &t);
    const std::vector<StageRow> table = trace_stage_table(l);
    ASSERT_EQ(table.size(), t.stages.size());
    for (std::size_t i = 0; i < table.size(); ++i) {
      EXPECT_EQ(table[i].name, t.stages[i].name) << i;
      EXPECT_EQ(table[i].shape.warps, t.stages[i].warps) << table[i].name;
      EXPECT_EQ(table[i].shape.regs, t.stages[i].regs) << table[i].name;
    }
    EXPECT_EQ(t.stages.front().name, "p1d");
    EXPECT_EQ(t.stages.front().regs, 3 * l.channels / 8 * 2);  // 3 m-tiles x C/8 n-tiles x 2 row halves
    EXPECT_EQ(t.stages[2].name, "w2");                         // the first stem phase follows the front
    char last[16];
    std::snprintf(last, sizeof last, "p%dd", l.final_phase());
    EXPECT_EQ(t.stages.back().name, last);
  }
}

}  // namespace
}  // namespace rrswin
