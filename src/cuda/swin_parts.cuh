// The parts of the Swin layer kernel that enc5, enc4 and enc3 share (issue 21: enc4's phases 1..60
// are enc5's, statement for statement, DOC4 §2; issue 37: enc3's 1..46 the same template at C = 128,
// 4 heads, 16 chunks, DOC3 §2): the prologue, attention, output projection, E20, the MLP chunks,
// E60's scatter, the 16-logit phase and E61's softmax-and-stencil core, each in the golden model's
// order and names (src/cuda/enc5_kernel.cu lists them). The parts that depend on the layer's
// dimensions take its description `Ly` (cuda/layer_dims.hpp: Layer<LayerDims>, C, heads, chunks and
// the weight map from the layer's row). Included by the kernels' .cu files only (one translation
// unit each).
#pragma once
#include <cstdint>

#include "cuda/enc5_params.hpp"
#include "cuda/fragments.cuh"
#include "cuda/layer_dims.hpp"
#include "cuda/ptx_ops.cuh"
#include "cuda/trace_stages.hpp"
#include "layout/arena.hpp"
#include "layout/tables.hpp"
#include "model/constants.hpp"
#include "model/index_maps.hpp"
#include "model/sum_tree.hpp"

namespace rrswin::cuda {
namespace {

constexpr Readings kR = kKernelReadings;
// Readings whose alternatives change the arithmetic or the synchronisation rather than an index:
// only the default is written here (the host refuses the others, cuda/launch_check.hpp).
static_assert(kR.prologue_fill == PrologueFill::zero, "prologue-fill: only 'zero' is implemented");
static_assert(kR.prologue_norm == PrologueNorm::rms_gain, "prologue-norm: only 'rms-gain' is implemented");
static_assert(kR.prologue_eps == PrologueEps::e2m13, "prologue-eps: only '2^-13' is implemented");
static_assert(kR.c13_residual == C13Residual::raw_input, "projection-residual: only 'raw-input' is implemented");
static_assert(kR.t1_chunk_order == TableChunkOrder::nt && kR.g2_chunk_order == TableChunkOrder::nt &&
                  kR.t3_chunk_order == TableChunkOrder::nt,
              "table chunk orders: only 'nt' is implemented");
static_assert(kR.e21_residual == E21Residual::d20, "mlp-residual: only 'd20' is implemented");
static_assert(kR.e60_lane_guard == E60LaneGuard::off, "arena-lane-guard: only 'off' is implemented");
static_assert(kR.e61_record_guard == E61RecordGuard::t_le_1, "filter-record-guard: 'none' races across warps");
static_assert(kR.e61_exp_rounding == E61ExpRounding::f32_sum && kR.e61_sum_order == E61SumOrder::sequential &&
                  kR.e61_weight_product == E61WeightProduct::f16_mul && kR.e61_pairing == E61Pairing::last_single &&
                  kR.e61_logits == E61Logits::ten,
              "E61 softmax readings: only the defaults are implemented");

using layout::seed_word_offset;
using ptx::u16;
using ptx::u32;

__host__ __device__ constexpr u32 dup(u16 h) { return static_cast<u32>(h) | (static_cast<u32>(h) << 16); }
__device__ __forceinline__ u16 lo(u32 v) { return static_cast<u16>(v & 0xFFFFu); }
__device__ __forceinline__ u16 hi(u32 v) { return static_cast<u16>(v >> 16); }

// The parameter block's fields, read once at entry (ld.param at their facts A4 offsets).
struct Args {
  const std::uint8_t* input_arena;
  const std::uint8_t* weights;
  std::uint8_t* output_arena;
  unsigned long long texture, surface;
};
// Where a thread is: block origin (facts A5), warp z, lane (g, t); in the trace build, the
// trace buffer when this CTA is the traced one (else null).
struct Block {
  int ex, ey, x0, y0;
  int z, lane, g, t;
  u32* trace;
};

// The thread's place at entry, from the launch's fields (enc5's and enc4's parameter blocks name
// them alike): block origin x0 = 8 ctaid.x - ox, y0 = 8 ctaid.y - oy (facts A5), warp z = tid.z,
// lane = tid.x = 4g + t. No trace buffer (the trace build sets one after, enc5_kernel.cu).
template <class Params>
__device__ __forceinline__ Block block_of(const Params& params) {
  Block b;
  b.ex = static_cast<int>(params.ex);
  b.ey = static_cast<int>(params.ey);
  b.x0 = 8 * static_cast<int>(blockIdx.x) - params.block_offset_x;
  b.y0 = 8 * static_cast<int>(blockIdx.y) - params.block_offset_y;
  b.z = static_cast<int>(threadIdx.z);
  b.lane = static_cast<int>(threadIdx.x);
  b.g = b.lane >> 2;
  b.t = b.lane & 3;
  b.trace = nullptr;
  return b;
}

// The trace build (RRSWIN_CUDA_TRACE) stores stage values in the golden model's register order
// (cuda/trace_stages.hpp); in the production build RRSWIN_TRACE is nothing.
#if defined(RRSWIN_CUDA_TRACE)
template <int Stage>
__device__ __forceinline__ void trace_put(const Block& b, int reg, u32 v) {
  constexpr int kOffset = trace_stage_offset(Stage), kRegs = trace_stage(Stage).regs;
  if (b.trace) b.trace[kOffset + (32 * b.z + b.lane) * kRegs + reg] = v;
}
#define RRSWIN_TRACE(stage, reg, value) trace_put<(stage)>(b, (reg), (value))
#else
#define RRSWIN_TRACE(stage, reg, value) ((void)0)
#endif
// A D tile of n-tiles nt, rows 16mi.. as the golden record_tile: reg = base + 2nt + rh.
#define RRSWIN_TRACE_TILE(stage, base, d, nts)                                                                  \
  do {                                                                                                          \
    _Pragma("unroll") for (int nt_ = 0; nt_ < (nts); ++nt_) _Pragma("unroll") for (int rh_ = 0; rh_ < 2; ++rh_) \
        RRSWIN_TRACE((stage), (base) + 2 * nt_ + rh_, (d)[nt_][rh_]);                                           \
  } while (0)

__device__ __forceinline__ u32 ld_u32(const std::uint8_t* base, std::uint32_t off) { return *reinterpret_cast<const u32*>(base + off); }
__device__ __forceinline__ uint4 ld_v4(const std::uint8_t* base, std::uint32_t off) { return *reinterpret_cast<const uint4*>(base + off); }

// The operations the shared trees of model/sum_tree.hpp are instantiated with.
struct AddF16x2 {
  __device__ __forceinline__ u32 operator()(u32 a, u32 b) const { return ptx::add_f16x2(a, b); }
};
struct ShflBfly {
  __device__ __forceinline__ u32 operator()(u32 v, int lane_mask) const { return ptx::shfl_bfly(v, lane_mask); }
};
struct AddHalves {
  __device__ __forceinline__ u16 operator()(u32 v) const { return ptx::add_f16(lo(v), hi(v)); }
};

// ---- RMS norm pieces (golden rms_norm.cpp), facts B4, C8 ----
// The f16 sum of squares of row half rh of an NT-n-tile D tile (NT = C/8: 20, 16): squares
// (mul.f16x2), the reading's in-lane tree (model/sum_tree.hpp, shared with the golden model),
// butterflies xor 1 then xor 2, then lo + hi.
template <int NT>
__device__ __forceinline__ u16 rms_sum_of_squares(const u32 (&d)[NT][2], int rh, SumTree tree) {
  u32 sq[NT];
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) sq[nt] = ptx::mul_f16x2(d[nt][rh], d[nt][rh]);
  const u32 s = reduce_in_lane(sq, tree, [](u32 a, u32 b) { return ptx::add_f16x2(a, b); });
  return fold_butterflies(s, AddF16x2{}, ShflBfly{}, AddHalves{});
}
// inv = f16(rsqrt.approx.ftz(f32(f16(sum + eps)))).
__device__ __forceinline__ u16 rms_inverse(u16 sum, u16 eps) {
  return ptx::cvt_rn_f16_f32(ptx::rsqrt_approx_ftz(ptx::cvt_f32_f16(ptx::add_f16(sum, eps))));
}
// y = f16(x * f16(inv * gain)) for every element of the tile, gain from a C-column table.
template <int NT>
__device__ __forceinline__ void rms_scale(const std::uint8_t* W, std::uint32_t table, const Block& b, const u32 (&x)[NT][2],
                                          const u16 (&inv)[2], u32 (&y)[NT][2]) {
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    const u32 gain = ld_u32(W, seed_word_offset(table, nt, b.t));
#pragma unroll
    for (int rh = 0; rh < 2; ++rh) y[nt][rh] = ptx::mul_f16x2(x[nt][rh], ptx::mul_f16x2(dup(inv[rh]), gain));
  }
}

