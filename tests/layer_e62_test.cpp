// enc4's final epilogue E62 (model/kpn_sigmoid.cpp; docs/readings.md §7 "sigmoid-*"). What is checked
// against something the code under test does not compute:
//   * the sigmoid against binary64 1/(1 + e^-v) over every finite f16 (within one f16 ulp), and
//     its exact points (0 -> 0.5, +20 -> 1, -20 -> 0);
//   * one block's dataflow with logits chosen so that every value is exact and worked out by hand
//     here (a one-hot softmax on a constant texture: acc = the texel), for the default readings
//     and each alternative of sigmoid-difference, sigmoid-quad-value, sigmoid-alpha, sigmoid-inactive-lane;
//   * a whole enc4 frame whose gate is forced to 0 (logit 10's weights 0, bias -65504): surface
//     +112's colour is then enc5's E61 surface for the same phase 1..60 weights and final-phase
//     weights (enc5's own frame driver), +120's colour is 0, and +128 is the f16 quad sum of
//     0.25 * enc5's surface, summed here in the shfl order ((a + right) + (below + below-right)).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "layout/tables.hpp"
#include "layout/weight_tile.hpp"
#include "model/constants.hpp"
#include "model/layer_golden.hpp"
#include "model/layer_spec.hpp"
#include "numerics/f16.hpp"
#include "numerics/profile.hpp"

