// cuda_dldn_engine_swin_enc2_kernel in CUDA (issue 37): enc2 as the golden model computes it
// (model/layer_golden.hpp run_layer_block), with the readings' defaults: the merge layers' parts
// (cuda/swin_parts.cuh, cuda/merge_parts.cuh) at enc2's dimensions (cuda/layer_dims.hpp Enc2:
// C = 96, 4 heads, 12 MLP chunks, the merge to 128 channels in four 32-column passes, one a warp,
// K = 384; DOC-e2 §2: phases 1..36 the template's, 37 the merge, 38 the logits, E38 enc4's E62).
// Same entry name, 144-byte parameter block (cuda/enc2_params.hpp, the row's LaunchAbi), blocks of
// (32, 1, 4) and 9600 bytes of shared memory as the original (DESC-e2 _LAUNCH). The proof that the
// numbers are the golden model's is this file's PTX in the PTX interpreter on replay captures of
// enc2 (tests/cuda_merge_ports_test.cpp).
#include "cuda/enc2_params.hpp"
#include "cuda/merge_parts.cuh"

using namespace rrswin::cuda;

static_assert(Enc2::kFirstProjection == 9 && Enc2::kLastMlp == 36 && Enc2::kMergePhase == 37 && Enc2::kFinalPhase == 38,
              "DOC-e2 §2: projections from phase 9, the MLP through 36, the merge 37, the logits 38");

extern "C" __global__ void __launch_bounds__(128, 1) cuda_dldn_engine_swin_enc2_kernel(const Enc2Params params) {
  __shared__ __align__(16) std::uint8_t smem[Enc2::kSharedBytes];
  merge_layer<Enc2>(params, smem);
}
