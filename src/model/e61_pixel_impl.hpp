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

// The decoders' final epilogue (dec4 E62 .. dec1 E26, dec0 E19(f); model/decoder_final.cpp steps
// (d) and E6'): the softmax over the first 9 logits (the maximum over those 9), then per channel
// one chain of 9 scalar fma.rn.f16 in tap order from an f16 zero: acc = fma(tap_k.ch, w_k, acc).
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

}  // namespace rrswin::golden
