// The kernel's 61 GEMM phases as data (spec §2.1/§2.2, facts C1, E4, E5). The golden model and
// the engine walk this table; nothing else hard-codes a phase's shape or offsets.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>

namespace enc5 {

enum class PhaseKind {
  qv_chain,        // 1..10: per head, chain A (Q, odd) / chain B (V, even), 96x32, one k-step each
  score,           // 11: S = bias + q8(Q[0..63]) q8(Q)^T, 64x96x32
  pv,              // 12: P V, 64x32x96 (3 chained k-steps)
  out_projection,  // 13..20: 16x160x32 per warp, head (p-13), chained over heads
  mlp_up,          // 21,23,..,59: 16x32x160 (4 chains x 5 k-steps), seeded with b1_c
  mlp_down,        // 22,24,..,60: 16x160x32, chained over chunks
  logits,          // 61: 16x16x160 (2 chains x 5 k-steps), seeded with b61
};

enum class OperandSource {
  zero,            // C = %r11547 = 0
  staged_input,    // A: the prologue's staged, normalised, requantised block input (shared)
  weights,         // B from W (or C from a W table/record)
  previous_d,      // C: the chain's previous D
  registers,       // operand built in registers by the previous epilogue (see the phase's note)
  shared_heads,    // A: head (p-13)'s m-tile z, staged by E12
};

struct Shape { int m, n, k; };

struct Phase {
  int number;                 // 1..61
  PhaseKind kind;
  Shape tool;                 // rr_layer_spec.py's M/N/K (spec §2.1), overcounted for banded phases
  Shape real;                 // the corrected shape (spec §2.2)
  int mma;                    // mma instructions in the phase
  int m_tiles, n_tiles, k_steps;   // real / 16, / 8, / 32: m_tiles*n_tiles*k_steps == mma
  bool band;                  // the tool's "band" grid marker (12, 21.., 61)
  int head;                   // 1..12: the head index is the warp (-1: per-warp m-tile phases)
  int chunk;                  // 21..60: MLP chunk c (-1 otherwise)
  OperandSource a, b, c;
  int c_chain_from;           // previous_d: the phase whose D seeds C (0 when none)
  // Weight image byte ranges [begin, end) relative to `relative_to_slot`, as spec §2.1 prints
  // them (end = last 16-byte load + 12, as in the spec's table; 0/0 when none).
  std::uint32_t weight_begin, weight_end;
  std::uint32_t bias_begin, bias_end;
  bool relative_to_slot;      // phases 1..11: offsets are relative to W + 27648*z (facts E5)
  int warps;                  // warps that run the phase: 8 (phases 1..12) or 4
  int epilogue_statements;    // the spec's "epi" column
  std::string_view stmt_range;  // the spec's statement range, e.g. "s7554-s7577"
};

inline constexpr int kPhaseCount = 61;
inline constexpr int kMmaTotal = 1306;
inline constexpr std::uint32_t kHeadSlotBytes = 27648;   // facts E4: slot = 27648*z
inline constexpr std::uint32_t kMlpChunkStride = 10304;  // facts C1-note

const std::array<Phase, kPhaseCount>& phase_program();
const Phase& phase(int number);  // 1-based

}  // namespace enc5
