// dec0's golden model (issue 35): what the network's last layer does differently from the other
// decoders, checked against what DOC-d0 states (and NVIDIA's libdevice for tanhf's polynomial),
// not against the model's own output (/work/decfacts/dec0.md cites each):
//   * the front: one warp expands all 4 sub-pixels x 32 channels (DOC-d0 §2.1 row 1: 48x128x64);
//   * no arena scatter and no final GEMM: E19 reads D19 (DOC-d0 §2.1, §4.2: the only global writes
//     are +48, +112 and +144);
//   * E19(c): 8 e4m3 bytes a pixel at byte 8 (ex y + x) of +48 (DOC-d0 §4.2, st.global.v4.u16);
//   * E19(d)/(e): CUDA's tanhf in f32 .ftz to +144 by sust.p at texel (x, y);
//   * E19(f)/(g): the decoder final's 9-logit softmax, taps and blend to +112 (dec4's E62 at a
//     statement offset of 5632, dec0.md §4.5).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "model/decoder_final.hpp"
#include "model/decoder_front.hpp"
#include "model/layer_golden.hpp"
#include "model/trace.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"
#include "numerics/profile.hpp"
#include "ptx/ptx.hpp"

namespace {

using rrswin::f16_t;
using rrswin::LayerId;
namespace golden = rrswin::golden;

// ---- E19(d): tanhf ----------------------------------------------------------------------------

// The literals DOC-d0 prints (s18512 0f4038AA3B, s18519 0f41102CB4, s18600 0f3F19999A) are
// 2 log2 e, 9.010913848876953 and 0.6 rounded to f32; libdevice's __nv_tanhf (CUDA 13.0) holds
// the polynomial 0x3C80F082 (0.015739683), 0xBD563CAE (-0.052303962), 0x3E085941 (0.13315298),
// 0xBEAAA9ED (-0.33332768) and 0.
TEST(Dec0Golden, TanhConstantsAreTheStatedLiterals) {
  EXPECT_EQ(golden::kDec0Tanh2Log2e, std::bit_cast<std::uint32_t>(static_cast<float>(2.0 / std::log(2.0))));
  EXPECT_EQ(golden::kDec0TanhSaturate, std::bit_cast<std::uint32_t>(9.010913848876953f));
  EXPECT_EQ(golden::kDec0TanhSmall, std::bit_cast<std::uint32_t>(0.6f));
  const double want[5] = {0.01573968306183815, -0.05230396240949631, 0.13315297663211823, -0.33332768082618713, 0.0};
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(static_cast<double>(std::bit_cast<float>(golden::kDec0TanhPoly[static_cast<std::size_t>(i)])), want[i]) << i;
  // The odd polynomial is tanh's Taylor series near 0: v - v^3/3 + 2 v^5/15 - 17 v^7/315 + ...
  EXPECT_NEAR(std::bit_cast<float>(golden::kDec0TanhPoly[3]), -1.0 / 3.0, 1e-4);
  EXPECT_NEAR(std::bit_cast<float>(golden::kDec0TanhPoly[2]), 2.0 / 15.0, 1e-3);
}

TEST(Dec0Golden, TanhValues) {
  // tanh(0) = 0 (fma(p, 0, 0) = +0) and -0 keeps its sign.
  EXPECT_EQ(std::bit_cast<std::uint32_t>(golden::dec0_tanh(0.0f)), 0u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(golden::dec0_tanh(-0.0f)), 0x80000000u);
  // |v| >= 9.010913848876953: exactly +-1 (the selp of 1.0, then the sign).
  EXPECT_EQ(golden::dec0_tanh(9.010913848876953f), 1.0f);
  EXPECT_EQ(golden::dec0_tanh(-9.010913848876953f), -1.0f);
  EXPECT_EQ(golden::dec0_tanh(60000.0f), 1.0f);  // ex2 overflows to inf, rcp 0, 1 - 0 = 1
  EXPECT_EQ(golden::dec0_tanh(-std::numeric_limits<float>::infinity()), -1.0f);
  EXPECT_TRUE(std::isnan(golden::dec0_tanh(std::numeric_limits<float>::quiet_NaN())));
  // Subnormal inputs are flushed (.ftz): +-0.
  EXPECT_EQ(golden::dec0_tanh(1e-40f), 0.0f);
  // Odd, bit for bit, and close to tanh (libdevice documents tanhf's maximum error as 2 ulp; the
  // approx instructions here are the project's correctly rounded model, approx-model).
  for (float v = 0.0f; v < 10.0f; v += 0.0137f) {
    const float t = golden::dec0_tanh(v);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(golden::dec0_tanh(-v)), std::bit_cast<std::uint32_t>(t) ^ 0x80000000u) << v;
    const double exact = std::tanh(static_cast<double>(v));
    EXPECT_LE(std::fabs(t - exact), 4.0 * std::max(std::numeric_limits<float>::denorm_min(),
                                                   std::nextafter(static_cast<float>(exact), 2.0f) - static_cast<float>(exact)))
        << v;
  }
  // Continuous at the 0.6 switch to about an ulp: the polynomial just below, 1 - 2/(e^1.2 + 1) at it.
  const float below = std::nextafter(0.6f, 0.0f);
  EXPECT_LT(std::fabs(golden::dec0_tanh(0.6f) - golden::dec0_tanh(below)), 2e-7f);
  // Worked by hand (exact rational arithmetic, each fma / mul rounded once to f32, ties to even, done
  // outside the model): x2 = RN(v v), p = RN(RN(RN(RN(c0 x2 + c1) x2 + c2) x2 + c3) x2 + 0),
  // RN(p v + v). v = 0.5 -> 0x3EEC9AA0 (0.46211719512939453), v = 0.25 -> 0x3E7ACBF5
  // (0.24491865932941437), v = -0.375 -> 0xBEB77A9E (-0.35835736989974976).
  EXPECT_EQ(std::bit_cast<std::uint32_t>(golden::dec0_tanh(0.5f)), 0x3EEC9AA0u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(golden::dec0_tanh(0.25f)), 0x3E7ACBF5u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(golden::dec0_tanh(-0.375f)), 0xBEB77A9Eu);
  // The large branch by hand (60-digit decimals, each step rounded to f32; ex2.approx and
  // rcp.approx correctly rounded, the project's reading approx-model): v = 1: y = 0x4038AA3B,
  // e = 2^y -> 0x40EC7325, e + 1 -> 0x41063992, rcp -> 0x3DF420AB, 1 - 2r -> 0x3F42F7D5; v = 2 ->
  // 0x3F76CA83; v = -0.75 -> 0xBF22991F.
  EXPECT_EQ(std::bit_cast<std::uint32_t>(golden::dec0_tanh(1.0f)), 0x3F42F7D5u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(golden::dec0_tanh(2.0f)), 0x3F76CA83u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(golden::dec0_tanh(-0.75f)), 0xBF22991Fu);
  // Worked: at v = 0.5 the small branch: v^2 = 0.25, p = (((c0 0.25 + c1) 0.25 + c2) 0.25 + c3) 0.25,
  // about -0.0758, and tanh = 0.5 + 0.5 p = 0.46211716 (tanh(0.5) = 0.4621171572600098).
  EXPECT_NEAR(golden::dec0_tanh(0.5f), 0.4621171572600098, 1e-7);
  // At v = 1 the large branch: 1 - 2/(e^2 + 1) = 0.7615941559557649.
  EXPECT_NEAR(golden::dec0_tanh(1.0f), 0.7615941559557649, 1.2e-7);
}

