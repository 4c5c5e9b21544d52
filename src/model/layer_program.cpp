// The template's phase program (model/layer_program.hpp). The rules are enc5's (spec §2.1/§2.2,
// facts C1..C12, E4/E5) written in the layer's C, H, chunks and merge; DOC4 §2 and DOC3 §2 print
// the same rules' results for enc4 and enc3 (tests/layer_program_test.cpp checks every row).
#include "model/layer_program.hpp"

#include <array>
#include <stdexcept>

#include "model/text.hpp"

namespace rrswin {
namespace {

// The tool's convention for a block of loads (spec §2.1, DOC4/DOC3 §2 alike): v4 loads at imm,
// imm+512, ... print as "first..last+12", u32 record loads at imm, imm+16, ... as "first..last".
constexpr std::uint32_t v4_end(std::uint32_t first, int loads) { return first + 512u * (loads - 1) + 12u; }
constexpr std::uint32_t u32_end(std::uint32_t first, int loads) { return first + 16u * (loads - 1); }

int epilogue_statements(const LayerSpec& s, int p) {
  const EpilogueStatements& e = s.epi;
  if (p < s.stem_phases()) return e.next_b;
  if (p == s.stem_phases()) return e.score_prep;
  if (p == s.score_phase()) return e.softmax;
  if (p == s.pv_phase()) return e.pv;
  if (p < s.last_projection()) return e.proj_next;
  if (p == s.last_projection()) return e.norm;
  if (p == s.first_mlp()) return e.first_act;
  if (p == s.last_mlp()) return e.last_down;
  if (p < s.last_mlp()) return ((p - s.first_mlp()) % 2 == 0) ? e.up_act : e.down_next;
  if (p == s.merge_phase()) return e.merge;
  return e.final_epi;
}

// The tool's M/N/K (rr_layer_spec.py geom(): 16 x distinct A fragments, 8 x distinct B fragments,
// 32 x chain length): a banded phase's k-slices count as fragments (spec §2.2, DOC4/DOC3 §2).
Shape tool_shape(const Shape& real, bool band) {
  if (!band) return real;
  const int ks = real.k / 32;
  return {real.m * ks, real.n * ks, real.k};
}

class Builder {
 public:
  Builder(const LayerSpec& s, LayerProgram& out) : s_(s), m_(weight_map(s)), out_(out) {}

