// The decoder final epilogue (model/decoder_final.cpp: dec4's E62 = dec3's E48 = dec2's E38 =
// dec1's E26). Every expected value comes from a reference written here, not from the code under
// test: GCC's _Float16 and binary64 arithmetic, one rounding per modelled instruction.
//   * f16 add / sub / mul: the binary64 result is exact (a product of two 11-bit significands has
//     22 bits; a sum or difference of two f16 spans at most 2^16 / 2^-24 = 40 bits), so converting it
//     to _Float16 (GCC: __truncdfhf2, one direct RNE rounding, checked below) rounds once.
//   * f16 fma a*b + c: a*b is exact in binary64; the sum adds one binary64 rounding only when it spans
//     more than 53 bits, i.e. when one addend lies below 2^-21 of an f16 ulp of the other, which is
//     then c (an f16 value: never an f16 rounding midpoint, and the tiny addend cannot move the sum
//     across one) or an a*b so large (> 2^29) that the result overflows either way: the f16 result
//     equals the one correctly rounded fma.
//   * the bilinear blend of f16 texels with weights k/256: every term and partial sum here is a
//     multiple of 2^-26 below 2^5 (the texels below are in [-8, 8]), exact in binary64, then rounded once.
// The exp / sigmoid steps are used only where their value is exact (ex2(0) = 1, ex2 of a huge
// negative = 0, sigmoid(0) = 0.5, sigmoid(+-20) = 1 / 0) or where the code's own value is taken as the
// input of the next, independently computed, step (the weights of a distinct softmax, a sigmoid of
// 0.7); each such test also checks that a wrong chain order, tap map or operand order gives another
// result on its data.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "model/decoder_final.hpp"
#include "model/layer.hpp"
#include "model/layer_golden.hpp"
#include "numerics/approx.hpp"
#include "numerics/f16.hpp"

namespace {

using rrswin::f16_t;
using rrswin::Texture;
using rrswin::golden::DecoderFinalReadings;
using rrswin::golden::DecoderGateLogit;
using rrswin::golden::DecoderPixel;
using rrswin::golden::DecoderSampler;
using rrswin::golden::DecoderTextures;

// ---- the independent reference ----
double D(f16_t b) { return static_cast<double>(std::bit_cast<_Float16>(b)); }
f16_t rh(double x) { return std::bit_cast<f16_t>(static_cast<_Float16>(x)); }  // one RNE rounding to f16
f16_t rh(float x) { return std::bit_cast<f16_t>(static_cast<_Float16>(x)); }
f16_t ref_add(f16_t a, f16_t b) { return rh(D(a) + D(b)); }
f16_t ref_sub(f16_t a, f16_t b) { return rh(D(a) - D(b)); }
f16_t ref_mul(f16_t a, f16_t b) { return rh(D(a) * D(b)); }
f16_t ref_fma(f16_t a, f16_t b, f16_t c) { return rh(D(a) * D(b) + D(c)); }

constexpr f16_t kOne = 0x3C00, kHalf = 0x3800, kTwenty = 0x4D00, kMinusTwenty = 0xCD00, kMinus65504 = 0xFBFF, kNaN = 0x7E00;

TEST(DecoderFinal, ReferenceRoundsBinary64ToHalfOnce) {
  // 1 + 2^-11 + 2^-40 lies just above the midpoint of 1 and 1 + 2^-10: one rounding gives 0x3C01,
  // a rounding through binary32 (which drops 2^-40) would tie to even, 0x3C00.
  EXPECT_EQ(rh(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)), 0x3C01);
  EXPECT_EQ(ref_fma(0x3C01, 0x3C01, 0x0001), rh((1.0 + 0x1p-10) * (1.0 + 0x1p-10) + 0x1p-24));
}

