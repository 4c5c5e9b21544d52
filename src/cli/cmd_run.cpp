// `rrswin run` and `rrswin readings`.
//
// run: the network by default (cli/cmd_run_network.cpp); --layer L one layer (cli/cmd_run_layer.cpp);
// here enc5 alone (--layer enc5, or one of enc5's own options, kEnc5RunOptions: cli/cli_options.hpp).
// enc5's run: one launch of the layer (facts A2/A4) on a frame. With no files it runs the embedded demo
// frame: the default synthetic weight image and a synthetic input arena and texture at the real
// geometry ex = 40, ey = 23 (facts A3; grid 5 x 3). Files given replace the matching synthetic
// asset. Outputs are one set (io/output_set.hpp): written after the layer has run and every check
// has passed, and moved into place together, so a failing run leaves none of them behind.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <unistd.h>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "base/errors.hpp"
#include "capture/capture.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "cli/frame_inputs.hpp"
#include "cli/progress.hpp"
#include "engine/engine.hpp"
#include "io/arena_io.hpp"
#include "io/checked_size.hpp"
#include "io/exr.hpp"
#include "io/files.hpp"
#include "io/frame_io.hpp"
#include "io/links.hpp"
#include "io/output_set.hpp"
#include "io/preview.hpp"
#include "io/trace_io.hpp"
#include "io/weight_file.hpp"
#include "layout/arena.hpp"
#include "model/layer_golden.hpp"
#include "model/readings.hpp"
#include "model/weight_image.hpp"
#include "numerics/f16.hpp"
#include "numerics/profile.hpp"

namespace rrswin::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRunHelpFormat = R"(usage: rrswin run --layer enc5 [OPTIONS]

Runs enc5 (cuda_dldn_engine_swin_enc5_kernel) alone on one frame and writes this layer's plane arena
and its RGBA16F surface. With no input files it runs the embedded demo frame: the default synthetic
weight image and a synthetic input arena and texture at the real geometry ex = 40, ey = 23
(grid 5 x 3). Every file given replaces the matching synthetic asset.
`rrswin run` without --layer runs the whole network (rrswin run --help); one of enc5's own options
on it runs enc5 alone as --layer enc5 does, with a one-line note on stderr:
  %s.

outputs (into the output folder, created if missing):
  arena.bin       the output plane arena, 5*ey*ex*32 bytes (docs/formats.md "Plane arena")
  surface112.exr     the surface, ex x ey RGBA HALF OpenEXR (docs/formats.md "Texture and surface")
  trace.bin, trace.txt     with --trace (docs/formats.md "Traces")
  input_arena.bin, texture.exr, weights.bin     with --save-inputs

options:
  -o, --out DIR             output folder (default: out)
%s  --from-dump DIR           every input of one launch from a d4r dump folder (launch dumps,
                            facts F5, or a replay capture, F6): input arena, weights, texture,
                            extents (the surface's size) and block offsets, read and checked
                            exactly as rrswin replay reads them; --ex/--ey/--block-offset override
  --launch N                with --from-dump: the launch to run (default: the first)
  --profile ada|zluda|hopper|blackwell
                            instruction semantics: ada (default) = an NVIDIA Ada GPU (sm_89),
                            zluda = d4r's ZLUDA on AMD RDNA4, hopper = NVIDIA H100/H200 (sm_90)
                            and B200 (sm_100), blackwell = RTX 50 (sm_120; a model, unmeasured)
  --reading NAME=VALUE      set a reading of an open spec question (repeatable; `rrswin readings`)
  --engine golden|fast      implementation to run (default fast; bit-identical to golden)
  --threads N               worker threads (default 0 = all hardware threads)
  --trace STAGE[,STAGE...]|all
                            record these stages of one block (needs --block)
  --block X,Y               the block (ctaid) to trace
  --preview                 also write surface112.png (tone-mapped) and arena_plane0..4.png (heat
                            maps of the output arena's planes), each texel drawn as up to 8x8
                            pixels (nearest) so that the larger side is at most 512 pixels
  --sequence DIR            run every frame folder in DIR (sorted by name): each holds
                            input_arena.bin and optionally texture.exr and weights.bin (the
                            files --save-inputs writes); outputs go to OUT/<folder name>/, and a
                            throughput summary ends the run (progress on stderr on a terminal)
  --save-inputs             also write the inputs used (input_arena.bin, texture.exr,
                            weights.bin) so the run can be repeated with files
  -h, --help                this text

Re-running into the same folder removes the previous run's previews and trace when this run
writes none (never input files). The output folder is checked before the layer runs.

Errors name the file, the byte offset, what was expected and what was found; exit status 1 for
errors, 2 for a wrong command line.
)";

std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> out;
  while (true) {
    const auto c = s.find(',');
    out.emplace_back(s.substr(0, c));
    if (c == std::string_view::npos) break;
    s.remove_prefix(c + 1);
  }
  return out;
}

