// Warp-level data movement (numerics.md "Warp-level data movement"; facts D9, D13).
#include "numerics/warp.hpp"

namespace rrswin {

// shfl.sync.bfly.b32 d, a, b, 0x1f, -1. PTX ISA shfl.sync pseudocode: bval = b[4:0]; with c = 0x1f
// the segment mask is 0 and maxLane = 31, so j = lane ^ bval is always a valid source lane and
// every lane of the full mask takes a from lane j.
WarpReg shfl_bfly(const WarpReg& a, unsigned lane_mask) {
  const unsigned b = lane_mask & 0x1Fu;
  WarpReg d{};
  for (unsigned lane = 0; lane < 32; ++lane) d[lane] = a[lane ^ b];
  return d;
}

// movmatrix.sync.aligned.m8n8.trans.b16. Lane L holds row L/4, columns 2(L%4) (low half) and
// 2(L%4)+1 (high half) of M; it receives M^T in the same layout, i.e. M[2(L%4)][L/4] (low) and
// M[2(L%4)+1][L/4] (high). Element M[r][c] lives in lane 4r + c/2, half c%2. Bits move unchanged.
WarpReg movmatrix_trans(const WarpReg& a) {
  auto element = [&a](unsigned r, unsigned c) -> std::uint32_t {
    const std::uint32_t word = a[4 * r + c / 2];
    return (c % 2 == 0) ? (word & 0xFFFFu) : (word >> 16);
  };
  WarpReg d{};
  for (unsigned lane = 0; lane < 32; ++lane) {
    const unsigned row = lane / 4, col = 2 * (lane % 4);
    d[lane] = element(col, row) | (element(col + 1, row) << 16);
  }
  return d;
}

// PTX ISA shfl.sync: bval = b[4:0], cval = c[4:0], segmask = c[12:8]; maxLane = (lane & segmask) |
// (cval & ~segmask), minLane = lane & segmask; up: j = lane - bval, valid when j >= maxLane; down:
// j = lane + bval, bfly: j = lane ^ bval, idx: j = minLane | (bval & ~segmask), valid when
// j <= maxLane. An invalid j leaves the lane's own value.
ShflSource shfl_source(ShflKind kind, unsigned lane, std::uint32_t b, std::uint32_t c) {
  const int bval = static_cast<int>(b & 0x1Fu), cval = static_cast<int>(c & 0x1Fu), segmask = static_cast<int>((c >> 8) & 0x1Fu);
  const int l = static_cast<int>(lane & 0x1Fu);
  const int max_lane = (l & segmask) | (cval & ~segmask), min_lane = l & segmask;
  int j = l;
  bool valid = false;
  switch (kind) {
    case ShflKind::up:
      j = l - bval;
      valid = j >= max_lane;
      break;
    case ShflKind::down:
      j = l + bval;
      valid = j <= max_lane;
      break;
    case ShflKind::bfly:
      j = l ^ bval;
      valid = j <= max_lane;
      break;
    case ShflKind::idx:
      j = min_lane | (bval & ~segmask);
      valid = j <= max_lane;
      break;
  }
  if (!valid) j = l;
  return {static_cast<unsigned>(j), valid};
}

}  // namespace rrswin
