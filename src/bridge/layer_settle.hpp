// `rrswin settle --layer enc4`: which values of the merge layers' readings (model/layer_golden.hpp,
// docs/readings.md §7: merge-*, sigmoid-*) reproduce the original kernel's results on replay captures
// of its launches. The results come from a GPU's dump of the launch or from the PTX interpreter
// running the original kernel (corpus file 0017) on the same captures (`--oracle`). The search is
// coordinate-wise, as enc5's settle (docs/captures.md "Settling readings"), with the fast engine.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bridge/layer_capture.hpp"

namespace rrswin::ptx {

// One launch: the capture (the state before it) and the original's results (the same capture
// after the launch: allocations and surfaces).
struct LayerSettleLaunch {
  std::string name;
  KernelCapture before, after;
};

// Reads the original's results for `before` from a folder in launch-dump naming (what `rrswin ptx
// run --capture` and `rrswin replay --layer` write, or a GPU's dump of the launch): for every pointer
// and image of the capture, the one file whose argNNN and kind match, of the captured size.
// Throws InputError naming the folder or file and what was expected versus found.
KernelCapture results_from_dumps(const KernelCapture& before, const std::string& dir);

// The launches `settle --layer --oracle` interprets when given no capture (their `after` empty):
// the layer's token grid (80 x 46 for enc4, seed 1) and a border launch (21 x 13 tokens at block
// offsets 3,5, seed 2: odd extents, so the merge's halved extents round down, and frame borders
// inside blocks, so E62 has lanes outside the frame). tests/layer_capture_test.cpp checks that
// every pair of values of every reading gives different bytes on the border launch alone.
std::vector<LayerSettleLaunch> oracle_layer_launches(LayerId layer);

struct LayerSettleOptions {
  const Profile* profile = nullptr;  // null: ada
  Readings readings;                 // enc5's readings (phases 1..60 are enc5's)
  int max_passes = 3;                // coordinate-search passes over the readings
};

struct LayerReadingScore {
  std::string name;
  std::vector<std::pair<std::string, std::uint64_t>> values;  // value -> differing bytes (others at the best)
  std::string best;
  bool settled = false;  // the best value is the only one with the lowest count
};
struct LayerSettleResult {
  LayerReadings best;
  std::vector<std::pair<std::string, std::string>> best_values;  // registry order
  std::uint64_t differing = 0;                                   // bytes of the best against the results, all launches
  std::vector<LayerReadingScore> readings;
  int runs = 0;
};
// Starts at the defaults; each pass tries every value of every reading with the others fixed and
// keeps a strictly better one; stops when a pass changes nothing. Then every single change of the
// best is scored (LayerReadingScore).
LayerSettleResult settle_layer(const std::vector<LayerSettleLaunch>& launches, LayerId layer, const LayerSettleOptions& o);

}  // namespace rrswin::ptx
