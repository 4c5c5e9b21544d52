// enc5 run --layer enc4: the golden model of another layer of the template (model/layer_golden.hpp)
// on embedded synthetic assets or given files. What it writes: the plane arena (param+48,
// arena.bin), the patch merge's output (param+56, merged.bin, a plane arena at the halved
// extents: the next layer's input) and E62's three surfaces (surface112/120/128.exr; readings e62-*
// of docs/readings.md §7).
#include <cstdio>
#include <filesystem>
#include <string>

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "base/errors.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "engine/layer_engine.hpp"
#include "engine/simd.hpp"
#include "io/files.hpp"
#include "io/frame_io.hpp"
#include "io/trace_io.hpp"
#include "io/weight_file.hpp"
#include "layout/arena.hpp"
#include "model/layer_golden.hpp"
#include "model/layer_program.hpp"

namespace enc5::cli {
namespace {

constexpr const char* kHelp = R"(usage: enc5 run --layer enc4 [-o DIR] [--weights FILE] [--input FILE] [--texture FILE.exr] [--seed N]
                 [--ex N --ey N] [--block-offset X,Y] [--engine fast|golden] [--profile P] [--reading NAME=VALUE]
                 [--layer-reading NAME=VALUE] [--trace STAGES --block X,Y]
  Runs enc4 (62 phases, 1386 mma): enc5's phases 1..60, the patch merge
  (phase 61 in 32-column passes), phase 62 and E62 (docs/readings.md §7). Writes DIR/arena.bin
  (param+48, 5 x ey x ex x 32 bytes), DIR/merged.bin (param+56: the merged tokens at (ex>>1) x
  (ey>>1), in the plane-arena layout enc5 reads) and E62's surfaces DIR/surface112.exr,
  surface120.exr (ex x ey) and surface128.exr ((ex>>1) x (ey>>1)), RGBA HALF. Given nothing: the
  embedded synthetic enc4 weights (seed 1), a synthetic input arena and texture of the layer's token
  grid (80 x 46, seed --seed). --layer-reading: merge-gather-order=swin|raster,
  merge-output-layout=e60-words|token-words, e62-gate=logit10|logit11|acc,
  e62-difference=gated|sigmoid, e62-quad-value=difference|product, e62-quad-writer=even|odd,
  e62-inactive-lane=zero|own, e62-alpha=sigmoids|zero. --trace: enc5's stage names plus p61d (the
  merge's D), p62d, e62.gate, e62.quad, e62.sum, of block --block. enc3's golden model is not
  written yet (enc5 inspect --layer enc3). --engine fast (default): enc5's fast engine for phases
  1..60, the engine's GEMM kernels for phases 61/62, byte for byte the golden model's outputs
  (tests/layer_engine_diff_test.cpp); the blocks run one after another.
)";

}  // namespace

