// E61 steps 4..6 for one pixel (facts C14.4..C14.6), written once over an f16 operation set, so
// that the golden model (kpn_filter.cpp: src/numerics' software f16 operations) and the fast
// engine (engine/block.cpp: its hardware binary32 / binary64 forms of the same operations, each
// tested equal to src/numerics in tests/engine_diff_test.cpp "EngineF16") run one definition with
// its readings (e61-logits, e61-exp-rounding, e61-sum-order, e61-weight-product, e61-pairing).
// Ops provides, each bit-identical to the src/numerics function named:
//   f16_t max(f16_t, f16_t)            f16_max
//   f16_t sub(f16_t, f16_t)            f16_sub
//   f16_t mul(f16_t, f16_t)            f16_mul
//   f16_t add(f16_t, f16_t)            f16_add
//   f16_t fma(f16_t, f16_t, f16_t)     f16_fma
//   f16_t to_f16(float)                f32_to_f16
//   float to_f32(f16_t)                f16_to_f32
// Only model/kpn_filter.cpp and engine/block.cpp include this file.
#pragma once
#include <array>
#include <vector>

#include "model/layer.hpp"
#include "model/texture_surface.hpp"
#include "numerics/approx.hpp"

namespace enc5::golden {

template <class Ops>
E61Pixel e61_pixel_with(const Readings& rd, const std::array<f16_t, 10>& l, const Texture& tex, int X, int Y, int ex, int ey,
                        const float* exp_table) {
  E61Pixel px;
  // facts C14.4: a real maximum (max.f16x2 x3 + max.f16 x2: exact, order-free), d_i = f16(l_i -
  // max), e_i = ex2.approx.ftz(f32(d_i) * log2 e) (mul.ftz.f32 by 0x3FB8AA3B), an f32 sum,
  // rinv = div.approx.ftz(1, sum), w_i = f16 products (mul.f16x2).
  const int n = rd.e61_logits == E61Logits::ten ? 10 : 9;
  f16_t mx = l[0];
  for (int i = 1; i < n; ++i) mx = Ops::max(mx, l[i]);
  float e[10] = {}, es[10] = {};
  for (int i = 0; i < n; ++i) {
    const f16_t d = Ops::sub(l[i], mx);
    e[i] = exp_table ? exp_table[d] : e61_exp(d);
    es[i] = rd.e61_exp_rounding == E61ExpRounding::f32_sum ? e[i] : Ops::to_f32(Ops::to_f16(e[i]));
  }
  float sum = 0;
  switch (rd.e61_sum_order) {
    case E61SumOrder::sequential:
      sum = es[0];
      for (int i = 1; i < n; ++i) sum = add_ftz_f32(sum, es[i]);
      break;
    case E61SumOrder::pairs: {  // the f16x2 pairs' halves first, then the pair sums in order
      sum = add_ftz_f32(es[0], es[1]);
      for (int i = 2; i + 1 < n; i += 2) sum = add_ftz_f32(sum, add_ftz_f32(es[i], es[i + 1]));
      if (n % 2) sum = add_ftz_f32(sum, es[n - 1]);
      break;
    }
    case E61SumOrder::tree: {  // balanced: adjacent pairs, pairs of pairs, odd one carried
      std::vector<float> lv(es, es + n);
      while (lv.size() > 1) {
        std::vector<float> nx;
        for (std::size_t i = 0; i + 1 < lv.size(); i += 2) nx.push_back(add_ftz_f32(lv[i], lv[i + 1]));
        if (lv.size() % 2) nx.push_back(lv.back());
        lv.swap(nx);
      }
      sum = lv[0];
      break;
    }
  }
  px.sum = sum;
  px.rinv = div_approx_ftz_f32(1.0f, sum);  // model-dependent (approx-model)
  for (int i = 0; i < n; ++i)
    px.w[i] = rd.e61_weight_product == E61WeightProduct::f16_mul ? Ops::mul(Ops::to_f16(e[i]), Ops::to_f16(px.rinv))
                                                                 : Ops::to_f16(mul_ftz_f32(e[i], px.rinv));
  // facts C14.5/.6: 9 taps; per channel acc = fma.f16x2 over 4 tap pairs from 0 (lane by lane:
  // two fma.f16), then f16(lo + hi), then the scalar fma with the single tap. w9 multiplies nothing.
  const auto taps = e61_taps(rd, X, Y, ex, ey);
  std::array<std::array<f16_t, 4>, 9> tv{};
  for (int i = 0; i < 9; ++i) tv[i] = tex.fetch(taps[i][0], taps[i][1]);
  const bool last = rd.e61_pairing == E61Pairing::last_single;
  const int first_pair = last ? 0 : 1, single = last ? 8 : 0;
  for (int ch = 0; ch < 3; ++ch) {
    f16_t lo = 0, hi = 0;
    for (int p = 0; p < 4; ++p) {
      const int a = first_pair + 2 * p, b = a + 1;
      lo = Ops::fma(tv[a][ch], px.w[a], lo);
      hi = Ops::fma(tv[b][ch], px.w[b], hi);
    }
    const f16_t s = Ops::add(lo, hi);
    px.out[ch] = Ops::fma(tv[single][ch], px.w[single], s);
  }
  px.out[3] = 0;  // mov.u16 0 (s20296)
  return px;
}

}  // namespace enc5::golden
