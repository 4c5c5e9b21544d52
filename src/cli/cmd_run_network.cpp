// rrswin run (and rrswin run --network): the network, `rrswin run`'s main job. The layers that run,
// as one network run (api/network_run.hpp) on the embedded synthetic assets at a small render, each
// layer's outputs in OUT/<layer>/ as `rrswin run --layer L` writes them, a summary of every layer's
// time and GMAC/s, with --preview PNGs of every layer and one overview of the network, and on a
// terminal a progress line. enc5 alone is `rrswin run --layer enc5` (cli/cmd_run.cpp).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "api/network_demo.hpp"
#include "api/network_run.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "io/frame_io.hpp"
#include "io/output_set.hpp"
#include "io/preview.hpp"
#include "model/layer_program.hpp"
#include "model/network.hpp"

namespace rrswin::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHelpFormat =
    R"(usage: rrswin run [-o DIR] [--render W,H] [--preview] [--profile P] [--engine fast|golden] [--threads N] [--seed N]
       rrswin run --layer L [OPTIONS]     one layer alone (rrswin run --layer L --help)

Runs the network: the eleven layers of DLSS Ray Reconstruction's Swin U-Net denoiser in network
order, enc0 -> enc1 -> ... -> enc5 -> dec4 -> ... -> dec0, each layer's +8 / +24 the output the
data-flow edges name (rrswin layers), every layer at its level's token grid for the render (level 0 =
the render rounded up to multiples of 32, halved per level: docs/readings.md network-extents).
`rrswin run --network [OPTIONS]` says the same.
The inputs are the embedded synthetic ones: each layer's default weight image, synthetic textures
(+88, and the decoders' +96/+104; what feeds them is not stated by any source: docs/network.md) and
scale 0.5; enc0's staged input tensor (32 e4m3 channels a token: its prologue, which builds it from
the network input +304, is decoded by no source) is synthetic. Every stand-in is named in the summary.
Writes DIR/<layer>/arena.bin (+48; dec0's: 8 e4m3 bytes a pixel), merged.bin (+56, the merge
layers), surface112.exr (+ surface120/128.exr for the gated final epilogues, surface144.bin = dec0's
+144, ex x ey x 4 f32) and DIR/summary.txt: each layer's grid, time and GMAC/s, and the inputs that
stand in. The same bytes for every --threads and --engine. All outputs or none.

enc5 alone: rrswin run --layer enc5 [OPTIONS] runs enc5 on one frame (given no files, the demo frame
at its real geometry 40 x 23; rrswin run --layer enc5 --help lists its options). Any of enc5's own
options on `rrswin run` without --layer or --network runs enc5 alone too (as before the network was
the default), with a one-line note on stderr:
  %s.

