// The named readings of the spec's open questions (facts §I, the unsettled [conflict] items of §H,
// the Errata, and the ones found while writing the golden model). Each reading is a typed field
// with the default the docs argue for (docs/readings.md §1), and a registry entry so that
// `rrswin run --reading NAME=VALUE` can change it at run time and `rrswin readings` can list it.
// The model consults each field in exactly one place: where its question lives.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "numerics/profile.hpp"

namespace rrswin {

// facts C13.4 / Errata 1: which fragment register goes to which arena word (E60).
enum class ArenaOrder { fragment, natural };
// Errata 2: the prologue's word-indexed loads (facts B1) read the input arena with the same
// permutation as E60 writes it (fragment) or token by token (natural).
enum class PrologueLoadOrder { fragment, natural };
// facts B6 / §I 8: which 32 pixels are token rows 64..95, in which order.
enum class PrologueHalo {
  ring_tblr,    // 10x10 ring without corners: top row, bottom row, left column, right column
  ring_lrtb,    // same ring: left column, right column, top row, bottom row
  rows_around,  // pixel rows y0-2, y0-1, y0+8, y0+9 (x0..x0+7): vertical pairs like the window
};
// facts B6: the value of a token row whose pixel lies outside the frame.
enum class PrologueFill { zero, mirror, clamp };
// facts B4 / Errata 4: the prologue norm's epsilon.
enum class PrologueEps { e2m13, e2m10 };
// facts B4: whether the prologue normalises at all (W[0,320) as an RMS gain) or stages X as is.
enum class PrologueNorm { rms_gain, identity };
// facts B4 / C8.2 / §I 2: the in-lane 20-term f16x2 sum tree of an RMS norm (per row; T_i = the
// squares of n-tile i's column pair held by the lane). even_odd_quads and planes are the same tree
// written two ways (the two sources' descriptions; docs/readings.md gives the proof): each reading
// lists it once (readings.cpp make_tree), so a reading has three distinct alternatives.
enum class SumTree {
  even_odd_quads,  // even = (q(0,2,4,6) + q(8,10,12,14)) + (T16+T18), odd alike, then even + odd
  planes,          // SWM's plane grouping: A_q = T(4q)+T(4q+2), B_q = T(4q+1)+T(4q+3);
                   // ((A0+A1)+(A2+A3))+A4 and the same of B, then A + B
  sequential,      // ((T0+T1)+T2)+...+T19
  pairwise,        // balanced: adjacent pairs, then pairs of pairs, ... (odd one carried)
};
// facts C6 / §H 4 / §I 1: the residual x in phase 13's C.
enum class C13Residual { raw_input, staged };
// facts C6 / Errata 7 / §I 1, 3: the table chunk (16-byte word) that feeds n-tile nt.
enum class TableChunkOrder { nt, nt_plus_19, nt_plus_1 };
// facts C10 / §I 4: the residual in phase 22's C.
enum class E21Residual { d20, normed };
// facts C13.3 / §I 5: DOC5's "laneid > 15" term in the E60 store guard.
enum class E60LaneGuard { off, laneid_gt_15 };
// facts C14.1 / Errata 5: the guard on the second word of a shared record.
enum class E61RecordGuard { t_le_1, none };
// facts C14.4 / §I 6: where the softmax's exponentials are rounded to f16.
enum class E61ExpRounding { f32_sum, f16_sum };
// facts C14.4: the order of the f32 sum of the 10 exponentials.
enum class E61SumOrder { sequential, pairs, tree };
// facts C14.4: how the weight w_i = e_i / sum is formed.
enum class E61WeightProduct { f16_mul, f32_mul };
// facts C14.6: which weight multiplies which tap.
enum class E61TapMap { raster, column_major };
// facts C14.6: the fma pairing: pairs (0,1)(2,3)(4,5)(6,7) then scalar 8, or scalar 0 then pairs
// (1,2)(3,4)(5,6)(7,8).
enum class E61Pairing { last_single, first_single };
// facts C14.4/.6: softmax over all 10 logits (w9 unused, a fade toward 0) or over logits 0..8.
// filter-logits: the softmax over all ten logits, over logits 0..8, or its maximum over the nine
// values "3 max.f16x2 + 2 max.f16" reduce with all ten exponentials summed (docs/readings.md).
enum class E61Logits { ten, nine, max_nine };
// Errata 3 / facts C14.5: the neighbour coordinate rule at the frame border.
enum class E61Border { reflect101, sentinel1, clamp };
// facts D6 / §I 7 / numerics.md: the ex2/div.approx model (only one is implemented).
enum class ApproxModel { correctly_rounded };
// numerics.md "Not covered by the data" (docs/readings.md §3): the mma's corners. These are
// instruction-level readings: their values live in Profile::corners (numerics/profile.hpp), which
// is what src/numerics reads; `profile` (the default) keeps the profile's own value, any other
// value replaces it through with_readings().
enum class MmaZeroSignReading { profile, ieee, plus };
enum class MmaNanOperandReading { profile, any, nonzero_partner };
enum class MmaNanPayloadReading { profile, canonical, quiet_c };
enum class MmaOverflowReading { profile, inf, saturate };

struct Readings {
  ArenaOrder arena_order = ArenaOrder::fragment;
  PrologueLoadOrder prologue_load_order = PrologueLoadOrder::fragment;
  PrologueHalo prologue_halo = PrologueHalo::ring_tblr;
  PrologueFill prologue_fill = PrologueFill::zero;
  PrologueEps prologue_eps = PrologueEps::e2m13;
  PrologueNorm prologue_norm = PrologueNorm::rms_gain;
  SumTree prologue_sum_tree = SumTree::planes;
  SumTree e20_sum_tree = SumTree::even_odd_quads;
  C13Residual c13_residual = C13Residual::raw_input;
  TableChunkOrder t1_chunk_order = TableChunkOrder::nt;
  TableChunkOrder g2_chunk_order = TableChunkOrder::nt;
  TableChunkOrder t3_chunk_order = TableChunkOrder::nt;
  E21Residual e21_residual = E21Residual::d20;
  E60LaneGuard e60_lane_guard = E60LaneGuard::off;
  E61RecordGuard e61_record_guard = E61RecordGuard::t_le_1;
  E61ExpRounding e61_exp_rounding = E61ExpRounding::f32_sum;
  E61SumOrder e61_sum_order = E61SumOrder::sequential;
  E61WeightProduct e61_weight_product = E61WeightProduct::f16_mul;
  E61TapMap e61_tap_map = E61TapMap::raster;
  E61Pairing e61_pairing = E61Pairing::last_single;
  E61Logits e61_logits = E61Logits::ten;
  E61Border e61_border = E61Border::reflect101;
  ApproxModel approx_model = ApproxModel::correctly_rounded;
  MmaZeroSignReading mma_zero_sign = MmaZeroSignReading::profile;
  MmaNanOperandReading mma_nan_operand = MmaNanOperandReading::profile;
  MmaNanPayloadReading mma_nan_payload = MmaNanPayloadReading::profile;
  MmaOverflowReading mma_overflow = MmaOverflowReading::profile;
};

// The profile with the mma-* readings of r applied to its corners (a copy; its name stays). Every
// entry point that takes a profile and readings (run_frame, rrswin eval) runs the result.
Profile with_readings(const Profile& p, const Readings& r);
// Whether a reading is an instruction-level one (the mma-* corners): `rrswin settle` does not search
// them (they change results only on NaN, infinite, overflowing or signed-zero data).
bool is_instruction_reading(std::string_view name);
// The value an instruction-level reading has in profile p (its registry spelling, never
// "profile"); "" for another name.
std::string profile_reading_value(const Profile& p, std::string_view name);

struct ReadingInfo {
  std::string name;                 // e.g. "arena-order"
  std::vector<std::string> values;  // allowed values, the default first
  std::string default_value;
  std::string question;  // one line
  std::string where;     // spec reference, e.g. "facts C13.4, Errata 1"
  std::string settle;    // the capture of the original that would settle it
};

// Every reading, in the kernel's order of where it is consulted.
const std::vector<ReadingInfo>& reading_registry();

// A reading's name by role (issue 32: projection-residual, mlp-*, arena-*, filter-*, sigmoid-*) for
// the name it had before, which carried enc5's epilogue numbers (c13-residual, e20-sum-tree,
// e21-residual, e60-lane-guard, e61-*, e62-*); any other name unchanged. Every place that reads a
// reading's name (set_reading, set_layer_reading, reading_value, reading_layers, settle's --only)
// accepts the old names through it, so captures and scripts written with them keep working.
std::string_view canonical_reading_name(std::string_view name);
// The same for a reading's value: merge-output-layout's arena-words was e60-words.
std::string_view canonical_reading_value(std::string_view name, std::string_view value);

// Sets one reading by name and value (as `--reading NAME=VALUE` gives them). Returns false and
// fills *error (when given) with a message naming the allowed values on an unknown name or value.
bool set_reading(Readings& r, std::string_view name, std::string_view value, std::string* error);
// Parses "NAME=VALUE".
bool set_reading(Readings& r, std::string_view assignment, std::string* error);
// The current value of a reading as its registry spelling ("" for an unknown name).
std::string reading_value(const Readings& r, std::string_view name);

}  // namespace rrswin
