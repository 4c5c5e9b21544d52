// The 61 phases as a table, built from the corrected facts rather than from DOC5's prose formulas:
// the weight map of facts E4 (eight 27648-byte head slots, facts A2/H1; MLP chunk stride 10304,
// facts C1-note), the real shapes of spec §2.2, and the epilogue statement counts of spec §2.1.
// The statement ranges are not typed in: they follow from s7554 (phase 1's first mma), one
// statement per mma and the epilogue counts (spec §0: an epilogue is everything between one phase's
// last mma and the next phase's first), which the tests check against every row spec §2.1 prints.
#include "model/phase_program.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "model/weight_image.hpp"

namespace enc5 {
namespace {

// The tool prints a block of v4 loads at imm, imm+512, ... as "first..last+12" (spec §2.1; last+12
// is the last u32 of lane 0's 16-byte load) and a block of u32 record loads as "first..last".
constexpr std::uint32_t v4_end(std::uint32_t first, int loads) { return first + 512u * (loads - 1) + 12u; }
constexpr std::uint32_t u32_end(std::uint32_t first, int loads) { return first + 16u * (loads - 1); }

// Epilogue statement counts, spec §2.1 "epi" column and §3's epilogue table.
int epilogue_statements(int p) {
  if (p <= 9) return 7;          // E1..E9: next-B loads only
  if (p == 10) return 171;       // E10: phase 11's C seeds + packs
  if (p == 11) return 3844;      // E11: softmax, V-transpose, packs
  if (p == 12) return 274;       // E12: stage D12, T1 table add
  if (p <= 19) return 27;        // E13..E19: shared A fetch + next B
  if (p == 20) return 1029;      // E20: RMS norm
  if (p == 21) return 321;       // E21: activation + T3 table add
  if (p == 60) return 299;       // E60: arena scatter
  if (p == 61) return 234;       // E61: final epilogue
  return (p % 2) ? 172 : 92;     // E23..E59: activation; E22..E58: re-emit N + next B/C
}

struct Storage {
  std::array<Phase, kPhaseCount> phases{};
  std::array<std::array<char, 24>, kPhaseCount> stmt_text{};
};

Phase make_phase(int p) {
  Phase ph{};
  ph.number = p;
  ph.head = -1;
  ph.chunk = -1;
  ph.c_chain_from = 0;
  ph.epilogue_statements = epilogue_statements(p);
  ph.warps = p <= 12 ? 8 : 4;  // facts A7: z >= 4 exits after E12
  ph.relative_to_slot = p <= 11;  // facts E5, spec §2.3 / U7
  ph.b = OperandSource::weights;

  if (p <= 10) {
    // Phases 1..10 (spec §2.2 row 1-10; facts C1/C2): chain A = Q (odd p), chain B = V (even p);
    // k-step ks = (p-1)/2 for both; two 512-byte B tiles per k-step at slot + Wq/Wv + 1024*ks.
    const int ks = (p - 1) / 2;
    ph.kind = PhaseKind::qv_chain;
    ph.tool = {96, 32, 32};
    ph.real = {96, 32, 32};
    ph.a = OperandSource::staged_input;
    ph.c = p <= 2 ? OperandSource::zero : OperandSource::previous_d;
    ph.c_chain_from = p <= 2 ? 0 : p - 2;
    ph.weight_begin = ((p % 2) ? wmap::wq(0) : wmap::wv(0)) + 1024u * ks;
    ph.weight_end = v4_end(ph.weight_begin, 2);
    ph.a_label = "staged h1 k-slice";
    ph.b_label = (p % 2) ? "Wq (slot z)" : "Wv (slot z)";
    ph.c_label = p <= 2 ? "0" : "D(p-2)";
  } else if (p == 11) {
    // Score (spec §2.2; facts C3): both operands are q8(D9) packed in E10; C = the 12288-byte
    // score bias read in E10 as 24 v4 loads at slot + 10560 + 512*i (spec §3/E10).
    ph.kind = PhaseKind::score;
    ph.tool = {64, 96, 32};
    ph.real = {64, 96, 32};
    ph.a = OperandSource::registers;
    ph.b = OperandSource::registers;
    ph.c = OperandSource::weights;
    ph.bias_begin = wmap::score_bias(0);
    ph.bias_end = v4_end(ph.bias_begin, 24);
    ph.a_label = "q8(D9) rows 0..63";
    ph.b_label = "q8(D9) (Q^T)";
    ph.c_label = "score bias (slot z)";
  } else if (p == 12) {
    // P V (spec §2.2: 64x32x96 = 4 m-tiles x 4 n-tiles x 3 k-steps; facts C5). C = %r11547 = 0.
    ph.kind = PhaseKind::pv;
    ph.tool = {192, 96, 96};
    ph.real = {64, 32, 96};
    ph.band = true;
    ph.a = OperandSource::registers;
    ph.b = OperandSource::registers;
    ph.c = OperandSource::zero;
    ph.a_label = "q8(P) (E11)";
    ph.b_label = "q8(V) movmatrix";
    ph.c_label = "0";
  } else if (p <= 20) {
    // Output projection (facts C7): phase 13+j reads head j's staged O and Wo_j = slot j's tail.
    ph.kind = PhaseKind::out_projection;
    ph.tool = {16, 160, 32};
    ph.real = {16, 160, 32};
    ph.head = p - 13;
    ph.a = OperandSource::shared_heads;
    ph.c = p == 13 ? OperandSource::registers : OperandSource::previous_d;
    ph.c_chain_from = p == 13 ? 0 : p - 1;
    ph.weight_begin = wmap::wo(ph.head);
    ph.weight_end = v4_end(ph.weight_begin, 10);
    ph.a_label = "smem head m-tile z";
    ph.b_label = "Wo_h";
    ph.c_label = p == 13 ? "f16(T1 + x) (E12)" : "D(p-1)";
  } else if (p <= 60 && p % 2 == 1) {
    // MLP up-projection chunk c (facts C9): 4 chains x 5 k-steps over W1_c, seeded with b1_c.
    ph.kind = PhaseKind::mlp_up;
    ph.tool = {80, 160, 160};
    ph.real = {16, 32, 160};
    ph.band = true;
    ph.chunk = (p - 21) / 2;
    ph.a = OperandSource::registers;
    ph.c = OperandSource::weights;
    ph.weight_begin = wmap::w1(ph.chunk);
    ph.weight_end = v4_end(ph.weight_begin, 10);
    ph.bias_begin = wmap::b1(ph.chunk);
    ph.bias_end = u32_end(ph.bias_begin, 4);
    ph.a_label = "q8(N) (E20 packs)";
    ph.b_label = "W1_c (banded)";
    ph.c_label = "b1_c records";
  } else if (p <= 60) {
    // MLP down-projection chunk c (facts C11): chained over chunks, phase 22 seeded by E21.
    ph.kind = PhaseKind::mlp_down;
    ph.tool = {16, 160, 32};
    ph.real = {16, 160, 32};
    ph.chunk = (p - 21) / 2;
    ph.a = OperandSource::registers;
    ph.c = p == 22 ? OperandSource::registers : OperandSource::previous_d;
    ph.c_chain_from = p == 22 ? 0 : p - 2;
    ph.weight_begin = wmap::w2(ph.chunk);
    ph.weight_end = v4_end(ph.weight_begin, 10);
    ph.a_label = "q8(act(D(p-1)))";
    ph.b_label = "W2_c";
    ph.c_label = p == 22 ? "f16(T3 + D20) (E21)" : "D(p-2)";
  } else {
    // Phase 61 (facts C12): 2 chains x 5 k-steps over W61, seeded with the two b61 records.
    ph.kind = PhaseKind::logits;
    ph.tool = {80, 80, 160};
    ph.real = {16, 16, 160};
    ph.band = true;
    ph.a = OperandSource::registers;
    ph.c = OperandSource::weights;
    ph.weight_begin = wmap::w61;
    ph.weight_end = v4_end(ph.weight_begin, 5);
    ph.bias_begin = wmap::b61;
    ph.bias_end = u32_end(ph.bias_begin, 2);
    ph.a_label = "q8(D60) (E60 packs)";
    ph.b_label = "W61 (banded)";
    ph.c_label = "b61 records";
  }
  ph.m_tiles = ph.real.m / 16;
  ph.n_tiles = ph.real.n / 8;
  ph.k_steps = ph.real.k / 32;
  ph.mma = ph.m_tiles * ph.n_tiles * ph.k_steps;
  return ph;
}

const Storage& storage() {
  static const Storage s = [] {
    Storage st;
    int next = kFirstMmaStatement;
    for (int p = 1; p <= kPhaseCount; ++p) {
      Phase ph = make_phase(p);
      ph.stmt_first = next;
      ph.stmt_last = next + ph.mma - 1;  // spec §0: a 4-line mma.sync counts as one statement
      next = ph.stmt_last + 1 + ph.epilogue_statements;
      auto& text = st.stmt_text[p - 1];
      const int n = std::snprintf(text.data(), text.size(), "s%d-s%d", ph.stmt_first, ph.stmt_last);
      ph.stmt_range = std::string_view(text.data(), static_cast<std::size_t>(n));
      st.phases[p - 1] = ph;
    }
    return st;
  }();
  return s;
}

}  // namespace

const std::array<Phase, kPhaseCount>& phase_program() { return storage().phases; }

const Phase& phase(int number) {
  if (number < 1 || number > kPhaseCount)
    throw std::out_of_range("phase number " + std::to_string(number) + " is outside 1..61");
  return storage().phases[number - 1];
}

ByteRange weight_extent(const Phase& p, int z) {
  if (p.b != OperandSource::weights) return {0, 0};
  const std::uint32_t slot = p.relative_to_slot ? kHeadSlotBytes * static_cast<std::uint32_t>(z) : 0u;
  // v4 loads: the last immediate is weight_end - 12; lane 31 reads up to that + 16*31 + 16.
  return {slot + p.weight_begin, slot + p.weight_end - 12u + 512u};
}

ByteRange bias_extent(const Phase& p, int z) {
  if (p.c != OperandSource::weights) return {0, 0};
  const std::uint32_t slot = p.relative_to_slot ? kHeadSlotBytes * static_cast<std::uint32_t>(z) : 0u;
  if (p.kind == PhaseKind::score) return {slot + p.bias_begin, slot + p.bias_end - 12u + 512u};
  // u32 record loads at W + 4t + imm (spec §1.1 table loads): lane t = 3 ends at imm + 16.
  return {slot + p.bias_begin, slot + p.bias_end + 16u};
}

std::string_view to_string(PhaseKind k) {
  switch (k) {
    case PhaseKind::qv_chain: return "qv_chain";
    case PhaseKind::score: return "score";
    case PhaseKind::pv: return "pv";
    case PhaseKind::out_projection: return "out_projection";
    case PhaseKind::mlp_up: return "mlp_up";
    case PhaseKind::mlp_down: return "mlp_down";
    case PhaseKind::logits: return "logits";
    case PhaseKind::merge: return "merge";
  }
  return "?";
}

std::string_view to_string(OperandSource s) {
  switch (s) {
    case OperandSource::zero: return "zero";
    case OperandSource::staged_input: return "staged_input";
    case OperandSource::weights: return "weights";
    case OperandSource::previous_d: return "previous_d";
    case OperandSource::registers: return "registers";
    case OperandSource::shared_heads: return "shared_heads";
    case OperandSource::shared_merge: return "shared_merge";
  }
  return "?";
}

}  // namespace enc5