  Phase make(int p) {
    Phase ph{};
    ph.number = p;
    ph.head = -1;
    ph.chunk = -1;
    ph.c_chain_from = 0;
    ph.epilogue_statements = epilogue_statements(s_, p);
    ph.warps = p <= s_.pv_phase() ? s_.heads : 4;  // facts A7: z >= 4 exits after E12
    ph.relative_to_slot = p <= s_.score_phase();   // facts E5, spec §2.3 / U7
    ph.b = OperandSource::weights;
    const int C = s_.channels;
    const int score = s_.score_phase(), pv = s_.pv_phase(), last_proj = s_.last_projection();
    const int first_mlp = s_.first_mlp(), last_mlp = s_.last_mlp();

    if (p <= s_.stem_phases()) {
      // Chain A = Q (odd p), chain B = V (even p); k-step (p-1)/2; two 512-byte B tiles per k-step
      // at slot + Wq/Wv + 1024*ks (spec §2.2 rows 1-10, facts C1/C2; DOC3 §2 rows 1-8).
      const int ks = (p - 1) / 2;
      ph.kind = PhaseKind::qv_chain;
      ph.a_k0 = 32 * ks;
      ph.real = {s_.tokens, 32, 32};
      ph.a = OperandSource::staged_input;
      ph.c = p <= 2 ? OperandSource::zero : OperandSource::previous_d;
      ph.c_chain_from = p <= 2 ? 0 : p - 2;
      ph.weight_begin = ((p % 2) ? m_.wq(0) : m_.wv(0)) + 1024u * static_cast<std::uint32_t>(ks);
      ph.weight_end = v4_end(ph.weight_begin, 2);
      label(ph, "staged h1 k-slice", (p % 2) ? "Wq (slot z)" : "Wv (slot z)", p <= 2 ? "0" : "D(p-2)");
    } else if (p == score) {
      // S = bias + q8(Q[0..63]) q8(Q)^T; C = the 12288-byte score bias, 24 v4 loads (facts C3).
      ph.kind = PhaseKind::score;
      ph.real = {s_.window_tokens, s_.tokens, 32};
      ph.a = OperandSource::registers;
      ph.b = OperandSource::registers;
      ph.c = OperandSource::weights;
      ph.bias_begin = m_.score_bias(0);
      ph.bias_end = v4_end(ph.bias_begin, 24);
      const int q = s_.stem_phases() - 1;
      label(ph, cat("q8(D", q, ") rows 0..63"), cat("q8(D", q, ") (Q^T)"), "score bias (slot z)");
    } else if (p == pv) {
      // P V: 4 m-tiles x 4 n-tiles x 3 k-steps, C = 0 (facts C5).
      ph.kind = PhaseKind::pv;
      ph.real = {s_.window_tokens, s_.head_dim, s_.tokens};
      ph.band = true;
      ph.a = OperandSource::registers;
      ph.b = OperandSource::registers;
      ph.c = OperandSource::zero;
      label(ph, cat("q8(P) (E", score, ")"), "q8(V) movmatrix", "0");
    } else if (p <= last_proj) {
      // Output projection: phase first_projection + j reads head j's staged O and Wo_j (facts C7).
      ph.kind = PhaseKind::out_projection;
      ph.real = {16, C, 32};
      ph.head = p - s_.first_projection();
      ph.a = OperandSource::shared_heads;
      const bool first = p == s_.first_projection();
      ph.c = first ? OperandSource::registers : OperandSource::previous_d;
      ph.c_chain_from = first ? 0 : p - 1;
      ph.weight_begin = m_.wo(ph.head);
      ph.weight_end = v4_end(ph.weight_begin, C / 16);
      label(ph, "smem head m-tile z", "Wo_h", first ? cat("f16(T1 + x) (E", pv, ")") : "D(p-1)");
    } else if (p <= last_mlp && (p - first_mlp) % 2 == 0) {
      // MLP up-projection chunk c: 4 chains x C/32 k-steps over W1_c, seeded with b1_c (facts C9).
      ph.kind = PhaseKind::mlp_up;
      ph.real = {16, 32, C};
      ph.band = true;
      ph.chunk = (p - first_mlp) / 2;
      ph.a = OperandSource::registers;
      ph.c = OperandSource::weights;
      ph.weight_begin = m_.w1(ph.chunk);
      ph.weight_end = v4_end(ph.weight_begin, 2 * (C / 32));
      ph.bias_begin = m_.b1(ph.chunk);
      ph.bias_end = u32_end(ph.bias_begin, 4);
      label(ph, cat("q8(N) (E", last_proj, " packs)"), "W1_c (banded)", "b1_c records");
    } else if (p <= last_mlp) {
      // MLP down-projection chunk c, chained over chunks; the first seeded by the first up's
      // epilogue (facts C11).
      ph.kind = PhaseKind::mlp_down;
      ph.real = {16, C, 32};
      ph.chunk = (p - first_mlp) / 2;
      ph.a = OperandSource::registers;
      const bool first = p == first_mlp + 1;
      ph.c = first ? OperandSource::registers : OperandSource::previous_d;
      ph.c_chain_from = first ? 0 : p - 2;
      ph.weight_begin = m_.w2(ph.chunk);
      ph.weight_end = v4_end(ph.weight_begin, C / 16);
      label(ph, "q8(act(D(p-1)))", "W2_c", first ? cat("f16(T3 + D", last_proj, ") (E", first_mlp, ")") : "D(p-2)");
    } else if (p == s_.merge_phase()) {
      // The patch merge (DOC4 §3/E60(d,e), DOC3 §3/E46(d,e)): A = 4C/32 shared fragments of the
      // 16 merged tokens, B = 2 x 4C/32 v4 loads at Wm + 4C*r (r = the pass's first column), C =
      // 4 bias records. One pass of the loop is 16x32x4C; the tool prints its immediates (r = 0).
      ph.kind = PhaseKind::merge;
      ph.real = {16, 32, 4 * C};
      ph.band = true;
      ph.a = OperandSource::shared_merge;
      ph.c = OperandSource::weights;
      ph.weight_begin = m_.merge_weights();
      ph.weight_end = v4_end(ph.weight_begin, 2 * (4 * C / 32));
      ph.bias_begin = m_.merge_bias();
      ph.bias_end = u32_end(ph.bias_begin, 4);
      label(ph, cat("2x2-merged q8(D", last_mlp, ") (E", last_mlp, " staging)"), "Wm (32-column pass)", "bm records");
    } else {
      // The final phase: 2 chains x C/32 k-steps, seeded with two bias records (facts C12; DOC4's
      // P62, DOC3's P48). A = q8 of the last down-projection's D (the reading final-phase-a).
      ph.kind = PhaseKind::logits;
      ph.real = {16, s_.logits, C};
      ph.band = true;
      ph.a = OperandSource::registers;
      ph.c = OperandSource::weights;
      ph.weight_begin = m_.final_weights();
      ph.weight_end = v4_end(ph.weight_begin, C / 32);
      ph.bias_begin = m_.final_bias();
      ph.bias_end = u32_end(ph.bias_begin, 2);
      label(ph, cat("q8(D", last_mlp, ") (E", last_mlp, " packs)"), cat("W", p, " (banded)"), cat("b", p, " records"));
    }
    ph.tool = tool_shape(ph.real, ph.band);
    ph.m_tiles = ph.real.m / 16;
    ph.n_tiles = ph.real.n / 8;
    ph.k_steps = ph.real.k / 32;
    ph.mma = ph.m_tiles * ph.n_tiles * ph.k_steps;
    return ph;
  }

