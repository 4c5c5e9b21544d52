// The readings registry (model/readings.hpp). The values' order follows each enum's order, so the
// index of a value in `values` is the enum's underlying value; the default is the enum value the
// Readings struct initialises the field to.
#include "model/readings.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace rrswin {
namespace {

struct Entry {
  ReadingInfo info;
  std::function<int(const Readings&)> get;
  std::function<void(Readings&, int)> set;
  std::vector<std::pair<std::string, int>> aliases;  // another name of value i (set_reading accepts it)
};

template <typename E>
Entry make(E Readings::*field, std::string name, std::vector<std::string> values, std::string question, std::string where,
           std::string settle) {
  Entry e;
  const Readings defaults{};
  e.info.name = std::move(name);
  e.info.values = std::move(values);
  e.info.default_value = e.info.values.at(static_cast<std::size_t>(defaults.*field));
  e.info.question = std::move(question);
  e.info.where = std::move(where);
  e.info.settle = std::move(settle);
  e.get = [field](const Readings& r) { return static_cast<int>(r.*field); };
  e.set = [field](Readings& r, int v) { r.*field = static_cast<E>(v); };
  return e;
}

// A sum-tree reading (prologue-sum-tree, mlp-norm-sum-tree). SumTree's `even_odd_quads` and `planes` are
// one tree: both add the same operands in the same 19 additions (proof: docs/readings.md
// "prologue-norm, prologue-eps, prologue-sum-tree"), so no input tells them apart and the reading
// lists the tree once, under the name its own source gives it (`first`: facts B4's plane grouping
// for the prologue, facts C8.2's even/odd quads for E20), accepting the other name as that value.
Entry make_tree(SumTree Readings::*field, std::string name, SumTree first, std::string question, std::string where, std::string settle) {
  Entry e;
  const bool planes = first == SumTree::planes;
  e.info.name = std::move(name);
  e.info.values = {planes ? "planes" : "even-odd-quads", "sequential", "pairwise"};
  e.aliases = {{planes ? "even-odd-quads" : "planes", 0}};
  e.info.question = std::move(question);
  e.info.where = std::move(where);
  e.info.settle = std::move(settle);
  e.get = [field](const Readings& r) {
    const SumTree t = r.*field;
    return t == SumTree::sequential ? 1 : t == SumTree::pairwise ? 2 : 0;
  };
  e.set = [field, first](Readings& r, int v) { r.*field = v == 1 ? SumTree::sequential : v == 2 ? SumTree::pairwise : first; };
  e.info.default_value = e.info.values.at(static_cast<std::size_t>(e.get(Readings{})));
  return e;
}

// The registry: one row per reading (a data table, hence its length).
const std::vector<Entry>& entries() {
  static const std::vector<Entry> k = [] {
    std::vector<Entry> v;
    v.push_back(make(
        &Readings::prologue_load_order, "prologue-load-order", {"fragment", "natural"},
        "Do the prologue's word-indexed loads map input-arena words straight to A fragment registers (as E60 writes them) or token by token?",
        "Errata 2, facts B1/B3, appendix §6 ADD",
        "the prologue's load index %r29786 in the PTX, or oracle stage w1 on a frame whose input arena is known"));
    v.push_back(make(&Readings::prologue_halo, "prologue-halo", {"ring-tblr", "ring-lrtb", "rows-around"},
                     "Which 32 pixels are token rows 64..95, and in which order?", "facts B6, §I 8",
                     "oracle stage w1 (rows 64..95 of D1) on a frame with distinct tokens"));
    v.push_back(make(&Readings::prologue_fill, "prologue-fill", {"zero", "mirror", "clamp"},
                     "What value does a token row whose pixel lies outside the frame get?", "facts B6, §I 8",
                     "oracle stage w1 of a border block (ctaid 0,0 with ox = oy = 0)"));
    v.push_back(make(&Readings::prologue_norm, "prologue-norm", {"rms-gain", "identity"},
                     "Does the prologue RMS-normalise the input with W[0,320) as a gain, or stage it as is?",
                     "facts B4, appendix §3 (UNVERIFIABLE)", "oracle stage w1 (any block)"));
    v.push_back(make(&Readings::prologue_eps, "prologue-eps", {"2^-13", "2^-10"},
                     "Which epsilon does the prologue norm add to the sum of squares?", "facts B4, Errata 4, appendix §3",
                     "oracle stage w1 on a block with a near-zero token"));
    v.push_back(make_tree(&Readings::prologue_sum_tree, "prologue-sum-tree", SumTree::planes,
                          "In which order does the prologue add a token's 20 f16x2 pairs of squares in-lane?", "facts B4, §I 2, §I 8",
                          "oracle stage w1 on tokens with wide-ranging channel magnitudes"));
    v.push_back(make(&Readings::c13_residual, "projection-residual", {"raw-input", "staged"},
                     "Is phase 13's residual x the raw decoded input or the staged (normalised, requantised) input?",
                     "facts C6, §H 4, §I 1, Errata 7", "oracle stage p13c"));
    v.push_back(make(&Readings::t1_chunk_order, "t1-chunk-order", {"nt", "nt+19", "nt+1"},
                     "Which 16-byte chunk of T1 seeds n-tile nt of phase 13's C?", "facts C6, §H 5, §I 1, Errata 7", "oracle stage p13c"));
    v.push_back(make_tree(&Readings::e20_sum_tree, "mlp-norm-sum-tree", SumTree::even_odd_quads,
                          "In which order does E20 add a row's 20 f16x2 pairs of squares in-lane?", "facts C8.2, §I 2",
                          "a stage after E20's rsqrt (the normed A of phase 21), or the p21 D"));
    v.push_back(make(&Readings::g2_chunk_order, "g2-chunk-order", {"nt", "nt+19", "nt+1"},
                     "Which 16-byte chunk of g2 scales n-tile nt in E20?", "facts C8.5, §I 3, Errata 7", "a stage of phase 21's A or D"));
    v.push_back(make(&Readings::t3_chunk_order, "t3-chunk-order", {"nt", "nt+19", "nt+1"},
                     "Which 16-byte chunk of T3 seeds n-tile nt of phase 22's C?", "facts C10, §I 3, Errata 7",
                     "a stage of phase 22's C seeds"));
    v.push_back(make(&Readings::e21_residual, "mlp-residual", {"d20", "normed"},
                     "Is the residual in phase 22's C the pre-norm D20 or the normed tile?", "facts C10, §I 4, appendix §4",
                     "a stage of phase 22's C seeds"));
    v.push_back(make(&Readings::arena_order, "arena-order", {"fragment", "natural"},
                     "Which fragment register does E60 store to which word of which pixel?", "facts C13.4, Errata 1, appendix §6",
                     "the arg048 dump of any block, or phase 61's A register list at s20056"));
    v.push_back(make(&Readings::e60_lane_guard, "arena-lane-guard", {"off", "laneid>15"},
                     "Does E60's store guard really drop lanes > 15 (pixels x0+4..x0+7)?", "facts C13.3, §I 5",
                     "the arg048 dump (are columns x0+4..x0+7 written?)"));
    v.push_back(make(&Readings::e61_record_guard, "filter-record-guard", {"t<=1", "none"},
                     "Do only lanes t <= 1 write a shared record's words 4..5, or do all lanes write word t+4?", "facts C14.1, Errata 5",
                     "the arg112 surface dump of any block"));
    v.push_back(make(&Readings::e61_logits, "filter-logits", {"ten", "nine", "max-nine"},
                     "Is E61's softmax over all 10 logits (w9 a fade toward 0), over logits 0..8, or over all 10 with the "
                     "maximum of logits 0..8 (the nine values 3 max.f16x2 + 2 max.f16 reduce)?",
                     "facts C14.4/.6, §I 6; DOC-e1 §3/E32(c) s26318-s26324", "the arg112 surface dump"));
    v.push_back(make(&Readings::e61_exp_rounding, "filter-exp-rounding", {"f32-sum", "f16-sum"},
                     "Are E61's exponentials summed as f32 values or after rounding each to f16?", "facts C14.4, §I 6",
                     "the arg112 surface dump"));
    v.push_back(make(&Readings::e61_sum_order, "filter-sum-order", {"sequential", "pairs", "tree"},
                     "In which order are E61's 10 exponentials added in f32?", "facts C14.4, §I 6", "the arg112 surface dump"));
    v.push_back(make(&Readings::e61_weight_product, "filter-weight-product", {"f16-mul", "f32-mul"},
                     "Is w_i = f16(f16(e_i) * f16(rinv)) (mul.f16x2) or f16(e_i * rinv in f32)?", "facts C14.4, DOC0 E22",
                     "the arg112 surface dump"));
    v.push_back(make(&Readings::e61_tap_map, "filter-tap-map", {"raster", "column-major"}, "Which 3x3 tap does weight w_i multiply?",
                     "facts C14.6, §I 6", "the arg112 surface dump on a texture with distinct taps"));
    v.push_back(make(&Readings::e61_pairing, "filter-pairing", {"last-single", "first-single"},
                     "Which taps are paired in the 4 fma.f16x2 steps and which one is the scalar fma?", "facts C14.6, §I 6",
                     "the arg112 surface dump"));
    v.push_back(make(&Readings::e61_border, "filter-border", {"reflect101", "sentinel1", "clamp"},
                     "How are E61's neighbour coordinates brought into the frame at the border?", "facts C14.5, Errata 3, appendix §7",
                     "the arg112 surface dump of a border block"));
    v.push_back(make(&Readings::approx_model, "approx-model", {"correctly-rounded"},
                     "What do ex2.approx.ftz.f32 and div.approx.ftz.f32 return bit for bit (only one model exists)?",
                     "facts D6, §I 7, numerics.md", "E61 surface dumps from an Ada GPU at many logit spreads"));
    v.push_back(make(&Readings::mma_zero_sign, "mma-zero-sign", {"profile", "ieee", "plus"},
                     "Is an exact zero mma result -0 when C is -0 and every product is -0 (IEEE sum), or always +0?",
                     "numerics.md mma (not covered by the data), docs/readings.md §3",
                     "one mma on the GPU: C = 0x8000, A[0] = 0x00, B[0] = 0x80, the rest 0 (ieee -0, plus +0)"));
    v.push_back(make(&Readings::mma_nan_operand, "mma-nan-operand", {"profile", "any", "nonzero-partner"},
                     "Does an e4m3 NaN code (0x7F/0xFF) in A or B give NaN even when its partner factor is zero?",
                     "numerics.md Formats and mma, docs/readings.md §3",
                     "one mma on the GPU: A[0] = 0x7F, B[0] = 0x00, the rest 0, C = 0 (any: NaN, nonzero-partner: +0)"));
    v.push_back(make(&Readings::mma_nan_payload, "mma-nan-payload", {"profile", "canonical", "quiet-c"},
                     "Which bits does a NaN mma result have: 0x7FFF, or a NaN C's own payload (quieted)?",
                     "numerics.md f16 arithmetic, docs/readings.md §3",
                     "one mma on the GPU with zero operands and C = 0x7C01 / 0xFE00 (canonical: 0x7FFF)"));
    v.push_back(make(&Readings::mma_overflow, "mma-overflow", {"profile", "inf", "saturate"},
                     "Does a finite mma sum beyond 65504 round to +-Inf (IEEE) or saturate at +-65504?",
                     "numerics.md mma (not covered by the data), docs/readings.md §3",
                     "one mma on the GPU: C = 0x7BFF and one product of 16 (inf: 0x7C00, saturate: 0x7BFF)"));
    return v;
  }();
  return k;
}

const Entry* find(std::string_view name) {
  name = canonical_reading_name(name);
  for (const Entry& e : entries())
    if (e.info.name == name) return &e;
  return nullptr;
}

// The old names (before the readings were named by role) and their role names: one row each.
struct NameAlias {
  std::string_view old_name, name;
};
constexpr NameAlias kNameAliases[] = {
    {"c13-residual", "projection-residual"},
    {"e20-sum-tree", "mlp-norm-sum-tree"},
    {"e21-residual", "mlp-residual"},
    {"e60-lane-guard", "arena-lane-guard"},
    {"e61-record-guard", "filter-record-guard"},
    {"e61-logits", "filter-logits"},
    {"e61-exp-rounding", "filter-exp-rounding"},
    {"e61-sum-order", "filter-sum-order"},
    {"e61-weight-product", "filter-weight-product"},
    {"e61-tap-map", "filter-tap-map"},
    {"e61-pairing", "filter-pairing"},
    {"e61-border", "filter-border"},
    {"e62-gate", "sigmoid-gate"},
    {"e62-difference", "sigmoid-difference"},
    {"e62-quad-value", "sigmoid-quad-value"},
    {"e62-quad-writer", "sigmoid-quad-writer"},
    {"e62-inactive-lane", "sigmoid-inactive-lane"},
    {"e62-alpha", "sigmoid-alpha"},
};

}  // namespace

