// E12 and phases 13..20 (facts C6, C7): the output projection chained over the 8 heads, seeded
// with f16(T1 + x). Warps 0..3 run it, warp z on token rows 16z..16z+15 (facts A7); the model
// computes the 64 rows at once, row for row as the warps would.
#include <algorithm>
#include <vector>

#include "model/layer.hpp"
#include "model/phase_program.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"

namespace rrswin::golden {

namespace {

void record_warps(StageRef st, const F16Mat& m) {
  if (!st) return;
  for (int z = 0; z < 4; ++z) record_tile(*st, z, m, 16 * z, 0, m.cols / 8);
}

}  // namespace

std::vector<f16_t> c13_table(const BlockContext& ctx) {
  return load_column_table(*ctx.weights, ctx.weight_map().t1(), ctx.readings->t1_chunk_order, ctx.layer().channels);
}

const F16Mat& c13_residual(const BlockContext& ctx, const F16Mat& in_x, const E4Mat& h1, F16Mat& staged) {
  // The reading projection-residual (facts C6, §H 4): the raw decoded input (DOC3/DOC4/SWM and the
  // verified enc0 analogue) or HIP5's decode of the staged bytes. Only rows 0..63 are read.
  if (ctx.readings->c13_residual == C13Residual::raw_input) return in_x;
  staged = F16Mat(kWindow, h1.cols);
  for (std::size_t i = 0; i < staged.v.size(); ++i) staged.v[i] = e4m3_to_f16(h1.v[i]);
  return staged;
}

OutProjOut out_projection(const BlockContext& ctx, const PrologueOut& in, const std::vector<HeadOut>& heads) {
  OutProjOut out;
  const LayerSpec& l = ctx.layer();
  const int C = l.channels, first = l.first_projection(), last = l.last_projection();  // enc5 13..20, enc3 11..14
  // E12 step 5: C13[row][col] = f16(T1[col] + x[row][col]), x = c13_residual (enc3: E10(d)/(e),
  // the table at 98560 plus the prologue's residual, DOC3 §3/E10).
  const auto t1 = c13_table(ctx);
  F16Mat staged;
  const F16Mat& x = c13_residual(ctx, in.x, in.h1, staged);
  out.c13 = F16Mat(kWindow, C);
  for (int r = 0; r < kWindow; ++r)
    for (int c = 0; c < C; ++c) out.c13.at(r, c) = f16_add(t1[c], x.at(r, c));
  record_warps(ctx.stage(cat("p", first, "c"), cat("C seeds of phase ", first, ": reg 2nt+rh = f16x2 (row 16z+g+8rh, cols 8nt+2t, +1)"),
                         StageKind::row_tile),
               out.c13);

  // E12 steps 1..2 + E13..E19: head j's D12, requantised, is phase 13+j's A (facts C6.1, C7).
  // Phase 13+j: one k-step, B = Wo_j (waddr, n = 0..C-1), C = C13 or the previous phase's D.
  // Serial heads: head h's projection is phase projection_phase(h) (enc1's 7 and 14, DOC-e1 §2.1),
  // chained on the previous head's D (DOC-e1 §3/E13: P14's C = D7).
  std::vector<F16Mat> D(static_cast<std::size_t>(last) + 1);  // D[p]: the phase's D, for the table's chaining
  for (int head = 0; head < l.heads; ++head) {
    const int p = l.projection_phase(head);
    if (ctx.last_phase && p > ctx.last_phase) break;
    const Phase& ph = ctx.phase(p);
    E4Mat a(kWindow, kHeadDim);
    for (int r = 0; r < kWindow; ++r)
      for (int k = 0; k < kHeadDim; ++k) a.at(r, k) = quantise(ctx, heads[static_cast<std::size_t>(head)].o.at(r, k));
    const BTile b = load_b_waddr(*ctx.weights, ph.weight_begin, C);
    F16Mat& d = D[p];
    d = ph.c == OperandSource::previous_d ? D[ph.c_chain_from] : out.c13;
    phase_step(ctx, a, 0, b, d);
    record_warps(
        ctx.stage(cat("p", p, "d"), cat("D of phase ", p, ": reg 2nt+rh = f16x2 (row 16z+g+8rh, cols 8nt+2t, +1)"), StageKind::row_tile),
        d);
  }
  out.d20 = D[last];
  return out;
}

}  // namespace rrswin::golden
