// Per-column seed tables and C-seed records (facts E3, E6).
#pragma once
#include <cstdint>

namespace enc5::layout {

// A 160-column f16 table (g1, T1, g2, T3): the f16 of pair-order column col at table + 2*col,
// read as the u32 at table + 16*nt + 4t by every lane with that t (chunk = n-tile; see the
// reading "table-chunk-order" for the alternative rotation).
std::uint32_t column_table_offset(std::uint32_t table, int col);

// A 32-column record set (b1_c, and b61 with 16 columns): n-tile n at +16n, word t = columns
// 8n+2t, 8n+2t+1; the same word seeds both rows.
std::uint32_t record_bias_offset(std::uint32_t base, int col);

// Phase 11's score bias of one head (facts E6): for query row r (0..63) and key column c (0..95),
//   byte = head_base + 512(mi + 4(nb>>1)) + 16L + 8(nb&1) + 4rh + 2(c&1)
// with mi = r>>4, rh = (r>>3)&1, g = r&7, nb = c>>3, t = (c&7)>>1, L = 4g + t.
std::uint32_t score_bias_offset(std::uint32_t head_base, int row, int col);

}  // namespace enc5::layout
