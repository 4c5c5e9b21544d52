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

// The epilogue after phase p: the docs' column where the row gives one (-1 where a doc leaves it
// unstated), else the template's roles (enc3..enc5).
int epilogue_statements(const LayerSpec& s, int p) {
  if (!s.epi_column.empty()) return s.epi_column[static_cast<std::size_t>(p - 1)];
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

// One function per part of the layer (model/layer_spec.hpp: [front] -> attention -> projections ->
// MLP -> [merge] -> [final]); each fills the phase it is given the number of. The rules are enc5's
// (spec §2.1/§2.2, facts C1..C12, E4/E5) in the layer's C, H, rows and chunks; the fronts' and the
// serial heads' are d4r's docs of the layers that have them (docs/readings.md "Layer sources").
class Builder {
 public:
  Builder(const LayerSpec& s, LayerProgram& out) : s_(s), m_(weight_map(s)), out_(out) {}

  // The front: enc0's two embedding GEMMs (DESC-e0 WEIGHTS/BIAS: P1 W [4096, 5120) + bias
  // [5120, 5184), P2 W [5184, 6208) + bias [6208, 6272)), or the decoders' patch expand (DOC-d1 §5,
  // DOC-d2 §5 row 1: B = W + K N z, 16 N/128 seeds at W + warps K N + 2 N z).
  Phase embedding(int p, int i) {
    Phase ph = blank(p, PhaseKind::embedding, s_.front.warps);
    ph.real = {s_.tokens, 32, 32};
    ph.a = i == 0 ? OperandSource::layer_input : OperandSource::registers;
    ph.c = OperandSource::weights;
    ph.weight_begin = static_cast<std::uint32_t>(s_.front.unread_bytes) + static_cast<std::uint32_t>(i) * (1024u + 64u);
    ph.weight_end = v4_end(ph.weight_begin, 2);
    ph.bias_begin = ph.weight_begin + 1024u;
    ph.bias_end = u32_end(ph.bias_begin, 4);
    label(ph, i == 0 ? "the layer input (+304)" : cat("relu-q8(D", p - 1, ")"), cat("We", i + 1), cat("be", i + 1, " records"));
    return ph;
  }
  Phase patch_expand(int p) {
    const Front& f = s_.front;
    Phase ph = blank(p, PhaseKind::patch_expand, f.warps);
    ph.real = {48, f.n_per_warp, f.k};
    ph.a = OperandSource::layer_input;
    ph.c = OperandSource::weights;
    ph.weight_begin = 0;
    ph.weight_end = v4_end(0, f.k * f.n_per_warp / 512);
    ph.bias_begin = static_cast<std::uint32_t>(f.warps * f.k * f.n_per_warp);
    ph.bias_end = u32_end(ph.bias_begin, f.n_per_warp / 8);
    label(ph, "the input (+8), 3 m-tiles", cat("Wx (slab z, ", f.k * f.n_per_warp, " bytes)"), "bx records (slab z)");
    return ph;
  }

  // Stem phase i (0-based) of head h: chain A = Q (even i), chain B = V (odd i); k-step i/2; two
  // 512-byte B tiles per k-step at Wq/Wv + 1024 ks (spec §2.2 rows 1-10, facts C1/C2; DOC3 §2 rows
  // 1-8). One warp per head: offsets relative to warp z's slot (h = 0 printed); serial heads: head
  // h's own slot.
  Phase stem(int p, int i, int h) {
    const int ks = i / 2;
    const bool q = i % 2 == 0;
    Phase ph = blank(p, PhaseKind::qv_chain, attention_warps());
    ph.head = s_.serial_heads() ? h : -1;
    ph.relative_to_slot = !s_.serial_heads();
    ph.a_k0 = 32 * ks;
    ph.real = {s_.tokens, 32, 32};
    ph.a = OperandSource::staged_input;
    ph.c = i < 2 ? OperandSource::zero : OperandSource::previous_d;
    ph.c_chain_from = i < 2 ? 0 : p - 2;
    const int slot = s_.serial_heads() ? h : 0;
    ph.weight_begin = (q ? m_.wq(slot) : m_.wv(slot)) + 1024u * static_cast<std::uint32_t>(ks);
    ph.weight_end = v4_end(ph.weight_begin, 2);
    const std::string z = s_.serial_heads() ? cat("head ", h) : std::string("slot z");
    label(ph, "staged h1 k-slice", cat(q ? "Wq (" : "Wv (", z, ")"), i < 2 ? "0" : "D(p-2)");
    return ph;
  }
  // S = bias + q8(Q[0..63]) q8(Q)^T; C = the 12288-byte score bias, 24 v4 loads (facts C3).
  Phase score(int p, int h) {
    Phase ph = blank(p, PhaseKind::score, attention_warps());
    ph.head = s_.serial_heads() ? h : -1;
    ph.relative_to_slot = !s_.serial_heads();
    ph.real = {s_.window_tokens, s_.tokens, 32};
    ph.a = OperandSource::registers;
    ph.b = OperandSource::registers;
    ph.c = OperandSource::weights;
    ph.bias_begin = m_.score_bias(s_.serial_heads() ? h : 0);
    ph.bias_end = v4_end(ph.bias_begin, 24);
    const int q = p - 2;  // the Q chain's last phase
    label(ph, cat("q8(D", q, ") rows 0..63"), cat("q8(D", q, ") (Q^T)"),
          s_.serial_heads() ? cat("score bias (head ", h, ")") : "score bias (slot z)");
    return ph;
  }
  // P V: 4 m-tiles x 4 n-tiles x 3 k-steps, C = 0 (facts C5).
  Phase pv(int p, int h) {
    Phase ph = blank(p, PhaseKind::pv, attention_warps());
    ph.head = s_.serial_heads() ? h : -1;
    ph.real = {s_.window_tokens, s_.head_dim, s_.tokens};
    ph.a = OperandSource::registers;
    ph.b = OperandSource::registers;
    ph.c = OperandSource::zero;
    label(ph, cat("q8(P) (E", p - 1, ")"), "q8(V) movmatrix", "0");
    return ph;
  }
  // Output projection of head h (facts C7): rows_per_warp x C x 32 over Wo_h, chained over the
  // heads (serial heads: head 1's on head 0's, DOC-e1 §3/E13).
  Phase projection(int p, int h) {
    const int C = s_.channels;
    Phase ph = blank(p, PhaseKind::out_projection, s_.mlp_warps());
    ph.real = {s_.rows_per_warp, C, 32};
    ph.head = h;
    ph.a = s_.serial_heads() ? OperandSource::registers : OperandSource::shared_heads;
    const bool first = h == 0;
    ph.c = first ? OperandSource::registers : OperandSource::previous_d;
    ph.c_chain_from = first ? 0 : s_.projection_phase(h - 1);
    ph.weight_begin = m_.wo(h);
    ph.weight_end = v4_end(ph.weight_begin, C / 16);
    label(ph, s_.serial_heads() ? cat("q8(O) of head ", h) : std::string("smem head m-tile z"), "Wo_h",
          first               ? cat("f16(T1 + x) (E", s_.pv_phase(), ")")
          : s_.serial_heads() ? cat("D", ph.c_chain_from)
                              : std::string("D(p-1)"));
    return ph;
  }
  // MLP up-projection chunk c: 4 chains x C/32 k-steps over W1_c, seeded with b1_c (facts C9).
  Phase mlp_up(int p, int c) {
    const int C = s_.channels;
    Phase ph = blank(p, PhaseKind::mlp_up, s_.mlp_warps());
    ph.real = {s_.rows_per_warp, 32, C};
    ph.chunk = c;
    ph.a = OperandSource::registers;
    ph.c = OperandSource::weights;
    ph.weight_begin = m_.w1(c);
    ph.weight_end = v4_end(ph.weight_begin, 2 * (C / 32));
    ph.bias_begin = m_.b1(c);
    ph.bias_end = u32_end(ph.bias_begin, 4);
    label(ph, cat("q8(N) (E", s_.last_projection(), " packs)"), "W1_c (banded)", "b1_c records");
    return ph;
  }
  // MLP down-projection chunk c, chained over chunks; the first seeded by the first up's epilogue
  // (facts C11).
  Phase mlp_down(int p, int c) {
    const int C = s_.channels;
    Phase ph = blank(p, PhaseKind::mlp_down, s_.mlp_warps());
    ph.real = {s_.rows_per_warp, C, 32};
    ph.chunk = c;
    ph.a = OperandSource::registers;
    const bool first = c == 0;
    ph.c = first ? OperandSource::registers : OperandSource::previous_d;
    ph.c_chain_from = first ? 0 : p - 2;
    ph.weight_begin = m_.w2(c);
    ph.weight_end = v4_end(ph.weight_begin, C / 16);
    label(ph, "q8(act(D(p-1)))", "W2_c",
          first ? cat("f16(T3 + D", s_.last_projection(), ") (E", s_.first_mlp(), ")") : std::string("D(p-2)"));
    return ph;
  }
  // The patch merge (DOC4 §3/E60(d,e), DOC3 §3/E46(d,e)): A = 4C/32 fragments of the 16 merged
  // tokens, C = bias records. Shared passes: one pass of the loop is 16x32x4C (B = 2 x 4C/32 v4
  // loads at Wm + 4C*r, r = the pass's first column; the tool prints r = 0). Register merge (DOC-e1
  // §3/E30(d): 48 B loads, 12 bias words): one GEMM over all merge_out columns.
  Phase merge(int p) {
    const int C = s_.channels;
    const bool passes = s_.merge_kind == MergeKind::shared_passes;
    const int n = passes ? 32 : s_.merge_out;
    Phase ph = blank(p, PhaseKind::merge, passes ? 4 : 1);
    ph.real = {16, n, 4 * C};
    ph.a = passes ? OperandSource::shared_merge : OperandSource::registers;
    ph.c = OperandSource::weights;
    ph.weight_begin = m_.merge_weights();
    ph.weight_end = v4_end(ph.weight_begin, 4 * C * n / 512);
    ph.bias_begin = m_.merge_bias();
    ph.bias_end = u32_end(ph.bias_begin, n / 8);
    label(ph, cat("2x2-merged q8(D", s_.last_mlp(), ")", passes ? cat(" (E", s_.last_mlp(), " staging)") : std::string(" (shfl pairs)")),
          passes ? "Wm (32-column pass)" : "Wm", "bm records");
    return ph;
  }
  // The final phase: 2 chains x C/32 k-steps, seeded with two bias records (facts C12; DOC4's P62,
  // DOC3's P48). A = q8 of the last down-projection's D (the reading final-phase-a).
  Phase logits(int p) {
    const int C = s_.channels;
    Phase ph = blank(p, PhaseKind::logits, s_.mlp_warps());
    ph.real = {s_.rows_per_warp, s_.logits, C};
    ph.a = OperandSource::registers;
    ph.c = OperandSource::weights;
    ph.weight_begin = m_.final_weights();
    ph.weight_end = v4_end(ph.weight_begin, C / 32);
    ph.bias_begin = m_.final_bias();
    ph.bias_end = u32_end(ph.bias_begin, 2);
    label(ph, cat("q8(D", s_.last_mlp(), ") (E", s_.last_mlp(), " packs)"), cat("W", p, " (banded)"), cat("b", p, " records"));
    return ph;
  }

  std::string_view keep(std::string t) {
    out_.text.push_back(std::move(t));
    return out_.text.back();
  }

 private:
  int attention_warps() const { return s_.serial_heads() ? 1 : s_.heads; }

  Phase blank(int p, PhaseKind kind, int warps) const {
    Phase ph{};
    ph.number = p;
    ph.kind = kind;
    ph.head = -1;
    ph.chunk = -1;
    ph.warps = warps;
    ph.b = OperandSource::weights;
    ph.epilogue_statements = epilogue_statements(s_, p);
    return ph;
  }

  void label(Phase& ph, const std::string& a, const std::string& b, const std::string& c) {
    ph.a_label = keep(a);
    ph.b_label = keep(b);
    ph.c_label = keep(c);
  }

  const LayerSpec& s_;
  WeightMap m_;
  LayerProgram& out_;
};

// The list of parts in the layer's order; the phase numbers follow from it.
std::vector<Phase> parts(const LayerSpec& s, Builder& b) {
  std::vector<Phase> v;
  auto next = [&v] { return static_cast<int>(v.size()) + 1; };
  if (s.front.kind == FrontKind::embedding)
    for (int i = 0; i < 2; ++i) v.push_back(b.embedding(next(), i));
  if (s.front.kind == FrontKind::patch_expand) v.push_back(b.patch_expand(next()));
  auto attention = [&](int h) {
    for (int i = 0; i < s.stem_phases(); ++i) v.push_back(b.stem(next(), i, h));
    v.push_back(b.score(next(), h));
    v.push_back(b.pv(next(), h));
  };
  if (s.serial_heads()) {
    for (int h = 0; h < s.heads; ++h) {
      attention(h);
      v.push_back(b.projection(next(), h));
    }
  } else {
    attention(0);
    for (int h = 0; h < s.heads; ++h) v.push_back(b.projection(next(), h));
  }
  for (int c = 0; c < s.chunks; ++c) {
    v.push_back(b.mlp_up(next(), c));
    v.push_back(b.mlp_down(next(), c));
  }
  if (s.merge()) v.push_back(b.merge(next()));
  if (s.final_gemm) v.push_back(b.logits(next()));
  return v;
}

// Fills `prog` in place: its phases' string_views point into prog.text, which must not move. The
// statement numbers count from the row's anchor (the first mma of phase statement_anchor_phase)
// with one statement per mma (a 4-line mma.sync counts as one, spec §0) and the epilogues' lengths;
// phases before the anchor, or after an epilogue whose length no doc states, have none (0, "?").
void build_into(const LayerSpec& s, LayerProgram& prog) {
  prog.spec = &s;
  Builder b(s, prog);
  prog.phases = parts(s, b);
  int next = 0;
  for (Phase& ph : prog.phases) {
    ph.tool = tool_shape(ph.real, ph.band = ph.real.k > 32);
    ph.m_tiles = ph.real.m / 16;
    ph.n_tiles = ph.real.n / 8;
    ph.k_steps = ph.real.k / 32;
    ph.mma = ph.m_tiles * ph.n_tiles * ph.k_steps;
    prog.mma_total += ph.mma;
    if (ph.number == s.statement_anchor_phase) next = s.first_mma_statement;
    if (next > 0) {
      ph.stmt_first = next;
      ph.stmt_last = next + ph.mma - 1;
      next = ph.epilogue_statements >= 0 ? ph.stmt_last + 1 + ph.epilogue_statements : 0;
      ph.stmt_range = b.keep(cat("s", ph.stmt_first, "-s", ph.stmt_last));
    } else {
      ph.stmt_range = "?";
    }
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
  // One program per layer, built in place on first use (thread-safe static initialisation); the
  // array follows layer_ids(), whose i-th entry is LayerId i (model/layers.def).
  struct All {
    std::array<LayerProgram, kLayerCount> p;
    All() {
      for (std::size_t i = 0; i < p.size(); ++i) build_into(layer_spec(layer_ids()[i]), p[i]);
    }
  };
  static const All all;
  return all.p.at(static_cast<std::size_t>(id));
}

double macs_per_block(const LayerProgram& prog) {
  double macs = 0;
  for (const Phase& p : prog.phases) {
    const double mk = static_cast<double>(p.real.m) * p.real.k;
    macs += p.kind == PhaseKind::merge ? mk * prog.spec->merge_out : mk * p.real.n * p.warps;
  }
  return macs;
}

ByteRange layer_weight_extent(const LayerSpec& s, const Phase& p, int z) {
  if (p.b != OperandSource::weights) return {0, 0};
  const WeightMap m = weight_map(s);
  if (p.kind == PhaseKind::merge) return {m.merge_weights(), m.merge_bias()};
  if (p.kind == PhaseKind::patch_expand) {  // warp z's slab of K x N bytes
    const std::uint32_t slab = static_cast<std::uint32_t>(s.front.k * s.front.n_per_warp) * static_cast<std::uint32_t>(z);
    return {slab + p.weight_begin, slab + p.weight_end - 12u + 512u};
  }
  const std::uint32_t slot = p.relative_to_slot ? m.slot_bytes() * static_cast<std::uint32_t>(z) : 0u;
  return {slot + p.weight_begin, slot + p.weight_end - 12u + 512u};
}

ByteRange layer_bias_extent(const LayerSpec& s, const Phase& p, int z) {
  if (p.c != OperandSource::weights) return {0, 0};
  const WeightMap m = weight_map(s);
  if (p.kind == PhaseKind::merge) return {m.merge_bias(), m.merge_bias() + 2u * static_cast<std::uint32_t>(s.merge_out)};
  if (p.kind == PhaseKind::patch_expand) {  // warp z's N seeds
    const std::uint32_t seeds = 2u * static_cast<std::uint32_t>(s.front.n_per_warp) * static_cast<std::uint32_t>(z);
    return {seeds + p.bias_begin, seeds + p.bias_end + 16u};
  }
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
  const Front& f = s.front;
  if (f.kind == FrontKind::embedding) {
    if (f.unread_bytes > 0) add("unread", 0, static_cast<std::uint32_t>(f.unread_bytes), T::e4m3, R::unread, -1);
    for (int i = 0; i < 2; ++i) {
      const std::uint32_t w = static_cast<std::uint32_t>(f.unread_bytes) + static_cast<std::uint32_t>(i) * (1024u + 64u);
      add(with_index("We", i), w, w + 1024u, T::e4m3, R::we, i);
      add(with_index("be", i), w + 1024u, w + 1088u, T::f16, R::be, i);
    }
  }
  if (f.kind == FrontKind::patch_expand) {
    const std::uint32_t slab = static_cast<std::uint32_t>(f.k * f.n_per_warp), seeds = static_cast<std::uint32_t>(f.warps) * slab;
    for (int z = 0; z < f.warps; ++z)
      add(with_index("Wx", z), slab * static_cast<std::uint32_t>(z), slab * static_cast<std::uint32_t>(z + 1), T::e4m3, R::wx, z);
    for (int z = 0; z < f.warps; ++z) {
      const std::uint32_t n2 = 2u * static_cast<std::uint32_t>(f.n_per_warp);
      add(with_index("bx", z), seeds + n2 * static_cast<std::uint32_t>(z), seeds + n2 * static_cast<std::uint32_t>(z + 1), T::f16, R::bx,
          z);
    }
  }
  add("g1", m.g1(), m.g1() + 2 * C, T::f16, R::g1, -1);
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
  if (s.merge()) {
    add("Wm", m.merge_weights(), m.merge_bias(), T::e4m3, R::wm, -1);
    add("bm", m.merge_bias(), m.final_weights(), T::f16, R::bm, -1);
  }
  if (s.final_gemm) {
    add(cat("W", s.final_phase()), m.final_weights(), m.final_bias(), T::e4m3, R::w61, -1);
    add(cat("b", s.final_phase()), m.final_bias(), m.image_bytes(), T::f16, R::b61, -1);
  }
  return r;
}

}  // namespace rrswin