// ---- prologue (golden prologue.cpp), facts B1..B6 ----
// A register o of plane q of m-tile mi as the prologue loads it: the input-arena word at arena_slot
// (the map E60 writes with) of the row's token pixel (reading prologue-halo), or 0 outside the frame
// (prologue-fill = zero: the guarded load leaves its register 0). Its four bytes are the A
// register's four codes (golden prologue_gather); enc0's P1 takes them as they are.
__device__ __forceinline__ u32 prologue_word(const Args& p, const Block& b, int mi, int q, int o) {
  const ArenaOrder order = kR.prologue_load_order == PrologueLoadOrder::fragment ? ArenaOrder::fragment : ArenaOrder::natural;
  const layout::PlaneArena pa{b.ex, b.ey};
  const golden::ArenaSlot slot = golden::arena_slot(order, o, b.t);
  const golden::PixelXY px = golden::token_pixel_of(kR.prologue_halo, b.x0, b.y0, 16 * mi + b.g + 8 * slot.row_half);
  u32 w = 0;
  if (pa.in_frame(px.x, px.y)) w = *reinterpret_cast<const u32*>(p.input_arena + 4 * pa.word_index(q, px.x, px.y, slot.word));
  return w;
}
// The input norm of one m-tile (golden stage_input with prologue_norm_spec): x RMS-normalised with
// g1 and requantised as the stem's A of k-slice q, handed to put(q, a).
template <class Ly, class Put>
__device__ __forceinline__ void prologue_norm_a(const Args& p, const Block& b, const u32 (&x)[Ly::kNTiles][2], const Put& put) {
  constexpr WeightMap m = Ly::kMap;
  constexpr u16 kEps = golden::kPrologueEpsE2m13;  // reading prologue-eps (static_assert above)
  u16 inv[2];
#pragma unroll
  for (int rh = 0; rh < 2; ++rh) inv[rh] = rms_inverse(rms_sum_of_squares(x, rh, kR.prologue_sum_tree), kEps);
  u32 h1[Ly::kNTiles][2];
  rms_scale(p.weights, m.g1(), b, x, inv, h1);
#pragma unroll
  for (int q = 0; q < Ly::kSlices; ++q) {
    u32 a[4];
    repack_a(h1, q, a);
    put(q, a);
  }
}
// M-tile mi of the input: per plane q (C/32 of them) its four A registers o as four input-arena
// words (prologue_word), decoded into the residual x (D layout, in registers), then the input norm
// (prologue_norm_a: staged to shared memory, or kept in registers).
template <class Ly, class Put>
__device__ __forceinline__ void prologue_a(const Args& p, const Block& b, int mi, u32 (&x)[Ly::kNTiles][2], const Put& put) {
  constexpr int KS = Ly::kSlices;
#pragma unroll
  for (int q = 0; q < KS; ++q)
#pragma unroll
    for (int o = 0; o < 4; ++o) {
      const u32 w = prologue_word(p, b, mi, q, o);
      x[4 * q + repack_nt(o >> 1, 0)][o & 1] = ptx::cvt_f16x2_e4m3x2(static_cast<u16>(w & 0xFFFFu));
      x[4 * q + repack_nt(o >> 1, 1)][o & 1] = ptx::cvt_f16x2_e4m3x2(static_cast<u16>(w >> 16));
    }
  prologue_norm_a<Ly>(p, b, x, put);
}
// Warp z stages m-tile mi (z, and 4 + z for z <= 1, facts A8.1) as fragment (C/32) mi + q.
template <class Ly>
__device__ __forceinline__ void prologue(const Args& p, const Block& b, int mi, u32 (&x)[Ly::kNTiles][2], std::uint8_t* smem) {
  constexpr int KS = Ly::kSlices;
  prologue_a<Ly>(p, b, mi, x, [&](int q, const u32(&a)[4]) {
    *reinterpret_cast<uint4*>(smem + 512 * (KS * mi + q) + 16 * b.lane) = make_uint4(a[0], a[1], a[2], a[3]);
  });
}

