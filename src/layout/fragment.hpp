// The m16n8k32 fragment layouts as data (PTX ISA "Matrix Fragments for mma.m16n8k32", numerics.md,
// facts §0.4). g = lane >> 2, t = lane & 3.
//
// Two k labellings exist. The ISA's: A reg o byte j of lane (g,t) holds k = 4t + j + 16(o>>1).
// The kernel's "pair order" (facts §0.4): k = 2t + (j&1) + 16((j>>1)&1) + 8(o>>1). Both label the
// same bytes; A and B are relabelled alike, so the products are the same. Pair order is the order
// in which a D tile's columns land when it is repacked as the next A without shuffles, so it is the
// LOGICAL channel order of every matrix in the golden model. The ISA order matters only for the
// `ada` accumulation's two halves: isa_k_from_pair_k() connects the two.
#pragma once
#include <array>
#include <cstdint>

#include "base/hd.hpp"
#include "numerics/mma_fragment.hpp"

namespace rrswin::layout {

// The ISA's maps belong to the instruction (numerics/mma_fragment.hpp); layout uses them under
// its own names, next to the pair order built from the same fields.
using mma_fragment::a_element_isa;
using mma_fragment::a_row;
using mma_fragment::b_element_isa;
using mma_fragment::cd_element;
using mma_fragment::isa_k;
using mma_fragment::KCol;
using mma_fragment::RowCol;
using mma_fragment::RowK;

// The pair-order k of byte j (0..3) of a register with k-half bit h (A: reg >> 1, B: reg) in the
// lane with thread-in-group t. Unchecked and constexpr, like isa_k: the checked functions below and
// the CUDA kernel's fragment packs (src/cuda/fragments.cuh) are built on both.
RRSWIN_HD constexpr int pair_k(int t, int j, int h) { return 2 * t + (j & 1) + 16 * ((j >> 1) & 1) + 8 * h; }

// A: 4 registers x 4 bytes per lane.
RowK a_element_pair(int lane, int reg, int byte);
// a_element_pair of every (lane, reg, byte) as a table [lane][reg][byte], for the inner loops of
// the prologue's loads and E60's stores.
using APairTable = std::array<std::array<std::array<RowK, 4>, 4>, 32>;
const APairTable& a_element_pair_table();
// B: 2 registers x 4 bytes per lane.
KCol b_element_pair(int lane, int reg, int byte);

// Relabelling within one 32-wide k-step (a bijection on 0..31).
int isa_k_from_pair_k(int k_pair);
int pair_k_from_isa_k(int k_isa);
// isa_k_from_pair_k as a table (index = pair k), for the inner loops of the golden model and the
// engine's operand decoding.
const std::array<int, 32>& isa_k_of_pair_k();

// Inverse maps: where an element lives.
struct LaneRegByte {
  int lane;
  int reg;
  int byte;
};
LaneRegByte a_location_pair(int row, int k_pair);
LaneRegByte b_location_pair(int k_pair, int col);
LaneRegByte cd_location(int row, int col);  // byte = f16 half (0/1)

}  // namespace rrswin::layout
