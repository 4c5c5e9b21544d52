// The weight-image B tile address (facts E2, verified on enc0): a 32x(8*2*tiles) k-step block,
// element (k, n) with k and n in pair order. For one 32x32 k-step block (two 512-byte tiles):
//   waddr(base,k,n) = base + 512(n>>4) + 64(n&7) + 16((k>>1)&3) + 8((n>>3)&1)
//                          + 4((k>>3)&1) + 2((k>>4)&1) + (k&1)
// It is a bijection onto base + [0, 1024); for N = 160 the same formula runs n = 0..159 over ten
// 512-byte tiles (5120 bytes). Lane L's 16 bytes at base + 512*tile + 16L are its two B registers
// for n-tile 2*tile (bytes 0..7) and n-tile 2*tile+1 (bytes 8..15).
#pragma once
#include <cstdint>

namespace enc5::layout {

std::uint32_t waddr(std::uint32_t base, int k, int n);

// Odd MLP phases (facts C9) and phase 61 (facts C12, n < 16): element (k-slice s, k within the
// slice, column n of 32) of W1_c / W61 — chains 0/1 step through tiles 0..4, chains 2/3 through 5..9:
//   base + 512(5(n>>4) + s) + 64(n&7) + 16((k>>1)&3) + 8((n>>3)&1) + 4((k>>3)&1) + 2((k>>4)&1) + (k&1)
std::uint32_t waddr_banded(std::uint32_t base, int slice, int k, int n);

}  // namespace enc5::layout