namespace {

using rrswin::f16_t;
using rrswin::LayerId;

TEST(LayerE62, SigmoidIsWithinOneUlpOfBinary64EverywhereAndExactAtItsFixedPoints) {
  EXPECT_EQ(rrswin::golden::e62_sigmoid(0x0000), 0x3800);  // 0.5
  EXPECT_EQ(rrswin::golden::e62_sigmoid(0x4D00), 0x3C00);  // sigmoid(20) = 1 - 2e-9 -> 1
  EXPECT_EQ(rrswin::golden::e62_sigmoid(0xCD00), 0x0000);  // sigmoid(-20) = 2e-9 -> 0 (below the subnormals)
  int checked = 0;
  for (int b = 0; b < 0x10000; ++b) {
    const f16_t v = static_cast<f16_t>(b);
    if ((v & 0x7C00) == 0x7C00) continue;  // inf / NaN
    const double want = 1.0 / (1.0 + std::exp(-rrswin::f16_to_f64(v)));
    const f16_t got = rrswin::golden::e62_sigmoid(v);
    const double g = rrswin::f16_to_f64(got);
    const double ulp = std::ldexp(1.0, std::max(-24, std::ilogb(want == 0 ? 1e-10 : want) - 10));
    ASSERT_LE(std::fabs(g - want), ulp) << "v = 0x" << std::hex << b;
    ++checked;
  }
  EXPECT_EQ(checked, 63488);
}

constexpr f16_t kMinus65504 = 0xFBFF, kZero = 0, kTwenty = 0x4D00, kMinusTwenty = 0xCD00;

struct Block {
  rrswin::Surface s112 = rrswin::Surface::make(8, 8), s120 = rrswin::Surface::make(8, 8), s128 = rrswin::Surface::make(4, 4);
};

f16_t texel(const rrswin::Surface& s, int x, int y, int ch) {
  const std::size_t at = static_cast<std::size_t>(y) * s.pitch + 8 * x + 2 * ch;
  return static_cast<f16_t>(s.bytes[at] | (s.bytes[at + 1] << 8));
}

// One 8x8 block at (x0, y0) of an 8 x 8 frame: logit 0 = 0, logits 1..9 = -65504 (softmax weight 1
// on tap 0's slot, 0 elsewhere), logit 10 = 0 (gate 0.5) for thread 9 = pixel (1, 1) and +20 (gate
// 1) for the others, logit 11 = -20 (second sigmoid 0); the texture is (1.5, -2, 0.25, 7)
// everywhere, so acc = (1.5, -2, 0.25) for every pixel whichever tap weight 0 multiplies.
Block run_block(const rrswin::LayerReadings& lr, int x0 = 0, int y0 = 0) {
  rrswin::golden::F16Mat d(64, 16);
  for (int r = 0; r < 64; ++r) {
    d.at(r, 0) = kZero;
    for (int n = 1; n < 10; ++n) d.at(r, n) = kMinus65504;
    d.at(r, 10) = r == 9 ? kZero : kTwenty;
    d.at(r, 11) = kMinusTwenty;
    for (int n = 12; n < 16; ++n) d.at(r, n) = 0x1234;  // unread
  }
  rrswin::Texture tex;
  tex.width = 8;
  tex.height = 8;
  for (int i = 0; i < 64; ++i)
    for (f16_t c : {f16_t{0x3E00}, f16_t{0xC000}, f16_t{0x3400}, f16_t{0x4700}}) tex.rgba.push_back(c);
  Block b;
  for (rrswin::Surface* s : {&b.s112, &b.s120, &b.s128}) std::fill(s->bytes.begin(), s->bytes.end(), 0xFF);  // unwritten = NaN
  rrswin::Readings r;
  rrswin::golden::BlockContext ctx;
  ctx.readings = &r;
  ctx.ex = 8;
  ctx.ey = 8;
  ctx.x0 = x0;
  ctx.y0 = y0;
  rrswin::golden::e62(ctx, lr, d, tex, {&b.s112, &b.s120, &b.s128});
  return b;
}

void expect_texel(const rrswin::Surface& s, int x, int y, std::array<f16_t, 4> want, const std::string& what) {
  for (int ch = 0; ch < 4; ++ch) EXPECT_EQ(texel(s, x, y, ch), want[ch]) << what << " (" << x << "," << y << ") channel " << ch;
}

TEST(LayerE62, DefaultReadingsOnAOneHotBlock) {
  const Block b = run_block(rrswin::LayerReadings{});
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) {
      const bool gated = x == 1 && y == 1;  // gate 0.5: prod = diff = acc / 2
      // +112 = acc - g acc (alpha: the second sigmoid, 0); +120 = g acc (alpha: the gate).
      expect_texel(b.s112, x, y, gated ? std::array<f16_t, 4>{0x3A00, 0xBC00, 0x3000, 0} : std::array<f16_t, 4>{0, 0, 0, 0}, "+112");
      expect_texel(b.s120, x, y,
                   gated ? std::array<f16_t, 4>{0x3A00, 0xBC00, 0x3000, 0x3800} : std::array<f16_t, 4>{0x3E00, 0xC000, 0x3400, 0x3C00},
                   "+120");
    }
  // +128: 0.25 * diff summed over each 2x2 quad: only quad (0,0) holds pixel (1,1):
  // (0.1875, -0.25, 0.03125, 0); the other 15 quads are written with 0.
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x)
      expect_texel(b.s128, x, y, x == 0 && y == 0 ? std::array<f16_t, 4>{0x3200, 0xB400, 0x2800, 0} : std::array<f16_t, 4>{0, 0, 0, 0},
                   "+128");
}