// ---- E19(a)/(c): the columns and +48's layout -----------------------------------------------------

TEST(Dec0Golden, OutputColumnsAreTwelveColumnsOfNTiles0To2PastTheLogits) {
  // DOC-d0 E19(c) packs %r373, %r376, %r377, %r378; HIP-d0's cut hands 24 chain values to E19
  // (n-tiles 0..2): every map takes 12 distinct columns in 10..21.
  for (golden::Dec0Columns c : {golden::Dec0Columns::column_order, golden::Dec0Columns::contiguous, golden::Dec0Columns::tanh_first}) {
    const golden::Dec0ColumnMap m = golden::dec0_output_columns(c);
    std::set<int> all(m.e4m3.begin(), m.e4m3.end());
    all.insert(m.tanh.begin(), m.tanh.end());
    EXPECT_EQ(all.size(), 12u);
    EXPECT_EQ(*all.begin(), 10);
    EXPECT_EQ(*all.rbegin(), 21);
  }
  // The default (the gathered words in column order): %r373 = columns 10, 11; %r374/%r375 = 12..15
  // (tanh); %r376..%r378 = 16..21.
  const golden::Dec0ColumnMap d = golden::dec0_output_columns(golden::Dec0Columns::column_order);
  EXPECT_EQ(d.e4m3, (std::array<int, 8>{10, 11, 16, 17, 18, 19, 20, 21}));
  EXPECT_EQ(d.tanh, (std::array<int, 4>{12, 13, 14, 15}));
}

