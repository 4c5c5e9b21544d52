// `rrswin replay` (run enc5 on captures of the original kernel, facts §F5/§F6) and `rrswin capture`
// (write enc5's own runs in those formats). Formats and decisions: docs/captures.md.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "capture/capture.hpp"
#include "capture/debug_stage.hpp"
#include "capture/diff.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "io/files.hpp"
#include "io/output_set.hpp"

namespace rrswin::cli {
namespace {

using namespace rrswin::capture;
namespace fs = std::filesystem;

constexpr const char* kReplayHelp = R"(usage: rrswin replay CAPTURE -o DIR [OPTIONS]

Runs enc5 on the inputs of captured launches of cuda_dldn_engine_swin_enc5_kernel and writes a
complete replay folder in d4r's launch-dump naming (facts F5), so that d4r's comparison (keys:
kernel, arg offset, kind, shape without base0x..., fmt, occurrence) of the capture with it passes
exactly when rrswin reproduces the launch:
  launch-NNN-<kernel>-arg048-buffer-<shape>-fmt0.bin     the output arena's allocation (enc5's)
  launch-NNN-<kernel>-arg112-surface-<shape>-fmt16.bin   the RGBA16F surface memory (enc5's)
  the read-only arguments arg008, arg040, arg088 (and any other file of the launch), named as in
  the capture: hard links where the file system allows, else byte copies

CAPTURE is a folder of launch dumps (one or several launches; only kernels matching --kernel),
a replay capture (manifest.txt, args.bin, alloc-N.bin), or a folder of several captures (each
one's outputs go to the same-named sub-folder of DIR). With more than one launch a throughput
summary ends the output. When the capture holds the original's
results, each launch also says whether rrswin reproduced them (see rrswin diff for the details).

options:
  -o, --out DIR             output folder (created if missing; required)
  --profile ada|zluda|hopper|blackwell
                            instruction semantics (default ada; as rrswin run)
  --reading NAME=VALUE      a reading of an open spec question (repeatable; rrswin readings)
  --engine golden|fast      implementation (default fast; bit-identical to golden)
  --threads N               worker threads (default 0 = all)
  --kernel SUBSTRING        which launches of a dump folder to replay (default swin_enc5)
  --ex N --ey N             extents of launch dumps (default: the surface's width and height)
  --block-offset X,Y        block offsets ox, oy of launch dumps (default 0,0)
  --stage NAME              the capture was taken with d4r's debug oracle (D4R_RRSWIN_DEBUG=
                            NAME, facts F1): rrswin stores its own trace of that stage into the
                            replayed output allocation as the oracle does, so d4r's comparison
                            compares the stage too, and the verdict includes it
  --debug-base N            D4R_RRSWIN_DEBUG_BASE of the capture (default 4000000)
  --json                    one JSON object per launch and a summary, on stdout
  --layer enc4              a replay capture of enc4's kernel instead (rrswin replay --layer enc4 --help)
  --network                 one frame's launches of every layer, per layer or chained (rrswin replay --network --help)
  -h, --help                this text

Exit status: 0 when every launch ran (and reproduced the results the capture holds, if any),
1 when a result differs, 2 on errors (unreadable capture: the message names file and offset).
)";

constexpr const char* kCaptureHelp = R"(usage: rrswin capture --synthetic -o DIR [OPTIONS]

Writes a synthetic capture: enc5's own run (synthetic weights, input arena and texture) in the
formats d4r captures the original in (docs/captures.md):
  --form launch   one launch's dumps launch-NNN-<kernel>-argNNN-...-fmtN.bin (facts F5), taken
                  after the launch: arg048 and arg112 hold enc5's results (default)
  --form replay   a replay capture (facts F6): manifest.txt, args.bin, alloc-0..2.bin,
                  texture-088.bin, surface-112.bin before the launch, and results/ with the
                  arg048/arg112 files after it

options:
  --synthetic               required: the only source of captures rrswin makes itself
  -o, --out DIR             output folder (created if missing; required)
  --form launch|replay      see above (default launch)
  --seed N, --stress        the synthetic assets (as rrswin run; default seed 1)
  --ex N --ey N             extents (default 40, 23)
  --block-offset X,Y        block offsets ox, oy (default 0,0)
  --window BEFORE,AFTER     put the output arena inside a larger allocation, BEFORE and AFTER
                            bytes around it (facts F4's trap; default 0,0)
  --launch N                launch number NNN in the file names (default 1)
  --stage NAME              a debug-oracle capture (facts F1/F2): the output allocation also
                            holds stage NAME (w1..w12, p13c, p13d) of warp 0 of every block,
                            from rrswin's trace, at the arena pointer + the debug base
  --debug-base N            D4R_RRSWIN_DEBUG_BASE (default 4000000)
  --profile ada|zluda|hopper|blackwell, --reading NAME=VALUE, --engine golden|fast, --threads N
                            the run whose outputs the capture holds (as rrswin run)
  --layer enc4              a synthetic replay capture of enc4's kernel (rrswin capture --layer enc4 --help)
  --network                 one frame's launches of every layer (rrswin capture --network --help)
  -h, --help                this text

Exit status: 0 written, 2 on errors (a wrong command line or an unwritable folder).
)";

std::string human_kernel(const LaunchCapture& c) {
  char b[32];
  std::snprintf(b, sizeof b, "launch %03u", c.launch);
  return b + std::string(" ") + c.kernel;
}

struct ReplayArgs {
  RunChoice run;
  LoadOptions load;
  StageChoice stage;
  std::string capture, out;
  bool json = false, help = false;
};

ReplayArgs parse_replay_args(const Args& args) {
  ReplayArgs a;
  OptionCursor cur(args);
  while (cur.next()) {
    if (!cur.is_option()) {
      if (!a.capture.empty()) throw UsageError("one CAPTURE folder expected, got '" + a.capture + "' and '" + cur.name + "'");
      a.capture = cur.name;
    } else if (cur.name == "-h" || cur.name == "--help") {
      a.help = true;
    } else if (cur.name == "-o" || cur.name == "--out") {
      a.out = cur.take();
    } else if (handle_load_option(cur, a.load)) {
    } else if (handle_stage_option(cur, a.stage)) {
    } else if (cur.name == "--json") {
      cur.flag();
      a.json = true;
    } else if (!a.run.handle(cur)) {
      throw UsageError("unknown option '" + cur.name + "'");
    }
  }
  return a;
}

// One launch replayed: enc5's outputs (with the stage payload stored, --stage) and the verdicts.
struct Replayed {
  ReplayOutputs r;
  std::optional<StageDiff> stage;
  FileDiff arena, surface;
  double ms = 0;
};

Replayed replay_one(const LaunchCapture& c, const ReplayArgs& a, const RunOptions& options, bool progress) {
  Replayed out;
  const auto t0 = std::chrono::steady_clock::now();
  RunOptions o = options;
  ProgressLine line(human_kernel(c));
  if (!progress) o.progress = line.callback();  // several launches: the [i/n] line instead
  out.r = replay_launch(c, o);
  line.finish();
  if (a.stage.stage) {
    // The oracle's stores, enc5's values (facts F1); compared with the capture's own window.
    const StagePayload mine = compute_stage_payload(c, *a.stage.stage, a.stage.debug_base, options);
    out.stage = diff_stage(read_stage_payload(c, *a.stage.stage, a.stage.debug_base), mine);
    store_stage_payload(out.r.output_alloc, c.output.offset, mine, c.output.file);
  }
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (c.results) {
    out.arena = diff_arena(c.results->output_alloc, out.r.output_alloc, c.ex, c.ey, c.output.offset, c.ox, c.oy);
    out.surface = diff_surface(c.results->surface_bytes, out.r.surface_bytes, c.surface.width, c.surface.height, c.surface.pitch);
  }
  return out;
}

bool reproduced(const Replayed& x) { return x.arena.identical() && x.surface.identical() && (!x.stage || x.stage->identical()); }

void print_launch(const LaunchCapture& c, const ReplayArgs& a, const Replayed& x, const std::vector<std::string>& paths, bool first,
                  bool progress) {
  if (a.json) {
    std::printf("%s\n  {\"source\": %s, \"launch\": %u, \"kernel\": %s, \"ex\": %u, \"ey\": %u, \"ms\": %.3f, \"outputs\": [%s, %s]",
                first ? "" : ",", json_escape(c.source).c_str(), c.launch, json_escape(c.kernel).c_str(), c.ex, c.ey, x.ms,
                json_escape(paths[0]).c_str(), json_escape(paths[1]).c_str());
    if (c.results) std::printf(", \"arena\": %s, \"surface\": %s", to_json(x.arena).c_str(), to_json(x.surface).c_str());
    if (x.stage) std::printf(", \"stage\": %s", to_json(*x.stage).c_str());
    std::printf("}");
    return;
  }
  std::string verdict = "no results in the capture";
  if (c.results)
    verdict = reproduced(x)
                  ? std::string("reproduces the capture's results") + (x.stage ? std::string(" and stage ") + a.stage.stage->name : "")
                  : "DIFFERS from the capture's results: arena " + std::to_string(x.arena.differing) + " bytes, surface " +
                        std::to_string(x.surface.differing) + " bytes" +
                        (x.stage ? ", stage " + x.stage->stage + " " + std::to_string(x.stage->differing) + " registers" : "");
  if (progress) std::fprintf(stderr, "\r\033[K");
  std::printf("%s: ex %u, ey %u, block offset (%u, %u), %.1f ms: %s\n", human_kernel(c).c_str(), c.ex, c.ey, c.ox, c.oy, x.ms,
              verdict.c_str());
  if (x.stage && !x.stage->identical()) std::printf("  %s", describe(*x.stage).c_str());
  for (const auto& p : paths) std::printf("  wrote %s\n", p.c_str());
}

int replay_main(const Args& args) {
  const ReplayArgs a = parse_replay_args(args);
  if (a.help) {
    std::fputs(kReplayHelp, stdout);
    return kExitOk;
  }
  if (a.capture.empty()) throw UsageError("no CAPTURE folder given");
  if (a.out.empty()) throw UsageError("no output folder: add -o DIR");
  const RunOptions options = a.run.options();
  // Every launch's files or none (io/output_set.hpp); an unwritable folder is found before any launch runs.
  OutputSet set(a.out);
  const auto launches = load_captures(a.capture, a.load);
  const bool progress = progress_enabled() && launches.size() > 1;
  double total_ms = 0;
  int differing = 0, with_results = 0;
  if (a.json) std::printf("{\"launches\": [");
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const LaunchCapture& c = launches[i];
    if (progress) std::fprintf(stderr, "\r[%zu/%zu] %s ...", i + 1, launches.size(), human_kernel(c).c_str());
    const Replayed x = replay_one(c, a, options, progress);
    total_ms += x.ms;
    const auto paths = write_replay_outputs(set, c, x.r);
    if (c.results) {
      ++with_results;
      if (!reproduced(x)) ++differing;
    }
    print_launch(c, a, x, paths, i == 0, progress);
    std::fflush(stdout);
  }
  set.commit();
  const double per = total_ms / launches.size();
  if (a.json) {
    std::printf("\n], \"launches_run\": %zu, \"total_ms\": %.3f, \"ms_per_launch\": %.3f, \"differing\": %d, \"with_results\": %d}\n",
                launches.size(), total_ms, per, differing, with_results);
  } else if (launches.size() > 1) {
    std::printf(
        "%zu launches in %.1f ms: %.2f ms per launch, %.1f launches/s%s\n", launches.size(), total_ms, per, per > 0 ? 1000.0 / per : 0.0,
        with_results ? (", " + std::to_string(differing) + " of " + std::to_string(with_results) + " differ from the capture").c_str()
                     : "");
  }
  return differing ? kExitDifferent : kExitOk;
}

int capture_main(const Args& args) {
  OptionCursor cur(args);
  RunChoice run;
  SyntheticCaptureOptions o;
  StageChoice stage;
  std::string out, form = "launch";
  bool synthetic = false;
  while (cur.next()) {
    if (!cur.is_option()) throw UsageError("unexpected argument '" + cur.name + "'");
    if (cur.name == "-h" || cur.name == "--help") {
      std::fputs(kCaptureHelp, stdout);
      return 0;
    } else if (cur.name == "--synthetic") {
      cur.flag();
      synthetic = true;
    } else if (cur.name == "-o" || cur.name == "--out") {
      out = cur.take();
    } else if (cur.name == "--form") {
      form = cur.take();
      if (form != "launch" && form != "replay") throw UsageError("--form: expected launch or replay, got '" + form + "'");
    } else if (cur.name == "--seed") {
      o.seed = static_cast<std::uint64_t>(parse_int(cur.name, cur.take(), 0, 1ll << 62));
    } else if (cur.name == "--stress") {
      cur.flag();
      o.stress = true;
    } else if (cur.name == "--ex") {
      o.ex = static_cast<int>(parse_int(cur.name, cur.take(), 1, 4096));
    } else if (cur.name == "--ey") {
      o.ey = static_cast<int>(parse_int(cur.name, cur.take(), 1, 4096));
    } else if (cur.name == "--block-offset") {
      const auto [x, y] = parse_pair(cur.name, cur.take(), 0, 65535);
      o.ox = static_cast<int>(x);
      o.oy = static_cast<int>(y);
    } else if (cur.name == "--window") {
      const auto [b, a] = parse_pair(cur.name, cur.take(), 0, 1ll << 30);
      o.window_before = static_cast<std::size_t>(b);
      o.window_after = static_cast<std::size_t>(a);
    } else if (cur.name == "--launch") {
      o.launch = static_cast<std::uint32_t>(parse_int(cur.name, cur.take(), 0, 999999));
    } else if (handle_stage_option(cur, stage)) {
    } else if (!run.handle(cur)) {
      throw UsageError("unknown option '" + cur.name + "'");
    }
  }
  if (!synthetic) throw UsageError("rrswin capture makes synthetic captures only: add --synthetic (real ones come from d4r, facts F5/F6)");
  if (out.empty()) throw UsageError("no output folder: add -o DIR");
  const RunOptions ro = run.options();
  o.profile = ro.profile;
  o.readings = ro.readings;
  o.engine = ro.engine;
  o.threads = ro.threads;
  o.stage = stage.stage;
  o.debug_base = stage.debug_base;
  check_output_dir(out);
  const auto files = write_synthetic_capture(out, form == "replay" ? Form::replay : Form::launch_dump, o);
  std::printf("synthetic %s capture (seed %llu%s, profile %s, ex %d, ey %d): %zu files in %s\n", form.c_str(),
              static_cast<unsigned long long>(o.seed), o.stress ? ", stress" : "", run.profile.c_str(), o.ex, o.ey, files.size(),
              out.c_str());
  for (const auto& f : files) std::printf("  %s\n", f.c_str());
  return 0;
}

}  // namespace

int cmd_replay(const Args& args) {
  Args rest;
  int rc = 0;
  if (network_capture_command("replay", args, &rc)) return rc;
  return layer_capture_command("replay", args, &rest, &rc) ? rc : replay_main(rest);
}
int cmd_capture(const Args& args) {
  Args rest;
  int rc = 0;
  if (network_capture_command("capture", args, &rc)) return rc;
  return layer_capture_command("capture", args, &rest, &rc) ? rc : capture_main(rest);
}

}  // namespace rrswin::cli