// A w x h clamp-mode texture, texel (x, y) channel c = f(x, y, c) rounded to f16.
template <class F>
Texture make_texture(int w, int h, F f, rrswin::AddressMode mode = rrswin::AddressMode::clamp) {
  Texture t;
  t.width = w;
  t.height = h;
  t.mode = mode;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 4; ++c) t.rgba.push_back(rh(f(x, y, c)));
  return t;
}
f16_t texel(const Texture& t, int x, int y, int c) {  // clamp, by hand
  x = std::clamp(x, 0, t.width - 1);
  y = std::clamp(y, 0, t.height - 1);
  return t.rgba[(static_cast<std::size_t>(y) * t.width + x) * 4 + c];
}
// Distinct texels with full significands, in [-8, 8].
double tex88_value(int x, int y, int c) { return 0.3 + 0.71 * x - 0.45 * y + 1.3 * c - 0.017 * x * y; }

// CUDA's linear filter by hand: x_B = u - 0.5, i = floor, alpha = frac rounded to nearest 1/256
// (nearbyint: ties to even in the default mode), the guide's formula, one rounding to f16.
struct Axis {
  int i;
  int a;
};
Axis axis(float u) {
  const double xb = static_cast<double>(u) - 0.5, i = std::floor(xb);
  return {static_cast<int>(i), static_cast<int>(std::nearbyint((xb - i) * 256.0))};
}
double blend(const Texture& t, Axis x, Axis y, int c) {
  const double a = x.a / 256.0, b = y.a / 256.0;
  return (1 - a) * (1 - b) * D(texel(t, x.i, y.i, c)) + a * (1 - b) * D(texel(t, x.i + 1, y.i, c)) +
         (1 - a) * b * D(texel(t, x.i, y.i + 1, c)) + a * b * D(texel(t, x.i + 1, y.i + 1, c));
}
f16_t ref_linear(const Texture& t, float u, float v, int c) { return rh(blend(t, axis(u), axis(v), c)); }

// (1) point vs linear sampling on a 4x4 texture.
TEST(DecoderFinal, SampleF32PointAndLinearAgainstTheGuidesFormula) {
  const Texture t = make_texture(4, 4, tex88_value);
  using rrswin::golden::sample_f32;
  // Point: texel (floor u, floor v); -0.25 floors to -1 and clamps to 0; 3.9 is texel 3.
  for (auto [u, v, x, y] : std::vector<std::array<float, 4>>{{1.7f, 2.2f, 1, 2}, {-0.25f, 3.9f, 0, 3}, {3.0f, 0.999f, 3, 0}}) {
    const auto s = sample_f32(t, u, v, DecoderSampler::point);
    for (int c = 0; c < 4; ++c) EXPECT_EQ(s[c], texel(t, int(x), int(y), c)) << u << "," << v;
  }
  // Linear at fractions that are multiples of 1/256 (alpha exact): u = 1.75 -> i = 1, alpha 64/256;
  // v = 3.0 -> j = 2, beta 128/256. By hand, channel 0 = 0.375 T(1,2) + 0.125 T(2,2) + 0.375 T(1,3)
  // + 0.125 T(2,3).
  {
    const auto s = sample_f32(t, 1.75f, 3.0f, DecoderSampler::linear);
    const double c0 =
        0.375 * D(texel(t, 1, 2, 0)) + 0.125 * D(texel(t, 2, 2, 0)) + 0.375 * D(texel(t, 1, 3, 0)) + 0.125 * D(texel(t, 2, 3, 0));
    EXPECT_EQ(s[0], rh(c0));
    for (int c = 0; c < 4; ++c) EXPECT_EQ(s[c], ref_linear(t, 1.75f, 3.0f, c)) << c;
    // It is not the point sample of either corner.
    EXPECT_NE(s[0], texel(t, 1, 2, 0));
  }
  // A fraction that is not a multiple of 1/256: u = 1.8f -> x_B = 1.3000000477, 0.30000005 * 256 =
  // 76.8 -> alpha 77 (rounded; truncation would give 76). v = 1.5 + 0.2f's fraction likewise: 51.2 -> 51.
  {
    const float u = 1.8f, v = 1.7f;
    EXPECT_EQ(axis(u).a, 77);
    EXPECT_EQ(axis(v).a, 51);
    const auto s = sample_f32(t, u, v, DecoderSampler::linear);
    int truncation_differs = 0;
    for (int c = 0; c < 4; ++c) {
      EXPECT_EQ(s[c], ref_linear(t, u, v, c)) << c;
      truncation_differs += s[c] != rh(blend(t, {1, 76}, {1, 51}, c));
    }
    EXPECT_GT(truncation_differs, 0) << "the case does not tell rounding from truncation of alpha";
  }
  // Clamp at the edges: u = 0.25 -> x_B = -0.25, i = -1 (clamped to texel 0) with weight 64/256 on
  // texel 0 and 192/256 on texel -1 = texel 0; u = 3.9 -> i = 3, i + 1 = 4 clamped to 3.
  for (auto [u, v] : std::vector<std::array<float, 2>>{{0.25f, 0.25f}, {3.9f, 3.9f}, {0.25f, 3.6f}}) {
    const auto s = sample_f32(t, u, v, DecoderSampler::linear);
    for (int c = 0; c < 4; ++c) EXPECT_EQ(s[c], ref_linear(t, u, v, c)) << u << "," << v << " ch " << c;
  }
  EXPECT_EQ(sample_f32(t, 0.25f, 0.25f, DecoderSampler::linear)[2], texel(t, 0, 0, 2));  // all four texels are texel (0, 0)
  EXPECT_EQ(sample_f32(t, 3.9f, 3.9f, DecoderSampler::linear)[1], texel(t, 3, 3, 1));
}