TEST(LayerE62, AlternativeReadingsChangeWhatTheyName) {
  rrswin::LayerReadings lr;
  lr.e62_difference = rrswin::E62Difference::sigmoid;  // diff = acc - g
  Block b = run_block(lr);
  expect_texel(b.s112, 1, 1, {0x3C00, 0xC100, 0xB400, 0}, "sigmoid: acc - 0.5");  // (1, -2.5, -0.25)
  expect_texel(b.s112, 0, 0, {0x3800, 0xC200, 0xBA00, 0}, "sigmoid: acc - 1");    // (0.5, -3, -0.75)

  lr = {};
  lr.e62_quad_value = rrswin::E62QuadValue::product;  // quad of 0.25 * g acc: 3 x 0.25c + 0.125c
  b = run_block(lr);
  expect_texel(b.s128, 0, 0, {0x3D40, 0xBF00, 0x3300, 0}, "product quad");  // (1.3125, -1.75, 0.21875)
  expect_texel(b.s128, 1, 0, {0x3E00, 0xC000, 0x3400, 0}, "product quad");  // 4 x 0.25c = c

  lr = {};
  lr.e62_alpha = rrswin::E62Alpha::zero;
  b = run_block(lr);
  expect_texel(b.s120, 1, 1, {0x3A00, 0xBC00, 0x3000, 0}, "alpha zero");

  lr = {};
  lr.e62_gate = rrswin::E62Gate::logit11;  // g = sigmoid(-20) = 0 everywhere: +112 = acc, +120 = 0
  b = run_block(lr);
  expect_texel(b.s112, 3, 5, {0x3E00, 0xC000, 0x3400, 0x3C00}, "gate logit11 (alpha: sigmoid(logit 10) = 1)");
  expect_texel(b.s120, 3, 5, {0, 0x8000, 0, 0}, "gate logit11");  // 0 * -2 = -0

  // Origin x0 = -1: local column 0 is out of frame (it skips E62). Pixel (6, 0) is local column 7,
  // whose shfl.down partner by 1 is the next row's column 0: an inactive lane. product quad value,
  // g = 1: zero gives 0.375 + 0.375 (its own and the row below) = 0.75, own gives 4 x 0.375 = 1.5.
  lr = {};
  lr.e62_quad_value = rrswin::E62QuadValue::product;
  b = run_block(lr, -1, 0);
  EXPECT_EQ(texel(b.s128, 3, 0, 0), 0x3A00);
  lr.e62_inactive_lane = rrswin::E62InactiveLane::own;
  b = run_block(lr, -1, 0);
  EXPECT_EQ(texel(b.s128, 3, 0, 0), 0x3E00);
}

TEST(LayerE62, ReadingsParseAndAreRegistered) {
  rrswin::LayerReadings lr;
  std::string err;
  for (const char* a : {"sigmoid-gate=acc", "sigmoid-difference=sigmoid", "sigmoid-quad-value=product", "sigmoid-quad-writer=odd",
                        "sigmoid-inactive-lane=own", "sigmoid-alpha=zero"})
    EXPECT_TRUE(rrswin::set_layer_reading(lr, a, &err)) << a << ": " << err;
  EXPECT_EQ(lr.e62_gate, rrswin::E62Gate::acc);
  EXPECT_EQ(lr.e62_quad_writer, rrswin::E62QuadWriter::odd);
  EXPECT_FALSE(rrswin::set_layer_reading(lr, "sigmoid-gate=logit12", &err));
  EXPECT_NE(err.find("logit10, logit11, acc, logit9"), std::string::npos) << err;
  // Every registered reading's every value is accepted, and the first is the struct's default.
  for (const rrswin::LayerReadingInfo& info : rrswin::layer_reading_registry())
    for (const std::string& v : info.values) EXPECT_TRUE(rrswin::set_layer_reading(lr, info.name + "=" + v, &err)) << err;
  EXPECT_EQ(rrswin::layer_reading_registry().size(), 16u);  // merge-* (3), sigmoid-* (6), expand-* (4), decoder-* (2), dec0-* (1)
}

