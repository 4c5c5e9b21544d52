// Fragment moves of the kernel, derived from the layout definitions of src/layout (fragment.hpp,
// weight_tile.hpp): the "universal repack" of facts §0.4 (a D tile's registers become the next A
// or B operand in the same lane, no shuffles) and the per-lane 16-byte B loads of the weight
// image. The static_asserts tie every index written here to the layout functions that the golden
// model uses, so a layout change that the kernel does not follow fails to compile.
#pragma once
#include <cstdint>

#include "cuda/ptx_ops.cuh"
#include "layout/fragment.hpp"
#include "layout/weight_tile.hpp"

namespace rrswin::cuda {

using ptx::u16;
using ptx::u32;

// A D tile of one 16-row m-tile: d[nt][rh] = f16x2 (row g + 8rh, columns 8nt + 2t, +1).
// Operand registers: A = 4 u32 (m16 x k32 e4m3), B = 2 u32 (k32 x n8 e4m3).

// The n-tile (within one 32-wide k-slice) whose column pair (2t, 2t+1) fills bytes 2jp, 2jp+1 of
// an A register o (h = o >> 1) or B register b (h = b) in pair order: pair_k(t, 2jp, h) =
// 8 (2jp + h) + 2t, so the D columns 2t, 2t+1 of that n-tile are exactly the two bytes.
RRSWIN_HD constexpr int repack_nt(int h, int jp) { return layout::pair_k(0, 2 * jp, h) >> 3; }

namespace detail {
constexpr bool repack_matches_layout() {
  for (int t = 0; t < 4; ++t)
    for (int h = 0; h < 2; ++h)
      for (int jp = 0; jp < 2; ++jp) {
        // low byte = column 2t of n-tile repack_nt, high byte = column 2t+1 (the D pair's halves)
        if (layout::pair_k(t, 2 * jp, h) != 8 * repack_nt(h, jp) + 2 * t) return false;
        if (layout::pair_k(t, 2 * jp + 1, h) != 8 * repack_nt(h, jp) + 2 * t + 1) return false;
      }
  // A register o covers row g + 8(o&1): the D register rh = o & 1 of the same lane.
  for (int o = 0; o < 4; ++o)
    if (layout::a_row(0, o) != 8 * (o & 1)) return false;
  return true;
}
// The lane's 16 bytes of a 512-byte B tile: n-tile 2*tile at +0 (registers b = 0, 1 at +0, +4),
// n-tile 2*tile+1 at +8; bytes j in order (facts E2, layout/weight_tile.hpp).
RRSWIN_HD constexpr std::uint32_t lane_b_offset(int lane) { return layout::waddr_in_tile(layout::pair_k(lane & 3, 0, 0), lane >> 2); }
constexpr bool b_load_matches_layout() {
  for (int lane = 0; lane < 32; ++lane)
    for (int half = 0; half < 2; ++half)
      for (int b = 0; b < 2; ++b)
        for (int j = 0; j < 4; ++j) {
          const int k = layout::pair_k(lane & 3, j, b), n = (lane >> 2) + 8 * half;
          if (layout::waddr_in_tile(k, n) != lane_b_offset(lane) + 8u * half + 4u * b + j) return false;
        }
  return true;
}
}  // namespace detail
static_assert(detail::repack_matches_layout(), "the D->A/B repack no longer matches layout::pair_k");
static_assert(detail::b_load_matches_layout(), "the 16-byte B loads no longer match layout::waddr");
using detail::lane_b_offset;

// q8 of the two D registers that make one operand register: bytes 0,1 from `lo_pair`, bytes 2,3
// from `hi_pair` (cvt.rn.satfinite.e4m3x2.f16x2 twice).
__device__ __forceinline__ u32 pack_q8(u32 lo_pair, u32 hi_pair) {
  return static_cast<u32>(ptx::cvt_e4m3x2(lo_pair)) | (static_cast<u32>(ptx::cvt_e4m3x2(hi_pair)) << 16);
}

// A operand of k-slice s (n-tiles 4s..4s+3) of a D tile: register o = q8 of row half o & 1.
template <int NT>
__device__ __forceinline__ void repack_a(const u32 (&d)[NT][2], int s, u32 (&a)[4]) {
#pragma unroll
  for (int o = 0; o < 4; ++o) a[o] = pack_q8(d[4 * s + repack_nt(o >> 1, 0)][o & 1], d[4 * s + repack_nt(o >> 1, 1)][o & 1]);
}

// B operand of key n-tile nb from a D tile whose ROWS are the B columns (phase 11's Q^T): B
// column g = D row 8nb + g = row half nb & 1 of m-tile nb >> 1 (the caller passes that tile).
__device__ __forceinline__ void repack_b_rows(const u32 (&d)[4][2], int rh, u32 (&b)[2]) {
#pragma unroll
  for (int r = 0; r < 2; ++r) b[r] = pack_q8(d[repack_nt(r, 0)][rh], d[repack_nt(r, 1)][rh]);
}

// The two B operands (n-tiles 2*tile, 2*tile+1) a lane loads with one 16-byte load.
struct BPair {
  u32 lo[2], hi[2];
};
__device__ __forceinline__ BPair load_b_pair(const std::uint8_t* tile_base, int lane) {
  const uint4 v = *reinterpret_cast<const uint4*>(tile_base + lane_b_offset(lane));
  return {{v.x, v.y}, {v.z, v.w}};
}

// D += A B over one k-step for one n-tile, in place.
__device__ __forceinline__ void mma_acc(u32 (&d)[2], const u32 (&a)[4], const u32 (&b)[2]) {
  u32 r[2];
  ptx::mma_e4m3(r, a, b, d);
  d[0] = r[0];
  d[1] = r[1];
}

}  // namespace rrswin::cuda
