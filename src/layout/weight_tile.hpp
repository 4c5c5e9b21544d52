// The weight-image B tile address (facts E2, verified on enc0): a 32x(8*2*tiles) k-step block,
// element (k, n) with k and n in pair order. For one 32x32 k-step block (two 512-byte tiles):
//   waddr(base,k,n) = base + 512(n>>4) + 64(n&7) + 16((k>>1)&3) + 8((n>>3)&1)
//                          + 4((k>>3)&1) + 2((k>>4)&1) + (k&1)
// It is a bijection onto base + [0, 1024); for N = 160 the same formula runs n = 0..159 over ten
// 512-byte tiles (5120 bytes). Lane L's 16 bytes at base + 512*tile + 16L are its two B registers
// for n-tile 2*tile (bytes 0..7) and n-tile 2*tile+1 (bytes 8..15).
#pragma once
#include <cstdint>

#include "base/hd.hpp"

namespace rrswin::layout {

// The part of the address inside one 512-byte tile: lane L = 4g + t with g = n&7, t = (k>>1)&3
// (16 bytes per lane), n-tile half (n>>3)&1 at +8, B register b = (k>>3)&1 at +4, byte
// j = (k&1) + 2((k>>4)&1) — the inverse of facts §0.4's k = 2t + (j&1) + 16((j>>1)&1) + 8b.
RRSWIN_HD constexpr std::uint32_t waddr_in_tile(int k, int n) {
  return 64u * static_cast<std::uint32_t>(n & 7) + 16u * static_cast<std::uint32_t>((k >> 1) & 3) +
         8u * static_cast<std::uint32_t>((n >> 3) & 1) + 4u * static_cast<std::uint32_t>((k >> 3) & 1) +
         2u * static_cast<std::uint32_t>((k >> 4) & 1) + static_cast<std::uint32_t>(k & 1);
}

RRSWIN_HD constexpr std::uint32_t waddr(std::uint32_t base, int k, int n) {
  return base + 512u * static_cast<std::uint32_t>(n >> 4) + waddr_in_tile(k, n);
}

// Odd MLP phases (facts C9) and phase 61 (facts C12, n < 16): element (k-slice s, k within the
// slice, column n of 32) of W1_c / W61 — chains 0/1 step through tiles 0..4, chains 2/3 through 5..9:
//   base + 512(5(n>>4) + s) + 64(n&7) + 16((k>>1)&3) + 8((n>>3)&1) + 4((k>>3)&1) + 2((k>>4)&1) + (k&1)
// (Tile 5(n>>4) + s: chains 0/1 (n < 16) step through tiles 0..4, chains 2/3 through 5..9; spec
// §2.2's phase-21 chain at 222144 + 512s.) `slices` = C/32 for another layer of the template:
// enc3's odd phases (C = 128) read tile 4(n>>4) + s (DOC3 §2 P15: chain 0 (A_s, B_2s), chain 2
// (A_s, B_8+2s), B_2j and B_2j+1 in the 512-byte load j).
RRSWIN_HD constexpr std::uint32_t waddr_banded(std::uint32_t base, int slice, int k, int n, int slices = 5) {
  return base + 512u * static_cast<std::uint32_t>(slices * (n >> 4) + slice) + waddr_in_tile(k, n);
}

}  // namespace rrswin::layout