// Logits: l0..l8 and l9 (the gate's).
std::array<f16_t, 10> logits(std::array<double, 9> l, f16_t l9) {
  std::array<f16_t, 10> r{};
  for (int i = 0; i < 9; ++i) r[i] = rh(l[i]);
  r[9] = l9;
  return r;
}
std::array<f16_t, 10> one_hot(int k, f16_t l9) {
  std::array<f16_t, 10> r{};
  for (int i = 0; i < 9; ++i) r[i] = i == k ? f16_t{0} : kMinus65504;
  r[9] = l9;
  return r;
}

struct Frame {
  Texture t88, t96, t104;
  DecoderTextures tex(float sx = 1, float sy = 1) const { return {&t88, &t96, &t104, sx, sy}; }
};
// An 8 x 6 frame: +88 distinct texels, +96 other distinct texels, +104 = `t104(c)` everywhere.
Frame frame(std::array<double, 4> t104 = {0.25, -0.75, 1.5, 0}, bool t104_nan = false) {
  Frame f;
  f.t88 = make_texture(8, 6, tex88_value);
  f.t96 = make_texture(8, 6, [](int x, int y, int c) { return -1.1 + 0.37 * x + 0.53 * y - 0.9 * c; });
  f.t104 = make_texture(8, 6, [&](int, int, int c) { return t104_nan ? std::nan("") : t104[c]; });
  return f;
}

// Tap k of pixel (X, Y) inside the frame, by hand: the default filter-tap-map raster, (dx, dy) =
// (k % 3 - 1, k / 3 - 1).
std::array<int, 2> raster_tap(int X, int Y, int k) { return {X + k % 3 - 1, Y + k / 3 - 1}; }

std::array<f16_t, 3> chain(const Texture& t, int X, int Y, const std::array<f16_t, 9>& w, const int (&order)[9],
                           bool column_major = false) {
  std::array<f16_t, 3> acc{};
  for (int c = 0; c < 3; ++c) {
    f16_t a = 0;
    for (int k : order) {
      auto p = raster_tap(X, Y, k);
      if (column_major) p = raster_tap(X, Y, 3 * (k % 3) + k / 3);
      a = ref_fma(texel(t, p[0], p[1], c), w[k], a);
    }
    acc[c] = a;
  }
  return acc;
}
constexpr int kForward[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8}, kBackward[9] = {8, 7, 6, 5, 4, 3, 2, 1, 0};

