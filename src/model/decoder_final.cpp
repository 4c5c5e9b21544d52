// The decoder final epilogue (dec4 E62, dec3 E48, dec2 E38, dec1 E26: one code). Statement numbers
// and E1'..E10' / F.17..F.20 refer to /tmp/decfacts/dec4_front_final.md §E/§F (a paraphrase of
// d4r's dec4/dec3/dec2 epilogue notes; the PTX itself was not read). Open points are readings:
// +88's sampler (DecoderSampler, F.18), the gate's logit (DecoderGateLogit, F.17), and from
// enc5's E61 readings the border rule, tap order, exp rounding, sum order and weight product
// (F.18..F.20).
#include "model/decoder_final.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "model/constants.hpp"
#include "model/index_maps.hpp"
#include "model/layer_golden.hpp"
#include "numerics/approx.hpp"
#include "numerics/f16.hpp"
#include "numerics/f32.hpp"
#include "numerics/texcoord.hpp"

namespace rrswin::golden {

namespace {

// fma.rn.ftz.f32: the inputs flushed, one rounding (a NaN is canonical: f32_fma), the result flushed.
float fma_ftz_f32(float a, float b, float c) { return ftz_f32(f32_fma(ftz_f32(a), ftz_f32(b), ftz_f32(c), Round::rn)); }

// E5': the texel coordinate of integer neighbour i on an axis scaled by s. The kernel computes
// h = mul.ftz.f32(s, 0.5) once (one of the 2 remaining mul.ftz.f32) and u = fma.rn.ftz.f32(s,
// cvt.rn.f32.s32(i), h) (D3 listing `fma.rn.ftz.f32 %f1012, %f1052(sx), %f1051, %f1056`).
// cvt.rn.f32.s32 is exact for |i| < 2^24; 0.5 s is exact for |s| >= 2^-125 (no bit leaves the
// normal range), and then fma gives RN(s*i + s/2) = RN(s*(i + 0.5)) with one rounding: the
// documented u = sx (i + 0.5) (D3 §4/E48). Only a tiny s differs: |s| < 2^-126 is flushed to 0 on
// input, and for 2^-126 <= |s| < 2^-125 the half is subnormal and flushed, giving RN(s*i).
float texel_coordinate(float s, int i) {
  const float h = mul_ftz_f32(s, 0.5f);
  return fma_ftz_f32(s, static_cast<float>(i), h);
}

using Taps = std::array<std::array<f16_t, 4>, 9>;

// (h) E8': tex96 and tex104 by tex.base.2d.v4.f16.s32 at the pixel's integer (X, Y) (s24411,
// s24413), through each texture's address mode; with the logits and the taps' r, g, b (their alpha
// channel is not used), what decoder_pixel reads.
DecoderPixelInputs pixel_inputs(const std::array<f16_t, 10>& l, const Taps& tv, const DecoderTextures& t, int X, int Y) {
  DecoderPixelInputs in;
  in.in.l = l;
  for (int k = 0; k < 9; ++k) in.in.tv[k] = {tv[k][0], tv[k][1], tv[k][2]};
  const std::array<f16_t, 4> t96 = t.tex96->fetch(X, Y), t104 = t.tex104->fetch(X, Y);
  in.t96 = {t96[0], t96[1], t96[2]};
  in.t104 = {t104[0], t104[1], t104[2]};
  return in;
}

// One block's pixels: their inputs gathered first, then steps (c)..(h) of all of them at once
// (tab.pixels: the engine's vector form of decoder_pixel; else the golden one per pixel), each
// result handed to `store` in the order the pixels were added.
struct BlockPixels {
  std::array<DecoderPixelInputs, kE61Threads> in;
  std::array<PixelXY, kE61Threads> at;
  int n = 0;
  void add(const std::array<f16_t, 10>& l, const Taps& tv, const DecoderTextures& t, PixelXY p) {
    in[static_cast<std::size_t>(n)] = pixel_inputs(l, tv, t, p.x, p.y);
    at[static_cast<std::size_t>(n++)] = p;
  }
  template <class Store>
  void finish(const Readings& r, const DecoderFinalReadings& dr, const DecoderTables& tab, Store store) const {
    std::array<DecoderPixel, kE61Threads> px;
    if (tab.pixels)
      tab.pixels(r, dr, in.data(), n, tab, px.data());
    else
      for (int i = 0; i < n; ++i) px[static_cast<std::size_t>(i)] = decoder_pixel(r, dr, in[static_cast<std::size_t>(i)], tab);
    for (int i = 0; i < n; ++i) store(at[static_cast<std::size_t>(i)], px[static_cast<std::size_t>(i)]);
  }
};

}  // namespace

// The +88 taps of one block (E5'/E6'): sample_f32 at (texel_coordinate(sx, i), texel_coordinate(sy,
// j)) is a function of the integer neighbour (i, j) alone, so each neighbour the block's pixels
// share is sampled once: a table over the block's pixels and their one-pixel ring, filled on first
// use; a neighbour outside it (a border reading that reaches farther) is sampled directly.
class BlockTaps {
 public:
  BlockTaps(const DecoderTextures& t, DecoderSampler s, const Readings& r, int x0, int y0, int ex, int ey)
      : t_(t), s_(s), left_(x0 - 1), top_(y0 - 1) {
    // A neighbour's u is a function of its column alone, v of its row: each resolved once. So is
    // the border fix of e61_tap: tap k of pixel (X, Y) is (fix(X + dx_k), fix(Y + dy_k)).
    for (int k = 0; k < kSide; ++k) {
      cols_[static_cast<std::size_t>(k)] = sample_axis(texel_coordinate(t_.sx, left_ + k));
      rows_[static_cast<std::size_t>(k)] = sample_axis(texel_coordinate(t_.sy, top_ + k));
      fix_x_[static_cast<std::size_t>(k)] = e61_border_fix(r.e61_border, left_ + k, ex);
      fix_y_[static_cast<std::size_t>(k)] = e61_border_fix(r.e61_border, top_ + k, ey);
    }
    for (int k = 0; k < 9; ++k) off_[static_cast<std::size_t>(k)] = e61_tap_offset(r.e61_tap_map, k);
  }
  // The nine taps of the block's pixel (X, Y) (x0 <= X < x0 + 8, y0 <= Y < y0 + 8): e61_taps(r, X,
  // Y, ex, ey) sampled.
  Taps of_pixel(int X, int Y) {
    Taps tv;
    for (int k = 0; k < 9; ++k) {
      const PixelXY o = off_[static_cast<std::size_t>(k)];
      tv[k] = at(fix_x_[static_cast<std::size_t>(X - left_ + o.x)], fix_y_[static_cast<std::size_t>(Y - top_ + o.y)]);
    }
    return tv;
  }

