// The parts of the merge layers (enc4, enc3: MergeKind::shared_passes, the gated final epilogue)
// past the template's phases through the last down-projection and its arena scatter
// (cuda/swin_parts.cuh), in the golden model's order and names (model/layer_golden.hpp):
//
//   merge_stage     E60(c)/(d)   q8(D) of the last down-projection, 64 window tokens, to shared memory
//   merge_pass      merge phase  the patch merge: 16 merged tokens x 32 columns per pass, K = 4C
//   merge_store     E61 / E47    q8 of the merge to param+56 at the halved extents
//   phase61         final phase  enc5's 16-logit phase at the layer's offsets
//   e62             E62 / E48    enc5's E61 core, the sigmoid gate, the 0.25-scaled quad sum over
//                                shfl.sync.down +1, +8, three surfaces (+112, +120, +128)
//
// and merge_layer, the whole kernel body of a merge layer given its parameter block (the .cu files
// are its instantiations under the original entry names). Included by the kernels' .cu files only.
#pragma once
#include "cuda/merge_params.hpp"
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

// The merge layers' arguments beyond enc5's.
struct MergeArgs {
  Args base;  // surface = +112
  std::uint8_t* merged_output;
  unsigned long long surface120, surface128;
};

// E60(c): warp z's D60 rows (tokens 16z + g + 8rh) as q8 bytes, token-major (C bytes a token), in
// shared memory.
template <class Ly>
__device__ __forceinline__ void merge_stage(const Block& b, const u32 (&D)[Ly::kNTiles][2], std::uint8_t* smem) {
#pragma unroll
  for (int nt = 0; nt < Ly::kNTiles; ++nt)
#pragma unroll
    for (int rh = 0; rh < 2; ++rh) {
      const int token = 16 * b.z + b.g + 8 * rh;
      *reinterpret_cast<u16*>(smem + Ly::C * token + 8 * nt + 2 * b.t) = ptx::cvt_e4m3x2(D[nt][rh]);
    }
}

// E60(d): the merge's A operand of k-step s. Merged row m = merged token (m & 3, m >> 2) of the
// block; quarter q = s / (C/32) of its K = 4C is the window token at offset (q >> 1, q & 1)
// (reading merge-gather-order = swin: Swin's x0..x3), k-slice s % (C/32) of that token's channels.
// Register o holds row g + 8 (o & 1), bytes at k = pair_k(t, j, o >> 1) (layout/fragment.hpp).
template <class Ly>
__device__ __forceinline__ void merged_a(const Block& b, const std::uint8_t* smem, int s, u32 (&a)[4]) {
  const int q = s / Ly::kSlices, dx = q >> 1, dy = q & 1;
#pragma unroll
  for (int o = 0; o < 4; ++o) {
    const int m = b.g + layout::a_row(0, o);
    const int token = 8 * (2 * (m >> 2) + dy) + 2 * (m & 3) + dx;  // window row 8y + x (facts A6)
    const std::uint8_t* row = smem + Ly::C * token + 32 * (s % Ly::kSlices);
    const u32 lo_pair = *reinterpret_cast<const u16*>(row + layout::pair_k(b.t, 0, o >> 1));
    const u32 hi_pair = *reinterpret_cast<const u16*>(row + layout::pair_k(b.t, 2, o >> 1));
    a[o] = lo_pair | (hi_pair << 16);
  }
}

// The shared merge's A source: merged_a from the staged tokens.
template <class Ly>
struct SharedMergeA {
  const Block& b;
  const std::uint8_t* smem;
  __device__ __forceinline__ void operator()(int s, u32 (&a)[4]) const { merged_a<Ly>(b, smem, s, a); }
};

// The merge phase (enc4's 61, enc3's 47, enc1's 31), pass P: the merge's columns 32P..32P+31
// (n-tiles 4P..4P+3), C = the bias records, 4C/32 chained k-steps (golden merge_phase); A of k-step
// s from merged_a(s, a).
template <class Ly, class MergedA>
__device__ __forceinline__ void merge_pass(const MergeArgs& p, const Block& b, int P, const MergedA& merged_a, u32 (&D)[4][2]) {
  constexpr WeightMap m = Ly::kMap;
  constexpr int KS = Ly::kMergeKSteps;
  const std::uint8_t* W = p.base.weights;
#pragma unroll
  for (int i = 0; i < 4; ++i) D[i][0] = D[i][1] = ld_u32(W, seed_word_offset(m.merge_bias(), 4 * P + i, b.t));
#pragma unroll 1
  for (int s = 0; s < KS; ++s) {
    u32 a[4];
    merged_a(s, a);
#pragma unroll
    for (int jj = 0; jj < 2; ++jj) {
      const int j = 2 * P + jj;  // the 16-column block
      const BPair bp = load_b_pair(W + m.merge_weights() + 512u * (KS * j + s), b.lane);
      mma_acc(D[2 * jj], a, bp.lo);
      mma_acc(D[2 * jj + 1], a, bp.hi);
    }
  }
}

