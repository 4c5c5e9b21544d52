// `enc5 settle`: which readings (docs/readings.md §1) and profile reproduce a capture of the
// original's outputs. The search is grouped by the output a reading can affect and runs
// coordinate-wise with the fast engine; docs/captures.md "Settling readings" explains it.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "capture/capture.hpp"
#include "capture/diff.hpp"

namespace enc5::capture {

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
  bool exact() const { return arena == 0 && surface == 0; }
  bool operator<(const Score& o) const { return arena != o.arena ? arena < o.arena : surface < o.surface; }
  bool operator==(const Score& o) const { return arena == o.arena && surface == o.surface; }
};

struct Alternative {
  std::string name, value;  // name "profile" for the profile
  Score score;              // the best setting with this one value changed
};

struct SettleResult {
  Setting best;
  Score score;
  FileDiff arena, surface;            // best vs the capture's results
  std::vector<Alternative> alternatives;  // every single-value change of the best
  std::vector<std::string> log;       // accepted search steps
  int runs = 0;
  double seconds = 0;
  bool budget_exhausted = false;
};

struct SettleOptions {
  int threads = 0;
  int max_runs = 800;  // layer runs in the search (the final alternatives scan is extra)
  std::function<void(int runs, const std::string& what)> progress;
};

// c.results must be present (launch dumps, or a replay capture with results/).
SettleResult settle(const LaunchCapture& c, const SettleOptions& o);

}  // namespace enc5::capture