// Where the stem reads its A (the prologue's q8(h1), m-tile mi, k-slice ks): the shared array the
// prologue warps stage it in (one warp per head), or the one warp's registers (serial heads).
template <int KS>
struct SharedStagedA {
  const std::uint8_t* smem;
  int lane;
  __device__ __forceinline__ void operator()(int mi, int ks, u32 (&a)[4]) const {
    const uint4 v = *reinterpret_cast<const uint4*>(smem + 512 * (KS * mi + ks) + 16 * lane);
    a[0] = v.x, a[1] = v.y, a[2] = v.z, a[3] = v.w;
  }
};
template <int KS>
struct RegisterStagedA {
  const u32 (&staged)[6][KS][4];
  __device__ __forceinline__ void operator()(int mi, int ks, u32 (&a)[4]) const {
#pragma unroll
    for (int o = 0; o < 4; ++o) a[o] = staged[mi][ks][o];
  }
};

// ---- attention (golden attention.cpp): phases 1..12, E10, E11, E12; head h (warp z = head z, or
// the one warp's heads in turn) ----
// Phases 1..2C/32 (facts C2): chain A (odd phases) = Q, chain B (even) = V, k-step ks = (p-1)/2
// over staged k-slice ks, B tiles of head h's slot at Wq/Wv + 1024 ks.
template <class Ly, class StagedA>
__device__ __forceinline__ void qv_chains(const Args& p, const Block& b, int h, const StagedA& staged, u32 (&Q)[6][4][2],
                                          u32 (&V)[6][4][2]) {
  constexpr int KS = Ly::kSlices;
  constexpr WeightMap m = Ly::kMap;
#pragma unroll
  for (int mi = 0; mi < 6; ++mi)
#pragma unroll
    for (int nt = 0; nt < 4; ++nt) Q[mi][nt][0] = Q[mi][nt][1] = V[mi][nt][0] = V[mi][nt][1] = 0;  // C = %r11547 = 0
#pragma unroll
  for (int ks = 0; ks < KS; ++ks) {
    u32 a[6][4];
#pragma unroll
    for (int mi = 0; mi < 6; ++mi) staged(mi, ks, a[mi]);
#pragma unroll
    for (int chain = 0; chain < 2; ++chain) {  // phase 2ks+1 (Q), then phase 2ks+2 (V)
      const std::uint32_t base = (chain == 0 ? m.wq(h) : m.wv(h)) + 1024u * ks;
      u32(&D)[6][4][2] = chain == 0 ? Q : V;
#pragma unroll
      for (int tile = 0; tile < 2; ++tile) {
        const BPair bp = load_b_pair(p.weights + base + 512u * tile, b.lane);
#pragma unroll
        for (int mi = 0; mi < 6; ++mi) {
          mma_acc(D[mi][2 * tile], a[mi], bp.lo);
          mma_acc(D[mi][2 * tile + 1], a[mi], bp.hi);
        }
      }
      // stages w1, w2 (phases 1, 2) and w9, w10 (phases 9, 10)
#pragma unroll
      for (int mi = 0; mi < 6; ++mi) {
        if (ks == 0 && chain == 0) RRSWIN_TRACE_TILE(kTraceW1, 8 * mi, D[mi], 4);
        if (ks == 0 && chain == 1) RRSWIN_TRACE_TILE(kTraceW2, 8 * mi, D[mi], 4);
        if (ks == KS - 1 && chain == 0) RRSWIN_TRACE_TILE(kTraceW9, 8 * mi, D[mi], 4);
        if (ks == KS - 1 && chain == 1) RRSWIN_TRACE_TILE(kTraceW10, 8 * mi, D[mi], 4);
      }
    }
  }
}

