// The parts of the decoders (dec4..dec1: FrontKind::patch_expand, FinalEpilogueKind::decoder_blend;
// dec0 takes the front and the blend, cuda/dec0_parts.cuh) around the template's phases
// (cuda/swin_parts.cuh), in the golden model's order and names (model/decoder_front.hpp,
// model/decoder_final.hpp):
//
//   expand_gather   phase 1's A    48 low-resolution token rows from +8 (expand_a, clamped)
//   expand_phase    phase 1        D = A W_z over K/32 k-steps, seeded per column (expand_phase)
//   e1_scatter      E1             q8(D) of warp z's sub-pixels into the 10x10 tile in shared memory
//   e1_rows         E1             the 96 token rows read back, + the mirrored skip (+24), the
//                                  norm with g1 at B0, q8 as the attention's staged A
//   decoder_pixel   the final      the 9-term softmax, 9 taps of +88 at f32 coordinates scaled by
//                                  (sx, sy), the sigmoid gate of the 10th logit, the blend with
//                                  +96, the NaN-guarded add of +104, sust to +112
//
// and decoder_layer, the whole kernel body of a decoder given its parameter block (the .cu files
// are its instantiations under the original entry names). From E1 to the last down-projection's
// scatter a decoder is the template (dec4's phases 2..62 are enc5's 1..61, weights shifted by B0:
// the weight map's b0). Included by the kernels' .cu files only.
#pragma once
#include "cuda/decoder_params.hpp"
#include "cuda/merge_parts.cuh"  // e62_sigmoid (the gate's sigmoid is the merge layers'), kLR
#include "cuda/swin_parts.cuh"

