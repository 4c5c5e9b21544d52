// enc5's launch on the PTX interpreter (bridge/enc5_launch.hpp).
#include "bridge/enc5_launch.hpp"

#include <cstring>

#include "ptx/ir.hpp"

namespace rrswin::ptx {

std::vector<std::uint8_t> enc5_param_block(const Enc5Args& a) {
  std::vector<std::uint8_t> b(abi::kParamBlockBytes, 0);
  auto put = [&](std::size_t off, auto v) { std::memcpy(b.data() + off, &v, sizeof v); };
  put(abi::kParamEx, a.ex);
  put(abi::kParamEy, a.ey);
  put(abi::kParamInput, a.input);
  put(abi::kParamWeights, a.weights);
  put(abi::kParamOutput, a.output);
  put(abi::kParamOx, a.ox);
  put(abi::kParamOy, a.oy);
  put(abi::kParamTexture, a.texture);
  put(abi::kParamSurface, a.surface);
  return b;
}

Dim3 enc5_grid(std::uint32_t ex, std::uint32_t ey, std::uint32_t ox, std::uint32_t oy) {
  const abi::GridExtent g = abi::covering_grid(ex, ey, ox, oy);
  return {static_cast<std::uint32_t>(g.x), static_cast<std::uint32_t>(g.y), 1};
}

namespace {
void check_entry(const Module& m, std::string_view entry) {
  const EntryStats s = entry_stats(m, entry);
  if (s.param_bytes != capture::kParamBlockBytes)
    throw PtxError(m.filename + ": entry " + s.name + " takes " + std::to_string(s.param_bytes) +
                   " parameter bytes; enc5's launch passes " + std::to_string(capture::kParamBlockBytes) + " (facts A4)");
}
}  // namespace

RunStats run_enc5_frame(const Module& m, std::string_view entry, const LaunchParams& p, const RunOptions& o) {
  check_entry(m, entry);
  if (!p.weights || !p.texture || !p.surface) throw PtxError("run_enc5_frame: weights, texture and surface are required");
  Device dev;
  Enc5Args a;
  a.ex = p.ex;
  a.ey = p.ey;
  a.input = dev.add_global_readonly("input arena (param+8)", p.input_arena);
  a.weights = dev.add_global_readonly("weight image (param+40)", p.weights->bytes());
  a.output = dev.add_global("output arena (param+48)", p.output_arena);
  a.ox = p.block_offset_x;
  a.oy = p.block_offset_y;
  a.texture = dev.bind_texture(p.texture);
  a.surface = dev.bind_surface(p.surface);
  Dim3 grid = enc5_grid(p.ex, p.ey, p.block_offset_x, p.block_offset_y);
  if (p.grid_x) grid.x = p.grid_x;
  if (p.grid_y) grid.y = p.grid_y;
  return run(m, entry, grid, kEnc5Block, enc5_param_block(a), dev, o);
}

capture::ReplayOutputs run_enc5_capture(const Module& m, std::string_view entry, const capture::LaunchCapture& c, const RunOptions& o,
                                        RunStats* stats) {
  check_entry(m, entry);
  const Texture tex = capture::texture_of(c.texture);
  capture::ReplayOutputs r;
  r.output_alloc = capture::output_before_launch(c);
  Surface s = capture::surface_before_launch(c);
  Device dev;
  Enc5Args a;
  a.ex = c.ex;
  a.ey = c.ey;
  // The arguments point into their allocations (facts F4): the whole allocation is mapped.
  a.input = dev.add_global_readonly("input allocation (param+8, " + c.input.file + ")", c.input.bytes) + c.input.offset;
  a.weights = dev.add_global_readonly("weight allocation (param+40, " + c.weights.file + ")", c.weights.bytes) + c.weights.offset;
  a.output = dev.add_global("output allocation (param+48)", r.output_alloc) + c.output.offset;
  a.ox = c.ox;
  a.oy = c.oy;
  a.texture = dev.bind_texture(&tex);
  a.surface = dev.bind_surface(&s);
  Dim3 grid = enc5_grid(c.ex, c.ey, c.ox, c.oy);
  if (c.grid_x) grid.x = c.grid_x;
  if (c.grid_y) grid.y = c.grid_y;
  const RunStats st = run(m, entry, grid, kEnc5Block, enc5_param_block(a), dev, o);
  if (stats) *stats = st;
  r.surface_bytes = std::move(s.bytes);
  return r;
}

}  // namespace rrswin::ptx
