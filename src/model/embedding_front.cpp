// enc0's front (issue 35): the input embedding and the input norm before the attention. Sources
// (d4r, facts only; docs/readings.md §10 "enc0"): DOC-e0 = kernels/rr/rrswin_enc0_epilogues.md,
// HIP-e0 = rrswin_enc0.hip (its phases 1..22 implemented and compared with d4r's ZLUDA oracle, the
// prologue kept as NVIDIA's), DESC-e0 = descriptor_enc0.py.
//
// What the prologue does is decoded by no source: it reads the network's input (+304 among the
// 1032-byte parameter block's) into a shared `input_tensor` of 10 x 10 cells x 32 e4m3 channels
// (the window and its halo) and an `input_noise` of 10 x 10 x {c0, c1, c2, 0} f16, and loads P1's A
// from the first. rrswin's enc0 therefore starts at that tensor: the layer's input is a one-plane
// arena of 32 e4m3 channels a token (read as the template's prologue reads +8, with its readings
// prologue-load-order, -halo, -fill), and the taps of its final epilogue read an image in the
// texture slot (E22's input_noise).
#include <cmath>

#include "layout/tables.hpp"
#include "model/layer.hpp"
#include "model/phase_program.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"

namespace rrswin::golden {

namespace {

// One embedding phase (HIP-e0 phases 1/2, verified at stages p1, p2): 96 x 32 x 32, one k-step, B
// in the waddr tile at the phase's weights, C = the bias record of each column pair (the same for
// every row: DESC-e0 WEIGHTS, P1 bias at 5120, P2 at 6208).
F16Mat embedding_phase(const BlockContext& ctx, const E4Mat& a, int number) {
  F16Mat d;
  if (ctx.front_gemm) {
    d = (*ctx.front_gemm)(a, number);
  } else {
    const Phase& ph = ctx.phase(number);
    d = F16Mat(kTokens, 32);
    for (int r = 0; r < kTokens; ++r)
      for (int n = 0; n < 32; ++n) d.at(r, n) = ctx.weights->f16_at(layout::record_bias_offset(ph.bias_begin, n));
    phase_step(ctx, a, 0, load_b_waddr(*ctx.weights, ph.weight_begin, 32), d);
  }
  if (StageRef st =
          ctx.stage(cat("p", number, "d"),
                    cat("D of phase ", number, " (the input embedding): reg 8mi+2nt+rh = f16x2 (row 16mi+g+8rh, cols 8nt+2t, +1)"),
                    StageKind::expand_d))
    for (int mi = 0; mi < 6; ++mi) record_tile(*st, 0, d, 16 * mi, 8 * mi, 4);
  return d;
}

}  // namespace

PrologueOut embedding_front(const BlockContext& ctx, std::span<const std::uint8_t> input_tensor) {
  // P1's A: the 96 token rows' 32 codes (the gather decodes them exactly to f16; q8 of an e4m3
  // value is its own code, but for the NaN codes, taken from the input itself).
  F16Mat xin;
  if (ctx.gather)
    (*ctx.gather)(ctx, input_tensor, xin);
  else
    prologue_gather(ctx, input_tensor, xin);
  E4Mat a(kTokens, 32);
  for (std::size_t i = 0; i < a.v.size(); ++i) a.v[i] = embedding_input_code(ctx, xin.v[i]);
  const F16Mat d1 = embedding_phase(ctx, a, 1);
  // P2's A: cvt.rn.satfinite.relu.e4m3x2.f16x2 of D1 (HIP-e0's phase-2 comment).
  E4Mat r(kTokens, 32);
  for (std::size_t i = 0; i < r.v.size(); ++i) r.v[i] = quantise_relu(ctx, d1.v[i]);
  F16Mat d2 = embedding_phase(ctx, r, 2);
  // The input norm over all 96 rows (HIP-e0 norm_as: g1 at 6272, the 4-term tree), h1 = q8 of it;
  // x = D2, the projections' residual (HIP-e0 stage e6: P7's C = T1 + D2 rows 0..63).
  return stage_input(ctx, std::move(d2), prologue_norm_spec(ctx));
}

}  // namespace rrswin::golden
