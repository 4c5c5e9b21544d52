// Seed tables and records (facts E3, E6). Every layout here is "pair-order column c at +2c" within
// 16-byte n-tile words, except the score bias, which is one 16-byte lane slot per (mi, nb pair).
#include "layout/tables.hpp"

namespace enc5::layout {

std::uint32_t column_table_offset(std::uint32_t table, int col) {
  // table + 16*(col>>3) + 4*((col&7)>>1) + 2*(col&1) == table + 2*col (facts E3).
  return table + 16u * static_cast<std::uint32_t>(col >> 3) + 4u * static_cast<std::uint32_t>((col & 7) >> 1) +
         2u * static_cast<std::uint32_t>(col & 1);
}

std::uint32_t record_bias_offset(std::uint32_t base, int col) {
  // n-tile n = col>>3 at +16n, word t = (col&7)>>1, half = col&1 (facts E6): the column tables'
  // layout (facts E3), so one formula.
  return column_table_offset(base, col);
}

std::uint32_t seed_word_offset(std::uint32_t base, int nt, int t) {
  return base + 16u * static_cast<std::uint32_t>(nt) + 4u * static_cast<std::uint32_t>(t);
}

std::uint32_t score_bias_word_offset(std::uint32_t bias_base, int mi, int nb, int rh, int lane) {
  return bias_base + 512u * static_cast<std::uint32_t>(mi + 4 * (nb >> 1)) + 16u * static_cast<std::uint32_t>(lane) +
         8u * static_cast<std::uint32_t>(nb & 1) + 4u * static_cast<std::uint32_t>(rh);
}

std::uint32_t score_bias_offset(std::uint32_t bias_base, int row, int col) {
  const int mi = row >> 4, rh = (row >> 3) & 1, g = row & 7;
  const int nb = col >> 3, t = (col & 7) >> 1;
  return score_bias_word_offset(bias_base, mi, nb, rh, 4 * g + t) + 2u * static_cast<std::uint32_t>(col & 1);
}

}  // namespace enc5::layout
