// rrswin capture --network and rrswin replay --network: captures of a whole frame, one folder of d4r
// launch dumps holding the eleven layer launches in network order (bridge/network_capture.hpp;
// docs/network.md "Captures of a whole frame").
#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>

#include "bridge/network_capture.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "io/output_set.hpp"
#include "model/layer_golden.hpp"

namespace rrswin::cli {
namespace {

constexpr const char* kCaptureHelp =
    R"(usage: rrswin capture --network --synthetic -o DIR [--render W,H] [--seed N] [--profile P] [--engine fast|golden]
                      [--threads N] [--reading NAME=VALUE] [--layer-reading NAME=VALUE]
  Runs the network once on the inputs `rrswin run --network` runs (the same --render and --seed:
  each layer's default weights, synthetic textures, enc0's synthetic staged input tensor) and writes
  one folder of d4r's launch dumps of that frame (launch-NNN-<kernel>-argNNN-<kind>-<shape>-fmtN.bin,
  the state after each launch), one launch per layer in network order: launch 1 enc0 .. 6 enc5,
  7 dec4 .. 11 dec0, each holding its inputs, weights, textures and outputs as `rrswin capture
  --layer L` and `rrswin replay --layer L` hold them; and README.txt. enc0's launch is in rrswin's
  stand-in convention (not the original's: its prologue, which builds the staged input tensor and
  input_noise from the network input +304, is decoded by no source): +8 the staged input tensor the
  run starts from, +88 the texture standing for input_noise, no +304 (the synthetic frame has no
  network input); it replays like every other launch. All files or none.
  --render W,H      the render (default 256,128; 64,64 is the smallest every level runs at)
  --seed N          the demo inputs' seed (default 1)
  --engine E        fast (default) or golden: the same bytes
  --threads N       blocks on N threads (default: every hardware thread); the bytes do not depend on it
)";

constexpr const char* kReplayHelp =
    R"(usage: rrswin replay --network DIR -o OUT [--chained] [--profile P] [--engine fast|golden] [--threads N]
                     [--reading NAME=VALUE] [--layer-reading NAME=VALUE] [--scale SX,SY] [--json]
  DIR: one frame's launch dumps of the network's kernels (rrswin capture --network, or d4r's
  D4R_CUDA_LAUNCH_DUMP_DIR with the filter swin_), one launch per layer in network order.
  Per layer (default): each launch replayed from its own captured inputs and compared with its own
  captured outputs (+48, +56, the surfaces). Prints one line per layer: reproduces; differs (bytes
  differing of those compared, per output, and the first: where in the output and the 8 x 8-token
  block of the launch that writes it); or not replayable (why: an enc0 launch without rrswin's
  stand-ins +8/+88, i.e. one of the original kernel, whose prologue from the network input +304 is
  decoded by no source; or no enc0 launch).
  --chained: the network run from the first replayable layer's captured inputs (enc0's stand-ins
  +8/+88 when its launch holds them, else enc1's, saying so), every later layer's +8 / +24 the
  replayed output of the layer that feeds it (rrswin layers: the edges; dec0's skip is enc0's arena
  when enc0 replays, else its captured one), each layer's own weights, textures and scale as
  captured; every layer compared with its capture, and the first layer where a difference enters.
  Writes OUT/<layer>/ (every argument of the launch after the replay, in launch-dump naming, its
  captured launch number) and OUT/summary.txt (the lines printed). All outputs or none.
  Launch dumps carry no parameter block: each layer's token grid is its grid texture's (+88, enc0's
  rrswin's stand-in included; the decoders' +96), all of one frame (each level half the one above), block offsets 0, the decoders'
  +136 scale --scale (default 0.5,0.5).
  Exit status: 0 every replayable layer reproduces, 1 some differ, 2 errors (a missing launch, two
  launches of one layer, a missing or mis-sized argument, a link: the message names the file).
)";

