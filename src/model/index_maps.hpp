// The reading-dependent index maps of the layer, written once for the golden model, the fast
// engine and the CUDA kernel (RRSWIN_HD): which pixel a token row is (facts A6, B6), where a
// fragment register goes in a plane arena (facts C13.4), and which texel an E61 tap reads (facts
// C14.5/.6). Pure integer functions of the reading and the coordinates.
#pragma once
#include "base/hd.hpp"
#include "model/readings.hpp"

namespace rrswin::golden {

struct PixelXY {
  int x, y;
};

// The pixel of token row r (0..95) of the block with origin (x0, y0): window rows by facts A6,
// halo rows 64..95 by the reading prologue-halo (facts B6 leaves them open). Each halo strip is
// 8 pixels, so m-tile 4 = strips 0 (row g) and 1 (row g+8), m-tile 5 = strips 2 and 3.
RRSWIN_HD constexpr PixelXY token_pixel_of(PrologueHalo halo, int x0, int y0, int row) {
  if (row < 64) return {x0 + (row & 7), y0 + (row >> 3)};
  const int h = row - 64, strip = h >> 3, i = h & 7;
  switch (halo) {
    case PrologueHalo::ring_tblr:
      return strip == 0   ? PixelXY{x0 + i, y0 - 1}
             : strip == 1 ? PixelXY{x0 + i, y0 + 8}
             : strip == 2 ? PixelXY{x0 - 1, y0 + i}
                          : PixelXY{x0 + 8, y0 + i};
    case PrologueHalo::ring_lrtb:
      return strip == 0   ? PixelXY{x0 - 1, y0 + i}
             : strip == 1 ? PixelXY{x0 + 8, y0 + i}
             : strip == 2 ? PixelXY{x0 + i, y0 - 1}
                          : PixelXY{x0 + i, y0 + 8};
    case PrologueHalo::rows_around: return {x0 + i, strip == 0 ? y0 - 2 : strip == 1 ? y0 - 1 : strip == 2 ? y0 + 8 : y0 + 9};
  }
  return {x0, y0};
}

// Where fragment register o (0..3) of lane-in-group t goes in the arena: the pixel of row g
// (row_half 0) or row g+8 (row_half 1), and word d (0..7). Store i = 4q + slot of plane q walks
// base A (row g's pixel) / base B (row g+8's pixel) and word t / t|4 as DOC5 E60(b)'s table
// (facts C13.2). Which register is v_{4q+i}:
//  fragment (Errata 1, enc0 precedent): v_{4q+o} = reg o -> reg 0,1 at row g's pixel, words
//    t and t|4 (row g and row g+8's k-lo halves); reg 2,3 at row g+8's pixel;
//  natural (facts C13.4(a)): each pixel gets its own token: reg 0/2 (row g, k-lo/k-hi) at row
//    g's pixel words t and t|4, reg 1/3 at row g+8's pixel.
// The prologue's load uses the same map with its own reading.
struct ArenaSlot {
  int row_half;
  int word;
};
RRSWIN_HD constexpr ArenaSlot arena_slot(ArenaOrder order, int reg, int t) {
  if (order == ArenaOrder::fragment) return {reg >> 1, t | (4 * (reg & 1))};
  return {reg & 1, t | (4 * (reg >> 1))};
}

// E61's neighbour coordinate rule at the frame border (reading filter-border; facts C14.5 / Errata 3).
RRSWIN_HD constexpr int e61_border_fix(E61Border border, int v, int n) {
  switch (border) {
    case E61Border::reflect101:  // -1 -> 1, n -> n-2
      return v < 0 ? -v : v >= n ? 2 * n - 2 - v : v;
    case E61Border::sentinel1:  // DOC3/DOC4: 1 replaces any out-of-range coordinate
      return (v < 0 || v >= n) ? 1 : v;
    case E61Border::clamp: {  // DOC5 literally: every coordinate clamped into [1, n-2]
      const int lo = v < 1 ? 1 : v;
      return lo > n - 2 ? n - 2 : lo;
    }
  }
  return v;
}

// E61(a)'s shared records (facts C14.1): record r = token row r, kE61RecordWords u32 words; the lane
// with thread-in-group t writes word t from phase 61's n-tile 0 and word t + 4 from n-tile 1, the
// latter only where the reading filter-record-guard lets it (t_le_1: t <= 1; none: every t, so lanes
// t = 2, 3 write into the next record).
inline constexpr int kE61RecordWords = 6;
RRSWIN_HD constexpr int e61_record_word(int row, int t, int n_tile) { return kE61RecordWords * row + t + 4 * n_tile; }
RRSWIN_HD constexpr bool e61_record_stored(E61RecordGuard guard, int t, int n_tile) {
  return n_tile == 0 || guard == E61RecordGuard::none || t <= 1;
}
// E61(b)..(e): thread T = 32 warp + lane, T < kE61Threads, finishes pixel (x0 + (T&7), y0 + (T>>3))
// (facts A7) from record T.
inline constexpr int kE61Threads = 64;
RRSWIN_HD constexpr PixelXY e61_pixel_of_thread(int x0, int y0, int T) { return {x0 + (T & 7), y0 + (T >> 3)}; }

// Tap i (0..8) of pixel (X, Y), in the order weight i multiplies it: facts C14.6 (inferred from
// DOC0 E22(d)): raster w_i <-> (dx, dy) = (i%3 - 1, i/3 - 1); column-major swaps them.
// The offset (dx, dy) of tap i before the border fix.
RRSWIN_HD constexpr PixelXY e61_tap_offset(E61TapMap map, int i) {
  const int a = i % 3 - 1, b = i / 3 - 1;
  return map == E61TapMap::raster ? PixelXY{a, b} : PixelXY{b, a};
}
RRSWIN_HD constexpr PixelXY e61_tap(E61Border border, E61TapMap map, int X, int Y, int ex, int ey, int i) {
  const PixelXY d = e61_tap_offset(map, i);
  return {e61_border_fix(border, X + d.x, ex), e61_border_fix(border, Y + d.y, ey)};
}

}  // namespace rrswin::golden
