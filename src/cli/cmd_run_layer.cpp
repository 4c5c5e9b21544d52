// enc5 run --layer enc4: the golden model of another layer of the template (model/layer_golden.hpp)
// on embedded synthetic assets or given files. What it writes: the plane arena (param+48,
// arena.bin) and the patch merge's output (param+56, merged.bin, a plane arena at the halved
// extents: the next layer's input); E62 (the surfaces) is not modelled (docs/readings.md §7).
#include <cstdio>
#include <filesystem>
#include <string>

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "base/errors.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "io/files.hpp"
#include "io/trace_io.hpp"
#include "io/weight_file.hpp"
#include "layout/arena.hpp"
#include "model/layer_golden.hpp"
#include "model/layer_program.hpp"

namespace enc5::cli {
namespace {

constexpr const char* kHelp = R"(usage: enc5 run --layer enc4 [-o DIR] [--weights FILE] [--input FILE] [--seed N]
                 [--ex N --ey N] [--block-offset X,Y] [--profile P] [--reading NAME=VALUE]
                 [--layer-reading NAME=VALUE] [--trace STAGES --block X,Y]
  Runs enc4 (62 phases, 1386 mma) with the golden model: enc5's phases 1..60, the patch merge
  (phase 61 in 32-column passes) and phase 62 (docs/readings.md §7). Writes DIR/arena.bin (param+48,
  5 x ey x ex x 32 bytes) and DIR/merged.bin (param+56: the merged tokens at (ex>>1) x (ey>>1), in
  the plane-arena layout enc5 reads). E62, the final epilogue (surfaces +112/+120/+128), is not
  modelled. Given nothing: the embedded synthetic enc4 weights (seed 1), a synthetic input arena of
  the layer's token grid (80 x 46, seed --seed). --layer-reading: merge-gather-order=swin|raster,
  merge-output-layout=e60-words|token-words. --trace: enc5's stage names plus p61d (the merge's D)
  and p62d, of block --block. enc3's golden model is not written yet (enc5 inspect --layer enc3).
)";

}  // namespace

int cmd_run_layer(const Args& args, LayerId layer) {
  try {
    std::string out = "out", weights_file, input_file, trace_stages;
    std::uint64_t seed = 1;
    int ex = layer_spec(layer).abi.ex, ey = layer_spec(layer).abi.ey, ox = 0, oy = 0, bx = 0, by = 0;
    RunChoice choice;
    choice.engine = "golden";
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
        if (choice.engine != "golden") throw UsageError("--engine: only the golden model runs " + std::string(to_string(layer)));
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
    if (input_file.empty()) {
      synth = make_synthetic_frame(ex, ey, seed, false);
      input = std::move(synth.input_arena);
    } else {
      input = read_file_bytes(input_file);
      if (input.size() != pa.total_bytes())
        throw InputError(input_file, input.size() < pa.total_bytes() ? input.size() : pa.total_bytes(),
                         std::to_string(pa.total_bytes()) + " bytes (the enc4 input arena at " + std::to_string(ex) + " x " +
                             std::to_string(ey) + ")",
                         std::to_string(input.size()) + " bytes");
    }
    Enc4Frame f;
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
    run_enc4_frame_golden(f, *profile, readings, lr, &stats, trace_stages.empty() ? nullptr : &tr, &trace);
    std::filesystem::create_directories(out);
    write_file_atomic(out + "/arena.bin", f.output_arena);
    write_file_atomic(out + "/merged.bin", f.merged_output);
    if (!trace_stages.empty()) {
      write_trace_binary(out + "/trace.bin", trace);
      write_trace_text(out + "/trace.txt", trace);
    }
    const LayerProgram& prog = layer_program(layer);
    std::printf("enc5 run --layer %s: %zu phases, %d mma, weight image %zu bytes; %d x %d tokens, %d x %d blocks\n",
                std::string(to_string(layer)).c_str(), prog.phases.size(), prog.mma_total, w.bytes().size(), ex, ey,
                (ex + ox + 7) / 8, (ey + oy + 7) / 8);
    std::printf("  wrote %s/arena.bin (%zu bytes, param+48) and %s/merged.bin (%zu bytes, param+56, %d x %d)%s\n",
                out.c_str(), f.output_arena.size(), out.c_str(), f.merged_output.size(), ex >> 1, ey >> 1,
                trace_stages.empty() ? "" : ", trace.bin, trace.txt");
    std::printf("  E62 (surfaces +112/+120/+128) is not modelled (docs/readings.md §7)\n");
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "enc5 run: %s (enc5 run --layer enc4 --help)\n", e.what());
    return 2;
  }
}

}  // namespace enc5::cli