// The frame inputs (--weights ... --seed) are cli/frame_inputs.hpp's, shared with `rrswin ptx run`.
struct RunArgs : FrameInputOptions {
  std::string out_dir = "out";
  RunChoice run;  // --profile, --reading, --engine, --threads (cli_options.hpp)
  std::vector<std::string> trace_stages;
  bool have_block = false;
  int block_x = 0, block_y = 0;
  bool save_inputs = false;
  bool preview = false;
  std::string sequence_dir;
  std::string from_dump;
  long long dump_launch = -1;
  bool help = false;
};

RunArgs parse_run_args(const Args& args) {
  RunArgs a;
  OptionCursor cur(args);
  while (cur.next()) {
    const std::string& opt = cur.name;
    if (opt == "-h" || opt == "--help") {
      a.help = true;
    } else if (opt == "-o" || opt == "--out") {
      a.out_dir = cur.take();
      if (a.out_dir.empty()) throw UsageError(opt + ": empty folder name");
    } else if (a.handle_input(cur)) {
    } else if (a.run.handle(cur)) {
    } else if (opt == "--trace") {
      a.trace_stages = split_commas(cur.take());
      for (const auto& s : a.trace_stages)
        if (s.empty()) throw UsageError("--trace: empty stage name in the list");
    } else if (opt == "--block") {
      const auto [x, y] = parse_pair(opt, cur.take(), 0, kExtentMax);  // checked against the grid later
      a.have_block = true;
      a.block_x = static_cast<int>(x);
      a.block_y = static_cast<int>(y);
    } else if (opt == "--save-inputs") {
      cur.flag();
      a.save_inputs = true;
    } else if (opt == "--preview") {
      cur.flag();
      a.preview = true;
    } else if (opt == "--sequence") {
      a.sequence_dir = cur.take();
    } else if (opt == "--from-dump") {
      a.from_dump = cur.take();
    } else if (opt == "--launch") {
      a.dump_launch = parse_int(opt, cur.take(), 0, 0xFFFFFFFFll);
    } else {
      throw UsageError("unknown option '" + cur.args[cur.i - 1] + "' (rrswin run --help lists them)");
    }
  }
  if (!a.trace_stages.empty() && !a.have_block) throw UsageError("--trace needs --block X,Y (the block to record)");
  if (!a.sequence_dir.empty() && (!a.input_file.empty() || !a.texture_file.empty() || a.save_inputs))
    throw UsageError(
        "--sequence takes each frame's input_arena.bin and texture.exr from its folder: drop --input, "
        "--texture and --save-inputs");
  if (a.trace_stages.empty() && a.have_block) throw UsageError("--block only selects the block of --trace");
  if (!a.from_dump.empty() && (!a.input_file.empty() || !a.texture_file.empty() || !a.texture_raw.empty() || !a.weights_file.empty() ||
                               !a.sequence_dir.empty() || a.stress || a.seed != 1))
    throw UsageError(
        "--from-dump takes every input from the dump folder: drop --input, --texture, --texture-raw, --weights, "
        "--sequence, --seed and --stress");
  if (a.dump_launch >= 0 && a.from_dump.empty()) throw UsageError("--launch selects a launch of --from-dump's folder, which is missing");
  if (!a.sequence_dir.empty() && !a.texture_raw.empty())
    throw UsageError("--sequence takes each frame's texture from its folder: drop --texture-raw");
  return a;
}

