// B-operand weight addressing (facts E2 for the dense k-step blocks, facts C9 for the banded
// W1_c / W61 blocks). k and n are in pair order (facts §0.4).
#include "layout/weight_tile.hpp"

namespace enc5::layout {
namespace {

// The part of the address inside one 512-byte tile: lane L = 4g + t with g = n&7, t = (k>>1)&3
// (16 bytes per lane), n-tile half (n>>3)&1 at +8, B register b = (k>>3)&1 at +4, byte
// j = (k&1) + 2((k>>4)&1) — the inverse of facts §0.4's k = 2t + (j&1) + 16((j>>1)&1) + 8b.
std::uint32_t in_tile(int k, int n) {
  return 64u * static_cast<std::uint32_t>(n & 7) + 16u * static_cast<std::uint32_t>((k >> 1) & 3) +
         8u * static_cast<std::uint32_t>((n >> 3) & 1) + 4u * static_cast<std::uint32_t>((k >> 3) & 1) +
         2u * static_cast<std::uint32_t>((k >> 4) & 1) + static_cast<std::uint32_t>(k & 1);
}

}  // namespace

std::uint32_t waddr(std::uint32_t base, int k, int n) {
  return base + 512u * static_cast<std::uint32_t>(n >> 4) + in_tile(k, n);
}

std::uint32_t waddr_banded(std::uint32_t base, int slice, int k, int n) {
  // Tile 5(n>>4) + s: chains 0/1 (n < 16) step through tiles 0..4, chains 2/3 through 5..9
  // (facts C9; spec §2.2's phase-21 chain at 222144 + 512s).
  return base + 512u * static_cast<std::uint32_t>(5 * (n >> 4) + slice) + in_tile(k, n);
}

}  // namespace enc5::layout