// The blend and the guarded add by hand.
std::array<f16_t, 3> blend_ref(const Frame& f, int X, int Y, std::array<f16_t, 3> acc, f16_t sigma) {
  std::array<f16_t, 3> out{};
  const f16_t om = ref_sub(kOne, sigma);
  for (int c = 0; c < 3; ++c) {
    f16_t o = ref_fma(texel(f.t96, X, Y, c), om, ref_mul(acc[c], sigma));
    const f16_t a = texel(f.t104, X, Y, c);
    if (!std::isnan(D(a))) o = ref_add(o, a);
    out[c] = o;
  }
  return out;
}

// (2) the 9-tap scalar chain, distinct weights and taps.
TEST(DecoderFinal, NineTapScalarChainInTapOrder) {
  const rrswin::Readings r;  // defaults: reflect101, raster, f32_sum, sequential, f16_mul
  const Frame f = frame();
  const int X = 3, Y = 2;
  const auto l = logits({0.5, -1.25, 1.75, -0.375, 1.0, -2.5, 0.875, 0.25, -0.625}, kTwenty);
  const DecoderPixel px = rrswin::golden::decoder_final_pixel(r, {DecoderSampler::point, DecoderGateLogit::raw}, l, f.tex(), X, Y, 8, 6);
  // The weights are the code's (their softmax is the enc5 rule, checked against e61_pixel below);
  // here only: distinct, ordered as the logits, summing to about 1.
  double total = 0;
  for (int i = 0; i < 9; ++i) {
    total += D(px.w[i]);
    for (int j = 0; j < 9; ++j)
      if (D(l[i]) > D(l[j])) {
        EXPECT_GT(D(px.w[i]), D(px.w[j])) << i << " " << j;
      }
  }
  EXPECT_NEAR(total, 1.0, 9 * 0x1p-11);
  // acc by hand: tap k at raster offset k, fma(tap, w_k, acc) from 0 in tap order.
  const auto want = chain(f.t88, X, Y, px.w, kForward);
  EXPECT_EQ(px.acc, want);
  EXPECT_NE(chain(f.t88, X, Y, px.w, kBackward), want) << "the case does not tell the chain's order";
  EXPECT_NE(chain(f.t88, X, Y, px.w, kForward, true), want) << "the case does not tell the tap map";
  // sigma = 1 (l9 = +20): out = fma(t96, 0, acc) (+ t104) = acc + t104.
  EXPECT_EQ(px.sigma, kOne);
  const auto out = blend_ref(f, X, Y, want, kOne);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(px.out[c], out[c]) << c;
  EXPECT_EQ(px.out[3], 0);
}

// The softmax of decoder_final_pixel is enc5's E61 rule for 9 logits (e61_pixel with filter-logits
// nine), for every alternative of filter-sum-order, filter-exp-rounding, filter-weight-product.
TEST(DecoderFinal, SoftmaxIsEnc5sRuleForNineTerms) {
  const Frame f = frame();
  std::uint32_t seed = 12345;
  auto next = [&] {  // an LCG: logits in [-6, 6)
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) * 0x1p-24 * 12.0 - 6.0;
  };
  int orders_differ = 0;
  for (int set = 0; set < 64; ++set) {
    std::array<double, 9> v;
    for (double& x : v) x = next();
    const auto l = logits(v, rh(next()));
    float seq_sum = 0;
    for (auto order : {rrswin::E61SumOrder::sequential, rrswin::E61SumOrder::pairs, rrswin::E61SumOrder::tree})
      for (auto rounding : {rrswin::E61ExpRounding::f32_sum, rrswin::E61ExpRounding::f16_sum})
        for (auto product : {rrswin::E61WeightProduct::f16_mul, rrswin::E61WeightProduct::f32_mul}) {
          rrswin::Readings r;
          r.e61_sum_order = order;
          r.e61_exp_rounding = rounding;
          r.e61_weight_product = product;
          const DecoderPixel px = rrswin::golden::decoder_final_pixel(r, {}, l, f.tex(), 3, 2, 8, 6);
          r.e61_logits = rrswin::E61Logits::nine;
          const rrswin::golden::E61Pixel e = rrswin::golden::e61_pixel(r, l, f.t88, 3, 2, 8, 6);
          ASSERT_EQ(std::bit_cast<std::uint32_t>(px.sum), std::bit_cast<std::uint32_t>(e.sum)) << set;
          ASSERT_EQ(std::bit_cast<std::uint32_t>(px.rinv), std::bit_cast<std::uint32_t>(e.rinv)) << set;
          for (int i = 0; i < 9; ++i) ASSERT_EQ(px.w[i], e.w[i]) << set << " w" << i;
          if (rounding == rrswin::E61ExpRounding::f32_sum && product == rrswin::E61WeightProduct::f16_mul) {
            if (order == rrswin::E61SumOrder::sequential) seq_sum = px.sum;
            orders_differ += order != rrswin::E61SumOrder::sequential && px.sum != seq_sum;
          }
        }
  }
  EXPECT_GT(orders_differ, 4) << "the logit sets do not tell the sum orders apart";
}