// E11 steps 1..5 (facts C4): the cubic exponent of an f16x2 pair of scores.
__device__ __forceinline__ u32 e11_expval(u32 s) {
  using namespace golden;  // the constants (model/constants.hpp)
  u32 m = ptx::mul_f16x2(s, dup(kE11Scale));
  m = ptx::max_f16x2(m, dup(kE11ClampLow));
  m = ptx::min_f16x2(m, dup(kE11ClampHigh));
  const u32 tt = ptx::fma_f16x2(m, ptx::neg_f16x2(m), dup(kE11Quadratic));  // m*(-m) + 0.92724609375
  const u32 u = ptx::fma_f16x2(m, tt, dup(kE11Linear));                     // m*tt + 1.375
  return (u << 5) & dup(kE11ExponentBits);                                  // each half's mantissa becomes its exponent (step 5)
}

// E11 steps 6..9 for one row half: the row sum (even/odd n-tile tree, butterflies, lo + hi), its
// reciprocal (cvt.f32.f16 -> rcp.approx.ftz.f32 -> cvt.rn.f16.f32) and the probabilities.
__device__ __forceinline__ void e11_row(u32 (&e)[12][2], int rh) {
  u32 row[12];
#pragma unroll
  for (int nb = 0; nb < 12; ++nb) row[nb] = e[nb][rh];
  const u16 sum = fold_butterflies(e11_in_lane(row, AddF16x2{}), AddF16x2{}, ShflBfly{}, AddHalves{});
  const u16 rcp = ptx::cvt_rn_f16_f32(ptx::rcp_approx_ftz(ptx::cvt_f32_f16(sum)));
#pragma unroll
  for (int nb = 0; nb < 12; ++nb) e[nb][rh] = ptx::mul_f16x2(e[nb][rh], dup(rcp));
}

// Phase 11 for query m-tile mi (facts C3): S = mma(q8(Q rows) . q8(Q keys), score bias of head h).
// E10's packs: A = q8(Q[mi]) and B for key n-tile nb = q8(Q) rows 8nb..8nb+7.
template <class Ly>
__device__ __forceinline__ void score_phase(const Args& p, const Block& b, int h, int mi, const u32 (&aq)[4], const u32 (&bq)[12][2],
                                            u32 (&S)[12][2]) {
  constexpr WeightMap m = Ly::kMap;
  const std::uint32_t bias = m.score_bias(h);
#pragma unroll
  for (int nbp = 0; nbp < 6; ++nbp) {
    // one 16-byte load = the C seeds of n-tiles 2nbp (rh 0, 1) and 2nbp+1 (layout/tables.hpp)
    const uint4 c = ld_v4(p.weights, layout::score_bias_word_offset(bias, mi, 2 * nbp, 0, b.lane));
    S[2 * nbp][0] = c.x, S[2 * nbp][1] = c.y, S[2 * nbp + 1][0] = c.z, S[2 * nbp + 1][1] = c.w;
  }
#pragma unroll
  for (int nb = 0; nb < 12; ++nb) mma_acc(S[nb], aq, bq[nb]);
}
static_assert(layout::score_bias_word_offset(0, 0, 0, 1, 0) == 4 && layout::score_bias_word_offset(0, 0, 1, 0, 0) == 8 &&
                  layout::score_bias_word_offset(0, 0, 1, 1, 0) == 12,
              "phase 11's C seeds: the four words of one lane's 16 bytes");

// Phase 12 for m-tile mi (facts C5): O = q8(P) q8(V) over 3 chained k-steps from 0. B = q8(V)
// transposed by movmatrix (E11(f)), prepared once per head in vt.
__device__ __forceinline__ void pv_phase(const u32 (&P)[12][2], const u32 (&vt)[3][4][2], u32 (&O)[4][2]) {
#pragma unroll
  for (int nt = 0; nt < 4; ++nt) O[nt][0] = O[nt][1] = 0;
#pragma unroll
  for (int ks = 0; ks < 3; ++ks) {
    u32 a[4];
    repack_a(P, ks, a);
#pragma unroll
    for (int nt = 0; nt < 4; ++nt) mma_acc(O[nt], a, vt[ks][nt]);
  }
}

