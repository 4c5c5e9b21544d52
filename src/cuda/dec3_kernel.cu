// cuda_dldn_engine_swin_dec3_kernel in CUDA (issue 37): dec4's parts (cuda/decoder_parts.cuh,
// src/cuda/dec4_kernel.cu lists them) at dec3's dimensions (cuda/layer_dims.hpp Dec3: C = 128, 4 heads, 16 chunks, K = 160,
// the row of model/layer_spec.cpp): phase 1 and E1, the template's phases, the logits phase 48
// and the decoder final (E48). The proof is this file's PTX in the PTX interpreter on replay
// captures of dec3 (tests/cuda_merge_ports_test.cpp).
#include "cuda/dec3_params.hpp"
#include "cuda/decoder_parts.cuh"

using namespace rrswin::cuda;

static_assert(Dec3::kFinalPhase == 48, "DOC-d3 §2: the logits phase is 48");

extern "C" __global__ void __launch_bounds__(128, 1) cuda_dldn_engine_swin_dec3_kernel(const Dec3Params params) {
  __shared__ __align__(16) std::uint8_t smem[Dec3::kSharedBytes];
  decoder_layer<Dec3>(params, smem);
}
