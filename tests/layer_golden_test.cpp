// enc4's golden model (model/layer_golden.hpp). What is checked against an independent description:
//   * phases 1..60 are enc5's (DOC4 §2 row for row, via the template): the golden parts reused;
//   * the merge (E60's gather, phase 61's B layout, E61's store) with weights built from DOC4's
//     lane-level description of the B loads (E60(e): W + 16*laneid + 428544 + 640*r + 512*j) and
//     facts §0.4's B register layout, not from the code's address function: with one 1.0 per
//     output column and a zero bias, the merged output is a copy of the arena words of the tokens
//     the reading merge-gather-order names.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "layout/arena.hpp"
#include "model/layer_golden.hpp"
#include "model/layer_program.hpp"
#include "model/phase_program.hpp"
#include "numerics/profile.hpp"

namespace {

using enc5::LayerId;
using enc5::Phase;

TEST(LayerGolden, Enc4Phases1To60AreEnc5s) {
  const auto& e4 = enc5::layer_program(LayerId::enc4).phases;
  const auto& e5 = enc5::phase_program();
  for (int i = 0; i < 60; ++i) {
    const Phase& a = e4[i];
    const Phase& b = e5[i];
    SCOPED_TRACE("phase " + std::to_string(i + 1));
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.mma, b.mma);
    EXPECT_EQ(a.real.m, b.real.m);
    EXPECT_EQ(a.real.n, b.real.n);
    EXPECT_EQ(a.real.k, b.real.k);
    EXPECT_EQ(a.a, b.a);
    EXPECT_EQ(a.b, b.b);
    EXPECT_EQ(a.c, b.c);
    EXPECT_EQ(a.c_chain_from, b.c_chain_from);
    EXPECT_EQ(a.weight_begin, b.weight_begin);
    EXPECT_EQ(a.bias_begin, b.bias_begin);
    EXPECT_EQ(a.warps, b.warps);
    EXPECT_EQ(a.stmt_range, b.stmt_range);
    EXPECT_EQ(a.epilogue_statements, i == 59 ? 1381 : b.epilogue_statements);  // DOC4 E60 vs spec E60: 299
  }
}

// One B byte of the merge: lane L's 16 bytes at merge + 640 r + 512 j + 16 L (DOC4 §3/E60(e)); j < 20
// are k-step j of the pass's n-tiles 0/1, j >= 20 k-step j - 20 of n-tiles 2/3 (DOC4 §2's chains
// (A_j, B_2j), (A_j, B_2j+1), (A_j, B_40+2j), (A_j, B_40+2j+1)); byte 8h + 4b + jj of a lane is B
// register b of n-tile 2(j/20) + h, whose byte jj holds column g, k = 2t + (jj&1) + 16((jj>>1)&1) + 8b
// (facts §0.4). Returns the image offset of element (k of 640, column n of 160).
std::uint32_t merge_b_offset(std::uint32_t merge, int k, int n) {
  const int r = 32 * (n / 32), local = n % 32;
  const int pair = local / 16, h = (local / 8) & 1, g = local % 8;
  const int step = k / 32, kk = k % 32;
  const int j = 20 * pair + step;
  for (int t = 0; t < 4; ++t)
    for (int b = 0; b < 2; ++b)
      for (int jj = 0; jj < 4; ++jj)
        if (2 * t + (jj & 1) + 16 * ((jj >> 1) & 1) + 8 * b == kk)
          return merge + 640u * r + 512u * j + 16u * (4 * g + t) + 8u * h + 4u * b + jj;
  ADD_FAILURE() << "k " << k << " not found";
  return 0;
}

struct Merged {
  std::vector<std::uint8_t> arena, merged;
};

Merged run_identity(int quarter, enc5::MergeGatherOrder order) {
  const enc5::LayerSpec& s = enc5::layer_spec(LayerId::enc4);
  const enc5::WeightMap m = enc5::weight_map(s);
  std::vector<std::uint8_t> w(enc5::default_layer_weights(LayerId::enc4).bytes().begin(),
                              enc5::default_layer_weights(LayerId::enc4).bytes().end());
  std::fill(w.begin() + m.merge_weights(), w.begin() + m.final_weights(), 0);                          // Wm and bm = 0
  for (int n = 0; n < 160; ++n) w.at(merge_b_offset(m.merge_weights(), 160 * quarter + n, n)) = 0x38;  // 1.0
  const enc5::WeightImage image(std::move(w), LayerId::enc4, "identity");
  const enc5::SyntheticFrame in = enc5::make_synthetic_frame(16, 16, 3, false);
  enc5::Enc4Frame f;
  f.ex = 16;
  f.ey = 16;
  f.input_arena = in.input_arena;
  f.weights = &image;
  enc5::Readings r;
  r.arena_order = enc5::ArenaOrder::natural;  // each token its own words in both arenas
  enc5::LayerReadings lr;
  lr.merge_gather_order = order;
  lr.merge_output_layout = enc5::MergeOutputLayout::token_words;
  enc5::run_enc4_frame_golden(f, enc5::profile_ada(), r, lr);
  return {f.output_arena, f.merged_output};
}