// E11(f)/(g): q8(V) as phase 12's B operands. An 8x8 block (keys 8a.., columns 8nt..) of V sits
// in D register rh = a & 1 of m-tile a >> 1; movmatrix.trans gives lane (g, t) keys 8a+2t, +1 of
// column 8nt+g, which are bytes 0,1 (a = 4ks + b) or 2,3 (a = 4ks + 2 + b) of B register b.
__device__ __forceinline__ void v_transpose(const u32 (&V)[6][4][2], u32 (&vt)[3][4][2]) {
#pragma unroll
  for (int ks = 0; ks < 3; ++ks)
#pragma unroll
    for (int nt = 0; nt < 4; ++nt)
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int a0 = 4 * ks + repack_nt(r, 0), a1 = 4 * ks + repack_nt(r, 1);
        vt[ks][nt][r] = pack_q8(ptx::movmatrix_trans(V[a0 >> 1][nt][a0 & 1]), ptx::movmatrix_trans(V[a1 >> 1][nt][a1 & 1]));
      }
}

// Phases 1..12 of head h (enc3: 1..10; enc1: head 0's 1..6, head 1's 8..13), E10..E12's packs;
// returns q8(O) as the four A operands of m-tiles 0..3 (the A of head h's projection phase, staged
// by e12_stage or kept in registers).
template <class Ly, class StagedA>
__device__ __forceinline__ void attention(const Args& p, const Block& b, int h, const StagedA& staged, u32 (&ao)[4][4]) {
  u32 aq[4][4], bq[12][2], vt[3][4][2];
  {
    u32 Q[6][4][2], V[6][4][2];
    qv_chains<Ly>(p, b, h, staged, Q, V);
    // E10: q8(D9) packed as phase 11's A (query m-tiles 0..3) and B (keys 0..95).
#pragma unroll
    for (int mi = 0; mi < 4; ++mi) repack_a(Q[mi], 0, aq[mi]);
#pragma unroll
    for (int nb = 0; nb < 12; ++nb) repack_b_rows(Q[nb >> 1], nb & 1, bq[nb]);
    v_transpose(V, vt);
  }
#pragma unroll
  for (int mi = 0; mi < 4; ++mi) {
    u32 S[12][2];
    score_phase<Ly>(p, b, h, mi, aq[mi], bq, S);
    RRSWIN_TRACE_TILE(kTraceW11, 24 * mi, S, 12);
#pragma unroll
    for (int nb = 0; nb < 12; ++nb)
#pragma unroll
      for (int rh = 0; rh < 2; ++rh) S[nb][rh] = e11_expval(S[nb][rh]);
    RRSWIN_TRACE_TILE(kTraceE11e, 24 * mi, S, 12);
    e11_row(S, 0);
    e11_row(S, 1);
    RRSWIN_TRACE_TILE(kTraceE11p, 24 * mi, S, 12);
    u32 O[4][2];
    pv_phase(S, vt, O);
    RRSWIN_TRACE_TILE(kTraceW12, 8 * mi, O, 4);
    repack_a(O, 0, ao[mi]);  // E12 steps 1..2: q8(D12)
  }
}

// E12 (facts A8.4): head z's m-tile mi at 2048 z + 512 mi + 16 lane (after the barrier that ends
// phases 1..10's reads of the staged input).
__device__ __forceinline__ void e12_stage(const Block& b, const u32 (&ao)[4][4], std::uint8_t* smem) {
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
    *reinterpret_cast<uint4*>(smem + 2048 * b.z + 512 * mi + 16 * b.lane) = make_uint4(ao[mi][0], ao[mi][1], ao[mi][2], ao[mi][3]);
}

// The prologue, phases 1..12 and E12 with their three barriers (facts A7, A8), the same in every
// layer: warps 0..3 stage m-tile z (and 0, 1 also m-tiles 4, 5) and warp z keeps m-tile z's decoded
// input x for the first projection's C (facts A8.1); then all H warps run attention, warp z = head z,
// and stage q8(O). Warps 4..7 of enc5/enc4 have no more work after it (the original exits them,
// facts A7); the kernels keep them to pass the E61 barriers, so every barrier is a plain full-CTA
// bar.sync.
template <class Ly>
__device__ __forceinline__ void attention_phases(const Args& p, const Block& b, std::uint8_t* smem, u32 (&x)[Ly::kNTiles][2]) {
  if (b.z < 4) {
    prologue<Ly>(p, b, b.z, x, smem);
    if (b.z < 2) {
      u32 halo[Ly::kNTiles][2];
      prologue<Ly>(p, b, 4 + b.z, halo, smem);
    }
  }
  __syncthreads();  // s7506
  u32 ao[4][4];
  attention<Ly>(p, b, b.z, SharedStagedA<Ly::kSlices>{smem, b.lane}, ao);  // phases 1..12
  __syncthreads();  // s11968: every warp's phases 1..10 are done with the staged input
  e12_stage(b, ao, smem);
  __syncthreads();  // s12026
}