options:
  -o, --out DIR     the output folder (default out-network)
  --render W,H      the render (default 256,128: levels 256x128 .. 8x4, a few seconds on 2 cores;
                    64,64 is the smallest every level runs at)
  --preview         also write PNG previews (display only): in each DIR/<layer>/, surface112.png (and
                    surface120.png, surface128.png; dec0's surface144.png: its tanh values, -1..1
                    as 0..255) tone-mapped, arena_plane<q>.png per plane of the arena (heat maps:
                    mean |value| per token, white = the plane's max; dec0's arena.png of its 8 codes
                    a pixel) and merged_plane<q>.png of the merged output, each texel up to 8 x 8
                    pixels so that the larger side is at most 512; and DIR/network.png, the overview:
                    a contact sheet by level (rows = levels 0..5, the encoder on the left, the decoder
                    of the same level on the right, each tile the layer's surface112 scaled to
                    256 pixels on level 0's larger side, labelled with the layer and its grid):
                    (2 tw + 24) x (6 th + 152) pixels for a tw x th tile (536 x 920 at 256,128)
  --profile ada|zluda|hopper|blackwell
                    instruction semantics (default ada; rrswin readings lists what each stands for)
  --engine E        fast (default; byte for byte golden's) or golden
  --threads N       blocks on N threads (default 0 = every hardware thread)
  --seed N          seed of the synthetic textures and stand-in arenas (default 1)
  -h, --help        this text
On a terminal, a progress line on stderr while the network runs (the layer running, the run's blocks
done and in total), erased at the end; nothing on stderr otherwise.
)";

struct NetworkArgs {
  std::string out = "out-network";
  int render_w = 256, render_h = 128;
  RunChoice choice;
  std::uint64_t seed = 1;
  bool preview = false;
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
      if (a.out.empty()) throw UsageError(c.name + ": empty folder name");
    } else if (c.name == "--render") {
      const auto [w, h] = parse_pair(c.name, c.take(), 32, 4096);
      a.render_w = static_cast<int>(w);
      a.render_h = static_cast<int>(h);
    } else if (c.name == "--seed") {
      a.seed = static_cast<std::uint64_t>(parse_int(c.name, c.take(), 0, 1LL << 62));
    } else if (c.name == "--preview") {
      c.flag();
      a.preview = true;
    } else if (c.name == "--reading") {
      throw UsageError("--reading is not taken by the network run yet (rrswin run --layer L --reading NAME=VALUE)");
    } else if (a.choice.handle(c)) {
    } else if (is_enc5_run_option(c.name)) {
      throw UsageError(c.name + " is enc5's option, not the network's: rrswin run --layer enc5 " + c.name + " ... runs enc5 alone");
    } else {
      throw UsageError("unknown option '" + c.name + "'");
    }
  }
  return a;
}

// The previews of one layer's outputs into `set` under `dir/` (display only).
void write_layer_previews(OutputSet& set, const std::string& dir, const NetworkLayerResult& r, int render_w, int render_h) {
  const LayerSpec& s = layer_spec(r.id);
  const int scale = preview_scale(r.ex, r.ey);
  set.write(dir + "/surface112.png", surface_preview_png(r.surface112, scale));
  if (s.gated_final()) {
    set.write(dir + "/surface120.png", surface_preview_png(r.surface120, scale));
    set.write(dir + "/surface128.png", surface_preview_png(r.surface128, preview_scale(r.surface128.width, r.surface128.height)));
  }
  if (s.final_epilogue == FinalEpilogueKind::dec0_output) {
    const std::uint64_t tokens = static_cast<std::uint64_t>(r.ex) * static_cast<std::uint64_t>(r.ey);
    set.write(dir + "/surface144.png", surface_f32_preview_png(r.surface144, scale));
    set.write(dir + "/arena.png", pixel_codes_heatmap_png(r.arena, r.ex, r.ey, static_cast<int>(r.arena.size() / tokens), scale));
  }
  // The plane arenas, each at the grid and with the planes the rows give it (model/network.hpp):
  // +48 at the layer's level, +56 at the next (the next encoder's +8).
  for (const auto& [param, prefix] : {std::pair{48, "arena_plane"}, std::pair{56, "merged_plane"}}) {
    const std::vector<std::uint8_t>& bytes = param == 48 ? r.arena : r.merged;
    const std::optional<layout::PlaneArena> p = buffer_arena({r.id, param}, render_w, render_h);
    if (bytes.empty() || !p) continue;
    for (int q = 0; q < p->planes; ++q)
      set.write(dir + "/" + prefix + std::to_string(q) + ".png",
                arena_plane_heatmap_png(bytes, p->ex, p->ey, q, preview_scale(p->ex, p->ey), p->planes));
  }
}

