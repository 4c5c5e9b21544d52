// The ISA's register layout of mma.m16n8k32 (PTX ISA "Matrix Fragments for mma.m16n8k32",
// numerics.md "mma", facts §0.4): which matrix element each byte / f16 half of a lane's fragment
// registers holds. It is part of the instruction's definition, so it lives with the mma
// (numerics/mma.hpp's fragment form is built on it); the kernel's own "pair order" labelling and
// the inverse maps are layout's (layout/fragment.hpp, which re-exports these under rrswin::layout).
// g = lane >> 2, t = lane & 3.
#pragma once

#include "base/hd.hpp"

namespace rrswin::mma_fragment {

// The ISA k of byte j (0..3) of a register with k-half bit h (A: reg >> 1, B: reg) in the lane
// with thread-in-group t. Unchecked and constexpr: the checked functions below and the CUDA
// kernel's fragment packs (src/cuda/fragments.cuh) are built on it.
RRSWIN_HD constexpr int isa_k(int t, int j, int h) { return 4 * t + j + 16 * h; }
// The row of A register `reg` (0..3) relative to the m-tile, for group g (facts §0.4: reg&1
// selects row g+8); the same holds for the C/D register index.
RRSWIN_HD constexpr int a_row(int g, int reg) { return g + 8 * (reg & 1); }

struct RowK {
  int row;
  int k;
};  // an A element
struct KCol {
  int k;
  int col;
};  // a B element
struct RowCol {
  int row;
  int col;
};  // a C/D element

// Every argument is range-checked (std::out_of_range): a wrong index would silently permute a
// whole layer.
// A: 4 registers x 4 bytes per lane: reg o byte j holds row g + 8(o&1), k = 4t + j + 16(o>>1).
RowK a_element_isa(int lane, int reg, int byte);
// B: 2 registers x 4 bytes per lane: reg b byte j holds column g, k = 4t + j + 16b.
KCol b_element_isa(int lane, int reg, int byte);
// C/D: 2 registers x 2 f16 halves per lane: reg r half h holds row g + 8r, column 2t + h.
RowCol cd_element(int lane, int reg, int half);

// Throws std::out_of_range naming `what` unless lo <= v < hi_exclusive (shared with layout's maps).
void check_index(int v, int lo, int hi_exclusive, const char* what);

}  // namespace rrswin::mma_fragment