// --- one-line summaries ----------------------------------------------------------------------

std::string arena_line(std::span<const std::uint8_t> bytes, int ex, int ey) {
  std::uint64_t codes = 0, nan = 0, zero = 0, sat = 0;
  double lo = 0, hi = 0;
  bool any = false;
  for (const PlaneSummary& s : summarize_plane_arena(bytes, ex, ey)) {
    codes += s.codes;
    nan += s.nan;
    zero += s.zero;
    sat += s.sat_pos + s.sat_neg;
    if (s.codes > s.nan) {
      lo = any ? std::min(lo, s.min) : s.min;
      hi = any ? std::max(hi, s.max) : s.max;
      any = true;
    }
  }
  char b[256];
  std::snprintf(b, sizeof b, "%llu e4m3 codes in 5 planes: %llu NaN, %llu zero, %llu at +-448, min %g, max %g",
                static_cast<unsigned long long>(codes), static_cast<unsigned long long>(nan), static_cast<unsigned long long>(zero),
                static_cast<unsigned long long>(sat), lo, hi);
  return b;
}

std::string rgba_line(const std::vector<f16_t>& rgba, int width, int height) {
  std::uint64_t nan = 0, inf = 0;
  double lo[4] = {0, 0, 0, 0}, hi[4] = {0, 0, 0, 0};
  bool any[4] = {false, false, false, false};
  for (std::size_t i = 0; i < rgba.size(); ++i) {
    const double v = f16_to_f64(rgba[i]);
    if (std::isnan(v)) {
      ++nan;
      continue;
    }
    if (std::isinf(v)) ++inf;
    const int c = static_cast<int>(i % 4);
    lo[c] = any[c] ? std::min(lo[c], v) : v;
    hi[c] = any[c] ? std::max(hi[c], v) : v;
    any[c] = true;
  }
  char b[320];
  std::snprintf(b, sizeof b, "%dx%d RGBA f16: %llu NaN, %llu Inf, r [%g, %g], g [%g, %g], b [%g, %g], a [%g, %g]", width, height,
                static_cast<unsigned long long>(nan), static_cast<unsigned long long>(inf), lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], lo[3],
                hi[3]);
  return b;
}

// `name` was written into the output set: its final path, size and a one-line summary.
void report_written(OutputSet& set, const std::string& name, const std::string& summary) {
  std::error_code ec;
  const auto size = fs::file_size(set.path(name), ec);
  std::printf("wrote %s (%llu bytes): %s\n", set.final_path(name).c_str(), static_cast<unsigned long long>(ec ? 0 : size), summary.c_str());
}

// --from-dump: every input of one launch, read by the capture reader exactly as rrswin replay reads
// it; the launch's extents and block offsets replace a's unless given on the command line.
FrameInputs inputs_from_dump(RunArgs& a) {
  capture::LoadOptions load;
  if (a.ex_given) load.ex = a.ex;
  if (a.ey_given) load.ey = a.ey;
  if (a.offset_given) {
    load.ox = a.ox;
    load.oy = a.oy;
  }
  const auto launches = capture::load_captures(a.from_dump, load);
  const capture::LaunchCapture* c = nullptr;
  for (const auto& l : launches)
    if (!c && (a.dump_launch < 0 || l.launch == a.dump_launch)) c = &l;
  if (!c) throw UsageError("--launch " + std::to_string(a.dump_launch) + ": no such enc5 launch in " + a.from_dump);
  capture::LaunchInputs in = capture::launch_inputs(*c);
  a.ex = static_cast<int>(c->ex);
  a.ey = static_cast<int>(c->ey);
  a.ox = c->ox;
  a.oy = c->oy;
  FrameInputs f;
  f.loaded_weights = std::move(in.weights);
  f.weights_what = c->weights.file;
  const std::size_t n = plane_arena_bytes(a.ex, a.ey);  // the window the capture reader validated
  f.input.assign(c->input.bytes.begin() + c->input.offset, c->input.bytes.begin() + c->input.offset + n);
  f.input_what = c->input.file;
  f.texture = std::move(in.texture);
  f.texture_what = c->texture.file;
  return f;
}