// D19 values that are e4m3 codes (q8 is then exact): column c of row T = code (7c + T) % 126 + 1.
std::uint8_t code_of(int T, int c) { return static_cast<std::uint8_t>((7 * c + T) % 126 + 1); }

golden::F16Mat d19_of_codes() {
  golden::F16Mat d(64, 32);
  for (int T = 0; T < 64; ++T)
    for (int c = 0; c < 32; ++c) d.at(T, c) = rrswin::e4m3_to_f16(code_of(T, c));
  return d;
}

TEST(Dec0Golden, E19WritesEightE4m3BytesAPixelAndTheTanhTexel) {
  // A block at (8, 8) of a 10 x 11 frame: columns x0+2.. and rows y0+3.. lie outside (E19(b)).
  const rrswin::Readings r;
  golden::BlockContext ctx;
  ctx.profile = &rrswin::profile_ada();
  ctx.readings = &r;
  ctx.weights = &rrswin::default_layer_weights(LayerId::dec0);
  ctx.ex = 10;
  ctx.ey = 11;
  ctx.x0 = 8;
  ctx.y0 = 8;
  const golden::F16Mat d = d19_of_codes();
  std::vector<std::uint8_t> out48(static_cast<std::size_t>(ctx.ex * ctx.ey * 8), 0xEE);
  rrswin::SurfaceF32 s144 = rrswin::SurfaceF32::make(ctx.ex, ctx.ey);
  golden::DecoderFinalReadings dr;
  golden::dec0_output(ctx, dr, d, {}, nullptr, &s144, out48);
  const int cols[8] = {10, 11, 16, 17, 18, 19, 20, 21};
  int written = 0;
  for (int y = 0; y < ctx.ey; ++y)
    for (int x = 0; x < ctx.ex; ++x) {
      const int T = 8 * (y - 8) + (x - 8);  // thread T's pixel (x0 + (T&7), y0 + (T>>3)), D19 row T
      const bool mine = x >= 8 && y >= 8;
      for (int i = 0; i < 8; ++i) {
        const std::uint8_t b = out48[static_cast<std::size_t>(8 * (ctx.ex * y + x) + i)];
        EXPECT_EQ(b, mine ? code_of(T, cols[i]) : 0xEE) << x << "," << y << " byte " << i;
      }
      for (int ch = 0; ch < 4; ++ch) {
        const float v = s144.rgba[static_cast<std::size_t>((ctx.ex * y + x) * 4 + ch)];
        if (!mine) {
          EXPECT_EQ(v, 0.0f);
          continue;
        }
        const float in = rrswin::f16_to_f32(rrswin::e4m3_to_f16(code_of(T, 12 + ch)));
        EXPECT_EQ(v, golden::dec0_tanh(in));
        EXPECT_NEAR(v, std::tanh(static_cast<double>(in)), 1e-6);
      }
      written += mine;
    }
  EXPECT_EQ(written, 2 * 3);
  // Another reading moves the bytes: contiguous takes columns 10..17.
  dr.dec0_columns = golden::Dec0Columns::contiguous;
  golden::dec0_output(ctx, dr, d, {}, nullptr, &s144, out48);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out48[static_cast<std::size_t>(8 * (ctx.ex * 9 + 9) + i)], code_of(9, 10 + i)) << i;
}

