// enc5's 61 phases: the layer template's enc5 instance (model/layer_program.hpp builds it from the
// corrected facts rather than from DOC5's prose formulas: the weight map of facts E4, eight
// 27648-byte head slots (facts A2/H1), MLP chunk stride 10304 (facts C1-note), the real shapes of
// spec §2.2 and the epilogue statement counts of spec §2.1). The statement ranges are not typed
// in: they follow from s7554, one statement per mma and the epilogue counts (spec §0), which
// tests/phase_program_test.cpp checks against every row spec §2.1 prints.
#include "model/phase_program.hpp"

#include <stdexcept>
#include <string>

#include "model/layer_program.hpp"

namespace rrswin {
namespace {

const std::array<Phase, kPhaseCount>& storage() {
  // A copy of the template's table; its string_views point into layer_program(enc5)'s text, which
  // lives as long as the program.
  static const std::array<Phase, kPhaseCount> s = [] {
    const LayerProgram& prog = layer_program(LayerId::enc5);
    if (prog.phases.size() != static_cast<std::size_t>(kPhaseCount)) throw std::logic_error("enc5's template is not 61 phases");
    std::array<Phase, kPhaseCount> a{};
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = prog.phases[i];
    return a;
  }();
  return s;
}

}  // namespace

const std::array<Phase, kPhaseCount>& phase_program() { return storage(); }

const Phase& phase(int number) {
  if (number < 1 || number > kPhaseCount) throw std::out_of_range("phase number " + std::to_string(number) + " is outside 1..61");
  return storage()[static_cast<std::size_t>(number - 1)];
}

namespace {
const Phase& find_phase(PhaseKind kind, int head, int chunk, const char* what, int index) {
  for (const Phase& ph : phase_program())
    if (ph.kind == kind && ph.head == head && ph.chunk == chunk) return ph;
  throw std::out_of_range(std::string(what) + " " + std::to_string(index) + " has no phase");
}
}  // namespace

const Phase& out_projection_phase(int head) { return find_phase(PhaseKind::out_projection, head, -1, "head", head); }
const Phase& mlp_up_phase(int chunk) { return find_phase(PhaseKind::mlp_up, -1, chunk, "MLP chunk", chunk); }
const Phase& mlp_down_phase(int chunk) { return find_phase(PhaseKind::mlp_down, -1, chunk, "MLP chunk", chunk); }

ByteRange weight_extent(const Phase& p, int z) { return layer_weight_extent(layer_spec(LayerId::enc5), p, z); }
ByteRange bias_extent(const Phase& p, int z) { return layer_bias_extent(layer_spec(LayerId::enc5), p, z); }

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
    case PhaseKind::embedding: return "embedding";
    case PhaseKind::patch_expand: return "patch_expand";
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
    case OperandSource::layer_input: return "layer_input";
  }
  return "?";
}

}  // namespace rrswin