// One frame's run: its inputs, the layer's outputs and the trace.
struct FrameRun {
  FrameInputs assets;
  std::vector<std::uint8_t> output;
  Surface surface;
  Trace trace;
};

// Runs the layer on the frame a describes (a takes a dump's extents and offsets), printing what
// it runs and the time; nothing is written.
FrameRun run_layer(RunArgs& a) {
  // Before any work: the frame's buffers must be allocatable (the bytes stated, not bad_alloc).
  checked_bytes("--ex " + std::to_string(a.ex) + " --ey " + std::to_string(a.ey) + ": the plane arena 5·ey·ex·32",
                {5, static_cast<std::uint64_t>(a.ey), static_cast<std::uint64_t>(a.ex), 32});
  FrameRun f;
  // Assets: files replace the synthetic ones one by one (cli/frame_inputs.hpp), or a dump folder
  // gives them all (its extents are checked by the capture reader).
  f.assets = a.from_dump.empty() ? load_frame_inputs(a) : inputs_from_dump(a);
  const Readings readings = a.run.parsed_readings();
  f.output.assign(plane_arena_bytes(a.ex, a.ey), 0);
  f.surface = Surface::make(a.ex, a.ey);

  LaunchParams p = frame_launch(static_cast<std::uint32_t>(a.ex), static_cast<std::uint32_t>(a.ey), f.assets.input, f.assets.weights(),
                                f.output, f.assets.texture, f.surface);
  p.block_offset_x = static_cast<std::uint16_t>(a.ox);
  p.block_offset_y = static_cast<std::uint16_t>(a.oy);
  // The grid covering the frame (api/frame.hpp): x0 = 8*ctaid.x - ox must reach ex - 1. Only the
  // blocks from ox/8, oy/8 on can touch the frame; run_frame skips the others.
  const GridExtent cover = covering_grid(static_cast<std::uint32_t>(a.ex), static_cast<std::uint32_t>(a.ey),
                                         static_cast<std::uint32_t>(a.ox), static_cast<std::uint32_t>(a.oy));
  const int grid_x = static_cast<int>(cover.x), grid_y = static_cast<int>(cover.y);
  const long long touching = static_cast<long long>(grid_x - a.ox / 8) * (grid_y - a.oy / 8);

  TraceRequest request;
  RunOptions o;
  o.profile = find_profile(a.run.profile);
  o.readings = readings;
  o.engine = a.run.engine == "fast" ? Engine::fast : Engine::golden;
  o.threads = a.run.threads;
  if (!a.trace_stages.empty()) {
    check_trace_block(a.block_x, a.block_y, grid_x, grid_y);
    request.stages = a.trace_stages;
    request.block_x = a.block_x;
    request.block_y = a.block_y;
    o.trace = &request;
    o.trace_out = &f.trace;
  }

  std::printf("rrswin run: ex %d, ey %d, grid %dx%d, block offset (%d, %d), profile %s, engine %s\n", a.ex, a.ey, grid_x, grid_y, a.ox,
              a.oy, a.run.profile.c_str(), a.run.engine.c_str());
  std::printf("  weights: %s\n  input:   %s\n  texture: %s (%dx%d)\n", f.assets.weights_what.c_str(), f.assets.input_what.c_str(),
              f.assets.texture_what.c_str(), f.assets.texture.width, f.assets.texture.height);
  std::fflush(stdout);

  // Preparation (the fast engine's re-laid weights, once per weight image and cached) is timed
  // apart from the layer, which is what docs/performance.md and the README quote.
  const auto t_prep = std::chrono::steady_clock::now();
  if (o.engine == Engine::fast) engine::prepare_weights(f.assets.weights());
  const auto t0 = std::chrono::steady_clock::now();
  ProgressLine progress("rrswin run");
  o.progress = progress.callback();
  run_frame(p, o);
  progress.finish();
  const auto t1 = std::chrono::steady_clock::now();
  const double prep_ms = std::chrono::duration<double, std::milli>(t0 - t_prep).count();
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const int threads = a.run.threads > 0 ? a.run.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (o.engine == Engine::fast) std::printf("preparation: %.1f ms (the fast engine's weight layout, once per weight image)\n", prep_ms);
  if (touching == static_cast<long long>(grid_x) * grid_y)
    std::printf("layer: %lld blocks in %.1f ms (%d thread%s)\n", touching, ms, threads, threads == 1 ? "" : "s");
  else
    std::printf("layer: %lld blocks in %.1f ms (%d thread%s; the other %lld of the grid's %lld cannot touch the frame and were skipped)\n",
                touching, ms, threads, threads == 1 ? "" : "s", static_cast<long long>(grid_x) * grid_y - touching,
                static_cast<long long>(grid_x) * grid_y);
  if (!a.trace_stages.empty()) check_trace_stages(a.trace_stages, f.trace);
  return f;
}

