// enc5 replay --layer enc4 / enc5 capture --layer enc4: replay captures of the merge layers
// (bridge/layer_capture.hpp; docs/captures.md "Captures of the merge layers"). A replay writes the
// capture's arguments after the model's launch in launch-dump naming, exactly the files `enc5 ptx
// run FILE.ptx --capture CAP` writes for the original kernel, so `enc5 diff` compares the two.
#include <cstdio>
#include <string>

#include "bridge/layer_capture.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "io/output_set.hpp"
#include "model/layer_program.hpp"

namespace enc5::cli {
namespace {

constexpr const char* kReplayHelp = R"(usage: enc5 replay --layer enc4 CAPTURE -o DIR [--engine fast|golden] [--profile P]
                    [--reading NAME=VALUE] [--layer-reading NAME=VALUE]
  Runs enc4 (the golden model or the fast engine: the same bytes) on a replay capture of
  cuda_dldn_engine_swin_enc4_kernel (manifest.txt, args.bin, alloc-N.bin, texture and surface
  files; docs/captures.md), its parameter block read by enc4's launch ABI (DOC4 §1.1: extents +0,
  input +8, weights +40, arena +48, merged output +56, block origin +80, texture +88, surfaces
  +112/+120/+128). Writes every argument after the launch in launch-dump naming
  (launch-000-<kernel>-argNNN-<kind>-<shape>-fmtN.bin): what `enc5 ptx run 0017-….ptx --capture
  CAPTURE -o DIR2` writes for the original kernel, so `enc5 diff DIR DIR2` compares them.
  The output windows start from zeros (as enc5's replay); every other byte stays as captured.
  --layer-reading: the merge layers' readings (enc5 readings --layer enc4).
)";

constexpr const char* kCaptureHelp = R"(usage: enc5 capture --layer enc4 --synthetic -o DIR [--seed N] [--ex N --ey N] [--block-offset X,Y]
  Writes a synthetic replay capture of cuda_dldn_engine_swin_enc4_kernel (the state before the
  launch, facts F6): manifest.txt, args.bin (enc4's 144-byte parameter block), alloc-0..3.bin (the
  input arena from --seed, the embedded synthetic enc4 weights, the zeroed arena and merged
  output), texture-088.bin (--seed) and surface-112/120/128.bin (zeroed), for the token grid
  --ex x --ey (default 80 x 46, DESC4) and the grid covering it. `enc5 replay --layer enc4` runs
  enc5's model of it; `enc5 ptx run 0017-….ptx --capture DIR` the original kernel.
)";

LayerId merge_layer(const Args& args, const char* cmd) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--layer") {
      LayerId l{};
      if (!parse_layer(args[i + 1], &l)) throw UsageError("--layer: expected enc3, enc4 or enc5, got '" + args[i + 1] + "'");
      if (l == LayerId::enc3) throw UsageError(std::string(cmd) + " --layer enc3: enc3's golden model is not written yet");
      return l;
    }
  return LayerId::enc5;
}

void write_all(const std::string& dir, const std::vector<std::pair<std::string, std::vector<std::uint8_t>>>& files) {
  OutputSet set(dir);  // every file or none (io/output_set.hpp)
  for (const auto& [name, bytes] : files) set.write(name, bytes);
  for (const auto& p : set.commit()) std::printf("wrote %s\n", p.c_str());
}

int replay_layer(const Args& args, LayerId layer) {
  std::string in, out;
  RunChoice choice;
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
  if (out.empty()) throw UsageError("no output folder (-o DIR)");
  o.profile = find_profile(choice.profile);
  o.readings = choice.parsed_readings();
  o.golden = choice.engine == "golden";
  ptx::KernelCapture cap = ptx::load_kernel_capture(in);
  const std::string entry(layer_spec(layer).entry);
  if (!cap.kernel.empty() && cap.kernel != entry)
    throw UsageError("the capture " + in + " is of kernel '" + cap.kernel + "', not " + entry + " (--layer " +
                     std::string(to_string(layer)) + ")");
  const ptx::LayerLaunch L = ptx::replay_layer_capture(cap, layer, o);
  std::printf("enc5 replay --layer %s: %s (%u x %u tokens, block offset (%u, %u), grid %u x %u), %s, profile %s\n",
              std::string(to_string(layer)).c_str(), in.c_str(), L.ex, L.ey, L.ox, L.oy, cap.grid.x, cap.grid.y,
              o.golden ? "golden model" : "fast engine", choice.profile.c_str());
  write_all(out, ptx::kernel_capture_outputs(cap, entry));
  return 0;
}

int capture_layer(const Args& args, LayerId layer) {
  std::string out;
  bool synthetic = false;
  ptx::SyntheticLayerCapture o;
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
    } else if (c.name == "--ex") {
      o.ex = static_cast<int>(parse_int(c.name, c.take(), 2, 4096));
    } else if (c.name == "--ey") {
      o.ey = static_cast<int>(parse_int(c.name, c.take(), 2, 4096));
    } else if (c.name == "--block-offset") {
      const auto [x, y] = parse_pair(c.name, c.take(), 0, 7);
      o.ox = static_cast<int>(x);
      o.oy = static_cast<int>(y);
    } else {
      throw UsageError("unknown option '" + c.name + "'");
    }
  }
  if (!synthetic) throw UsageError("--layer " + std::string(to_string(layer)) + " writes synthetic captures only: add --synthetic");
  if (out.empty()) throw UsageError("no output folder (-o DIR)");
  write_all(out, ptx::replay_capture_files(ptx::synthetic_layer_capture(layer, o)));
  return 0;
}

int with_usage(const char* cmd, int (*f)(const Args&, LayerId), const Args& args, LayerId layer) {
  try {
    return f(args, layer);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "enc5 %s: %s (enc5 %s --layer %s --help)\n", cmd, e.what(), cmd, std::string(to_string(layer)).c_str());
    return 2;
  }
}

}  // namespace

bool layer_capture_command(const char* cmd, const Args& args, Args* enc5_args, int* exit_code) {
  const bool replay = std::string(cmd) == "replay";
  try {
    const LayerId l = merge_layer(args, cmd);
    if (l != LayerId::enc5) {
      *exit_code = with_usage(cmd, replay ? replay_layer : capture_layer, args, l);
      return true;
    }
  } catch (const UsageError& e) {
    std::fprintf(stderr, "enc5 %s: %s\n", cmd, e.what());
    *exit_code = 2;
    return true;
  }
  *enc5_args = args;  // enc5 itself: the command's own parser, without "--layer enc5"
  for (std::size_t i = 0; i + 1 < enc5_args->size(); ++i)
    if ((*enc5_args)[i] == "--layer") {
      enc5_args->erase(enc5_args->begin() + static_cast<std::ptrdiff_t>(i), enc5_args->begin() + static_cast<std::ptrdiff_t>(i) + 2);
      break;
    }
  return false;
}

}  // namespace enc5::cli
