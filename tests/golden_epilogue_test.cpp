// The epilogues against values computed by hand from the spec's formulas (facts C4, C8, C10,
// C14). Every expected value below was derived with exact rational arithmetic and
// round-to-nearest-even to binary16 (the derivation is in each comment), not by the model.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "api/frame.hpp"
#include "layout/tables.hpp"
#include "model/layer.hpp"
#include "model/weight_image.hpp"

namespace rrswin::golden {
namespace {

// ---- E11 (facts C4 steps 1..5) ----
TEST(GoldenE11, ExponentAtChosenScores) {
  // score 0: m = 0, tt = 0.92724609375, u = f16(0*tt + 1.375) = 1.375 = 0x3D80; mantissa 0x180,
  // (0x180 << 5) = 0x3000 = 0.125.
  EXPECT_EQ(e11_expval(0x0000), 0x3000);
  // score 100 (0x5640): m = f16(100 * 0.017181396484375) = 1.7177734375 -> clamped to
  // 0.55615234375; tt = f16(0.92724609375 - 0.55615234375^2) = f16(0.61794066...) = 0.6181640625;
  // u = f16(0.55615234375*0.6181640625 + 1.375) = f16(1.71879...) = 1.71875 = 0x3EE0; mantissa
  // 0x2E0 << 5 = 0x5C00 = 256.
  LayerStats st;
  EXPECT_EQ(e11_expval(0x5640, &st), 0x5C00);
  EXPECT_EQ(st.e11_clamp_high, 1u);
  // score -100: m clamps to -0.55615234375; u = f16(1.375 - 0.34379...) = 1.03125 = 0x3C20;
  // 0x020 << 5 = 0x0400 = 2^-14.
  EXPECT_EQ(e11_expval(0xD640, &st), 0x0400);
  EXPECT_EQ(st.e11_clamp_low, 1u);
  // score 10 (0x4900): m = f16(0.17181396484375) = 0.1717529296875 (no clamp); the cubic gives
  // u with mantissa 0x1DE -> 0x43C0. score -10: 0x1C40. score 30 (0x4F80, m = 0.5154 < 0.5562):
  // 0x5BA0.
  EXPECT_EQ(e11_expval(0x4900), 0x43C0);
  EXPECT_EQ(e11_expval(0xC900), 0x1C40);
  EXPECT_EQ(e11_expval(0x4F80, &st), 0x5BA0);
  EXPECT_EQ(st.e11_clamp_high + st.e11_clamp_low, 2u);
}

TEST(GoldenE11, RowSumReciprocalProbabilities) {
  // 96 exponents of 0.125: every partial sum is exact (lane: 12 terms per half -> 1.5 each half;
  // butterflies 3, 6; lo + hi = 12 = 0x4A00). rcp(12) = f16(0.0833..) = 1365 * 2^-14 = 0x2D55;
  // p = f16(0.125 * 0x2D55) = 0x2155 (exact scaling).
  std::array<f16_t, 96> e;
  e.fill(0x3000);
  const E11Row r = e11_row(e);
  EXPECT_EQ(r.sum, 0x4A00);
  EXPECT_EQ(r.rcp, 0x2D55);
  for (f16_t p : r.p) EXPECT_EQ(p, 0x2155);
  // One 256 among 0.125s, in column 0 = lane t = 0, n-tile 0, low half. The exact sum is
  // 256 + 95/8 = 267.875; the f16 tree (facts C4 steps 6..8, f16 RNE at every node) loses 1/8,
  // derived by hand (ulp 0.25 in [256, 512)):
  //   lane 0 low half, even n-tiles: 256 + 0.125 = 256.125 is a tie -> 256 (even mantissa);
  //     (0.125 + 0.125) = 0.25; 256 + 0.25 = 256.25; + (0.125 + 0.125) = 256.5 (exact);
  //     odd n-tiles: 6 x 0.125 = 0.75 exact; even + odd = 257.25.
  //   every other lane half: 12 x 0.125 = 1.5 exact.
  //   butterfly xor 1: low 257.25 + 1.5 = 258.75, high 3; xor 2: low 258.75 + 3 = 261.75, high 6;
  //   low + high = 267.75 = 0x5C2F (1 + 47/1024) 2^8.
  // rcp: 1/267.75 = 0.00373482..., in [2^-9, 2^-8) with ulp 2^-19: 1.91223 x 2^-9, mantissa
  // 934.125 -> 934: 0x1800 + 0x3A6 = 0x1BA6 (far from a tie, so any f32 rcp within an f32 ulp
  // gives it). p = f16(e * rcp) scales by a power of two: 256 -> 0x3BA6, 0.125 -> 0x0FA6.
  e[0] = 0x5C00;
  const E11Row r2 = e11_row(e);
  EXPECT_EQ(r2.sum, 0x5C2F);
  EXPECT_EQ(r2.rcp, 0x1BA6);
  EXPECT_EQ(r2.p[0], 0x3BA6);
  for (int c = 1; c < 96; ++c) EXPECT_EQ(r2.p[c], 0x0FA6) << "column " << c;
}

// ---- E21 (facts C10) ----
TEST(GoldenE21, ActivationAtChosenPoints) {
  // y0 = 2: s = 0.162109375, d = 0.25, h = 0.5, gate = 1 -> 2.
  EXPECT_EQ(activation(0x4000), 0x4000);
  // y0 = -2: h = -0.5, gate = 0 -> -2 * 0 = -0.
  EXPECT_EQ(activation(0xC000), 0x8000);
  // Beyond the clamp: y = +-2, gate 1 / 0 -> y0 / -0.
  LayerStats st;
  EXPECT_EQ(activation(0x4200, &st), 0x4200);
  EXPECT_EQ(activation(0xC200, &st), 0x8000);
  EXPECT_EQ(st.act_clamp_high, 1u);
  EXPECT_EQ(st.act_clamp_low, 1u);
  // y0 = 1: s = 0.0810546875, d = 0.3310546875, h = d, gate = 0.8310546875 = 0x3AA6 -> out.
  EXPECT_EQ(activation(0x3C00), 0x3AA6);
  // y0 = 0.5: s = f16(0.04052734375) exact, d = 0.37158203125, h = 0.185791015625, gate =
  // f16(0.685791015625) = 0.685546875 (ulp 2^-11), out = 0.3427734375 = 351/1024 = 0x357C.
  EXPECT_EQ(activation(0x3800), 0x357C);
  // y0 = -1: gate = 0.5 - 0.3310546875 = 0.1689453125 -> out -173/1024 = 0xB168 (signed y).
  EXPECT_EQ(activation(0xBC00), 0xB168);
  // y0 = -1.5 -> -789/8192 = 0xAE2A; y0 = 1.75 -> 1743/1024 = 0x3ECF.
  EXPECT_EQ(activation(0xBE00), 0xAE2A);
  EXPECT_EQ(activation(0x3F00), 0x3ECF);
}

// ---- RMS norm pieces (facts C8, B4) ----
TEST(GoldenRmsNorm, SumOfSquaresTreesAndInverse) {
  std::array<f16_t, kChannels> ones;
  ones.fill(0x3C00);
  // 160 ones: every tree is exact: 20 per lane half, butterflies 40, 80, lo + hi = 160 = 0x5900.
  for (SumTree t : {SumTree::even_odd_quads, SumTree::planes, SumTree::sequential, SumTree::pairwise})
    EXPECT_EQ(rms_sum_of_squares(ones.data(), t), 0x5900);
  // inv = f16(rsqrt(f16(160 + 2^-13) = 160)) = f16(0.0790569..) = 1295 * 2^-14 = 0x2D0F.
  EXPECT_EQ(rms_inverse(0x5900, 0x0800), 0x2D0F);
  // A tree-sensitive row: column 0 = 8 (square 64, ulp 1/16 there), all others 0.125 (square
  // 1/64). Lane 0's low half sees 64 then 19 x 1/64: sequentially every add rounds back to 64;
  // the even/odd quads tree first pairs the small terms. Exact derivation (f16 RNE each add):
  // sequential -> total 1059/16 = 0x5423, even-odd-quads / planes / pairwise -> 1063/16 = 0x5427.
  std::array<f16_t, kChannels> row;
  row.fill(0x3000);
  row[0] = 0x4800;
  EXPECT_EQ(rms_sum_of_squares(row.data(), SumTree::sequential), 0x5423);
  EXPECT_EQ(rms_sum_of_squares(row.data(), SumTree::even_odd_quads), 0x5427);
  EXPECT_EQ(rms_sum_of_squares(row.data(), SumTree::planes), 0x5427);
  EXPECT_EQ(rms_sum_of_squares(row.data(), SumTree::pairwise), 0x5427);
}

WeightImage image_with_f16(const std::vector<std::pair<std::uint32_t, f16_t>>& values) {
  std::vector<std::uint8_t> b(kWeightImageBytes, 0);
  for (auto [off, v] : values) {
    b[off] = static_cast<std::uint8_t>(v & 0xFF);
    b[off + 1] = static_cast<std::uint8_t>(v >> 8);
  }
  return WeightImage(std::move(b));
}

TEST(GoldenE20, ConstructedRow) {
  // g2 = 1 everywhere except column 5 (2.0) and column 9 (0.5), at table + 2*col (facts E3).
  std::vector<std::pair<std::uint32_t, f16_t>> g2;
  for (int c = 0; c < kChannels; ++c) g2.push_back({wmap::g2 + 2u * c, c == 5 ? f16_t{0x4000} : c == 9 ? f16_t{0x3800} : f16_t{0x3C00}});
  const WeightImage w = image_with_f16(g2);
  const Readings rd;
  BlockContext ctx;
  ctx.profile = &profile_ada();
  ctx.readings = &rd;
  ctx.weights = &w;
  F16Mat d20(1, kChannels, 0x3C00);
  const E20Out n = e20_norm(ctx, d20);
  EXPECT_EQ(n.sum[0], 0x5900);
  EXPECT_EQ(n.inv[0], 0x2D0F);
  // N = f16(1 * f16(inv * g2)): 0x2D0F, 2*inv = 0x310F, inv/2 = 0x290F.
  for (int c = 0; c < kChannels; ++c) EXPECT_EQ(n.n.at(0, c), c == 5 ? 0x310F : c == 9 ? 0x290F : 0x2D0F) << c;
}

// ---- E61 (facts C14) ----
Texture numbered_texture(int w, int h) {
  // ch0 = 1 + x + w*y (distinct small integers), ch1 = 1, ch2 = 0, ch3 = 0x3C00.
  Texture t;
  t.width = w;
  t.height = h;
  t.rgba.resize(static_cast<std::size_t>(w) * h * 4);
  auto f16_of_int = [](int v) {  // exact for 1..2048
    int e = 0;
    while ((v >> e) > 1) ++e;
    return static_cast<f16_t>(((e + 15) << 10) | (((v << 10) >> e) & 0x3FF));
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      f16_t* p = &t.rgba[(static_cast<std::size_t>(y) * w + x) * 4];
      p[0] = f16_of_int(1 + x + w * y);
      p[1] = 0x3C00;
      p[2] = 0;
      p[3] = 0x3C00;
    }
  return t;
}

TEST(GoldenE61, EqualLogitsWeightsAndGather) {
  // Logits all 0: d = 0, e = ex2(0) = 1, sum = 10, rinv = f32(1/10) = 0x3DCCCCCD, w =
  // f16(1 * f16(0.1)) = 0x2E66. A 3x3 texture, pixel (1,1), tap i = texel (i%3, i/3), ch0 = i+1.
  // ch0: lo = fma chain over taps 0,2,4,6 and hi over 1,3,5,7 from 0, s = lo + hi, out =
  // fma(9, w, s) -> 1151/256 = 0x447F; ch1 (all ones) -> 1843/2048 = 0x3B33; ch2 = 0; ch3 = 0.
  const Texture tex = numbered_texture(3, 3);
  Readings rd;
  std::array<f16_t, 10> l{};
  E61Pixel px = e61_pixel(rd, l, tex, 1, 1, 3, 3);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(px.w[i], 0x2E66);
  EXPECT_EQ(px.out[0], 0x447F);
  EXPECT_EQ(px.out[1], 0x3B33);
  EXPECT_EQ(px.out[2], 0x0000);
  EXPECT_EQ(px.out[3], 0x0000);
  // first-single pairing: scalar tap 0 last, pairs (1,2)..(7,8): ch0 -> 9/2 = 0x4480.
  rd.e61_pairing = E61Pairing::first_single;
  px = e61_pixel(rd, l, tex, 1, 1, 3, 3);
  EXPECT_EQ(px.out[0], 0x4480);
  EXPECT_EQ(px.out[1], 0x3B33);
  // Softmax over 9 logits: rinv = f32(1/9) = 0x3DE38E39, w = f16(1/9) = 0x2F1C, ch0 -> 5, ch1 -> 1.
  rd = Readings{};
  rd.e61_logits = E61Logits::nine;
  px = e61_pixel(rd, l, tex, 1, 1, 3, 3);
  EXPECT_EQ(px.w[0], 0x2F1C);
  EXPECT_EQ(px.out[0], 0x4500);
  EXPECT_EQ(px.out[1], 0x3C00);
}

// One-hot logits: logit k = 0, the others -60000: e_k = 1, the rest ex2(-86561) = 0 (ftz), so
// w_k = 1 and out = tap k's texel exactly (fma with 0 adds nothing): the tap map made visible.
std::array<f16_t, 10> one_hot(int k) {
  std::array<f16_t, 10> l;
  l.fill(0xFB53);  // -60000 (1875 * 32)
  l[k] = 0;
  return l;
}

f16_t texel0(const Texture& t, int x, int y) { return t.rgba[(static_cast<std::size_t>(y) * t.width + x) * 4]; }

// filter-logits = max-nine: the maximum of logits 0..8 (the nine values "3 max.f16x2 + 2 max.f16"
// reduce), all ten exponentials summed. Logits 0..8 = 0, l9 = 10, worked by hand (f32 arithmetic
// rounded once per operation; ex2 and div correctly rounded, the approx-model):
//   ten:      max 10, d_i = -10, e_i = ex2(f32(-10 * 0x3FB8AA3B)) = 4.5399e-5, e9 = 1; sum = 1.0004086,
//             rinv = 0.9995915 -> f16 0x3BFF; w_i = f16(f16(e_i) * 0x3BFF) = f16(0x02FA * 0.99951) = 0x02FA;
//   max-nine: max 0, e_i = 1, e9 = ex2(10 log2 e) = 22026.47; sum = 22035.467, rinv = 4.5381e-5 ->
//             f16 0x02F9 (761 x 2^-24); w_i = f16(1 * 0x02F9) = 0x02F9: one subnormal ulp lower;
//   nine:     logits 0..8 alone, all 0: w_i = f16(1/9) = 0x2F1C.
// With l9 <= max(l0..l8) the maximum is the same and max-nine's weights are ten's.
TEST(GoldenE61, MaxOverNineLogitsSumOverTen) {
  const Texture tex = numbered_texture(3, 3);
  std::array<f16_t, 10> l{};
  l[9] = 0x4900;  // 10
  Readings rd;
  EXPECT_EQ(e61_pixel(rd, l, tex, 1, 1, 3, 3).w[0], 0x02FA);
  rd.e61_logits = E61Logits::max_nine;
  EXPECT_EQ(e61_pixel(rd, l, tex, 1, 1, 3, 3).w[0], 0x02F9);
  rd.e61_logits = E61Logits::nine;
  EXPECT_EQ(e61_pixel(rd, l, tex, 1, 1, 3, 3).w[0], 0x2F1C);
  // l9 not above the others: max-nine = ten, weight for weight and output for output.
  l[9] = 0xC900;  // -10
  l[4] = 0x4000;  // 2
  Readings ten, max_nine;
  max_nine.e61_logits = E61Logits::max_nine;
  const E61Pixel a = e61_pixel(ten, l, tex, 1, 1, 3, 3), b = e61_pixel(max_nine, l, tex, 1, 1, 3, 3);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a.w[i], b.w[i]) << i;
  for (int c = 0; c < 4; ++c) EXPECT_EQ(a.out[c], b.out[c]) << c;
}

TEST(GoldenE61, TapMapInTheInterior) {
  const Texture tex = numbered_texture(5, 4);
  for (int k = 0; k < 9; ++k) {
    Readings rd;
    E61Pixel px = e61_pixel(rd, one_hot(k), tex, 2, 1, 5, 4);
    EXPECT_EQ(px.w[k], 0x3C00);
    EXPECT_EQ(px.out[0], texel0(tex, 2 + k % 3 - 1, 1 + k / 3 - 1)) << "raster tap " << k;
    rd.e61_tap_map = E61TapMap::column_major;
    px = e61_pixel(rd, one_hot(k), tex, 2, 1, 5, 4);
    EXPECT_EQ(px.out[0], texel0(tex, 2 + k / 3 - 1, 1 + k % 3 - 1)) << "column-major tap " << k;
  }
  // The 10th logit multiplies nothing: all weight on it fades the pixel to 0.
  const E61Pixel px = e61_pixel(Readings{}, one_hot(9), tex, 2, 1, 5, 4);
  EXPECT_EQ(px.out[0], 0x0000);
  EXPECT_EQ(px.out[1], 0x0000);
}

TEST(GoldenE61, BorderRules) {
  const int ex = 5, ey = 4;
  const Texture tex = numbered_texture(ex, ey);
  struct Rule {
    E61Border b;
    int lo_minus, hi_plus;
    bool moves_centre;
  };
  // Coordinate of the tap left of X = 0 and right of X = ex-1 (likewise for y):
  //  reflect101: -1 -> 1, ex -> ex-2; sentinel1: -1 -> 1, ex -> 1; clamp: into [1, ex-2], which
  //  also moves the centre tap of X = 0 to 1 and of X = ex-1 to ex-2.
  for (const Rule r :
       {Rule{E61Border::reflect101, 1, -2, false}, Rule{E61Border::sentinel1, 1, 1 << 20, false}, Rule{E61Border::clamp, 1, -2, true}}) {
    Readings rd;
    rd.e61_border = r.b;
    auto fix_hi = [&](int n) { return r.hi_plus == (1 << 20) ? 1 : n + r.hi_plus; };
    // Top-left corner (0, 0): tap 0 = (-1, -1) -> (1, 1) under all three rules.
    EXPECT_EQ(e61_pixel(rd, one_hot(0), tex, 0, 0, ex, ey).out[0], texel0(tex, 1, 1));
    // Centre tap of the corner: (0, 0), or (1, 1) under clamp.
    EXPECT_EQ(e61_pixel(rd, one_hot(4), tex, 0, 0, ex, ey).out[0], r.moves_centre ? texel0(tex, 1, 1) : texel0(tex, 0, 0));
    // Bottom-right corner (ex-1, ey-1): tap 8 = (ex, ey).
    EXPECT_EQ(e61_pixel(rd, one_hot(8), tex, ex - 1, ey - 1, ex, ey).out[0], texel0(tex, fix_hi(ex), fix_hi(ey)));
    EXPECT_EQ(e61_pixel(rd, one_hot(4), tex, ex - 1, ey - 1, ex, ey).out[0],
              r.moves_centre ? texel0(tex, ex - 2, ey - 2) : texel0(tex, ex - 1, ey - 1));
    // Interior pixel (2, 1): unaffected by the rule except clamp's inner taps... (2,1)'s taps are
    // x 1..3, y 0..2: clamp moves y = 0 to 1.
    EXPECT_EQ(e61_pixel(rd, one_hot(1), tex, 2, 1, ex, ey).out[0], texel0(tex, 2, r.moves_centre ? 1 : 0));
  }
}

}  // namespace
}  // namespace rrswin::golden