// The frame's outputs into `sub` of the output set (all of them or none: io/output_set.hpp).
void write_outputs(OutputSet& set, const fs::path& sub, const RunArgs& a, const FrameRun& f) {
  auto name = [&](const std::string& n) { return (sub / n).string(); };
  write_plane_arena(set.path(name("arena.bin")), f.output, a.ex, a.ey);
  report_written(set, name("arena.bin"), arena_line(f.output, a.ex, a.ey));
  write_surface_exr(set.path(name("surface112.exr")), f.surface);
  report_written(set, name("surface112.exr"), rgba_line(surface_rgba(f.surface), f.surface.width, f.surface.height));
  if (!a.trace_stages.empty()) {
    write_trace_binary(set.path(name("trace.bin")), f.trace);
    write_trace_text(set.path(name("trace.txt")), f.trace);
    const std::string what = std::to_string(f.trace.stages.size()) + " stages of block (" + std::to_string(f.trace.block_x) + ", " +
                             std::to_string(f.trace.block_y) + ")";
    report_written(set, name("trace.bin"), what);
    report_written(set, name("trace.txt"), what);
  }
  if (a.preview) {
    const int scale = preview_scale(f.surface.width, f.surface.height);
    set.write(name("surface112.png"), surface_preview_png(f.surface, scale));
    report_written(set, name("surface112.png"), "tone-mapped preview of the surface (Reinhard, sRGB)");
    for (int q = 0; q < layout::PlaneArena::kPlanes; ++q) {
      const std::string heat = name("arena_plane" + std::to_string(q) + ".png");
      set.write(heat, arena_plane_heatmap_png(f.output, a.ex, a.ey, q, scale));
      report_written(set, heat, "heat map of plane " + std::to_string(q) + " (mean |value| per pixel, white = plane max)");
    }
  }
  if (a.save_inputs) {
    write_plane_arena(set.path(name("input_arena.bin")), f.assets.input, a.ex, a.ey);
    report_written(set, name("input_arena.bin"), arena_line(f.assets.input, a.ex, a.ey));
    write_texture_exr(set.path(name("texture.exr")), f.assets.texture);
    report_written(set, name("texture.exr"), rgba_line(f.assets.texture.rgba, f.assets.texture.width, f.assets.texture.height));
    set.write(name("weights.bin"), f.assets.weights().bytes());
    report_written(set, name("weights.bin"), "weight image (" + f.assets.weights_what + ")");
  }
}

// A previous run's derived outputs that this run did not write would be read as this run's:
// removed once this run's outputs are in place (never the input files, which a run may be reading
// from this folder).
void remove_stale(const RunArgs& a) {
  std::vector<std::string> stale;
  if (!a.preview) {
    stale.push_back("surface112.png");
    for (int q = 0; q < layout::PlaneArena::kPlanes; ++q) stale.push_back("arena_plane" + std::to_string(q) + ".png");
  }
  if (a.trace_stages.empty()) stale.insert(stale.end(), {"trace.bin", "trace.txt"});
  for (const std::string& f : stale) {
    std::error_code ec;
    if (fs::remove(fs::path(a.out_dir) / f, ec))
      std::printf("removed %s (a previous run's output)\n", (fs::path(a.out_dir) / f).string().c_str());
  }
}