// ---- output projection (golden out_projection.cpp): E12 step 5, phases 13..20 (enc3: 11..14) ----
// Warp z < 4, token rows 16z..16z+15: C13 = f16(T1 + x), then phase 13+j adds head j's staged
// q8(O) (m-tile z) times Wo_j, chained over the H heads.
// The first projection's C: C13 = f16(T1 + x) (E12 step 5).
template <class Ly>
__device__ __forceinline__ void c13_seed(const Args& p, const Block& b, const u32 (&x)[Ly::kNTiles][2], u32 (&D)[Ly::kNTiles][2]) {
  constexpr WeightMap m = Ly::kMap;
#pragma unroll
  for (int nt = 0; nt < Ly::kNTiles; ++nt) {
    const u32 t1 = ld_u32(p.weights, seed_word_offset(m.t1(), nt, b.t));
    D[nt][0] = ptx::add_f16x2(t1, x[nt][0]);
    D[nt][1] = ptx::add_f16x2(t1, x[nt][1]);
  }
}
// Head j's projection phase on one m-tile: D += q8(O_j) Wo_j (one k-step, C columns).
template <class Ly>
__device__ __forceinline__ void projection_step(const Args& p, const Block& b, int j, const u32 (&a)[4], u32 (&D)[Ly::kNTiles][2]) {
  constexpr WeightMap m = Ly::kMap;
#pragma unroll
  for (int tile = 0; tile < Ly::kBTiles; ++tile) {
    const BPair bp = load_b_pair(p.weights + m.wo(j) + 512u * tile, b.lane);
    mma_acc(D[2 * tile], a, bp.lo);
    mma_acc(D[2 * tile + 1], a, bp.hi);
  }
}
template <class Ly>
__device__ __forceinline__ void out_projection(const Args& p, const Block& b, const std::uint8_t* smem, const u32 (&x)[Ly::kNTiles][2],
                                               u32 (&D)[Ly::kNTiles][2]) {
  c13_seed<Ly>(p, b, x, D);
  RRSWIN_TRACE_TILE(kTraceP13c, 0, D, Ly::kNTiles);
#pragma unroll 1
  for (int j = 0; j < Ly::H; ++j) {
    const uint4 v = *reinterpret_cast<const uint4*>(smem + 2048 * j + 512 * b.z + 16 * b.lane);
    const u32 a[4] = {v.x, v.y, v.z, v.w};
    projection_step<Ly>(p, b, j, a, D);
    if (j == 0) RRSWIN_TRACE_TILE(kTraceP13d, 0, D, Ly::kNTiles);
    if (j == Ly::H - 1) RRSWIN_TRACE_TILE(kTraceP20d, 0, D, Ly::kNTiles);
  }
}

// ---- E20 (golden rms_norm.cpp e20_norm), facts C8 ----
// N = f16(D20 * f16(inv * g2)) packed as q8(N) (the up-projections' A, C/32 k-slices), and C22 =
// f16(T3 + D20) (E21 step: the first down-projection's C, reading mlp-residual = d20) written over D.
template <class Ly>
__device__ __forceinline__ void e20_norm(const Args& p, const Block& b, u32 (&D)[Ly::kNTiles][2], u32 (&nq)[Ly::kSlices][4]) {
  constexpr WeightMap m = Ly::kMap;
  constexpr u16 kEps = golden::kE20Eps;  // 2^-13, facts C8.4
  u16 inv[2];
#pragma unroll
  for (int rh = 0; rh < 2; ++rh) inv[rh] = rms_inverse(rms_sum_of_squares(D, rh, kR.e20_sum_tree), kEps);
  {
    u32 n[Ly::kNTiles][2];
    rms_scale(p.weights, m.g2(), b, D, inv, n);
    RRSWIN_TRACE_TILE(kTraceE20n, 0, n, Ly::kNTiles);
#pragma unroll
    for (int s = 0; s < Ly::kSlices; ++s) repack_a(n, s, nq[s]);
  }
#pragma unroll
  for (int nt = 0; nt < Ly::kNTiles; ++nt) {
    const u32 t3 = ld_u32(p.weights, seed_word_offset(m.t3(), nt, b.t));
    D[nt][0] = ptx::add_f16x2(t3, D[nt][0]);
    D[nt][1] = ptx::add_f16x2(t3, D[nt][1]);
  }
}

// ---- MLP (golden mlp.cpp), facts C9..C11 ----
// E21's clamped cubic activation (facts C10) of an f16x2 pair: y = clamp(y0, -2, 2),
// gate = 0.5 + y (0.412109375 - 0.0810546875 |y|), out = y0 gate; each op one f16 rounding.
__device__ __forceinline__ u32 activation(u32 y0) {
  using namespace golden;  // the constants (model/constants.hpp)
  const u32 y = ptx::min_f16x2(ptx::max_f16x2(y0, dup(kActClampLow)), dup(kActClampHigh));
  const u32 s = ptx::mul_f16x2(dup(kActSlope), ptx::abs_f16x2(y));
  const u32 d = ptx::sub_f16x2(dup(kActOffset), s);
  const u32 h = ptx::mul_f16x2(y, d);
  const u32 gate = ptx::add_f16x2(dup(kActHalf), h);
  return ptx::mul_f16x2(y0, gate);
}

