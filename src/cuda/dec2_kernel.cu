// cuda_dldn_engine_swin_dec2_kernel in CUDA (issue 37): dec4's parts (cuda/decoder_parts.cuh,
// src/cuda/dec4_kernel.cu lists them) at dec2's dimensions (cuda/layer_dims.hpp Dec2: C = 96, 4 heads, 12 chunks, K = 128,
// the row of model/layer_spec.cpp): phase 1 and E1, the template's phases, the logits phase 38
// and the decoder final (E38). The proof is this file's PTX in the PTX interpreter on replay
// captures of dec2 (tests/cuda_merge_ports_test.cpp).
#include "cuda/dec2_params.hpp"
#include "cuda/decoder_parts.cuh"

using namespace rrswin::cuda;

static_assert(Dec2::kFinalPhase == 38, "DOC-d2 §5: the logits phase is 38");

extern "C" __global__ void __launch_bounds__(128, 1) cuda_dldn_engine_swin_dec2_kernel(const Dec2Params params) {
  __shared__ __align__(16) std::uint8_t smem[Dec2::kSharedBytes];
  decoder_layer<Dec2>(params, smem);
}
