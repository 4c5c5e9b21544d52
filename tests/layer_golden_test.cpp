// enc4's golden model (model/layer_golden.hpp). What is checked against an independent description:
//   * phases 1..60 are enc5's (DOC4 §2 row for row, via the template): the golden parts reused;
//   * the merge (E60's gather, phase 61's B layout, E61's store) with weights built from DOC4's
//     lane-level description of the B loads (E60(e): W + 16*laneid + 428544 + 640*r + 512*j) and
//     facts §0.4's B register layout, not from the code's address function: with one 1.0 per
//     output column and a zero bias, the merged output is a copy of the arena words of the tokens
//     the reading merge-gather-order names.
#include <gtest/gtest.h>

#include <algorithm>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "layout/arena.hpp"
#include "model/layer.hpp"
#include "model/layer_golden.hpp"
#include "model/layer_program.hpp"
#include "model/phase_program.hpp"
#include "numerics/profile.hpp"

namespace {

using rrswin::LayerId;
using rrswin::Phase;

TEST(LayerGolden, Enc4Phases1To60AreEnc5s) {
  const auto& e4 = rrswin::layer_program(LayerId::enc4).phases;
  const auto& e5 = rrswin::phase_program();
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

// One B byte of the merge: lane L's 16 bytes at merge + 4C r + 512 j + 16 L (DOC4 §3/E60(e): 640 r;
// DOC3 §3/E46(e): 512 (r + j), i.e. 512 r at C = 128); j < K/32 are k-step j of the pass's n-tiles
// 0/1, j >= K/32 k-step j - K/32 of n-tiles 2/3 (DOC4 §2's chains (A_j, B_2j), (A_j, B_2j+1),
// (A_j, B_40+2j), (A_j, B_40+2j+1); DOC3 §2 P47 the same with 32); byte 8h + 4b + jj of a lane is B
// register b of n-tile 2(j/(K/32)) + h, whose byte jj holds column g, k = 2t + (jj&1) +
// 16((jj>>1)&1) + 8b (facts §0.4). Returns the image offset of element (k of 4C, column n of 160).
std::uint32_t merge_b_offset(std::uint32_t merge, int C, int k, int n) {
  const int r = 32 * (n / 32), local = n % 32, ks = 4 * C / 32;
  const int pair = local / 16, h = (local / 8) & 1, g = local % 8;
  const int step = k / 32, kk = k % 32;
  const int j = ks * pair + step;
  for (int t = 0; t < 4; ++t)
    for (int b = 0; b < 2; ++b)
      for (int jj = 0; jj < 4; ++jj)
        if (2 * t + (jj & 1) + 16 * ((jj >> 1) & 1) + 8 * b == kk)
          return merge + 4u * C * r + 512u * j + 16u * (4 * g + t) + 8u * h + 4u * b + jj;
  ADD_FAILURE() << "k " << k << " not found";
  return 0;
}

struct Merged {
  std::vector<std::uint8_t> arena, merged;
};

Merged run_identity(int quarter, rrswin::LayerReadings lr, LayerId id, rrswin::ArenaOrder arena_order = rrswin::ArenaOrder::natural) {
  const rrswin::LayerSpec& s = rrswin::layer_spec(id);
  const rrswin::WeightMap m = rrswin::weight_map(s);
  std::vector<std::uint8_t> w(rrswin::default_layer_weights(id).bytes().begin(), rrswin::default_layer_weights(id).bytes().end());
  std::fill(w.begin() + m.merge_weights(), w.begin() + m.final_weights(), 0);  // Wm and bm = 0
  for (int n = 0; n < s.channels; ++n) w.at(merge_b_offset(m.merge_weights(), s.channels, s.channels * quarter + n, n)) = 0x38;  // 1.0
  const rrswin::WeightImage image(std::move(w), id, "identity");
  const rrswin::SyntheticFrame in = rrswin::make_synthetic_frame(16, 16, 3, false, s.k_slices());
  rrswin::LayerFrame f;
  f.ex = 16;
  f.ey = 16;
  f.input_arena = in.input_arena;
  f.weights = &image;
  rrswin::Readings r;
  r.arena_order = arena_order;  // natural: each token its own words in both arenas
  lr.merge_output_layout = rrswin::MergeOutputLayout::token_words;
  rrswin::run_layer_frame_golden(f, rrswin::profile_ada(), r, lr);
  return {f.output_arena, f.merged_output};
}

Merged run_identity(int quarter, rrswin::MergeGatherOrder order, LayerId id = LayerId::enc4) {
  rrswin::LayerReadings lr;
  lr.merge_gather_order = order;
  return run_identity(quarter, lr, id);
}

Merged run_identity(int quarter, rrswin::MergeRegisterK order) {
  rrswin::LayerReadings lr;
  lr.merge_register_k = order;
  return run_identity(quarter, lr, LayerId::enc1);
}

// The merged output's planes 0..C/32-1 copy the arena's words of token (2X + dx, 2Y + dy); enc3's
// fifth plane (merged channels 128..159, no 1.0 in their weights) is +0, and so is enc2's fourth
// (merged channels 96..127).
void expect_copy(const Merged& got, int dx, int dy, int planes = 5, int merged_planes = 5) {
  const rrswin::layout::PlaneArena full{16, 16, planes}, half{8, 8, merged_planes};
  ASSERT_EQ(got.arena.size(), full.total_bytes());
  ASSERT_EQ(got.merged.size(), half.total_bytes());
  int compared = 0;
  for (int q = 0; q < merged_planes; ++q)
    for (int Y = 0; Y < 8; ++Y)
      for (int X = 0; X < 8; ++X)
        for (int d = 0; d < 8; ++d)
          for (int b = 0; b < 4; ++b) {
            std::uint8_t a = q < planes ? got.arena[4 * full.word_index(q, 2 * X + dx, 2 * Y + dy, d) + b] : 0;
            const std::uint8_t z = got.merged[4 * half.word_index(q, X, Y, d) + b];
            if (a == 0x80) a = 0x00;  // -0 * 1 + (+0 bias) = +0
            ASSERT_EQ(z, a) << "plane " << q << " token " << X << "," << Y << " word " << d << " byte " << b;
            ++compared;
          }
  EXPECT_EQ(compared, merged_planes * 64 * 32);
}

TEST(LayerGolden, Enc4MergeWithIdentityWeightsCopiesTheGatheredTokens) {
  // Quarter 0 is token (0,0) of the patch in both orders; quarter 1 is (0,1) under swin (Swin's
  // x1 = x[1::2, 0::2], the next row) and (1,0) under raster.
  expect_copy(run_identity(0, rrswin::MergeGatherOrder::swin), 0, 0);
  expect_copy(run_identity(1, rrswin::MergeGatherOrder::swin), 0, 1);
  expect_copy(run_identity(1, rrswin::MergeGatherOrder::raster), 1, 0);
}

TEST(LayerGolden, Enc3MergeWithIdentityWeightsCopiesTheGatheredTokens) {
  // K = 4C = 512 (DOC3 §2 P47: 16 k-steps, B at 231424 + 512 (r + j), j = 0..31).
  expect_copy(run_identity(0, rrswin::MergeGatherOrder::swin, LayerId::enc3), 0, 0, 4);
  expect_copy(run_identity(3, rrswin::MergeGatherOrder::swin, LayerId::enc3), 1, 1, 4);
  expect_copy(run_identity(2, rrswin::MergeGatherOrder::raster, LayerId::enc3), 0, 1, 4);
}

TEST(LayerGolden, Enc2MergeWithIdentityWeightsCopiesTheGatheredTokens) {
  // K = 4C = 384 in one 32-column pass per warp, 4 warps x 32 = 128 merged channels (DOC-e2 §2.2 P37
  // 16x32x384; §3/E36(e) r0 = 32 z, loop bound 128).
  expect_copy(run_identity(0, rrswin::MergeGatherOrder::swin, LayerId::enc2), 0, 0, 3, 4);
  expect_copy(run_identity(1, rrswin::MergeGatherOrder::swin, LayerId::enc2), 0, 1, 3, 4);
  expect_copy(run_identity(1, rrswin::MergeGatherOrder::raster, LayerId::enc2), 1, 0, 3, 4);
}

TEST(LayerGolden, Enc1RegisterMergeWithIdentityWeightsCopiesTheGatheredTokens) {
  // K = 4C = 256 in one pass of 8 chained k-steps, 96 merged channels (DOC-e1 §2.1 P31 16x96x256; §3/
  // E30(d) B at 70656 + 512 i, i < 48 = the band layout above at K/32 = 8). Token-major K: quarter q
  // is K 64q..64q+63, the token's two planes; raster quarters (enc0's pair list, DOC-e0 §3/E20(c)):
  // 1 = (1,0), 2 = (0,1); swin's 1 = (0,1). The merged output has 3 planes; the third is +0.
  using K = rrswin::MergeRegisterK;
  expect_copy(run_identity(0, K::raster_token), 0, 0, 2, 3);
  expect_copy(run_identity(1, K::raster_token), 1, 0, 2, 3);
  expect_copy(run_identity(2, K::raster_token), 0, 1, 2, 3);
  expect_copy(run_identity(3, K::raster_token), 1, 1, 2, 3);
  expect_copy(run_identity(1, K::swin_token), 0, 1, 2, 3);
}

// Each k-slice of the register merge is one pixel's words as the arena scatter stores them (DOC-e0
// §3/E20(c)'s pair list: A register 0 of k-slice s <- the word t E20 stored at pixel P_s, register 2
// <- word t|4): under arena-order = fragment (rows g and g+8 of an m-tile share a pixel's words,
// DOC-e0 §3/E20(b)) the merged words are the stored words, not whole tokens. With the merge's store
// in token words (DOC-e0 §3/E21), merged token (X, Y)'s planes 0, 1 copy the +48 words of pixel
// (2X, 2Y) (quarter 0, slices 0 and 1).
TEST(LayerGolden, Enc1RegisterMergeReadsTheWordsTheScatterStores) {
  rrswin::LayerReadings lr;
  expect_copy(run_identity(0, lr, LayerId::enc1, rrswin::ArenaOrder::fragment), 0, 0, 2, 3);
  expect_copy(run_identity(3, lr, LayerId::enc1, rrswin::ArenaOrder::fragment), 1, 1, 2, 3);
}

// enc3 (C = 128) and enc2 (C = 96) end to end with their output projections, down-projections and
// the tables T1, T3 set to zero: the last projection's D = C = f16(0 + x) and the last
// down-projection's D = f16(0 + that) (DOC3 §3/E10(e), E15(b); DOC-e2 §3/E8(d), E13(b): the residual
// path), so the arena the scatter writes (C/32 planes, param+48) is the decoded-and-requantised
// input, i.e. the input arena itself (e4m3 -> f16 -> e4m3 is exact; -0 becomes +0), pixel for pixel.
// This checks the prologue's C/32-plane gather, the chains over the heads and chunks and the
// scatter's planes against the input alone, independently of every weight the zeroed paths multiply.
TEST(LayerGolden, WithZeroProjectionsTheArenaIsTheInputArena) {
  for (const LayerId id : {LayerId::enc3, LayerId::enc2}) {
    const rrswin::LayerSpec& s = rrswin::layer_spec(id);
    SCOPED_TRACE(std::string(s.name));
    const rrswin::WeightMap m = rrswin::weight_map(s);
    std::vector<std::uint8_t> w(rrswin::default_layer_weights(id).bytes().begin(), rrswin::default_layer_weights(id).bytes().end());
    auto zero = [&w](std::uint32_t a, std::uint32_t b) { std::fill(w.begin() + a, w.begin() + b, 0); };
    for (int h = 0; h < s.heads; ++h) zero(m.wo(h), m.wo(h) + 32 * m.c);
    for (int c = 0; c < s.chunks; ++c) zero(m.w2(c), m.w2(c) + 32 * m.c);
    zero(m.t1(), m.t1() + 2 * m.c);
    zero(m.t3(), m.t3() + 2 * m.c);
    const rrswin::WeightImage image(std::move(w), id, "zero projections");
    const int planes = s.channels / 32;  // enc3 4 (DOC3 §3/E46), enc2 3 (DOC-e2 §3/E36: 12 stores = 3 planes)
    const rrswin::SyntheticFrame in = rrswin::make_synthetic_frame(19, 11, 4, false, planes);
    rrswin::LayerFrame f;
    f.ex = 19;
    f.ey = 11;
    f.ox = 2;
    f.input_arena = in.input_arena;
    f.weights = &image;
    rrswin::golden::LayerStats stats;
    rrswin::run_layer_frame_golden(f, rrswin::profile_ada(), rrswin::Readings{}, rrswin::LayerReadings{}, &stats);
    ASSERT_EQ(f.output_arena.size(), static_cast<std::size_t>(planes) * 19 * 11 * 32);
    ASSERT_EQ(f.merged_output.size(), static_cast<std::size_t>(s.merge_out / 32) * 9 * 5 * 32);
    for (std::size_t i = 0; i < f.output_arena.size(); ++i) {
      const std::uint8_t a = in.input_arena[i] == 0x80 ? 0x00 : in.input_arena[i];
      ASSERT_EQ(f.output_arena[i], a) << "byte " << i;
    }
    EXPECT_EQ(stats.arena_stores, 8u * planes * 19 * 11);  // a pixel's 8 words in each plane, one st.global.u32 each
  }
}

// enc3's RMS sums at C = 128 (the reading enc3-sum-trees): 16 squares per lane and row half. A row
// of ones but channel 0 = 64 (square 4096, where the f16 spacing is 4): worked by hand,
//   sequential: lane 0's low half 4096 + 1 + ... = 4096 (each +1 rounds away); the fold
//     (4096 + 16) + (16 + 16) = 4144, high halves 64, 4144 + 64 = 4208 = 0x6C1C;
//   even_odd_quads: even ((4096+1)+(1+1)) = 4098 -> 4096 (tie to even), + 4 = 4100; odd 8; 4108;
//     fold 4108 + 16 + 32 = 4156, + 64 = 4220 = 0x6C1F; planes is the same tree; pairwise
//     ((4096+1) -> 4096, + 2 -> 4096, + 4 = 4100, + 8 = 4108) gives 4220 too.
// A row of 128 ones sums to 128 = 0x5800 in every tree.
TEST(LayerGolden, Enc3SumTreesOf16TermsWorkedByHand) {
  using rrswin::SumTree;
  std::vector<rrswin::f16_t> row(128, 0x3C00);
  for (SumTree t : {SumTree::sequential, SumTree::even_odd_quads, SumTree::planes, SumTree::pairwise})
    EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), t, 128), 0x5800);
  row[0] = 0x5400;  // 64
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::sequential, 128), 0x6C1C);
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::even_odd_quads, 128), 0x6C1F);
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::planes, 128), 0x6C1F);
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::pairwise, 128), 0x6C1F);
  EXPECT_THROW(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::pairwise, 48), std::invalid_argument);
}