int run(const RunArgs& args) {
  RunArgs a = args;
  OutputSet set(a.out_dir);  // checks the folder is writable before the layer runs
  const FrameRun f = run_layer(a);
  write_outputs(set, "", a, f);
  set.commit();
  remove_stale(a);
  return 0;
}

// --- readings --------------------------------------------------------------------------------

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          out += b;
        } else {
          out += ch;  // UTF-8 passes through unchanged
        }
    }
  }
  return out + "\"";
}

constexpr const char* kReadingsHelp = R"(usage: rrswin readings [--json] [--layer L]

Lists every reading: a named answer to an open question of the spec, which `rrswin run --reading
NAME=VALUE` can change. For each: the name, the allowed values (the default first), the default,
the question, where the spec asks it, and what capture of the original would settle it.
The mma-* readings are instruction-level (the FP8 mma's corners: zero sign, NaN operands, NaN
payload, overflow): their default `profile` keeps the profile's own value, listed at the end with
the machine each profile stands for; `rrswin eval --reading` takes them too.
  --json      one JSON array of objects {name, values, default, question, where, settle, layers}
  --layer L   every reading that applies to the runnable layer L: the template's (enc5's, --reading)
              and, for a merge layer (enc2, enc3, enc4), the merge-* and sigmoid-* readings
              (`rrswin run --layer L --layer-reading NAME=VALUE`, docs/readings.md §7); default enc5
)";

}  // namespace

// `--sequence DIR`: one run per frame folder, then the throughput of the whole sequence.
static int run_sequence(const RunArgs& a) {
  std::vector<fs::path> frames;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(a.sequence_dir, ec)) {
    if (e.path().filename().string().rfind(".rrswin-partial-", 0) == 0) continue;  // a killed run's staging folder
    refuse_link(e.path().string());                                                // no link inside a sequence is followed (io/links.hpp)
    if (e.is_directory() && fs::exists(e.path() / "input_arena.bin")) frames.push_back(e.path());
  }
  if (ec) throw InputError(a.sequence_dir, 0, "a readable folder of frame folders", ec.message());
  if (frames.empty()) throw InputError(a.sequence_dir, 0, "at least one sub-folder holding input_arena.bin", "none");
  std::sort(frames.begin(), frames.end());
  const bool progress = ::isatty(2) != 0;
  const auto t0 = std::chrono::steady_clock::now();
  OutputSet set(a.out_dir);  // every frame's outputs, or none
  std::vector<RunArgs> done;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (progress) std::fprintf(stderr, "\r[%zu/%zu] %s ", i + 1, frames.size(), frames[i].filename().c_str());
    RunArgs f = a;
    f.sequence_dir.clear();
    f.input_file = (frames[i] / "input_arena.bin").string();
    for (const char* n : {"input_arena.bin", "texture.exr", "weights.bin"}) refuse_link((frames[i] / n).string());
    if (fs::exists(frames[i] / "texture.exr")) f.texture_file = (frames[i] / "texture.exr").string();
    if (a.weights_file.empty() && fs::exists(frames[i] / "weights.bin")) f.weights_file = (frames[i] / "weights.bin").string();
    f.out_dir = (fs::path(a.out_dir) / frames[i].filename()).string();
    const FrameRun r = run_layer(f);
    write_outputs(set, frames[i].filename(), f, r);
    done.push_back(f);
  }
  set.commit();
  for (const RunArgs& f : done) remove_stale(f);
  if (progress) std::fputs("\n", stderr);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const GridExtent cover = covering_grid(static_cast<std::uint32_t>(a.ex), static_cast<std::uint32_t>(a.ey),
                                         static_cast<std::uint32_t>(a.ox), static_cast<std::uint32_t>(a.oy));
  const double blocks = static_cast<double>(frames.size()) * static_cast<double>(cover.x * cover.y);
  std::printf("sequence: %zu frames in %.3f s (files included): %.2f frames/s, %.1f blocks/s\n", frames.size(), s, frames.size() / s,
              blocks / s);
  return 0;
}

