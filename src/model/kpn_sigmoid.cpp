// The merge layers' final epilogue: enc4's E62 (DOC4 §3/E62, s21345..s21667) and enc3's E48 (DOC3
// §3/E48, s16861..s17183), 323 statements each. DOC4/DOC3 list its operations; the same epilogue
// of enc0 (DOC0 §3/E22) and enc1 (DOC1 §3/E32) names more of its operands. What none of them
// connects is a reading of LayerReadings (docs/readings.md §7 "sigmoid-*"); enc5's E61 core (records,
// softmax, stencil) is called, with enc5's readings filter-*, since DOC4 and DOC3 describe the same
// statements ("the same pattern", 9 tex.base.2d, 4 fma.rn.f16x2 pairs + one fma.rn.f16).
#include <bit>
#include <vector>

#include "model/constants.hpp"
#include "model/e62_pixel_impl.hpp"
#include "model/index_maps.hpp"
#include "model/layer_golden.hpp"
#include "numerics/approx.hpp"
#include "numerics/f16.hpp"
#include "numerics/f32.hpp"
#include "numerics/warp.hpp"

namespace rrswin::golden {

f16_t e62_sigmoid(f16_t v) {
  // DOC1 E32(c): cvt.f32.f16, mul.ftz.f32 by 0fBFB8AA3B, ex2.approx.ftz.f32, add.ftz.f32
  // 0f3F800000, div.approx.ftz.f32 0f3F800000 / that; cvt.rn.f16.f32 (DOC4 §1.3).
  const float t = mul_ftz_f32(f16_to_f32(v), std::bit_cast<float>(kMinusLog2eF32Bits));
  const float den = add_ftz_f32(ex2_approx_ftz_f32(t), std::bit_cast<float>(kOneF32Bits));
  return f32_to_f16(div_approx_ftz_f32(std::bit_cast<float>(kOneF32Bits), den));  // model-dependent (approx-model)
}

namespace {

std::array<f16_t, 10> core_logits(const std::array<f16_t, 12>& l) {
  std::array<f16_t, 10> soft{};
  for (int i = 0; i < 10; ++i) soft[i] = l[i];
  return soft;
}

// src/numerics' functions on one pixel (e62_pixel_impl.hpp's Ops).
struct NumericsE62Ops {
  using H = f16_t;
  const f16_t* sigmoid_table;
  H mul(H a, H b) const { return f16_mul(a, b); }
  H sub(H a, H b) const { return f16_sub(a, b); }
  H sigmoid(H v) const { return sigmoid_table ? sigmoid_table[v] : e62_sigmoid(v); }
};

// Steps (d), (e) of a pixel whose enc5 core (b)/(c) `core` holds (e62_pixel_impl.hpp).
E62Pixel e62_pixel_of_core(const LayerReadings& lr, const std::array<f16_t, 12>& l, const E61Pixel& core, const f16_t* sigmoid_table) {
  const f16_t acc[3] = {core.out[0], core.out[1], core.out[2]};
  const E62Steps<NumericsE62Ops> st = e62_steps(lr, NumericsE62Ops{sigmoid_table}, l[9], l[10], l[11], acc, kE62Quarter, f16_t{0});
  E62Pixel px;
  px.core = core;
  px.second_sigmoid = st.second_sigmoid;
  for (int ch = 0; ch < 3; ++ch) {
    px.gate[ch] = st.gate[ch];
    px.prod[ch] = st.prod[ch];
    px.diff[ch] = st.diff[ch];
    px.quarter[ch] = st.quarter[ch];
  }
  for (int c = 0; c < 4; ++c) {
    px.s112[c] = st.s112[c];
    px.s120[c] = st.s120[c];
  }
  return px;
}

}  // namespace

E62Pixel e62_pixel(const Readings& r, const LayerReadings& lr, const std::array<f16_t, 12>& l, const Texture& tex, int X, int Y, int ex,
                   int ey, const float* exp_table, const f16_t* sigmoid_table) {
  // (b)/(c): enc5's core; acc = the three filtered channels.
  return e62_pixel_of_core(lr, l, e61_pixel(r, core_logits(l), tex, X, Y, ex, ey, exp_table), sigmoid_table);
}

void e62(const BlockContext& ctx, const LayerReadings& lr, const F16Mat& d, const Texture& tex, const E62Surfaces& out,
         const float* exp_table, const f16_t* sigmoid_table, E61PixelsFn pixels) {
  // (a) DOC4 E62(a): 4*(6*index + t) with the > 5 guard on the second word: enc5's records. enc1's
  // E32 (one warp, two passes T = lane, lane + 32: DOC-e1 §3/E32(a)/(b)) has no shared memory: it
  // gathers row T of the final phase's D from the lanes that hold it (selp + shfl.sync.idx), so the
  // logits are D's own values and the reading filter-record-guard does not apply.
  // enc0's E22 gathers its rows as E32 does (DOC-e0 §3/E22(a)); its taps read input_noise, the image
  // in the texture slot here (model/embedding_front.cpp).
  const bool one_warp = ctx.layer().final_epilogue == FinalEpilogueKind::kpn_filter_sigmoid_one_warp ||
                        ctx.layer().final_epilogue == FinalEpilogueKind::kpn_filter_sigmoid_shared_taps;
  const std::vector<std::uint32_t> smem = one_warp ? std::vector<std::uint32_t>{} : e61_records(ctx, d);
  // Stages named after the layer's final epilogue: e62.* (enc4), e48.* (enc3).
  const int fe = ctx.layer().final_phase();
  StageRef sg =
      ctx.stage(cat("e", fe, ".gate"), cat("E", fe, " thread T = 32 warp + lane: reg 0 = f16x2 (g_0, g_1), reg 1 = (g_2, second sigmoid)"),
                StageKind::final_pair);
  StageRef sq = ctx.stage(cat("e", fe, ".quad"),
                          cat("E", fe, ": reg 0 = f16x2 (q_0, q_1), reg 1 = (q_2, 0): the 0.25-scaled quad values before the shfl sum"),
                          StageKind::final_pair);
  StageRef ss =
      ctx.stage(cat("e", fe, ".sum"), cat("E", fe, ": reg 0 = f16x2 (sum_0, sum_1), reg 1 = (sum_2, 0) after shfl.sync.down +1, +8"),
                StageKind::final_pair);
  std::array<std::array<f16_t, 3>, kE61Threads> q{};
  std::array<bool, kE61Threads> active{};
  // The active threads' logits and their enc5 cores ((b)/(c)), all at once: `pixels` is the engine's
  // vector form of e61_pixel (golden's per pixel when null).
  std::array<std::array<f16_t, 12>, kE61Threads> logits{};
  std::array<E61Inputs, kE61Threads> in;
  std::array<int, kE61Threads> thread_of{};
  int n = 0;
  for (int T = 0; T < kE61Threads; ++T) {
    const PixelXY p = e61_pixel_of_thread(ctx.x0, ctx.y0, T);
    // DOC0 E22(b), DOC1 E32(b): setp.ge.u32 x >= ex, y >= ey (unsigned: negative too) -> skip (b)..(f).
    if (p.x < 0 || p.y < 0 || p.x >= ctx.ex || p.y >= ctx.ey) continue;
    active[T] = true;
    std::array<f16_t, 12>& l = logits[T];
    for (int i = 0; i < 6; ++i) {
      l[2 * i] = one_warp ? d.at(T, 2 * i) : f16x2_lo(smem[e61_record_word(T, i, 0)]);
      l[2 * i + 1] = one_warp ? d.at(T, 2 * i + 1) : f16x2_hi(smem[e61_record_word(T, i, 0)]);
    }
    in[static_cast<std::size_t>(n)] = e61_inputs(*ctx.readings, core_logits(l), tex, p.x, p.y, ctx.ex, ctx.ey);
    thread_of[static_cast<std::size_t>(n++)] = T;
  }
  std::array<E61Pixel, kE61Threads> core;
  if (pixels)
    pixels(*ctx.readings, in.data(), n, exp_table, core.data());
  else
    for (int i = 0; i < n; ++i) core[static_cast<std::size_t>(i)] = e61_pixel(*ctx.readings, in[static_cast<std::size_t>(i)], exp_table);
  for (int i = 0; i < n; ++i) {
    const int T = thread_of[static_cast<std::size_t>(i)];
    const PixelXY p = e61_pixel_of_thread(ctx.x0, ctx.y0, T);
    const E62Pixel px = e62_pixel_of_core(lr, logits[T], core[static_cast<std::size_t>(i)], sigmoid_table);
    q[T] = px.quarter;
    out.s112->store_b16x4(8 * p.x, p.y, px.s112);
    out.s120->store_b16x4(8 * p.x, p.y, px.s120);
    if (ctx.stats) ++ctx.stats->pixels_written;
    if (sg) {
      sg->at(T >> 5, T & 31, 0) = f16x2_pack(px.gate[0], px.gate[1]);
      sg->at(T >> 5, T & 31, 1) = f16x2_pack(px.gate[2], px.second_sigmoid);
    }
    if (sq) {
      sq->at(T >> 5, T & 31, 0) = f16x2_pack(px.quarter[0], px.quarter[1]);
      sq->at(T >> 5, T & 31, 1) = f16x2_pack(px.quarter[2], 0);
    }
  }
  // (d) the cross-lane sum: v += shfl.down(v, 1), then v += shfl.down(v, 8), clamp 31: a source
  // lane past 31 gives the lane's own value (PTX ISA shfl.sync); add.f16x2 for channels 0/1,
  // add.f16 for channel 2 (the same f16 additions). A source lane that skipped E62 gives the
  // reading sigmoid-inactive-lane.
  auto shfl_down = [&](const std::array<std::array<f16_t, 3>, kE61Threads>& v, int T, int delta) {
    // c = (WARP_SZ << 8) - 8192 | 31 = 0x1f (DOC4 s21619..s21641): the whole warp, clamp at 31.
    const ShflSource src = shfl_source(ShflKind::down, static_cast<unsigned>(T & 31), static_cast<std::uint32_t>(delta), 0x1fu);
    if (!src.in_range) return v[T];
    const int S = (T & ~31) + static_cast<int>(src.lane);
    if (!active[S]) return lr.e62_inactive_lane == E62InactiveLane::own ? v[T] : std::array<f16_t, 3>{};
    return v[S];
  };
  std::array<std::array<f16_t, 3>, kE61Threads> s1{}, s2{};
  for (int T = 0; T < kE61Threads; ++T) {
    const auto o = shfl_down(q, T, kE62ShflDeltaX);
    for (int ch = 0; ch < 3; ++ch) s1[T][ch] = f16_add(q[T][ch], o[ch]);
  }
  for (int T = 0; T < kE61Threads; ++T) {
    const auto o = shfl_down(s1, T, kE62ShflDeltaY);
    for (int ch = 0; ch < 3; ++ch) s2[T][ch] = f16_add(s1[T][ch], o[ch]);
  }
  // (e) the third store: guarded by one bit of (X | Y) (sigmoid-quad-writer), at the half-resolution
  // pixel (X>>1, Y>>1) of +128, 0 in the fourth channel (DOC3 s17180 mov.u16 0).
  for (int T = 0; T < kE61Threads; ++T) {
    if (!active[T]) continue;
    const PixelXY p = e61_pixel_of_thread(ctx.x0, ctx.y0, T);
    const bool odd = ((p.x | p.y) & 1) != 0;
    if (odd != (lr.e62_quad_writer == E62QuadWriter::odd)) continue;
    out.s128->store_b16x4(8 * (p.x >> 1), p.y >> 1, {s2[T][0], s2[T][1], s2[T][2], 0});
    if (ss) {
      ss->at(T >> 5, T & 31, 0) = f16x2_pack(s2[T][0], s2[T][1]);
      ss->at(T >> 5, T & 31, 1) = f16x2_pack(s2[T][2], 0);
    }
  }
}

}  // namespace rrswin::golden