// ---- E19(f)/(g): 9 logits in the softmax, the gate, the blend ------------------------------------

rrswin::Texture constant_texture(int w, int h, std::array<f16_t, 4> v) {
  rrswin::Texture t;
  t.width = w;
  t.height = h;
  for (int i = 0; i < w * h; ++i) t.rgba.insert(t.rgba.end(), v.begin(), v.end());
  return t;
}

TEST(Dec0Golden, E19SoftmaxTakesNineLogitsAndBlendsWithTheGate) {
  const rrswin::Readings r;
  golden::BlockContext ctx;
  ctx.profile = &rrswin::profile_ada();
  ctx.readings = &r;
  ctx.weights = &rrswin::default_layer_weights(LayerId::dec0);
  ctx.ex = 8;
  ctx.ey = 8;
  const f16_t half = 0x3800, one = 0x3C00, quarter = 0x3400, nan = 0x7E00;
  const rrswin::Texture t88 = constant_texture(4, 4, {half, half, half, half});
  const rrswin::Texture t96 = constant_texture(8, 8, {quarter, one, half, 0});
  const rrswin::Texture t104 = constant_texture(8, 8, {one, nan, 0, 0});
  const golden::DecoderTextures tex{&t88, &t96, &t104, 0.5f, 0.5f};
  auto run = [&](f16_t l0, f16_t l9) {
    golden::F16Mat d(64, 32);
    for (int T = 0; T < 64; ++T) {
      for (int c = 0; c < 9; ++c) d.at(T, c) = rrswin::f32_to_f16(-10.0f);
      d.at(T, 0) = l0;
      d.at(T, 9) = l9;
    }
    rrswin::Surface s112 = rrswin::Surface::make(8, 8);
    std::vector<std::uint8_t> out48(8 * 8 * 8);
    golden::dec0_output(ctx, {}, d, tex, &s112, nullptr, out48);
    return s112.bytes;
  };
  auto texel = [](const std::vector<std::uint8_t>& b, int x, int y, int ch) {
    const std::size_t i = static_cast<std::size_t>(64 * y + 8 * x + 2 * ch);
    return static_cast<f16_t>(b[i] | (b[i + 1] << 8));
  };
  // sigma(-20) = 0 in f16 (about 2e-9, below f16's least subnormal): out = fma(tex96, 1 - 0, acc 0)
  // = tex96, + tex104 unless NaN: (0.25 + 1, 1 (tex104 NaN: skipped), 0.5 + 0), alpha 0.
  const auto gate0 = run(rrswin::f32_to_f16(10.0f), rrswin::f32_to_f16(-20.0f));
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) {
      EXPECT_EQ(texel(gate0, x, y, 0), rrswin::f32_to_f16(1.25f));
      EXPECT_EQ(texel(gate0, x, y, 1), one);
      EXPECT_EQ(texel(gate0, x, y, 2), half);
      EXPECT_EQ(texel(gate0, x, y, 3), 0);
    }
  // sigma(20) = 1: out = acc + tex104, acc = the softmax-weighted sum of a constant 0.5: about 0.5
  // (one-hot on l0 = 10 against eight -10s: w0 = 1 - 8e-9).
  const auto gate1 = run(rrswin::f32_to_f16(10.0f), rrswin::f32_to_f16(20.0f));
  EXPECT_NEAR(rrswin::f16_to_f32(texel(gate1, 3, 3, 0)), 1.5, 1e-3);
  EXPECT_NEAR(rrswin::f16_to_f32(texel(gate1, 3, 3, 1)), 0.5, 1e-3);
  // The max is over l0..l8 only (3 max.f16x2 + 2 max.f16, dec0.md §4.5): a tenth logit far above the
  // others changes nothing while the gate stays 1 (in a 10-term max, exp(l_i - 60000) would all be 0).
  EXPECT_EQ(run(rrswin::f32_to_f16(10.0f), rrswin::f32_to_f16(60000.0f)), gate1);
}

