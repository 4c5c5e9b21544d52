// Internal to src/engine: the prepared weight image and the per-f16 epilogue tables.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "engine/gemm.hpp"
#include "model/layer.hpp"

namespace rrswin::engine {

// The B operands and C seeds of one weight image, any layer the fused block takes
// (engine/layer_engine.hpp layer_parts): the arrays are sized for enc5's dimensions, the
// largest (C = 160, 8 heads, 20 chunks), and a layer fills the first heads / stem phases / chunks
// of its row (model/layer_spec.hpp). Phase numbers are the layer's own (its program).
struct PreparedWeights {
  // The stem phases (facts C2): head h, stem phase i's B (32 x 32), i = 1..2C/32 (index 0 unused),
  // phase number first_stem() - 1 + i.
  std::array<std::array<BOperand, 2 * golden::kChannels / 32 + 1>, golden::kHeads> qv;
  // The score phase's C seeds per head: [query r][key c], 64 x 96 (facts E6).
  std::array<std::vector<f16_t>, golden::kHeads> score_bias;
  // The projection phases (facts C7): Wo of head h, 32 x C.
  std::array<BOperand, golden::kHeads> wo;
  // MLP chunk c (facts C9, C11): the odd phase's banded B (C x 32, k = 32 s + k'), its C seed
  // b1_c (32 f16), and the even phase's B (32 x C).
  std::array<BOperand, golden::kChunks> w1, w2;
  std::array<std::array<f16_t, 32>, golden::kChunks> b1;
  // The final phase (facts C12: enc5's 61): C x 16 and the seed b61.
  BOperand w61;
  std::array<f16_t, golden::kLogits> b61;
};

// Functions of one f16 computed by the golden model itself for all 65536 inputs (tables.cpp).
struct EpilogueTables {
  std::array<f16_t, 65536> e11;               // golden::e11_expval (facts C4 steps 1..5)
  std::array<std::uint8_t, 65536> e11_clamp;  // bit 0: clamp low fired, bit 1: clamp high
  std::array<f16_t, 65536> act;               // golden::activation (facts C10)
  std::array<std::uint8_t, 65536> act_clamp;
  std::array<f16_t, 65536> rcp;        // rcp_f16 (E11 step 9's reciprocal, facts D4)
  std::array<e4m3_t, 65536> q8_ada;    // f16_to_e4m3 with profile_ada's NaN rule
  std::array<e4m3_t, 65536> q8_zluda;  // ... with profile_zluda's
  // q8 of the activation (q8_ada[act[h]], q8_zluda[act[h]]): the MLP's act-then-pack in one lookup.
  std::array<e4m3_t, 65536> act_q8_ada, act_q8_zluda;
  // E61's exponential of an f16 difference d = l_i - max (facts C14.4):
  // ex2.approx.ftz(mul.ftz(f32(d), log2 e)), the golden expression itself.
  std::array<float, 65536> e61_exp;
  std::array<f16_t, 65536> e62_sigmoid;  // golden::e62_sigmoid (the merge layers' gate, DOC1 E32(c))
  std::array<float, 65536> dec0_tanh;    // golden::dec0_tanh(f16_to_f32(h)) (dec0's E19(d))
};
const EpilogueTables& epilogue_tables();

}  // namespace rrswin::engine
