// The launches `rrswin settle --oracle FILE.ptx` interprets the original kernel on (issue 20 §5;
// docs/readings.md §6): inputs on which every pair of values of every searched reading, and every
// pair of profiles, gives different output bytes on at least one launch
// (tests/oracle_launches_test.cpp checks exactly that with the fast engine, bit-identical to golden).
// The three synthetic frames settle most readings; the sums' orders (prologue-sum-tree,
// mlp-norm-sum-tree, filter-sum-order) need inputs built for them from the alternatives' definitions:
//   * sum_tree_arena: tokens whose squares span a wide range of magnitudes, so that the 20-term
//     in-lane f16 trees (model/sum_tree.hpp) round differently, in the prologue (the input tokens,
//     facts B4) and in E20 (D20 = the input residual + the attention output, facts C6/C8);
//   * with_constant_logits: phase 61's B tiles zero, so that every token's ten E61 logits are the
//     b61 record (facts C12: D = C + A·0); logits chosen so that the f32 exponential sums of two
//     orders give 1/sum on different sides of an f16 rounding point (facts C14.4).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/texture_surface.hpp"
#include "model/weight_image.hpp"
#include "numerics/types.hpp"

namespace rrswin {

struct OracleLaunch {
  std::string name;  // what settle prints, e.g. "demo frame 40x23"
  std::string why;   // the readings it is in the set for
  int ex = 0, ey = 0, ox = 0, oy = 0;
  std::vector<std::uint8_t> input_arena;  // 5·ey·ex·32 bytes
  WeightImage weights;
  Texture texture;  // ex × ey, clamp
};

// The constructed launches' constants, found by the searches docs/readings.md §6 describes: the
// sum-tree frame's extents and seed, and two logit vectors (f16 bits): with A, sequential differs
// from pairs and from tree; with B, tree differs from sequential and from pairs.
inline constexpr int kSumTreeExtentX = 8, kSumTreeExtentY = 8;
inline constexpr std::uint64_t kSumTreeSeed = 1;
inline constexpr std::array<f16_t, 10> kSoftmaxLogitsA = {0x3c5c, 0x3bb0, 0x35e0, 0xc14b, 0x41ff, 0xbe12, 0xbc22, 0x3a48, 0xc13a, 0x4085};
inline constexpr std::array<f16_t, 10> kSoftmaxLogitsB = {0x43c8, 0xc288, 0xb914, 0x4336, 0xbe4c, 0xa480, 0x3b0c, 0x4016, 0xbc98, 0x3d38};

// The launch set, in the order settle runs it.
std::vector<OracleLaunch> oracle_launches();

// The sum-tree input arena: every byte an e4m3 code (never NaN) drawn per arena byte from `seed`:
// mostly small codes (exponent field 3..8, about 2^-4..2^2), one in 24 a large one (field 10..12,
// about 2^3..2^5·1.875), random signs: sums of squares up to a few 10^4, below f16's 65504.
std::vector<std::uint8_t> sum_tree_arena(int ex, int ey, std::uint64_t seed);
// `w` with phase 61's five B tiles (wmap::w61, 2560 bytes) zero and the b61 record's logit columns
// 0..9 set to `logits` (columns 10..15 keep their values: E61 reads 0..9, facts C14.1).
WeightImage with_constant_logits(const WeightImage& w, const std::array<f16_t, 10>& logits);

}  // namespace rrswin
