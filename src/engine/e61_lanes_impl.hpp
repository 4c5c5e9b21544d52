// E61 steps 4..6 on W pixels per vector: the one driver of the vector forms (the avx2 path's
// E61OpsX8, engine/e61_avx2_impl.hpp; the avx512 paths' E61OpsX16, kernels_avx512vnni.cpp). It
// moves each group of W pixels' inputs into lanes (pixel p0 + j in lane j), runs
// model/e61_pixel_impl.hpp's one definition on them, and moves the lanes back into pixels. The
// lanes past the last pixel hold zeros; their results are not read. Internal linkage: it is
// compiled into each kernel translation unit with that unit's target flags (kernel_args.hpp's
// header comment says why no such code may be shared between them).
#pragma once
#include <algorithm>
#include <cstring>

#include "model/e61_pixel_impl.hpp"

namespace rrswin::engine {
namespace {

// Ops: H = W f16 lanes, F = W binary32 lanes, constructed from the tabulated e61_exp.
// kDecoder: the decoders' softmax and tap chains (golden::decoder_softmax_stencil) instead of E61's.
template <class Ops, bool kDecoder = false>
void e61_pixels_lanes(const Readings& rd, const golden::E61Inputs* in, int n, const float* exp_table, golden::E61Pixel* out) {
  using H = typename Ops::H;
  using F = typename Ops::F;
  constexpr int W = static_cast<int>(sizeof(F) / sizeof(float));
  static_assert(sizeof(H) == W * sizeof(f16_t), "an f16 vector and a binary32 vector hold the same pixels");
  if (!exp_table) {  // the engine always tabulates; without a table, the golden pixel
    for (int i = 0; i < n; ++i)
      out[i] = kDecoder ? golden::decoder_stencil_pixel(rd, in[i], nullptr) : golden::e61_pixel(rd, in[i], nullptr);
    return;
  }
  for (int p0 = 0; p0 < n; p0 += W) {
    const int m = std::min(W, n - p0);
    f16_t lb[10][W] = {}, tb[9][3][W] = {};
    for (int j = 0; j < m; ++j) {
      for (int i = 0; i < 10; ++i) lb[i][j] = in[p0 + j].l[i];
      for (int i = 0; i < 9; ++i)
        for (int ch = 0; ch < 3; ++ch) tb[i][ch][j] = in[p0 + j].tv[i][ch];
    }
    H l[10], tv[9][3];
    for (int i = 0; i < 10; ++i) std::memcpy(&l[i], lb[i], sizeof(H));
    for (int i = 0; i < 9; ++i)
      for (int ch = 0; ch < 3; ++ch) std::memcpy(&tv[i][ch], tb[i][ch], sizeof(H));
    const golden::E61Values<Ops> v =
        kDecoder ? golden::decoder_softmax_stencil(rd, Ops{exp_table}, l, tv) : golden::e61_softmax_stencil(rd, Ops{exp_table}, l, tv);
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

}  // namespace
}  // namespace rrswin::engine
