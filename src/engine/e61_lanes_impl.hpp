// E61 steps 4..6 (and the decoders' final pixels) on W pixels per vector: the one driver of the
// vector forms (the avx2 path's E61OpsX8, engine/e61_avx2_impl.hpp; the avx512 paths' E61OpsX16,
// kernels_avx512vnni.cpp). It moves each group of W pixels' inputs into lanes (pixel p0 + j in lane j), runs
// model/e61_pixel_impl.hpp's one definition on them, and moves the lanes back into pixels. The
// lanes past the last pixel hold zeros; their results are not read. Internal linkage: it is
// compiled into each kernel translation unit with that unit's target flags (kernel_args.hpp's
// header comment says why no such code may be shared between them).
#pragma once
#include <algorithm>
#include <cstring>

#include "engine/kernel_args.hpp"
#include "model/constants.hpp"
#include "model/decoder_final.hpp"
#include "model/e61_pixel_impl.hpp"
#include "model/e62_pixel_impl.hpp"

namespace rrswin::engine {
namespace {

// The logits and taps of m pixels (at(j): pixel j's E61Inputs) into lanes: pixel j in lane j, the
// lanes past the last pixel zero.
template <class H, int W, class At>
void inputs_to_lanes(At at, int m, H (&l)[10], H (&tv)[9][3]) {
  f16_t lb[10][W] = {}, tb[9][3][W] = {};
  for (int j = 0; j < m; ++j) {
    const golden::E61Inputs& x = at(j);
    for (int i = 0; i < 10; ++i) lb[i][j] = x.l[i];
    for (int i = 0; i < 9; ++i)
      for (int ch = 0; ch < 3; ++ch) tb[i][ch][j] = x.tv[i][ch];
  }
  for (int i = 0; i < 10; ++i) std::memcpy(&l[i], lb[i], sizeof(H));
  for (int i = 0; i < 9; ++i)
    for (int ch = 0; ch < 3; ++ch) std::memcpy(&tv[i][ch], tb[i][ch], sizeof(H));
}

// Ops: H = W f16 lanes, F = W binary32 lanes, constructed from the tabulated e61_exp.
template <class Ops>
void e61_pixels_lanes(const Readings& rd, const golden::E61Inputs* in, int n, const float* exp_table, golden::E61Pixel* out) {
  using H = typename Ops::H;
  using F = typename Ops::F;
  constexpr int W = static_cast<int>(sizeof(F) / sizeof(float));
  static_assert(sizeof(H) == W * sizeof(f16_t), "an f16 vector and a binary32 vector hold the same pixels");
  if (!exp_table) {  // the engine always tabulates; without a table, the golden pixel
    for (int i = 0; i < n; ++i) out[i] = golden::e61_pixel(rd, in[i], nullptr);
    return;
  }
  for (int p0 = 0; p0 < n; p0 += W) {
    const int m = std::min(W, n - p0);
    H l[10], tv[9][3];
    inputs_to_lanes<H, W>([&](int j) -> const golden::E61Inputs& { return in[p0 + j]; }, m, l, tv);
    const golden::E61Values<Ops> v = golden::e61_softmax_stencil(rd, Ops{exp_table}, l, tv);
    f16_t wb[10][W], ob[3][W];
    float sb[W], rb[W];
    for (int i = 0; i < 10; ++i) std::memcpy(wb[i], &v.w[i], sizeof(H));
    for (int ch = 0; ch < 3; ++ch) std::memcpy(ob[ch], &v.out[ch], sizeof(H));
    std::memcpy(sb, &v.sum, sizeof(F));
    std::memcpy(rb, &v.rinv, sizeof(F));
    for (int j = 0; j < m; ++j) {
      golden::E61Pixel& px = out[p0 + j];
      for (int i = 0; i < 10; ++i) px.w[i] = wb[i][j];
      px.sum = sb[j];
      px.rinv = rb[j];
      px.out = {ob[0][j], ob[1][j], ob[2][j], 0};  // out[3]: mov.u16 0 (s20296)
    }
  }
}

// The decoders' two per-lane operations (e61_pixel_impl.hpp decoder_gate_blend) over an Ops of W
// lanes: the sigmoid from its table (a function of one f16, tabulated by the engine) and the add of
// t104 skipped where t104 is a NaN, both lane by lane on the vectors' bytes (W lookups and selects,
// a few per pixel); the arithmetic is Ops's.
template <class Ops>
struct DecoderLaneOps : Ops {
  using H = typename Ops::H;
  static constexpr int W = static_cast<int>(sizeof(H) / sizeof(f16_t));
  const f16_t* sigmoid_table;
  H sigmoid(H g) const {
    f16_t b[W];
    std::memcpy(b, &g, sizeof(H));
    for (f16_t& x : b) x = sigmoid_table[x];
    H r;
    std::memcpy(&r, b, sizeof(H));
    return r;
  }
  H add_unless_nan(H o, H t) const {
    const H sum = Ops::add(o, t);
    f16_t ob[W], tb[W], sb[W];
    std::memcpy(ob, &o, sizeof(H));
    std::memcpy(tb, &t, sizeof(H));
    std::memcpy(sb, &sum, sizeof(H));
    for (int j = 0; j < W; ++j)
      if ((tb[j] & 0x7FFF) > 0x7C00) sb[j] = ob[j];  // a NaN t: o unchanged
    H r;
    std::memcpy(&r, sb, sizeof(H));
    return r;
  }
};

// The decoders' steps (c)..(h) (golden::decoder_pixel) on W pixels per vector: pixel p0 + j in lane j
// (the lanes past the last pixel hold zeros; their results are not read).
template <class Ops>
void decoder_pixels_lanes(const Readings& rd, const golden::DecoderFinalReadings& dr, const golden::DecoderPixelInputs* in, int n,
                          const golden::DecoderTables& tab, golden::DecoderPixel* out) {
  using H = typename Ops::H;
  using F = typename Ops::F;
  constexpr int W = static_cast<int>(sizeof(F) / sizeof(float));
  static_assert(sizeof(H) == W * sizeof(f16_t), "an f16 vector and a binary32 vector hold the same pixels");
  if (!tab.exp || !tab.sigmoid) {  // the engine always tabulates; without the tables, the golden pixel
    for (int i = 0; i < n; ++i) out[i] = golden::decoder_pixel(rd, dr, in[i], tab);
    return;
  }
  const DecoderLaneOps<Ops> op{Ops{tab.exp}, tab.sigmoid};
  const bool centred = dr.gate_logit == golden::DecoderGateLogit::centred;
  H one;
  {
    f16_t b[W];
    for (f16_t& x : b) x = 0x3C00;  // 1.0h
    std::memcpy(&one, b, sizeof(H));
  }
  for (int p0 = 0; p0 < n; p0 += W) {
    const int m = std::min(W, n - p0);
    H l[10], tv[9][3], t96[3], t104[3];
    inputs_to_lanes<H, W>([&](int j) -> const golden::E61Inputs& { return in[p0 + j].in; }, m, l, tv);
    f16_t t96b[3][W] = {}, t104b[3][W] = {};
    for (int j = 0; j < m; ++j)
      for (int ch = 0; ch < 3; ++ch) {
        t96b[ch][j] = in[p0 + j].t96[ch];
        t104b[ch][j] = in[p0 + j].t104[ch];
      }
    for (int ch = 0; ch < 3; ++ch) {
      std::memcpy(&t96[ch], t96b[ch], sizeof(H));
      std::memcpy(&t104[ch], t104b[ch], sizeof(H));
    }
    const golden::E61Values<DecoderLaneOps<Ops>> v = golden::decoder_softmax_stencil(rd, op, l, tv);
    const golden::DecoderBlend<DecoderLaneOps<Ops>> b = golden::decoder_gate_blend(centred, op, one, l[9], v, t96, t104);
    f16_t wb[9][W], accb[3][W], ob[3][W], sigb[W];
    float sb[W], rb[W];
    for (int i = 0; i < 9; ++i) std::memcpy(wb[i], &v.w[i], sizeof(H));
    for (int ch = 0; ch < 3; ++ch) {
      std::memcpy(accb[ch], &v.out[ch], sizeof(H));
      std::memcpy(ob[ch], &b.out[ch], sizeof(H));
    }
    std::memcpy(sigb, &b.sigma, sizeof(H));
    std::memcpy(sb, &v.sum, sizeof(F));
    std::memcpy(rb, &v.rinv, sizeof(F));
    for (int j = 0; j < m; ++j) {
      golden::DecoderPixel& px = out[p0 + j];
      for (int i = 0; i < 9; ++i) px.w[i] = wb[i][j];
      px.sum = sb[j];
      px.rinv = rb[j];
      px.acc = {accb[0][j], accb[1][j], accb[2][j]};
      px.sigma = sigb[j];
      px.out = {ob[0][j], ob[1][j], ob[2][j], 0};  // E9': the 4th stored channel is mov.u16 0
    }
  }
}

// The merge layers' final epilogue's steps (b)..(e) (golden::e62_pixel_of_core after e61_pixel) on
// W pixels per vector: pixels p0 .. p0 + W - 1 of the block in the lanes, read from and written to
// E62Lanes's lane-major arrays as they are.
template <class Ops>
void e62_lanes(const Readings& rd, const LayerReadings& lr, const float* exp_table, const f16_t* sigmoid_table, E62Lanes& io) {
  using H = typename Ops::H;
  constexpr int W = static_cast<int>(sizeof(H) / sizeof(f16_t));
  static_assert(64 % W == 0, "a block's 64 pixels fill whole vectors");
  const DecoderLaneOps<Ops> op{Ops{exp_table}, sigmoid_table};
  H quarter;
  {
    f16_t b[W];
    for (f16_t& x : b) x = golden::kE62Quarter;
    std::memcpy(&quarter, b, sizeof(H));
  }
  for (int p0 = 0; p0 < 64; p0 += W) {
    H l[12], tv[9][3];
    for (int i = 0; i < 12; ++i) std::memcpy(&l[i], &io.l[i][p0], sizeof(H));
    for (int i = 0; i < 9; ++i)
      for (int ch = 0; ch < 3; ++ch) std::memcpy(&tv[i][ch], &io.tv[i][ch][p0], sizeof(H));
    H core[10];  // the core's ten logits (golden core_logits)
    for (int i = 0; i < 10; ++i) core[i] = l[i];
    const auto v = golden::e61_softmax_stencil(rd, op, core, tv);
    const H acc[3] = {v.out[0], v.out[1], v.out[2]};
    const auto st = golden::e62_steps(lr, op, l[9], l[10], l[11], acc, quarter, H{});
    for (int c = 0; c < 4; ++c) {
      std::memcpy(&io.s112[c][p0], &st.s112[c], sizeof(H));
      std::memcpy(&io.s120[c][p0], &st.s120[c], sizeof(H));
    }
    for (int ch = 0; ch < 3; ++ch) std::memcpy(&io.quarter[ch][p0], &st.quarter[ch], sizeof(H));
  }
}

}  // namespace
}  // namespace rrswin::engine
