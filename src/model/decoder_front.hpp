// The decoders' front (issue 34): phase 1, the patch-expand GEMM from the lower-resolution input at
// param+8, and its epilogue E1, which scatters the expanded tokens into a 10x10 tile, reads the
// block's 96 token rows back, adds the skip input (param+24), RMS-normalises with g1 at B0 and
// stages the result as the attention's A. From there a decoder is the template (dec4's phases
// 2..62 are enc5's 1..61, weights shifted by B0). Sources: d4r's kernels/rr/rrswin_dec4_epilogues.md
// (DOC-d4) §0, §4/E1, rrswin_dec4.hip (HIP-d4) phase 1, swin_dec4_recipe.py (REC-d4), and for what
// dec4's doc leaves out the same code in dec3/dec2/dec1 (DOC-d3 §4/E1, HIP-d2, DESC-d1); what they
// leave open is a reading (docs/readings.md §9).
#pragma once
#include <array>
#include <cstdint>
#include <span>

#include "base/hd.hpp"
#include "model/layer.hpp"

namespace rrswin {

// The value phase 1's A gets for a low-resolution token outside the input's frame (expand-fill):
// HIP-d4 calls the prologue's gather "clamped" without its rule.
enum class ExpandFill { clamp, zero };
// Which sub-pixel index s = 0..3 is which (dy, dx) of the 2x2 expansion (expand-subpixel): each
// sub-pixel's 48 rows land on a 5x5 lattice of the tile. s is the warp z where a warp expands one
// sub-pixel (dec4..dec2); see ExpandColumnSplit for dec1's two per warp (DESC-d1's measured dec1
// map: warp 0 odd tile rows, warp 1 even, i.e. dy = z under dy_dx).
enum class ExpandSubpixel {
  dy_dx,  // s = 2 dy + dx
  dx_dy,  // s = 2 dx + dy
};
// Where a warp expands more than one sub-pixel (dec1: 2C = 128 columns per warp), which of its
// columns n belong to which sub-pixel and channel (expand-column-split). DESC-d1's e1_patch_grid
// prints which columns share a word (n and n + 16) and each warp's tile rows, not which sub-array a
// word goes to, so both column maps fit it (docs/readings.md §9):
enum class ExpandColumnSplit {
  block,        // sub-pixel z spw + n / C, channel n % C (the expand's N = spw C in sub-pixel blocks)
  interleaved,  // sub-pixel z spw + ((n >> 3) & 1), channel 8 (n >> 4) + (n & 7): n-tiles alternate;
                // dec0 (4 sub-pixels in one warp): s = (n >> 4) & 3, channel 16 (n >> 6) + (n & 15):
                // pairs of n-tiles alternate (DESC-d0 _e1's (n, n + 8) pack word, docs/readings.md §11)
};
// How phase 1's A registers map to the input arena's words (expand-load-order): the decoders read
// an arena written on another grid (enc5's or the lower decoder's blocks), so only the natural map
// (each pixel's 8 words its own token: register o of row g/g+8 at that row's pixel, word t or t|4)
// gives whole tokens whatever the writer's window alignment; `fragment` loads the registers straight
// with the enc5 prologue's map (rows g and g+8 of the 6x6 neighbourhood share a pixel's words).
enum class ExpandLoadOrder { natural, fragment };
struct DecoderFrontReadings {
  ExpandLoadOrder load_order = ExpandLoadOrder::natural;
  ExpandFill fill = ExpandFill::clamp;
  ExpandSubpixel subpixel = ExpandSubpixel::dy_dx;
  ExpandColumnSplit column_split = ExpandColumnSplit::block;
};

namespace golden {

// The low-resolution token of phase 1's A row r (0..47) of the block with origin (x0, y0): the 6x6
// neighbourhood from ((x0 - 1) >> 1, (y0 - 1) >> 1), row-major (rows 36..47 fall outside the tile
// whatever they hold: their stores are guarded). The reading expand-rows (one value: no source
// states the rows; docs/readings.md §9).
std::array<int, 2> expand_token(int x0, int y0, int row);
// The tile cell (row, col), 0..9 each, of sub-pixel s's expanded row r, or {-1, -1} when E1's guard
// (row > 9 || col > 9, unsigned) drops the store.
std::array<int, 2> expand_cell(const DecoderFrontReadings& fr, int x0, int y0, int s, int row);
// Column n (0..n_per_warp-1) of warp z's phase-1 D: its sub-pixel s (0..3) and channel c (0..C-1).
// spw = n_per_warp / C sub-pixels per warp (1 for dec4..dec2: s = z, c = n; 2 for dec1: the reading
// expand-column-split).
struct ExpandColumn {
  int subpixel, channel;
};
// The map itself for spw sub-pixels of C channels a warp under the reading `split` (the shapes
// expand_column checks: spw 1, 2 or 4). RRSWIN_HD: the CUDA ports' E1
// scatter takes each n-tile's sub-pixel and channel n-tile from it (cuda/decoder_parts.cuh).
RRSWIN_HD constexpr ExpandColumn expand_column_of(ExpandColumnSplit split, int spw, int C, int z, int n) {
  if (spw == 1) return {z, n};
  if (split == ExpandColumnSplit::interleaved) {
    // dec0 (one warp, 4 sub-pixels x 32 channels): DESC-d0 _e1's pack word holds "the two codes of
    // two adjacent n-tiles for one row", i.e. columns n and n + 8 read literally (dec0.md §2.3):
    // the sub-pixel may change every second n-tile. (The 4-way n-tile interleave s = (n >> 3) & 3
    // would split a pack word: it fits no pairing.)
    if (spw == 4) return {(n >> 4) & 3, 16 * (n >> 6) + (n & 15)};
    // dec1 (DESC-d1 e1_patch_grid): a pack word holds columns n and n + 16 (n-tiles 4q + h and
    // 4q + 2 + h); the sub-pixel alternates with n-tile parity.
    return {z * spw + ((n >> 3) & 1), 8 * (n >> 4) + (n & 7)};
  }
  return {z * spw + n / C, n % C};
}
ExpandColumn expand_column(const DecoderFrontReadings& fr, const LayerSpec& s, int z, int n);
// Whether n-tile nt of warp z (columns 8 nt .. 8 nt + 7) is 8 consecutive channels of one sub-pixel
// from a multiple of 8 (true of every map above): the form the CUDA ports' u16 scatter stores and the
// fast engine's 8-byte copies need (cuda/decoder_parts.cuh, engine/layer_engine.cpp expand_front).
RRSWIN_HD constexpr bool expand_tile_is_whole(ExpandColumnSplit split, int spw, int C, int z, int nt) {
  const ExpandColumn first = expand_column_of(split, spw, C, z, 8 * nt);
  if (first.channel % 8 != 0) return false;
  for (int j = 1; j < 8; ++j) {
    const ExpandColumn c = expand_column_of(split, spw, C, z, 8 * nt + j);
    if (c.subpixel != first.subpixel || c.channel != first.channel + j) return false;
  }
  return true;
}

// E1's tile: cell (row, col) 0..9 of the block's 8x8 window and its one-pixel ring, corner pixel
// (x0 - 1, y0 - 1) (DOC-d4 §4/E1), C codes a cell; phase 1's 48 rows (HIP-d4: 15 A fragments = 3 x 5
// k-slices), the tokens of the 6 x 6 low-resolution neighbourhood that covers the tile.
inline constexpr int kExpandTile = 10;
inline constexpr int kExpandRows = 48;
inline constexpr int kExpandSide = 6;
// e4m3_to_f16 of every code, once (E1's readback decodes C codes a token row).
const std::array<f16_t, 256>& decoded_codes();

// Phase 1 of warp z: D (48 x N) = the chained k-steps of the gathered A (48 x K, e4m3) with warp z's
// slab (W + z K N, the banded tile order of waddr_banded with K/32 slices), each column seeded by its
// f16 at W + warps K N + 2 N z + 2 n (HIP-d4 phase 1; REC-d4 _c_regs: one u32 as both C registers).
// The input is the plane arena of K/32 planes at (ex >> 1, ey >> 1).
E4Mat expand_a(const BlockContext& ctx, const DecoderFrontReadings& fr, std::span<const std::uint8_t> input);
F16Mat expand_phase(const BlockContext& ctx, const E4Mat& a, int z);

// E1: the 10x10 tile of q8(D) (cell-major, C codes per cell), the 96 rows read back and decoded,
// x = f16(tile + skip) with the skip's pixel mirrored into the frame (reflect-101, DOC-d3 §4/E1's
// abs / 2e-2-|v| / min), the norm (the prologue's: reading prologue-sum-tree, eps 2^-13 stated by
// DOC-d4 s10075, g1 at B0) and the staging. x is the residual of the first projection's C.
PrologueOut decoder_front(const BlockContext& ctx, const DecoderFrontReadings& fr, std::span<const std::uint8_t> input,
                          std::span<const std::uint8_t> skip);

}  // namespace golden
}  // namespace rrswin
