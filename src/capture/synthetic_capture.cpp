// Synthetic captures: enc5's own run written in d4r's launch-dump or replay-capture form
// (docs/captures.md "rrswin capture --synthetic").
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "base/little_endian.hpp"
#include "capture/capture.hpp"
#include "capture/capture_detail.hpp"
#include "capture/debug_stage.hpp"
#include "io/arena_io.hpp"
#include "io/files.hpp"
#include "io/output_set.hpp"
#include "model/weight_image.hpp"

namespace rrswin::capture {

using namespace detail;

// --- synthetic captures --------------------------------------------------------------------------

namespace {

// Device addresses are made up (only deltas matter).
constexpr std::uint64_t kBaseIn = 0x7f0000000000ull, kBaseW = 0x7f0000400000ull, kBaseOut = 0x7f0000800000ull;

// The output allocation: the arena window with `before` and `after` bytes around it holding a fixed
// pattern, so that a reader that ignores the offset fails loudly (facts F4).
std::vector<std::uint8_t> output_allocation(std::size_t before, std::size_t n, std::size_t after) {
  std::vector<std::uint8_t> out(before + n + after, 0);
  for (std::size_t i = 0; i < before; ++i) out[i] = static_cast<std::uint8_t>(0xA5 ^ i);
  for (std::size_t i = 0; i < after; ++i) out[before + n + i] = static_cast<std::uint8_t>(0x5A ^ i);
  return out;
}

// How many bytes must follow the arena so that a debug stage's payload fits (facts F1: base
// 4,000,000 >> 147,200 arena bytes), bounded so a synthetic capture stays a reasonable file.
std::size_t window_after(const SyntheticCaptureOptions& o, std::size_t n) {
  if (!o.stage) return o.window_after;
  constexpr std::uint64_t kMaxSyntheticAlloc = 1ull << 28;
  const GridExtent cover = covering_grid(static_cast<std::uint32_t>(o.ex), static_cast<std::uint32_t>(o.ey),
                                         static_cast<std::uint32_t>(o.ox), static_cast<std::uint32_t>(o.oy));
  const DebugWindow debug = debug_window(*o.stage, o.debug_base, static_cast<int>(cover.x), static_cast<int>(cover.y));
  if (o.debug_base < n || o.debug_base > kMaxSyntheticAlloc || o.window_before + o.debug_base + debug.bytes > kMaxSyntheticAlloc)
    throw std::runtime_error("--debug-base " + std::to_string(o.debug_base) +
                             ": a synthetic debug capture needs a base of at least the arena's " + std::to_string(n) +
                             " bytes (the payload must not overlap it) and an allocation below 2^28 bytes");
  return std::max<std::size_t>(o.window_after, o.debug_base + debug.bytes - n);
}

// enc5's synthetic launch as a capture holding its inputs (the state before the launch).
LaunchCapture synthetic_launch(const std::string& dir, const SyntheticCaptureOptions& o) {
  const SyntheticFrame frame = make_synthetic_frame(o.ex, o.ey, o.seed, o.stress);
  const WeightImage weights = (o.seed == 1 && !o.stress) ? default_weights() : make_synthetic_weights(SyntheticOptions{o.seed, o.stress});
  const std::size_t n = plane_arena_bytes(o.ex, o.ey);
  LaunchCapture c;
  c.source = dir;
  c.launch = o.launch;
  c.ex = o.ex;
  c.ey = o.ey;
  c.ox = static_cast<std::uint16_t>(o.ox);
  c.oy = static_cast<std::uint16_t>(o.oy);
  c.input = BufferArg{"", buffer_shape(kBaseIn, n, 0), kBaseIn, 0, frame.input_arena};
  c.weights = BufferArg{"", buffer_shape(kBaseW, kWeightImageBytes, 0), kBaseW, 0,
                        std::vector<std::uint8_t>(weights.bytes().begin(), weights.bytes().end())};
  std::vector<std::uint8_t> out = output_allocation(o.window_before, n, window_after(o, n));
  c.output = BufferArg{"", buffer_shape(kBaseOut, out.size(), o.window_before), kBaseOut, o.window_before, std::move(out)};
  c.texture.width = frame.texture.width;
  c.texture.height = frame.texture.height;
  c.texture.pitch = 8u * frame.texture.width;
  c.texture.mode = frame.texture.mode;
  c.texture.bytes.resize(c.texture.pitch * c.texture.height);
  for (std::size_t i = 0; i < frame.texture.rgba.size(); ++i) {
    c.texture.bytes[2 * i] = static_cast<std::uint8_t>(frame.texture.rgba[i]);
    c.texture.bytes[2 * i + 1] = static_cast<std::uint8_t>(frame.texture.rgba[i] >> 8);
  }
  c.texture.shape = image_shape(c.texture, true);
  c.surface.width = o.ex;
  c.surface.height = o.ey;
  c.surface.pitch = 8u * o.ex;
  c.surface.bytes.assign(c.surface.pitch * o.ey, 0);
  c.surface.shape = image_shape(c.surface, false);
  return c;
}

// The launch dumps of `c` into `sub` of the output set: the inputs (when asked) and the outputs r.
void put_dumps(OutputSet& set, const fs::path& sub, const LaunchCapture& c, const ReplayOutputs& r, bool inputs) {
  auto put = [&](int arg, const char* kind, const std::string& shape, int fmt, std::span<const std::uint8_t> bytes) {
    set.write((sub / format_dump_name(DumpName{c.launch, c.kernel, arg, kind, shape, fmt})).string(), bytes);
  };
  if (inputs) {
    put(kArgInput, "buffer", c.input.shape, kFmtBuffer, c.input.bytes);
    put(kArgWeights, "buffer", c.weights.shape, kFmtBuffer, c.weights.bytes);
    put(kArgTexture, "texture", c.texture.shape, kFmtHalf, c.texture.bytes);
  }
  put(kArgOutput, "buffer", c.output.shape, kFmtBuffer, r.output_alloc);
  put(kArgSurface, "surface", c.surface.shape, kFmtHalf, r.surface_bytes);
}

// Replay form (facts F6): the state before the launch, plus enc5's results/ extension.
void put_replay_capture(OutputSet& set, const LaunchCapture& c, const ReplayOutputs& r, const SyntheticCaptureOptions& o) {
  const GridExtent cover = covering_grid(static_cast<std::uint32_t>(o.ex), static_cast<std::uint32_t>(o.ey),
                                         static_cast<std::uint32_t>(o.ox), static_cast<std::uint32_t>(o.oy));
  const auto gx = static_cast<std::uint32_t>(cover.x), gy = static_cast<std::uint32_t>(cover.y);
  std::string m = "# rrswin synthetic replay capture (docs/captures.md)\n";
  m += std::string("kernel ") + c.kernel + "\n";
  m += "launch " + std::to_string(gx) + " " + std::to_string(gy) + " 1 32 1 8 0\n";
  m += "alloc 0 " + hex(kBaseIn) + " " + std::to_string(c.input.bytes.size()) + "\n";
  m += "alloc 1 " + hex(kBaseW) + " " + std::to_string(kWeightImageBytes) + "\n";
  m += "alloc 2 " + hex(kBaseOut) + " " + std::to_string(c.output.bytes.size()) + "\n";
  m += "pointer 8 0 0\npointer 40 1 0\npointer 48 2 " + std::to_string(o.window_before) + "\n";
  m += "texture 88 " + std::to_string(c.texture.width) + " " + std::to_string(c.texture.height) + " 16 " + mode_name(c.texture.mode) +
       " texture-088.bin\n";
  m += "surface 112 " + std::to_string(o.ex) + " " + std::to_string(o.ey) + " 16 " + std::to_string(c.surface.pitch) + " surface-112.bin\n";
  set.write_text("manifest.txt", m);
  std::vector<std::uint8_t> args(kParamBlockBytes, 0);
  store_le32(&args[0], o.ex);
  store_le32(&args[4], o.ey);
  store_le64(&args[8], kBaseIn);
  store_le64(&args[40], kBaseW);
  store_le64(&args[48], kBaseOut + o.window_before);
  args[80] = static_cast<std::uint8_t>(o.ox);
  args[81] = static_cast<std::uint8_t>(o.ox >> 8);
  args[82] = static_cast<std::uint8_t>(o.oy);
  args[83] = static_cast<std::uint8_t>(o.oy >> 8);
  store_le64(&args[88], 1);   // texture object handle: opaque
  store_le64(&args[112], 2);  // surface object handle: opaque
  set.write("args.bin", args);
  set.write("alloc-0.bin", c.input.bytes);
  set.write("alloc-1.bin", c.weights.bytes);
  set.write("alloc-2.bin", c.output.bytes);
  set.write("texture-088.bin", c.texture.bytes);
  set.write("surface-112.bin", c.surface.bytes);
  // results/ is the state after the launch, every argument (the read-only ones unchanged), so that
  // d4r's comparison of results/ with a replay folder sees the same keys on both sides.
  put_dumps(set, "results", c, r, true);
}

}  // namespace

std::vector<std::string> write_synthetic_capture(const std::string& dir, Form form, const SyntheticCaptureOptions& o) {
  OutputSet set(dir);  // all of the capture's files or none (io/output_set.hpp)
  const LaunchCapture c = synthetic_launch(dir, o);
  RunOptions ro;
  ro.profile = o.profile;
  ro.readings = o.readings;
  ro.engine = o.engine;
  ro.threads = o.threads;
  ReplayOutputs r = replay_launch(c, ro);
  // The debug oracle's stores of warp 0 of every block (facts F1), from rrswin's own trace.
  if (o.stage) store_stage_payload(r.output_alloc, o.window_before, compute_stage_payload(c, *o.stage, o.debug_base, ro), dir);
  if (form == Form::launch_dump)
    put_dumps(set, "", c, r, true);
  else
    put_replay_capture(set, c, r, o);
  return set.commit();
}

}  // namespace rrswin::capture
