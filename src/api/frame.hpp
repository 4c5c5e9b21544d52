// The launch as enc5's users know it (facts A4): a parameter block mirroring the kernel's 144-byte
// layout and the call that runs the grid. The texture and surface objects E61 reads and writes are
// model types (model/texture_surface.hpp), included here so that users need only this header.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/launch_abi.hpp"
#include "model/readings.hpp"
#include "model/texture_surface.hpp"
#include "model/trace.hpp"
#include "model/weight_image.hpp"
#include "numerics/profile.hpp"
#include "numerics/types.hpp"

namespace rrswin {

namespace golden {
struct LayerStats;  // model/layer.hpp: counters of the nonlinear branches
}

// The largest token-grid extent run_frame accepts, per axis (the spec gives no bound: facts A3 only
// infers 40 x 23). Every command line and the Python module accept exactly this range, so a
// value is refused in one place with one message.
inline constexpr std::uint32_t kMaxGridExtent = 1u << 20;

// Mirrors the 144-byte parameter block; only the fields rrswin reads (facts A4 / spec U1).
struct LaunchParams {
  std::uint32_t ex = 0, ey = 0;                          // +0: token-grid extents
  std::span<const std::uint8_t> input_arena;             // +8: previous layer's plane arena (e4m3)
  const WeightImage* weights = nullptr;                  // +40
  std::span<std::uint8_t> output_arena;                  // +48: this layer's plane arena
  std::uint16_t block_offset_x = 0, block_offset_y = 0;  // +80, +82: x0 = 8*ctaid.x - ox
  const Texture* texture = nullptr;                      // +88
  Surface* surface = nullptr;                            // +112
  std::uint32_t grid_x = 0, grid_y = 0;                  // launch grid; 0 = cover (ex, ey)
};
// The launch of one frame from the buffers that hold it, block offsets 0 and the covering grid
// (set block_offset_x/y and grid_x/y after it for others): the one place a LaunchParams is filled.
LaunchParams frame_launch(std::uint32_t ex, std::uint32_t ey, std::span<const std::uint8_t> input_arena, const WeightImage& weights,
                          std::span<std::uint8_t> output_arena, const Texture& texture, Surface& surface);

enum class Engine { golden, fast };

struct RunOptions {
  const Profile* profile = nullptr;  // nullptr = ada
  Readings readings;                 // defaults = the documented default readings
  Engine engine = Engine::fast;      // bit-identical to golden (tests/engine_diff_test.cpp)
  // Engine::fast only: its SIMD path, "scalar", "avx2", "avx512" or "avx512vnni" (must be supported by the CPU);
  // empty = the CPU's widest, lowered by the environment variable RRSWIN_SIMD when set.
  std::string_view simd;
  int threads = 0;                      // 0 = all hardware threads
  const TraceRequest* trace = nullptr;  // record one block's stages into *trace_out
  Trace* trace_out = nullptr;
  golden::LayerStats* stats = nullptr;  // when set: the branch counters summed over all blocks
  // Called after blocks complete with (blocks done, blocks to run), from worker threads but never
  // two calls at once, with strictly increasing counts, the last call (total, total)
  // (engine::ProgressCounter); for progress lines (the CLI prints them on a terminal).
  std::function<void(std::int64_t, std::int64_t)> progress;
};

// Grid limits (docs/formats.md "Grid limits"). The grid covering the frame is
// ceil((ex + ox) / 8) x ceil((ey + oy) / 8); block (cx, cy) can touch the frame only when its
// window [8cx - ox, 8cx - ox + 8) x [8cy - oy, 8cy - oy + 8) meets [0, ex) x [0, ey), i.e. for
// cx in [ox / 8, covering_x) (and likewise y). A grid larger than the covering grid is allowed up to
// kGridSlackFactor x covering + kGridSlackBlocks per axis (its extra blocks write nothing); a grid
// beyond that is almost certainly a damaged capture, and grid_problem says why with the numbers.
inline constexpr std::int64_t kGridSlackFactor = 2, kGridSlackBlocks = 8;
using abi::covering_grid;  // model/launch_abi.hpp
using abi::GridExtent;
// Empty when (grid_x, grid_y) is usable for the frame (0 = the covering grid), else the reason.
std::optional<std::string> grid_problem(std::uint32_t ex, std::uint32_t ey, std::uint32_t ox, std::uint32_t oy, std::uint32_t grid_x,
                                        std::uint32_t grid_y);

// Runs the grid (grid_x, grid_y, or when 0 the grid covering (ex, ey) from the block offsets:
// ceil((ex + ox) / 8) x ceil((ey + oy) / 8)). Blocks write disjoint arena words and surface pixels,
// so the bytes do not depend on the thread count. Blocks that cannot touch the frame write nothing
// (E60's and E61's guards drop every store) and are skipped unless options.stats asks for the
// counters of every block; a grid grid_problem refuses throws std::invalid_argument. Throws std::invalid_argument with a clear message on mismatched
// sizes (arena bytes vs extents, surface too small, missing weights).
void run_frame(const LaunchParams& params, const RunOptions& options);

// Records `stages` of EVERY block of the grid with the golden model (the fast engine records no
// stages), each block run only through phase `last_phase` and of phases 1..13 only warp 0 (what
// d4r's debug-oracle stages hold, facts F1; golden::BlockContext::last_phase). Writes no output;
// options.trace is ignored. One Trace per block, in grid order cx + grid_x·cy.
std::vector<Trace> trace_every_block(const LaunchParams& params, const RunOptions& options, const std::vector<std::string>& stages,
                                     int last_phase);

}  // namespace rrswin