// Chunk c: odd phase 21+2c (4 chains x C/32 k-steps over banded W1_c, C = b1_c records), its
// activation, and even phase 22+2c (one k-step, B = W2_c, chained in D).
template <class Ly>
__device__ __forceinline__ void mlp_chunk(const Args& p, const Block& b, int c, const u32 (&nq)[Ly::kSlices][4], u32 (&D)[Ly::kNTiles][2]) {
  constexpr WeightMap m = Ly::kMap;
  // The chunk's three regions as pointers, the offsets inside them constants (immediates in the PTX).
  const std::uint8_t *W1 = p.weights + m.w1(c), *B1 = p.weights + m.b1(c), *W2 = p.weights + m.w2(c);
  u32 H[4][2];
#pragma unroll
  for (int nt = 0; nt < 4; ++nt) H[nt][0] = H[nt][1] = ld_u32(B1, seed_word_offset(0, nt, b.t));
#pragma unroll
  for (int s = 0; s < Ly::kSlices; ++s)
#pragma unroll
    for (int half = 0; half < 2; ++half) {  // chains 0/1 (n < 16): tiles 0..C/32-1; chains 2/3: the next C/32
      const BPair bp = load_b_pair(W1 + layout::waddr_banded(0, s, 0, 16 * half, Ly::kSlices), b.lane);
      mma_acc(H[2 * half], nq[s], bp.lo);
      mma_acc(H[2 * half + 1], nq[s], bp.hi);
    }
  if (c == 0) RRSWIN_TRACE_TILE(kTraceP21d, 0, H, 4);
#pragma unroll
  for (int nt = 0; nt < 4; ++nt) H[nt][0] = activation(H[nt][0]), H[nt][1] = activation(H[nt][1]);
  if (c == 0) RRSWIN_TRACE_TILE(kTraceE21act, 0, H, 4);
  if (c == 0) RRSWIN_TRACE_TILE(kTraceP22c, 0, D, Ly::kNTiles);
  u32 a[4];
  repack_a(H, 0, a);
#pragma unroll
  for (int tile = 0; tile < Ly::kBTiles; ++tile) {
    const BPair bp = load_b_pair(W2 + 512u * tile, b.lane);
    mma_acc(D[2 * tile], a, bp.lo);
    mma_acc(D[2 * tile + 1], a, bp.hi);
  }
  if (c == 0) RRSWIN_TRACE_TILE(kTraceP22d, 0, D, Ly::kNTiles);
  if (c == Ly::kChunks - 1) RRSWIN_TRACE_TILE(kTraceP60d, 0, D, Ly::kNTiles);
}

// ---- E60 (golden arena_scatter.cpp), facts C13 ----
// q8(D60) as the final phase's 4C/32 A registers, each also stored to the output arena at pixel
// (x0 + g, y0 + 2z + row_half), word d of plane q (arena_slot), when the pixel is in the frame.
template <class Ly>
__device__ __forceinline__ void e60_scatter(const Args& p, const Block& b, const u32 (&D)[Ly::kNTiles][2], u32 (&a61)[Ly::kSlices][4]) {
  const layout::PlaneArena pa{b.ex, b.ey};
#pragma unroll
  for (int q = 0; q < Ly::kSlices; ++q) {
    repack_a(D, q, a61[q]);
#pragma unroll
    for (int o = 0; o < 4; ++o) {
      RRSWIN_TRACE(kTraceE60words, 4 * q + o, a61[q][o]);
      const golden::ArenaSlot slot = golden::arena_slot(kR.arena_order, o, b.t);
      const int x = b.x0 + b.g, y = b.y0 + 2 * b.z + slot.row_half;
      if (pa.in_frame(x, y)) *reinterpret_cast<u32*>(p.output_arena + 4 * pa.word_index(q, x, y, slot.word)) = a61[q][o];
    }
  }
}

// E20, phases 21..60 and E60 on token rows 16z..16z+15 (z: the warp, or the one warp's m-tile).
template <class Ly>
__device__ __forceinline__ void mlp_tail(const Args& p, const Block& b, u32 (&D)[Ly::kNTiles][2], u32 (&a61)[Ly::kSlices][4]) {
  u32 nq[Ly::kSlices][4];
  e20_norm<Ly>(p, b, D, nq);  // E20 (and E21's C22 seed in D)
#pragma unroll 1
  for (int c = 0; c < Ly::kChunks; ++c) mlp_chunk<Ly>(p, b, c, nq, D);  // phases 21..60
  e60_scatter<Ly>(p, b, D, a61);                                        // E60
}

// Phases 13..60 and E60 on warps 0..3 (token rows 16z..16z+15), the same in every layer (enc3:
// 9..46 and E46): the output projection, E20, the MLP chunks (kept rolled, docs/performance.md), the
// arena scatter; D60 stays in D (the merge reads it), q8(D60) is the final phase's A (a61).
template <class Ly>
__device__ __forceinline__ void mlp_phases(const Args& p, const Block& b, const std::uint8_t* smem, const u32 (&x)[Ly::kNTiles][2],
                                           u32 (&D)[Ly::kNTiles][2], u32 (&a61)[Ly::kSlices][4]) {
  out_projection<Ly>(p, b, smem, x, D);  // phases 13..20
  mlp_tail<Ly>(p, b, D, a61);
}

// ---- phase 61 and E61 (golden kpn_filter.cpp), facts C12, C14 ----
// 2 chains (n-tiles 0, 1) x C/32 k-steps over W61 + 512 s, seeded with the b61 records. The same
// phase is enc4's phase 62 and enc3's 48, at the layer's offsets (the weight map's final phase).
template <class Ly>
__device__ __forceinline__ void phase61(const Args& p, const Block& b, const u32 (&a61)[Ly::kSlices][4], u32 (&L)[2][2]) {
  constexpr WeightMap m = Ly::kMap;
  constexpr std::uint32_t w = m.final_weights(), bias = m.final_bias();
#pragma unroll
  for (int nt = 0; nt < 2; ++nt) L[nt][0] = L[nt][1] = ld_u32(p.weights, seed_word_offset(bias, nt, b.t));
#pragma unroll
  for (int s = 0; s < Ly::kSlices; ++s) {
    const BPair bp = load_b_pair(p.weights + w + 512u * s, b.lane);
    mma_acc(L[0], a61[s], bp.lo);
    mma_acc(L[1], a61[s], bp.hi);
  }
  RRSWIN_TRACE_TILE(kTraceP61d, 0, L, 2);
}

