// The stage table of a layer (model/trace.hpp): the stages the golden model records, by the
// template's phase numbering (model/layer_spec.hpp), in the order model/*.cpp create them.
#include "model/trace.hpp"

#include "model/layer_spec.hpp"
#include "model/text.hpp"

namespace rrswin {

StageShape stage_shape(StageKind k, const LayerSpec& l) {
  if (k == StageKind::expand_d && l.front.kind == FrontKind::embedding) return {1, 6 * 4 * 2};  // enc0's P1, P2: 96 x 32
  if (k == StageKind::expand_d) return {l.front.warps, 3 * (l.front.n_per_warp / 8) * 2};
  return stage_shape(k, l.channels, l.heads, l.merge_out);
}

std::vector<StageRow> trace_stage_table(const LayerSpec& l) {
  std::vector<StageRow> t;
  auto add = [&](std::string name, StageKind k) { t.push_back({std::move(name), k, stage_shape(k, l)}); };
  const int sp = l.score_phase(), first = l.first_projection(), last = l.last_projection(), fe = l.final_phase();
  if (l.front.kind == FrontKind::patch_expand) add("p1d", StageKind::expand_d);
  if (l.front.kind == FrontKind::embedding) {
    add("p1d", StageKind::expand_d);
    add("p2d", StageKind::expand_d);
  }
  add("prologue.a", StageKind::prologue_a);
  for (int p = l.first_stem(); p < l.first_stem() + l.stem_phases(); ++p) add(cat("w", p), StageKind::stem_d);
  add(cat("w", sp), StageKind::score_d);
  add(cat("e", sp, ".e"), StageKind::score_d);
  add(cat("e", sp, ".sum"), StageKind::score_row);
  add(cat("e", sp, ".rcp"), StageKind::score_row);
  add(cat("e", sp, ".p"), StageKind::score_d);
  add(cat("w", l.pv_phase()), StageKind::pv_d);
  add(cat("p", first, "c"), StageKind::row_tile);
  for (int h = 0; h < l.heads; ++h) add(cat("p", l.projection_phase(h), "d"), StageKind::row_tile);
  add(cat("e", last, ".sum"), StageKind::norm_row);
  add(cat("e", last, ".inv"), StageKind::norm_row);
  add(cat("e", last, ".n"), StageKind::row_tile);
  for (int c = 0; c < l.chunks; ++c) {
    const int up = l.first_mlp() + 2 * c;
    add(cat("p", up, "d"), StageKind::up_d);
    add(cat("e", up, ".act"), StageKind::up_d);
    if (c == 0) add(cat("p", up + 1, "c"), StageKind::row_tile);
    add(cat("p", up + 1, "d"), StageKind::row_tile);
  }
  // dec0 has no arena scatter: E19 reads D19 itself (DOC-d0 §4.2).
  if (l.final_epilogue == FinalEpilogueKind::dec0_output) return t;
  add(cat("e", l.last_mlp(), ".words"), StageKind::arena_words);
  if (l.merge()) {
    add(cat("p", l.merge_phase(), "d"), StageKind::merge_d);
    add(cat("p", fe, "d"), StageKind::final_d);
    add(cat("e", fe, ".gate"), StageKind::final_pair);
    add(cat("e", fe, ".quad"), StageKind::final_pair);
    add(cat("e", fe, ".sum"), StageKind::final_pair);
  } else if (l.final_epilogue == FinalEpilogueKind::decoder_blend) {
    add(cat("p", fe, "d"), StageKind::final_d);
  } else {
    add(cat("p", fe, "d"), StageKind::final_d);
    add(cat("e", fe, ".logits"), StageKind::final_words);
    add(cat("e", fe, ".w"), StageKind::final_words);
    add(cat("e", fe, ".sum"), StageKind::final_pair);
    add(cat("e", fe, ".out"), StageKind::final_pair);
  }
  return t;
}

}  // namespace rrswin
