// E61 steps 4..6 (facts C14.4..C14.6: the softmax of a pixel's logits and its 3x3 stencil),
// written once over an operation set, so that the golden model (kpn_filter.cpp: src/numerics'
// functions on one pixel) and the fast engine (engine/kernels_avx512vnni.cpp: 16 pixels in the
// lanes of AVX-512 registers; engine/e61_avx2_impl.hpp: 8 pixels in AVX2 registers) run one
// definition with its readings (filter-logits,
// filter-exp-rounding, filter-sum-order, filter-weight-product, filter-pairing). Ops provides the value
// types H (f16 bits) and F (binary32) and, each equal lane for lane to the src/numerics function
// named (the engine's: tests/engine_diff_test.cpp "EngineE61"):
//   H max(H, H)          f16_max              H sub/add/mul(H, H)   f16_sub / f16_add / f16_mul
//   H fma(H, H, H)       f16_fma (one half of f16x2_fma)
//   F exp(H)             e61_exp (or its table)
//   H to_h(F)            f32_to_f16           F to_f(H)             f16_to_f32 (of to_h's results)
//   F add_ftz(F, F)      add_ftz_f32          F mul_ftz(F, F)       mul_ftz_f32
//   F rcp(F)             div_approx_ftz_f32(1, x)
// H{} and F{} are zeros. Only model/kpn_filter.cpp and the engine's kernels include this file.
#pragma once
#include "model/layer.hpp"

