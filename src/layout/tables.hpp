// Per-column seed tables and C-seed records (facts E3, E6).
#pragma once
#include <cstdint>

#include "base/hd.hpp"

namespace rrswin::layout {

// A 160-column f16 table (g1, T1, g2, T3): the f16 of pair-order column col at table + 2*col,
// read as the u32 at table + 16*nt + 4t by every lane with that t (chunk = n-tile; see facts C6
// and errata 7 for the rejected rotation (nt+19)%20).
// (table + 16*(col>>3) + 4*((col&7)>>1) + 2*(col&1) == table + 2*col.)
RRSWIN_HD constexpr std::uint32_t column_table_offset(std::uint32_t table, int col) {
  return table + 16u * static_cast<std::uint32_t>(col >> 3) + 4u * static_cast<std::uint32_t>((col & 7) >> 1) +
         2u * static_cast<std::uint32_t>(col & 1);
}

// A 32-column record set (b1_c, and b61 with 16 columns): n-tile n at +16n, word t = columns
// 8n+2t, 8n+2t+1 (low half = even column); the same word seeds both rows (facts E6, C9, C12).
// (n-tile n = col>>3 at +16n, word t = (col&7)>>1, half = col&1: the column tables' layout, facts
// E3, so one formula.)
RRSWIN_HD constexpr std::uint32_t record_bias_offset(std::uint32_t base, int col) { return column_table_offset(base, col); }

// The u32 a lane with thread index t (laneid & 3) loads for n-tile nt of a table or record set:
// W + ((laneid << 2) & 12) + imm with imm = base + 16*nt (spec §1.1). Its low f16 is column
// 8nt+2t, its high f16 column 8nt+2t+1: the C seed {c, c} of that lane for n-tile nt.
RRSWIN_HD constexpr std::uint32_t seed_word_offset(std::uint32_t base, int nt, int t) {
  return base + 16u * static_cast<std::uint32_t>(nt) + 4u * static_cast<std::uint32_t>(t);
}

// Phase 11's score bias of one head (facts E6): for query row r (0..63) and key column c (0..95),
//   byte = bias_base + 512(mi + 4(nb>>1)) + 16L + 8(nb&1) + 4rh + 2(c&1)
// with mi = r>>4, rh = (r>>3)&1, g = r&7, nb = c>>3, t = (c&7)>>1, L = 4g + t, and
// bias_base = wmap::score_bias(h) = slot + 10560 (the head's 12288-byte block).
RRSWIN_HD constexpr std::uint32_t score_bias_word_offset(std::uint32_t bias_base, int mi, int nb, int rh, int lane);
RRSWIN_HD constexpr std::uint32_t score_bias_offset(std::uint32_t bias_base, int row, int col);

// The u32 C-seed word of phase 11's mma for (m-tile mi, key n-tile nb), row half rh, lane L: the
// four C registers of one mma pair (nb even/odd) are the four u32 of one lane's 16 bytes in tile
// mi + 4(nb>>1) (spec §3/E10: 24 v4 loads at bias_base + 512i).
RRSWIN_HD constexpr std::uint32_t score_bias_word_offset(std::uint32_t bias_base, int mi, int nb, int rh, int lane) {
  return bias_base + 512u * static_cast<std::uint32_t>(mi + 4 * (nb >> 1)) + 16u * static_cast<std::uint32_t>(lane) +
         8u * static_cast<std::uint32_t>(nb & 1) + 4u * static_cast<std::uint32_t>(rh);
}

RRSWIN_HD constexpr std::uint32_t score_bias_offset(std::uint32_t bias_base, int row, int col) {
  return score_bias_word_offset(bias_base, row >> 4, col >> 3, (row >> 3) & 1, 4 * (row & 7) + ((col & 7) >> 1)) +
         2u * static_cast<std::uint32_t>(col & 1);
}

}  // namespace rrswin::layout
