// rrswin run --layer L (enc4, enc3, enc2, dec4): the model of another layer of the template
// (model/layer_golden.hpp, engine/layer_engine.hpp) on embedded synthetic assets or given files. What
// it writes: the plane arena (param+48, arena.bin); for the merge layers the patch merge's output
// (param+56, merged.bin, a plane arena at the halved extents: the next layer's input) and the final
// epilogue's three surfaces (surface112/120/128.exr; readings sigmoid-* of docs/readings.md §7); for
// a decoder the one surface +112 (docs/readings.md §9).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "base/errors.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "engine/layer_engine.hpp"
#include "engine/simd.hpp"
#include "io/files.hpp"
#include "io/frame_io.hpp"
#include "io/output_set.hpp"
#include "io/trace_io.hpp"
#include "io/weight_file.hpp"
#include "layout/arena.hpp"
#include "model/launch_abi.hpp"
#include "model/layer_golden.hpp"
#include "model/layer_program.hpp"

namespace rrswin::cli {
namespace {

constexpr const char* kHelp =
    R"(usage: rrswin run --layer enc4|enc3|enc2 [-o DIR] [--weights FILE] [--input FILE] [--texture FILE.exr] [--seed N]
                 [--ex N --ey N] [--block-offset X,Y] [--engine fast|golden] [--threads N] [--profile P]
                 [--reading NAME=VALUE] [--layer-reading NAME=VALUE] [--trace STAGES --block X,Y]
  Runs a layer of the template other than enc5 (docs/readings.md §7, §9). A decoder (dec4: 62
  phases, 1606 mma: the patch expand = phase 1 from the half-resolution input, E1 adds the skip
  input, then enc5's phases 1..61 as 2..62 and the decoder final epilogue E62) reads --input (+8:
  the lower level's arena, (ex>>1) x (ey>>1), 5 planes), --skip FILE (+24: the encoder of its level's
  arena, ex x ey), --texture (+88, any size, sampled at (x + 0.5) * scale), --texture96 and
  --texture104 FILE.exr (ex x ey), --scale SX,SY (+136, default 0.5,0.5), and writes
  DIR/arena.bin and DIR/surface112.exr; given nothing, synthetic ones of the layer's token grid
  (dec4 80 x 46); --layer-reading expand-load-order=natural|fragment, expand-fill=clamp|zero,
  expand-subpixel=dy-dx|dx-dy, decoder-sampler=linear|point, decoder-gate-logit=raw|centred.
  dec0 (19 phases, 544 mma: the front in one warp, two heads in sequence, the MLP; no arena
  scatter, no final GEMM): E19 writes DIR/arena.bin (+48: 8 e4m3 bytes a pixel at byte 8 (ex y + x)),
  DIR/surface144.bin (+144: ex x ey x 4 f32, the tanh values) and surface112.exr;
  --layer-reading dec0-output-columns=column-order|contiguous|tanh-first.
  A merge layer: enc4 (62 phases, 1386 mma: enc5's
  phases 1..60, the patch merge = phase 61 in 32-column passes, phase 62 and E62) or enc3 (48
  phases, 936 mma: the same template at C = 128, 4 heads, 16 MLP chunks, the merge = phase 47 with
  K = 512, phase 48 and E48). Writes DIR/arena.bin (param+48, C/32 planes x ey x ex x 32 bytes:
  enc4 5, enc3 4), DIR/merged.bin (param+56: the merged tokens at (ex>>1) x (ey>>1), 5 planes, in
  the plane-arena layout the next layer reads) and the final epilogue's surfaces
  DIR/surface112.exr, surface120.exr (ex x ey) and surface128.exr ((ex>>1) x (ey>>1)), RGBA HALF.
  Given nothing: the embedded synthetic weights of the layer (seed 1), a synthetic input arena and
  texture of the layer's token grid (enc4 80 x 46, enc3 160 x 92; seed --seed). --layer-reading:
  merge-gather-order=swin|raster, merge-output-layout=arena-words|token-words,
  sigmoid-gate=logit10|logit11|acc, sigmoid-difference=gated|sigmoid, sigmoid-quad-value=difference|product,
  sigmoid-quad-writer=even|odd, sigmoid-inactive-lane=zero|own, sigmoid-alpha=sigmoids|zero (enc3's E48 takes
  the same). --trace: enc5's stage names at the layer's phase and epilogue numbers (enc4: enc5's,
  p61d = the merge's D, p62d, e62.gate/quad/sum; enc3: w1..w10, e9.*, p11c, p11d..p46d, e14.*,
  e46.words, p47d, p48d, e48.*; model/trace.hpp), of block --block ("all": every stage).
  --engine fast (default): byte for byte the golden model's outputs (tests/layer_engine_diff_test.cpp);
  the merge layers: the fused engine at the layer's dimensions through the last MLP phase, the
  engine's GEMM kernels for the merge and final phases; the decoders: the front on the golden parts
  with the engine's GEMM k-steps, then the fused engine. --threads N: blocks on N threads
  (default 0 = all hardware threads; the bytes do not depend on it).
)";

struct LayerRunArgs {
  std::string out = "out", weights_file, input_file, texture_file, trace_stages;
  std::string skip_file, texture96_file, texture104_file;  // the decoders'
  float sx = 0.5f, sy = 0.5f;                              // the decoders' +136
  std::uint64_t seed = 1;
  int ex = 0, ey = 0, ox = 0, oy = 0, bx = 0, by = 0;
  RunChoice choice;  // --engine fast (default) or golden, --threads, --profile, --reading
  std::vector<std::string> layer_readings;
  bool help = false;
};

LayerRunArgs parse_layer_run(const Args& args, LayerId layer) {
  LayerRunArgs a;
  a.ex = layer_spec(layer).abi.ex;
  a.ey = layer_spec(layer).abi.ey;
  OptionCursor c(args);
  while (c.next()) {
    if (c.name == "--layer") {
      c.take();
    } else if (c.name == "-h" || c.name == "--help") {
      a.help = true;
    } else if (c.name == "-o" || c.name == "--out") {
      a.out = c.take();
    } else if (c.name == "--weights") {
      a.weights_file = c.take();
    } else if (c.name == "--input") {
      a.input_file = c.take();
    } else if (c.name == "--texture") {
      a.texture_file = c.take();
    } else if (c.name == "--skip") {
      a.skip_file = c.take();
    } else if (c.name == "--texture96") {
      a.texture96_file = c.take();
    } else if (c.name == "--texture104") {
      a.texture104_file = c.take();
    } else if (c.name == "--scale") {
      std::tie(a.sx, a.sy) = parse_scale(c.name, c.take());
    } else if (c.name == "--seed") {
      a.seed = static_cast<std::uint64_t>(parse_int(c.name, c.take(), 0, 1LL << 62));
    } else if (c.name == "--ex") {
      a.ex = static_cast<int>(parse_int(c.name, c.take(), 2, 4096));
    } else if (c.name == "--ey") {
      a.ey = static_cast<int>(parse_int(c.name, c.take(), 2, 4096));
    } else if (c.name == "--block-offset") {
      const auto [x, y] = parse_pair(c.name, c.take(), 0, 7);
      a.ox = static_cast<int>(x);
      a.oy = static_cast<int>(y);
    } else if (c.name == "--layer-reading") {
      a.layer_readings.push_back(c.take());
    } else if (c.name == "--trace") {
      a.trace_stages = c.take();
    } else if (c.name == "--block") {
      const auto [x, y] = parse_pair(c.name, c.take(), 0, 4096);
      a.bx = static_cast<int>(x);
      a.by = static_cast<int>(y);
    } else if (!a.choice.handle(c)) {
      throw UsageError("unknown option '" + c.name + "'");
    }
  }
  return a;
}

// An arena: the file (its size checked against `pa`) or the synthetic one.
std::vector<std::uint8_t> arena_file(const std::string& file, const layout::PlaneArena& pa, const std::string& what,
                                     std::vector<std::uint8_t>& synthetic) {
  if (file.empty()) return std::move(synthetic);
  std::vector<std::uint8_t> input = read_file_bytes(file);
  if (input.size() != pa.total_bytes())
    throw InputError(file, input.size() < pa.total_bytes() ? input.size() : pa.total_bytes(),
                     std::to_string(pa.total_bytes()) + " bytes (" + what + ": " + std::to_string(pa.planes) + " planes at " +
                         std::to_string(pa.ex) + " x " + std::to_string(pa.ey) + ")",
                     std::to_string(input.size()) + " bytes");
  return input;
}

// A texture: the file (its size checked when `w` > 0) or the synthetic one.
Texture texture_file(const std::string& file, int w, int h, const std::string& what, Texture& synthetic) {
  Texture t = file.empty() ? std::move(synthetic) : texture_from_exr(file);
  if (w > 0 && (t.width != w || t.height != h))
    throw InputError(file, 0, "a " + std::to_string(w) + " x " + std::to_string(h) + " texture (" + what + ")",
                     std::to_string(t.width) + " x " + std::to_string(t.height));
  return t;
}

TraceRequest trace_request(const LayerRunArgs& a) {
  TraceRequest tr;
  for (std::size_t at = 0; at <= a.trace_stages.size();) {
    const std::size_t comma = std::min(a.trace_stages.find(',', at), a.trace_stages.size());
    if (comma > at) tr.stages.push_back(a.trace_stages.substr(at, comma - at));
    at = comma + 1;
  }
  tr.block_x = a.bx;
  tr.block_y = a.by;
  return tr;
}

// Every output or none (io/output_set.hpp: staged, then moved into place; issue 38, F9).
void write_layer_outputs(OutputSet& out, const LayerRunArgs& a, const LayerFrame& f, const Trace& trace, const WeightImage& w,
                         LayerId layer) {
  const bool merge = layer_spec(layer).merge();
  out.write("arena.bin", f.output_arena);
  if (merge) out.write("merged.bin", f.merged_output);
  write_surface_exr(out.path("surface112.exr"), f.surface112);
  if (merge) {
    write_surface_exr(out.path("surface120.exr"), f.surface120);
    write_surface_exr(out.path("surface128.exr"), f.surface128);
  }
  // dec0's +144 (E19's tanh values, sust.p of 4 f32): ex x ey x 4 f32, little endian, row-major.
  const bool dec0 = layer_spec(layer).final_epilogue == FinalEpilogueKind::dec0_output;
  if (dec0) {
    std::vector<std::uint8_t> b(f.surface144.rgba.size() * 4);
    if (!b.empty()) std::memcpy(b.data(), f.surface144.rgba.data(), b.size());
    out.write("surface144.bin", b);
  }
  const bool traced = !a.trace_stages.empty();
  if (traced) {
    write_trace_binary(out.path("trace.bin"), trace);
    write_trace_text(out.path("trace.txt"), trace);
  }
  out.commit();
  const LayerProgram& prog = layer_program(layer);
  const int fe = prog.spec->final_phase();
  const abi::GridExtent grid = abi::covering_grid(static_cast<std::uint32_t>(a.ex), static_cast<std::uint32_t>(a.ey),
                                                  static_cast<std::uint32_t>(a.ox), static_cast<std::uint32_t>(a.oy));
  std::printf("rrswin run --layer %s: %zu phases, %d mma, weight image %zu bytes; %d x %d tokens, %d x %d blocks\n",
              std::string(to_string(layer)).c_str(), prog.phases.size(), prog.mma_total, w.bytes().size(), a.ex, a.ey,
              static_cast<int>(grid.x), static_cast<int>(grid.y));
  if (dec0) {
    std::printf(
        "  wrote %s/arena.bin (%zu bytes, param+48: 8 e4m3 bytes a pixel), %s/surface144.bin (%d x %d x 4 f32, +144) and "
        "%s/surface112.exr (%d x %d, E19's surface +112)%s\n",
        a.out.c_str(), f.output_arena.size(), a.out.c_str(), a.ex, a.ey, a.out.c_str(), a.ex, a.ey, traced ? ", trace.bin, trace.txt" : "");
    return;
  }
  if (!merge) {
    std::printf("  wrote %s/arena.bin (%zu bytes, param+48) and %s/surface112.exr (%d x %d, E%d's surface +112)%s\n", a.out.c_str(),
                f.output_arena.size(), a.out.c_str(), a.ex, a.ey, fe, traced ? ", trace.bin, trace.txt" : "");
    return;
  }
  std::printf("  wrote %s/arena.bin (%zu bytes, param+48) and %s/merged.bin (%zu bytes, param+56, %d x %d)%s\n", a.out.c_str(),
              f.output_arena.size(), a.out.c_str(), f.merged_output.size(), a.ex >> 1, a.ey >> 1, traced ? ", trace.bin, trace.txt" : "");
  std::printf(
      "  wrote %s/surface112.exr, surface120.exr (%d x %d) and surface128.exr (%d x %d): E%d's surfaces +112/+120/+128 "
      "(readings sigmoid-*, docs/readings.md §7)\n",
      a.out.c_str(), a.ex, a.ey, a.ex >> 1, a.ey >> 1, fe);
}

}  // namespace

