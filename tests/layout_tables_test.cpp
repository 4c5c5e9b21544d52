// Weight-tile addressing (facts E2, C9) and seed tables / records (facts E3, E6) against the
// fragment definitions of facts §0.4 and the example offsets the spec prints.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "layout/tables.hpp"
#include "layout/weight_tile.hpp"

namespace {

using rrswin::layout::waddr;
using rrswin::layout::waddr_banded;

// facts §0.4, typed here: B register b (0/1) byte j of lane (g,t) holds column g of its n-tile and
// pair-order k = 2t + (j&1) + 16((j>>1)&1) + 8b.
int b_fragment_k(int t, int reg, int byte) { return 2 * t + (byte & 1) + 16 * ((byte >> 1) & 1) + 8 * reg; }

TEST(WeightTile, WaddrIsABijectionOntoEach1024ByteBlock) {
  const std::uint32_t base = 4096;
  std::vector<int> hits(1024, 0);
  for (int k = 0; k < 32; ++k)
    for (int n = 0; n < 32; ++n) {
      const std::uint32_t a = waddr(base, k, n);
      ASSERT_GE(a, base);
      ASSERT_LT(a, base + 1024);
      ++hits[a - base];
    }
  for (int h : hits) EXPECT_EQ(h, 1);
  // N = 160: the same formula over ten 512-byte tiles (5120 bytes).
  std::vector<int> hits160(5120, 0);
  for (int k = 0; k < 32; ++k)
    for (int n = 0; n < 160; ++n) ++hits160.at(waddr(0, k, n));
  for (int h : hits160) EXPECT_EQ(h, 1);
}

TEST(WeightTile, LaneBytesHoldTheBFragmentInPairOrder) {
  // Lane L's 16 bytes at base + 512*tile + 16L: bytes 0..7 = column 16*tile + g (register b0 =
  // bytes 0..3, b1 = 4..7), bytes 8..15 = column 16*tile + 8 + g (facts E2).
  const std::uint32_t base = 22848;  // Wo_0
  for (int tile = 0; tile < 10; ++tile)
    for (int lane = 0; lane < 32; ++lane)
      for (int byte = 0; byte < 16; ++byte) {
        const int g = lane >> 2, t = lane & 3;
        const int half = byte >> 3, reg = (byte >> 2) & 1, j = byte & 3;
        const int col = 16 * tile + 8 * half + g;
        const int k = b_fragment_k(t, reg, j);
        EXPECT_EQ(waddr(base, k, col), base + 512u * tile + 16u * lane + byte) << "tile " << tile << " lane " << lane << " byte " << byte;
      }
}

TEST(WeightTile, BandedChainsFollowSpecPhase21) {
  // spec §2.2: chain 0 of phase 21 reads B at 222144, 222656, 223168, 223680, 224192 (lane 0).
  const std::uint32_t w1 = 222144;
  const std::uint32_t chain0[5] = {222144, 222656, 223168, 223680, 224192};
  for (int s = 0; s < 5; ++s) {
    // Lane 0 (g = 0, t = 0), register 0, byte 0 = column 0 (n-tile 0), k = 0 of slice s.
    EXPECT_EQ(waddr_banded(w1, s, 0, 0), chain0[s]);
    // Chain 1 (n-tile 1) uses the same tile at +8 (the second n-tile of the 512-byte tile).
    EXPECT_EQ(waddr_banded(w1, s, 0, 8), chain0[s] + 8);
    // Chains 2 / 3 (columns 16..31) use tiles 5..9.
    EXPECT_EQ(waddr_banded(w1, s, 0, 16), w1 + 512u * (5 + s));
    EXPECT_EQ(waddr_banded(w1, s, 0, 24), w1 + 512u * (5 + s) + 8);
    // Every lane's bytes of the chain-0 tile hold the B fragment of n-tile 0, slice s.
    for (int lane = 0; lane < 32; ++lane)
      for (int byte = 0; byte < 8; ++byte) {
        const int g = lane >> 2, t = lane & 3;
        EXPECT_EQ(waddr_banded(w1, s, b_fragment_k(t, (byte >> 2) & 1, byte & 3), g), chain0[s] + 16u * lane + byte);
      }
  }
  // Bijection onto W1_c's 5120 bytes (5 slices x 32 k x 32 columns) and, for 16 columns, onto
  // W61's 2560 bytes (facts C12: 5 tiles, n-tile 0 at +0, n-tile 1 at +8).
  std::vector<int> hits(5120, 0);
  for (int s = 0; s < 5; ++s)
    for (int k = 0; k < 32; ++k)
      for (int n = 0; n < 32; ++n) ++hits.at(waddr_banded(0, s, k, n));
  for (int h : hits) EXPECT_EQ(h, 1);
  std::set<std::uint32_t> w61;
  for (int s = 0; s < 5; ++s)
    for (int k = 0; k < 32; ++k)
      for (int n = 0; n < 16; ++n) w61.insert(waddr_banded(428544, s, k, n));
  EXPECT_EQ(w61.size(), 2560u);
  EXPECT_EQ(*w61.begin(), 428544u);
  EXPECT_EQ(*w61.rbegin(), 431103u);
  // spec E60(c): phase 61's five B loads at 428544 + 512s (lane 0).
  for (int s = 0; s < 5; ++s) EXPECT_EQ(waddr_banded(428544, s, 0, 0), 428544u + 512u * s);
}

TEST(Tables, ColumnTableIsPairOrderTwoBytesPerColumn) {
  using rrswin::layout::column_table_offset;
  using rrswin::layout::seed_word_offset;
  // facts E3: table + 2*col; the lane with thread index t reads the u32 at table + 16nt + 4t,
  // whose low half is column 8nt + 2t and high half column 8nt + 2t + 1.
  for (std::uint32_t table : {0u, 221504u, 221824u, 232448u}) {
    std::set<std::uint32_t> seen;
    for (int col = 0; col < 160; ++col) {
      EXPECT_EQ(column_table_offset(table, col), table + 2u * col);
      seen.insert(column_table_offset(table, col));
    }
    EXPECT_EQ(seen.size(), 160u);
    for (int nt = 0; nt < 20; ++nt)
      for (int t = 0; t < 4; ++t) {
        EXPECT_EQ(seed_word_offset(table, nt, t), column_table_offset(table, 8 * nt + 2 * t));
        EXPECT_EQ(seed_word_offset(table, nt, t) + 2, column_table_offset(table, 8 * nt + 2 * t + 1));
      }
  }
  // spec §4.1: the g2 loads run 221840 … 222128 step 16 (plus 221824, facts H13): n-tiles 0..19.
  EXPECT_EQ(seed_word_offset(221824, 1, 0), 221840u);
  EXPECT_EQ(seed_word_offset(221824, 19, 0), 222128u);
  // spec §3/E21: T3 loads 232448 … 232752.
  EXPECT_EQ(seed_word_offset(232448, 19, 0), 232752u);
}

TEST(Tables, RecordBiasSeedsBothRowsPerNTile) {
  using rrswin::layout::record_bias_offset;
  using rrswin::layout::seed_word_offset;
  // spec §3/E20: phase 21's C = 4 u32 loads at W + 4t + 227264 + 16i (i = n-tile 0..3).
  for (int i = 0; i < 4; ++i) EXPECT_EQ(seed_word_offset(227264, i, 0), 227264u + 16u * i);
  std::set<std::uint32_t> seen;
  for (int col = 0; col < 32; ++col) {
    const int nt = col >> 3, t = (col & 7) >> 1;
    EXPECT_EQ(record_bias_offset(227264, col), seed_word_offset(227264, nt, t) + 2u * (col & 1));
    seen.insert(record_bias_offset(227264, col));
  }
  EXPECT_EQ(seen.size(), 32u);
  EXPECT_EQ(*seen.rbegin(), 227264u + 62u);
  // spec E60(c): phase 61's C seeds at 431104 (n-tile 0) and 431120 (n-tile 1); lane t = 3's
  // word of n-tile 1 ends at 431136 (facts E1).
  EXPECT_EQ(record_bias_offset(431104, 0), 431104u);
  EXPECT_EQ(record_bias_offset(431104, 8), 431120u);
  EXPECT_EQ(seed_word_offset(431104, 1, 3) + 4u, 431136u);
  EXPECT_EQ(record_bias_offset(431104, 15) + 2u, 431136u);
}

TEST(Tables, ScoreBiasIsABijectionWithSpecOffsets) {
  using rrswin::layout::score_bias_offset;
  using rrswin::layout::score_bias_word_offset;
  const std::uint32_t base = 10560;  // slot 0 + 10560 (spec §3/E10)
  std::vector<int> hits(12288, 0);
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 96; ++c) {
      const std::uint32_t a = score_bias_offset(base, r, c);
      ASSERT_GE(a, base);
      ASSERT_LT(a, base + 12288);
      ASSERT_EQ(a % 2, 0u);
      hits[a - base] += 1;
      hits[a - base + 1] += 1;
    }
  for (int h : hits) EXPECT_EQ(h, 1);
  // facts appendix §2 (DOC4 E10 C offsets, lane 0): 10560 (mi 0, nb 0), 10568 (nb 1),
  // 12608 (nb 2 -> tile 4), 11072 (mi 1 -> tile 1); the row-g+8 word at +4.
  EXPECT_EQ(score_bias_word_offset(base, 0, 0, 0, 0), 10560u);
  EXPECT_EQ(score_bias_word_offset(base, 0, 0, 1, 0), 10564u);
  EXPECT_EQ(score_bias_word_offset(base, 0, 1, 0, 0), 10568u);
  EXPECT_EQ(score_bias_word_offset(base, 0, 2, 0, 0), 12608u);
  EXPECT_EQ(score_bias_word_offset(base, 1, 0, 0, 0), 11072u);
  // spec §3/E10: the 24 loads at 10560 + 512i, i = 0..23, last 22336: tile mi + 4(nb>>1).
  std::set<std::uint32_t> loads;
  for (int mi = 0; mi < 4; ++mi)
    for (int nb = 0; nb < 12; nb += 2) loads.insert(score_bias_word_offset(base, mi, nb, 0, 0));
  std::set<std::uint32_t> spec_loads;
  for (unsigned i = 0; i < 24; ++i) spec_loads.insert(10560u + 512u * i);
  EXPECT_EQ(loads, spec_loads);
  EXPECT_EQ(*loads.rbegin(), 22336u);
  // Element view: row r = 16mi + g + 8rh, column c = 8nb + 2t + half; low half = even column.
  EXPECT_EQ(score_bias_offset(base, 0, 0), 10560u);
  EXPECT_EQ(score_bias_offset(base, 0, 1), 10562u);
  EXPECT_EQ(score_bias_offset(base, 8, 0), 10564u);
  EXPECT_EQ(score_bias_offset(base, 1, 0), 10560u + 64u);  // g = 1 -> lane 4
  EXPECT_EQ(score_bias_offset(base, 0, 2), 10560u + 16u);  // t = 1 -> lane 1
  EXPECT_EQ(score_bias_offset(base, 63, 95), 10560u + 512u * (3 + 4 * 5) + 16u * 31 + 8 + 4 + 2);
}

}  // namespace