// ---- the frame: outputs, stages, the front's map ----------------------------------------------------

struct Dec0Frame {
  std::vector<std::uint8_t> out48, s112;
  std::vector<float> s144;
  std::vector<std::string> stages;
};

Dec0Frame run_dec0(int ex, int ey, int ox, int oy, bool textures, const rrswin::LayerReadings& lr = {}) {
  const rrswin::SyntheticFrame in = rrswin::make_synthetic_frame(ex >> 1, ey >> 1, 5, false, 2);
  const rrswin::SyntheticFrame skip = rrswin::make_synthetic_frame(ex, ey, 6, false, 1);
  const rrswin::SyntheticFrame t104 = rrswin::make_synthetic_frame(ex, ey, 7, false, 1);
  rrswin::LayerFrame f;
  f.ex = ex;
  f.ey = ey;
  f.ox = ox;
  f.oy = oy;
  f.input_arena = in.input_arena;
  f.skip_arena = skip.input_arena;
  f.weights = &rrswin::default_layer_weights(LayerId::dec0);
  f.texture = textures ? &in.texture : nullptr;
  f.texture96 = &skip.texture;
  f.texture104 = &t104.texture;
  f.scale = {0.5f, 0.5f};
  rrswin::TraceRequest req;
  req.stages = {"all"};
  rrswin::Trace t;
  rrswin::run_layer_frame_golden(f, rrswin::profile_ada(), rrswin::Readings{}, lr, nullptr, &req, &t);
  Dec0Frame out;
  out.out48 = f.output_arena;
  out.s112 = f.surface112.bytes;
  out.s144 = f.surface144.rgba;
  for (const rrswin::TraceStage& s : t.stages) out.stages.push_back(s.name);
  return out;
}

TEST(Dec0Golden, FrameWritesPlus48Plus112AndPlus144) {
  const Dec0Frame a = run_dec0(13, 10, 3, 5, true);
  // +48: 8 bytes a pixel (DOC-d0 §1.3: 1280 736 8 = 7,536,640 at the full frame); +144: 4 f32 a texel.
  ASSERT_EQ(a.out48.size(), 13u * 10u * 8u);
  ASSERT_EQ(a.s144.size(), 13u * 10u * 4u);
  ASSERT_EQ(a.s112.size(), 13u * 10u * 8u);
  // Every pixel written: no pixel's 8 bytes, tanh texel or +112 texel left all zero.
  for (std::size_t p = 0; p < 130; ++p) {
    EXPECT_FALSE(std::all_of(a.out48.begin() + static_cast<std::ptrdiff_t>(8 * p), a.out48.begin() + static_cast<std::ptrdiff_t>(8 * p + 8),
                             [](std::uint8_t b) { return b == 0; }))
        << p;
    EXPECT_FALSE(std::all_of(a.s144.begin() + static_cast<std::ptrdiff_t>(4 * p), a.s144.begin() + static_cast<std::ptrdiff_t>(4 * p + 4),
                             [](float v) { return v == 0.0f; }))
        << p;
    for (int c = 0; c < 4; ++c) EXPECT_LE(std::fabs(a.s144[4 * p + static_cast<std::size_t>(c)]), 1.0f);
  }
  // The textures feed +112 only: +48 and +144 are the same without them.
  const Dec0Frame b = run_dec0(13, 10, 3, 5, false);
  EXPECT_EQ(a.out48, b.out48);
  EXPECT_EQ(a.s144, b.s144);
  // dec0-output-columns moves +48 and +144, not +112 (the logits are columns 0..9 whatever it says).
  rrswin::LayerReadings lr;
  std::string err;
  ASSERT_TRUE(rrswin::set_layer_reading(lr, "dec0-output-columns=tanh-first", &err)) << err;
  const Dec0Frame c = run_dec0(13, 10, 3, 5, true, lr);
  EXPECT_NE(a.out48, c.out48);
  EXPECT_NE(a.s144, c.s144);
  EXPECT_EQ(a.s112, c.s112);
  // No arena scatter, no final phase: the last stage is D19 (p19d).
  ASSERT_FALSE(a.stages.empty());
  EXPECT_EQ(a.stages.back(), "p19d");
  EXPECT_EQ(std::count(a.stages.begin(), a.stages.end(), "e19.words"), 0);
}

