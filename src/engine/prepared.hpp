// Internal to src/engine: the prepared weight image and the per-f16 epilogue tables.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "engine/gemm.hpp"
#include "model/layer.hpp"

namespace rrswin::engine {

struct PreparedWeights {
  // Phases 1..10 (facts C2): head h, phase p's B (32 x 32), p = 1..10 (index 0 unused).
  std::array<std::array<BOperand, 11>, golden::kHeads> qv;
  // Phase 11's C seeds per head: [query r][key c], 64 x 96 (facts E6).
  std::array<std::vector<f16_t>, golden::kHeads> score_bias;
  // Phases 13..20 (facts C7): Wo of head p-13, 32 x 160.
  std::array<BOperand, golden::kHeads> wo;
  // MLP chunk c (facts C9, C11): the odd phase's banded B (160 x 32, k = 32 s + k'), its C seed
  // b1_c (32 f16), and the even phase's B (32 x 160).
  std::array<BOperand, golden::kChunks> w1, w2;
  std::array<std::array<f16_t, 32>, golden::kChunks> b1;
  // Phase 61 (facts C12): 160 x 16 and the seed b61.
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
  // E61's exponential of an f16 difference d = l_i - max (facts C14.4):
  // ex2.approx.ftz(mul.ftz(f32(d), log2 e)), the golden expression itself.
  std::array<float, 65536> e61_exp;
};
const EpilogueTables& epilogue_tables();

}  // namespace rrswin::engine