// E61(a) (facts C14.1): record r = token row r, 6 words; word t from n-tile 0, word t + 4 from
// n-tile 1 for t <= 1 (reading filter-record-guard), in the PTX's store order.
__device__ __forceinline__ void e61_records(const Block& b, const u32 (&L)[2][2], u32* rec) {
#pragma unroll
  for (int rh = 0; rh < 2; ++rh) {
    const int r = 16 * b.z + b.g + 8 * rh;
    rec[golden::e61_record_word(r, b.t, 0)] = L[0][rh];
    if (golden::e61_record_stored(kR.e61_record_guard, b.t, 1)) rec[golden::e61_record_word(r, b.t, 1)] = L[1][rh];
  }
}

// E61(b)..(e) of pixel (X, Y) from its ten logits l (f16x2 pairs). Softmax over the 10 logits
// (a real maximum; e_i = ex2.approx.ftz(f32(l_i - max) * log2 e); sequential f32 sum;
// rinv = div.approx.ftz(1, sum); w_i = f16(e_i) * f16(rinv)), 9 texel taps (model/index_maps.hpp),
// per channel 4 fma.f16x2 over tap pairs from 0, lo + hi, a scalar fma with tap 8: out[0..2].
__device__ __forceinline__ void e61_filter(const Args& p, const Block& b, int X, int Y, const u32 (&l)[5], u16 (&out)[3]) {
  const u32 m2 = ptx::max_f16x2(ptx::max_f16x2(ptx::max_f16x2(l[0], l[1]), ptx::max_f16x2(l[2], l[3])), l[4]);
  const u16 mx = ptx::max_f16(lo(m2), hi(m2));
  float e[10];
#pragma unroll
  for (int i = 0; i < 5; ++i) {
    const u32 d = ptx::sub_f16x2(l[i], dup(mx));
    e[2 * i] = ptx::ex2_approx_ftz(ptx::mul_ftz(ptx::cvt_f32_f16(lo(d)), __int_as_float(golden::kLog2eF32Bits)));
    e[2 * i + 1] = ptx::ex2_approx_ftz(ptx::mul_ftz(ptx::cvt_f32_f16(hi(d)), __int_as_float(golden::kLog2eF32Bits)));
  }
  float sum = e[0];
#pragma unroll
  for (int i = 1; i < 10; ++i) sum = ptx::add_ftz(sum, e[i]);
  const float rinv = ptx::div_approx_ftz(1.0f, sum);
  const u16 r16 = ptx::cvt_rn_f16_f32(rinv);
  u32 w[5];  // f16x2 (w_2i, w_2i+1)
#pragma unroll
  for (int i = 0; i < 5; ++i)
    w[i] = ptx::mul_f16x2(static_cast<u32>(ptx::cvt_rn_f16_f32(e[2 * i])) | (static_cast<u32>(ptx::cvt_rn_f16_f32(e[2 * i + 1])) << 16),
                          dup(r16));
  ptx::F16x4 tv[9];
#pragma unroll
  for (int i = 0; i < 9; ++i) {
    const golden::PixelXY tap = golden::e61_tap(kR.e61_border, kR.e61_tap_map, X, Y, b.ex, b.ey, i);
    tv[i] = ptx::tex_fetch(p.texture, tap.x, tap.y);
  }
#pragma unroll
  for (int ch = 0; ch < 3; ++ch) {
    u32 acc = 0;
#pragma unroll
    for (int pr = 0; pr < 4; ++pr) {
      const u32 taps = static_cast<u32>(tv[2 * pr].v[ch]) | (static_cast<u32>(tv[2 * pr + 1].v[ch]) << 16);
      acc = ptx::fma_f16x2(taps, w[pr], acc);
    }
    out[ch] = ptx::fma_f16(tv[8].v[ch], lo(w[4]), ptx::add_f16(lo(acc), hi(acc)));
  }
}
// E61 for thread T < 64: pixel (x0 + (T&7), y0 + (T>>3)), when in the frame: its record's ten
// logits through e61_filter, then sust of (out, 0).
__device__ __forceinline__ void e61_pixel(const Args& p, const Block& b, int T, const u32* rec) {
  const golden::PixelXY px = golden::e61_pixel_of_thread(b.x0, b.y0, T);
  const int X = px.x, Y = px.y;
  if (X < 0 || Y < 0 || X >= b.ex || Y >= b.ey) return;
  u32 l[5];
#pragma unroll
  for (int i = 0; i < 5; ++i) l[i] = rec[golden::e61_record_word(T, i, 0)];
  u16 out[3];
  e61_filter(p, b, X, Y, l, out);
  ptx::surf_store(p.surface, 8 * X, Y, out[0], out[1], out[2], 0);  // x in bytes: 8 per RGBA16F texel
}

}  // namespace
}  // namespace rrswin::cuda
