// The epilogue tables: every function of a single f16 that the epilogues apply, evaluated by the
// golden model's own code once per process (about 10 ms), so these parts are identical by
// construction.
#include <bit>

#include "engine/prepared.hpp"
#include "model/decoder_final.hpp"
#include "model/layer_golden.hpp"
#include "numerics/approx.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"

namespace rrswin::engine {

const EpilogueTables& epilogue_tables() {
  static const auto* t = [] {
    auto* tab = new EpilogueTables;
    for (std::uint32_t i = 0; i < 65536; ++i) {
      const auto h = static_cast<f16_t>(i);
      golden::LayerStats st;
      tab->e11[i] = golden::e11_expval(h, &st);
      tab->e11_clamp[i] = static_cast<std::uint8_t>((st.e11_clamp_low ? 1 : 0) | (st.e11_clamp_high ? 2 : 0));
      tab->act[i] = golden::activation(h, &st);
      tab->act_clamp[i] = static_cast<std::uint8_t>((st.act_clamp_low ? 1 : 0) | (st.act_clamp_high ? 2 : 0));
      tab->rcp[i] = rcp_f16(h);
      tab->q8_ada[i] = f16_to_e4m3(h, profile_ada());
      tab->q8_zluda[i] = f16_to_e4m3(h, profile_zluda());
      tab->e61_exp[i] = golden::e61_exp(h);
      tab->e62_sigmoid[i] = golden::e62_sigmoid(h);
      tab->dec0_tanh[i] = golden::dec0_tanh(f16_to_f32(h));
    }
    for (std::uint32_t i = 0; i < 65536; ++i) {
      tab->act_q8_ada[i] = tab->q8_ada[tab->act[i]];
      tab->act_q8_zluda[i] = tab->q8_zluda[tab->act[i]];
    }
    return tab;
  }();
  return *t;
}

}  // namespace rrswin::engine
