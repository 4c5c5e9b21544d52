// cuda_dldn_engine_swin_enc4_kernel in CUDA (issue 21): enc4 as the golden model computes it
// (model/layer_golden.hpp run_layer_block), with the readings' defaults. Phases 1..60 and E60's
// arena scatter are enc5's parts (cuda/swin_parts.cuh; DOC4 §2: the same statements and
// offsets), then:
//
//   merge_stage     E60(c)/(d)  q8(D60) of the 64 window tokens to shared memory
//   merge_pass      phase 61    the patch merge: 16 merged tokens x 32 columns per pass, K = 640
//   merge_store     E61         q8 of the merge to param+56 at the halved extents
//   phase61         phase 62    enc5's 16-logit phase at enc4's offsets
//   e62             E62         enc5's E61 core, the sigmoid gate, the 0.25-scaled quad sum over
//                               shfl.sync.down +1, +8, three surfaces (+112, +120, +128)
//
// The proof that the numbers are the golden model's is this file's PTX in the PTX interpreter on
// replay captures of enc4 (tests/cuda_kernel_test.cpp, bridge/layer_capture.hpp).
#include "cuda/enc4_params.hpp"
#include "cuda/swin_parts.cuh"
#include "model/layer_golden.hpp"

namespace rrswin::cuda {
namespace {

constexpr LayerReadings kLR{};
// Only the defaults of the merge layers' readings are written here (docs/readings.md §7).
static_assert(kLR.merge_gather_order == MergeGatherOrder::swin, "merge-gather-order: only 'swin' is implemented");
static_assert(kLR.merge_output_layout == MergeOutputLayout::e60_words, "merge-output-layout: only 'arena-words' is implemented");
static_assert(kLR.e62_gate == E62Gate::logit10 && kLR.e62_difference == E62Difference::gated &&
                  kLR.e62_quad_value == E62QuadValue::difference && kLR.e62_quad_writer == E62QuadWriter::even &&
                  kLR.e62_inactive_lane == E62InactiveLane::zero && kLR.e62_alpha == E62Alpha::sigmoids,
              "sigmoid-*: only the defaults are implemented");

// enc4's arguments beyond enc5's.
struct Args4 {
  Args base;  // surface = +112
  std::uint8_t* merged_output;
  unsigned long long surface120, surface128;
};

constexpr int kStageRow = 160;  // bytes per staged token: q8(D60)'s 160 channels

// E60(c): warp z's D60 rows (tokens 16z + g + 8rh) as q8 bytes, token-major, in shared memory.
__device__ __forceinline__ void merge_stage(const Block& b, const u32 (&D)[20][2], std::uint8_t* smem) {
#pragma unroll
  for (int nt = 0; nt < 20; ++nt)
#pragma unroll
    for (int rh = 0; rh < 2; ++rh) {
      const int token = 16 * b.z + b.g + 8 * rh;
      *reinterpret_cast<u16*>(smem + kStageRow * token + 8 * nt + 2 * b.t) = ptx::cvt_e4m3x2(D[nt][rh]);
    }
}

// E60(d): the merge's A operand of k-step s. Merged row m = merged token (m & 3, m >> 2) of the
// block; quarter q = s / 5 of its K = 640 is the window token at offset (q >> 1, q & 1) (reading
// merge-gather-order = swin: Swin's x0..x3), k-slice s % 5 of that token's channels. Register o
// holds row g + 8 (o & 1), bytes at k = pair_k(t, j, o >> 1) (layout/fragment.hpp).
__device__ __forceinline__ void merged_a(const Block& b, const std::uint8_t* smem, int s, u32 (&a)[4]) {
  const int q = s / 5, dx = q >> 1, dy = q & 1;
#pragma unroll
  for (int o = 0; o < 4; ++o) {
    const int m = b.g + layout::a_row(0, o);
    const int token = 8 * (2 * (m >> 2) + dy) + 2 * (m & 3) + dx;  // window row 8y + x (facts A6)
    const std::uint8_t* row = smem + kStageRow * token + 32 * (s % 5);
    const u32 lo_pair = *reinterpret_cast<const u16*>(row + layout::pair_k(b.t, 0, o >> 1));
    const u32 hi_pair = *reinterpret_cast<const u16*>(row + layout::pair_k(b.t, 2, o >> 1));
    a[o] = lo_pair | (hi_pair << 16);
  }
}

// Phase 61, pass P: the merge's columns 32P..32P+31 (n-tiles 4P..4P+3), C = the bias records,
// 20 chained k-steps (golden merge_phase).
__device__ __forceinline__ void merge_pass(const Args4& p, const Block& b, int P, const std::uint8_t* smem, u32 (&D)[4][2]) {
  const std::uint8_t* W = p.base.weights;
#pragma unroll
  for (int i = 0; i < 4; ++i) D[i][0] = D[i][1] = ld_u32(W, seed_word_offset(kEnc4MergeBias, 4 * P + i, b.t));
#pragma unroll 1
  for (int s = 0; s < kEnc4MergeKSteps; ++s) {
    u32 a[4];
    merged_a(b, smem, s, a);
#pragma unroll
    for (int jj = 0; jj < 2; ++jj) {
      const int j = 2 * P + jj;  // the 16-column block
      const BPair bp = load_b_pair(W + kEnc4Merge + 512u * (kEnc4MergeKSteps * j + s), b.lane);
      mma_acc(D[2 * jj], a, bp.lo);
      mma_acc(D[2 * jj + 1], a, bp.hi);
    }
  }
}

// E61 for pass P (plane P of the merged output): the four A-fragment words of q8(D) that E60
// stores per plane, in E60's register -> (row half, word) map (reading merge-output-layout =
// arena-words), row m's merged token ((x0 >> 1) + (m & 3), (y0 >> 1) + (m >> 2)), guarded by the
// halved extents (golden merge_store).
__device__ __forceinline__ void merge_store(const Args4& p, const Block& b, int P, const u32 (&D)[4][2]) {
  const layout::PlaneArena pa{b.ex >> 1, b.ey >> 1};
  const int X0 = b.x0 >> 1, Y0 = b.y0 >> 1;
  u32 a[4];
  repack_a(D, 0, a);
#pragma unroll
  for (int o = 0; o < 4; ++o) {
    const golden::ArenaSlot slot = golden::arena_slot(kR.arena_order, o, b.t);
    const int m = b.g + 8 * slot.row_half;
    const int x = X0 + (m & 3), y = Y0 + (m >> 2);
    if (pa.in_frame(x, y)) *reinterpret_cast<u32*>(p.merged_output + 4 * pa.word_index(P, x, y, slot.word)) = a[o];
  }
}

// E62's sigmoid: f16(1 / (1 + 2^(f32(v) * -log2 e))), one f32 instruction per step (golden e62_sigmoid).
__device__ __forceinline__ u16 e62_sigmoid(u16 v) {
  const float t = ptx::mul_ftz(ptx::cvt_f32_f16(v), __int_as_float(golden::kMinusLog2eF32Bits));
  const float den = ptx::add_ftz(ptx::ex2_approx_ftz(t), __int_as_float(golden::kOneF32Bits));
  return ptx::cvt_rn_f16_f32(ptx::div_approx_ftz(__int_as_float(golden::kOneF32Bits), den));
}

// E62 for thread T < 64 (warps 0 and 1, every lane: the shuffles take the whole warp). A pixel
// outside the frame skips (b)..(e) and gives 0 to the shuffles (reading sigmoid-inactive-lane = zero).
__device__ __forceinline__ void e62(const Args4& p, const Block& b, int T, const u32* rec) {
  const golden::PixelXY px = golden::e61_pixel_of_thread(b.x0, b.y0, T);
  const int X = px.x, Y = px.y;
  const bool active = X >= 0 && Y >= 0 && X < b.ex && Y < b.ey;
  u32 q01 = 0, q2 = 0;  // the 0.25-scaled values: f16x2 (q0, q1), (q2, 0)
  if (active) {
    u32 l[5];
#pragma unroll
    for (int i = 0; i < 5; ++i) l[i] = rec[golden::e61_record_word(T, i, 0)];
    const u32 l1011 = rec[golden::e61_record_word(T, 5, 0)];
    u16 acc[3];
    e61_filter(p.base, b, X, Y, l, acc);
    const u16 gate = e62_sigmoid(lo(l1011)), second = e62_sigmoid(hi(l1011));  // sigmoid-gate = logit10
    u16 prod[3], diff[3], quarter[3];
#pragma unroll
    for (int ch = 0; ch < 3; ++ch) {
      prod[ch] = ptx::mul_f16(gate, acc[ch]);
      diff[ch] = ptx::sub_f16(acc[ch], prod[ch]);  // sigmoid-difference = gated
      quarter[ch] = ptx::mul_f16(diff[ch], golden::kE62Quarter);
    }
    ptx::surf_store(p.base.surface, 8 * X, Y, diff[0], diff[1], diff[2], second);  // sigmoid-alpha = sigmoids
    ptx::surf_store(p.surface120, 8 * X, Y, prod[0], prod[1], prod[2], gate);
    q01 = static_cast<u32>(quarter[0]) | (static_cast<u32>(quarter[1]) << 16);
    q2 = quarter[2];
  }
  // The 2x2 quad sum: v += shfl.down(v, 1), then v += shfl.down(v, 8) (lanes past 31 give their own).
  const u32 d01 = ptx::shfl_down(q01, golden::kE62ShflDeltaX), d2 = ptx::shfl_down(q2, golden::kE62ShflDeltaX);
  const u32 s01 = active ? ptx::add_f16x2(q01, d01) : 0u, s2 = active ? ptx::add_f16x2(q2, d2) : 0u;
  const u32 e01 = ptx::shfl_down(s01, golden::kE62ShflDeltaY), e2 = ptx::shfl_down(s2, golden::kE62ShflDeltaY);
  if (!active || ((X | Y) & 1) != 0) return;  // sigmoid-quad-writer = even: the quad's top-left pixel
  const u32 t01 = ptx::add_f16x2(s01, e01), t2 = ptx::add_f16x2(s2, e2);
  ptx::surf_store(p.surface128, 8 * (X >> 1), Y >> 1, lo(t01), hi(t01), lo(t2), 0);
}

}  // namespace
}  // namespace rrswin::cuda