// enc5 alone: `rrswin run --layer enc5 [OPTIONS]` (or `rrswin run` with one of enc5's own options).
static int cmd_run_enc5(const Args& args) {
  const RunArgs a = parse_run_args(args);
  if (a.help) {
    std::printf(kRunHelpFormat, enc5_run_option_list().c_str(), kFrameInputHelp);
    return 0;
  }
  return a.sequence_dir.empty() ? run(a) : run_sequence(a);
}

// `rrswin run`: the network (cli/cmd_run_network.cpp) unless --layer L picks one layer (enc5 here,
// the others in cli/cmd_run_layer.cpp) or one of enc5's own options (kEnc5RunOptions) asks for enc5.
int cmd_run(const Args& args) {
  for (const std::string& s : args)
    if (s == "--network") return cmd_run_network(args);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool joined = args[i].rfind("--layer=", 0) == 0;
    if (args[i] != "--layer" && !joined) continue;
    LayerId layer{};
    try {
      if (!joined && i + 1 == args.size()) throw UsageError("--layer needs a value");
      layer = layer_option(joined ? args[i].substr(8) : args[i + 1]);
    } catch (const UsageError& e) {
      std::fprintf(stderr, "rrswin run: %s\n", e.what());
      return 2;
    }
    if (layer != LayerId::enc5) return cmd_run_layer(args, layer);
    Args rest(args);
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i), rest.begin() + static_cast<std::ptrdiff_t>(i) + (joined ? 1 : 2));
    return cmd_run_enc5(rest);
  }
  for (const std::string& s : args)
    if (is_enc5_run_option(s)) {
      std::fprintf(
          stderr,
          "rrswin run: %s is enc5's option: running enc5 alone, as rrswin run --layer enc5 does (the network: rrswin run without it)\n",
          s.substr(0, s.find('=')).c_str());
      return cmd_run_enc5(args);
    }
  return cmd_run_network(args);
}

