// The network's embedded demo inputs (issue 36): what `rrswin run --network`, `rrswin bench
// --network` and Python's `run_network` feed api/network_run.hpp at a render: each runnable layer's default weight image,
// synthetic textures at its grid (a decoder's +88 at half of it, as `run --layer` makes it), enc0's
// synthetic staged input tensor (its prologue from the network input is decoded by no source), and
// synthetic arenas for the buffers a layer that does not run would produce for one that does.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "api/network_run.hpp"

namespace rrswin {

struct NetworkDemo {
  std::map<LayerId, NetworkLayerInputs> layers;  // point into `textures` and `input_tensor`
  std::map<LayerId, std::array<Texture, 3>> textures;
  std::vector<std::uint8_t> input_tensor;
  std::map<std::pair<LayerId, int>, std::vector<std::uint8_t>> external;
};

// Seeds seed, seed + 1, ... in network order. Owned through the pointer (the inputs point into it).
std::unique_ptr<NetworkDemo> make_network_demo(int render_w, int render_h, std::uint64_t seed);

}  // namespace rrswin
