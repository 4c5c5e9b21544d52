// rrswin run --network: the layers that run, as one network run (api/network_run.hpp) on the
// embedded synthetic assets at a small render, each layer's outputs in OUT/<layer>/ as
// `rrswin run --layer L` writes them, and a summary of every layer's time and GMAC/s.
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "api/network_demo.hpp"
#include "api/network_run.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "io/frame_io.hpp"
#include "io/output_set.hpp"
#include "model/layer_program.hpp"

namespace rrswin::cli {
namespace {

constexpr const char* kHelp = R"(usage: rrswin run --network [-o DIR] [--render W,H] [--engine fast|golden] [--threads N] [--seed N]
  Runs the network's layers that run today (rrswin layers says which) in network order, each
  layer's +8 / +24 the output the data-flow edges name (rrswin layers), every layer at its level's
  token grid for the render (level 0 = the render rounded up to multiples of 32, halved per level:
  docs/readings.md network-extents).
  The inputs are the embedded synthetic ones: each layer's default weight image, synthetic
  textures (+88, and the decoders' +96/+104; what feeds them is not stated by any source:
  docs/network.md) and scale 0.5; enc0's staged input tensor (32 e4m3 channels a token: its
  prologue, which builds it from the network input +304, is decoded by no source) is synthetic;
  the buffers a layer that does not run would produce for one that does are synthetic arenas.
  Every stand-in is named in the summary.
  Writes DIR/<layer>/arena.bin (+48; dec0's: 8 e4m3 bytes a pixel), merged.bin (+56, the merge
  layers), surface112.exr (+ surface120/128.exr for the merge layers' E62, surface144.bin = dec0's
  +144, ex x ey x 4 f32) and DIR/summary.txt: each layer's grid, time and
  GMAC/s, and which inputs stood in for a missing layer. All outputs or none.
  -o, --out DIR     the output folder (default out-network)
  --render W,H      the render (default 256,128: levels 256x128 .. 8x4, a few seconds on 2 cores)
  --engine E        fast (default; byte for byte golden's) or golden
  --threads N       blocks on N threads (default: every hardware thread)
  --seed N          seed of the synthetic textures and stand-in arenas (default 1)
)";

struct NetworkArgs {
  std::string out = "out-network";
  int render_w = 256, render_h = 128;
  RunChoice choice;
  std::uint64_t seed = 1;
  bool help = false;
};

NetworkArgs parse(const Args& args) {
  NetworkArgs a;
  OptionCursor c(args);
  while (c.next()) {
    if (c.name == "--network") {
    } else if (c.name == "-h" || c.name == "--help") {
      a.help = true;
    } else if (c.name == "-o" || c.name == "--out") {
      a.out = c.take();
    } else if (c.name == "--render") {
      const auto [w, h] = parse_pair(c.name, c.take(), 32, 4096);
      a.render_w = static_cast<int>(w);
      a.render_h = static_cast<int>(h);
    } else if (c.name == "--seed") {
      a.seed = static_cast<std::uint64_t>(parse_int(c.name, c.take(), 0, 1LL << 62));
    } else if (!a.choice.handle(c)) {
      throw UsageError("unknown option '" + c.name + "'");
    }
  }
  if (!a.choice.readings.empty()) throw UsageError("--reading is not taken by --network yet (run --layer L --reading)");
  return a;
}

}  // namespace

int cmd_run_network(const Args& args) {
  try {
    const NetworkArgs a = parse(args);
    if (a.help) {
      std::fputs(kHelp, stdout);
      return 0;
    }
    NetworkRunOptions o;
    o.render_w = a.render_w;
    o.render_h = a.render_h;
    o.profile = find_profile(a.choice.profile);
    o.engine = a.choice.engine == "golden" ? Engine::golden : Engine::fast;
    o.threads = a.choice.threads > 0 ? a.choice.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // The embedded demo inputs (cli/network_demo.hpp).
    const std::unique_ptr<NetworkDemo> demo = make_network_demo(a.render_w, a.render_h, a.seed);
    OutputSet out(a.out);  // checks the folder before the run
    const bool tty = progress_enabled();
    o.layer_done = [tty](LayerId id, double s) {
      if (tty) std::fprintf(stderr, "\r  %s done (%.2f s)        ", std::string(to_string(id)).c_str(), s);
    };
    const std::vector<NetworkLayerResult> results = run_network(o, demo->layers, demo->external);
    if (tty) std::fputs("\r", stderr);
    std::string summary;
    char line[512];
    std::snprintf(line, sizeof line, "rrswin run --network: render %d x %d, engine %s, %d threads\n", a.render_w, a.render_h,
                  a.choice.engine.c_str(), o.threads);
    summary += line;
    double total_s = 0, total_mac = 0;
    std::string last;  // the last layer of the network order that ran: the run's final outputs
    for (const NetworkLayerResult& r : results) {
      const LayerSpec& s = layer_spec(r.id);
      const std::string name(s.name);
      if (!r.ran) {
        std::snprintf(line, sizeof line, "  %-5s %4d x %-4d  not run yet (tables only)\n", name.c_str(), r.ex, r.ey);
        summary += line;
        continue;
      }
      const abi::GridExtent grid = abi::covering_grid(static_cast<std::uint32_t>(r.ex), static_cast<std::uint32_t>(r.ey), 0, 0);
      const double mac = macs_per_block(layer_program(r.id)) * static_cast<double>(grid.x * grid.y);
      last = name;
      total_s += r.seconds;
      total_mac += mac;
      std::snprintf(line, sizeof line, "  %-5s %4d x %-4d  %8.3f ms  %7.2f GMAC/s  -> %s/%s/\n", name.c_str(), r.ex, r.ey, 1e3 * r.seconds,
                    mac / r.seconds / 1e9, a.out.c_str(), name.c_str());
      summary += line;
      for (const std::string& si : r.stand_ins) summary += "        input " + si + "\n";
      out.write(name + "/arena.bin", r.arena);
      if (!r.merged.empty()) out.write(name + "/merged.bin", r.merged);
      write_surface_exr(out.path(name + "/surface112.exr"), r.surface112);
      if (s.gated_final()) {
        write_surface_exr(out.path(name + "/surface120.exr"), r.surface120);
        write_surface_exr(out.path(name + "/surface128.exr"), r.surface128);
      }
      if (s.final_epilogue == FinalEpilogueKind::dec0_output) {
        // dec0's +144 (E19's tanh values): ex x ey x 4 f32, little endian.
        std::vector<std::uint8_t> b(r.surface144.rgba.size() * 4);
        if (!b.empty()) std::memcpy(b.data(), r.surface144.rgba.data(), b.size());
        out.write(name + "/surface144.bin", b);
      }
    }
    std::snprintf(line, sizeof line, "  total %.3f ms, %.2f GMAC/s; the last layer run, %s: %s/%s/\n", 1e3 * total_s,
                  total_mac / total_s / 1e9, last.c_str(), a.out.c_str(), last.c_str());
    summary += line;
    out.write_text("summary.txt", summary);
    out.commit();
    std::fputs(summary.c_str(), stdout);
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "rrswin run --network: %s (rrswin run --network --help)\n", e.what());
    return 2;
  }
}

}  // namespace rrswin::cli
