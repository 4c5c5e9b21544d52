// Captures of a whole frame (issue 36): one folder of d4r launch dumps (facts F5: the state after
// each launch) holding one frame's eleven layer launches in network order, replayed per layer (each
// launch from its own captured inputs) or chained (the network from the first replayable layer's
// captured inputs, every later layer fed by the chained outputs of its upstream layers along
// model/network.hpp's edges). Each launch is read and run as `rrswin replay --layer L` reads and
// runs one (bridge/layer_capture.hpp: layer_capture_from_dump, replay_layer_capture), and written
// by the per-layer writers (layer_capture_before_launch, store_layer_outputs,
// kernel_capture_outputs). docs/network.md "Captures of a whole frame".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/frame.hpp"
#include "bridge/layer_capture.hpp"
#include "capture/capture.hpp"
#include "model/layer_golden.hpp"
#include "model/layer_spec.hpp"

namespace rrswin::ptx {

// A layer's launch number in a network capture: its place in network order, enc0 1 .. dec0 11.
std::uint32_t network_launch_number(LayerId id);

// Why a layer's captured launch is not replayed ("" when it is): a launch of enc0 without rrswin's
// stand-ins (+8, +88: LaunchAbi::standin_*) is one of the original kernel, whose prologue builds the
// model's input from the network input +304, which no source decodes. Throws InputError naming the
// missing file when the launch holds one stand-in but not the other (all or none).
std::string network_not_replayable(LayerId id, const capture::DumpedLaunch& d);

struct NetworkCaptureOptions {
  int render_w = 256, render_h = 128;  // level_grid's render (the smallest every level runs: 64 x 64)
  std::uint64_t seed = 1;              // the demo inputs' seed (api/network_demo.hpp)
  const Profile* profile = nullptr;    // null: ada
  Readings readings;
  LayerReadings layer_readings;
  Engine engine = Engine::fast;
  int threads = 1;
};
// Runs the network once on the demo inputs `rrswin run --network` runs (api/network_demo.hpp, the
// same seed and render) and returns one folder's files: each layer's launch after the run in
// launch-dump naming, launch network_launch_number(L) (inputs, weights, outputs, textures and
// surfaces, as the layer's per-layer capture holds them after its launch; one buffer has one made-up
// device address in every launch that names it), and README.txt saying what the folder holds.
// enc0's launch holds rrswin's stand-ins (LaunchAbi::standin_*): +8 the demo's synthetic staged input
// tensor, +88 its texture standing for input_noise; the network input +304 its prologue reads does
// not exist for the demo frame and is not held.
std::vector<std::pair<std::string, std::vector<std::uint8_t>>> synthetic_network_capture_files(const NetworkCaptureOptions& o);

// A network capture as read: one entry per layer in network order.
struct NetworkCaptureLayer {
  LayerId layer = LayerId::enc0;
  std::optional<capture::DumpedLaunch> launch;  // absent: the folder has no launch of its kernel
  std::string not_replayable;                   // why the launch is not replayed ("" when it is)
};
struct NetworkCapture {
  std::string dir;
  std::vector<NetworkCaptureLayer> layers;  // all eleven, network order
  std::vector<std::string> ignored;         // launches of other kernels ("launch 3 of foo_kernel")
};
// Reads a folder of launch dumps as one frame: every launch of a `cuda_dldn_engine_swin_` kernel
// (capture::load_dumped_launches: the shape and size checks, one file per argument, no links),
// each kernel mapped to its layer by its entry name. Throws InputError / std::runtime_error naming
// the folder or file: a layer without a launch (naming the files expected; but enc0, whose launch
// is then not replayed, as one without rrswin's stand-ins), two launches
// of one layer, launch numbers out of network order, a launch without an argument its layer's ABI
// reads (naming the file expected), a kernel of the swin family that is no layer.
NetworkCapture load_network_capture(const std::string& dir);

struct NetworkReplayOptions {
  LayerReplayOptions replay;  // profile, readings, engine, threads
  bool chained = false;
  float sx = 0.5f, sy = 0.5f;  // the decoders' +136 (launch dumps carry no parameter block; the demo's)
};

// Where the first differing byte of a layer's outputs lies.
struct NetworkDifference {
  int arg = 0;                     // the output's parameter offset (48, 56, 112, ...)
  std::uint64_t offset = 0;        // in the dumped file
  std::string where;               // "plane 2 token (5, 3)", "texel (13, 9) byte 4", ...
  int block_x = -1, block_y = -1;  // the 8 x 8-token block of the launch that writes it; -1 outside the frame
};
struct NetworkLayerReplay {
  LayerId layer = LayerId::enc0;
  std::uint32_t launch = 0;  // the captured launch number (0: none)
  enum class Status { reproduces, differs, not_replayable } status = Status::not_replayable;
  std::string why;  // not_replayable: why
  int ex = 0, ey = 0;
  std::uint64_t bytes_compared = 0, bytes_differing = 0;  // over the outputs (+48, +56, the surfaces)
  std::vector<std::pair<int, std::uint64_t>> per_output;  // parameter offset -> bytes differing
  std::optional<NetworkDifference> first;
  // Chained: what fed each input parameter ("+8 <- enc1.+56 (chained)", "+8 captured (...)"), and how
  // many bytes of the chained inputs differ from the layer's own captured inputs.
  std::vector<std::string> inputs;
  std::uint64_t input_bytes_differing = 0;
  KernelCapture replayed;  // the launch after the replay (written under OUT/<layer>/)
};
struct NetworkReplay {
  bool chained = false;
  std::vector<NetworkLayerReplay> layers;  // network order
  std::optional<LayerId> first_differing;  // the first layer in network order whose outputs differ
  std::string start;                       // chained: which layer's captured inputs the chain starts from, and why
  bool all_reproduce() const { return !first_differing; }
};
// Replays every replayable layer's launch and compares its outputs with the captured ones (per
// layer: its captured inputs; chained: as above). The level grids must be one frame's (each layer's
// token grid the first replayable layer's scaled by its level, model/network.hpp level_grid), else
// an InputError names the layer's grid texture. Throws as the per-layer replay does on a damaged
// launch.
NetworkReplay replay_network_capture(const NetworkCapture& cap, const NetworkReplayOptions& o);

// The replay's outputs: <layer>/<launch-dump name> for each replayed launch (every argument after
// the replay, its captured launch number) and summary.txt (network_replay_text).
std::vector<std::pair<std::string, std::vector<std::uint8_t>>> network_replay_files(const NetworkReplay& r);
// One line per layer, then the verdict (what `rrswin replay --network` prints).
std::string network_replay_text(const NetworkReplay& r, const std::string& dir);
// The same as one JSON object.
std::string network_replay_json(const NetworkReplay& r, const std::string& dir);

}  // namespace rrswin::ptx
