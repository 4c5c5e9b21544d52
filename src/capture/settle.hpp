// `rrswin settle`: which readings (docs/readings.md §1) and profile reproduce a capture of the
// original's outputs. The search is grouped by the output a reading can affect and runs
// coordinate-wise with the fast engine; docs/captures.md "Settling readings" explains it.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "capture/capture.hpp"
#include "capture/debug_stage.hpp"
#include "capture/diff.hpp"

namespace rrswin::capture {

// Which outputs a reading can change (the search's grouping).
enum class ReadingGroup { arena_only, surface_only, both };
ReadingGroup reading_group(const std::string& name);

struct Setting {
  std::string profile = "ada";
  std::vector<std::pair<std::string, std::string>> values;  // every searchable reading, registry order
  std::string value(const std::string& name) const;
  std::string describe_changes() const;  // "profile=zluda, arena-order=natural" (non-defaults only)
};

struct Score {
  std::uint64_t arena = 0, surface = 0;  // differing bytes
  std::uint64_t stage = 0;               // settling on a debug stage: differing registers (compared first)
  bool exact() const { return arena == 0 && surface == 0 && stage == 0; }
  bool operator<(const Score& o) const {
    if (stage != o.stage) return stage < o.stage;
    return arena != o.arena ? arena < o.arena : surface < o.surface;
  }
  bool operator==(const Score& o) const { return arena == o.arena && surface == o.surface && stage == o.stage; }
};

// Whether a reading (or "profile") can change a debug-oracle stage: the stages w1..w12 follow the
// prologue (facts B) and phases 1..12, which consult only the prologue-* readings; p13c/p13d add
// phase 13's C (projection-residual, t1-chunk-order; facts C6). The profile feeds every mma.
bool reading_feeds_stage(const std::string& name, const DebugStage& stage);

struct Alternative {
  std::string name, value;  // name "profile" for the profile
  Score score;              // the best setting with this one value changed
};

struct SettleResult {
  Setting best;
  Score score;
  FileDiff arena, surface;                // best vs the capture's results (not with a stage)
  std::optional<StageDiff> stage;         // settling on a debug stage: best vs the capture's window
  std::vector<Alternative> alternatives;  // every single-value change of the best
  std::vector<std::string> log;           // accepted search steps
  int runs = 0;
  double seconds = 0;
  bool budget_exhausted = false;
  bool alternatives_complete = true;  // false: --max-runs left some single changes unrun
};

struct SettleOptions {
  // Settle on a debug-oracle stage (facts F1/F2) instead of the outputs: the readings that feed it
  // against the registers of the capture's window (golden model; debug_stage.hpp).
  const DebugStage* stage = nullptr;
  std::uint64_t debug_base = kDefaultDebugBase;
  int threads = 0;
  int max_runs = 800;  // every layer run of settle: the search, the alternatives scan and the best's outputs
  std::function<void(int runs, const std::string& what)> progress;
};

// c.results must be present (launch dumps, or a replay capture with results/); with o.stage, the
// capture must hold that stage's window.
SettleResult settle(const LaunchCapture& c, const SettleOptions& o);

}  // namespace rrswin::capture