// dec1's RMS sums at C = 64 (the reading dec1-sum-trees): 8 squares per lane and row half. A row of
// ones but channel 0 = 64 (square 4096, where the f16 spacing is 4): worked by hand,
//   sequential: lane 0's low half 4096 + 1 + ... = 4096 (each +1 rounds away); the other lanes'
//     low halves and every high half hold 8; the fold (4096 + 8) + (8 + 8) = 4120, high halves 32,
//     4120 + 32 = 4152 = 0x6C0E;
//   even_odd_quads: even (4096 + 1) -> 4096, + (1 + 1) = 4098 -> 4096 (tie to even); odd 4; 4100;
//     fold 4100 + 8 + 16 = 4124, + 32 = 4156 = 0x6C0F; planes is the same tree; pairwise
//     ((4097 -> 4096) + 2 -> 4096, + (2 + 2) = 4100) gives 4156 too.
// A row of 64 ones sums to 64 = 0x5400 in every tree.
TEST(LayerGolden, Dec1SumTreesOf8TermsWorkedByHand) {
  using rrswin::SumTree;
  std::vector<rrswin::f16_t> row(64, 0x3C00);
  for (SumTree t : {SumTree::sequential, SumTree::even_odd_quads, SumTree::planes, SumTree::pairwise})
    EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), t, 64), 0x5400);
  row[0] = 0x5400;  // 64
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::sequential, 64), 0x6C0E);
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::even_odd_quads, 64), 0x6C0F);
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::planes, 64), 0x6C0F);
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::pairwise, 64), 0x6C0F);
}

