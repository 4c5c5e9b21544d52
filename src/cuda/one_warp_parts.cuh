// The parts of the one-warp layer (enc1: HeadForm::serial, MergeKind::register_lanes, the one-warp
// gated final; DOC-e1 §2.1/§3) that differ from the merge layers' in control structure only: one
// warp runs everything, and what the other layers pass through shared memory stays in its
// registers. The per-phase arithmetic is the template's (cuda/swin_parts.cuh) and the merge
// layers' (cuda/merge_parts.cuh), in the golden model's order and names (model/layer_golden.hpp):
//
//   prologue_a          facts B      the six m-tiles' q8(h1), kept as the stem's A (no staging)
//   attention           phases 1..6, 8..13  head 0, then head 1 (serial heads, DOC-e1 §2.1)
//   projection_step     phases 7, 14  head h's projection on all four m-tiles, head 1's chained
//                                     on head 0's D (DOC-e1 §3/E13)
//   mlp_tail            E20, 15..30, E30(a)/(b)  per m-tile (the rows 16mi.. of the warp)
//   register_merge_a    E30(c)       the merge's A gathered from the lanes' arena words by
//                                    shfl.sync.idx (golden register_merge_gather)
//   merge_pass          phase 31     16 merged tokens x 32 columns per pass, K = 4C
//   merge_store         E31          token words at the halved extents (golden merge_store)
//   phase61             phase 32     the 16 logits per m-tile
//   e62_gated           E32          the merge layers' E62 on rows T = lane, lane + 32, their
//                                    logits gathered across lanes (golden e62, one_warp)
//
// and one_warp_body, the whole kernel body given the parameter block and the front that makes the
// stem's A (one_warp_layer: enc1's prologue; enc0's embedding, cuda/enc0_parts.cuh). Included by the
// kernels' .cu files only.
#pragma once
#include "cuda/merge_parts.cuh"