// (3) the blend with sigma = 1, 0, 0.5 and a sigma that is not a power of two; nine equal logits
// make every weight f16(f32(1/9)): d_i = 0, e_i = ex2(0) = 1, sum = 9 exactly, rinv = 1/9 rounded.
TEST(DecoderFinal, BlendWithTheGate) {
  ASSERT_EQ(rrswin::div_approx_ftz_f32(1.0f, 9.0f), 1.0f / 9.0f);  // the model's div.approx is the correctly rounded quotient here
  ASSERT_EQ(rrswin::golden::e62_sigmoid(0), kHalf);
  ASSERT_EQ(rrswin::golden::e62_sigmoid(kTwenty), kOne);
  ASSERT_EQ(rrswin::golden::e62_sigmoid(kMinusTwenty), 0);
  const rrswin::Readings r;
  const Frame f = frame();
  const int X = 5, Y = 3;
  std::array<f16_t, 9> w;
  w.fill(rh(1.0f / 9.0f));  // f16_mul(f16(1), f16(rinv)) = f16(rinv)
  const auto acc = chain(f.t88, X, Y, w, kForward);
  for (auto [l9, sigma] : std::vector<std::array<f16_t, 2>>{{kTwenty, kOne}, {kMinusTwenty, 0}, {0, kHalf}}) {
    const DecoderPixel px = rrswin::golden::decoder_final_pixel(r, {DecoderSampler::point, DecoderGateLogit::raw},
                                                                logits({1, 1, 1, 1, 1, 1, 1, 1, 1}, l9), f.tex(), X, Y, 8, 6);
    EXPECT_EQ(px.sum, 9.0f);
    EXPECT_EQ(px.rinv, 1.0f / 9.0f);
    EXPECT_EQ(px.w, w);
    EXPECT_EQ(px.acc, acc);
    EXPECT_EQ(px.sigma, sigma);
    const auto out = blend_ref(f, X, Y, acc, sigma);
    for (int c = 0; c < 3; ++c) EXPECT_EQ(px.out[c], out[c]) << "sigma 0x" << std::hex << sigma << " ch " << c;
  }
  // sigma = 0 passes +96 through: out = t96 (+ t104); sigma = 1 the filtered taps.
  // A gate that is not a power of two (l9 = 0.7): sigma is the code's (e62_sigmoid, tested in
  // layer_e62_test), the blend by hand; the swapped roles fma(acc, sigma, t96 * om) give another value.
  const f16_t l9 = rh(0.7);
  const DecoderPixel px = rrswin::golden::decoder_final_pixel(r, {DecoderSampler::point, DecoderGateLogit::raw},
                                                              logits({1, 1, 1, 1, 1, 1, 1, 1, 1}, l9), f.tex(), X, Y, 8, 6);
  EXPECT_EQ(px.sigma, rrswin::golden::e62_sigmoid(l9));
  const auto out = blend_ref(f, X, Y, acc, px.sigma);
  int swapped_differs = 0;
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(px.out[c], out[c]) << c;
    const f16_t om = ref_sub(kOne, px.sigma);
    const f16_t swapped = ref_add(ref_fma(acc[c], px.sigma, ref_mul(texel(f.t96, X, Y, c), om)), texel(f.t104, X, Y, c));
    swapped_differs += swapped != out[c];
  }
  EXPECT_GT(swapped_differs, 0) << "the case does not tell the blend's operand roles";
}