// The 4-term sums at C = 32 (enc0, dec0): HIP-e0's verified (n0 + n2) + (n1 + n3) is even_odd_quads'
// and planes' 4-term instance. Lane 0's low half holds the squares of columns 0, 8, 16, 24 (n-tiles
// 0..3); with 64, 1.5, 1.5, 1.5 there (squares 4096, 2.25, 2.25, 2.25; f16 spacing 4 above 4096) and
// 0 elsewhere, worked by hand:
//   sequential ((4096 + 2.25) + 2.25) + 2.25: 4098.25 -> 4100, 4102.25 -> 4104, 4106.25 -> 4108 = 0x6C03;
//   (x0 + x2) + (x1 + x3): 4098.25 -> 4100, 4.5, 4104.5 -> 4104 = 0x6C02; pairwise (x0 + x1) + (x2 + x3)
//   the same 4104. The fold adds zeros. A row of 32 ones sums to 32 = 0x5000 in every tree.
TEST(LayerGolden, C32SumTreesOf4TermsWorkedByHand) {
  using rrswin::SumTree;
  std::vector<rrswin::f16_t> row(32, 0x3C00);
  for (SumTree t : {SumTree::sequential, SumTree::even_odd_quads, SumTree::planes, SumTree::pairwise})
    EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), t, 32), 0x5000);
  std::fill(row.begin(), row.end(), rrswin::f16_t{0});
  row[0] = 0x5400;                                     // 64
  row[8] = row[16] = row[24] = rrswin::f16_t{0x3E00};  // 1.5
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::sequential, 32), 0x6C03);
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::even_odd_quads, 32), 0x6C02);
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::planes, 32), 0x6C02);
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::pairwise, 32), 0x6C02);
}

