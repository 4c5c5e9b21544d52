// The network as one run (issue 36): the layers in network order, each layer's inputs the outputs
// the edges of model/network.hpp name, every buffer at its level's grid (level_grid). Layers that do
// not run yet are skipped, and what they would have produced (an input no runnable layer makes:
// enc2's +8 and dec1's +24 while enc1 does not run) comes from the caller as an external buffer, so
// the run says which of its inputs are the network's and which stand in for a missing layer. What
// feeds the textures (+88, +96, +104) and the decoders' +136 scale is not stated by any source
// (docs/network.md): those are inputs per layer here too.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "api/frame.hpp"
#include "model/layer_golden.hpp"
#include "model/network.hpp"

namespace rrswin {

// One layer's own inputs (not the edges): its weights and textures.
struct NetworkLayerInputs {
  const WeightImage* weights = nullptr;                       // the layer's image (enc5: enc5's 431,136 bytes)
  const Texture* texture = nullptr;                           // +88: the layer's grid (encoders), any size (decoders)
  const Texture *texture96 = nullptr, *texture104 = nullptr;  // the decoders' +96, +104 at its grid
  std::array<float, 2> scale{0.5f, 0.5f};                     // the decoders' +136
  // enc0 (no +8: its prologue reads the network's input, +304, which no source decodes): the staged
  // input tensor, 32 e4m3 channels a token, a one-plane arena at level 0 (model/embedding_front.cpp).
  std::span<const std::uint8_t> input_tensor;
};

struct NetworkRunOptions {
  int render_w = 0, render_h = 0;    // the grids: level_grid(render_w, render_h, level)
  const Profile* profile = nullptr;  // nullptr = ada
  Readings readings;
  LayerReadings layer_readings;
  Engine engine = Engine::fast;
  int threads = 1;
  // Called after each layer ran (for a progress line or a summary).
  std::function<void(LayerId, double seconds)> layer_done;
  // Progress in blocks (the CLI's progress line on a terminal): the layer running, the blocks of
  // the run done and in total (every runnable layer's covering grid). Called when a layer starts and
  // when it ends, and as its blocks finish (enc5: api/frame.hpp RunOptions::progress; the others:
  // LayerFrame::progress), then from a worker thread, one call at a time, the counts increasing.
  std::function<void(LayerId, std::int64_t done, std::int64_t total)> progress;
};

struct NetworkLayerResult {
  LayerId id;
  bool ran = false;
  int ex = 0, ey = 0;
  std::vector<std::uint8_t> arena, merged;  // +48, +56
  Surface surface112, surface120, surface128;
  SurfaceF32 surface144;  // dec0's +144 (its arena is +48: 8 e4m3 bytes a pixel)
  double seconds = 0;
  std::vector<std::string> stand_ins;  // "+8 <- enc1.+56 (external: enc1 does not run yet)"
};

// Runs every runnable layer with inputs for it in `layers` (a layer without an entry, or without
// weights, is an error naming it); `external` holds the buffers no runnable layer produces, keyed by
// their producer (layer, param), each of buffer_bytes' size. Throws std::invalid_argument naming the
// layer and the buffer for anything missing or of the wrong size.
std::vector<NetworkLayerResult> run_network(const NetworkRunOptions& o, const std::map<LayerId, NetworkLayerInputs>& layers,
                                            const std::map<std::pair<LayerId, int>, std::vector<std::uint8_t>>& external);

// The produced buffers a run over the runnable layers needs from outside (the missing layers'
// outputs some runnable layer reads), in network order of their readers.
std::vector<LayerBuffer> network_external_buffers();

}  // namespace rrswin