// The merge's store (enc4's E61, enc3's E47, enc1's E31) for pass P (plane P of the merged output):
// the four A-fragment words of q8(D) that E60 stores per plane, in E60's register -> (row half,
// word) map (reading merge-output-layout = arena-words; the register merge: each token its own
// words, the natural map), row m's merged token ((x0 >> 1) + (m & 3), (y0 >> 1) + (m >> 2); the
// register merge: ((m & 7) >> 1, 2 (m >> 3) + (m & 1)), golden merged_token_of_row), guarded by the
// halved extents (golden merge_store).
template <class Ly>
__device__ __forceinline__ void merge_store(const MergeArgs& p, const Block& b, int P, const u32 (&D)[4][2]) {
  constexpr bool kRegister = Ly::kDims.merge_kind == MergeKind::register_lanes;
  constexpr ArenaOrder kOrder = kRegister ? ArenaOrder::natural : kR.arena_order;
  const layout::PlaneArena pa{b.ex >> 1, b.ey >> 1};
  const int X0 = b.x0 >> 1, Y0 = b.y0 >> 1;
  u32 a[4];
  repack_a(D, 0, a);
#pragma unroll
  for (int o = 0; o < 4; ++o) {
    const golden::ArenaSlot slot = golden::arena_slot(kOrder, o, b.t);
    const int m = b.g + 8 * slot.row_half;
    const int x = X0 + (kRegister ? (m & 7) >> 1 : m & 3), y = Y0 + (kRegister ? 2 * (m >> 3) + (m & 1) : m >> 2);
    if (pa.in_frame(x, y)) *reinterpret_cast<u32*>(p.merged_output + 4 * pa.word_index(P, x, y, slot.word)) = a[o];
  }
}

// E62's sigmoid: f16(1 / (1 + 2^(f32(v) * -log2 e))), one f32 instruction per step (golden e62_sigmoid).
__device__ __forceinline__ u16 e62_sigmoid(u16 v) {
  const float t = ptx::mul_ftz(ptx::cvt_f32_f16(v), __int_as_float(golden::kMinusLog2eF32Bits));
  const float den = ptx::add_ftz(ptx::ex2_approx_ftz(t), __int_as_float(golden::kOneF32Bits));
  return ptx::cvt_rn_f16_f32(ptx::div_approx_ftz(__int_as_float(golden::kOneF32Bits), den));
}

// E62 (enc3's E48, enc1's E32) for thread T < 64 (every lane of a warp: the shuffles take the whole
// warp). A pixel outside the frame skips (b)..(e) and gives 0 to the shuffles (reading
// sigmoid-inactive-lane = zero). logits(l, l1011): row T's logits 0..9 (f16x2 pairs) and 10, 11,
// read only for an active pixel.
template <class Logits>
__device__ __forceinline__ void e62_gated(const MergeArgs& p, const Block& b, int T, const Logits& logits) {
  const golden::PixelXY px = golden::e61_pixel_of_thread(b.x0, b.y0, T);
  const int X = px.x, Y = px.y;
  const bool active = X >= 0 && Y >= 0 && X < b.ex && Y < b.ey;
  u32 q01 = 0, q2 = 0;  // the 0.25-scaled values: f16x2 (q0, q1), (q2, 0)
  if (active) {
    u32 l[5], l1011;
    logits(l, l1011);
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
// E62 with the logits from the E61 records in shared memory.
struct RecordLogits {
  const u32* rec;
  int T;
  __device__ __forceinline__ void operator()(u32 (&l)[5], u32& l1011) const {
#pragma unroll
    for (int i = 0; i < 5; ++i) l[i] = rec[golden::e61_record_word(T, i, 0)];
    l1011 = rec[golden::e61_record_word(T, 5, 0)];
  }
};
__device__ __forceinline__ void e62(const MergeArgs& p, const Block& b, int T, const u32* rec) { e62_gated(p, b, T, RecordLogits{rec, T}); }

// A merge layer's kernel (enc4's phases 1..62, enc3's 1..48), block (32, 1, H): the template's
// phases through the arena scatter, the final phase (A = q8 of the last down-projection:
// final-phase-a), the merge in 32-column passes on warps 0..3 (warp 0 also the fifth), the final
// epilogue on threads 0..63. smem: the layer's __shared__ array (Ly::kSharedBytes).
template <class Ly>
__device__ __forceinline__ void merge_layer(const MergeLayerParams& params, std::uint8_t* smem) {
  const MergeArgs p{{params.input_arena, params.weights, params.output_arena, params.texture, params.surface112},
                    params.merged_output,
                    params.surface120,
                    params.surface128};
  const Block b = block_of(params);
  u32 x[Ly::kNTiles][2];
  attention_phases<Ly>(p.base, b, smem, x);  // prologue, attention, E12 as enc5's

  u32 L[2][2], D[Ly::kNTiles][2];
  if (b.z < Ly::kMlpWarps) {
    u32 a61[Ly::kSlices][4];
    mlp_phases<Ly>(p.base, b, smem, x, D, a61);  // projections, MLP, E60(a)/(b): the arena
    phase61<Ly>(p.base, b, a61, L);              // the final phase: A = q8(D60) (final-phase-a)
  }
  __syncthreads();  // the projections are done reading the E12 staging
  if (b.z < Ly::kMlpWarps) merge_stage<Ly>(b, D, smem);
  __syncthreads();
  if (b.z < Ly::kMlpWarps) {  // the merge in 32-column passes: warp z takes pass z, warp 0 also pass 4
    u32 M[4][2];
    merge_pass<Ly>(p, b, b.z, SharedMergeA<Ly>{b, smem}, M);
    merge_store<Ly>(p, b, b.z, M);
    if constexpr (Ly::kMergePasses > Ly::kMlpWarps) {
      if (b.z == 0) {
        merge_pass<Ly>(p, b, Ly::kMlpWarps, SharedMergeA<Ly>{b, smem}, M);
        merge_store<Ly>(p, b, Ly::kMlpWarps, M);
      }
    }
  }
  __syncthreads();  // the merge is done reading the staged tokens
  u32* rec = reinterpret_cast<u32*>(smem);
  if (b.z < Ly::kMlpWarps) e61_records(b, L, rec);
  __syncthreads();
  const int T = b.lane + 32 * b.z;
  if (T < rrswin::golden::kE61Threads) e62(p, b, T, rec);
}

}  // namespace
}  // namespace rrswin::cuda