// enc2's RMS sums at C = 96 (the reading enc2-sum-trees): 12 squares per lane and row half. A row of
// ones but channel 0 = 64 (square 4096, where the f16 spacing is 4): worked by hand,
//   sequential: lane 0's low half 4096 + 1 + ... = 4096 (each +1 rounds away); the other lanes'
//     low halves and every high half hold 12; the fold (4096 + 12) + (12 + 12) = 4132, high halves
//     48, 4132 + 48 = 4180 = 0x6C15;
//   even_odd_quads: even ((4096+1)+(1+1)) = 4098 -> 4096 (tie to even), + (1+1) = 4098 -> 4096;
//     odd 4 + 2 = 6; 4096 + 6 = 4102 -> 4104 (tie to even); fold 4104 + 12 + 24 = 4140, + 48 = 4188
//     = 0x6C17; planes is the same tree; pairwise (4097 -> 4096, 2, 2, 2, 2, 2 -> 4098 -> 4096, 4,
//     4 -> 4100, 4 -> 4104) gives 4188 too.
// A row of 96 ones sums to 96 = 0x5600 in every tree.
TEST(LayerGolden, Enc2SumTreesOf12TermsWorkedByHand) {
  using rrswin::SumTree;
  std::vector<rrswin::f16_t> row(96, 0x3C00);
  for (SumTree t : {SumTree::sequential, SumTree::even_odd_quads, SumTree::planes, SumTree::pairwise})
    EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), t, 96), 0x5600);
  row[0] = 0x5400;  // 64
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::sequential, 96), 0x6C15);
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::even_odd_quads, 96), 0x6C17);
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::planes, 96), 0x6C17);
  EXPECT_EQ(rrswin::golden::rms_sum_of_squares(row.data(), SumTree::pairwise, 96), 0x6C17);
}

