// cuda_dldn_engine_swin_enc3_kernel in CUDA (issue 37): enc3 as the golden model computes it
// (model/layer_golden.hpp run_layer_block), with the readings' defaults: the same parts as enc4's
// port (cuda/swin_parts.cuh, cuda/merge_parts.cuh) at enc3's dimensions (cuda/layer_dims.hpp Enc3:
// C = 128, 4 heads, 16 MLP chunks, the merge to 160 channels; DOC3 §2: phases 1..46 are the
// template's, 47 the merge, 48 the logits):
//
//   prologue .. e60_scatter  facts B, phases 1..46, E46(a)/(b)  4 k-slices, one warp per head
//   merge_stage              E46(c)/(d)  q8(D46) of the 64 window tokens (128 bytes each)
//   merge_pass               phase 47    16 merged tokens x 32 columns per pass, K = 512
//   merge_store              E47         q8 of the merge to param+56 at the halved extents
//   phase61                  phase 48    16 logits over 4 k-steps
//   e62                      E48         enc4's E62 (the same mathematics, DOC3 §3/E48)
//
// Same entry name, 144-byte parameter block (cuda/enc3_params.hpp, the row's LaunchAbi), blocks of
// (32, 1, 4) and 12800 bytes of shared memory as the original (DESC3 layer(), DOC3 §0). The proof
// that the numbers are the golden model's is this file's PTX in the PTX interpreter on replay
// captures of enc3 (tests/cuda_merge_ports_test.cpp).
#include "cuda/enc3_params.hpp"
#include "cuda/merge_parts.cuh"

using namespace rrswin::cuda;

static_assert(Enc3::kFirstProjection == 11 && Enc3::kLastMlp == 46 && Enc3::kMergePhase == 47 && Enc3::kFinalPhase == 48,
              "DOC3 §2: projections from phase 11, the MLP through 46, the merge 47, the logits 48");

extern "C" __global__ void __launch_bounds__(128, 1) cuda_dldn_engine_swin_enc3_kernel(const Enc3Params params) {
  __shared__ __align__(16) std::uint8_t smem[Enc3::kSharedBytes];
  merge_layer<Enc3>(params, smem);
}