namespace {

// enc5's and the merge layers' registry rows (ReadingInfo, LayerReadingInfo) have the same fields
// but the default: enc5's names it, the merge layers' is the first value.
const std::string& default_of(const ReadingInfo& r) { return r.default_value; }
const std::string& default_of(const LayerReadingInfo& r) { return r.values.front(); }

// A registry as a JSON array (one object per reading) or as text (one paragraph per reading, the
// default marked *).
template <class Info>
std::string json_entry(const Info& r) {
  std::string out = "  {\"name\": " + json_string(r.name) + ", \"values\": [";
  for (std::size_t v = 0; v < r.values.size(); ++v) out += (v ? ", " : "") + json_string(r.values[v]);
  out += "], \"default\": " + json_string(default_of(r)) + ", \"question\": " + json_string(r.question) +
         ", \"where\": " + json_string(r.where) + ", \"settle\": " + json_string(r.settle) + ", \"layers\": [";
  const std::vector<LayerId> layers = reading_layers(r.name);
  for (std::size_t l = 0; l < layers.size(); ++l) out += (l ? ", " : "") + json_string(to_string(layers[l]));
  return out + "]}";
}

template <class Info>
void print_text(const std::vector<Info>& registry) {
  for (const Info& r : registry) {
    std::string values;
    for (const std::string& v : r.values) values += (values.empty() ? "" : " | ") + v + (v == default_of(r) ? "*" : "");
    std::string layers;
    for (LayerId l : reading_layers(r.name)) layers += (layers.empty() ? "" : ", ") + std::string(to_string(l));
    std::printf("\n%s = %s\n  values:   %s\n  question: %s\n  where:    %s\n  settle:   %s\n  layers:   %s\n", r.name.c_str(),
                default_of(r).c_str(), values.c_str(), r.question.c_str(), r.where.c_str(), r.settle.c_str(), layers.c_str());
  }
}

// Registries as one JSON array (one object per reading) or as text (one paragraph per reading, the
// default marked *), each entry with the layers it applies to (reading_layers).
template <class A, class B = LayerReadingInfo>
void print_registry(const std::vector<A>& first, bool json, const std::vector<B>& second = {}) {
  if (!json) {
    print_text(first);
    print_text(second);
    return;
  }
  std::vector<std::string> entries;
  for (const A& r : first) entries.push_back(json_entry(r));
  for (const B& r : second) entries.push_back(json_entry(r));
  std::string out = "[\n";
  for (std::size_t i = 0; i < entries.size(); ++i) out += entries[i] + (i + 1 < entries.size() ? ",\n" : "\n");
  std::fputs((out + "]\n").c_str(), stdout);
}

// The merge layers' readings (model/layer_golden.hpp LayerReadings), enc4's and enc3's alike.
int print_layer_readings(LayerId layer, bool json) {
  // One list of everything that applies to the layer (reading_layers): enc5's readings (the
  // template's parts, --reading NAME=VALUE) and the merge layers' (--layer-reading NAME=VALUE).
  const auto applies = [layer](const std::string& name) {
    const std::vector<LayerId> l = reading_layers(name);
    return std::find(l.begin(), l.end(), layer) != l.end();
  };
  std::vector<ReadingInfo> base;
  for (const ReadingInfo& r : reading_registry())
    if (applies(r.name)) base.push_back(r);
  std::vector<LayerReadingInfo> own;
  for (const LayerReadingInfo& r : layer_reading_registry())
    if (applies(r.name)) own.push_back(r);
  if (json) {
    print_registry(base, true, own);
    return 0;
  }
  std::printf(
      "%zu readings apply to %s: %zu of the template's parts (rrswin run --layer %s --reading NAME=VALUE changes one) and %zu of\n"
      "its merge and final epilogue (--layer-reading NAME=VALUE); the default is marked *\n",
      base.size() + own.size(), std::string(to_string(layer)).c_str(), base.size(), std::string(to_string(layer)).c_str(), own.size());
  print_registry(base, false, own);
  return 0;
}

}  // namespace

int cmd_readings(const Args& args) {
  bool json = false;
  LayerId layer = LayerId::enc5;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& s = args[i];
    if (s == "--json") {
      json = true;
    } else if (s == "-h" || s == "--help") {
      std::fputs(kReadingsHelp, stdout);
      return 0;
    } else if (s == "--layer" || s.rfind("--layer=", 0) == 0) {
      const std::string v = s == "--layer" ? (i + 1 < args.size() ? args[++i] : "") : s.substr(8);
      try {
        layer = layer_option(v);
      } catch (const UsageError& e) {
        std::fprintf(stderr, "rrswin readings: %s\n", e.what());
        return 2;
      }
    } else {
      std::fprintf(stderr, "rrswin readings: unknown option '%s' (--json, --layer)\n", s.c_str());
      return 2;
    }
  }
  if (layer != LayerId::enc5) return print_layer_readings(layer, json);
  const auto& registry = reading_registry();
  if (!json) std::printf("%zu readings (rrswin run --reading NAME=VALUE changes one; the default is marked *)\n", registry.size());
  print_registry(registry, json);
  if (json) return 0;
  // The instruction-level readings' value "profile" means the profile's own (numerics/profile.cpp).
  std::printf("\nprofiles (--profile) and the values their mma-* readings stand for:\n");
  for (const Profile* p : all_profiles()) {
    std::printf("  %-9s %.*s%s\n           ", std::string(p->name).c_str(), static_cast<int>(p->stands_for.size()), p->stands_for.data(),
                p->measured ? "" : " (model, unmeasured: no public measurements)");
    for (const ReadingInfo& r : registry)
      if (is_instruction_reading(r.name)) std::printf(" %s=%s", r.name.c_str(), profile_reading_value(*p, r.name).c_str());
    std::printf("\n");
  }
  std::printf("\nthe merge layers' readings (merge-*, sigmoid-*) and which apply where: rrswin readings --layer enc4\n");
  return 0;
}

}  // namespace rrswin::cli
