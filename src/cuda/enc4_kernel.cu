// cuda_dldn_engine_swin_enc4_kernel in CUDA (issue 21): enc4 as the golden model computes it
// (model/layer_golden.hpp run_layer_block), with the readings' defaults. Phases 1..60 and E60's
// arena scatter are enc5's parts (cuda/swin_parts.cuh; DOC4 §2: the same statements and
// offsets), then the merge layers' parts (cuda/merge_parts.cuh):
//
//   merge_stage     E60(c)/(d)  q8(D60) of the 64 window tokens to shared memory
//   merge_pass      phase 61    the patch merge: 16 merged tokens x 32 columns per pass, K = 640
//   merge_store     E61         q8 of the merge to param+56 at the halved extents
//   phase61         phase 62    enc5's 16-logit phase at enc4's offsets
//   e62             E62         enc5's E61 core, the sigmoid gate, the 0.25-scaled quad sum over
//                               shfl.sync.down +1, +8, three surfaces (+112, +120, +128)
//
// all at enc4's dimensions (cuda/layer_dims.hpp Enc4: C = 160, 8 heads, 20 chunks, the row of
// model/layer_spec.cpp). The proof that the numbers are the golden model's is this file's PTX in
// the PTX interpreter on replay captures of enc4 (tests/cuda_merge_ports_test.cpp,
// bridge/layer_capture.hpp).
#include "cuda/enc4_params.hpp"
#include "cuda/merge_parts.cuh"

using namespace rrswin::cuda;

static_assert(Enc4::kMergePhase == 61 && Enc4::kFinalPhase == 62, "DOC4 §2: the merge is phase 61, the logits phase 62");

extern "C" __global__ void __launch_bounds__(256, 1) cuda_dldn_engine_swin_enc4_kernel(const Enc4Params params) {
  __shared__ __align__(16) std::uint8_t smem[Enc4::kSharedBytes];
  merge_layer<Enc4>(params, smem);
}
