// layout/fragment: the m16n8k32 fragment maps against their definitions in numerics.md ("mma",
// PTX ISA fragment layout) and facts §0.4 (pair order, C/D registers).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "layout/fragment.hpp"

namespace L = rrswin::layout;

namespace {

// Every (lane, reg, byte) position of an operand, visited once.
template <class F>
void each_position(int regs, int bytes, F f) {
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < regs; ++reg)
      for (int byte = 0; byte < bytes; ++byte) f(lane, reg, byte);
}

}  // namespace

// Each forward map hits every matrix element exactly once (A 16x32, B 32x8, C/D 16x8).
TEST(Fragment, ForwardMapsAreBijections) {
  std::set<std::pair<int, int>> a_isa, a_pair, b_isa, b_pair, cd;
  each_position(4, 4, [&](int l, int r, int j) {
    const L::RowK e = L::a_element_isa(l, r, j), p = L::a_element_pair(l, r, j);
    ASSERT_TRUE(e.row >= 0 && e.row < 16 && e.k >= 0 && e.k < 32);
    ASSERT_TRUE(p.row >= 0 && p.row < 16 && p.k >= 0 && p.k < 32);
    a_isa.insert({e.row, e.k});
    a_pair.insert({p.row, p.k});
  });
  each_position(2, 4, [&](int l, int r, int j) {
    const L::KCol e = L::b_element_isa(l, r, j), p = L::b_element_pair(l, r, j);
    ASSERT_TRUE(e.k >= 0 && e.k < 32 && e.col >= 0 && e.col < 8);
    ASSERT_TRUE(p.k >= 0 && p.k < 32 && p.col >= 0 && p.col < 8);
    b_isa.insert({e.k, e.col});
    b_pair.insert({p.k, p.col});
  });
  each_position(2, 2, [&](int l, int r, int h) {
    const L::RowCol e = L::cd_element(l, r, h);
    ASSERT_TRUE(e.row >= 0 && e.row < 16 && e.col >= 0 && e.col < 8);
    cd.insert({e.row, e.col});
  });
  EXPECT_EQ(a_isa.size(), 512u);
  EXPECT_EQ(a_pair.size(), 512u);
  EXPECT_EQ(b_isa.size(), 256u);
  EXPECT_EQ(b_pair.size(), 256u);
  EXPECT_EQ(cd.size(), 128u);
}

// The ISA maps restate numerics.md's fragment list literally: A reg0 = A[g][4t..4t+3],
// reg1 = A[g+8][4t..], reg2 = A[g][16+4t..], reg3 = A[g+8][16+4t..]; B reg0 = B[4t..4t+3][g],
// reg1 = B[16+4t..][g]; C/D reg0 = {lo (g, 2t), hi (g, 2t+1)}, reg1 = row g+8.
TEST(Fragment, IsaMapsFollowNumericsMd) {
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, t = lane & 3;
    const int a_rows[4] = {g, g + 8, g, g + 8}, a_k0[4] = {4 * t, 4 * t, 16 + 4 * t, 16 + 4 * t};
    for (int r = 0; r < 4; ++r)
      for (int j = 0; j < 4; ++j) {
        EXPECT_EQ(L::a_element_isa(lane, r, j).row, a_rows[r]);
        EXPECT_EQ(L::a_element_isa(lane, r, j).k, a_k0[r] + j);
      }
    for (int r = 0; r < 2; ++r)
      for (int j = 0; j < 4; ++j) {
        EXPECT_EQ(L::b_element_isa(lane, r, j).k, 16 * r + 4 * t + j);
        EXPECT_EQ(L::b_element_isa(lane, r, j).col, g);
      }
    for (int r = 0; r < 2; ++r)
      for (int h = 0; h < 2; ++h) {
        EXPECT_EQ(L::cd_element(lane, r, h).row, g + 8 * r);
        EXPECT_EQ(L::cd_element(lane, r, h).col, 2 * t + h);
      }
  }
}

// facts §0.4, literally: A reg o byte j of lane (g,t) holds row g + 8(o&1),
// k = 2t + (j&1) + 16((j>>1)&1) + 8(o>>1); B reg b: column g, same k with 8b.
TEST(Fragment, PairMapsFollowFacts04) {
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, t = lane & 3;
    for (int o = 0; o < 4; ++o)
      for (int j = 0; j < 4; ++j) {
        EXPECT_EQ(L::a_element_pair(lane, o, j).row, g + 8 * (o & 1));
        EXPECT_EQ(L::a_element_pair(lane, o, j).k, 2 * t + (j & 1) + 16 * ((j >> 1) & 1) + 8 * (o >> 1));
      }
    for (int b = 0; b < 2; ++b)
      for (int j = 0; j < 4; ++j) {
        EXPECT_EQ(L::b_element_pair(lane, b, j).col, g);
        EXPECT_EQ(L::b_element_pair(lane, b, j).k, 2 * t + (j & 1) + 16 * ((j >> 1) & 1) + 8 * b);
      }
  }
}

