// rrswin replay/capture/settle --layer L: replay captures of the merge layers (enc2, enc3, enc4)
// (bridge/layer_capture.hpp; docs/captures.md "Captures of the merge layers"). A replay writes the
// capture's arguments after the model's launch in launch-dump naming, exactly the files `rrswin ptx
// run FILE.ptx --capture CAP` writes for the original kernel, so `rrswin diff` compares the two.
#include <cstdio>
#include <filesystem>
#include <string>

#include "bridge/layer_capture.hpp"
#include "bridge/layer_settle.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "io/output_set.hpp"
#include "model/layer_program.hpp"
#include "ptx/ptx.hpp"

namespace rrswin::cli {
namespace {

constexpr const char* kReplayHelp = R"(usage: rrswin replay --layer L CAPTURE -o DIR [--engine fast|golden] [--profile P]
                    [--reading NAME=VALUE] [--layer-reading NAME=VALUE] [--ex N --ey N] [--block-offset X,Y] [--scale SX,SY]
                    [--launch N]
  L: enc4, enc3, enc2, enc1, enc0 (merge layers; enc0's captures in rrswin's stand-in convention:
  +8 the staged input tensor, +88 the texture standing for input_noise, offsets the original leaves
  unused; a capture of the original enc0, which holds the network input +304 instead, is refused: its
  prologue is decoded by no source, docs/readings.md §10) or dec4, dec3, dec2, dec1, dec0 (decoders: input +8 at half
  the extents, skip +24, textures +88 (any size), +96, +104, the v2.f32 scale at +136, surface +112,
  dec0's also +144; no merged output; a launch dump's scale is --scale, default 0.5,0.5; docs/readings.md §9).
  Runs the layer (the golden model or the fast engine: the same bytes) on a replay capture
  of its kernel, cuda_dldn_engine_swin_enc4_kernel or …_enc3_kernel (manifest.txt, args.bin,
  alloc-N.bin, texture and surface files; docs/captures.md), its parameter block read by the
  layer's launch ABI (DOC4/DOC3 §1.1: extents +0, input +8, weights +40, arena +48, merged output
  +56, block origin +80, texture +88, surfaces +112/+120/+128). Writes every argument after the
  launch in launch-dump naming (launch-000-<kernel>-argNNN-<kind>-<shape>-fmtN.bin): what
  `rrswin ptx run 0017-….ptx --capture CAPTURE -o DIR2` (enc3: 0016) writes for the original kernel,
  so `rrswin diff DIR DIR2` compares them. The output windows start from zeros (as enc5's replay);
  every other byte stays as captured. --layer-reading: the merge layers' readings (rrswin readings
  --layer enc4). CAPTURE may also be a folder of d4r's launch dumps of the kernel (facts F5: no
  parameter block, so the extents are the texture's unless --ex/--ey, the block offsets
  --block-offset, default 0,0; --launch N picks one of several launches).
)";