namespace rrswin::cuda {
namespace {

// The decoders' readings (docs/readings.md §9) are index maps or selections the parts follow at
// compile time (expand-load-order, expand-fill, expand-subpixel, expand-column-split (dec1's two
// sub-pixels a warp; one sub-pixel a warp has one map), decoder-gate-logit), and decoder-sampler is
// the launch's sampler of +88, not an instruction: the kernel is the same under both values.

// The decoders' arguments beyond enc5's.
struct DecoderArgs {
  Args base;  // input_arena = +8 (the half-resolution input), output_arena = +48, texture = +88, surface = +112
  const std::uint8_t* skip;
  unsigned long long texture96, texture104;
  float sx, sy;
};

// E1's tile and phase 1's low-resolution neighbourhood: golden's (model/decoder_front.hpp).
using golden::kExpandSide;
using golden::kExpandTile;

// Phase 1's A of m-tile mi (rows 16mi..16mi+15 of 48): lane (g, t)'s register o of plane q is the
// input arena word arena_slot(expand-load-order, o, t) of row g + 8 row_half's low-resolution token
// (golden expand_token: the 6x6 neighbourhood from ((x0 - 1) >> 1, (y0 - 1) >> 1), row-major), its
// four bytes the fragment's elements as they are; a token outside the half-resolution frame is
// clamped into it (expand-fill = clamp) or gives 0 (zero) (golden expand_a).
template <class Ly>
__device__ __forceinline__ void expand_gather(const DecoderArgs& p, const Block& b, int mi, u32 (&a)[Ly::kExpandSlices][4]) {
  const int hx = b.ex >> 1, hy = b.ey >> 1;
  const layout::PlaneArena pa{hx, hy};
  const ArenaOrder order = kLR.decoder_front.load_order == ExpandLoadOrder::natural ? ArenaOrder::natural : ArenaOrder::fragment;
  const int lx0 = (b.x0 - 1) >> 1, ly0 = (b.y0 - 1) >> 1;
#pragma unroll
  for (int q = 0; q < Ly::kExpandSlices; ++q)
#pragma unroll
    for (int o = 0; o < 4; ++o) {
      const golden::ArenaSlot slot = golden::arena_slot(order, o, b.t);
      const int row = 16 * mi + b.g + 8 * slot.row_half;
      int x = lx0 + row % kExpandSide, y = ly0 + row / kExpandSide;
      u32 w = 0;
      if (kLR.decoder_front.fill == ExpandFill::clamp || pa.in_frame(x, y)) {
        x = min(max(x, 0), hx - 1);
        y = min(max(y, 0), hy - 1);
        w = *reinterpret_cast<const u32*>(p.base.input_arena + 4 * pa.word_index(q, x, y, slot.word));
      }
      a[q][o] = w;
    }
}

// Phase 1 of warp z, m-tile mi (golden expand_phase): N columns (C, dec1 2C), each seeded by its f16
// at kExpandSeeds + 2 N z (both C registers of an n-tile: one u32 at seeds + 16 nt + 4 t), then the
// K/32 chained k-steps over warp z's slab at K N z in the banded tile order (waddr_banded: the
// 16-column block j's tile of k-slice s at 512 (K/32 j + s)).
template <class Ly>
__device__ __forceinline__ void expand_phase(const DecoderArgs& p, const Block& b, const u32 (&a)[Ly::kExpandSlices][4],
                                             u32 (&D)[Ly::kExpandNTiles][2]) {
  constexpr int KS = Ly::kExpandSlices;
  const std::uint8_t* W = p.base.weights;
  const std::uint32_t slab = Ly::kExpandSlabBytes * static_cast<std::uint32_t>(b.z);
  const std::uint32_t seeds = Ly::kExpandSeeds + 2u * Ly::kExpandN * static_cast<std::uint32_t>(b.z);
#pragma unroll
  for (int nt = 0; nt < Ly::kExpandNTiles; ++nt) D[nt][0] = D[nt][1] = ld_u32(W, seed_word_offset(seeds, nt, b.t));
#pragma unroll
  for (int s = 0; s < KS; ++s)
#pragma unroll
    for (int j = 0; j < Ly::kExpandBTiles; ++j) {
      const BPair bp = load_b_pair(W + layout::waddr_banded(slab, s, 0, 16 * j, KS), b.lane);
      mma_acc(D[2 * j], a[s], bp.lo);
      mma_acc(D[2 * j + 1], a[s], bp.hi);
    }
}

// Which of warp z's spw = N/C sub-pixels (k = 0..spw-1) and which channel n-tile the n-tile nt of phase
// 1's D holds: golden's map (expand_column_of, model/decoder_front.hpp) at warp 0 and column 8 nt,
// under the reading expand-column-split.
template <class Ly>
__host__ __device__ constexpr golden::ExpandColumn expand_tile_column(int nt) {
  return golden::expand_column_of(kLR.decoder_front.column_split, Ly::kExpandSubpixels, Ly::C, 0, 8 * nt);
}
template <class Ly>
__host__ __device__ constexpr int expand_subpixel_of(int nt) {
  return expand_tile_column<Ly>(nt).subpixel;
}
template <class Ly>
__host__ __device__ constexpr int expand_channel_tile_of(int nt) {
  return expand_tile_column<Ly>(nt).channel / 8;
}
// The scatter stores columns 8 nt + 2 t, +1 as one u16: every n-tile's eight columns must be one
// sub-pixel's eight consecutive channels from a multiple of 8 (true of every map golden has).
template <class Ly>
__host__ __device__ constexpr bool expand_tiles_are_whole() {
  for (int nt = 0; nt < Ly::kExpandNTiles; ++nt)
    if (!golden::expand_tile_is_whole(kLR.decoder_front.column_split, Ly::kExpandSubpixels, Ly::C, 0, nt)) return false;
  return true;
}

// E1's scatter of m-tile mi (golden decoder_front, expand_cell): row r's sub-pixel s = spw z + k
// lands on tile cell (2 ty + dy - (y0 - 1), 2 tx + dx - (x0 - 1)) of its unclamped token (tx, ty),
// (dy, dx) by expand-subpixel; setp.gt.u32 row, 9 / col, 9 drop the store (DOC-d4 §4/E1). The
// columns of sub-pixel k (expand_subpixel_of) go to their channels: q8 pairs as u16 at cell C +
// 8 ct + 2 t of channel n-tile ct (DESC-d1 e1_patch_grid for dec1's two sub-pixels a warp).
template <class Ly>
__device__ __forceinline__ void e1_scatter(const Block& b, int mi, const u32 (&D)[Ly::kExpandNTiles][2], std::uint8_t* tile) {
  static_assert(Ly::kExpandSubpixels == 1 || Ly::kExpandSubpixels == 2 || Ly::kExpandSubpixels == 4,
                "expand_subpixel_of: one, two or four sub-pixels a warp");
  static_assert(expand_tiles_are_whole<Ly>(), "each n-tile of phase 1's D is 8 consecutive channels of one sub-pixel");
  const bool dy_dx = kLR.decoder_front.subpixel == ExpandSubpixel::dy_dx;
  const int lx0 = (b.x0 - 1) >> 1, ly0 = (b.y0 - 1) >> 1;
#pragma unroll
  for (int k = 0; k < Ly::kExpandSubpixels; ++k) {
    const int s = Ly::kExpandSubpixels * b.z + k;
    const int dy = dy_dx ? s >> 1 : s & 1, dx = dy_dx ? s & 1 : s >> 1;
#pragma unroll
    for (int rh = 0; rh < 2; ++rh) {
      const int row = 16 * mi + b.g + 8 * rh;
      const int col = 2 * (lx0 + row % kExpandSide) + dx - (b.x0 - 1), r = 2 * (ly0 + row / kExpandSide) + dy - (b.y0 - 1);
      if (static_cast<unsigned>(col) > 9u || static_cast<unsigned>(r) > 9u) continue;
      std::uint8_t* cell = tile + Ly::C * (kExpandTile * r + col);
#pragma unroll
      for (int nt = 0; nt < Ly::kExpandNTiles; ++nt)
        if (expand_subpixel_of<Ly>(nt) == k)
          *reinterpret_cast<u16*>(cell + 8 * expand_channel_tile_of<Ly>(nt) + 2 * b.t) = ptx::cvt_e4m3x2(D[nt][rh]);
    }
  }
}

// The skip's mirror (golden input_word under prologue-fill = mirror, DOC-d3 §4/E1's abs,
// 2n - 2 - |v|, min): v -> min(|v|, 2n - 2 - v) clamped into [0, n); in-frame v is unchanged.
__device__ __forceinline__ int mirror(int v, int n) { return min(max(min(abs(v), 2 * n - 2 - v), 0), n - 1); }

// E1 for m-tile mi (golden decoder_front after the scatter): token row r's pixel (prologue-halo)
// is tile cell (y - (y0 - 1), x - (x0 - 1)); x = f16(tile code + skip code), the skip read as the
// prologue reads its input (the same A-register map, the pixel mirrored into the frame); then the
// prologue's norm (prologue-sum-tree, eps 2^-13: DOC-d4 s10075, g1 at B0) and q8, returned as the
// C/32 A registers of the staging (stored by the caller after the tile's last read).
template <class Ly>
__device__ __forceinline__ void e1_rows(const DecoderArgs& p, const Block& b, int mi, const std::uint8_t* tile, u32 (&x)[Ly::kNTiles][2],
                                        u32 (&h1q)[Ly::kSlices][4]) {
  constexpr int KS = Ly::kSlices;
  constexpr WeightMap m = Ly::kMap;
  const ArenaOrder order = kR.prologue_load_order == PrologueLoadOrder::fragment ? ArenaOrder::fragment : ArenaOrder::natural;
  const layout::PlaneArena pa{b.ex, b.ey};
  u32 skip[Ly::kNTiles][2];
#pragma unroll
  for (int q = 0; q < KS; ++q)
#pragma unroll
    for (int o = 0; o < 4; ++o) {
      const golden::ArenaSlot slot = golden::arena_slot(order, o, b.t);
      const golden::PixelXY px = golden::token_pixel_of(kR.prologue_halo, b.x0, b.y0, 16 * mi + b.g + 8 * slot.row_half);
      const u32 w = *reinterpret_cast<const u32*>(p.skip + 4 * pa.word_index(q, mirror(px.x, b.ex), mirror(px.y, b.ey), slot.word));
      skip[4 * q + repack_nt(o >> 1, 0)][o & 1] = ptx::cvt_f16x2_e4m3x2(static_cast<u16>(w & 0xFFFFu));
      skip[4 * q + repack_nt(o >> 1, 1)][o & 1] = ptx::cvt_f16x2_e4m3x2(static_cast<u16>(w >> 16));
    }
#pragma unroll
  for (int rh = 0; rh < 2; ++rh) {
    const golden::PixelXY px = golden::token_pixel_of(kR.prologue_halo, b.x0, b.y0, 16 * mi + b.g + 8 * rh);
    const std::uint8_t* cell = tile + Ly::C * (kExpandTile * (px.y - (b.y0 - 1)) + px.x - (b.x0 - 1));
#pragma unroll
    for (int nt = 0; nt < Ly::kNTiles; ++nt) {
      const u32 t = ptx::cvt_f16x2_e4m3x2(*reinterpret_cast<const u16*>(cell + 8 * nt + 2 * b.t));
      x[nt][rh] = ptx::add_f16x2(t, skip[nt][rh]);  // DOC-d3 §4/E1 s7305: add.f16 (tile value, skip value)
    }
  }
  constexpr u16 kEps = golden::kPrologueEpsE2m13;
  u16 inv[2];
#pragma unroll
  for (int rh = 0; rh < 2; ++rh) inv[rh] = rms_inverse(rms_sum_of_squares(x, rh, kR.prologue_sum_tree), kEps);
  u32 h1[Ly::kNTiles][2];
  rms_scale(p.base.weights, m.g1(), b, x, inv, h1);
#pragma unroll
  for (int q = 0; q < KS; ++q) repack_a(h1, q, h1q[q]);
}

// The staging of m-tile mi's A registers as the prologue stages them: fragment (C/32) mi + q.
template <class Ly>
__device__ __forceinline__ void stage_rows(const Block& b, int mi, const u32 (&h1q)[Ly::kSlices][4], std::uint8_t* smem) {
#pragma unroll
  for (int q = 0; q < Ly::kSlices; ++q)
    *reinterpret_cast<uint4*>(smem + 512 * (Ly::kSlices * mi + q) + 16 * b.lane) = make_uint4(h1q[q][0], h1q[q][1], h1q[q][2], h1q[q][3]);
}

// Phase 1 and E1's scatter of the three m-tiles of this warp's 48 expand rows into the tile (the
// decoders' front before the tile's bar.sync; dec0's one warp, cuda/dec0_parts.cuh, the same).
template <class Ly>
__device__ __forceinline__ void expand_to_tile(const DecoderArgs& p, const Block& b, std::uint8_t* smem) {
#pragma unroll 1
  for (int mi = 0; mi < 3; ++mi) {
    u32 a[Ly::kExpandSlices][4], D[Ly::kExpandNTiles][2];
    expand_gather<Ly>(p, b, mi, a);
    expand_phase<Ly>(p, b, a, D);
    e1_scatter<Ly>(b, mi, D, smem);
  }
}
// The front, then the attention as attention_phases runs it after the prologue: the kMlpWarps warps
// expand their sub-pixels (three m-tiles each) into the tile; after the barrier warp z reads back its
// m-tiles kRowTiles z + k (dec4..dec2 m-tile z, dec1 2z and 2z + 1) and warps 0, 1 also m-tiles 4, 5,
// keeping its own m-tiles' x as the first projection's residual; after the tile's last read they
// stage the A, then phases 2..13 (dec4: enc5's 1..12) and E12.
template <class Ly>
__device__ __forceinline__ void decoder_attention_phases(const DecoderArgs& p, const Block& b, std::uint8_t* smem,
                                                         u32 (&x)[Ly::kRowTiles][Ly::kNTiles][2]) {
  constexpr int RT = Ly::kRowTiles;
  if (b.z < Ly::kMlpWarps) {
    expand_to_tile<Ly>(p, b, smem);
  }
  __syncthreads();  // the tile is complete
  u32 h1q[RT][Ly::kSlices][4], halo_q[Ly::kSlices][4];
  if (b.z < Ly::kMlpWarps) {
#pragma unroll
    for (int k = 0; k < RT; ++k) e1_rows<Ly>(p, b, RT * b.z + k, smem, x[k], h1q[k]);
    if (b.z < 2) {
      u32 halo[Ly::kNTiles][2];
      e1_rows<Ly>(p, b, 4 + b.z, smem, halo, halo_q);
    }
  }
  __syncthreads();  // every warp is done reading the tile
  if (b.z < Ly::kMlpWarps) {
#pragma unroll
    for (int k = 0; k < RT; ++k) stage_rows<Ly>(b, RT * b.z + k, h1q[k], smem);
    if (b.z < 2) stage_rows<Ly>(b, 4 + b.z, halo_q, smem);
  }
  __syncthreads();
  u32 ao[4][4];
  attention<Ly>(p.base, b, b.z, SharedStagedA<Ly::kSlices>{smem, b.lane}, ao);  // phases 2..13 (dec4)
  __syncthreads();                                                              // every warp's stem phases are done with the staged input
  e12_stage(b, ao, smem);
  __syncthreads();
}

// The texel coordinate of integer neighbour i on an axis scaled by s (golden texel_coordinate):
// fma.rn.ftz.f32(s, cvt.rn.f32.s32(i), mul.ftz.f32(s, 0.5)).
__device__ __forceinline__ float texel_coordinate(float s, int i) { return ptx::fma_ftz(s, ptx::cvt_rn_f32_s32(i), ptx::mul_ftz(s, 0.5f)); }

// The decoder final of pixel (X, Y) in the frame from its 10 logits l (f16x2 pairs (l_2i, l_2i+1);
// golden decoder_final_pixel): steps (c)..(i). dec0's E19(f)/(g) are the same steps (dec0.md §4.5).
__device__ __forceinline__ void decoder_blend(const DecoderArgs& p, const Block& b, int X, int Y, const u32 (&l)[5]) {
  // (c) the maximum of l0..l8 (exact, order-free); (d) e_i = ex2(f32(l_i - max) log2 e) for i < 9,
  // the sequential f32 sum, rinv = div.approx(1, sum), w_i = f16(e_i) f16(rinv) (model/e61_pixel_impl.hpp
  // e61_softmax at n = 9 with the defaults swin_parts.cuh asserts).
  const u32 m2 = ptx::max_f16x2(ptx::max_f16x2(l[0], l[1]), ptx::max_f16x2(l[2], l[3]));
  const u16 mx = ptx::max_f16(ptx::max_f16(lo(m2), hi(m2)), lo(l[4]));
  float e[9];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const u32 d = ptx::sub_f16x2(l[i], dup(mx));
    e[2 * i] = ptx::ex2_approx_ftz(ptx::mul_ftz(ptx::cvt_f32_f16(lo(d)), __int_as_float(golden::kLog2eF32Bits)));
    e[2 * i + 1] = ptx::ex2_approx_ftz(ptx::mul_ftz(ptx::cvt_f32_f16(hi(d)), __int_as_float(golden::kLog2eF32Bits)));
  }
  e[8] = ptx::ex2_approx_ftz(ptx::mul_ftz(ptx::cvt_f32_f16(ptx::sub_f16(lo(l[4]), mx)), __int_as_float(golden::kLog2eF32Bits)));
  float sum = e[0];
#pragma unroll
  for (int i = 1; i < 9; ++i) sum = ptx::add_ftz(sum, e[i]);
  const u16 r16 = ptx::cvt_rn_f16_f32(ptx::div_approx_ftz(1.0f, sum));
  u16 w[9];
#pragma unroll
  for (int i = 0; i < 9; ++i) w[i] = ptx::mul_f16(ptx::cvt_rn_f16_f32(e[i]), r16);
  // (e)/(f) the 9 taps of +88 at f32 texel coordinates of the border-fixed neighbours (filter-border,
  // filter-tap-map); per channel one fma.rn.f16 chain in tap order from 0: acc = fma(tap, w, acc).
  ptx::F16x4 tv[9];
#pragma unroll
  for (int i = 0; i < 9; ++i) {
    const golden::PixelXY tap = golden::e61_tap(kR.e61_border, kR.e61_tap_map, X, Y, b.ex, b.ey, i);
    tv[i] = ptx::tex_sample(p.base.texture, texel_coordinate(p.sx, tap.x), texel_coordinate(p.sy, tap.y));
  }
  u16 acc[3];
#pragma unroll
  for (int ch = 0; ch < 3; ++ch) {
    u16 a = 0;
#pragma unroll
    for (int i = 0; i < 9; ++i) a = ptx::fma_f16(tv[i].v[ch], w[i], a);
    acc[ch] = a;
  }
  // (g) the gate: sigma of l9 (decoder-gate-logit = raw) or of f16(l9 - max) (centred); om = 1 - sigma.
  const u16 gate = kLR.decoder_final.gate_logit == golden::DecoderGateLogit::raw ? hi(l[4]) : ptx::sub_f16(hi(l[4]), mx);
  const u16 sigma = e62_sigmoid(gate);
  constexpr u16 kOneF16 = 0x3C00;  // 1.0 (model/decoder_final.cpp kOneF16)
  const u16 om = ptx::sub_f16(kOneF16, sigma);
  // (h) +96 and +104 at the pixel; out = fma(t96, om, acc sigma), then + t104 unless t104 is NaN.
  const ptx::F16x4 t96 = ptx::tex_fetch(p.texture96, X, Y), t104 = ptx::tex_fetch(p.texture104, X, Y);
  u16 out[3];
#pragma unroll
  for (int ch = 0; ch < 3; ++ch) {
    u16 o = ptx::fma_f16(t96.v[ch], om, ptx::mul_f16(acc[ch], sigma));
    if ((t104.v[ch] & 0x7FFFu) <= 0x7C00u) o = ptx::add_f16(o, t104.v[ch]);  // not NaN (s24428..s24441)
    out[ch] = o;
  }
  ptx::surf_store(p.base.surface, 8 * X, Y, out[0], out[1], out[2], 0);  // (i) x in bytes: 8 per RGBA16F texel
}
// The decoder final for thread T < 64 (golden decoder_final): pixel (x0 + (T&7), y0 + (T>>3)) when
// in the frame; its 10 logits are record T's words 0..4.
__device__ __forceinline__ void decoder_pixel(const DecoderArgs& p, const Block& b, int T, const u32* rec) {
  const golden::PixelXY px = golden::e61_pixel_of_thread(b.x0, b.y0, T);
  const int X = px.x, Y = px.y;
  if (X < 0 || Y < 0 || X >= b.ex || Y >= b.ey) return;
  u32 l[5];
#pragma unroll
  for (int i = 0; i < 5; ++i) l[i] = rec[golden::e61_record_word(T, i, 0)];
  decoder_blend(p, b, X, Y, l);
}

// The parameter block's fields as the parts read them (ld.param at DOC-d4 §1.1's offsets).
__device__ __forceinline__ DecoderArgs decoder_args(const DecoderLayerParams& params) {
  return DecoderArgs{{params.input_arena, params.weights, params.output_arena, params.texture, params.surface112},
                     params.skip_arena,
                     params.texture96,
                     params.texture104,
                     params.scale_x,
                     params.scale_y};
}

// A decoder's kernel (dec4's phases 1..62, dec3's 1..48, dec2's 1..38, dec1's 1..26), block (32, 1,
// H): the front, the template's phases through the last down-projection's arena scatter, the final
// phase (A = q8 of that down-projection: final-phase-a), its records, the final epilogue on threads
// 0..63. From the output projection on warp z takes m-tiles kRowTiles z + k (the golden model's
// rows_per_warp rows a warp: 16, dec1 32), each through the 16-row parts as the one-warp layer runs
// its m-tiles (cuda/one_warp_parts.cuh: the parts' warp index is the m-tile).
template <class Ly>
__device__ __forceinline__ void decoder_layer(const DecoderLayerParams& params, std::uint8_t* smem) {
  static_assert(Ly::kDecoder, "decoder_layer: a layer with a patch-expand front");
  const DecoderArgs p = decoder_args(params);
  const Block b = block_of(params);
  constexpr int RT = Ly::kRowTiles;
  auto tile = [&b](int k) {  // Block b for warp z's m-tile k: the parts' z is the m-tile RT z + k
    Block bz = b;
    bz.z = RT * b.z + k;
    return bz;
  };
  u32 x[RT][Ly::kNTiles][2];
  decoder_attention_phases<Ly>(p, b, smem, x);  // phase 1, E1, the stem, score and P V phases, E12

  u32 L[RT][2][2];
  if (b.z < Ly::kMlpWarps) {
#pragma unroll
    for (int k = 0; k < RT; ++k) {
      u32 D[Ly::kNTiles][2], a61[Ly::kSlices][4];
      mlp_phases<Ly>(p.base, tile(k), smem, x[k], D, a61);  // projections, MLP, the arena scatter (+48)
      phase61<Ly>(p.base, b, a61, L[k]);                    // the final phase
    }
  }
  u32* rec = reinterpret_cast<u32*>(smem);
  __syncthreads();  // the projections are done reading the E12 staging
  if (b.z < Ly::kMlpWarps) {
#pragma unroll
    for (int k = 0; k < RT; ++k) e61_records(tile(k), L[k], rec);
  }
  __syncthreads();
  const int T = b.lane + 32 * b.z;
  if (T < rrswin::golden::kE61Threads) decoder_pixel(p, b, T, rec);
}

}  // namespace
}  // namespace rrswin::cuda
