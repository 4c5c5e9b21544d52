// The MLP (facts C9..C11): 20 chunks c; the odd phase 21+2c computes the hidden chunk
// H_c = act(N W1_c + b1_c) (16x32 per warp, 4 chains x 5 k-steps), E21+2c applies the clamped
// cubic activation, and the even phase 22+2c adds q8(H_c) W2_c to the chain seeded with
// f16(T3 + residual).
#include <vector>

#include "layout/tables.hpp"
#include "model/layer.hpp"
#include "model/phase_program.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"

namespace rrswin::golden {

f16_t activation(f16_t y0, LayerStats* stats) {
  // facts C10 (verified enc0 act_pair; DOC5 s13653..s13661), each op one f16 rounding, SIGNED y
  // in the cubic (ENG's |y| is wrong, facts §H 9).
  if (stats) {
    const float v = f16_to_f32(y0);
    if (v < f16_to_f32(kActClampLow)) ++stats->act_clamp_low;
    if (v > f16_to_f32(kActClampHigh)) ++stats->act_clamp_high;
  }
  // The constants: model/constants.hpp.
  const f16_t y = f16_min(f16_max(y0, kActClampLow), kActClampHigh);  // clamp to [-2, 2]
  const f16_t a = f16_abs(y);
  const f16_t s = f16_mul(kActSlope, a);   // 0.0810546875 |y|
  const f16_t d = f16_sub(kActOffset, s);  // 0.412109375 - s
  const f16_t h = f16_mul(y, d);
  const f16_t gate = f16_add(kActHalf, h);  // 0.5 + h
  return f16_mul(y0, gate);
}

std::vector<f16_t> c22_table(const BlockContext& ctx) {
  return load_column_table(*ctx.weights, ctx.weight_map().t3(), ctx.readings->t3_chunk_order, ctx.layer().channels);
}

const F16Mat& e21_residual(const BlockContext& ctx, const F16Mat& d20, const F16Mat& n) {
  // facts C10: D20, the norm's input (enc0's verified analogue p14o), or the normalised N.
  return ctx.readings->e21_residual == E21Residual::d20 ? d20 : n;
}

namespace {

// The odd phase of chunk c (facts C9): 4 chains (n = 0..31) x C/32 k-steps (k-slice s of N), B
// banded, the first C = b1_c[n] for both rows; then E(p): the activation and its q8 (the even
// phase's A, one k-slice).
E4Mat up_projection(const BlockContext& ctx, const E4Mat& nq, const Phase& up, F16Mat& h) {
  const int rows = nq.rows, p = up.number;
  h = F16Mat(rows, kHeadDim);
  for (int r = 0; r < rows; ++r)
    for (int n = 0; n < kHeadDim; ++n) h.at(r, n) = ctx.weights->f16_at(layout::record_bias_offset(up.bias_begin, n));
  for (int s = 0; s < up.k_steps; ++s)
    phase_step(ctx, nq, 32 * s, load_b_banded(*ctx.weights, up.weight_begin, s, kHeadDim, up.k_steps), h);
  if (StageRef st = ctx.stage(cat("p", p, "d"), cat("D of phase ", p, ": reg 2nt+rh = f16x2 (row 16z+g+8rh, hidden cols 8nt+2t, +1)"),
                              StageKind::up_d))
    for (int z = 0; z < 4; ++z) record_tile(*st, z, h, 16 * z, 0, 4);
  F16Mat act(rows, kHeadDim);
  E4Mat a(rows, kHeadDim);
  for (int r = 0; r < rows; ++r)
    for (int n = 0; n < kHeadDim; ++n) {
      act.at(r, n) = activation(h.at(r, n), ctx.stats);
      a.at(r, n) = quantise(ctx, act.at(r, n));
    }
  if (StageRef st = ctx.stage(cat("e", p, ".act"), cat("E", p, " activation outputs, p", p, "d's order"), StageKind::up_d))
    for (int z = 0; z < 4; ++z) record_tile(*st, z, act, 16 * z, 0, 4);
  return a;
}

}  // namespace

MlpOut mlp(const BlockContext& ctx, const F16Mat& d20, const E20Out& norm) {
  MlpOut out;
  const LayerSpec& l = ctx.layer();
  const int rows = d20.rows, C = l.channels;
  // E20's 40 packs: q8(N), the A of every odd phase (E22..E58 re-emit the same packs, facts C9;
  // enc3: E16's packs of the normed tile, DOC3 §3/E16).
  E4Mat nq(rows, C);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < C; ++c) nq.at(r, c) = quantise(ctx, norm.n.at(r, c));

  // E21: C22[row][col] = f16(T3[col] + residual[row][col]), residual = e21_residual (enc3's E15(b):
  // T3 at 107328 plus "a half of phase 14's D", DOC3 §3/E15).
  const auto t3 = c22_table(ctx);
  const F16Mat& res = e21_residual(ctx, d20, norm.n);
  out.c22 = F16Mat(rows, C);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < C; ++c) out.c22.at(r, c) = f16_add(t3[c], res.at(r, c));

  std::vector<F16Mat> D(static_cast<std::size_t>(l.last_mlp()) + 1);
  for (int c = 0; c < l.chunks; ++c) {
    const Phase& up = ctx.phase(l.first_mlp() + 2 * c);
    const E4Mat a = up_projection(ctx, nq, up, D[up.number]);
    if (c == 0)
      if (StageRef st = ctx.stage(cat("p", up.number + 1, "c"),
                                  cat("C seeds of phase ", up.number + 1, ": reg 2nt+rh = f16x2 (row 16z+g+8rh, cols 8nt+2t, +1)"),
                                  StageKind::row_tile))
        for (int z = 0; z < 4; ++z) record_tile(*st, z, out.c22, 16 * z, 0, C / 8);

    // Even phase p+1 (facts C11): one k-step over the chunk's 32 hidden columns, B = W2_c
    // (waddr, n = 0..C-1), C = C22 or the chain's previous D (the table's c_chain_from).
    const Phase& down = ctx.phase(up.number + 1);
    const BTile b = load_b_waddr(*ctx.weights, down.weight_begin, C);
    F16Mat& d = D[down.number];
    d = down.c == OperandSource::previous_d ? D[down.c_chain_from] : out.c22;
    phase_step(ctx, a, 0, b, d);
    if (StageRef st =
            ctx.stage(cat("p", down.number, "d"), cat("D of phase ", down.number, ": reg 2nt+rh = f16x2 (row 16z+g+8rh, cols 8nt+2t, +1)"),
                      StageKind::row_tile))
      for (int z = 0; z < 4; ++z) record_tile(*st, z, d, 16 * z, 0, C / 8);
  }
  out.d60 = D[l.last_mlp()];
  return out;
}

}  // namespace rrswin::golden