// (4) the NaN guard: a NaN channel of +104 is not added, the others are.
TEST(DecoderFinal, NanChannelOfTex104IsSkipped) {
  const rrswin::Readings r;
  Frame f = frame({0, 0.25, -3.5, 0});
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 8; ++x) f.t104.rgba[(y * 8 + x) * 4] = kNaN;  // channel 0 NaN everywhere
  f.t104.rgba[(2 * 8 + 4) * 4 + 2] = 0xFC01;                          // and a negative signalling NaN at (4, 2) channel 2
  const DecoderFinalReadings dr{DecoderSampler::point, DecoderGateLogit::raw};
  std::array<f16_t, 9> w{};
  w[4] = kOne;  // one-hot on the centre tap: acc = the centre texel
  for (auto [X, Y] : std::vector<std::array<int, 2>>{{3, 2}, {4, 2}}) {
    const DecoderPixel px = rrswin::golden::decoder_final_pixel(r, dr, one_hot(4, kHalf /* sigma(0.5) */), f.tex(), X, Y, 8, 6);
    EXPECT_EQ(px.w, w);
    EXPECT_EQ(px.acc, (std::array<f16_t, 3>{texel(f.t88, X, Y, 0), texel(f.t88, X, Y, 1), texel(f.t88, X, Y, 2)}));
    const f16_t om = ref_sub(kOne, px.sigma);
    for (int c = 0; c < 3; ++c) {
      const f16_t blended = ref_fma(texel(f.t96, X, Y, c), om, ref_mul(px.acc[c], px.sigma));
      const bool nan = c == 0 || (X == 4 && c == 2);
      EXPECT_EQ(px.out[c], nan ? blended : ref_add(blended, texel(f.t104, X, Y, c))) << X << " ch " << c;
      EXPECT_FALSE(std::isnan(D(px.out[c])));
    }
    EXPECT_NE(px.out[1], ref_fma(texel(f.t96, X, Y, 1), om, ref_mul(px.acc[1], px.sigma)));  // the add happened
  }
}

// (5) the gate's logit: raw l9 or l9 - max, the max over l0..l8 only.
TEST(DecoderFinal, GateLogitRawOrCentred) {
  const rrswin::Readings r;
  const Frame f = frame();
  auto sigma = [&](std::array<f16_t, 10> l, DecoderGateLogit g) {
    return rrswin::golden::decoder_final_pixel(r, {DecoderSampler::point, g}, l, f.tex(), 3, 2, 8, 6).sigma;
  };
  // l0..l8 = 20, l9 = 20: raw sigma(20) = 1, centred sigma(0) = 0.5.
  const auto all20 = logits({20, 20, 20, 20, 20, 20, 20, 20, 20}, kTwenty);
  EXPECT_EQ(sigma(all20, DecoderGateLogit::raw), kOne);
  EXPECT_EQ(sigma(all20, DecoderGateLogit::centred), kHalf);
  // l0..l8 = 0 except l3 = -20, l9 = 20: the max is 0 (l9 is not in it), so centred = sigma(20) = 1;
  // a max over all ten would give sigma(0) = 0.5.
  auto l = logits({0, 0, 0, -20, 0, 0, 0, 0, 0}, kTwenty);
  EXPECT_EQ(sigma(l, DecoderGateLogit::centred), kOne);
  // l0..l8 with max 20 at l7, l9 = 0: raw sigma(0) = 0.5, centred sigma(-20) = 0.
  l = logits({1, 2, 3, 4, 5, 6, 7, 20, 9}, 0);
  EXPECT_EQ(sigma(l, DecoderGateLogit::raw), kHalf);
  EXPECT_EQ(sigma(l, DecoderGateLogit::centred), 0);
}