int cmd_run_layer(const Args& args, LayerId layer) {
  try {
    std::string out = "out", weights_file, input_file, texture_file, trace_stages;
    std::uint64_t seed = 1;
    int ex = layer_spec(layer).abi.ex, ey = layer_spec(layer).abi.ey, ox = 0, oy = 0, bx = 0, by = 0;
    RunChoice choice;  // --engine fast (default) or golden
    std::vector<std::string> layer_readings;
    OptionCursor c(args);
    while (c.next()) {
      if (c.name == "--layer") {
        c.take();
      } else if (c.name == "-h" || c.name == "--help") {
        std::fputs(kHelp, stdout);
        return 0;
      } else if (c.name == "-o" || c.name == "--out") {
        out = c.take();
      } else if (c.name == "--weights") {
        weights_file = c.take();
      } else if (c.name == "--input") {
        input_file = c.take();
      } else if (c.name == "--texture") {
        texture_file = c.take();
      } else if (c.name == "--seed") {
        seed = static_cast<std::uint64_t>(parse_int(c.name, c.take(), 0, 1LL << 62));
      } else if (c.name == "--ex") {
        ex = static_cast<int>(parse_int(c.name, c.take(), 2, 4096));
      } else if (c.name == "--ey") {
        ey = static_cast<int>(parse_int(c.name, c.take(), 2, 4096));
      } else if (c.name == "--block-offset") {
        const auto [x, y] = parse_pair(c.name, c.take(), 0, 7);
        ox = static_cast<int>(x);
        oy = static_cast<int>(y);
      } else if (c.name == "--layer-reading") {
        layer_readings.push_back(c.take());
      } else if (c.name == "--trace") {
        trace_stages = c.take();
      } else if (c.name == "--block") {
        const auto [x, y] = parse_pair(c.name, c.take(), 0, 4096);
        bx = static_cast<int>(x);
        by = static_cast<int>(y);
      } else if (choice.handle(c)) {
      } else {
        throw UsageError("unknown option '" + c.name + "'");
      }
    }
    if (layer != LayerId::enc4)
      throw UsageError(std::string(to_string(layer)) + "'s golden model is not written yet (enc5 inspect --layer " +
                       std::string(to_string(layer)) + " prints its phase table)");
    LayerReadings lr;
    for (const std::string& r : layer_readings) {
      std::string err;
      if (!set_layer_reading(lr, r, &err)) throw UsageError("--layer-reading " + r + ": " + err);
    }
    const Readings readings = choice.parsed_readings();
    const Profile* profile = find_profile(choice.profile);

    WeightImage loaded;
    if (!weights_file.empty()) loaded = load_weight_image(weights_file, layer);  // InputError: main prints it
    const WeightImage& w = weights_file.empty() ? default_layer_weights(layer) : loaded;
    SyntheticFrame synth;
    std::vector<std::uint8_t> input;
    const layout::PlaneArena pa{ex, ey};
    synth = make_synthetic_frame(ex, ey, seed, false);
    if (input_file.empty()) {
      input = std::move(synth.input_arena);
    } else {
      input = read_file_bytes(input_file);
      if (input.size() != pa.total_bytes())
        throw InputError(
            input_file, input.size() < pa.total_bytes() ? input.size() : pa.total_bytes(),
            std::to_string(pa.total_bytes()) + " bytes (the enc4 input arena at " + std::to_string(ex) + " x " + std::to_string(ey) + ")",
            std::to_string(input.size()) + " bytes");
    }
    Texture texture = texture_file.empty() ? std::move(synth.texture) : texture_from_exr(texture_file);
    if (texture.width != ex || texture.height != ey)
      throw InputError(texture_file, 0, "a " + std::to_string(ex) + " x " + std::to_string(ey) + " texture (the token grid)",
                       std::to_string(texture.width) + " x " + std::to_string(texture.height));
    Enc4Frame f;
    f.texture = &texture;
    f.ex = ex;
    f.ey = ey;
    f.ox = ox;
    f.oy = oy;
    f.input_arena = input;
    f.weights = &w;
    TraceRequest tr;
    Trace trace;
    if (!trace_stages.empty()) {
      for (std::size_t at = 0; at <= trace_stages.size();) {
        const std::size_t comma = std::min(trace_stages.find(',', at), trace_stages.size());
        if (comma > at) tr.stages.push_back(trace_stages.substr(at, comma - at));
        at = comma + 1;
      }
      tr.block_x = bx;
      tr.block_y = by;
    }
    golden::LayerStats stats;
    if (choice.engine == "golden")
      run_enc4_frame_golden(f, *profile, readings, lr, &stats, trace_stages.empty() ? nullptr : &tr, &trace);
    else
      engine::run_enc4_frame_fast(f, *profile, readings, lr, {engine::default_simd_path()}, &stats, trace_stages.empty() ? nullptr : &tr,
                                  &trace);
    std::filesystem::create_directories(out);
    write_file_atomic(out + "/arena.bin", f.output_arena);
    write_file_atomic(out + "/merged.bin", f.merged_output);
    write_surface_exr(out + "/surface112.exr", f.surface112);
    write_surface_exr(out + "/surface120.exr", f.surface120);
    write_surface_exr(out + "/surface128.exr", f.surface128);
    if (!trace_stages.empty()) {
      write_trace_binary(out + "/trace.bin", trace);
      write_trace_text(out + "/trace.txt", trace);
    }
    const LayerProgram& prog = layer_program(layer);
    std::printf("enc5 run --layer %s: %zu phases, %d mma, weight image %zu bytes; %d x %d tokens, %d x %d blocks\n",
                std::string(to_string(layer)).c_str(), prog.phases.size(), prog.mma_total, w.bytes().size(), ex, ey, (ex + ox + 7) / 8,
                (ey + oy + 7) / 8);
    std::printf("  wrote %s/arena.bin (%zu bytes, param+48) and %s/merged.bin (%zu bytes, param+56, %d x %d)%s\n", out.c_str(),
                f.output_arena.size(), out.c_str(), f.merged_output.size(), ex >> 1, ey >> 1,
                trace_stages.empty() ? "" : ", trace.bin, trace.txt");
    std::printf(
        "  wrote %s/surface112.exr, surface120.exr (%d x %d) and surface128.exr (%d x %d): E62's surfaces +112/+120/+128 "
        "(readings e62-*, docs/readings.md §7)\n",
        out.c_str(), ex, ey, ex >> 1, ey >> 1);
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "enc5 run: %s (enc5 run --layer enc4 --help)\n", e.what());
    return 2;
  }
}

}  // namespace enc5::cli
