// rrswin run (and rrswin run --network): the network, `rrswin run`'s main job. The layers that run,
// as one network run (api/network_run.hpp) on the embedded synthetic assets at a small render, each
// layer's outputs in OUT/<layer>/ as `rrswin run --layer L` writes them, a summary of every layer's
// time and GMAC/s, with --preview PNGs of every layer and one overview of the network, and on a
// terminal a progress line. enc5 alone is `rrswin run --layer enc5` (cli/cmd_run.cpp).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "api/network_demo.hpp"
#include "api/network_run.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "base/errors.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "cli/network_inputs.hpp"
#include "cli/progress.hpp"
#include "io/frame_io.hpp"
#include "io/links.hpp"
#include "io/output_set.hpp"
#include "io/preview.hpp"
#include "model/layer_program.hpp"
#include "model/network.hpp"

namespace rrswin::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHelpFormat =
    R"(usage: rrswin run [-o DIR] [--render W,H] [--preview] [--profile P] [--engine fast|golden] [--threads N] [--seed N]
       rrswin run --network [--weights DIR|MANIFEST] [--inputs DIR | --sequence DIR] [--save-inputs]
                  [--reading NAME=VALUE] [--layer-reading NAME=VALUE] [the options above]
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
With --network, --weights, --inputs and --sequence give the network your own weights and frames.
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
With --network (without it, --weights, --save-inputs, --sequence and --reading run enc5 alone):
  --weights DIR     a weight set: DIR/<layer>.bin for every layer (enc0.bin .. dec0.bin), each of the
                    layer's image size (rrswin inspect --layer L; rrswin make-weights --layer L writes
                    one); a missing or mis-sized file is an error naming it (default: the embedded
                    images). --weights FILE: a manifest, lines "<layer> <path>" (paths relative to
                    its folder, '#' a comment), one for every layer
  --inputs DIR      a frame's inputs, every size fixed by the render (an error names a missing or
                    mis-sized file, the size expected and found; no file is read through a link):
                      DIR/input_tensor.bin          enc0's staged input tensor, 32 e4m3 bytes a
                                                    token at level 0's grid
                      DIR/<layer>/texture088.exr    +88, RGBA HALF OpenEXR: an encoder's at its
                                                    grid, a decoder's at half of it
                      DIR/<decoder>/texture096.exr, texture104.exr   +96, +104 at its grid
                      DIR/<decoder>/scale.txt       its +136 scale, one line SX,SY
                      DIR/render.txt                the render they are of, one line W,H: the
                                                    render without --render (optional; with
                                                    --render, the two must agree)
                    (default: the synthetic inputs of --seed)
  --save-inputs     also write the inputs the run used into DIR/inputs/ in that layout, render.txt
                    included: `rrswin run --network --inputs DIR/inputs` runs them again, the same
                    output bytes
  --sequence SEQ    every sub-folder of SEQ holding input_tensor.bin is a frame (an --inputs folder),
                    run in name order into DIR/<frame>/ (each as one --inputs run writes it, the same
                    bytes), DIR/summary.txt with the frames/s; no link in SEQ is followed. The frames
                    run on all cores: one at a time, each on every --threads thread (measured on 2
                    loaded cores, 4 frames at 256,128: 1.83 frames/s, against 1.74 with two frames
                    at once on one thread each)
  --frame-workers W with --sequence: W frames at once, each on --threads / W threads (at least 1;
                    the same bytes; default 1)
  --reading NAME=VALUE        a reading of the template's parts (rrswin readings), every layer
  --layer-reading NAME=VALUE  a merge layer's or decoder's reading (rrswin readings --layer L)
                    the summary names the readings that are not the defaults
On a terminal, a progress line on stderr while the network runs (the layer running, the run's blocks
done and in total), erased at the end; nothing on stderr otherwise.
)";

