// The phase program and weight regions of any layer of the template (model/layer_spec.hpp), built
// from its description: the shapes, operand sources and weight offsets follow from C, H, the MLP
// chunks and the merge (the formulas of WeightMap); the statement ranges from the first mma
// statement, one statement per mma and the layer's epilogue lengths. For enc5 the result equals
// model/phase_program.hpp's table field by field (tests/layer_program_test.cpp); for enc4 and enc3
// it reproduces every row DOC4 §2 / DOC3 §2 print.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "model/layer_spec.hpp"
#include "model/phase_program.hpp"
#include "model/weight_image.hpp"

namespace rrswin {

struct LayerProgram {
  const LayerSpec* spec = nullptr;
  std::vector<Phase> phases;  // phases[p - 1] is phase p
  int mma_total = 0;          // mma statements over all phases
  // 1-based; throws std::out_of_range outside 1..phase_count.
  const Phase& phase(int number) const;
  // Backing store of the phases' string_views (statement ranges, operand labels).
  std::deque<std::string> text;
};

// Built once per layer (thread-safe), never freed.
const LayerProgram& layer_program(LayerId id);

// The bytes a phase's B loads / C-seed loads really read over all 32 lanes (absolute offsets in W
// for warp z), as weight_extent()/bias_extent() of model/phase_program.hpp, for any layer. For the
// merge phase: the whole loop (every 32-column pass of every warp: the reading merge-loop of
// docs/readings.md §7), so that the merge weights and bias are read end to end.
ByteRange layer_weight_extent(const LayerSpec& s, const Phase& p, int z = 0);
ByteRange layer_bias_extent(const LayerSpec& s, const Phase& p, int z = 0);

// The e4m3 multiply-adds of one block (all its warps): each phase's real M x N x K times the warps
// that run it, the merge's over all its merged columns (16 x merge_out x 4C). enc5: 26.9 M.
double macs_per_block(const LayerProgram& prog);

// Every named region of the layer's image in address order; they tile [0, image_bytes) exactly.
// For enc5 equal to weight_regions() (model/weight_image.hpp). The merge layers' extra regions are
// "Wm"/"bm" (Region::Role::wm / bm); the final phase's are W<final>/b<final> (roles w61/b61).
std::vector<Region> layer_weight_regions(const LayerSpec& s);

}  // namespace rrswin