namespace rrswin::cuda {
namespace {

static_assert(kLR.merge_register_k == MergeRegisterK::raster_token, "merge-register-k-order: only 'raster-token' is implemented");

// The register that holds a word: E30's arena word (row half rh, word w) of lane t is A register o
// of its k-slice where arena_slot(order, o, t) = (rh, w) (both orders keep t = w & 3).
__host__ __device__ constexpr int arena_register(ArenaOrder order, int row_half, int word_hi) {
  for (int o = 0; o < 4; ++o) {
    const golden::ArenaSlot s = golden::arena_slot(order, o, 0);
    if (s.row_half == row_half && (s.word >> 2) == word_hi) return o;
  }
  return -1;
}
static_assert(arena_register(ArenaOrder::fragment, 1, 0) == 2 && arena_register(ArenaOrder::natural, 1, 0) == 1, "arena_slot's inverse");

// E30(c) (golden register_merge_gather, reading merge-register-k-order = raster-token): A register o
// of k-step s, lane (g, t), is the arena word t | 4 (o >> 1) of plane s % (C/32) at window pixel
// (2 mx + dx, 2 my + dy), (dx, dy) = quarter s / (C/32) in raster order, (mx, my) = merged token
// of row g + 8 (o & 1) (merged_token_of_row: ((m & 7) >> 1, 2 (m >> 3) + (m & 1))). That word is
// register arena_register(dy, o >> 1) of m-tile Y >> 1 = 2 (o & 1) + (g & 1) in lane 4 X + t: one
// source lane for g and g ^ 1, so two shuffles (m-tiles 2 (o & 1) and + 1) and a select.
template <class Ly>
__device__ __forceinline__ void register_merge_a(const Block& b, const u32 (&a61)[4][Ly::kSlices][4], u32 (&ma)[Ly::kMergeKSteps][4]) {
  constexpr int KS = Ly::kSlices;
#pragma unroll
  for (int s = 0; s < Ly::kMergeKSteps; ++s) {
    const int q = s / KS, plane = s % KS, dx = q & 1, dy = q >> 1;
    const int src = 4 * (2 * (b.g >> 1) + dx) + b.t;
#pragma unroll
    for (int o = 0; o < 4; ++o) {
      const int r = arena_register(kR.arena_order, dy, o >> 1);
      const u32 even = ptx::shfl_idx(a61[2 * (o & 1)][plane][r], src);
      const u32 odd = ptx::shfl_idx(a61[2 * (o & 1) + 1][plane][r], src);
      ma[s][o] = (b.g & 1) ? odd : even;
    }
  }
}
template <class Ly>
struct RegisterMergeA {
  const u32 (&ma)[Ly::kMergeKSteps][4];
  __device__ __forceinline__ void operator()(int s, u32 (&a)[4]) const {
#pragma unroll
    for (int o = 0; o < 4; ++o) a[o] = ma[s][o];
  }
};

// A row gathered across lanes (golden e62, one_warp; dec0's E19(a)): pass P's thread T = 32 P + lane
// takes row T of a D held as four m-tiles of NT n-tiles: m-tile T >> 4, row half (T >> 3) & 1,
// g = T & 7; its column pair i (columns 2i, 2i+1) is n-tile i >> 2 of lane 4g + (i & 3). The source
// holds the four candidates (two m-tiles, two row halves) in fixed registers: four shuffles and a
// select per pair, taken by the whole warp.
template <int P, int Pairs, int NT>
__device__ __forceinline__ void gather_row_pairs(const Block& b, const u32 (&L)[4][NT][2], u32 (&w)[Pairs]) {
  static_assert(P == 0 || P == 1, "two passes of 32 rows");
  static_assert((Pairs - 1) / 4 < NT, "the pairs lie in the D's n-tiles");
  const int hi_tile = b.lane >> 4, rh = (b.lane >> 3) & 1, g = b.lane & 7;
#pragma unroll
  for (int i = 0; i < Pairs; ++i) {
    const int src = 4 * g + (i & 3);
    u32 v[2][2];
#pragma unroll
    for (int a = 0; a < 2; ++a)
#pragma unroll
      for (int r = 0; r < 2; ++r) v[a][r] = ptx::shfl_idx(L[2 * P + a][i >> 2][r], src);
    w[i] = hi_tile ? (rh ? v[1][1] : v[1][0]) : (rh ? v[0][1] : v[0][0]);
  }
}
// E32(a)/(b): the 12 logits (6 pairs) of the final phase's row T.
template <int P>
__device__ __forceinline__ void gather_logits(const Block& b, const u32 (&L)[4][2][2], u32 (&w)[6]) {
  gather_row_pairs<P>(b, L, w);
}
struct GatheredLogits {
  const u32 (&w)[6];
  __device__ __forceinline__ void operator()(u32 (&l)[5], u32& l1011) const {
#pragma unroll
    for (int i = 0; i < 5; ++i) l[i] = w[i];
    l1011 = w[5];
  }
};

// The one-warp layer's kernel (enc1's phases 1..32; enc0's 3..22 after its embedding), block
// (32, 1, 1). `front(p, b, staged, D)` makes the stem's A of the six m-tiles (staged, in registers)
// and seeds the first projection's C of m-tiles 0..3 (D = f16(T1 + x), c13_seed): enc1's prologue
// (one_warp_layer below), enc0's embedding (cuda/enc0_parts.cuh).
// The heads in turn (enc1, enc0, dec0): head h's stem, score, P V, then its projection on all 64
// rows, chained on the previous head's D (DOC-e1 §2.1, §3/E13).
template <class Ly>
__device__ __forceinline__ void serial_heads(const Args& a, const Block& b, const u32 (&staged)[6][Ly::kSlices][4],
                                             u32 (&D)[4][Ly::kNTiles][2]) {
  constexpr int KS = Ly::kSlices;
#pragma unroll 1
  for (int h = 0; h < Ly::H; ++h) {
    u32 ao[4][4];
    attention<Ly>(a, b, h, RegisterStagedA<KS>{staged}, ao);
#pragma unroll
    for (int mi = 0; mi < 4; ++mi) projection_step<Ly>(a, b, h, ao[mi], D[mi]);
  }
}

template <class Ly, class Front>
__device__ __forceinline__ void one_warp_body(const MergeLayerParams& params, const Front& front) {
  static_assert(Ly::kSerial && Ly::kDims.merge_kind == MergeKind::register_lanes, "the one-warp layer");
  constexpr int KS = Ly::kSlices;
  const MergeArgs p{{params.input_arena, params.weights, params.output_arena, params.texture, params.surface112},
                    params.merged_output,
                    params.surface120,
                    params.surface128};
  const Block b = block_of(params);
  // Block b for m-tile mi: the parts that take warp z's rows 16z.. take the one warp's m-tile mi.
  auto tile = [&b](int mi) {
    Block bz = b;
    bz.z = mi;
    return bz;
  };

  u32 staged[6][KS][4], D[4][Ly::kNTiles][2];
  front(p.base, b, staged, D);
  serial_heads<Ly>(p.base, b, staged, D);
  // E20, the MLP, the arena scatter and the final phase per m-tile (A = q8 of the last
  // down-projection: final-phase-a).
  u32 a61[4][KS][4], L[4][2][2];
#pragma unroll
  for (int mi = 0; mi < 4; ++mi) {
    mlp_tail<Ly>(p.base, tile(mi), D[mi], a61[mi]);
    phase61<Ly>(p.base, b, a61[mi], L[mi]);
  }
  // The register merge (E30(c), phase 31, E31) in 32-column passes.
  u32 ma[Ly::kMergeKSteps][4];
  register_merge_a<Ly>(b, a61, ma);
#pragma unroll 1
  for (int P = 0; P < Ly::kMergePasses; ++P) {
    u32 M[4][2];
    merge_pass<Ly>(p, b, P, RegisterMergeA<Ly>{ma}, M);
    merge_store<Ly>(p, b, P, M);
  }
  // E32: rows T = lane, then lane + 32.
  {
    u32 w[6];
    gather_logits<0>(b, L, w);
    e62_gated(p, b, b.lane, GatheredLogits{w});
  }
  {
    u32 w[6];
    gather_logits<1>(b, L, w);
    e62_gated(p, b, b.lane + 32, GatheredLogits{w});
  }
}

// enc1's kernel: the prologue's six m-tiles' q8(h1) (the stem's A, in registers); m-tiles 0..3's
// decoded input seeds the first projection's C (C13 = f16(T1 + x)).
template <class Ly>
__device__ __forceinline__ void one_warp_layer(const MergeLayerParams& params) {
  constexpr int KS = Ly::kSlices;
  one_warp_body<Ly>(params, [](const Args& a, const Block& b, u32(&staged)[6][KS][4], u32(&D)[4][Ly::kNTiles][2]) {
#pragma unroll
    for (int mi = 0; mi < 6; ++mi) {
      u32 x[Ly::kNTiles][2];
      prologue_a<Ly>(a, b, mi, x, [&](int q, const u32(&s)[4]) {
#pragma unroll
        for (int o = 0; o < 4; ++o) staged[mi][q][o] = s[o];
      });
      if (mi < 4) c13_seed<Ly>(a, b, x, D[mi]);
    }
  });
}

}  // namespace
}  // namespace rrswin::cuda