struct NetworkArgs {
  std::string out = "out-network";
  int render_w = 256, render_h = 128;
  bool render_given = false;  // else an --inputs folder's (or a sequence's first frame's) render.txt decides
  RunChoice choice;
  std::vector<std::string> layer_readings;  // --layer-reading NAME=VALUE
  std::uint64_t seed = 1;
  bool seed_given = false;
  std::string weights, inputs, sequence;  // --weights DIR|MANIFEST, --inputs DIR, --sequence DIR
  bool save_inputs = false;
  int frame_workers = 0;  // --frame-workers N (--sequence); 0 = not given: 1
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
      a.render_given = true;
    } else if (c.name == "--seed") {
      a.seed = static_cast<std::uint64_t>(parse_int(c.name, c.take(), 0, 1LL << 62));
      a.seed_given = true;
    } else if (c.name == "--preview") {
      c.flag();
      a.preview = true;
    } else if (c.name == "--weights" || c.name == "--inputs" || c.name == "--sequence") {
      std::string& v = c.name == "--weights" ? a.weights : c.name == "--inputs" ? a.inputs : a.sequence;
      v = c.take();
      if (v.empty()) throw UsageError(c.name + ": empty path");
    } else if (c.name == "--save-inputs") {
      c.flag();
      a.save_inputs = true;
    } else if (c.name == "--layer-reading") {
      a.layer_readings.push_back(c.take());
    } else if (c.name == "--frame-workers") {
      a.frame_workers = static_cast<int>(parse_int(c.name, c.take(), 1, kThreadsMax));
    } else if (a.choice.handle(c)) {
    } else if (is_enc5_run_option(c.name)) {
      throw UsageError(c.name + " is enc5's option, not the network's: rrswin run --layer enc5 " + c.name + " ... runs enc5 alone");
    } else {
      throw UsageError("unknown option '" + c.name + "'");
    }
  }
  if (!a.sequence.empty() && !a.inputs.empty())
    throw UsageError("--sequence and --inputs exclude each other (each frame folder is an --inputs folder)");
  if (a.sequence.empty() && a.frame_workers) throw UsageError("--frame-workers is --sequence's (how many of its frames run at once)");
  if (!a.frame_workers) a.frame_workers = 1;
  if (!a.sequence.empty() && a.save_inputs) throw UsageError("--save-inputs: a sequence's frame folders are its inputs already");
  if (a.seed_given && (!a.inputs.empty() || !a.sequence.empty()))
    throw UsageError("--seed seeds the synthetic inputs; --inputs and --sequence give the inputs");
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

// The readings of the run that are not the defaults, "name=value, ..." (empty when none).
std::string non_default_readings(const Readings& r, const std::vector<std::string>& layer_readings) {
  std::string out;
  for (const ReadingInfo& info : reading_registry()) {
    const std::string v = reading_value(r, info.name);
    if (v != info.default_value) out += (out.empty() ? "" : ", ") + info.name + "=" + v;
  }
  for (const std::string& lr : layer_readings) {
    const std::size_t eq = lr.find('=');
    const std::string name = lr.substr(0, eq), value = eq == std::string::npos ? "" : lr.substr(eq + 1);
    for (const LayerReadingInfo& info : layer_reading_registry())
      if (info.name == name && value != info.values.front()) out += (out.empty() ? "" : ", ") + lr;
  }
  return out;
}

// The run's outputs into `out` under `prefix` ("" or "<frame>/"), shown as `shown` in the summary
// (the output folder, or OUT/<frame>); returns the summary (also written as prefix + summary.txt).
std::string write_run(const NetworkArgs& a, const NetworkRunOptions& o, const std::string& header,
                      const std::vector<NetworkLayerResult>& results, OutputSet& out, const std::string& prefix, const std::string& shown) {
  std::string summary;
  char line[512];
  std::snprintf(line, sizeof line, "rrswin run --network: render %d x %d, engine %s, %d threads\n", a.render_w, a.render_h,
                a.choice.engine.c_str(), o.threads);
  summary += line;
  summary += header;
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
                  mac / r.seconds / 1e9, shown.c_str(), name.c_str());
    summary += line;
    for (const std::string& si : r.stand_ins) summary += "        input " + si + "\n";
    const std::string dir = prefix + name;
    out.write(dir + "/arena.bin", r.arena);
    if (!r.merged.empty()) out.write(dir + "/merged.bin", r.merged);
    write_surface_exr(out.path(dir + "/surface112.exr"), r.surface112);
    if (s.gated_final()) {
      write_surface_exr(out.path(dir + "/surface120.exr"), r.surface120);
      write_surface_exr(out.path(dir + "/surface128.exr"), r.surface128);
    }
    if (s.final_epilogue == FinalEpilogueKind::dec0_output) {
      // dec0's +144 (E19's tanh values): ex x ey x 4 f32, little endian.
      std::vector<std::uint8_t> b(r.surface144.rgba.size() * 4);
      if (!b.empty()) std::memcpy(b.data(), r.surface144.rgba.data(), b.size());
      out.write(dir + "/surface144.bin", b);
    }
    if (a.preview) {
      write_layer_previews(out, dir, r, a.render_w, a.render_h);
      // The overview: the encoder of a level on the left, its decoder on the right.
      tiles.push_back({network_level(r.id), s.front.kind == FrontKind::patch_expand ? 1 : 0,
                       name + " " + std::to_string(r.ex) + "x" + std::to_string(r.ey), &r.surface112});
    }
  }
  std::snprintf(line, sizeof line, "  total %.3f ms, %.2f GMAC/s; the last layer run, %s: %s/%s/\n", 1e3 * total_s,
                total_mac / total_s / 1e9, last.c_str(), shown.c_str(), last.c_str());
  summary += line;
  if (a.preview) {
    const TokenGrid g0 = level_grid(a.render_w, a.render_h, 0);
    const auto [tw, th] = sheet_tile_size(g0.ex, g0.ey);
    int levels = 0;
    for (LayerId id : layer_ids()) levels = std::max(levels, network_level(id) + 1);
    const auto [sw, sh] = sheet_size(levels, 2, tw, th);
    out.write(prefix + "network.png", contact_sheet_png(levels, 2, tw, th, tiles));
    std::snprintf(line, sizeof line, "  previews: %s/<layer>/*.png; the overview, a contact sheet by level: %s/network.png (%d x %d)\n",
                  shown.c_str(), shown.c_str(), sw, sh);
    summary += line;
  }
  return summary;
}