// The gate forced to 0 over a whole frame: E62's core is enc5's E61.
TEST(LayerE62, WithTheGateAtZeroSurface112IsEnc5sSurface) {
  const int ex = 16, ey = 8;
  const rrswin::LayerSpec& s4 = rrswin::layer_spec(LayerId::enc4);
  const rrswin::WeightMap m4 = rrswin::weight_map(s4);
  std::vector<std::uint8_t> b4(rrswin::default_layer_weights(LayerId::enc4).bytes().begin(),
                               rrswin::default_layer_weights(LayerId::enc4).bytes().end());
  // Column 10 of phase 62: B bytes 0 (n-tile 1's column 2: waddr(k, 10) for every k of every
  // k-step), bias -65504 (record 1 = columns 8..15: its u32 at + 16 + 4t holds columns 8+2t, 9+2t).
  for (int step = 0; step < 5; ++step)
    for (int k = 0; k < 32; ++k) b4.at(m4.final_weights() + 512u * step + rrswin::layout::waddr_in_tile(k, 10)) = 0;
  const std::uint32_t bias10 = rrswin::layout::record_bias_offset(m4.final_bias(), 10);
  b4.at(bias10) = static_cast<std::uint8_t>(kMinus65504 & 0xFF);
  b4.at(bias10 + 1) = static_cast<std::uint8_t>(kMinus65504 >> 8);
  const rrswin::WeightImage w4(std::move(b4), LayerId::enc4, "gate0");

  // enc5's image: the same first 428544 bytes, then enc4's final-phase region at enc5's.
  const rrswin::WeightMap m5 = rrswin::weight_map(rrswin::layer_spec(LayerId::enc5));
  ASSERT_EQ(m5.final_weights(), 428544u);
  std::vector<std::uint8_t> b5(w4.bytes().begin(), w4.bytes().begin() + 428544);
  b5.insert(b5.end(), w4.bytes().begin() + m4.final_weights(), w4.bytes().end());
  ASSERT_EQ(b5.size(), m5.image_bytes());
  const rrswin::WeightImage w5(std::move(b5), "stitched");

  const rrswin::SyntheticFrame in = rrswin::make_synthetic_frame(ex, ey, 7, false);
  rrswin::LayerFrame f;
  f.ex = ex;
  f.ey = ey;
  f.input_arena = in.input_arena;
  f.weights = &w4;
  f.texture = &in.texture;
  rrswin::golden::LayerStats stats;
  rrswin::run_layer_frame_golden(f, rrswin::profile_ada(), rrswin::Readings{}, rrswin::LayerReadings{}, &stats);
  EXPECT_EQ(stats.pixels_written, static_cast<std::uint64_t>(ex * ey));

  std::vector<std::uint8_t> arena5(f.output_arena.size(), 0);
  rrswin::Surface surface = rrswin::Surface::make(ex, ey);
  rrswin::LaunchParams p =
      rrswin::frame_launch(static_cast<std::uint32_t>(ex), static_cast<std::uint32_t>(ey), in.input_arena, w5, arena5, in.texture, surface);
  rrswin::RunOptions o;
  o.engine = rrswin::Engine::golden;
  rrswin::run_frame(p, o);

  auto same = [](f16_t a, f16_t b) { return a == b || ((a | b) & 0x7FFF) == 0; };  // +-0: acc - (+-0)
  int compared = 0;
  for (int y = 0; y < ey; ++y)
    for (int x = 0; x < ex; ++x)
      for (int ch = 0; ch < 3; ++ch) {
        ASSERT_TRUE(same(texel(f.surface112, x, y, ch), texel(surface, x, y, ch))) << x << "," << y << " ch " << ch;
        ASSERT_EQ(texel(f.surface120, x, y, ch) & 0x7FFF, 0) << x << "," << y;
        ++compared;
      }
  EXPECT_EQ(compared, ex * ey * 3);
  for (int y = 0; y < ey / 2; ++y)
    for (int x = 0; x < ex / 2; ++x)
      for (int ch = 0; ch < 3; ++ch) {
        auto q = [&](int dx, int dy) { return rrswin::f16_mul(texel(surface, 2 * x + dx, 2 * y + dy, ch), 0x3400); };
        const f16_t want = rrswin::f16_add(rrswin::f16_add(q(0, 0), q(1, 0)), rrswin::f16_add(q(0, 1), q(1, 1)));
        ASSERT_TRUE(same(texel(f.surface128, x, y, ch), want)) << "+128 " << x << "," << y << " ch " << ch;
      }
}

}  // namespace