std::string_view canonical_reading_name(std::string_view name) {
  for (const NameAlias& a : kNameAliases)
    if (a.old_name == name) return a.name;
  return name;
}

std::string_view canonical_reading_value(std::string_view name, std::string_view value) {
  if (canonical_reading_name(name) == "merge-output-layout" && value == "e60-words") return "arena-words";
  return value;
}

const std::vector<ReadingInfo>& reading_registry() {
  static const std::vector<ReadingInfo> k = [] {
    std::vector<ReadingInfo> v;
    for (const Entry& e : entries()) v.push_back(e.info);
    return v;
  }();
  return k;
}

bool set_reading(Readings& r, std::string_view name, std::string_view value, std::string* error) {
  name = canonical_reading_name(name);
  const Entry* e = find(name);
  if (!e) {
    if (error) {
      *error = "unknown reading '" + std::string(name) + "' (known:";
      for (const Entry& x : entries()) *error += " " + x.info.name;
      *error += ")";
    }
    return false;
  }
  for (std::size_t i = 0; i < e->info.values.size(); ++i) {
    if (e->info.values[i] == value) {
      e->set(r, static_cast<int>(i));
      return true;
    }
  }
  for (const auto& [alias, i] : e->aliases) {
    if (alias == value) {
      e->set(r, i);
      return true;
    }
  }
  if (error) {
    *error = "reading '" + std::string(name) + "' has no value '" + std::string(value) + "' (allowed:";
    for (const auto& x : e->info.values) *error += " " + x;
    *error += ")";
  }
  return false;
}