// Each layer's weights: the given set, else its embedded default image.
void set_weights(NetworkDemo& in, const std::map<LayerId, WeightImage>& weights) {
  for (auto& [id, li] : in.layers) li.weights = weights.empty() ? &default_layer_weights(id) : &weights.at(id);
}

// The frame folders of a sequence, sorted by name: every sub-folder holding input_tensor.bin (a
// killed run's staging folder aside); a symbolic link among them is refused, never followed.
std::vector<fs::path> sequence_frames(const std::string& dir) {
  std::vector<fs::path> frames;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir, 0, "a folder of frame folders (--sequence)", "no such folder");
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().filename().string().rfind(".rrswin-partial-", 0) == 0) continue;
    refuse_link(e.path().string());  // no link inside a sequence is followed (io/links.hpp)
    if (e.is_directory() && fs::exists(fs::symlink_status(e.path() / "input_tensor.bin"))) frames.push_back(e.path());
  }
  if (ec) throw InputError(dir, 0, "a readable folder of frame folders", ec.message());
  if (frames.empty()) throw InputError(dir, 0, "at least one sub-folder holding input_tensor.bin (a frame's --inputs folder)", "none");
  std::sort(frames.begin(), frames.end());
  return frames;
}

// --sequence: the frames on all cores. W = min(--frame-workers, frames) workers each take the next
// frame (in name order) and run it on max(1, threads / W) threads: by default one frame at a time on
// every thread (measured as fast as frames in parallel, or faster: the help's numbers), with
// --frame-workers N N frames at once; the bytes of a frame do not depend on either. The first
// failing frame in name order is the error; all outputs or none.
int run_sequence(const NetworkArgs& a, const NetworkRunOptions& base, const std::string& header,
                 const std::map<LayerId, WeightImage>& weights) {
  const std::vector<fs::path> frames = sequence_frames(a.sequence);
  const int workers = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(a.frame_workers), frames.size()));
  NetworkRunOptions o = base;
  o.threads = std::max(1, base.threads / workers);
  o.progress = nullptr;
  OutputSet out(a.out);  // every frame's outputs, or none
  ProgressLine progress("rrswin run --sequence");
  std::mutex mu;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::map<std::size_t, std::exception_ptr> errors;
  std::vector<std::string> summaries(frames.size());
  std::vector<double> seconds(frames.size(), 0);
  std::size_t done = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto work = [&] {
    for (;;) {
      if (failed) return;
      const std::size_t i = next++;
      if (i >= frames.size()) return;
      try {
        const std::string name = frames[i].filename().string();
        std::unique_ptr<NetworkDemo> in = load_network_inputs(frames[i].string(), a.render_w, a.render_h);
        set_weights(*in, weights);
        const std::vector<NetworkLayerResult> results = run_network(o, in->layers, in->external);
        const std::lock_guard<std::mutex> lock(mu);
        summaries[i] =
            write_run(a, o, "  inputs: " + frames[i].string() + "\n" + header, results, out, name + "/", (fs::path(a.out) / name).string());
        out.write_text(name + "/summary.txt", summaries[i]);
        for (const NetworkLayerResult& r : results) seconds[i] += r.seconds;
        const std::size_t frames_done = ++done;
        progress.update(static_cast<std::int64_t>(frames_done), static_cast<std::int64_t>(frames.size()),
                        "rrswin run --sequence: " + std::to_string(frames_done) + " of " + std::to_string(frames.size()) + " frames");
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mu);
        errors[i] = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  progress.finish();
  if (!errors.empty()) std::rethrow_exception(errors.begin()->second);  // the first failing frame in name order
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string summary;
  char line[512];
  std::snprintf(line, sizeof line, "rrswin run --network --sequence %s: %zu frames, render %d x %d, engine %s, %d workers x %d threads\n",
                a.sequence.c_str(), frames.size(), a.render_w, a.render_h, a.choice.engine.c_str(), workers, o.threads);
  summary += line;
  summary += header;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const std::string name = frames[i].filename().string();
    std::snprintf(line, sizeof line, "  %-16s %9.3f ms  -> %s/ (its summary: summary.txt there)\n", name.c_str(), 1e3 * seconds[i],
                  (fs::path(a.out) / name).string().c_str());
    summary += line;
  }
  std::snprintf(line, sizeof line, "sequence: %zu frames in %.3f s (files included): %.2f frames/s\n", frames.size(), s,
                static_cast<double>(frames.size()) / s);
  summary += line;
  out.write_text("summary.txt", summary);
  out.commit();
  std::fputs(summary.c_str(), stdout);
  if (!a.preview)
    for (const fs::path& f : frames) remove_stale_previews((fs::path(a.out) / f.filename()).string());
  return 0;
}

}  // namespace

