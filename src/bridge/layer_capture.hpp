// Replay captures of the merge layers (issue 21: enc4 and enc3): a
// replay capture of the layer's kernel, read with the grammar every kernel's capture has
// (bridge/kernel_capture.hpp, facts F6), its parameter block read by the layer's launch ABI
// (model/layer_spec.hpp LaunchAbi: DOC4 §1.1, DESC4 layer()), run by the golden model or the fast
// engine, and written back in launch-dump naming: the same files `rrswin ptx run FILE.ptx --capture
// DIR` writes when it interprets the original kernel (corpus file 0017) on the same capture, so
// `rrswin diff` compares the model with the original on any launch (docs/captures.md "Captures of
// the merge layers").
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "api/frame.hpp"
#include "bridge/kernel_capture.hpp"
#include "model/layer_golden.hpp"
#include "model/layer_spec.hpp"
#include "numerics/profile.hpp"

namespace rrswin::ptx {

// The ranges of a merge layer's launch fields (as `rrswin run --layer`): extents 2..4096 tokens,
// block origin offsets 0..7.
inline constexpr int kLayerExtentMin = 2, kLayerExtentMax = 4096, kLayerOriginMax = 7;

// What the model reads of a capture, found by the layer's ABI: the extents (u32 at +0/+4), the
// block origin (u16 at +80/+82), and which pointer and image of the capture each argument is.
struct LayerLaunch {
  LayerId layer = LayerId::enc4;
  std::uint32_t ex = 0, ey = 0;
  std::uint16_t ox = 0, oy = 0;
  std::size_t input = 0, weights = 0, arena = 0, merged = 0;  // indices into KernelCapture::pointers
  std::size_t texture = 0;                                    // index into KernelCapture::images
  std::vector<std::size_t> surfaces;                          // the ABI's surfaces, in its order
  // The decoders' (no merged output): the skip (+24, a pointer), the integer-coordinate textures
  // (+96, +104, images) and the coordinate scale (+136, two f32 in the parameter block).
  std::size_t skip = 0, texture96 = 0, texture104 = 0;
  float sx = 0, sy = 0;
};
// Checks the capture against the layer's launch and returns where everything is. Every number is
// hostile: the block's size, each argument's presence and kind, the extents (2..4096, as `enc5
// run --layer`), each buffer's size from its pointer (the input and output arenas C/32·ey·ex·32 bytes, the merged output 5·(ey>>1)·(ex>>1)·32, the weight
// image), the texture and surface extents (ex x ey; the third surface at
// the halved extents, DESC4 layer()) and the grid (z = 1; x, y at least the grid covering the
// frame, ceil((ex + ox) / 8) x ceil((ey + oy) / 8), and at most twice it + 8, as enc5's replay).
// enc0's input and texture are rrswin's stand-ins (+8, +88: LaunchAbi::standin_*); a capture without
// them (one of the original kernel) is refused naming the missing argument and why.
// Throws InputError naming args.bin or manifest.txt and what was expected versus found.
LayerLaunch read_layer_launch(const KernelCapture& c, LayerId layer);

struct LayerReplayOptions {
  const Profile* profile = nullptr;  // null: ada
  Readings readings;
  LayerReadings layer_readings;
  bool golden = false;  // the golden model instead of the fast engine (the same bytes)
  int threads = 1;      // the fast engine's blocks on this many threads (the bytes do not depend on it)
};
// Runs the layer on the capture and updates it in place as run_kernel_capture does: the output
// arenas' windows (param+48, +56) and the surfaces' ex x ey texels hold the model's results, every
// other byte stays as captured (the kernel writes nothing else). The windows start from zeros, as
// enc5's replay (docs/captures.md). Returns the launch read. enc5 (read by the same ABI: +8, +40,
// +48, +88, +112, no merged output) runs through its frame driver (api/frame.hpp run_frame).
LayerLaunch replay_layer_capture(KernelCapture& c, LayerId layer, const LayerReplayOptions& o);

// A layer's results as its launch leaves them: the output arena +48 (dec0's: 8 e4m3 bytes a pixel),
// the merged output +56 (the merge layers), the RGBA16F surfaces in the ABI's order and dec0's f32
// +144.
struct LayerOutputs {
  std::span<const std::uint8_t> arena, merged;
  std::array<const Surface*, 3> surfaces{};
  const SurfaceF32* surface144 = nullptr;
};
// Stores them into the capture's allocations and surfaces at the layer's ABI offsets (the windows
// at each pointer, the surfaces' covered texels; every other byte stays). What replay_layer_capture
// does after its run, and how the network capture (bridge/network_capture.hpp) fills each launch.
// Throws std::invalid_argument when an argument is missing or too small for what it stores.
void store_layer_outputs(KernelCapture& c, LayerId layer, const LayerOutputs& out);

// A d4r launch dump of the layer's kernel (capture::load_dumped_launches: the state AFTER the
// launch, facts F5) as a capture: the dumped buffers as allocations (base0x/off tokens as base and
// pointer delta), the texture and surfaces, and a parameter block built by the layer's ABI, since
// launch dumps carry none: the extents are the texture's (E62 samples the token grid, DESC4) unless
// ex/ey > 0, the block origin ox, oy (default 0), the grid covering the frame. A dump of enc0 without
// rrswin's stand-ins (-arg008-buffer, -arg088-texture files: a dump of the original kernel, which
// holds +304) is refused with an InputError naming the missing file and why. The result is both
// what the model replays (its windows start from zeros) and the original's results to compare with.
struct LayerDumpOptions {
  int ex = 0, ey = 0;
  int ox = 0, oy = 0;
  float sx = 0.5f, sy = 0.5f;  // a decoder's +136 (launch dumps carry no parameter block)
};
KernelCapture layer_capture_from_dump(const capture::DumpedLaunch& d, LayerId layer, const LayerDumpOptions& o);

// A synthetic replay capture of a merge layer (the state before its launch): the embedded
// synthetic weights of the layer, a synthetic input arena and texture at ex x ey (0: the layer's
// token grid) from `seed`, zeroed outputs and surfaces, the grid covering the frame, the layer's
// block and shared bytes. Allocation bases are distinct made-up device addresses.
struct SyntheticLayerCapture {
  std::uint64_t seed = 1;
  int ex = 0, ey = 0;
  int ox = 0, oy = 0;
  float sx = 0.5f, sy = 0.5f;  // a decoder's +136
};
KernelCapture synthetic_layer_capture(LayerId layer, const SyntheticLayerCapture& o);

// A replay capture of the layer's kernel (the state before its launch) from given inputs, in the
// form synthetic_layer_capture writes (one allocation per buffer, zeroed outputs and surfaces, the
// grid covering the frame): the input +8 and, for a decoder, the skip +24 (spans of the sizes the
// ABI gives: read_layer_launch's checks apply when it is read), the weights +40, the textures.
// enc0's input and texture are rrswin's stand-ins (model/layer_spec.hpp LaunchAbi::standin_input,
// standin_texture: +8 the staged input tensor, +88 the texture standing for input_noise; its +304,
// the network input its undecoded prologue reads, is not held). `bases` gives a parameter's allocation
// its device address (made up; a network capture gives one buffer one address in every launch that
// names it); a parameter without one gets a distinct made-up address.
struct LayerCaptureInputs {
  int ex = 0, ey = 0;
  int ox = 0, oy = 0;
  std::span<const std::uint8_t> input, skip;
  const WeightImage* weights = nullptr;
  const Texture *texture = nullptr, *texture96 = nullptr, *texture104 = nullptr;
  float sx = 0.5f, sy = 0.5f;
  std::vector<std::pair<int, std::uint64_t>> bases;  // parameter offset -> allocation base
};
KernelCapture layer_capture_before_launch(LayerId layer, const LayerCaptureInputs& in);
// The samplers of the layer's textures in its capture: a decoder's +88 (sampled at f32 coordinates)
// is bound linear, the value of the reading decoder-sampler the golden model computes by default
// (docs/readings.md §9), so that an interpreted kernel and the model sample it alike; every other
// texture is fetched at integer coordinates (point, whatever the sampler). The capture builders
// above call it; a capture read from files gets it from its loader (cmd_layer_capture.cpp).
void bind_layer_samplers(KernelCapture& c, LayerId layer);
// The files of a replay capture (manifest.txt, args.bin, alloc-N.bin, one file per texture or
// surface), in the grammar load_kernel_capture reads: what `rrswin capture --layer` writes.
std::vector<std::pair<std::string, std::vector<std::uint8_t>>> replay_capture_files(const KernelCapture& c);

}  // namespace rrswin::ptx
