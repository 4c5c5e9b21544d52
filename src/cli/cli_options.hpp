// Small command-line helpers shared by `rrswin run`, `replay`, `capture`, `diff` and `settle`: one
// option loop (--name VALUE or --name=VALUE), integer parsing with ranges, the ranges of the
// launch's fields, and the common run options.
#pragma once
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "api/frame.hpp"
#include "capture/capture.hpp"
#include "capture/debug_stage.hpp"
#include "io/numbers.hpp"
#include "model/layer_golden.hpp"
#include "model/layer_spec.hpp"
#include "model/readings.hpp"
#include "numerics/profile.hpp"

namespace rrswin::cli {

// A wrong command line: the commands print it with "(rrswin CMD --help)" and exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Every stage a --trace named (but "all") must have been recorded, and "all" must have recorded
// some: a misspelt name or a block the grid lacks would otherwise give a silently empty trace. One
// rule for every layer (issue 38, F6).
inline void check_trace_stages(const std::vector<std::string>& asked, const Trace& trace) {
  for (const std::string& s : asked) {
    if (s == "all") continue;
    bool found = false;
    for (const TraceStage& t : trace.stages) found = found || t.name == s;
    if (!found) {
      std::string known;
      for (const TraceStage& t : trace.stages) known += (known.empty() ? "" : ", ") + t.name;
      throw UsageError("--trace: the model recorded no stage named '" + s + "'" +
                       (known.empty() ? std::string(" (run --trace all to list them)") : " (recorded: " + known + ")"));
    }
  }
  if (trace.stages.empty()) throw std::runtime_error("--trace all: the model recorded no stage");
}
// --block X,Y of a trace must lie in the grid the launch runs.
inline void check_trace_block(int block_x, int block_y, int grid_x, int grid_y) {
  if (block_x >= grid_x || block_y >= grid_y)
    throw UsageError("--block " + std::to_string(block_x) + "," + std::to_string(block_y) + " is outside the grid " +
                     std::to_string(grid_x) + "x" + std::to_string(grid_y));
}

// --layer's value: one of the network's layers (model/layers.def), else a UsageError that lists them;
// with `runnable`, a layer that does not run yet is refused too (naming the layers that do).
inline LayerId layer_option(const std::string& value, bool runnable = true) {
  LayerId id{};
  if (!parse_layer(value, &id)) throw UsageError("--layer: expected one of " + std::string(layer_names()) + ", got '" + value + "'");
  if (runnable && !layer_spec(id).runnable)
    throw UsageError("--layer " + value + ": " + std::string(value) + " does not run yet: rrswin runs " +
                     std::string(runnable_layer_names()) + " (rrswin inspect --layer " + value + " prints its tables)");
  return id;
}

// enc5's own options of `rrswin run` (its frame's files and geometry, traces, saved inputs,
// sequences, d4r dumps, readings): the network run, `rrswin run`'s default, takes none of them, and
// any of them on a command line without --layer or --network runs enc5 alone (cli/cmd_run.cpp).
inline constexpr std::array<std::string_view, 16> kEnc5RunOptions = {
    "--weights", "--input",   "--texture", "--texture-raw", "--texture-shape", "--ex",       "--ey",        "--block-offset",
    "--stress",  "--reading", "--trace",   "--block",       "--save-inputs",   "--sequence", "--from-dump", "--launch"};
// `arg` is one of them (as --name or --name=value).
inline bool is_enc5_run_option(std::string_view arg) {
  const std::string_view name = arg.substr(0, arg.find('='));
  for (std::string_view o : kEnc5RunOptions)
    if (name == o) return true;
  return false;
}
// "--weights, --input, ..., --launch".
inline std::string enc5_run_option_list() {
  std::string s;
  for (std::string_view o : kEnc5RunOptions) s += (s.empty() ? "" : ", ") + std::string(o);
  return s;
}

// The ranges of the launch's fields on every command line. Extents: api/frame.hpp kMaxGridExtent (what
// run_frame accepts); block offsets: the u16 fields at param+80/+82 (facts A4); threads and seeds:
// generous bounds that keep the int / u64 conversions exact.
inline constexpr long long kExtentMin = 1, kExtentMax = kMaxGridExtent;
inline constexpr long long kBlockOffsetMax = 65535;
inline constexpr long long kThreadsMax = 4096;
inline constexpr long long kSeedMax = 1ll << 62;

// An option's number, through the one checked parser (io/numbers.hpp): the message names the option,
// the text and the range.
inline long long parse_int(std::string_view opt, std::string_view s, long long lo, long long hi) {
  try {
    return checked_i64(opt, s, lo, hi);
  } catch (const NumberError& e) {
    throw UsageError(e.what());
  }
}

inline std::pair<long long, long long> parse_pair(std::string_view opt, std::string_view s, long long lo, long long hi) {
  const auto comma = s.find(',');
  if (comma == std::string_view::npos) throw UsageError(std::string(opt) + ": expected X,Y, got '" + std::string(s) + "'");
  return {parse_int(opt, s.substr(0, comma), lo, hi), parse_int(opt, s.substr(comma + 1), lo, hi)};
}

// "SX,SY": two finite numbers (a decoder's +136 coordinate scale, --scale).
inline std::pair<float, float> parse_scale(std::string_view opt, std::string_view s) {
  const std::string v(s);
  const std::size_t comma = v.find(',');
  char* end = nullptr;
  const float x = comma == std::string::npos ? 0 : std::strtof(v.c_str(), &end);
  const bool x_ok = comma != std::string::npos && comma > 0 && end == v.c_str() + comma;
  const float y = x_ok ? std::strtof(v.c_str() + comma + 1, &end) : 0;
  if (!x_ok || comma + 1 == v.size() || end != v.c_str() + v.size() || !std::isfinite(x) || !std::isfinite(y))
    throw UsageError(std::string(opt) + " wants SX,SY (two finite numbers), got '" + v + "'");
  return {x, y};
}

// Walks args: calls on_option(name, take, flag) for every --option, on_positional(arg) otherwise.
// take() returns the option's value (inline after '=' or the next argument); flag() checks the
// option has no inline value.
struct OptionCursor {
  explicit OptionCursor(const std::vector<std::string>& a) : args(a) {}
  const std::vector<std::string>& args;
  std::size_t i = 0;
  std::string name, inline_value;
  bool has_inline = false;
  bool next() {
    if (i >= args.size()) return false;
    name = args[i++];
    has_inline = false;
    if (name.rfind("--", 0) == 0) {
      const auto eq = name.find('=');
      if (eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        name = name.substr(0, eq);
        has_inline = true;
      }
    }
    return true;
  }
  bool is_option() const { return name.size() > 1 && name[0] == '-'; }
  std::string take() {
    if (has_inline) return inline_value;
    if (i >= args.size()) throw UsageError(name + " needs a value");
    return args[i++];
  }
  void flag() const {
    if (has_inline) throw UsageError(name + " takes no value");
  }
};

// --profile, --reading, --engine, --threads: returns true when the option was one of them.
struct RunChoice {
  std::string profile = "ada";
  std::vector<std::string> readings;
  std::string engine = "fast";
  int threads = 0;
  bool handle(OptionCursor& c) {
    if (c.name == "--profile") {
      profile = c.take();
      if (!find_profile(profile)) throw UsageError("--profile: expected " + std::string(profile_names()) + ", got '" + profile + "'");
    } else if (c.name == "--reading") {
      readings.push_back(c.take());
    } else if (c.name == "--engine") {
      engine = c.take();
      if (engine != "golden" && engine != "fast") throw UsageError("--engine: expected golden or fast, got '" + engine + "'");
    } else if (c.name == "--threads") {
      threads = static_cast<int>(parse_int(c.name, c.take(), 0, kThreadsMax));
    } else {
      return false;
    }
    return true;
  }
  Readings parsed_readings() const {
    Readings out;
    for (const std::string& r : readings) {
      std::string err;
      if (!set_reading(out, r, &err)) throw UsageError("--reading " + r + ": " + err + " (rrswin readings lists them)");
    }
    return out;
  }
  RunOptions options() const {
    RunOptions o;
    o.profile = find_profile(profile);
    o.readings = parsed_readings();
    o.engine = engine == "golden" ? Engine::golden : Engine::fast;
    o.threads = threads;
    return o;
  }
};

// --layer-reading NAME=VALUE, each (the merge layers' and decoders' readings, model/layer_golden.hpp):
// the network's runs (run --network, capture/replay --network) alike.
inline LayerReadings parse_layer_readings(const std::vector<std::string>& list) {
  LayerReadings lr;
  for (const std::string& r : list) {
    std::string err;
    if (!set_layer_reading(lr, r, &err)) throw UsageError("--layer-reading " + r + ": " + err);
  }
  return lr;
}

// --kernel, --ex, --ey, --block-offset: how a capture is read (replay and settle alike); returns
// true when the option was one of them.
inline bool handle_load_option(OptionCursor& c, capture::LoadOptions& load) {
  if (c.name == "--kernel") {
    load.kernel_filter = c.take();
  } else if (c.name == "--ex") {
    load.ex = static_cast<int>(parse_int(c.name, c.take(), kExtentMin, kExtentMax));
  } else if (c.name == "--ey") {
    load.ey = static_cast<int>(parse_int(c.name, c.take(), kExtentMin, kExtentMax));
  } else if (c.name == "--block-offset") {
    const auto [x, y] = parse_pair(c.name, c.take(), 0, kBlockOffsetMax);
    load.ox = static_cast<int>(x);
    load.oy = static_cast<int>(y);
  } else {
    return false;
  }
  return true;
}

// --stage NAME, --debug-base N: a debug-oracle stage of the capture (facts F1/F2; diff, settle,
// replay and capture alike); returns true when the option was one of them.
inline bool handle_stage_option(OptionCursor& c, capture::StageChoice& s) {
  if (c.name == "--stage") {
    const std::string v = c.take();
    s.stage = capture::find_debug_stage(v);
    if (!s.stage)
      throw UsageError("--stage: expected one of d4r's debug stages " + capture::debug_stage_names() + " (facts F2), got '" + v + "'");
  } else if (c.name == "--debug-base") {
    // D4R_RRSWIN_DEBUG_BASE (facts F1): bytes from the arena pointer; bounded so that no sum wraps.
    s.debug_base = static_cast<std::uint64_t>(parse_int(c.name, c.take(), 0, 1ll << 40));
  } else {
    return false;
  }
  return true;
}

// Progress lines go to stderr only when it is a terminal (silence when piped or captured).
inline bool progress_enabled() { return isatty(2) != 0; }

}  // namespace rrswin::cli