TEST(Dec0Golden, FrontExpandsFourSubpixelsOfThirtyTwoChannelsInOneWarp) {
  // DOC-d0 §2.1 row 1: 48 x 128 x 64, one warp (no tid.z): column n of the warp's 128 is sub-pixel
  // n / 32, channel n % 32 under `block`; under `interleaved` pairs of n-tiles alternate (DESC-d0
  // _e1's (n, n + 8) pack word): s = (n >> 4) & 3, channel 16 (n >> 6) + (n & 15).
  const rrswin::LayerSpec& s = rrswin::layer_spec(LayerId::dec0);
  EXPECT_EQ(s.front.warps, 1);
  EXPECT_EQ(s.front.n_per_warp, 128);
  rrswin::DecoderFrontReadings fr;
  std::set<std::pair<int, int>> seen;
  for (int n = 0; n < 128; ++n) {
    const golden::ExpandColumn c = golden::expand_column(fr, s, 0, n);
    EXPECT_EQ(c.subpixel, n / 32);
    EXPECT_EQ(c.channel, n % 32);
    seen.insert({c.subpixel, c.channel});
  }
  EXPECT_EQ(seen.size(), 128u);
  fr.column_split = rrswin::ExpandColumnSplit::interleaved;
  seen.clear();
  const int worked[][3] = {{0, 0, 0}, {15, 0, 15}, {16, 1, 0}, {40, 2, 8}, {63, 3, 15}, {64, 0, 16}, {88, 1, 24}, {127, 3, 31}};
  for (const auto& w : worked) {
    const golden::ExpandColumn c = golden::expand_column(fr, s, 0, w[0]);
    EXPECT_EQ(c.subpixel, w[1]) << w[0];
    EXPECT_EQ(c.channel, w[2]) << w[0];
  }
  for (int n = 0; n < 128; ++n) {
    const golden::ExpandColumn c = golden::expand_column(fr, s, 0, n);
    // A pack word (columns n, n + 8 of one row) never splits between sub-pixels.
    if ((n & 8) == 0) {
      EXPECT_EQ(golden::expand_column(fr, s, 0, n + 8).subpixel, c.subpixel) << n;
    }
    seen.insert({c.subpixel, c.channel});
  }
  EXPECT_EQ(seen.size(), 128u);
  // The tile: all 4 sub-pixels' 48 rows cover the 100 cells of the 10x10 tile once each (DESC-d0
  // _e1: all 800 words written once, 2 planes x 400), at even and odd origins.
  for (const auto& o : {std::pair{8, 8}, std::pair{8, 9}, std::pair{3, 5}}) {
    std::vector<int> hits(100, 0);
    for (int sp = 0; sp < 4; ++sp)
      for (int row = 0; row < 48; ++row) {
        const auto cell = golden::expand_cell(rrswin::DecoderFrontReadings{}, o.first, o.second, sp, row);
        if (cell[0] >= 0) ++hits[static_cast<std::size_t>(10 * cell[0] + cell[1])];
      }
    EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), 100) << o.first << "," << o.second;
  }
}