// enc4's arena (param+48) is enc5's for the same phase 1..60 weights: the image's first 428544 bytes
// are the same regions in both layers (LayerTemplate tests), so an enc5 image stitched from them
// (and any W61/b61) run by enc5's own frame driver must write the same arena, byte for byte.
TEST(LayerGolden, Enc4ArenaIsEnc5sForTheSamePhases1To60) {
  const rrswin::WeightImage& w4 = rrswin::default_layer_weights(LayerId::enc4);
  std::vector<std::uint8_t> b5(rrswin::default_weights().bytes().begin(), rrswin::default_weights().bytes().end());
  std::copy(w4.bytes().begin(), w4.bytes().begin() + 428544, b5.begin());
  const rrswin::WeightImage w5(std::move(b5), "stitched");
  const rrswin::SyntheticFrame in = rrswin::make_synthetic_frame(16, 8, 5, false);

  rrswin::LayerFrame f;
  f.ex = 16;
  f.ey = 8;
  f.input_arena = in.input_arena;
  f.weights = &w4;
  rrswin::run_layer_frame_golden(f, rrswin::profile_ada(), rrswin::Readings{}, rrswin::LayerReadings{});

  std::vector<std::uint8_t> arena5(f.output_arena.size(), 0);
  rrswin::Surface surface = rrswin::Surface::make(16, 8);
  rrswin::LaunchParams p = rrswin::frame_launch(16, 8, in.input_arena, w5, arena5, in.texture, surface);
  rrswin::RunOptions o;
  o.engine = rrswin::Engine::fast;  // bit-identical to golden (engine_diff_test)
  rrswin::run_frame(p, o);
  EXPECT_TRUE(f.output_arena == arena5);
  EXPECT_EQ(f.merged_output.size(), 5u * 4 * 8 * 32);
}