  std::string_view keep(std::string t) {
    out_.text.push_back(std::move(t));
    return out_.text.back();
  }

 private:
  void label(Phase& ph, const std::string& a, const std::string& b, const std::string& c) {
    ph.a_label = keep(a);
    ph.b_label = keep(b);
    ph.c_label = keep(c);
  }

  const LayerSpec& s_;
  WeightMap m_;
  LayerProgram& out_;
};

// Fills `prog` in place: its phases' string_views point into prog.text, which must not move.
void build_into(const LayerSpec& s, LayerProgram& prog) {
  prog.spec = &s;
  Builder b(s, prog);
  int next = s.first_mma_statement;
  for (int p = 1; p <= s.phase_count(); ++p) {
    Phase ph = b.make(p);
    ph.stmt_first = next;
    ph.stmt_last = next + ph.mma - 1;  // a 4-line mma.sync counts as one statement (spec §0)
    next = ph.stmt_last + 1 + ph.epilogue_statements;
    ph.stmt_range = b.keep(cat("s", ph.stmt_first, "-s", ph.stmt_last));
    prog.mma_total += ph.mma;
    prog.phases.push_back(ph);
  }
}

std::string with_index(const char* base, int i) { return cat(base, "[", i, "]"); }

}  // namespace

const Phase& LayerProgram::phase(int number) const {
  if (number < 1 || number > static_cast<int>(phases.size()))
    throw std::out_of_range(cat("phase number ", number, " is outside 1..", phases.size(), " of ", spec->name));
  return phases[static_cast<std::size_t>(number - 1)];
}

const LayerProgram& layer_program(LayerId id) {
  // One program per layer, built in place on first use (thread-safe static initialisation).
  struct All {
    std::array<LayerProgram, 3> p;
    All() {
      for (std::size_t i = 0; i < p.size(); ++i) build_into(layer_spec(layer_ids()[i]), p[i]);
    }
  };
  static const All all;
  for (std::size_t i = 0; i < all.p.size(); ++i)
    if (layer_ids()[i] == id) return all.p[i];
  return all.p.back();
}

ByteRange layer_weight_extent(const LayerSpec& s, const Phase& p, int z) {
  if (p.b != OperandSource::weights) return {0, 0};
  const WeightMap m = weight_map(s);
  if (p.kind == PhaseKind::merge) return {m.merge_weights(), m.merge_bias()};
  const std::uint32_t slot = p.relative_to_slot ? m.slot_bytes() * static_cast<std::uint32_t>(z) : 0u;
  return {slot + p.weight_begin, slot + p.weight_end - 12u + 512u};
}

ByteRange layer_bias_extent(const LayerSpec& s, const Phase& p, int z) {
  if (p.c != OperandSource::weights) return {0, 0};
  const WeightMap m = weight_map(s);
  if (p.kind == PhaseKind::merge) return {m.merge_bias(), m.merge_bias() + 2u * static_cast<std::uint32_t>(s.merge_out)};
  const std::uint32_t slot = p.relative_to_slot ? m.slot_bytes() * static_cast<std::uint32_t>(z) : 0u;
  if (p.kind == PhaseKind::score) return {slot + p.bias_begin, slot + p.bias_end - 12u + 512u};
  return {slot + p.bias_begin, slot + p.bias_end + 16u};
}

std::vector<Region> layer_weight_regions(const LayerSpec& s) {
  using R = Region::Role;
  using T = Region::Type;
  const WeightMap m = weight_map(s);
  const std::uint32_t C = m.c;
  std::vector<Region> r;
  auto add = [&r](std::string name, std::uint32_t begin, std::uint32_t end, T type, R role, int index) {
    r.push_back(Region{std::move(name), begin, end, type, role, index});
  };
  add("g1", m.g1(), 2 * C, T::f16, R::g1, -1);
  for (int h = 0; h < s.heads; ++h) {
    add(with_index("Wq", h), m.wq(h), m.wq(h) + 32 * C, T::e4m3, R::wq, h);
    add(with_index("Wv", h), m.wv(h), m.wv(h) + 32 * C, T::e4m3, R::wv, h);
    add(with_index("score_bias", h), m.score_bias(h), m.score_bias(h) + 12288, T::f16, R::score_bias, h);
    add(with_index("Wo", h), m.wo(h), m.wo(h) + 32 * C, T::e4m3, R::wo, h);
  }
  add("T1", m.t1(), m.t1() + 2 * C, T::f16, R::t1, -1);
  add("g2", m.g2(), m.g2() + 2 * C, T::f16, R::g2, -1);
  for (int c = 0; c < s.chunks; ++c) {
    if (c == 1) add("T3", m.t3(), m.t3() + 2 * C, T::f16, R::t3, -1);
    add(with_index("W1", c), m.w1(c), m.w1(c) + 32 * C, T::e4m3, R::w1, c);
    add(with_index("b1", c), m.b1(c), m.b1(c) + 64, T::f16, R::b1, c);
    add(with_index("W2", c), m.w2(c), m.w2(c) + 32 * C, T::e4m3, R::w2, c);
  }
  if (s.merge) {
    add("Wm", m.merge_weights(), m.merge_bias(), T::e4m3, R::wm, -1);
    add("bm", m.merge_bias(), m.final_weights(), T::f16, R::bm, -1);
  }
  add(cat("W", s.final_phase()), m.final_weights(), m.final_bias(), T::e4m3, R::w61, -1);
  add(cat("b", s.final_phase()), m.final_bias(), m.image_bytes(), T::f16, R::b61, -1);
  return r;
}

}  // namespace rrswin