bool set_reading(Readings& r, std::string_view assignment, std::string* error) {
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    if (error) *error = "expected NAME=VALUE, got '" + std::string(assignment) + "'";
    return false;
  }
  return set_reading(r, assignment.substr(0, eq), assignment.substr(eq + 1), error);
}

static_assert(static_cast<int>(MmaZeroSign::plus) == static_cast<int>(MmaZeroSignReading::plus) - 1);
static_assert(static_cast<int>(MmaNanOperand::nonzero_partner) == static_cast<int>(MmaNanOperandReading::nonzero_partner) - 1);
static_assert(static_cast<int>(MmaNanPayload::quiet_c) == static_cast<int>(MmaNanPayloadReading::quiet_c) - 1);
static_assert(static_cast<int>(MmaOverflow::saturate) == static_cast<int>(MmaOverflowReading::saturate) - 1);

Profile with_readings(const Profile& p, const Readings& r) {
  Profile q = p;
  MmaCorners& k = q.corners;
  // Each value after `profile` is the MmaCorners enumerator of the same name (order as in
  // numerics/profile.hpp).
  if (r.mma_zero_sign != MmaZeroSignReading::profile) k.zero_sign = static_cast<MmaZeroSign>(static_cast<int>(r.mma_zero_sign) - 1);
  if (r.mma_nan_operand != MmaNanOperandReading::profile)
    k.nan_operand = static_cast<MmaNanOperand>(static_cast<int>(r.mma_nan_operand) - 1);
  if (r.mma_nan_payload != MmaNanPayloadReading::profile)
    k.nan_payload = static_cast<MmaNanPayload>(static_cast<int>(r.mma_nan_payload) - 1);
  if (r.mma_overflow != MmaOverflowReading::profile) k.overflow = static_cast<MmaOverflow>(static_cast<int>(r.mma_overflow) - 1);
  return q;
}

bool is_instruction_reading(std::string_view name) { return name.rfind("mma-", 0) == 0; }

std::string profile_reading_value(const Profile& p, std::string_view name) {
  const Entry* e = find(name);
  if (!e || !is_instruction_reading(name)) return {};
  // values[0] is "profile"; values[1 + v] is the MmaCorners enumerator v (static_asserts above).
  int v = 0;
  if (name == "mma-zero-sign")
    v = static_cast<int>(p.corners.zero_sign);
  else if (name == "mma-nan-operand")
    v = static_cast<int>(p.corners.nan_operand);
  else if (name == "mma-nan-payload")
    v = static_cast<int>(p.corners.nan_payload);
  else if (name == "mma-overflow")
    v = static_cast<int>(p.corners.overflow);
  return e->info.values.at(static_cast<std::size_t>(1 + v));
}

std::string reading_value(const Readings& r, std::string_view name) {
  const Entry* e = find(name);
  if (!e) return {};
  return e->info.values.at(static_cast<std::size_t>(e->get(r)));
}

}  // namespace rrswin