 private:
  static constexpr int kSide = 10;
  std::array<f16_t, 4> at(int i, int j) {
    const int c = i - left_, r = j - top_;
    if (c < 0 || c >= kSide || r < 0 || r >= kSide) return sample(i, j);
    const std::size_t k = static_cast<std::size_t>(kSide * r + c);
    if (!have_[k]) {
      v_[k] = sample_at(*t_.tex88, cols_[static_cast<std::size_t>(c)], rows_[static_cast<std::size_t>(r)], s_);
      have_[k] = true;
    }
    return v_[k];
  }
  std::array<f16_t, 4> sample(int i, int j) const {
    return sample_f32(*t_.tex88, texel_coordinate(t_.sx, i), texel_coordinate(t_.sy, j), s_);
  }
  const DecoderTextures& t_;
  DecoderSampler s_;
  int left_, top_;
  std::array<SampleAxis, kSide> cols_, rows_;
  std::array<int, kSide> fix_x_{}, fix_y_{};  // e61_border_fix of the columns left_ + k, the rows top_ + k
  std::array<PixelXY, 9> off_{};              // e61_tap_offset of tap k
  std::array<std::array<f16_t, 4>, kSide * kSide> v_{};
  std::array<bool, kSide * kSide> have_{};
};

std::array<f16_t, 4> sample_f32(const Texture& t, float u, float v, DecoderSampler s) {
  // CUDA Programming Guide, appendix "Texture Fetching" (docs/readings.md "ptx-tex-sampler"):
  // point returns texel (floor u, floor v); linear takes x_B = x - 0.5, i = floor(x_B) and
  // alpha = frac(x_B) "stored in 9-bit fixed point format with 8 bits of fractional value".
  // Rounding: to nearest, ties to even (numerics/tex_linear_texel). A 9-bit format with 8 fractional
  // bits holds 256/256 = 1.0, a weight only rounding (never truncation) of a fraction < 1 can
  // produce, so the guide's format implies rounding; ties-to-even is the IEEE default and the
  // project's reading (a tie, frac = k/256 + 1/512, is the case a GPU run would settle).
  // The blend tex = (1-a)(1-b) T[i,j] + a(1-b) T[i+1,j] + (1-a) b T[i,j+1] + a b T[i+1,j+1] is
  // computed exactly and rounded once to f16 per channel (f16_bilinear): a MODEL (the hardware's
  // blend precision is not documented; the guide promotes f16 texels to f32 before filtering, and
  // an f32 blend in that order can differ from the exact one by the f32 roundings of the products).
  // It is the model the PTX interpreter's tex uses (src/ptx/exec_mem.cpp `sample`), so the golden
  // model and the interpreted kernel agree under the same sampler. Coordinates are unnormalised
  // (the launch's sampler; a normalised sampler would scale by the extent first).
  return sample_at(t, sample_axis(u), sample_axis(v), s);
}

SampleAxis sample_axis(float x) { return {tex_linear_texel(x), tex_point_texel(x)}; }

std::array<f16_t, 4> sample_at(const Texture& t, const SampleAxis& u, const SampleAxis& v, DecoderSampler s) {
  if (s == DecoderSampler::point) return t.fetch(u.point, v.point);
  const TexLinearTexel a = u.linear, b = v.linear;
  const auto t00 = t.fetch(a.i, b.i), t10 = t.fetch(a.i + 1, b.i), t01 = t.fetch(a.i, b.i + 1), t11 = t.fetch(a.i + 1, b.i + 1);
  std::array<f16_t, 4> r{};
  for (int c = 0; c < 4; ++c) r[c] = f16_bilinear(t00[c], t10[c], t01[c], t11[c], a.alpha, b.alpha);
  return r;
}

DecoderPixel decoder_final_pixel(const Readings& r, const DecoderFinalReadings& dr, const std::array<f16_t, 10>& l,
                                 const DecoderTextures& t, int X, int Y, int ex, int ey, const DecoderTables& tab) {
  if (!t.tex88 || !t.tex96 || !t.tex104) throw std::invalid_argument("decoder_final_pixel: tex88, tex96 and tex104 must be set");
  // (e) E5': the integer neighbours border-fixed by filter-border (12 selp), tap k the one w_k
  // multiplies by filter-tap-map (e61_taps), each converted to an f32 texel coordinate.
  // (f) E6': 9 tex.base.2d.v4.f16.f32 of +88 (s24336..s24406) at (u, v).
  const auto taps = e61_taps(r, X, Y, ex, ey);
  Taps tv;
  for (int k = 0; k < 9; ++k)
    tv[k] = sample_f32(*t.tex88, texel_coordinate(t.sx, taps[k][0]), texel_coordinate(t.sy, taps[k][1]), dr.sampler);
  return decoder_pixel(r, dr, pixel_inputs(l, tv, t, X, Y), tab);
}

void decoder_final(const BlockContext& ctx, const DecoderFinalReadings& dr, const F16Mat& d, const DecoderTextures& t, Surface& s112,
                   const DecoderTables& tab) {
  // (a) E1': the shared records as enc5's E61(a) stages them (filter-record-guard included).
  if (!t.tex88 || !t.tex96 || !t.tex104) throw std::invalid_argument("decoder_final: tex88, tex96 and tex104 must be set");
  const std::vector<std::uint32_t> smem = e61_records(ctx, d);
  BlockTaps taps(t, dr.sampler, *ctx.readings, ctx.x0, ctx.y0, ctx.ex, ctx.ey);
  BlockPixels pixels;
  // (b) E2': thread T = 32z + tid.x < 64 finishes pixel (x0 + (T&7), y0 + (T>>3)); outside
  // [0, ex) x [0, ey) it skips to the end. (c) E3': its 10 logits are record T's words 0..4
  // (word i = (l_2i lo, l_2i+1 hi)). (i) E9': sust.b.2d.v4.b16.zero [+112, {8X, Y}].
  for (int T = 0; T < kE61Threads; ++T) {
    const PixelXY p = e61_pixel_of_thread(ctx.x0, ctx.y0, T);
    if (p.x < 0 || p.y < 0 || p.x >= ctx.ex || p.y >= ctx.ey) continue;
    std::array<f16_t, 10> l{};
    for (int i = 0; i < 5; ++i) {
      l[2 * i] = f16x2_lo(smem[e61_record_word(T, i, 0)]);
      l[2 * i + 1] = f16x2_hi(smem[e61_record_word(T, i, 0)]);
    }
    pixels.add(l, taps.of_pixel(p.x, p.y), t, p);
  }
  pixels.finish(*ctx.readings, dr, tab, [&](PixelXY p, const DecoderPixel& px) {
    s112.store_b16x4(8 * p.x, p.y, px.out);  // x is a byte offset: 8 bytes per RGBA16F texel
    if (ctx.stats) ++ctx.stats->pixels_written;
  });
}

float dec0_tanh(float v) {
  // DOC-d0 E19(d) steps 2..14 (dec0.md §4.4) in libdevice __nv_tanhf's order (the .ftz branch).
  const float a = ftz_f32(std::fabs(ftz_f32(v)));                               // abs.ftz.f32
  const float y = mul_ftz_f32(a, std::bit_cast<float>(kDec0Tanh2Log2e));        // a 2 log2 e
  const float e = ex2_approx_ftz_f32(y);                                        // ex2.approx.ftz
  const float r = rcp_approx_ftz_f32(add_ftz_f32(e, 1.0f));                     // rcp.approx.ftz(e + 1)
  const float big = fma_ftz_f32(r, -2.0f, 1.0f);                                // RN(1 - 2r)
  const float sat = a >= std::bit_cast<float>(kDec0TanhSaturate) ? 1.0f : big;  // setp.ge.ftz + selp
  const float signed_big = std::copysign(sat, v);                               // and/or of the sign bit
  const float x2 = mul_ftz_f32(v, v);                                           // mul.ftz v v
  float p = fma_ftz_f32(std::bit_cast<float>(kDec0TanhPoly[0]), x2, std::bit_cast<float>(kDec0TanhPoly[1]));
  for (int i = 2; i < 5; ++i) p = fma_ftz_f32(p, x2, std::bit_cast<float>(kDec0TanhPoly[static_cast<std::size_t>(i)]));
  const float small = fma_ftz_f32(p, v, v);                               // fma.rn.ftz(p, v, v)
  return a >= std::bit_cast<float>(kDec0TanhSmall) ? signed_big : small;  // s18600/01
}

void dec0_output(const BlockContext& ctx, const DecoderFinalReadings& dr, const F16Mat& d19, const DecoderTextures& t, Surface* s112,
                 SurfaceF32* s144, std::span<std::uint8_t> out48, const DecoderTables& tab) {
  const Dec0ColumnMap cols = dec0_output_columns(dr.dec0_columns);
  const std::size_t ex = static_cast<std::size_t>(ctx.ex);
  if (t.tex88 && (!t.tex96 || !t.tex104)) throw std::invalid_argument("dec0_output: tex96 and tex104 must be set with tex88");
  BlockTaps taps(t, dr.sampler, *ctx.readings, ctx.x0, ctx.y0, ctx.ex, ctx.ey);
  BlockPixels pixels;
  // (a) the gather: row T of D19 (DOC-d0 E19(a); dec0.md §4.2: srcLane 4 (laneid&7) + ((laneid>>3) + d)&3
  // brings pixel T's n-tiles to thread T). Two passes, T = laneid + 32 pass (pass 2 = pass 1 + 345
  // statements), i.e. T = 0..63 in order.
  for (int T = 0; T < kE61Threads; ++T) {
    const PixelXY p = e61_pixel_of_thread(ctx.x0, ctx.y0, T);
    // (b) setp.ge.u32 x >= ex / y >= ey, or.pred, bra past the pass's last store (C16).
    if (p.x < 0 || p.y < 0 || p.x >= ctx.ex || p.y >= ctx.ey) continue;
    // (c) 4 cvt.rn.satfinite.e4m3x2.f16x2 + st.global.v4.u16 at byte 8 (ex y + x) (DOC-d0 §4.2; C15).
    const std::size_t at = 8 * (ex * static_cast<std::size_t>(p.y) + static_cast<std::size_t>(p.x));
    if (at + 8 <= out48.size())
      for (int i = 0; i < 8; ++i)
        out48[at + static_cast<std::size_t>(i)] = quantise(ctx, d19.at(T, cols.e4m3[static_cast<std::size_t>(i)]));
    // (d)/(e) the tanh values, sust.p.2d.v4.b32.zero at texel (x, y) of +144.
    std::array<float, 4> th{};
    for (int i = 0; i < 4; ++i) {
      const f16_t h = d19.at(T, cols.tanh[static_cast<std::size_t>(i)]);
      th[static_cast<std::size_t>(i)] = tab.tanh ? tab.tanh[h] : dec0_tanh(f16_to_f32(h));
    }
    if (s144) s144->store_p(p.x, p.y, th);
    // (f)/(g) the decoder final's softmax, taps, blend, NaN guard and sust.b (dec4's E62 (c)..(i) at a
    // statement offset of 5632, dec0.md §4.5/§4.6), its 10 logits D19 columns 0..9 of row T.
    if (t.tex88 && s112) {
      std::array<f16_t, 10> l{};
      for (int i = 0; i < 10; ++i) l[static_cast<std::size_t>(i)] = d19.at(T, i);
      pixels.add(l, taps.of_pixel(p.x, p.y), t, p);
    }
    if (ctx.stats) ++ctx.stats->pixels_written;
  }
  pixels.finish(*ctx.readings, dr, tab, [&](PixelXY p, const DecoderPixel& px) { s112->store_b16x4(8 * p.x, p.y, px.out); });
}

}  // namespace rrswin::golden