// The f32 tap coordinates u = RN(sx (i + 0.5)) through the linear sampler: a one-hot weight on the
// centre tap (acc = the sample at the pixel's own coordinates), gate 1, +104 NaN (no add): out is
// the filtered +88 texel.
TEST(DecoderFinal, TapCoordinatesAndLinearSampling) {
  const rrswin::Readings r;
  const Frame f = frame({}, true);
  const DecoderFinalReadings dr{DecoderSampler::linear, DecoderGateLogit::raw};
  for (float s : {0.5f, 0.3f, 0.75f})
    for (auto [X, Y] : std::vector<std::array<int, 2>>{{3, 2}, {0, 0}, {7, 5}, {6, 1}}) {
      const DecoderPixel px = rrswin::golden::decoder_final_pixel(r, dr, one_hot(4, kTwenty), f.tex(s, s), X, Y, 8, 6);
      const float u = static_cast<float>(static_cast<double>(s) * (X + 0.5)), v = static_cast<float>(static_cast<double>(s) * (Y + 0.5));
      for (int c = 0; c < 3; ++c) {
        EXPECT_EQ(px.acc[c], ref_linear(f.t88, u, v, c)) << "s " << s << " (" << X << "," << Y << ") ch " << c;
        EXPECT_EQ(px.out[c], px.acc[c]);  // fma(t96, 0, acc * 1)
      }
    }
  // With s = 0.5 at X = 3: u = 1.75, alpha 64: not a texel.
  const DecoderPixel px = rrswin::golden::decoder_final_pixel(r, dr, one_hot(4, kTwenty), f.tex(0.5f, 0.5f), 3, 3, 8, 6);
  EXPECT_NE(px.acc[0], texel(f.t88, 1, 1, 0));
  EXPECT_EQ(px.acc[0], rh(blend(f.t88, {1, 64}, {1, 64}, 0)));
}

// (6) a whole block on a 5 x 3 frame: the in-frame pixels are written at byte x 8X with alpha 0,
// nothing else. Pixel T's logits: one-hot on tap T % 9 (record T = row T of d), gate 1 (l9 = +20),
// +104 NaN, point sampling at sx = sy = 1: out = the +88 texel of that tap (border reflect101 by hand).
TEST(DecoderFinal, WholeBlockWritesTheInFramePixelsOnly) {
  const int ex = 5, ey = 3;
  Frame f = frame({}, true);
  rrswin::golden::F16Mat d(64, 16);
  for (int row = 0; row < 64; ++row) {
    const auto l = one_hot(row % 9, kTwenty);
    for (int n = 0; n < 10; ++n) d.at(row, n) = l[n];
    for (int n = 10; n < 16; ++n) d.at(row, n) = 0x5555;  // not read
  }
  rrswin::Readings r;
  rrswin::golden::LayerStats stats;
  rrswin::golden::BlockContext ctx;
  ctx.readings = &r;
  ctx.stats = &stats;
  ctx.ex = ex;
  ctx.ey = ey;
  rrswin::Surface s = rrswin::Surface::make(8, 8);
  std::fill(s.bytes.begin(), s.bytes.end(), 0xAB);
  rrswin::golden::decoder_final(ctx, {DecoderSampler::point, DecoderGateLogit::raw}, d, f.tex(), s);
  auto reflect = [](int v, int n) { return v < 0 ? -v : v >= n ? 2 * n - 2 - v : v; };
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x)
      for (int c = 0; c < 4; ++c) {
        const std::size_t at = static_cast<std::size_t>(y) * s.pitch + 8 * x + 2 * c;
        const f16_t got = static_cast<f16_t>(s.bytes[at] | (s.bytes[at + 1] << 8));
        if (x >= ex || y >= ey) {
          EXPECT_EQ(got, 0xABAB) << "(" << x << "," << y << ") written";
          continue;
        }
        const int T = 8 * y + x, k = T % 9;
        const auto p = raster_tap(x, y, k);
        const f16_t want = c == 3 ? f16_t{0} : texel(f.t88, reflect(p[0], ex), reflect(p[1], ey), c);
        EXPECT_EQ(got, want) << "(" << x << "," << y << ") ch " << c << " tap " << k;
      }
  EXPECT_EQ(stats.pixels_written, static_cast<std::uint64_t>(ex * ey));
}

}  // namespace