TEST(LayerGolden, LayerReadingsParse) {
  rrswin::LayerReadings lr;
  std::string err;
  EXPECT_TRUE(rrswin::set_layer_reading(lr, "merge-gather-order=raster", &err));
  EXPECT_EQ(lr.merge_gather_order, rrswin::MergeGatherOrder::raster);
  EXPECT_TRUE(rrswin::set_layer_reading(lr, "merge-output-layout=token-words", &err));
  EXPECT_FALSE(rrswin::set_layer_reading(lr, "merge-output-layout=bogus", &err));
  EXPECT_NE(err.find("bogus"), std::string::npos);
  EXPECT_FALSE(rrswin::set_layer_reading(lr, "nope=1", &err));
  // merge-gather-order, merge-register-k-order, merge-output-layout, sigmoid-* (6), expand-* (4), decoder-* (2),
  // dec0-output-columns
  EXPECT_EQ(rrswin::layer_reading_registry().size(), 16u);
  // The register merge's K order: a reading of the register-lane merges alone (enc0, enc1).
  EXPECT_TRUE(rrswin::set_layer_reading(lr, "merge-register-k-order=swin-plane", &err)) << err;
  EXPECT_EQ(lr.merge_register_k, rrswin::MergeRegisterK::swin_plane);
  EXPECT_EQ(rrswin::reading_layers("merge-register-k-order"), (std::vector<LayerId>{LayerId::enc0, LayerId::enc1}));
  EXPECT_EQ(rrswin::reading_layers("merge-gather-order"), (std::vector<LayerId>{LayerId::enc2, LayerId::enc3, LayerId::enc4}));
  // enc1's E32 gathers its logits from registers: no shared records, so no record guard.
  const std::vector<LayerId> guard = rrswin::reading_layers("filter-record-guard");
  EXPECT_EQ(std::count(guard.begin(), guard.end(), LayerId::enc1), 0);
  EXPECT_EQ(std::count(guard.begin(), guard.end(), LayerId::enc2), 1);
  // The column split: a reading of the decoders whose warps expand more than one sub-pixel (dec1: two,
  // dec0: four in its one warp).
  EXPECT_TRUE(rrswin::set_layer_reading(lr, "expand-column-split=interleaved", &err)) << err;
  EXPECT_EQ(lr.decoder_front.column_split, rrswin::ExpandColumnSplit::interleaved);
  EXPECT_EQ(rrswin::reading_layers("expand-column-split"), (std::vector<LayerId>{LayerId::dec1, LayerId::dec0}));
  const std::vector<LayerId> subpixel = rrswin::reading_layers("expand-subpixel");
  EXPECT_EQ(subpixel, (std::vector<LayerId>{LayerId::dec4, LayerId::dec3, LayerId::dec2, LayerId::dec1, LayerId::dec0}));
  // dec0's E19 column map: dec0's alone.
  EXPECT_TRUE(rrswin::set_layer_reading(lr, "dec0-output-columns=contiguous", &err)) << err;
  EXPECT_EQ(lr.decoder_final.dec0_columns, rrswin::golden::Dec0Columns::contiguous);
  EXPECT_EQ(rrswin::reading_layers("dec0-output-columns"), std::vector<LayerId>{LayerId::dec0});
}

