// `rrswin settle CAPTURE`: searches the readings and profiles for the combination that reproduces
// the original's outputs held by a capture (capture/settle.hpp; docs/captures.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <string>

#include "assets/oracle_launches.hpp"
#include "bridge/enc5_launch.hpp"
#include "capture/capture.hpp"
#include "capture/settle.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "model/readings.hpp"
#include "ptx/ptx.hpp"

namespace rrswin::cli {
namespace {

using namespace rrswin::capture;
namespace fs = std::filesystem;

constexpr const char* kSettleHelp = R"(usage: rrswin settle CAPTURE [OPTIONS]
       rrswin settle --oracle FILE.ptx [--entry NAME] [--oracle-profile ada|zluda|hopper|blackwell] [OPTIONS]

Finds which readings (rrswin readings) and profile (ada | zluda | hopper | blackwell) reproduce the original's outputs
that CAPTURE holds: the arg048 output arena and the arg112 surface of a launch-dump folder (facts
F5), or a replay capture's results/ folder (docs/captures.md).

The search never enumerates the product of the readings. Each reading is grouped by the output it
can change: E61's readings (filter-*) only the surface; arena-order and arena-lane-guard only the arena;
the rest and the profile both. Phase A descends coordinate-wise over the arena-moving readings
(objective: arena bytes differing, then surface bytes), trying pairs of changes when stuck; phase
B does the same over E61's readings against the surface. Each step is one run of the fast engine.
Finally every single-value change of the best is run: values that score the same cannot be told
apart by this capture and are reported as not settled. The instruction-level mma-* readings (the
mma's NaN / Inf / overflow / zero-sign corners) are not searched: they stay at `profile`.

CAPTURE may be an interpreter run: `rrswin ptx run FILE.ptx --capture CAP -o DIR` writes DIR as a
launch-dump folder holding the interpreted kernel's outputs. --oracle FILE.ptx makes those runs
itself: the kernel's PTX (the corpus's original enc5 entry) run by the PTX interpreter under
--oracle-profile (default ada) on five launches (the demo frame 40x23; the stress assets; a border
geometry, 13x11 tokens with block offsets 3,5; two 8x8 frames built for the sums' orders, whose
tokens span wide magnitudes and whose E61 logits are constant), each settled in turn (JSON: one
object per launch in an array). On them every pair of values of every reading, and of the
profiles, gives different outputs, so the run decides every reading (docs/readings.md §6).

With --stage wN (a capture taken with d4r's debug oracle, D4R_RRSWIN_DEBUG=wN, facts F1/F2),
settle works on that stage instead: the registers of warp 0 of every block in the window at the
arena pointer + the debug base, against enc5's golden trace of the same stage, searching only
the readings that feed it (the prologue's for w1..w12, plus phase 13's C for p13c/p13d) and the
profile. Stage w1 settles the prologue's readings (halo order, fill, load order, norm, epsilon,
sum tree) whatever the later parts of the layer do.

options:
  --oracle FILE.ptx     settle against the interpreted PTX instead of a CAPTURE
  --entry NAME          the oracle's entry (default cuda_dldn_engine_swin_enc5_kernel, or the only one)
  --oracle-profile P    the semantics the oracle runs under (default ada)
  --stage NAME          settle on a debug stage: w1..w12, p13c, p13d (facts F2)
  --debug-base N        D4R_RRSWIN_DEBUG_BASE of the capture (default 4000000, facts F1)
  --json                one JSON object on stdout instead of text
  --launch N            the launch to settle when CAPTURE holds several (default: the first)
  --kernel SUBSTRING    launches of which kernel (default swin_enc5)
  --ex N --ey N         extents of launch dumps (default: the surface's size)
  --block-offset X,Y    block offsets of launch dumps (default 0,0)
  --threads N           worker threads per run (default 0 = all)
  --max-runs N          every layer run settle makes, in all (default 800): the search, the
                        scan of the best's single changes and the best's own run
  -h, --help            this text

Exit status: 0 when a combination reproduces both outputs exactly, 1 when none found does,
2 on errors.
)";

std::string score_text(const Score& s, const SettleOptions& o) {
  if (o.stage)
    return s.stage == 0 ? std::string("reproduces stage ") + o.stage->name + " exactly"
                        : std::string("stage ") + o.stage->name + ": " + std::to_string(s.stage) + " registers differ";
  if (s.exact()) return "reproduces arena and surface exactly";
  return "arena " + std::to_string(s.arena) + " bytes differ, surface " + std::to_string(s.surface) + " bytes differ";
}

using Undecided = std::map<std::string, std::vector<std::string>>;
int settle_one(const LaunchCapture& cap, SettleOptions so, bool json, Undecided* undecided_out = nullptr);
int settle_oracle(const std::string& file, const std::string& entry, const std::string& oracle_profile, SettleOptions so, bool json);

int settle_main(const Args& args) {
  OptionCursor cur(args);
  LoadOptions load;
  SettleOptions so;
  StageChoice stage;
  std::string capture, oracle, entry, oracle_profile = "ada";
  bool json = false;
  long long launch = -1;
  while (cur.next()) {
    if (!cur.is_option()) {
      if (!capture.empty()) throw UsageError("one CAPTURE folder expected");
      capture = cur.name;
    } else if (cur.name == "-h" || cur.name == "--help") {
      std::fputs(kSettleHelp, stdout);
      return 0;
    } else if (cur.name == "--json") {
      cur.flag();
      json = true;
    } else if (cur.name == "--launch") {
      launch = parse_int(cur.name, cur.take(), 0, 999999);
    } else if (handle_load_option(cur, load)) {
    } else if (handle_stage_option(cur, stage)) {
    } else if (cur.name == "--threads") {
      so.threads = static_cast<int>(parse_int(cur.name, cur.take(), 0, 4096));
    } else if (cur.name == "--oracle") {
      oracle = cur.take();
    } else if (cur.name == "--entry") {
      entry = cur.take();
    } else if (cur.name == "--oracle-profile") {
      oracle_profile = cur.take();
      if (!find_profile(oracle_profile))
        throw UsageError("--oracle-profile: expected " + std::string(profile_names()) + ", got '" + oracle_profile + "'");
    } else if (cur.name == "--max-runs") {
      so.max_runs = static_cast<int>(parse_int(cur.name, cur.take(), 1, 1000000));
    } else {
      throw UsageError("unknown option '" + cur.name + "'");
    }
  }
  if (!oracle.empty()) {
    if (stage.stage) throw UsageError("--stage settles a debug-oracle capture; --oracle runs the PTX interpreter instead: drop one");
    if (!capture.empty()) throw UsageError("give a CAPTURE or --oracle FILE.ptx, not both");
    return settle_oracle(oracle, entry, oracle_profile, so, json);
  }
  if (capture.empty()) throw UsageError("no CAPTURE folder given (or --oracle FILE.ptx)");
  so.stage = stage.stage;
  so.debug_base = stage.debug_base;
  const auto launches = load_captures(capture, load);
  const LaunchCapture* c = &launches.front();
  if (launch >= 0) {
    c = nullptr;
    for (const auto& l : launches)
      if (l.launch == launch) c = &l;
    if (!c) throw UsageError("--launch " + std::to_string(launch) + ": no such launch in " + capture);
  }
  return settle_one(*c, so, json);
}

// An oracle launch as a replay capture held in memory (the state before the launch; made-up
// device addresses: only the offsets matter, docs/captures.md).
LaunchCapture oracle_capture(const OracleLaunch& l) {
  LaunchCapture c;
  c.source = l.name;
  c.form = Form::replay;
  c.ex = static_cast<std::uint32_t>(l.ex);
  c.ey = static_cast<std::uint32_t>(l.ey);
  c.ox = static_cast<std::uint16_t>(l.ox);
  c.oy = static_cast<std::uint16_t>(l.oy);
  const auto buffer = [](const char* what, std::uint64_t base, std::vector<std::uint8_t> bytes) {
    BufferArg b;
    b.file = what;
    b.base = base;
    b.shape = buffer_shape(base, bytes.size(), 0);
    b.bytes = std::move(bytes);
    return b;
  };
  c.input = buffer("(oracle input arena)", 0x7f0000000000ull, l.input_arena);
  c.weights = buffer("(oracle weight image)", 0x7f0010000000ull, {l.weights.bytes().begin(), l.weights.bytes().end()});
  c.output = buffer("(oracle output arena)", 0x7f0020000000ull, std::vector<std::uint8_t>(l.input_arena.size(), 0));
  const auto image = [](const char* what, int w, int h, bool texture) {
    ImageArg a;
    a.file = what;
    a.width = w;
    a.height = h;
    a.pitch = 8 * static_cast<std::size_t>(w);
    a.bytes.assign(a.pitch * h, 0);
    a.shape = image_shape(a, texture);
    return a;
  };
  c.texture = image("(oracle texture)", l.texture.width, l.texture.height, true);
  c.texture.mode = l.texture.mode;
  for (std::size_t i = 0; i < l.texture.rgba.size(); ++i) {
    c.texture.bytes[2 * i] = static_cast<std::uint8_t>(l.texture.rgba[i]);
    c.texture.bytes[2 * i + 1] = static_cast<std::uint8_t>(l.texture.rgba[i] >> 8);
  }
  c.surface = image("(oracle surface)", l.ex, l.ey, false);
  return c;
}

int settle_oracle(const std::string& file, const std::string& entry_opt, const std::string& oracle_profile, SettleOptions so, bool json) {
  const auto m = ptx::load_module(file);
  std::string entry = entry_opt;
  if (entry.empty()) {
    const auto names = ptx::entry_names(*m);
    for (const auto& n : names)
      if (n == ptx::kEnc5Entry) entry = n;
    if (entry.empty() && names.size() == 1) entry = names[0];
    if (entry.empty()) throw UsageError(file + " has several entries: choose one with --entry");
  }
  // The launch set (assets/oracle_launches.hpp): on these, every pair of values of every searched
  // reading and every pair of profiles gives different outputs (tests/oracle_launches_test.cpp).
  const std::vector<OracleLaunch> scenarios = oracle_launches();
  ptx::RunOptions ro;
  ro.profile = find_profile(oracle_profile);
  ro.threads = so.threads;
  int status = 0;
  Undecided together;  // (reading, value) pairs that tie the best in every launch so far
  if (json) std::printf("[\n");
  for (std::size_t k = 0; k < scenarios.size(); ++k) {
    LaunchCapture c = oracle_capture(scenarios[k]);
    if (!json)
      std::printf("%s== oracle %s, entry %s (%s), profile %s: %s (for %s)\n", k ? "\n" : "", file.c_str(), entry.c_str(), "PTX interpreter",
                  oracle_profile.c_str(), scenarios[k].name.c_str(), scenarios[k].why.c_str());
    std::fflush(stdout);
    ptx::RunStats st;
    const std::clock_t c0 = std::clock();
    const auto t0 = std::chrono::steady_clock::now();
    c.results = ptx::run_enc5_capture(*m, entry, c, ro, &st);
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!json)
      std::printf("interpreted: %llu CTAs, %llu lane instructions in %.1f s (%.1f s CPU)\n", static_cast<unsigned long long>(st.ctas),
                  static_cast<unsigned long long>(st.lane_instructions), wall, cpu);
    c.source = file + " (interpreted, " + scenarios[k].name + ")";
    if (json && k) std::printf(",\n");
    Undecided u;
    status = std::max(status, settle_one(c, so, json, &u));
    if (k == 0) {
      together = u;
    } else {
      Undecided both;
      for (const auto& [n, vs] : together) {
        auto it = u.find(n);
        if (it == u.end()) continue;
        for (const auto& v : vs)
          if (std::find(it->second.begin(), it->second.end(), v) != it->second.end()) both[n].push_back(v);
      }
      together = both;
    }
  }
  if (json) {
    std::printf("]\n");
  } else if (status == 0) {
    std::printf("\nall %zu launches together: %s\n", scenarios.size(),
                together.empty() ? "every reading is settled (each other value changes some launch's outputs)"
                                 : "these values are not told apart by any of them:");
    for (const auto& [n, vs] : together) {
      std::string v;
      for (const auto& x : vs) v += (v.empty() ? "" : " | ") + x;
      std::printf("  %s: %s\n", n.c_str(), v.c_str());
    }
  }
  return status;
}

int settle_one(const LaunchCapture& cap, SettleOptions so, bool json, Undecided* undecided_out) {
  const LaunchCapture* c = &cap;
  if (progress_enabled())
    so.progress = [](int runs, const std::string& what) { std::fprintf(stderr, "\r\033[K[run %d] %s", runs, what.c_str()); };
  const SettleResult r = settle(*c, so);
  if (progress_enabled()) std::fprintf(stderr, "\r\033[K");

  // Readings the capture cannot decide: alternatives scoring like the best.
  std::map<std::string, std::vector<std::string>> undecided;
  for (const Alternative& a : r.alternatives)
    if (a.score == r.score) undecided[a.name].push_back(a.value);
  if (undecided_out) *undecided_out = undecided;

  if (json) {
    std::printf("{\"capture\": %s, \"launch\": %u, \"exact\": %s, \"arena_bytes_differing\": %llu, \"surface_bytes_differing\": %llu,\n",
                json_escape(c->source).c_str(), c->launch, r.score.exact() ? "true" : "false",
                static_cast<unsigned long long>(r.score.arena), static_cast<unsigned long long>(r.score.surface));
    std::printf(" \"best\": {\"profile\": %s", json_escape(r.best.profile).c_str());
    for (const auto& [n, v] : r.best.values) std::printf(", %s: %s", json_escape(n).c_str(), json_escape(v).c_str());
    std::printf("},\n \"best_changes\": %s,\n \"not_settled\": {", json_escape(r.best.describe_changes()).c_str());
    bool first = true;
    for (const auto& [n, vs] : undecided) {
      std::printf("%s%s: [", first ? "" : ", ", json_escape(n).c_str());
      for (std::size_t i = 0; i < vs.size(); ++i) std::printf("%s%s", i ? ", " : "", json_escape(vs[i]).c_str());
      std::printf("]");
      first = false;
    }
    std::printf("},\n \"alternatives\": [");
    for (std::size_t i = 0; i < r.alternatives.size(); ++i)
      std::printf("%s{\"name\": %s, \"value\": %s, \"arena\": %llu, \"surface\": %llu, \"stage\": %llu}", i ? ", " : "",
                  json_escape(r.alternatives[i].name).c_str(), json_escape(r.alternatives[i].value).c_str(),
                  static_cast<unsigned long long>(r.alternatives[i].score.arena),
                  static_cast<unsigned long long>(r.alternatives[i].score.surface),
                  static_cast<unsigned long long>(r.alternatives[i].score.stage));
    std::printf("],\n \"steps\": [");
    for (std::size_t i = 0; i < r.log.size(); ++i) std::printf("%s%s", i ? ", " : "", json_escape(r.log[i]).c_str());
    std::printf("]");
    if (r.stage)
      std::printf(",\n \"stage\": %s, \"stage_registers_differing\": %llu", to_json(*r.stage).c_str(),
                  static_cast<unsigned long long>(r.score.stage));
    std::printf(
        ",\n \"arena\": %s,\n \"surface\": %s,\n \"runs\": %d, \"seconds\": %.2f, \"budget_exhausted\": %s, \"alternatives_complete\": %s}\n",
        to_json(r.arena).c_str(), to_json(r.surface).c_str(), r.runs, r.seconds, r.budget_exhausted ? "true" : "false",
        r.alternatives_complete ? "true" : "false");
  } else {
    std::printf(
        "rrswin settle: %s, launch %u (%s), ex %u, ey %u%s\n", c->source.c_str(), c->launch, c->kernel.c_str(), c->ex, c->ey,
        so.stage ? (std::string(", debug stage ") + so.stage->name + " at debug base " + std::to_string(so.debug_base)).c_str() : "");
    std::printf("search (%d runs, %.1f s%s):\n", r.runs, r.seconds,
                r.budget_exhausted
                    ? (", budget exhausted: --max-runs " + std::to_string(so.max_runs) + " reached (raise it to search further)").c_str()
                    : "");
    for (const auto& l : r.log) std::printf("  %s\n", l.c_str());
    std::printf("best: %s\n  %s\n", r.best.describe_changes().c_str(), score_text(r.score, so).c_str());
    if (!r.alternatives_complete) {
      std::printf("which readings this capture settles is not known: --max-runs %d left single changes of the best unrun\n", so.max_runs);
    } else if (undecided.empty()) {
      std::printf("every reading is settled by this capture (each other value changes the outputs)\n");
    } else {
      std::printf("not settled by this capture (these values reproduce the same %s):\n", so.stage ? "stage registers" : "outputs");
      for (const auto& [n, vs] : undecided) {
        std::string s;
        for (const auto& v : vs) s += (s.empty() ? "" : " | ") + v;
        std::printf("  %s = %s, or %s\n", n.c_str(), r.best.value(n).c_str(), s.c_str());
      }
    }
    if (r.stage && !r.stage->identical()) {
      std::printf("where the best still differs:\n  %s", describe(*r.stage).c_str());
    } else if (!r.stage && !r.score.exact()) {
      std::printf("where the best still differs:\n");
      if (!r.arena.identical())
        std::printf("  arena (E60's scatter or earlier):\n%s", describe(r.arena).c_str());
      else
        std::printf("  arena identical: everything up to E60 agrees\n");
      if (!r.surface.identical()) std::printf("  surface (E61):\n%s", describe(r.surface).c_str());
      std::printf("(rrswin replay CAPTURE -o DIR with these readings, then rrswin diff, shows the rest)\n");
    }
  }
  return r.score.exact() ? 0 : 1;
}

}  // namespace

int cmd_settle(const Args& args) {
  Args rest;
  int rc = 0;
  return layer_capture_command("settle", args, &rest, &rc) ? rc : settle_main(rest);
}

}  // namespace rrswin::cli
