// cuda_dldn_engine_swin_enc1_kernel in CUDA (issue 37): enc1 as the golden model computes it
// (model/layer_golden.hpp run_layer_block), with the readings' defaults: the template's and the
// merge layers' parts (cuda/swin_parts.cuh, cuda/merge_parts.cuh) in the one-warp control structure
// (cuda/one_warp_parts.cuh) at enc1's dimensions (cuda/layer_dims.hpp Enc1: C = 64, 2 heads in turn
// in one warp, 8 MLP chunks, the register merge to 96 channels in three 32-column passes, K = 256;
// DOC-e1 §2.1: head 0's phases 1..7, head 1's 8..14, the MLP 15..30, the merge 31, the logits 32,
// E32 the gated final with rows gathered across lanes).
// Same entry name, 144-byte parameter block (cuda/enc1_params.hpp, the row's LaunchAbi), blocks of
// (32, 1, 1) and no shared memory as the original (HIP-e1 header). The proof that the numbers are
// the golden model's is this file's PTX in the PTX interpreter on replay captures of enc1
// (tests/cuda_merge_ports_test.cpp).
#include "cuda/enc1_params.hpp"
#include "cuda/one_warp_parts.cuh"

using namespace rrswin::cuda;

static_assert(Enc1::kFirstProjection == 7 && Enc1::kDims.spec().projection_phase(1) == 14 && Enc1::kLastMlp == 30 &&
                  Enc1::kMergePhase == 31 && Enc1::kFinalPhase == 32,
              "DOC-e1 §2.1: projections 7 and 14, the MLP through 30, the merge 31, the logits 32");
static_assert(Enc1::kSharedBytes == 0 && Enc1::kWarps == 1, "HIP-e1 header: block (32, 1, 1), no .shared");

extern "C" __global__ void __launch_bounds__(32, 1) cuda_dldn_engine_swin_enc1_kernel(const Enc1Params params) {
  one_warp_layer<Enc1>(params);
}
