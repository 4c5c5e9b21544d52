// Phase 61 and E61 (facts C12, C14): 16 logits per token, shared records, a 10-way softmax and a
// 3x3 texture gather written to the RGBA16F surface.
#include <algorithm>
#include <bit>
#include <vector>

#include "layout/tables.hpp"
#include "model/decoder_final.hpp"
#include "model/e61_pixel_impl.hpp"
#include "model/layer.hpp"
#include "model/layer_golden.hpp"
#include "model/phase_program.hpp"
#include "model/texture_surface.hpp"
#include "numerics/approx.hpp"
#include "numerics/f16.hpp"

namespace rrswin::golden {

F16Mat logits_phase(const BlockContext& ctx, const E4Mat& a, const Phase& ph, const std::string& stage) {
  // facts C12: 2 chains (n-tiles 0, 1) x C/32 k-steps (k-slice s of q8(D60)); B at
  // W + weight_begin + 512 s (n-tile 1 at +8 of the lane's 16 bytes = waddr with n < 16); C = the
  // two bias records. enc5's phase 61, enc4's 62 (model/layer_program.hpp).
  F16Mat d(a.rows, kLogits);
  for (int r = 0; r < a.rows; ++r)
    for (int n = 0; n < kLogits; ++n) d.at(r, n) = ctx.weights->f16_at(layout::record_bias_offset(ph.bias_begin, n));
  for (int s = 0; s < ph.k_steps; ++s)
    phase_step(ctx, a, 32 * s, load_b_waddr(*ctx.weights, ph.weight_begin + 512u * static_cast<std::uint32_t>(s), kLogits), d);
  if (StageRef st =
          ctx.stage(stage, cat("D of phase ", ph.number, ": reg 2nt+rh = f16x2 (row 16z+g+8rh, cols 8nt+2t, +1)"), StageKind::final_d))
    for (int z = 0; z < 4; ++z) record_tile(*st, z, d, 16 * z, 0, 2);
  return d;
}

F16Mat phase61(const BlockContext& ctx, const E4Mat& a61) { return logits_phase(ctx, a61, phase(61), "p61d"); }

std::array<std::array<int, 2>, 9> e61_taps(const Readings& rd, int X, int Y, int ex, int ey) {
  // facts C14.5 / Errata 3 / C14.6: the readings filter-border and filter-tap-map (model/index_maps.hpp).
  std::array<std::array<int, 2>, 9> taps{};
  for (int i = 0; i < 9; ++i) {
    const PixelXY p = e61_tap(rd.e61_border, rd.e61_tap_map, X, Y, ex, ey, i);
    taps[i] = {p.x, p.y};
  }
  return taps;
}

float e61_exp(f16_t d) {
  return ex2_approx_ftz_f32(mul_ftz_f32(f16_to_f32(d), std::bit_cast<float>(kLog2eF32Bits)));  // model-dependent (approx-model)
}

namespace {
// src/numerics' functions on one pixel (e61_pixel_impl.hpp's Ops): the golden definition.
struct NumericsE61Ops {
  using H = f16_t;
  using F = float;
  const float* exp_table;
  H max(H a, H b) const { return f16_max(a, b); }
  H sub(H a, H b) const { return f16_sub(a, b); }
  H add(H a, H b) const { return f16_add(a, b); }
  H mul(H a, H b) const { return f16_mul(a, b); }
  H fma(H a, H b, H c) const { return f16_fma(a, b, c); }  // one half of fma.f16x2 (f16x2_fma)
  F exp(H d) const { return exp_table ? exp_table[d] : e61_exp(d); }
  H to_h(F x) const { return f32_to_f16(x); }
  F to_f(H h) const { return f16_to_f32(h); }
  F add_ftz(F a, F b) const { return add_ftz_f32(a, b); }
  F mul_ftz(F a, F b) const { return mul_ftz_f32(a, b); }
  F rcp(F x) const { return div_approx_ftz_f32(1.0f, x); }  // model-dependent (approx-model)
  // The decoders' (decoder_gate_blend).
  const f16_t* sigmoid_table = nullptr;
  H sigmoid(H g) const { return sigmoid_table ? sigmoid_table[g] : e62_sigmoid(g); }
  H add_unless_nan(H o, H t) const { return f16_is_nan(t) ? o : f16_add(o, t); }
};

void e61_pixels_golden(const Readings& rd, const E61Inputs* in, int n, const float* exp_table, E61Pixel* out) {
  for (int i = 0; i < n; ++i) out[i] = e61_pixel(rd, in[i], exp_table);
}
}  // namespace

E61Inputs e61_inputs(const Readings& rd, const std::array<f16_t, 10>& l, const Texture& tex, int X, int Y, int ex, int ey) {
  E61Inputs in;
  in.l = l;
  const auto taps = e61_taps(rd, X, Y, ex, ey);
  for (int i = 0; i < 9; ++i) {
    const std::array<f16_t, 4> t = tex.fetch(taps[i][0], taps[i][1]);
    in.tv[i] = {t[0], t[1], t[2]};  // the alpha channel is read and not used
  }
  return in;
}

E61Pixel e61_pixel(const Readings& rd, const E61Inputs& in, const float* exp_table) {
  f16_t l[10], tv[9][3];
  for (int i = 0; i < 10; ++i) l[i] = in.l[i];
  for (int i = 0; i < 9; ++i)
    for (int ch = 0; ch < 3; ++ch) tv[i][ch] = in.tv[i][ch];
  const E61Values<NumericsE61Ops> v = e61_softmax_stencil(rd, NumericsE61Ops{exp_table, nullptr}, l, tv);  // e61_pixel_impl.hpp
  E61Pixel px;
  for (int i = 0; i < 10; ++i) px.w[i] = v.w[i];
  px.sum = v.sum;
  px.rinv = v.rinv;
  px.out = {v.out[0], v.out[1], v.out[2], 0};  // out[3]: mov.u16 0 (s20296)
  return px;
}

DecoderPixel decoder_pixel(const Readings& rd, const DecoderFinalReadings& dr, const DecoderPixelInputs& in, const DecoderTables& tab) {
  f16_t l[10], tv[9][3], t96[3], t104[3];
  for (int i = 0; i < 10; ++i) l[i] = in.in.l[i];
  for (int i = 0; i < 9; ++i)
    for (int ch = 0; ch < 3; ++ch) tv[i][ch] = in.in.tv[i][ch];
  for (int ch = 0; ch < 3; ++ch) {
    t96[ch] = in.t96[ch];
    t104[ch] = in.t104[ch];
  }
  const NumericsE61Ops op{tab.exp, tab.sigmoid};
  const E61Values<NumericsE61Ops> v = decoder_softmax_stencil(rd, op, l, tv);  // e61_pixel_impl.hpp
  const DecoderBlend<NumericsE61Ops> b =
      decoder_gate_blend(dr.gate_logit == DecoderGateLogit::centred, op, f16_t{0x3C00}, l[9], v, t96, t104);
  DecoderPixel px;
  for (int i = 0; i < 9; ++i) px.w[i] = v.w[i];
  px.sum = v.sum;
  px.rinv = v.rinv;
  for (int ch = 0; ch < 3; ++ch) {
    px.acc[ch] = v.out[ch];
    px.out[ch] = b.out[ch];
  }
  px.sigma = b.sigma;
  px.out[3] = 0;  // E9': the 4th stored channel is mov.u16 0
  return px;
}

E61Pixel decoder_stencil_pixel(const Readings& rd, const E61Inputs& in, const float* exp_table) {
  f16_t l[10], tv[9][3];
  for (int i = 0; i < 10; ++i) l[i] = in.l[i];
  for (int i = 0; i < 9; ++i)
    for (int ch = 0; ch < 3; ++ch) tv[i][ch] = in.tv[i][ch];
  const E61Values<NumericsE61Ops> v = decoder_softmax_stencil(rd, NumericsE61Ops{exp_table, nullptr}, l, tv);  // e61_pixel_impl.hpp
  E61Pixel px;
  for (int i = 0; i < 10; ++i) px.w[i] = v.w[i];
  px.sum = v.sum;
  px.rinv = v.rinv;
  px.out = {v.out[0], v.out[1], v.out[2], 0};
  return px;
}

E61Pixel e61_pixel(const Readings& rd, const std::array<f16_t, 10>& l, const Texture& tex, int X, int Y, int ex, int ey,
                   const float* exp_table) {
  return e61_pixel(rd, e61_inputs(rd, l, tex, X, Y, ex, ey), exp_table);
}

std::vector<std::uint32_t> e61_records(const BlockContext& ctx, const F16Mat& d) {
  // (a) shared records (facts C14.1): record r = token row r, 6 words; warp z writes word t of
  // records 16z+g (rh 0) and 16z+g+8 (rh 1) from n-tile 0 and word t+4 from n-tile 1, in the PTX
  // order s20078 (rh0, +0), s20082 (rh0, +16), s20093 (rh1, +0), s20095 (rh1, +16). The +16 store
  // is guarded by the reading filter-record-guard; without the guard, lanes t = 2, 3 write into the
  // next record; overlapping writes then resolve in program order within a warp and in warp order
  // across warps (a documented choice: the hardware order across warps is not specified).
  std::vector<std::uint32_t> smem(kE61Threads * kE61RecordWords + 8, 0u);  // + the unguarded stores past record 63
  for (int z = 0; z < 4; ++z)
    for (int rh = 0; rh < 2; ++rh)
      for (int nt = 0; nt < 2; ++nt)
        for (int lane = 0; lane < 32; ++lane) {
          const int g = lane >> 2, t = lane & 3, r = 16 * z + g + 8 * rh;
          if (!e61_record_stored(ctx.readings->e61_record_guard, t, nt)) continue;
          smem[e61_record_word(r, t, nt)] = f16x2_pack(d.at(r, 8 * nt + 2 * t), d.at(r, 8 * nt + 2 * t + 1));
        }
  return smem;
}

void e61(const BlockContext& ctx, const F16Mat& d61, const Texture& tex, Surface& surf, const float* exp_table, E61PixelsFn pixels) {
  // (a) the shared records (e61_records, facts C14.1).
  const std::vector<std::uint32_t> smem = e61_records(ctx, d61);

  StageRef sl =
      ctx.stage("e61.logits", "E61 thread T = 32 warp + lane: reg i = shared record word i (logits 2i, 2i+1)", StageKind::final_words);
  StageRef sw = ctx.stage("e61.w", "E61 weights: reg i = f16x2 (w_2i, w_2i+1)", StageKind::final_words);
  StageRef ss = ctx.stage("e61.sum", "E61: reg 0 = f32 bits of the exponential sum, reg 1 = f32 bits of rinv", StageKind::final_pair);
  if (ss) ss->kind = TraceStage::Kind::f32;
  StageRef so = ctx.stage("e61.out", "E61 surface value: reg 0 = (r | g<<16), reg 1 = (b | a<<16)", StageKind::final_pair);
  // (b)..(e): thread T < 64 (warps 0, 1) finishes pixel (x0 + (T&7), y0 + (T>>3)) (facts A7): its
  // logits from record T and its taps first, then steps 4..6 of every pixel (`pixels`), then the
  // stores in thread order.
  std::array<E61Inputs, kE61Threads> in;
  std::array<int, kE61Threads> thread{};
  int n = 0;
  for (int T = 0; T < kE61Threads; ++T) {
    const auto [X, Y] = e61_pixel_of_thread(ctx.x0, ctx.y0, T);
    if (X < 0 || Y < 0 || X >= ctx.ex || Y >= ctx.ey) continue;
    std::array<f16_t, 10> l{};
    for (int i = 0; i < 5; ++i) {
      l[2 * i] = f16x2_lo(smem[e61_record_word(T, i, 0)]);
      l[2 * i + 1] = f16x2_hi(smem[e61_record_word(T, i, 0)]);
    }
    in[n] = e61_inputs(*ctx.readings, l, tex, X, Y, ctx.ex, ctx.ey);
    thread[n++] = T;
  }
  std::array<E61Pixel, kE61Threads> out;
  (pixels ? pixels : e61_pixels_golden)(*ctx.readings, in.data(), n, exp_table, out.data());
  for (int k = 0; k < n; ++k) {
    const int T = thread[k];
    const E61Pixel& px = out[k];
    const auto [X, Y] = e61_pixel_of_thread(ctx.x0, ctx.y0, T);
    surf.store_b16x4(8 * X, Y, px.out);  // x is a byte offset: 8 bytes per RGBA16F texel
    if (ctx.stats) ++ctx.stats->pixels_written;
    const int w = T >> 5, lane = T & 31;
    for (int i = 0; i < 5; ++i) {
      if (sl) sl->at(w, lane, i) = smem[e61_record_word(T, i, 0)];
      if (sw) sw->at(w, lane, i) = f16x2_pack(px.w[2 * i], px.w[2 * i + 1]);
    }
    if (ss) {
      ss->at(w, lane, 0) = std::bit_cast<std::uint32_t>(px.sum);
      ss->at(w, lane, 1) = std::bit_cast<std::uint32_t>(px.rinv);
    }
    if (so) {
      so->at(w, lane, 0) = f16x2_pack(px.out[0], px.out[1]);
      so->at(w, lane, 1) = f16x2_pack(px.out[2], px.out[3]);
    }
  }
}

}  // namespace rrswin::golden
