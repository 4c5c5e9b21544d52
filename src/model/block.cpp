// One block of the kernel, part after part in the kernel's order (facts C0).
#include "model/layer.hpp"
#include "model/layer_golden.hpp"

namespace rrswin::golden {

void run_block(const BlockContext& ctx, const BlockIo& io) {
  // enc5's block through the one block runner (no merge, E61 on the one surface +112).
  LayerBlockIo lio;
  lio.input_arena = io.input_arena;
  lio.output_arena = io.output_arena;
  lio.texture = io.texture;
  lio.surfaces.s112 = io.surface;
  run_layer_block(ctx, LayerReadings{}, lio);
}

}  // namespace rrswin::golden