// The preview files a network run may write (write_layer_previews, network.png): a later run into
// the same folder without --preview removes them, so that no picture of an earlier run is read as
// this one's (the enc5 run's rule, cli/cmd_run.cpp remove_stale).
void remove_stale_previews(const std::string& out) {
  std::vector<fs::path> stale{fs::path(out) / "network.png"};
  for (LayerId id : layer_ids()) {
    const fs::path d = fs::path(out) / std::string(to_string(id));
    for (const char* n : {"surface112.png", "surface120.png", "surface128.png", "surface144.png", "arena.png"}) stale.push_back(d / n);
    for (int q = 0; q < 5; ++q) {
      stale.push_back(d / ("arena_plane" + std::to_string(q) + ".png"));
      stale.push_back(d / ("merged_plane" + std::to_string(q) + ".png"));
    }
  }
  for (const fs::path& f : stale) {
    std::error_code ec;
    if (fs::is_regular_file(fs::symlink_status(f, ec)) && fs::remove(f, ec))
      std::printf("removed %s (a previous run's output)\n", f.string().c_str());
  }
}

}  // namespace

int cmd_run_network(const Args& args) {
  try {
    const NetworkArgs a = parse(args);
    if (a.help) {
      std::printf(kHelpFormat, enc5_run_option_list().c_str());
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
    // On a terminal: the layer running and the run's blocks (cli/progress.hpp); silent otherwise.
    ProgressLine progress("rrswin run");
    if (progress.enabled()) {
      int runnable = 0;
      for (LayerId id : layer_ids()) runnable += layer_spec(id).runnable ? 1 : 0;
      o.progress = [&progress, runnable](LayerId id, std::int64_t done, std::int64_t total) {
        int index = 0;
        for (LayerId l : layer_ids()) {
          if (layer_spec(l).runnable) ++index;
          if (l == id) break;
        }
        progress.update(
            done, total,
            "rrswin run: " + std::string(to_string(id)) + " (layer " + std::to_string(index) + " of " + std::to_string(runnable) + ")");
      };
    }
    const std::vector<NetworkLayerResult> results = run_network(o, demo->layers, demo->external);
    progress.finish();
    std::string summary;
    char line[512];
    std::snprintf(line, sizeof line, "rrswin run --network: render %d x %d, engine %s, %d threads\n", a.render_w, a.render_h,
                  a.choice.engine.c_str(), o.threads);
    summary += line;
    double total_s = 0, total_mac = 0;
    std::string last;  // the last layer of the network order that ran: the run's final outputs
    std::vector<SheetTile> tiles;
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
      if (a.preview) {
        write_layer_previews(out, name, r, a.render_w, a.render_h);
        // The overview: the encoder of a level on the left, its decoder on the right.
        tiles.push_back({network_level(r.id), s.front.kind == FrontKind::patch_expand ? 1 : 0,
                         name + " " + std::to_string(r.ex) + "x" + std::to_string(r.ey), &r.surface112});
      }
    }
    std::snprintf(line, sizeof line, "  total %.3f ms, %.2f GMAC/s; the last layer run, %s: %s/%s/\n", 1e3 * total_s,
                  total_mac / total_s / 1e9, last.c_str(), a.out.c_str(), last.c_str());
    summary += line;
    if (a.preview) {
      const TokenGrid g0 = level_grid(a.render_w, a.render_h, 0);
      const auto [tw, th] = sheet_tile_size(g0.ex, g0.ey);
      int levels = 0;
      for (LayerId id : layer_ids()) levels = std::max(levels, network_level(id) + 1);
      const auto [sw, sh] = sheet_size(levels, 2, tw, th);
      out.write("network.png", contact_sheet_png(levels, 2, tw, th, tiles));
      std::snprintf(line, sizeof line, "  previews: %s/<layer>/*.png; the overview, a contact sheet by level: %s/network.png (%d x %d)\n",
                    a.out.c_str(), a.out.c_str(), sw, sh);
      summary += line;
    }
    out.write_text("summary.txt", summary);
    out.commit();
    std::fputs(summary.c_str(), stdout);
    if (!a.preview) remove_stale_previews(a.out);
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "rrswin run --network: %s (rrswin run --help)\n", e.what());
    return 2;
  }
}

}  // namespace rrswin::cli