using namespace rrswin::cuda;

extern "C" __global__ void __launch_bounds__(256, 1) cuda_dldn_engine_swin_enc4_kernel(const Enc4Params params) {
  __shared__ __align__(16) std::uint8_t smem[kEnc4SharedBytes];
  const Args4 p{{params.input_arena, params.weights, params.output_arena, params.texture, params.surface112},
                params.merged_output,
                params.surface120,
                params.surface128};
  const Block b = block_of(params);
  u32 x[20][2];
  attention_phases(p.base, b, smem, x);  // prologue, phases 1..12, E12 as enc5's

  u32 L[2][2], D[20][2];
  if (b.z < 4) {
    u32 a61[5][4];
    mlp_phases(p.base, b, smem, x, D, a61);          // phases 13..60, E60(a)/(b): the arena
    phase61(p.base, b, a61, L, kEnc4W62, kEnc4B62);  // phase 62: A = q8(D60) (final-phase-a)
  }
  __syncthreads();  // phases 13..20 are done reading the E12 staging
  if (b.z < 4) merge_stage(b, D, smem);
  __syncthreads();
  if (b.z < 4) {  // phase 61 in five 32-column passes: warp z takes pass z, warp 0 also pass 4
    u32 M[4][2];
    merge_pass(p, b, b.z, smem, M);
    merge_store(p, b, b.z, M);
    if (b.z == 0) {
      merge_pass(p, b, 4, smem, M);
      merge_store(p, b, 4, M);
    }
  }
  __syncthreads();  // the merge is done reading the staged tokens
  u32* rec = reinterpret_cast<u32*>(smem);
  if (b.z < 4) e61_records(b, L, rec);
  __syncthreads();
  const int T = b.lane + 32 * b.z;
  if (T < rrswin::golden::kE61Threads) e62(p, b, T, rec);
}
