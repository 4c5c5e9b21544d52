// Attention, per head (facts C2..C5): phases 1..10 (Q and V chains), E10, phase 11 (the score),
// E11 (the cubic-exponent softmax), phase 12 (P V). Warp z = head z runs all of it (facts A7).
#include <vector>

#include "layout/tables.hpp"
#include "model/layer.hpp"
#include "model/phase_program.hpp"
#include "model/q8_stats.hpp"
#include "model/sum_tree.hpp"
#include "numerics/approx.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"

namespace rrswin::golden {

namespace {

f16x2_t add2(f16x2_t a, f16x2_t b) { return f16x2_add(a, b); }

E4Mat quantise_mat(const BlockContext& ctx, const F16Mat& m, int rows) {
  E4Mat q(rows, m.cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < m.cols; ++c) q.at(r, c) = quantise(ctx, m.at(r, c));
  return q;
}

}  // namespace

f16_t e11_expval(f16_t x, LayerStats* stats) {
  // facts C4 steps 1..5 (verified enc0; DOC5 E11(a) s8080..s8103): all packed f16, each rounded.
  // The constants: model/constants.hpp.
  f16_t m = f16_mul(x, kE11Scale);
  if (stats) {
    const float mf = f16_to_f32(m);
    if (mf < f16_to_f32(kE11ClampLow)) ++stats->e11_clamp_low;
    if (mf > f16_to_f32(kE11ClampHigh)) ++stats->e11_clamp_high;
  }
  m = f16_max(m, kE11ClampLow);
  m = f16_min(m, kE11ClampHigh);
  const f16_t tt = f16_fma(m, f16_neg(m), kE11Quadratic);  // m*(-m) + 0.92724609375, one rounding
  const f16_t u = f16_fma(m, tt, kE11Linear);              // m*tt + 1.375, one rounding
  return static_cast<f16_t>((u << 5) & kE11ExponentBits);  // u's mantissa becomes e's exponent (step 5)
}

E11Row e11_row(const std::array<f16_t, 96>& e) {
  // facts C4 steps 6..9: lane t holds the f16x2 pairs (cols 8i+2t, 8i+2t+1) of n-tiles i = 0..11.
  f16x2_t s[4];
  for (int t = 0; t < 4; ++t) {
    f16x2_t E[12];
    for (int i = 0; i < 12; ++i) E[i] = f16x2_pack(e[8 * i + 2 * t], e[8 * i + 2 * t + 1]);
    s[t] = e11_in_lane(E, add2);  // step 6
  }
  E11Row row;
  row.sum = fold_lanes(s, add2, [](f16x2_t v) { return f16_add(f16x2_lo(v), f16x2_hi(v)); });  // steps 7, 8
  row.rcp = rcp_f16(row.sum);                                      // cvt.f32.f16 -> rcp.approx.ftz.f32 -> cvt.rn.f16.f32
  for (int c = 0; c < 96; ++c) row.p[c] = f16_mul(e[c], row.rcp);  // step 9
  return row;
}

F16Mat score_phase(const BlockContext& ctx, const F16Mat& q, int head) {
  // facts C3: S[r][c] = mma(q8(Q[r]) . q8(Q[c]) + bias[r][c]), r = 0..63 queries (the window
  // rows), c = 0..95 keys, one k-step over the head's 32 channels (logical order on both sides).
  // E10 packs q8(D9) twice: rows 0..63 as A, all 96 rows as B (facts §H 12: both from D9). The
  // layer's score phase (enc5's 11, enc3's 9: DOC3 §3/E8, the bias at slot + 8448 + 512 i).
  // Serial heads (enc0, enc1, dec0) have a score phase per head with its own absolute bias offset
  // (DOC-e1 §2.1: phases 5 and 12, the bias at 4224 and 22656).
  const LayerSpec& l = ctx.layer();
  const Phase& ph = ctx.phase(l.score_phase(l.serial_heads() ? head : 0));
  const std::uint32_t slot = ph.relative_to_slot ? ctx.weight_map().slot_bytes() * static_cast<std::uint32_t>(head) : 0u;
  const E4Mat qa = quantise_mat(ctx, q, kWindow);
  const E4Mat qb = quantise_mat(ctx, q, kTokens);
  F16Mat s(kWindow, kTokens);
  for (int r = 0; r < kWindow; ++r)
    for (int c = 0; c < kTokens; ++c) s.at(r, c) = ctx.weights->f16_at(layout::score_bias_offset(ph.bias_begin + slot, r, c));
  const BTile b{kTokens, qb.v};  // key c's 32 channels = B column c ([n][k], as BTile holds it)
  phase_step(ctx, qa, 0, b, s);
  return s;
}

namespace {

// The stages of the attention phases, named after the layer's phases and epilogue (enc5: w1..w12,
// e11.*; enc3: w1..w10, e9.*).
struct AttentionStages {
  std::vector<StageRef> w;  // [p], p = 1..stem
  StageRef score, e, sum, rcp, p, pv;
  AttentionStages(const BlockContext& ctx) {
    const LayerSpec& l = ctx.layer();
    const int sp = l.score_phase(), pvp = l.pv_phase();
    w.resize(static_cast<std::size_t>(l.stem_phases()) + 1);
    for (int q = 1; q <= l.stem_phases(); ++q)
      w[q] =
          ctx.stage(cat("w", q + l.first_stem() - 1),
                    cat("D of phase ", q + l.first_stem() - 1, ": reg 8mi+2nt+rh = f16x2 (row 16mi+g+8rh, cols 8nt+2t, +1); warp = head"),
                    StageKind::stem_d);
    score = ctx.stage(cat("w", sp), cat("D of phase ", sp, " (score): reg 24mi+2nt+rh = f16x2 (query 16mi+g+8rh, keys 8nt+2t, +1)"),
                      StageKind::score_d);
    e = ctx.stage(cat("e", sp, ".e"), cat("E", sp, " exponents, w", sp, "'s order"), StageKind::score_d);
    sum = ctx.stage(cat("e", sp, ".sum"), cat("E", sp, " row sums: reg 2mi+rh = f16 sum of row 16mi+g+8rh in both halves"),
                    StageKind::score_row);
    rcp = ctx.stage(cat("e", sp, ".rcp"), cat("E", sp, " reciprocals: reg 2mi+rh = f16 rcp of row 16mi+g+8rh in both halves"),
                    StageKind::score_row);
    p = ctx.stage(cat("e", sp, ".p"), cat("E", sp, " probabilities, w", sp, "'s order"), StageKind::score_d);
    pv = ctx.stage(cat("w", pvp), cat("D of phase ", pvp, " (P V): reg 8mi+2nt+rh = f16x2 (row 16mi+g+8rh, cols 8nt+2t, +1)"),
                   StageKind::pv_d);
  }
  void record(int h, const HeadOut& ho) const {
    for (int mi = 0; mi < 4; ++mi) {
      if (score) record_tile(*score, h, ho.s, 16 * mi, 24 * mi, 12);
      if (e) record_tile(*e, h, ho.e, 16 * mi, 24 * mi, 12);
      if (p) record_tile(*p, h, ho.p, 16 * mi, 24 * mi, 12);
    }
    for (int lane = 0; lane < 32; ++lane)
      for (int mi = 0; mi < 4; ++mi)
        for (int rh = 0; rh < 2; ++rh) {
          const int r = 16 * mi + (lane >> 2) + 8 * rh;
          if (sum) sum->at(h, lane, 2 * mi + rh) = f16x2_pack(ho.row_sum[r], ho.row_sum[r]);
          if (rcp) rcp->at(h, lane, 2 * mi + rh) = f16x2_pack(ho.row_rcp[r], ho.row_rcp[r]);
        }
    if (pv)
      for (int mi = 0; mi < 4; ++mi) record_tile(*pv, h, ho.o, 16 * mi, 8 * mi, 4);
  }
};

// E11 (facts C4) on the score tile of one head: exponents, row sums, reciprocals, probabilities.
void softmax(const BlockContext& ctx, HeadOut& ho) {
  ho.e = F16Mat(kWindow, kTokens);
  ho.p = F16Mat(kWindow, kTokens);
  ho.row_sum.resize(kWindow);
  ho.row_rcp.resize(kWindow);
  for (int r = 0; r < kWindow; ++r) {
    std::array<f16_t, 96> e{};
    for (int c = 0; c < kTokens; ++c) e[c] = ho.e.at(r, c) = e11_expval(ho.s.at(r, c), ctx.stats);
    const E11Row row = e11_row(e);
    ho.row_sum[r] = row.sum;
    ho.row_rcp[r] = row.rcp;
    for (int c = 0; c < kTokens; ++c) ho.p.at(r, c) = row.p[c];
  }
}

// The P V phase (facts C5): O = q8(P) q8(V) over 3 k-steps (keys 32ks..32ks+31, logical = pair
// order on both operands), C = 0 for the first.
void pv_phase(const BlockContext& ctx, HeadOut& ho, int head) {
  const LayerSpec& l = ctx.layer();
  const Phase& ph = ctx.phase(l.pv_phase(l.serial_heads() ? head : 0));
  E4Mat pq(kWindow, kTokens);
  for (int r = 0; r < kWindow; ++r)
    for (int c = 0; c < kTokens; ++c) {
      const f16_t pv = ho.p.at(r, c);
      pq.at(r, c) = quantise(ctx, pv);
      if (ctx.stats) ctx.stats->p_quantised_zero += q8_counts_quantised_zero(pv, pq.at(r, c));
    }
  const E4Mat vq = quantise_mat(ctx, ho.v, kTokens);  // E11(f)/(g): movmatrix + packs = q8(V)
  ho.o = F16Mat(kWindow, kHeadDim, 0);
  for (int ks = 0; ks < ph.k_steps; ++ks) {
    BTile b;
    b.cols = kHeadDim;
    b.v.resize(32 * kHeadDim);
    for (int n = 0; n < kHeadDim; ++n)
      for (int k = 0; k < 32; ++k) b.v[static_cast<std::size_t>(n) * 32 + k] = vq.at(32 * ks + k, n);
    phase_step(ctx, pq, 32 * ks, b, ho.o);
  }
}

}  // namespace

std::vector<HeadOut> attention(const BlockContext& ctx, const E4Mat& h1) {
  const LayerSpec& l = ctx.layer();
  const int stem = l.stem_phases();  // 10 (enc5, enc4), 8 (enc3)
  std::vector<HeadOut> heads(static_cast<std::size_t>(l.heads));
  const AttentionStages st(ctx);
  // A debug stage (ctx.last_phase, facts F1) needs warp 0 = head 0 only; with serial heads, the
  // heads whose phases start at or before it.
  const int last = ctx.last_phase;
  int run_heads = l.heads;
  if (last) {
    run_heads = 1;
    while (l.serial_heads() && run_heads < l.heads && l.first_stem(run_heads) <= last) ++run_heads;
  }
  for (int h = 0; h < run_heads; ++h) {
    HeadOut& ho = heads[static_cast<std::size_t>(h)];
    const std::uint32_t slot = ctx.weight_map().slot_bytes() * static_cast<std::uint32_t>(h);
    // The stem phases (facts C2): chain A (odd p) = Q, chain B (even p) = V; phase p reads staged
    // k-slice (p-1)/2 and its B at slot + weight_begin; its C is 0 or the D of c_chain_from.
    // d[i] = the D of stem phase i (1..stem), phase number i + `before` (the front's phases
    // precede the stem: the decoders' phase 1 is the patch expand; serial heads: head h's stem
    // follows head h-1's projection, DOC-e1 §2.1 head 1 = phases 8..14). A debug stage past head
    // 0's P V (ctx.last_phase) is not a stem phase of head 0: its loop runs the whole stem.
    const int before = l.first_stem(h) - 1;
    std::vector<F16Mat> d(static_cast<std::size_t>(stem) + 1);
    for (int p = 1; p <= (last && last < stem + before ? last - before : stem); ++p) {
      const Phase& ph = ctx.phase(p + before);
      const BTile b = load_b_waddr(*ctx.weights, ph.weight_begin + (ph.relative_to_slot ? slot : 0u), kHeadDim);
      d[p] = ph.c == OperandSource::previous_d ? d[ph.c_chain_from - before] : F16Mat(kTokens, kHeadDim, 0);
      phase_step(ctx, h1, ph.a_k0, b, d[p]);
      if (st.w[p])
        for (int mi = 0; mi < 6; ++mi) record_tile(*st.w[p], h, d[p], 16 * mi, 8 * mi, 4);
    }
    if (last && last <= stem + before) continue;
    ho.q = d[stem - 1];
    ho.v = d[stem];
    ho.s = score_phase(ctx, ho.q, h);  // the score phase + E11
    softmax(ctx, ho);
    pv_phase(ctx, ho, h);
    st.record(h, ho);
  }
  return heads;
}

}  // namespace rrswin::golden