int threads_or_all(int n) { return n > 0 ? n : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

int capture_network(const Args& args) {
  std::string out;
  bool synthetic = false;
  RunChoice choice;
  std::vector<std::string> lrs;
  ptx::NetworkCaptureOptions o;
  OptionCursor c(args);
  while (c.next()) {
    if (c.name == "--network") {
      c.flag();
    } else if (c.name == "-h" || c.name == "--help") {
      std::fputs(kCaptureHelp, stdout);
      return 0;
    } else if (c.name == "--synthetic") {
      c.flag();
      synthetic = true;
    } else if (c.name == "-o" || c.name == "--out") {
      out = c.take();
    } else if (c.name == "--render") {
      const auto [w, h] = parse_pair(c.name, c.take(), 64, 4096);
      o.render_w = static_cast<int>(w);
      o.render_h = static_cast<int>(h);
    } else if (c.name == "--seed") {
      o.seed = static_cast<std::uint64_t>(parse_int(c.name, c.take(), 0, kSeedMax));
    } else if (c.name == "--layer-reading") {
      lrs.push_back(c.take());
    } else if (!choice.handle(c)) {
      throw UsageError("unknown option '" + c.name + "'");
    }
  }
  if (!synthetic) throw UsageError("--network writes synthetic captures only: add --synthetic");
  if (out.empty()) throw UsageError("no output folder (-o DIR)");
  o.profile = find_profile(choice.profile);
  o.readings = choice.parsed_readings();
  o.layer_readings = parse_layer_readings(lrs);
  o.engine = choice.engine == "golden" ? Engine::golden : Engine::fast;
  o.threads = threads_or_all(choice.threads);
  OutputSet set(out);  // checks the folder before the run; all files or none (io/output_set.hpp)
  const auto files = ptx::synthetic_network_capture_files(o);
  for (const auto& [name, bytes] : files) set.write(name, bytes);
  const auto paths = set.commit();
  std::printf("rrswin capture --network: render %d x %d, seed %llu, profile %s, %s engine: %zu files in %s\n", o.render_w, o.render_h,
              static_cast<unsigned long long>(o.seed), choice.profile.c_str(), choice.engine.c_str(), paths.size(), out.c_str());
  for (LayerId id : layer_ids())
    std::printf("  launch %2u  %s\n", ptx::network_launch_number(id), std::string(layer_spec(id).entry).c_str());
  std::printf(
      "  enc0: in rrswin's stand-in convention (+8 the staged input tensor, +88 the texture standing for input_noise; no network "
      "input +304: README.txt), replayable\n");
  return 0;
}

int replay_network(const Args& args) {
  std::string in, out;
  bool json = false;
  RunChoice choice;
  std::vector<std::string> lrs;
  ptx::NetworkReplayOptions o;
  OptionCursor c(args);
  while (c.next()) {
    if (c.name == "--network") {
      c.flag();
    } else if (c.name == "-h" || c.name == "--help") {
      std::fputs(kReplayHelp, stdout);
      return 0;
    } else if (c.name == "-o" || c.name == "--out") {
      out = c.take();
    } else if (c.name == "--chained") {
      c.flag();
      o.chained = true;
    } else if (c.name == "--json") {
      c.flag();
      json = true;
    } else if (c.name == "--scale") {
      const auto [x, y] = parse_scale(c.name, c.take());
      o.sx = x;
      o.sy = y;
    } else if (c.name == "--layer-reading") {
      lrs.push_back(c.take());
    } else if (choice.handle(c)) {
    } else if (c.is_option()) {
      throw UsageError("unknown option '" + c.name + "'");
    } else if (in.empty()) {
      in = c.name;
    } else {
      throw UsageError("one capture folder, got '" + in + "' and '" + c.name + "'");
    }
  }
  if (in.empty()) throw UsageError("no capture folder");
  if (out.empty()) throw UsageError("no output folder (-o OUT)");
  o.replay.profile = find_profile(choice.profile);
  o.replay.readings = choice.parsed_readings();
  o.replay.layer_readings = parse_layer_readings(lrs);
  o.replay.golden = choice.engine == "golden";
  o.replay.threads = threads_or_all(choice.threads);
  OutputSet set(out);  // checks the folder before the work; all outputs or none
  const ptx::NetworkReplay r = ptx::replay_network_capture(ptx::load_network_capture(in), o);
  const std::string text = ptx::network_replay_text(r, in);
  for (const auto& [name, bytes] : ptx::network_replay_files(r)) set.write(name, bytes);
  set.write_text("summary.txt", text);
  set.commit();
  std::fputs(json ? ptx::network_replay_json(r, in).c_str() : text.c_str(), stdout);
  return r.all_reproduce() ? kExitOk : kExitDifferent;
}

int with_usage(const char* cmd, int (*f)(const Args&), const Args& args) {
  try {
    return f(args);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "rrswin %s --network: %s (rrswin %s --network --help)\n", cmd, e.what(), cmd);
    return kExitError;
  }
}

}  // namespace

bool network_capture_command(const char* cmd, const Args& args, int* exit_code) {
  if (std::find(args.begin(), args.end(), "--network") == args.end()) return false;
  const std::string name(cmd);
  for (const std::string& a : args)
    if (a == "--layer" || a.rfind("--layer=", 0) == 0) {
      std::fprintf(stderr, "rrswin %s: --network and --layer exclude each other\n", cmd);
      *exit_code = kExitError;
      return true;
    }
  *exit_code = with_usage(cmd, name == "replay" ? replay_network : capture_network, args);
  return true;
}

}  // namespace rrswin::cli
