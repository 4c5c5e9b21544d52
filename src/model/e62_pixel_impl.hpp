// The merge layers' final epilogue, steps (d) and (e) of one pixel after its enc5 core (the gate,
// the products and differences, the 0.25-scaled quad values and the stored channels;
// model/kpn_sigmoid.cpp), written once over an operation set as model/e61_pixel_impl.hpp's steps
// are: the golden model runs it on one pixel with src/numerics' functions, the fast engine on
// 8 / 16 pixels per vector (engine/e61_lanes_impl.hpp). Ops provides H (f16 bits) and
//   H mul(H, H), H sub(H, H)   f16_mul / f16_sub
//   H sigmoid(H)               e62_sigmoid (or its table)
// with the readings sigmoid-gate, sigmoid-difference, sigmoid-quad-value and sigmoid-alpha.
#pragma once
#include "model/layer_golden.hpp"

namespace rrswin::golden {

template <class Ops>
struct E62Steps {
  typename Ops::H gate[3], prod[3], diff[3], quarter[3];
  typename Ops::H second_sigmoid;  // the sigmoid of the logit the gate does not take
  typename Ops::H s112[4], s120[4];
};

// l9, l10, l11: logits 9..11 of the pixel; acc: its core's three filtered channels; quarter: 0.25
// (kE62Quarter) and zero: 0 in every lane.
template <class Ops>
E62Steps<Ops> e62_steps(const LayerReadings& lr, const Ops& op, typename Ops::H l9, typename Ops::H l10, typename Ops::H l11,
                        const typename Ops::H (&acc)[3], typename Ops::H quarter, typename Ops::H zero) {
  using H = typename Ops::H;
  E62Steps<Ops> px{};
  const H s10 = op.sigmoid(l10), s11 = op.sigmoid(l11);
  // The second sigmoid: the other of logits 10, 11 (logit9: logit 10, the next one).
  px.second_sigmoid = lr.e62_gate == E62Gate::logit11 ? s10 : lr.e62_gate == E62Gate::logit9 ? s10 : s11;
  const H s_gate = lr.e62_gate == E62Gate::logit9 ? op.sigmoid(l9) : lr.e62_gate == E62Gate::logit10 ? s10 : s11;
  // (d): three mul.f16 products, three sub.f16 differences, mul.f16x2 / mul.f16 by 0.25.
  for (int ch = 0; ch < 3; ++ch) {
    px.gate[ch] = lr.e62_gate == E62Gate::acc ? op.sigmoid(acc[ch]) : s_gate;
    px.prod[ch] = op.mul(px.gate[ch], acc[ch]);
    px.diff[ch] = op.sub(acc[ch], lr.e62_difference == E62Difference::gated ? px.prod[ch] : px.gate[ch]);
    px.quarter[ch] = op.mul(lr.e62_quad_value == E62QuadValue::difference ? px.diff[ch] : px.prod[ch], quarter);
  }
  // (e): +112 the differences, +120 the products (DOC0 s17204/s17205, DOC1 s26536/s26537: the sub
  // results go to +112, the mul results to +120); the fourth channel is the reading sigmoid-alpha.
  const bool alpha = lr.e62_alpha == E62Alpha::sigmoids;
  for (int ch = 0; ch < 3; ++ch) {
    px.s112[ch] = px.diff[ch];
    px.s120[ch] = px.prod[ch];
  }
  px.s112[3] = alpha ? px.second_sigmoid : zero;
  px.s120[3] = alpha ? px.gate[0] : zero;
  return px;
}

}  // namespace rrswin::golden
