// Warp data movement (src/numerics/warp.cpp) against numerics.md "Warp-level data movement".
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "numerics/warp.hpp"

namespace {

using rrswin::WarpReg;

WarpReg random_reg(std::mt19937_64& rng) {
  WarpReg r{};
  for (auto& v : r) v = static_cast<std::uint32_t>(rng());
  return r;
}

// shfl.sync.bfly.b32 with c = 0x1f, membermask -1: lane L receives a from lane L ^ b.
TEST(Warp, ShflBflyAllMasks) {
  std::mt19937_64 rng(0x5f1);
  const WarpReg a = random_reg(rng);
  for (unsigned mask : {0u, 1u, 2u, 4u, 8u, 16u, 3u, 31u}) {
    const WarpReg d = rrswin::shfl_bfly(a, mask);
    for (unsigned lane = 0; lane < 32; ++lane) EXPECT_EQ(d[lane], a[lane ^ mask]) << "mask " << mask << " lane " << lane;
    EXPECT_EQ(rrswin::shfl_bfly(d, mask), a) << "a butterfly is its own inverse";
  }
  // The kernel's reduction pattern (facts D9): after xor 1 then 2, the 4 lanes of a quad all
  // hold the sum of the quad.
  WarpReg v{};
  for (unsigned lane = 0; lane < 32; ++lane) v[lane] = lane + 1;
  WarpReg s = v;
  for (unsigned b : {1u, 2u}) {
    const WarpReg o = rrswin::shfl_bfly(s, b);
    for (unsigned lane = 0; lane < 32; ++lane) s[lane] += o[lane];
  }
  for (unsigned lane = 0; lane < 32; ++lane) {
    const unsigned q = lane & ~3u;
    EXPECT_EQ(s[lane], (q + 1) + (q + 2) + (q + 3) + (q + 4));
  }
}

// movmatrix.sync.aligned.m8n8.trans.b16, checked against an explicit 8x8 transpose: build M,
// distribute it (lane L holds M[L/4][2(L%4)] low, M[L/4][2(L%4)+1] high), move, collect, compare.
TEST(Warp, MovmatrixIsTheTranspose) {
  std::mt19937_64 rng(0x7a5);
  for (int trial = 0; trial < 100; ++trial) {
    std::uint16_t m[8][8];
    for (auto& row : m)
      for (auto& e : row) e = static_cast<std::uint16_t>(rng());
    WarpReg a{};
    for (unsigned lane = 0; lane < 32; ++lane)
      a[lane] = m[lane / 4][2 * (lane % 4)] | (static_cast<std::uint32_t>(m[lane / 4][2 * (lane % 4) + 1]) << 16);
    const WarpReg d = rrswin::movmatrix_trans(a);
    std::uint16_t out[8][8];
    for (unsigned lane = 0; lane < 32; ++lane) {
      out[lane / 4][2 * (lane % 4)] = static_cast<std::uint16_t>(d[lane] & 0xFFFF);
      out[lane / 4][2 * (lane % 4) + 1] = static_cast<std::uint16_t>(d[lane] >> 16);
    }
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 8; ++c) ASSERT_EQ(out[r][c], m[c][r]) << "r " << r << " c " << c;
    EXPECT_EQ(rrswin::movmatrix_trans(d), a) << "transposing twice is the identity";
  }
  // The wording of numerics.md, lane by lane: L receives M[2(L%4)][L/4] (low), M[2(L%4)+1][L/4] (high).
  WarpReg a{};
  for (unsigned lane = 0; lane < 32; ++lane) a[lane] = (lane * 2) | ((lane * 2 + 1) << 16);  // M[r][c] = 8r + c
  const WarpReg d = rrswin::movmatrix_trans(a);
  for (unsigned lane = 0; lane < 32; ++lane) {
    const unsigned lo = 8 * (2 * (lane % 4)) + lane / 4, hi = 8 * (2 * (lane % 4) + 1) + lane / 4;
    EXPECT_EQ(d[lane], lo | (hi << 16)) << "lane " << lane;
  }
}

}  // namespace