namespace rrswin::golden {

template <class Ops>
struct E61Values {
  typename Ops::H w[10];
  typename Ops::F sum, rinv;
  typename Ops::H out[3];
  typename Ops::H mx;  // the maximum the softmax subtracts
};

// Steps 4..5: the softmax weights w_0..w_{n-1}, their f32 sum and its reciprocal over the first n
// logits (n = 10 or 9; E61 by the reading filter-logits, the decoders' final epilogue 9), the
// maximum over the first max_n of them (max_n = n, or 9 under filter-logits = max-nine), with the
// readings filter-exp-rounding, filter-sum-order and filter-weight-product.
template <class Ops>
void e61_softmax(const Readings& rd, const Ops& op, const typename Ops::H (&l)[10], int n, E61Values<Ops>& px, int max_n = 0) {
  using H = typename Ops::H;
  using F = typename Ops::F;
  // facts C14.4: a real maximum (max.f16x2 x3 + max.f16 x2: exact, order-free), d_i = f16(l_i -
  // max), e_i = ex2.approx.ftz(f32(d_i) * log2 e) (mul.ftz.f32 by 0x3FB8AA3B), an f32 sum,
  // rinv = div.approx.ftz(1, sum), w_i = f16 products (mul.f16x2).
  H mx = l[0];
  for (int i = 1; i < (max_n > 0 ? max_n : n); ++i) mx = op.max(mx, l[i]);
  px.mx = mx;
  F e[10]{}, es[10]{};
  for (int i = 0; i < n; ++i) {
    e[i] = op.exp(op.sub(l[i], mx));
    es[i] = rd.e61_exp_rounding == E61ExpRounding::f32_sum ? e[i] : op.to_f(op.to_h(e[i]));
  }
  F sum{};
  switch (rd.e61_sum_order) {
    case E61SumOrder::sequential:
      sum = es[0];
      for (int i = 1; i < n; ++i) sum = op.add_ftz(sum, es[i]);
      break;
    case E61SumOrder::pairs:  // the f16x2 pairs' halves first, then the pair sums in order
      sum = op.add_ftz(es[0], es[1]);
      for (int i = 2; i + 1 < n; i += 2) sum = op.add_ftz(sum, op.add_ftz(es[i], es[i + 1]));
      if (n % 2) sum = op.add_ftz(sum, es[n - 1]);
      break;
    case E61SumOrder::tree: {  // balanced: adjacent pairs, pairs of pairs, odd one carried
      int m = n;
      while (m > 1) {  // in place: level entry k is written after entries 2k, 2k + 1 are read
        int k = 0;
        for (int i = 0; i + 1 < m; i += 2) es[k++] = op.add_ftz(es[i], es[i + 1]);
        if (m % 2) es[k++] = es[m - 1];
        m = k;
      }
      sum = es[0];
      break;
    }
  }
  px.sum = sum;
  px.rinv = op.rcp(sum);  // model-dependent (approx-model)
  for (int i = 0; i < n; ++i)
    px.w[i] =
        rd.e61_weight_product == E61WeightProduct::f16_mul ? op.mul(op.to_h(e[i]), op.to_h(px.rinv)) : op.to_h(op.mul_ftz(e[i], px.rinv));
}

template <class Ops>
E61Values<Ops> e61_softmax_stencil(const Readings& rd, const Ops& op, const typename Ops::H (&l)[10], const typename Ops::H (&tv)[9][3]) {
  using H = typename Ops::H;
  E61Values<Ops> px{};
  e61_softmax(rd, op, l, rd.e61_logits == E61Logits::nine ? 9 : 10, px, rd.e61_logits == E61Logits::ten ? 10 : 9);
  // facts C14.5/.6: 9 taps; per channel acc = fma.f16x2 over 4 tap pairs from 0 (lane by lane:
  // two fma.f16, lo on tap a, hi on tap b), then f16(lo + hi), then the scalar fma with the
  // single tap. w9 multiplies nothing.
  const bool last = rd.e61_pairing == E61Pairing::last_single;
  const int first_pair = last ? 0 : 1, single = last ? 8 : 0;
  for (int ch = 0; ch < 3; ++ch) {
    H lo{}, hi{};
    for (int p = 0; p < 4; ++p) {
      const int a = first_pair + 2 * p, b = a + 1;
      lo = op.fma(tv[a][ch], px.w[a], lo);
      hi = op.fma(tv[b][ch], px.w[b], hi);
    }
    px.out[ch] = op.fma(tv[single][ch], px.w[single], op.add(lo, hi));
  }
  return px;
}

// The decoders' final epilogue (dec4 E62 .. dec1 E26, dec0 E19(f); model/decoder_final.cpp's steps).
// (c) E3': 3 max.f16x2 + 2 max.f16 reduce exactly 9 halves: the max of l0..l8 (exact, order-free).
// (d) E4': d_i = sub.f16(l_i, max) (5 sub.f16x2, the 5th one's high half d9 is used only by the
// centred gate), e_i = ex2.approx.ftz(mul.ftz(f32(d_i), log2 e)), the f32 sum with add.ftz, rinv =
// div.approx.ftz(1, sum) (s24304), w_i by mul.f16x2 (s24307..s24311): enc5's E61 softmax over
// n = 9 logits, with its readings filter-exp-rounding, filter-sum-order, filter-weight-product (F.20).
// E6': 27 scalar fma.rn.f16 per pixel, one chain per channel in tap order from an f16 zero
// (the 3 cvt.rn.f16.s32, s24312..s24314): acc = fma(tap_k.ch, w_k, acc) (D2 s15687's operand
// order: tap, weight, acc).
template <class Ops>
E61Values<Ops> decoder_softmax_stencil(const Readings& rd, const Ops& op, const typename Ops::H (&l)[10],
                                       const typename Ops::H (&tv)[9][3]) {
  using H = typename Ops::H;
  E61Values<Ops> px{};
  e61_softmax(rd, op, l, 9, px);
  for (int ch = 0; ch < 3; ++ch) {
    H acc{};
    for (int k = 0; k < 9; ++k) acc = op.fma(tv[k][ch], px.w[k], acc);
    px.out[ch] = acc;
  }
  return px;
}

// The decoders' gate and blend after decoder_softmax_stencil (model/decoder_final.cpp's steps;
// dec4's E62, dec0's E19(g)). (g) E7': sigma of l9 (raw) or of d9 = sub.f16(l9, max) (centred: the
// reading decoder-gate-logit, F.17 open; max is (c)'s maximum of l0..l8). e62_sigmoid is the
// sigmoid of the merge layers' final epilogue (the same mul.ftz by -log2 e, ex2, add.ftz 1,
// div.approx, cvt.rn.f16.f32; s24415, s24418). om = sub.f16(1.0h, sigma) (s24421); per channel
// m = mul.f16(acc_ch, sigma) (s24422..s24426), out_ch = fma.rn.f16(tex96_ch, om, m); then
// set.nan.f16.f16 + setp.ne.s16 + @p bra skip the add of a NaN tex104 channel (s24428..s24441),
// else add.f16 out, out, tex104 (D3 s19647's operand order). `one` holds 1.0h (0x3C00) in every
// lane. The decoders' Ops also provide
//   H sigmoid(H)               e62_sigmoid (or its table)
//   H add_unless_nan(H o, H t) t a NaN ? o : f16_add(o, t)
template <class Ops>
struct DecoderBlend {
  typename Ops::H sigma, out[3];
};
template <class Ops>
DecoderBlend<Ops> decoder_gate_blend(bool centred_gate, const Ops& op, typename Ops::H one, typename Ops::H l9, const E61Values<Ops>& px,
                                     const typename Ops::H (&t96)[3], const typename Ops::H (&t104)[3]) {
  using H = typename Ops::H;
  DecoderBlend<Ops> b{};
  const H gate = centred_gate ? op.sub(l9, px.mx) : l9;
  b.sigma = op.sigmoid(gate);
  const H om = op.sub(one, b.sigma);
  for (int ch = 0; ch < 3; ++ch) b.out[ch] = op.add_unless_nan(op.fma(t96[ch], om, op.mul(px.out[ch], b.sigma)), t104[ch]);
  return b;
}

}  // namespace rrswin::golden