int cmd_run_network(const Args& args) {
  try {
    NetworkArgs a = parse(args);
    if (a.help) {
      std::printf(kHelpFormat, enc5_run_option_list().c_str());
      return 0;
    }
    // Without --render, the render the inputs say they are of (render.txt, which --save-inputs
    // writes); a sequence's first frame speaks for all (each frame's must then agree).
    if (!a.render_given && (!a.inputs.empty() || !a.sequence.empty())) {
      std::optional<std::pair<int, int>> r;
      if (!a.inputs.empty()) r = read_network_render(a.inputs);
      if (!a.sequence.empty())
        if (const std::vector<fs::path> frames = sequence_frames(a.sequence); !frames.empty())
          r = read_network_render(frames.front().string());
      if (r) std::tie(a.render_w, a.render_h) = *r;
    }
    NetworkRunOptions o;
    o.render_w = a.render_w;
    o.render_h = a.render_h;
    o.profile = find_profile(a.choice.profile);
    o.readings = a.choice.parsed_readings();
    o.layer_readings = parse_layer_readings(a.layer_readings);
    o.engine = a.choice.engine == "golden" ? Engine::golden : Engine::fast;
    o.threads = a.choice.threads > 0 ? a.choice.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // What the summary says of the inputs beyond the layers' lines.
    std::string header;
    const std::map<LayerId, WeightImage> weights = a.weights.empty() ? std::map<LayerId, WeightImage>{} : load_network_weights(a.weights);
    if (!a.weights.empty()) header += "  weights: " + a.weights + " (every runnable layer's image)\n";
    if (const std::string r = non_default_readings(o.readings, a.layer_readings); !r.empty()) header += "  readings: " + r + "\n";
    if (!a.sequence.empty()) return run_sequence(a, o, header, weights);
    // The inputs: the folder's, else the embedded demo's (api/network_demo.hpp).
    const std::unique_ptr<NetworkDemo> demo =
        a.inputs.empty() ? make_network_demo(a.render_w, a.render_h, a.seed) : load_network_inputs(a.inputs, a.render_w, a.render_h);
    set_weights(*demo, weights);
    if (!a.inputs.empty()) header = "  inputs: " + a.inputs + "\n" + header;
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
    std::string summary = write_run(a, o, header, results, out, "", a.out);
    if (a.save_inputs) {
      save_network_inputs(out, "inputs/", *demo, a.render_w, a.render_h);
      char line[512];
      std::snprintf(line, sizeof line, "  inputs saved: %s/inputs/ (rrswin run --network --inputs %s/inputs%s runs them again)\n",
                    a.out.c_str(), a.out.c_str(), a.weights.empty() ? "" : (" --weights " + a.weights).c_str());
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