// facts §0.4's summary: "natural index 4a+b (a=0..7, b=0..3) <-> pair index 2a + (b&1) + 16(b>>1)".
// Verified as stated: natural = ISA k, and the two relabelling functions are inverse bijections.
TEST(Fragment, KRelabellingMatchesFacts04Statement) {
  std::set<int> image;
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 4; ++b) {
      const int natural = 4 * a + b, pair = 2 * a + (b & 1) + 16 * (b >> 1);
      EXPECT_EQ(L::pair_k_from_isa_k(natural), pair) << "natural " << natural;
      EXPECT_EQ(L::isa_k_from_pair_k(pair), natural) << "pair " << pair;
      image.insert(pair);
    }
  EXPECT_EQ(image.size(), 32u);
  for (int k = 0; k < 32; ++k) {
    EXPECT_EQ(L::isa_k_from_pair_k(L::pair_k_from_isa_k(k)), k);
    EXPECT_EQ(L::pair_k_from_isa_k(L::isa_k_from_pair_k(k)), k);
  }
  // A few values worked by hand from the statement: ISA k 1 (a=0,b=1) -> 1; k 2 (b=2) -> 16;
  // k 3 -> 17; k 4 (a=1,b=0) -> 2; k 31 (a=7,b=3) -> 31; k 28 (a=7,b=0) -> 14.
  EXPECT_EQ(L::pair_k_from_isa_k(1), 1);
  EXPECT_EQ(L::pair_k_from_isa_k(2), 16);
  EXPECT_EQ(L::pair_k_from_isa_k(3), 17);
  EXPECT_EQ(L::pair_k_from_isa_k(4), 2);
  EXPECT_EQ(L::pair_k_from_isa_k(31), 31);
  EXPECT_EQ(L::pair_k_from_isa_k(28), 14);
}

// The relabelling functions connect the two fragment labellings position by position.
TEST(Fragment, RelabellingConnectsTheTwoFragmentLabellings) {
  each_position(4, 4, [](int l, int r, int j) {
    const L::RowK isa = L::a_element_isa(l, r, j), pair = L::a_element_pair(l, r, j);
    EXPECT_EQ(isa.row, pair.row);
    EXPECT_EQ(isa.k, L::isa_k_from_pair_k(pair.k));
  });
  each_position(2, 4, [](int l, int r, int j) {
    const L::KCol isa = L::b_element_isa(l, r, j), pair = L::b_element_pair(l, r, j);
    EXPECT_EQ(isa.col, pair.col);
    EXPECT_EQ(isa.k, L::isa_k_from_pair_k(pair.k));
  });
}

// facts D1(iii): the half held in B reg0 / A regs 0-1 is pair-order k {0..7, 16..23}, which is
// ISA k 0..15 (the first half of the `ada` accumulation).
TEST(Fragment, FirstIsaHalfIsPairK0To7And16To23) {
  std::set<int> pair_ks;
  each_position(2, 4, [&](int l, int r, int j) {
    if (r == 0) pair_ks.insert(L::b_element_pair(l, r, j).k);
  });
  std::set<int> expected;
  for (int k = 0; k < 8; ++k) expected.insert(k), expected.insert(16 + k);
  EXPECT_EQ(pair_ks, expected);
  for (int k : pair_ks) EXPECT_LT(L::isa_k_from_pair_k(k), 16);
}