// The layer readings' old names (e62-*) and merge-output-layout's old value e60-words are aliases
// (issue 32: names by role).
TEST(LayerGolden, LayerReadingsOldNamesAreAliases) {
  std::string err;
  rrswin::LayerReadings lr;
  EXPECT_TRUE(rrswin::set_layer_reading(lr, "e62-gate=acc", &err)) << err;
  EXPECT_EQ(lr.e62_gate, rrswin::E62Gate::acc);
  EXPECT_TRUE(rrswin::set_layer_reading(lr, "e62-alpha=zero", &err)) << err;
  EXPECT_EQ(lr.e62_alpha, rrswin::E62Alpha::zero);
  EXPECT_TRUE(rrswin::set_layer_reading(lr, "e62-quad-writer=odd", &err)) << err;
  EXPECT_EQ(lr.e62_quad_writer, rrswin::E62QuadWriter::odd);
  EXPECT_TRUE(rrswin::set_layer_reading(lr, "merge-output-layout=token-words", &err)) << err;
  EXPECT_TRUE(rrswin::set_layer_reading(lr, "merge-output-layout=e60-words", &err)) << err;
  EXPECT_EQ(lr.merge_output_layout, rrswin::MergeOutputLayout::e60_words);
  EXPECT_EQ(rrswin::reading_layers("e62-gate"), rrswin::reading_layers("sigmoid-gate"));
  EXPECT_FALSE(rrswin::reading_layers("sigmoid-gate").empty());
  EXPECT_EQ(rrswin::reading_layers("e61-border"), rrswin::reading_layers("filter-border"));
  for (const auto& info : rrswin::layer_reading_registry()) EXPECT_NE(info.name.rfind("e62-", 0), 0u) << info.name;
}

}  // namespace
