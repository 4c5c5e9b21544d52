// cuda_dldn_engine_swin_dec0_kernel in CUDA (issue 37): dec0 as the golden model computes it
// (model/layer_golden.hpp run_layer_block), with the readings' defaults: the decoders' front with
// the four sub-pixels in one warp (cuda/decoder_parts.cuh), enc1's serial heads and 64-row MLP
// (cuda/swin_parts.cuh, cuda/one_warp_parts.cuh) and E19 (cuda/dec0_parts.cuh) at dec0's
// dimensions (cuda/layer_dims.hpp Dec0: C = 32, 2 heads in turn, 4 chunks, K = 64; DOC-d0 §2.1:
// phase 1 the expand, head 0's 2..6, head 1's 7..11, the MLP 12..19, no final phase; E19 the e4m3
// output +48, the tanh values +144, the blend +112). Same entry name, 152-byte parameter block
// (cuda/dec0_params.hpp), blocks of (32, 1, 1) and 3200 bytes of shared memory as the original
// (DESC-d0 layer(), HIP-d0). The proof is this file's PTX in the PTX interpreter on replay captures
// of dec0 (tests/cuda_merge_ports_test.cpp).
#include "cuda/dec0_parts.cuh"

using namespace rrswin::cuda;

static_assert(Dec0::kFirstProjection == 6 && Dec0::kDims.spec().projection_phase(1) == 11 && Dec0::kLastMlp == 19 && Dec0::kFinalPhase == 0,
              "DOC-d0 §2.1: projections 6 and 11, the MLP through 19, no final phase");
static_assert(Dec0::kSharedBytes == 3200 && Dec0::kWarps == 1 && Dec0::kExpandSubpixels == 4,
              "DESC-d0 layer(): block (32, 1, 1), 3200 bytes; the four sub-pixels in the one warp");

extern "C" __global__ void __launch_bounds__(32, 1) cuda_dldn_engine_swin_dec0_kernel(const Dec0Params params) {
  __shared__ __align__(16) std::uint8_t smem[Dec0::kSharedBytes];
  dec0_layer<Dec0>(params, smem);
}
