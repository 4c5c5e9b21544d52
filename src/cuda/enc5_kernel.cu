// cuda_dldn_engine_swin_enc5_kernel in CUDA (issue 13): a drop-in for NVIDIA's kernel with the
// same entry name, 144-byte parameter block (facts A4), grid ceil((ex+ox)/8) x ceil((ey+oy)/8) and
// blocks of (32, 1, 8), one warp per head (facts A7). It computes exactly what the golden model
// (src/model) computes, part for part in the golden model's order and names:
//
//   prologue            facts B1..B6   input arena -> x (registers) and staged h1 (shared)
//   qv_chains           phases 1..10   Q and V of head z (warp z)
//   score_phase + e11   phase 11, E11  S = bias + q8(Q) q8(Q)^T; the cubic-exponent softmax
//   pv_phase            phase 12       O = q8(P) q8(V)
//   e12_stage           E12            q8(O) of every head to shared memory
//   out_projection      E12, 13..20    C13 = T1 + x; 8 chained heads (warps 0..3, rows 16z..)
//   e20_norm            E20            RMS norm of D20 with g2
//   mlp_chunk           phases 21..60  20 chunks: up (banded), activation, down (chained)
//   e60_scatter         E60            q8(D60) to the output plane arena
//   phase61 + e61       phase 61, E61  16 logits, shared records, softmax, 3x3 gather, surface
//
// Every arithmetic step is one PTX instruction of cuda/ptx_ops.cuh, the instruction the golden
// model's numerics core models; every fragment index and weight address comes from src/layout
// (cuda/fragments.cuh) and the reading-dependent index maps from model/index_maps.hpp. The proof
// that the numbers are the golden model's, byte for byte, is the PTX of this file run in the PTX
// interpreter (tests/cuda_kernel_test.cpp). The parts take enc5's dimensions from cuda/layer_dims.hpp
// (Enc5: C = 160, 8 heads, 20 chunks, the row of model/layer_spec.cpp).
#include "cuda/swin_parts.cuh"

using namespace rrswin::cuda;

static_assert(Enc5::kSharedBytes == kSharedBytes && Enc5::kWarps == kBlockZ, "facts A2, A8: enc5's row and its launch");
static_assert(Enc5::kFinalPhase == 61, "spec §2.1: phase 61 is the logits phase");

extern "C" __global__ void __launch_bounds__(256, 1) cuda_dldn_engine_swin_enc5_kernel(const Enc5Params params) {
  __shared__ __align__(16) std::uint8_t smem[Enc5::kSharedBytes];
  const Args p{params.input_arena, params.weights, params.output_arena, params.texture, params.surface};
  Block b = block_of(params);
#if defined(RRSWIN_CUDA_TRACE)
  {
    const unsigned char* raw = reinterpret_cast<const unsigned char*>(&params);
    const unsigned* block = reinterpret_cast<const unsigned*>(raw + kTraceBlockParamOffset);
    if (blockIdx.x == block[0] && blockIdx.y == block[1]) b.trace = *reinterpret_cast<u32* const*>(raw + kTraceBufferParamOffset);
  }
#endif
  u32 x[Enc5::kNTiles][2];
  attention_phases<Enc5>(p, b, smem, x);  // prologue, phases 1..12, E12

  u32 L[2][2];
  if (b.z < Enc5::kMlpWarps) {
    u32 D[Enc5::kNTiles][2], a61[Enc5::kSlices][4];
    mlp_phases<Enc5>(p, b, smem, x, D, a61);  // phases 13..60, E60
    phase61<Enc5>(p, b, a61, L);              // phase 61
  }
  u32* rec = reinterpret_cast<u32*>(smem);
  __syncthreads();  // s20066: phases 13..20 are done reading the E12 staging
  if (b.z < Enc5::kMlpWarps) e61_records(b, L, rec);
  __syncthreads();  // s20100
  const int T = b.lane + 32 * b.z;
  if (T < rrswin::golden::kE61Threads) e61_pixel(p, b, T, rec);
}
