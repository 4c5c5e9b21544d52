// The decoders' front: phase 1 (the patch expand) and E1 (model/decoder_front.hpp).
#include "model/decoder_front.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "layout/arena.hpp"
#include "layout/fragment.hpp"
#include "layout/tables.hpp"
#include "layout/weight_tile.hpp"
#include "model/constants.hpp"
#include "model/index_maps.hpp"
#include "model/layer_program.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"

namespace rrswin::golden {

const std::array<f16_t, 256>& decoded_codes() {
  static const std::array<f16_t, 256> t = [] {
    std::array<f16_t, 256> d{};
    for (unsigned c = 0; c < 256; ++c) d[c] = e4m3_to_f16(static_cast<e4m3_t>(c));
    return d;
  }();
  return t;
}

std::array<int, 2> expand_token(int x0, int y0, int row) {
  // The tile's corner pixel is (x0 - 1, y0 - 1) (DOC-d4 §1.1: %r2 = %r1 - 1, %r6 = %r3 - 1); the
  // low-resolution tokens under it start at half of that (arithmetic shift: floor for x0 = 0).
  const int lx0 = (x0 - 1) >> 1, ly0 = (y0 - 1) >> 1;
  return {lx0 + row % kExpandSide, ly0 + row / kExpandSide};
}

std::array<int, 2> expand_cell(const DecoderFrontReadings& fr, int x0, int y0, int s, int row) {
  const int dy = fr.subpixel == ExpandSubpixel::dy_dx ? s >> 1 : s & 1;
  const int dx = fr.subpixel == ExpandSubpixel::dy_dx ? s & 1 : s >> 1;
  const std::array<int, 2> t = expand_token(x0, y0, row);
  const int col = 2 * t[0] + dx - (x0 - 1), r = 2 * t[1] + dy - (y0 - 1);
  // DOC-d4 §4/E1 (s1052 and its siblings), DOC-d3 §4/E1: setp.gt.u32 row, 9 / col, 9 -> skip.
  if (static_cast<unsigned>(col) > 9u || static_cast<unsigned>(r) > 9u) return {-1, -1};
  return {r, col};
}

ExpandColumn expand_column(const DecoderFrontReadings& fr, const LayerSpec& s, int z, int n) {
  const int C = s.channels, spw = s.front.n_per_warp / C;
  if (spw * C != s.front.n_per_warp || spw * s.front.warps != 4 || n < 0 || n >= s.front.n_per_warp)
    throw std::logic_error(cat("expand_column: ", s.name, "'s expand does not split into 4 sub-pixels of C columns"));
  return expand_column_of(fr.column_split, spw, C, z, n);
}

E4Mat expand_a(const BlockContext& ctx, const DecoderFrontReadings& fr, std::span<const std::uint8_t> input) {
  const LayerSpec& s = ctx.layer();
  const int planes = s.front.k / 32, hx = ctx.ex >> 1, hy = ctx.ey >> 1;
  const layout::PlaneArena pa{hx, hy};
  // The A registers of three m-tiles read as the enc5 prologue reads its six (facts B1/B5): lane
  // (g, t)'s register o of plane q is the arena word arena_slot(expand-load-order, o, t) of row
  // g + 8 row_half's token, its four bytes the fragment's elements (layout::a_element_pair).
  const ArenaOrder order = fr.load_order == ExpandLoadOrder::natural ? ArenaOrder::natural : ArenaOrder::fragment;
  const layout::APairTable& am = layout::a_element_pair_table();
  E4Mat a(kExpandRows, s.front.k);
  for (int mi = 0; mi < kExpandRows / 16; ++mi)
    for (int q = 0; q < planes; ++q)
      for (int lane = 0; lane < 32; ++lane)
        for (int o = 0; o < 4; ++o) {
          const int g = lane >> 2, t = lane & 3;
          const ArenaSlot slot = arena_slot(order, o, t);
          std::array<int, 2> tok = expand_token(ctx.x0, ctx.y0, 16 * mi + g + 8 * slot.row_half);
          std::uint32_t w = 0;
          if (pa.in_frame(tok[0], tok[1]) || fr.fill == ExpandFill::clamp) {
            tok[0] = std::clamp(tok[0], 0, hx - 1);
            tok[1] = std::clamp(tok[1], 0, hy - 1);
            std::memcpy(&w, input.data() + 4 * pa.word_index(q, tok[0], tok[1], slot.word), 4);  // little endian
          }
          for (int j = 0; j < 4; ++j) {
            const layout::RowK e = am[lane][o][j];
            a.at(16 * mi + e.row, 32 * q + e.k) = static_cast<e4m3_t>(w >> (8 * j));
          }
        }
  return a;
}

F16Mat expand_phase(const BlockContext& ctx, const E4Mat& a, int z) {
  const LayerSpec& s = ctx.layer();
  const Phase& ph = ctx.phase(1);
  const int n = s.front.n_per_warp, k = s.front.k, slices = k / 32;
  const std::uint32_t slab = static_cast<std::uint32_t>(z) * static_cast<std::uint32_t>(k * n) + ph.weight_begin;
  const std::uint32_t seeds = ph.bias_begin + 2u * static_cast<std::uint32_t>(n * z);
  F16Mat d(a.rows, n);
  // REC-d4 _c_regs: the u32 at seeds + 16 j + 4 t is the f16 pair of columns 8j+2t, +1, both C
  // registers (rows g and g+8) of n-tile j: column c's seed is the f16 at seeds + 2c.
  for (int r = 0; r < a.rows; ++r)
    for (int c = 0; c < n; ++c) d.at(r, c) = ctx.weights->f16_at(layout::record_bias_offset(seeds, c));
  // HIP-d4 phase 1: chain (m-tile, n-tile) steps through k-slices 0..K/32-1 (A fragment 5m + s,
  // B fragment of tile slices (n >> 4) + s in the slab).
  for (int sl = 0; sl < slices; ++sl) phase_step(ctx, a, 32 * sl, load_b_banded(*ctx.weights, slab, sl, n, slices), d);
  return d;
}

PrologueOut decoder_front(const BlockContext& ctx, const DecoderFrontReadings& fr, std::span<const std::uint8_t> input,
                          std::span<const std::uint8_t> skip) {
  const LayerSpec& s = ctx.layer();
  if (s.front.kind != FrontKind::patch_expand) throw std::logic_error(cat("decoder_front: ", s.name, " has no patch expand"));
  const int C = s.channels;
  // Phase 1 and E1's scatter (DOC-d4 §4/E1: q8 by cvt.rn.satfinite.e4m3x2.f16x2, guarded
  // st.shared into the tile; each warp's token row holds all C channels of one cell per sub-pixel
  // it expands: one for dec4..dec2, two for dec1, DESC-d1 e1_patch_grid). Cells no store reaches
  // keep 0 (none under expand-subpixel's lattices: DESC-d1 "the 48 stores tile all 400 cells").
  std::vector<e4m3_t> tile(static_cast<std::size_t>(kExpandTile * kExpandTile * C), 0);
  const E4Mat a = ctx.expand_gather ? (*ctx.expand_gather)(input) : expand_a(ctx, fr, input);
  const int nt = s.front.n_per_warp / 8;
  const StageRef st = ctx.stage("p1d",
                                cat("D of phase 1 (the patch expand): reg ", 2 * nt, "m+2nt+rh = f16x2 (row 16m+g+8rh of the ",
                                    "warp's 48, cols 8nt+2t, +1); warp = z"),
                                StageKind::expand_d);
  // The cell of each (sub-pixel, row): a function of the block's origin alone, computed once.
  std::array<std::array<std::array<int, 2>, kExpandRows>, 4> cells;
  for (int sp = 0; sp < 4; ++sp)
    for (int r = 0; r < kExpandRows; ++r) cells[sp][r] = expand_cell(fr, ctx.x0, ctx.y0, sp, r);
  for (int z = 0; z < s.front.warps; ++z) {
    const F16Mat d = ctx.front_gemm ? (*ctx.front_gemm)(a, z) : expand_phase(ctx, a, z);
    if (st)
      for (int m = 0; m < 3; ++m) record_tile(*st, z, d, 16 * m, 2 * nt * m, nt);
    for (int n = 0; n < s.front.n_per_warp; ++n) {
      const ExpandColumn col = expand_column(fr, s, z, n);
      for (int r = 0; r < kExpandRows; ++r) {
        const std::array<int, 2>& cell = cells[col.subpixel][r];
        if (cell[0] >= 0) tile[static_cast<std::size_t>((kExpandTile * cell[0] + cell[1]) * C + col.channel)] = quantise(ctx, d.at(r, n));
      }
    }
  }
  // The readback of the 96 token rows (window rows raster, the ring by prologue-halo) and the skip
  // at the same pixels, mirrored into the frame (DOC-d3 §4/E1: abs, 2 ey - 2 - |y|, min; the
  // prologue's mirror fill, prologue-fill = mirror, is that function), decoded by the prologue's map.
  Readings skip_readings = *ctx.readings;
  skip_readings.prologue_fill = PrologueFill::mirror;
  BlockContext skip_ctx = ctx;
  skip_ctx.readings = &skip_readings;
  F16Mat xs;
  if (ctx.gather)
    (*ctx.gather)(skip_ctx, skip, xs);
  else
    prologue_gather(skip_ctx, skip, xs, decoded_codes().data());
  F16Mat x(kTokens, C);
  for (int row = 0; row < kTokens; ++row) {
    const std::array<int, 2> p = token_pixel(ctx, row);
    const int cr = p[1] - (ctx.y0 - 1), cc = p[0] - (ctx.x0 - 1);
    if (cr < 0 || cr >= kExpandTile || cc < 0 || cc >= kExpandTile)
      throw std::invalid_argument(cat("decoder_front: token row ", row, " lies outside E1's 10x10 tile (the reading prologue-halo = ",
                                      "rows-around reaches two rows out; the decoders stage the one-pixel ring)"));
    const e4m3_t* src = &tile[static_cast<std::size_t>((kExpandTile * cr + cc) * C)];
    // DOC-d3 §4/E1 s7305-s7308: add.f16 (tile value, skip value), one per channel.
    const std::array<f16_t, 256>& dec = decoded_codes();
    if (ctx.add_f16) {
      std::array<f16_t, kChannels> t;
      for (int c = 0; c < C; ++c) t[static_cast<std::size_t>(c)] = dec[src[c]];
      (*ctx.add_f16)(t.data(), &xs.at(row, 0), &x.at(row, 0), C);
    } else {
      for (int c = 0; c < C; ++c) x.at(row, c) = f16_add(dec[src[c]], xs.at(row, c));
    }
  }
  // The input norm (DOC-d4 §4/E1 "inverse-std block": f16 squares and sums, + 2^-13 (%fd1 s10075),
  // rsqrt.approx, the gain g1 at B0 = W + 103680 for dec4) as the prologue's (facts B4).
  const NormSpec norm{ctx.readings->prologue_sum_tree, kPrologueEpsE2m13,
                      load_column_table(*ctx.weights, ctx.weight_map().g1(), TableChunkOrder::nt, C)};
  return stage_input(ctx, std::move(x), norm);
}

}  // namespace rrswin::golden
