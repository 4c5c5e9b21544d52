// enc0's golden model (issue 35): what it adds to enc1's parts, checked by what the sources state:
//   * the input embedding P1 -> relu-q8 -> P2 with its bias records (DESC-e0 WEIGHTS: P1 B at 4096,
//     bias 5120, P2 B at 5184, bias 6208; HIP-e0 phases 1/2, verified at stages p1/p2), whose D is
//     the projections' residual x (HIP-e0 stage e6: P7's C = T1 + D2);
//   * cvt.rn.satfinite.relu.e4m3x2.f16x2's rule (HIP-e0 relu_pair; the PTX ISA's cvt .relu);
//   * the stage table.
// Its input is the staged input tensor (model/embedding_front.cpp: the prologue that builds it from
// the network's input is decoded by no source).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "layout/weight_tile.hpp"
#include "model/layer.hpp"
#include "model/layer_golden.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"
#include "numerics/profile.hpp"

namespace {

using rrswin::LayerId;

TEST(Enc0Golden, ReluRequantisationIsTheCvtRule) {
  rrswin::golden::BlockContext ctx;
  ctx.profile = &rrswin::profile_ada();
  // e4m3 (bias 7): 1.0 = 0 0111 000 = 0x38, 448 = 0 1111 110 = 0x7E (satfinite), NaN 0x7F.
  EXPECT_EQ(rrswin::golden::quantise_relu(ctx, 0x3C00), 0x38);  // 1.0
  EXPECT_EQ(rrswin::golden::quantise_relu(ctx, 0xBC00), 0x00);  // -1.0 -> +0
  EXPECT_EQ(rrswin::golden::quantise_relu(ctx, 0x8000), 0x00);  // -0 -> +0
  EXPECT_EQ(rrswin::golden::quantise_relu(ctx, 0x0000), 0x00);
  EXPECT_EQ(rrswin::golden::quantise_relu(ctx, 0x5FD0), 0x7E);  // 500 -> 448
  EXPECT_EQ(rrswin::golden::quantise_relu(ctx, 0x7E00), 0x7F);  // NaN
  EXPECT_EQ(rrswin::golden::quantise_relu(ctx, 0xFE00), 0x7F);  // a negative NaN: the canonical NaN
}

// The golden requantisation and the interpreter's cvt.rn.satfinite.relu.e4m3x2.f16x2 (numerics
// cvt_e4m3x2_f16x2_relu, tested on hand codes in PtxConformance.CvtReluE4m3x2F16x2) agree on every
// half under both NaN rules.
TEST(Enc0Golden, ReluRequantisationEqualsTheInterpretersCvtOnEveryHalf) {
  for (const rrswin::Profile* p : {&rrswin::profile_ada(), &rrswin::profile_zluda()}) {
    rrswin::golden::BlockContext ctx;
    ctx.profile = p;
    int differing = 0;
    for (std::uint32_t h = 0; h < 65536; ++h) {
      const auto f = static_cast<rrswin::f16_t>(h);
      const std::uint16_t pair = rrswin::cvt_e4m3x2_f16x2_relu(rrswin::f16x2_pack(f, f), *p);
      differing += (pair & 0xFF) != rrswin::golden::quantise_relu(ctx, f) || (pair >> 8) != (pair & 0xFF);
    }
    EXPECT_EQ(differing, 0) << p->name;
  }
}

// Identity embeddings (1.0 at (k, k) of both 32 x 32 tiles, biases 0), both heads' Wo, every W2 and
// the tables T1, T3 at 0: D1 = A, D2 = relu(A) (exact), x = D2; the projections and the MLP add 0
// to their C (D7 = f16(0 + x), D12 = D7, D14 = f16(0 + D12), ..., D20 = D14), so the arena (+48)
// is q8(relu(A)): the staged input tensor's bytes with negative codes (and -0) made +0, pixel for
// pixel (the gather and the scatter use the same word map under the default readings).
TEST(Enc0Golden, WithIdentityEmbeddingsAndZeroProjectionsTheArenaIsTheReluOfTheInput) {
  const rrswin::LayerSpec& s = rrswin::layer_spec(LayerId::enc0);
  const rrswin::WeightMap m = rrswin::weight_map(s);
  ASSERT_EQ(m.g1(), 6272u);  // HIP-e0: the input norm's gains at 6272..6336
  std::vector<std::uint8_t> w(rrswin::default_layer_weights(LayerId::enc0).bytes().begin(),
                              rrswin::default_layer_weights(LayerId::enc0).bytes().end());
  auto zero = [&w](std::uint32_t a, std::uint32_t b) { std::fill(w.begin() + a, w.begin() + b, 0); };
  for (const std::uint32_t b : {4096u, 5184u}) {  // P1, P2's B (DESC-e0 WEIGHTS)
    zero(b, b + 1024);
    for (int k = 0; k < 32; ++k) w.at(rrswin::layout::waddr(b, k, k)) = 0x38;  // columns 16..31 in the second 512-byte tile
  }
  zero(5120, 5184);  // P1's bias records
  zero(6208, 6272);  // P2's
  for (int h = 0; h < 2; ++h) zero(m.wo(h), m.wo(h) + 32 * 32);
  for (int c = 0; c < s.chunks; ++c) zero(m.w2(c), m.w2(c) + 32 * 32);
  zero(m.t1(), m.t1() + 64);
  zero(m.t3(), m.t3() + 64);
  const rrswin::WeightImage image(std::move(w), LayerId::enc0, "identity embeddings");
  const rrswin::SyntheticFrame in = rrswin::make_synthetic_frame(19, 11, 4, false, 1);
  rrswin::LayerFrame f;
  f.ex = 19;
  f.ey = 11;
  f.ox = 2;
  f.input_arena = in.input_arena;
  f.weights = &image;
  rrswin::run_layer_frame_golden(f, rrswin::profile_ada(), rrswin::Readings{}, rrswin::LayerReadings{});
  ASSERT_EQ(f.output_arena.size(), in.input_arena.size());
  int negatives = 0;
  for (std::size_t i = 0; i < f.output_arena.size(); ++i) {
    const std::uint8_t b = in.input_arena[i];
    const std::uint8_t want = (b & 0x7F) == 0x7F ? 0x7F : (b & 0x80) ? 0x00 : b;
    negatives += (b & 0x80) != 0;
    ASSERT_EQ(f.output_arena[i], want) << "byte " << i;
  }
  EXPECT_GT(negatives, 1000);  // the relu did something
}

TEST(Enc0Golden, TheStagesAreTheTables) {
  const rrswin::SyntheticFrame in = rrswin::make_synthetic_frame(8, 8, 5, false, 1);
  rrswin::LayerFrame f;
  f.ex = 8;
  f.ey = 8;
  f.input_arena = in.input_arena;
  f.weights = &rrswin::default_layer_weights(LayerId::enc0);
  f.texture = &in.texture;
  rrswin::TraceRequest req;
  req.stages = {"all"};
  rrswin::Trace t;
  rrswin::run_layer_frame_golden(f, rrswin::profile_ada(), rrswin::Readings{}, rrswin::LayerReadings{}, nullptr, &req, &t);
  const std::vector<rrswin::StageRow> table = rrswin::trace_stage_table(rrswin::layer_spec(LayerId::enc0));
  ASSERT_EQ(table.size(), t.stages.size());
  for (std::size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(table[i].name, t.stages[i].name) << i;
    EXPECT_EQ(table[i].shape.warps, t.stages[i].warps) << table[i].name;
    EXPECT_EQ(table[i].shape.regs, t.stages[i].regs) << table[i].name;
  }
  // HIP-e0 / DESC-e0: P1, P2 the embedding; head 0 = stem P3, P4, score P5, P V P6, projection P7;
  // head 1 = P8..P12; the MLP P13..P20, the merge P21, the final P22.
  for (const char* n :
       {"p1d", "p2d", "prologue.a", "w3", "w5", "w6", "p7c", "p7d", "p12d", "p13d", "p20d", "e20.words", "p21d", "p22d", "e22.gate"})
    EXPECT_TRUE(std::find_if(t.stages.begin(), t.stages.end(), [&](const rrswin::TraceStage& st) { return st.name == n; }) !=
                t.stages.end())
        << n;
}

}  // namespace