void expect_copy(const Merged& got, int dx, int dy) {
  const enc5::layout::PlaneArena full{16, 16}, half{8, 8};
  ASSERT_EQ(got.merged.size(), half.total_bytes());
  int compared = 0;
  for (int q = 0; q < 5; ++q)
    for (int Y = 0; Y < 8; ++Y)
      for (int X = 0; X < 8; ++X)
        for (int d = 0; d < 8; ++d)
          for (int b = 0; b < 4; ++b) {
            std::uint8_t a = got.arena[4 * full.word_index(q, 2 * X + dx, 2 * Y + dy, d) + b];
            const std::uint8_t z = got.merged[4 * half.word_index(q, X, Y, d) + b];
            if (a == 0x80) a = 0x00;  // -0 * 1 + (+0 bias) = +0
            ASSERT_EQ(z, a) << "plane " << q << " token " << X << "," << Y << " word " << d << " byte " << b;
            ++compared;
          }
  EXPECT_EQ(compared, 5 * 64 * 32);
}

TEST(LayerGolden, Enc4MergeWithIdentityWeightsCopiesTheGatheredTokens) {
  // Quarter 0 is token (0,0) of the patch in both orders; quarter 1 is (0,1) under swin (Swin's
  // x1 = x[1::2, 0::2], the next row) and (1,0) under raster.
  expect_copy(run_identity(0, enc5::MergeGatherOrder::swin), 0, 0);
  expect_copy(run_identity(1, enc5::MergeGatherOrder::swin), 0, 1);
  expect_copy(run_identity(1, enc5::MergeGatherOrder::raster), 1, 0);
}

// enc4's arena (param+48) is enc5's for the same phase 1..60 weights: the image's first 428544 bytes
// are the same regions in both layers (LayerTemplate tests), so an enc5 image stitched from them
// (and any W61/b61) run by enc5's own frame driver must write the same arena, byte for byte.
TEST(LayerGolden, Enc4ArenaIsEnc5sForTheSamePhases1To60) {
  const enc5::WeightImage& w4 = enc5::default_layer_weights(LayerId::enc4);
  std::vector<std::uint8_t> b5(enc5::default_weights().bytes().begin(), enc5::default_weights().bytes().end());
  std::copy(w4.bytes().begin(), w4.bytes().begin() + 428544, b5.begin());
  const enc5::WeightImage w5(std::move(b5), "stitched");
  const enc5::SyntheticFrame in = enc5::make_synthetic_frame(16, 8, 5, false);

  enc5::Enc4Frame f;
  f.ex = 16;
  f.ey = 8;
  f.input_arena = in.input_arena;
  f.weights = &w4;
  enc5::run_enc4_frame_golden(f, enc5::profile_ada(), enc5::Readings{}, enc5::LayerReadings{});

  std::vector<std::uint8_t> arena5(f.output_arena.size(), 0);
  enc5::Surface surface = enc5::Surface::make(16, 8);
  enc5::LaunchParams p;
  p.ex = 16;
  p.ey = 8;
  p.input_arena = in.input_arena;
  p.weights = &w5;
  p.output_arena = arena5;
  p.texture = &in.texture;
  p.surface = &surface;
  enc5::RunOptions o;
  o.engine = enc5::Engine::fast;  // bit-identical to golden (engine_diff_test)
  enc5::run_frame(p, o);
  EXPECT_TRUE(f.output_arena == arena5);
  EXPECT_EQ(f.merged_output.size(), 5u * 4 * 8 * 32);
}

TEST(LayerGolden, LayerReadingsParse) {
  enc5::LayerReadings lr;
  std::string err;
  EXPECT_TRUE(enc5::set_layer_reading(lr, "merge-gather-order=raster", &err));
  EXPECT_EQ(lr.merge_gather_order, enc5::MergeGatherOrder::raster);
  EXPECT_TRUE(enc5::set_layer_reading(lr, "merge-output-layout=token-words", &err));
  EXPECT_FALSE(enc5::set_layer_reading(lr, "merge-output-layout=bogus", &err));
  EXPECT_NE(err.find("bogus"), std::string::npos);
  EXPECT_FALSE(enc5::set_layer_reading(lr, "nope=1", &err));
  EXPECT_EQ(enc5::layer_reading_registry().size(), 8u);  // merge-gather-order, merge-output-layout, e62-* (6)
}

}  // namespace