int cmd_run_layer(const Args& args, LayerId layer) {
  try {
    const LayerRunArgs a = parse_layer_run(args, layer);
    if (a.help) {
      std::fputs(kHelp, stdout);
      return 0;
    }
    const LayerSpec& s = layer_spec(layer);
    const bool decoder = s.front.kind == FrontKind::patch_expand;
    if (!s.merge() && !decoder) throw UsageError(std::string(s.name) + " runs through rrswin run without --layer");
    if (!decoder && !(a.skip_file.empty() && a.texture96_file.empty() && a.texture104_file.empty()))
      throw UsageError("--skip, --texture96 and --texture104 are the decoders' inputs");
    const LayerReadings lr = parse_layer_readings(a.layer_readings);
    const Readings readings = a.choice.parsed_readings();
    const Profile* profile = find_profile(a.choice.profile);

    WeightImage loaded;
    if (!a.weights_file.empty()) loaded = load_weight_image(a.weights_file, layer);  // InputError: main prints it
    const WeightImage& w = a.weights_file.empty() ? default_layer_weights(layer) : loaded;
    // A decoder's input is the lower level at half the extents (the expand's K/32 planes); its skip,
    // +96 and +104 are at the token grid, its +88 (synthetic: the half-resolution texture) any size.
    const int ix = decoder ? a.ex >> 1 : a.ex, iy = decoder ? a.ey >> 1 : a.ey;
    SyntheticFrame synth = make_synthetic_frame(ix, iy, a.seed, false, decoder ? s.front.k / 32 : s.k_slices());
    const std::vector<std::uint8_t> input = arena_file(a.input_file, layout::PlaneArena{ix, iy, decoder ? s.front.k / 32 : s.k_slices()},
                                                       "the " + std::string(s.name) + " input arena", synth.input_arena);
    Texture texture = texture_file(a.texture_file, decoder ? 0 : a.ex, a.ey, "the token grid", synth.texture);
    SyntheticFrame skip_synth, t104_synth;
    std::vector<std::uint8_t> skip;
    Texture texture96, texture104;
    if (decoder) {
      skip_synth = make_synthetic_frame(a.ex, a.ey, a.seed + 1, false, s.k_slices());
      t104_synth = make_synthetic_frame(a.ex, a.ey, a.seed + 2, false, 1);
      skip = arena_file(a.skip_file, layout::PlaneArena{a.ex, a.ey, s.k_slices()}, "the " + std::string(s.name) + " skip arena (+24)",
                        skip_synth.input_arena);
      texture96 = texture_file(a.texture96_file, a.ex, a.ey, "+96, the token grid", skip_synth.texture);
      texture104 = texture_file(a.texture104_file, a.ex, a.ey, "+104, the token grid", t104_synth.texture);
    }
    LayerFrame f;
    f.texture = &texture;
    if (decoder) {
      f.skip_arena = skip;
      f.texture96 = &texture96;
      f.texture104 = &texture104;
      f.scale = {a.sx, a.sy};
    }
    f.ex = a.ex;
    f.ey = a.ey;
    f.ox = a.ox;
    f.oy = a.oy;
    f.input_arena = input;
    f.weights = &w;
    OutputSet out(a.out);  // checks the folder can take the outputs before the layer runs
    const TraceRequest tr = trace_request(a);
    const TraceRequest* trp = a.trace_stages.empty() ? nullptr : &tr;
    if (trp) {
      const abi::GridExtent grid = abi::covering_grid(static_cast<std::uint32_t>(a.ex), static_cast<std::uint32_t>(a.ey),
                                                      static_cast<std::uint32_t>(a.ox), static_cast<std::uint32_t>(a.oy));
      check_trace_block(a.bx, a.by, static_cast<int>(grid.x), static_cast<int>(grid.y));
    }
    Trace trace;
    golden::LayerStats stats;
    const int threads = a.choice.threads > 0 ? a.choice.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (a.choice.engine == "golden")
      run_layer_frame_golden(f, *profile, readings, lr, &stats, trp, &trace);
    else
      engine::run_layer_frame_fast(f, *profile, readings, lr, {engine::default_simd_path(), threads}, &stats, trp, &trace);
    if (trp) check_trace_stages(tr.stages, trace);
    write_layer_outputs(out, a, f, trace, w, layer);
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "rrswin run: %s (rrswin run --layer %s --help)\n", e.what(), std::string(to_string(layer)).c_str());
    return 2;
  }
}

}  // namespace rrswin::cli