// "A reg0/1 pair with B reg0, A reg2/3 with B reg1, byte j with byte j" (facts §0.4): in a lane
// group with the same t, A reg o byte j and B reg (o>>1) byte j carry the same k, in both
// labellings, so the instruction multiplies the same element pairs whichever labelling is used.
TEST(Fragment, ABProductsPairUpIdenticallyInBothLabellings) {
  for (int la = 0; la < 32; ++la)
    for (int lb = 0; lb < 32; ++lb) {
      if ((la & 3) != (lb & 3)) continue;
      for (int o = 0; o < 4; ++o)
        for (int j = 0; j < 4; ++j) {
          EXPECT_EQ(L::a_element_isa(la, o, j).k, L::b_element_isa(lb, o >> 1, j).k);
          EXPECT_EQ(L::a_element_pair(la, o, j).k, L::b_element_pair(lb, o >> 1, j).k);
        }
    }
  // And concretely: random register contents, read as matrices under either labelling, give the
  // same multiset of products A[row][k] * B[k][col] for every output element.
  std::mt19937 rng(12345);
  std::uint8_t a_bytes[32][4][4], b_bytes[32][2][4];
  for (auto& x : a_bytes)
    for (auto& y : x)
      for (auto& z : y) z = static_cast<std::uint8_t>(rng());
  for (auto& x : b_bytes)
    for (auto& y : x)
      for (auto& z : y) z = static_cast<std::uint8_t>(rng());
  int A_isa[16][32], A_pair[16][32], B_isa[32][8], B_pair[32][8];
  each_position(4, 4, [&](int l, int r, int j) {
    const L::RowK e = L::a_element_isa(l, r, j), p = L::a_element_pair(l, r, j);
    A_isa[e.row][e.k] = a_bytes[l][r][j];
    A_pair[p.row][p.k] = a_bytes[l][r][j];
  });
  each_position(2, 4, [&](int l, int r, int j) {
    const L::KCol e = L::b_element_isa(l, r, j), p = L::b_element_pair(l, r, j);
    B_isa[e.k][e.col] = b_bytes[l][r][j];
    B_pair[p.k][p.col] = b_bytes[l][r][j];
  });
  for (int row = 0; row < 16; ++row)
    for (int col = 0; col < 8; ++col) {
      std::vector<std::pair<int, int>> isa, pair;
      for (int k = 0; k < 32; ++k) {
        isa.push_back({A_isa[row][k], B_isa[k][col]});
        pair.push_back({A_pair[row][k], B_pair[k][col]});
        // and element-wise through the relabelling
        EXPECT_EQ(A_pair[row][k], A_isa[row][L::isa_k_from_pair_k(k)]);
        EXPECT_EQ(B_pair[k][col], B_isa[L::isa_k_from_pair_k(k)][col]);
      }
      std::sort(isa.begin(), isa.end());
      std::sort(pair.begin(), pair.end());
      EXPECT_EQ(isa, pair);
    }
}

// The inverse maps round-trip with the forward maps in both directions.
TEST(Fragment, InverseMapsRoundTrip) {
  each_position(4, 4, [](int l, int r, int j) {
    const L::RowK e = L::a_element_pair(l, r, j);
    const L::LaneRegByte loc = L::a_location_pair(e.row, e.k);
    EXPECT_EQ(loc.lane, l);
    EXPECT_EQ(loc.reg, r);
    EXPECT_EQ(loc.byte, j);
  });
  for (int row = 0; row < 16; ++row)
    for (int k = 0; k < 32; ++k) {
      const L::LaneRegByte loc = L::a_location_pair(row, k);
      const L::RowK e = L::a_element_pair(loc.lane, loc.reg, loc.byte);
      EXPECT_EQ(e.row, row);
      EXPECT_EQ(e.k, k);
    }
  each_position(2, 4, [](int l, int r, int j) {
    const L::KCol e = L::b_element_pair(l, r, j);
    const L::LaneRegByte loc = L::b_location_pair(e.k, e.col);
    EXPECT_EQ(loc.lane, l);
    EXPECT_EQ(loc.reg, r);
    EXPECT_EQ(loc.byte, j);
  });
  for (int k = 0; k < 32; ++k)
    for (int col = 0; col < 8; ++col) {
      const L::LaneRegByte loc = L::b_location_pair(k, col);
      const L::KCol e = L::b_element_pair(loc.lane, loc.reg, loc.byte);
      EXPECT_EQ(e.k, k);
      EXPECT_EQ(e.col, col);
    }
  each_position(2, 2, [](int l, int r, int h) {
    const L::RowCol e = L::cd_element(l, r, h);
    const L::LaneRegByte loc = L::cd_location(e.row, e.col);
    EXPECT_EQ(loc.lane, l);
    EXPECT_EQ(loc.reg, r);
    EXPECT_EQ(loc.byte, h);
  });
  for (int row = 0; row < 16; ++row)
    for (int col = 0; col < 8; ++col) {
      const L::LaneRegByte loc = L::cd_location(row, col);
      const L::RowCol e = L::cd_element(loc.lane, loc.reg, loc.byte);
      EXPECT_EQ(e.row, row);
      EXPECT_EQ(e.col, col);
    }
}

TEST(Fragment, OutOfRangeArgumentsThrow) {
  EXPECT_THROW(L::a_element_isa(32, 0, 0), std::out_of_range);
  EXPECT_THROW(L::a_element_pair(0, 4, 0), std::out_of_range);
  EXPECT_THROW(L::b_element_isa(0, 2, 0), std::out_of_range);
  EXPECT_THROW(L::b_element_pair(0, 0, 4), std::out_of_range);
  EXPECT_THROW(L::cd_element(-1, 0, 0), std::out_of_range);
  EXPECT_THROW(L::cd_element(0, 0, 2), std::out_of_range);
  EXPECT_THROW(L::isa_k_from_pair_k(32), std::out_of_range);
  EXPECT_THROW(L::pair_k_from_isa_k(-1), std::out_of_range);
  EXPECT_THROW(L::a_location_pair(16, 0), std::out_of_range);
  EXPECT_THROW(L::b_location_pair(0, 8), std::out_of_range);
  EXPECT_THROW(L::cd_location(0, 8), std::out_of_range);
}