namespace {

// (7) a whole block equals its pixels one by one: decoder_final (each neighbour's sample and each
// column's and row's border fix resolved once per block) against decoder_final_pixel (e61_taps and
// sample_f32 for each tap) on every in-frame pixel of blocks at the frame's corners and inside it,
// under every filter-border and filter-tap-map, point and linear sampling, scales that make taps
// fall between texels and outside the texture.
TEST(DecoderFinal, WholeBlockEqualsEachPixelUnderEveryBorderAndTapMap) {
  const int ex = 13, ey = 9;
  Frame f = frame();
  f.t88 = make_texture(9, 7, tex88_value);
  rrswin::golden::F16Mat d(64, 16);
  for (int row = 0; row < 64; ++row)
    for (int n = 0; n < 16; ++n)  // logits in [-2, 2) that differ from row to row
      d.at(row, n) = rh(static_cast<double>((row * 7 + n * 13) % 32) / 8.0 - 2.0);
  int pixels = 0;
  for (rrswin::E61Border border : {rrswin::E61Border::reflect101, rrswin::E61Border::sentinel1, rrswin::E61Border::clamp})
    for (rrswin::E61TapMap map : {rrswin::E61TapMap::raster, rrswin::E61TapMap::column_major})
      for (DecoderSampler sampler : {DecoderSampler::point, DecoderSampler::linear})
        for (float scale : {1.0f, 0.6f})
          for (auto [x0, y0] : std::vector<std::array<int, 2>>{{0, 0}, {8, 8}, {-3, -2}, {4, 1}}) {
            rrswin::Readings r;
            r.e61_border = border;
            r.e61_tap_map = map;
            rrswin::golden::BlockContext ctx;
            ctx.readings = &r;
            ctx.ex = ex;
            ctx.ey = ey;
            ctx.x0 = x0;
            ctx.y0 = y0;
            const DecoderFinalReadings dr{sampler, DecoderGateLogit::raw};
            rrswin::Surface s = rrswin::Surface::make(ex, ey);
            rrswin::golden::decoder_final(ctx, dr, d, f.tex(scale, scale), s);
            for (int T = 0; T < 64; ++T) {
              const int X = x0 + (T & 7), Y = y0 + (T >> 3);
              if (X < 0 || Y < 0 || X >= ex || Y >= ey) continue;
              std::array<f16_t, 10> l{};
              for (int i = 0; i < 10; ++i) l[static_cast<std::size_t>(i)] = d.at(T, i);
              const DecoderPixel px = rrswin::golden::decoder_final_pixel(r, dr, l, f.tex(scale, scale), X, Y, ex, ey);
              for (int c = 0; c < 4; ++c) {
                const std::size_t at = static_cast<std::size_t>(Y) * s.pitch + 8 * static_cast<std::size_t>(X) + 2 * c;
                const f16_t got = static_cast<f16_t>(s.bytes[at] | (s.bytes[at + 1] << 8));
                ASSERT_EQ(got, px.out[static_cast<std::size_t>(c)])
                    << "border " << static_cast<int>(border) << " map " << static_cast<int>(map) << " sampler " << static_cast<int>(sampler)
                    << " scale " << scale << " block (" << x0 << "," << y0 << ") pixel (" << X << "," << Y << ") ch " << c;
              }
              ++pixels;
            }
          }
  EXPECT_GT(pixels, 1000);
}

}  // namespace
