// The kernel's 61 GEMM phases as data (spec §2.1/§2.2, facts C1, E4, E5). The golden model and
// the engine walk this table; nothing else hard-codes a phase's shape or offsets.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>

namespace rrswin {

enum class PhaseKind {
  qv_chain,        // 1..10: per head, chain A (Q, odd) / chain B (V, even), 96x32, one k-step each
  score,           // 11: S = bias + q8(Q[0..63]) q8(Q)^T, 64x96x32
  pv,              // 12: P V, 64x32x96 (3 chained k-steps)
  out_projection,  // 13..20: 16x160x32 per warp, head (p-13), chained over heads
  mlp_up,          // 21,23,..,59: 16x32x160 (4 chains x 5 k-steps), seeded with b1_c
  mlp_down,        // 22,24,..,60: 16x160x32, chained over chunks
  logits,          // 61: 16x16x160 (2 chains x 5 k-steps), seeded with b61
  // Layers with a patch merge only (model/layer_program.hpp; enc4's 61, enc3's 47): 16x32x4C per
  // warp and pass of a loop over 32-column blocks (DOC4 §3/E60(e), DOC3 §3/E46(e)).
  merge,
  // The fronts (model/layer_spec.hpp Front): enc0's input embedding, two 96x32x32 GEMMs with
  // biases; the decoders' patch expand, 48 x N x K per warp with one seed per n-tile.
  embedding,
  patch_expand,
};

enum class OperandSource {
  zero,          // C = %r11547 = 0
  staged_input,  // A: the prologue's staged, normalised, requantised block input (shared)
  weights,       // B from W (or C from a W table/record)
  previous_d,    // C: the chain's previous D
  registers,     // operand built in registers by the previous epilogue (see the phase's label)
  shared_heads,  // A: head (p-13)'s m-tile z, staged by E12
  shared_merge,  // A: the 2x2-merged tokens of the layer's requantised output, staged in shared
                 // memory by the last down-projection's epilogue (merge layers only)
  layer_input,   // A: the layer's input (+8) as the prologue loads it (the fronts' first GEMM)
};

struct Shape {
  int m, n, k;
};

// A byte range [begin, end) of the weight image.
struct ByteRange {
  std::uint32_t begin, end;
  std::uint32_t size() const { return end - begin; }
};

struct Phase {
  int number;  // 1..61
  PhaseKind kind;
  Shape tool;                     // rr_layer_spec.py's M/N/K (spec §2.1), overcounted for banded phases
  Shape real;                     // the corrected shape (spec §2.2)
  int mma;                        // mma instructions in the phase
  int m_tiles, n_tiles, k_steps;  // real / 16, / 8, / 32: m_tiles*n_tiles*k_steps == mma
  bool band;                      // the tool's "band" grid marker (12, 21,23,..,59, 61)
  // The head whose operands the phase reads: p-13 for phases 13..20 (Wo of head p-13, staged O of
  // head p-13). -1 otherwise: in phases 1..12 each warp z runs its own head z (weight slot
  // 27648*z, facts A7/E5), and phases 21..61 have no head.
  int head;
  int chunk;  // MLP chunk c = (p-21)/2 for phases 21..60 (-1 otherwise)
  // The first k of A the phase reads: phases 1..10 read staged k-slice (p-1)/2 of h1, k from
  // 32*((p-1)/2) (facts C2); every other phase reads its A from k = 0.
  int a_k0;
  OperandSource a, b, c;
  int c_chain_from;  // previous_d: the phase whose D seeds C (0 when none)
  // Weight image byte ranges as spec §2.1 prints them (the tool's convention, kept so that the
  // table can be compared with the spec line by line): begin = the first load's immediate,
  // end = the address of the last u32 word that lane 0 reads (last v4 load's immediate + 12, or
  // the last u32 load's immediate); the per-lane term 16*laneid (4*t for records) is dropped.
  // 0/0 when none. weight_extent()/bias_extent() give the bytes really read.
  std::uint32_t weight_begin, weight_end;
  std::uint32_t bias_begin, bias_end;
  bool relative_to_slot;        // phases 1..11: offsets are relative to W + 27648*z (facts E5)
  int warps;                    // warps that run the phase: 8 (phases 1..12) or 4
  int epilogue_statements;      // the spec's "epi" column: statements of epilogue E<number>
  int stmt_first, stmt_last;    // the phase's mma statements s<first>..s<last> (one per mma)
  std::string_view stmt_range;  // the same as the spec prints it, e.g. "s7554-s7577"
  // Short human-readable descriptions of the three operands (for `rrswin inspect`).
  std::string_view a_label, b_label, c_label;
};

inline constexpr int kPhaseCount = 61;
inline constexpr int kMmaTotal = 1306;
inline constexpr std::uint32_t kHeadSlotBytes = 27648;   // facts E4: slot = 27648*z
inline constexpr std::uint32_t kMlpChunkStride = 10304;  // facts C1-note
inline constexpr int kFirstMmaStatement = 7554;          // spec §2.1 phase 1 (facts A1)

const std::array<Phase, kPhaseCount>& phase_program();
const Phase& phase(int number);  // 1-based; throws std::out_of_range outside 1..61
// The phases by what they compute, found by their head / chunk fields (std::out_of_range for a
// head outside 0..7 or a chunk outside 0..19): phase 13 + head (Wo of the head), 21 + 2 chunk
// (W1_c, b1_c) and 22 + 2 chunk (W2_c).
const Phase& out_projection_phase(int head);
const Phase& mlp_up_phase(int chunk);
const Phase& mlp_down_phase(int chunk);

// The bytes a phase's B loads (weights) / C-seed loads (bias) really read, over all 32 lanes, as
// absolute offsets in W for warp z (z only matters for relative_to_slot phases). {0, 0} when the
// phase reads none. Derived from the tool's columns: a v4 load block ends at its last immediate
// + 512 (lane 31's 16 bytes), a u32 record block at its last immediate + 16 (lane t = 3).
ByteRange weight_extent(const Phase& p, int z = 0);
ByteRange bias_extent(const Phase& p, int z = 0);

std::string_view to_string(PhaseKind k);
std::string_view to_string(OperandSource s);

}  // namespace rrswin
