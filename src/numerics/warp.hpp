// Warp-level data movement on a 32-lane register file (numerics.md "Warp-level data movement").
#pragma once
#include <array>
#include <cstdint>

namespace rrswin {

using WarpReg = std::array<std::uint32_t, 32>;  // one b32 register, all 32 lanes

// shfl.sync.bfly.b32 d, a, b, 0x1f, -1: lane L receives a from lane L ^ b.
WarpReg shfl_bfly(const WarpReg& a, unsigned lane_mask);

// movmatrix.sync.aligned.m8n8.trans.b16: lane L holds M[L/4][2(L%4)] (low) and
// M[L/4][2(L%4)+1] (high); it receives M[2(L%4)][L/4] (low) and M[2(L%4)+1][L/4] (high).
WarpReg movmatrix_trans(const WarpReg& a);

// shfl.sync.{up,down,bfly,idx}.b32 for one lane (PTX ISA shfl.sync pseudocode): the source lane of
// `lane` given its b and c operands, and the predicate result (false: the lane keeps its own value).
// With mode bfly and c = 0x1f this is shfl_bfly's lane ^ b.
enum class ShflKind { up, down, bfly, idx };
struct ShflSource {
  unsigned lane;
  bool in_range;
};
ShflSource shfl_source(ShflKind kind, unsigned lane, std::uint32_t b, std::uint32_t c);

}  // namespace rrswin