constexpr const char* kCaptureHelp =
    R"(usage: rrswin capture --layer L --synthetic -o DIR [--seed N] [--ex N --ey N] [--block-offset X,Y] [--scale SX,SY]
  L: enc4, enc3, enc2, enc1, enc0 or dec4, dec3, dec2, dec1, dec0. enc0's capture is in rrswin's
  stand-in convention, not the original's (its prologue, which builds the staged input tensor and
  input_noise from the network input +304, is decoded by no source; docs/readings.md §10): +8 the
  staged input tensor (one plane of 32 e4m3 channels a token, --seed), +88 a texture at the token
  grid standing for input_noise (--seed), the 1032-byte parameter block with +304 zero (no network
  input, no file): the offsets of the CUDA port (cuda/enc0_params.hpp). A
  decoder's capture holds its half-resolution input (--seed) and +88 texture, its skip and +96
  (seed + 1), +104 (seed + 2), the scale (default 0.5,0.5) and one surface +112 (docs/readings.md §9).
  Writes a synthetic replay capture of the merge layer's kernel (the state before the launch, facts
  F6): manifest.txt, args.bin (the 144-byte parameter block), alloc-0..3.bin (the input arena from
  --seed, the layer's embedded synthetic weights, the zeroed arena and merged output),
  texture-088.bin (--seed) and surface-112/120/128.bin (zeroed), for the token grid --ex x --ey
  (default the layer's: enc4 80 x 46, DESC4; enc3 160 x 92, DESC3) and the grid covering it. `rrswin
  replay --layer L` runs the layer's model on it; `rrswin ptx run 0017-….ptx --capture DIR` (enc3: 0016)
  the original kernel.
)";

constexpr const char* kSettleHelp =
    R"(usage: rrswin settle --layer L (--oracle FILE.ptx [--entry NAME] [CAPTURE] | CAPTURE --results DIR | DUMPS)
                    [--profile P] [--reading NAME=VALUE] [--threads N] [--ex N --ey N] [--block-offset X,Y] [--scale SX,SY]
                    [--launch N]
  L: enc4, enc3, enc2, enc1, enc0 (readings merge-*, sigmoid-*; enc0's captures in rrswin's stand-in
  convention, rrswin capture --layer enc0 --help) or dec4 .. dec0 (expand-*, decoder-*).
  Which values of the layer's readings (rrswin readings --layer L) reproduce
  the original kernel. --results DIR: the original's results for the replay capture CAPTURE, in
  launch-dump naming (a GPU's dump of the launch, or `rrswin ptx run … --capture CAPTURE -o DIR`).
  --oracle FILE.ptx: the PTX interpreter runs the original kernel (corpus file 0017 for enc4, 0016
  for enc3) on CAPTURE, or, without one, on two synthetic captures (the layer's token grid, seed 1;
  21 x 13 tokens at block offsets 3,5, seed 2: the frame's border inside blocks). DUMPS: a folder
  of d4r's launch dumps of the kernel, which holds the original's results itself (read as by enc5
  replay --layer). The search is coordinate-wise from the defaults with the fast engine; each
  reading's values are then scored with the others at the best. Exit 0 when the best setting
  reproduces every byte, 1 when it does not, 2 on errors.
)";

LayerId merge_layer(const Args& args, const char* cmd) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--layer") {
      return layer_option(args[i + 1]);
    }
  return LayerId::enc5;
}

// --ex, --ey, --block-offset, --launch: how a launch-dump folder is read (its files carry no
// parameter block); true when the option was one of them.
// --ex, --ey, --block-offset: a frame's token grid and block origin (a synthetic capture's, or a
// launch dump's, whose files carry no parameter block); true when the option was one of them.
struct GeometryChoice {
  ptx::LayerDumpOptions geo;  // 0 extents: the layer's token grid (capture) or the texture's (dumps)
  bool handle(OptionCursor& c) {
    if (c.name == "--ex" || c.name == "--ey") {
      (c.name == "--ex" ? geo.ex : geo.ey) = static_cast<int>(parse_int(c.name, c.take(), ptx::kLayerExtentMin, ptx::kLayerExtentMax));
    } else if (c.name == "--block-offset") {
      const auto [x, y] = parse_pair(c.name, c.take(), 0, ptx::kLayerOriginMax);
      geo.ox = static_cast<int>(x);
      geo.oy = static_cast<int>(y);
    } else if (c.name == "--scale") {  // a decoder's +136 (launch dumps carry no parameter block)
      const auto [x, y] = parse_scale(c.name, c.take());
      geo.sx = x;
      geo.sy = y;
    } else {
      return false;
    }
    return true;
  }
};

// GeometryChoice and --launch: how a launch-dump folder is read.
struct DumpChoice {
  GeometryChoice geometry;
  long long launch = -1;
  bool handle(OptionCursor& c) {
    if (c.name != "--launch") return geometry.handle(c);
    launch = parse_int(c.name, c.take(), 0, 999);
    return true;
  }
};

// A replay capture (manifest.txt) or a launch-dump folder of the layer's kernel (*dump = true:
// the state after the launch, which is also the original's results).
ptx::KernelCapture load_layer_capture(const std::string& dir, LayerId layer, const DumpChoice& d, bool* dump) {
  std::error_code ec;
  *dump = !std::filesystem::exists(std::filesystem::path(dir) / "manifest.txt", ec);
  if (!*dump) {
    ptx::KernelCapture c = ptx::load_kernel_capture(dir);
    ptx::bind_layer_samplers(c, layer);
    return c;
  }
  const auto launches = capture::load_dumped_launches(dir, "swin_" + std::string(to_string(layer)) + "_");
  const capture::DumpedLaunch* pick = nullptr;
  std::string numbers;
  for (const auto& l : launches) {
    numbers += (numbers.empty() ? "" : ", ") + std::to_string(l.launch);
    if (d.launch < 0 ? launches.size() == 1 : l.launch == static_cast<std::uint32_t>(d.launch)) pick = &l;
  }
  if (!pick)
    throw UsageError(dir + " holds launch" + (launches.size() == 1 ? " " : "es ") + numbers + " of " + launches.front().kernel +
                     (d.launch < 0 ? ": choose one with --launch N" : ", not " + std::to_string(d.launch)));
  return ptx::layer_capture_from_dump(*pick, layer, d.geometry.geo);
}

void write_all(const std::string& dir, const std::vector<std::pair<std::string, std::vector<std::uint8_t>>>& files) {
  OutputSet set(dir);  // every file or none (io/output_set.hpp)
  for (const auto& [name, bytes] : files) set.write(name, bytes);
  for (const auto& p : set.commit()) std::printf("wrote %s\n", p.c_str());
}

int replay_layer(const Args& args, LayerId layer) {
  std::string in, out;
  RunChoice choice;
  DumpChoice dump;
  ptx::LayerReplayOptions o;
  OptionCursor c(args);
  while (c.next()) {
    if (c.name == "--layer") {
      c.take();
    } else if (c.name == "-h" || c.name == "--help") {
      std::fputs(kReplayHelp, stdout);
      return 0;
    } else if (c.name == "-o" || c.name == "--out") {
      out = c.take();
    } else if (c.name == "--layer-reading") {
      const std::string r = c.take();
      std::string err;
      if (!set_layer_reading(o.layer_readings, r, &err)) throw UsageError("--layer-reading " + r + ": " + err);
    } else if (choice.handle(c) || dump.handle(c)) {
    } else if (c.is_option()) {
      throw UsageError("unknown option '" + c.name + "'");
    } else if (in.empty()) {
      in = c.name;
    } else {
      throw UsageError("one capture folder, got '" + in + "' and '" + c.name + "'");
    }
  }
  if (in.empty()) throw UsageError("no capture folder");
  if (out.empty()) throw UsageError("no output folder (-o DIR)");
  o.profile = find_profile(choice.profile);
  o.readings = choice.parsed_readings();
  o.golden = choice.engine == "golden";
  bool from_dump = false;
  ptx::KernelCapture cap = load_layer_capture(in, layer, dump, &from_dump);
  const std::string entry(layer_spec(layer).entry);
  if (!cap.kernel.empty() && cap.kernel != entry)
    throw UsageError("the capture " + in + " is of kernel '" + cap.kernel + "', not " + entry + " (--layer " +
                     std::string(to_string(layer)) + ")");
  const ptx::LayerLaunch L = ptx::replay_layer_capture(cap, layer, o);
  std::printf("rrswin replay --layer %s: %s (%u x %u tokens, block offset (%u, %u), grid %u x %u), %s, profile %s\n",
              std::string(to_string(layer)).c_str(), in.c_str(), L.ex, L.ey, L.ox, L.oy, cap.grid.x, cap.grid.y,
              o.golden ? "golden model" : "fast engine", choice.profile.c_str());
  write_all(out, ptx::kernel_capture_outputs(cap, entry));
  return 0;
}

int capture_layer(const Args& args, LayerId layer) {
  std::string out;
  bool synthetic = false;
  ptx::SyntheticLayerCapture o;
  GeometryChoice geometry;
  OptionCursor c(args);
  while (c.next()) {
    if (c.name == "--layer") {
      c.take();
    } else if (c.name == "-h" || c.name == "--help") {
      std::fputs(kCaptureHelp, stdout);
      return 0;
    } else if (c.name == "--synthetic") {
      c.flag();
      synthetic = true;
    } else if (c.name == "-o" || c.name == "--out") {
      out = c.take();
    } else if (c.name == "--seed") {
      o.seed = static_cast<std::uint64_t>(parse_int(c.name, c.take(), 0, kSeedMax));
    } else if (geometry.handle(c)) {
    } else {
      throw UsageError("unknown option '" + c.name + "'");
    }
  }
  o.ex = geometry.geo.ex;
  o.ey = geometry.geo.ey;
  o.ox = geometry.geo.ox;
  o.oy = geometry.geo.oy;
  o.sx = geometry.geo.sx;
  o.sy = geometry.geo.sy;
  if (!synthetic) throw UsageError("--layer " + std::string(to_string(layer)) + " writes synthetic captures only: add --synthetic");
  if (out.empty()) throw UsageError("no output folder (-o DIR)");
  write_all(out, ptx::replay_capture_files(ptx::synthetic_layer_capture(layer, o)));
  return 0;
}

int settle_layer_cmd(const Args& args, LayerId layer) {
  std::string cap, results, oracle, entry(layer_spec(layer).entry);
  RunChoice choice;
  DumpChoice dump;
  OptionCursor c(args);
  while (c.next()) {
    if (c.name == "--layer") {
      c.take();
    } else if (c.name == "-h" || c.name == "--help") {
      std::fputs(kSettleHelp, stdout);
      return 0;
    } else if (c.name == "--results") {
      results = c.take();
    } else if (c.name == "--oracle") {
      oracle = c.take();
    } else if (c.name == "--entry") {
      entry = c.take();
    } else if (choice.handle(c) || dump.handle(c)) {
    } else if (c.is_option()) {
      throw UsageError("unknown option '" + c.name + "'");
    } else if (cap.empty()) {
      cap = c.name;
    } else {
      throw UsageError("one capture folder, got '" + cap + "' and '" + c.name + "'");
    }
  }
  if (!results.empty() && !oracle.empty()) throw UsageError("give the original's results one way: --results DIR or --oracle FILE.ptx");
  if (!results.empty() && cap.empty()) throw UsageError("--results needs the capture it belongs to (CAPTURE)");
  std::vector<ptx::LayerSettleLaunch> launches;
  bool from_dump = false;
  if (!cap.empty()) {
    launches.push_back({cap, load_layer_capture(cap, layer, dump, &from_dump), {}});
  } else {
    launches = ptx::oracle_layer_launches(layer);
  }
  if (results.empty() && oracle.empty()) {
    // A launch-dump folder holds the original's results itself (facts F5: taken after the launch).
    if (!from_dump) throw UsageError("give the original's results: --results DIR, --oracle FILE.ptx, or a launch-dump folder");
    launches[0].after = launches[0].before;
  } else if (!results.empty()) {
    launches[0].after = ptx::results_from_dumps(launches[0].before, results);
  } else {
    const auto m = ptx::load_module(oracle);
    ptx::RunOptions ro;
    ro.profile = find_profile(choice.profile);
    ro.threads = choice.threads;
    ro.max_launch_instructions = 1'000'000'000;  // the user's corpus on enc5's own launches: a larger bound than for any PTX
    for (auto& l : launches) {
      l.after = l.before;
      std::printf("interpreting %s on %s ...\n", entry.c_str(), l.name.c_str());
      std::fflush(stdout);
      ptx::run_kernel_capture(*m, entry, l.after, ro);
    }
  }
  ptx::LayerSettleOptions o;
  o.profile = find_profile(choice.profile);
  o.readings = choice.parsed_readings();
  const ptx::LayerSettleResult r = ptx::settle_layer(launches, layer, o);
  std::printf("rrswin settle --layer %s: %zu launch%s, %d model runs, profile %s\n", std::string(to_string(layer)).c_str(), launches.size(),
              launches.size() == 1 ? "" : "es", r.runs, choice.profile.c_str());
  for (const auto& s : r.readings) {
    std::printf("  %-22s %-11s %s:", s.name.c_str(), s.best.c_str(), s.settled ? "settled" : "undecided");
    for (const auto& [v, n] : s.values) std::printf("  %s %llu", v.c_str(), static_cast<unsigned long long>(n));
    std::printf("\n");
  }
  std::printf("best: %llu differing bytes%s\n", static_cast<unsigned long long>(r.differing),
              r.differing == 0 ? " (every output reproduced)" : " (no setting reproduces the original: a reading or the model is missing)");
  return r.differing == 0 ? 0 : 1;
}

int with_usage(const char* cmd, int (*f)(const Args&, LayerId), const Args& args, LayerId layer) {
  try {
    return f(args, layer);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "rrswin %s: %s (rrswin %s --layer %s --help)\n", cmd, e.what(), cmd, std::string(to_string(layer)).c_str());
    return 2;
  }
}

}  // namespace

bool layer_capture_command(const char* cmd, const Args& args, Args* enc5_args, int* exit_code) {
  const std::string name(cmd);
  int (*const run)(const Args&, LayerId) = name == "replay" ? replay_layer : name == "capture" ? capture_layer : settle_layer_cmd;
  try {
    const LayerId l = merge_layer(args, cmd);
    if (l != LayerId::enc5) {
      *exit_code = with_usage(cmd, run, args, l);
      return true;
    }
  } catch (const UsageError& e) {
    std::fprintf(stderr, "rrswin %s: %s\n", cmd, e.what());
    *exit_code = 2;
    return true;
  }
  *enc5_args = args;  // rrswin itself: the command's own parser, without "--layer enc5"
  for (std::size_t i = 0; i + 1 < enc5_args->size(); ++i)
    if ((*enc5_args)[i] == "--layer") {
      enc5_args->erase(enc5_args->begin() + static_cast<std::ptrdiff_t>(i), enc5_args->begin() + static_cast<std::ptrdiff_t>(i) + 2);
      break;
    }
  return false;
}

}  // namespace rrswin::cli
