// cuda_dldn_engine_swin_dec1_kernel in CUDA (issue 37): dec4's parts (cuda/decoder_parts.cuh,
// src/cuda/dec4_kernel.cu lists them) at dec1's dimensions (cuda/layer_dims.hpp Dec1: C = 64, 2 heads,
// 8 chunks, the row of model/layer_spec.cpp): phase 1 with K = 96 and two sub-pixels (128 columns)
// a warp (the reading patch-expand-shape, expand-column-split) and E1, the template's phases with
// 32 token rows (two m-tiles) a warp from the output projection on (DOC-d1 §5 P8 M = 32), the
// logits phase 26 and the decoder final (E26). Block (32, 1, 2) and 6400 bytes of shared memory as
// the original (DESC-d1 layer(), DOC-d1 §1.1). The proof is this file's PTX in the PTX interpreter
// on replay captures of dec1 (tests/cuda_merge_ports_test.cpp).
#include "cuda/dec1_params.hpp"
#include "cuda/decoder_parts.cuh"

using namespace rrswin::cuda;

static_assert(Dec1::kFirstProjection == 8 && Dec1::kLastMlp == 25 && Dec1::kFinalPhase == 26,
              "DOC-d1 §5: the projections from phase 8 (M = 32), the MLP through 25, the logits phase 26");
static_assert(Dec1::kSharedBytes == 6400 && Dec1::kWarps == 2 && Dec1::kRowTiles == 2, "DESC-d1 layer(): block (32, 1, 2), 6400 bytes");

extern "C" __global__ void __launch_bounds__(64, 1) cuda_dldn_engine_swin_dec1_kernel(const Dec1Params params) {
  __shared__ __align__(16) std::uint8_t smem[Dec1::kSharedBytes];
  decoder_layer<Dec1>(params, smem);
}
