// cuda_dldn_engine_swin_dec4_kernel in CUDA (issue 37): dec4 as the golden model computes it
// (model/layer_golden.hpp run_layer_block), with the readings' defaults. Phase 1 (the patch expand
// from the half-resolution +8) and E1 (the 10x10 tile, the skip +24, the norm with g1 at B0) are the
// decoders' front, phases 2..62 and the arena scatter enc5's 1..61 at dec4's offsets (the weight
// map shifted by B0), then the decoder final on +112 (cuda/decoder_parts.cuh):
//
//   expand_*/e1_*   phase 1, E1      the patch expand, its scatter, the readback + skip, the norm
//   attention       phases 2..13     enc5's 1..12 (cuda/swin_parts.cuh)
//   mlp_phases      phases 14..61    the projections, E21, the MLP chunks, the scatter to +48
//   phase61         phase 62         the 16-logit phase at dec4's offsets
//   decoder_pixel   E62              the 9-term softmax, the f32-coordinate taps of +88, the gate,
//                                    the blend with +96, the NaN-guarded +104, sust to +112
//
// all at dec4's dimensions (cuda/layer_dims.hpp Dec4: C = 160, 8 heads, 20 chunks, K = 160, the row
// of model/layer_spec.cpp). The proof that the numbers are the golden model's is this file's PTX in
// the PTX interpreter on replay captures of dec4 (tests/cuda_merge_ports_test.cpp).
#include "cuda/dec4_params.hpp"
#include "cuda/decoder_parts.cuh"

using namespace rrswin::cuda;

static_assert(Dec4::kFinalPhase == 62, "DOC-d4 §2: the logits phase is 62");

extern "C" __global__ void __launch_bounds__(256, 1) cuda_dldn_engine_swin_dec4_kernel(const Dec4Params params) {
  __shared__ __align__(16) std::uint8_t smem[Dec4::kSharedBytes];
  decoder_layer<Dec4>(params, smem);
}
