// The network's demo inputs (cli/network_demo.hpp).
#include "api/network_demo.hpp"

#include <stdexcept>
#include <string>

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"

namespace rrswin {

std::unique_ptr<NetworkDemo> make_network_demo(int render_w, int render_h, std::uint64_t seed) {
  auto d = std::make_unique<NetworkDemo>();
  for (LayerId id : layer_ids()) {
    const LayerSpec& s = layer_spec(id);
    if (!s.runnable) continue;
    const TokenGrid g = level_grid(render_w, render_h, network_level(id));
    const bool decoder = s.front.kind == FrontKind::patch_expand;
    std::array<Texture, 3>& t = d->textures[id];
    t[0] = make_synthetic_frame(decoder ? g.ex >> 1 : g.ex, decoder ? g.ey >> 1 : g.ey, seed++, false, 1).texture;
    NetworkLayerInputs& li = d->layers[id];
    li.weights = &default_layer_weights(id);  // enc5: default_weights()
    li.texture = &t[0];
    if (s.abi.input < 0) {  // enc0: a synthetic staged input tensor (its prologue is not decoded)
      d->input_tensor = make_synthetic_frame(g.ex, g.ey, seed++, false, s.k_slices()).input_arena;
      li.input_tensor = d->input_tensor;
    }
    if (decoder) {
      t[1] = make_synthetic_frame(g.ex, g.ey, seed++, false, 1).texture;
      t[2] = make_synthetic_frame(g.ex, g.ey, seed++, false, 1).texture;
      li.texture96 = &t[1];
      li.texture104 = &t[2];
    }
  }
  for (const LayerBuffer& b : network_external_buffers()) {
    const std::optional<layout::PlaneArena> pa = buffer_arena(b, render_w, render_h);
    if (!pa) throw std::logic_error("make_network_demo: " + std::string(to_string(b.layer)) + "'s output is not a plane arena");
    d->external[{b.layer, b.param}] = make_synthetic_frame(pa->ex, pa->ey, seed++, false, pa->planes).input_arena;
  }
  return d;
}

}  // namespace rrswin