// E19(d)'s tanh as PTX (the instruction forms DOC-d0 lists for s18503..s18601: abs.ftz, mul.ftz,
// ex2.approx.ftz, add.ftz, rcp.approx.ftz, fma.rn.ftz, setp.ge.ftz, selp, the sign by and/or, in
// libdevice __nv_tanhf's order) run by the interpreter on every f16 value E19 can feed it: equal to
// golden::dec0_tanh bit for bit (the interpreter runs every form dec0's tanh uses).
TEST(Dec0Golden, TanhAsPtxInTheInterpreterEqualsGolden) {
  const std::string ptx = R"(.version 8.0
.target sm_89
.address_size 64
.visible .entry tanh_k(.param .u64 pout, .param .u64 pin)
{
  .reg .b32 %x<4>, %t;
  .reg .f32 %f<7>;
  .reg .pred %q<2>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [pout];
  ld.param.u64 %rd2, [pin];
  mov.u32 %x0, %ctaid.x;
  mov.u32 %t, %tid.x;
  mad.lo.u32 %t, %x0, 32, %t;
  mul.wide.u32 %rd3, %t, 4;
  add.s64 %rd4, %rd2, %rd3;
  add.s64 %rd5, %rd1, %rd3;
  ld.global.b32 %x0, [%rd4];
  mov.b32 %f0, %x0;
  abs.ftz.f32 %f1, %f0;
  mul.ftz.f32 %f2, %f1, 0f4038AA3B;
  ex2.approx.ftz.f32 %f2, %f2;
  add.ftz.f32 %f2, %f2, 0f3F800000;
  rcp.approx.ftz.f32 %f2, %f2;
  fma.rn.ftz.f32 %f2, %f2, 0fC0000000, 0f3F800000;
  setp.ge.ftz.f32 %q0, %f1, 0f41102CB4;
  selp.f32 %f2, 0f3F800000, %f2, %q0;
  mov.b32 %x1, %f2;
  and.b32 %x2, %x0, 0x80000000;
  or.b32 %x1, %x1, %x2;
  mov.b32 %f3, %x1;
  mul.ftz.f32 %f4, %f0, %f0;
  fma.rn.ftz.f32 %f5, %f4, 0f3C80F082, 0fBD563CAE;
  fma.rn.ftz.f32 %f5, %f5, %f4, 0f3E085941;
  fma.rn.ftz.f32 %f5, %f5, %f4, 0fBEAAA9ED;
  fma.rn.ftz.f32 %f5, %f5, %f4, 0f00000000;
  fma.rn.ftz.f32 %f5, %f5, %f0, %f0;
  setp.ge.ftz.f32 %q1, %f1, 0f3F19999A;
  selp.f32 %f6, %f3, %f5, %q1;
  st.global.f32 [%rd5], %f6;
  ret;
}
)";
  std::vector<std::uint32_t> in(65536), out(65536, 0xDEADBEEFu);
  for (std::uint32_t h = 0; h < 65536; ++h) in[h] = std::bit_cast<std::uint32_t>(rrswin::f16_to_f32(static_cast<rrswin::f16_t>(h)));
  const auto m = rrswin::ptx::parse_module(ptx, "dec0_tanh.ptx");
  rrswin::ptx::Device dev;
  const std::uint64_t a_out = dev.add_global("out", {reinterpret_cast<std::uint8_t*>(out.data()), out.size() * 4});
  const std::uint64_t a_in = dev.add_global_readonly("in", {reinterpret_cast<const std::uint8_t*>(in.data()), in.size() * 4});
  std::uint8_t params[16];
  std::memcpy(params, &a_out, 8);
  std::memcpy(params + 8, &a_in, 8);
  rrswin::ptx::run(*m, "tanh_k", {65536 / 32, 1, 1}, {32, 1, 1}, params, dev, {});
  int differing = 0;
  for (std::uint32_t h = 0; h < 65536; ++h)
    differing += out[h] != std::bit_cast<std::uint32_t>(golden::dec0_tanh(std::bit_cast<float>(in[h])));
  EXPECT_EQ(differing, 0);
  // The same program does compute tanh: 0.5 -> tanh(0.5) = 0.46211716 (within the polynomial's error).
  EXPECT_NEAR(std::bit_cast<float>(out[0x3800]), 0.46211716f, 1e-6f);
}

}  // namespace
