// The frame API (api/frame.hpp): run_frame, which runs the grid's blocks on threads. Each block
// writes only its own window's pixels (E60: pixels (x0+g, y0+2z+rh), E61: (x0+(T&7), y0+(T>>3)),
// both inside [x0, x0+8) x [y0, y0+8)), and the windows of distinct blocks are disjoint for any
// offsets, so blocks never write the same arena word or surface texel: the output bytes do not
// depend on the thread count or the block order.
#include "api/frame.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "engine/simd.hpp"
#include "engine/workers.hpp"
#include "layout/arena.hpp"
#include "model/layer.hpp"

namespace rrswin {

namespace {

void validate(const LaunchParams& p) {
  auto fail = [](const std::string& m) { throw std::invalid_argument("run_frame: " + m); };
  if (p.ex == 0 || p.ey == 0)
    fail("the extents (ex, ey) must be positive, got (" + std::to_string(p.ex) + ", " + std::to_string(p.ey) + ")");
  if (p.ex > kMaxGridExtent || p.ey > kMaxGridExtent)
    fail("the extents (" + std::to_string(p.ex) + ", " + std::to_string(p.ey) + ") exceed " + std::to_string(kMaxGridExtent));
  const layout::PlaneArena pa{static_cast<int>(p.ex), static_cast<int>(p.ey)};
  const std::size_t need = pa.total_bytes();  // 5 planes * ey * ex * 32 bytes
  if (p.input_arena.size() != need)
    fail("input arena has " + std::to_string(p.input_arena.size()) + " bytes, expected 5*ey*ex*32 = " + std::to_string(need));
  if (p.output_arena.size() != need)
    fail("output arena has " + std::to_string(p.output_arena.size()) + " bytes, expected 5*ey*ex*32 = " + std::to_string(need));
  if (!p.weights) fail("no weight image");
  if (p.weights->bytes().size() != kWeightImageBytes)
    fail("weight image has " + std::to_string(p.weights->bytes().size()) + " bytes, expected " + std::to_string(kWeightImageBytes));
  if (!p.texture) fail("no texture");
  if (p.texture->width < static_cast<int>(p.ex) || p.texture->height < static_cast<int>(p.ey))
    fail("texture is " + std::to_string(p.texture->width) + "x" + std::to_string(p.texture->height) + ", smaller than the frame " +
         std::to_string(p.ex) + "x" + std::to_string(p.ey));
  if (p.texture->rgba.size() != static_cast<std::size_t>(p.texture->width) * p.texture->height * 4)
    fail("texture data has " + std::to_string(p.texture->rgba.size()) + " f16, expected width*height*4");
  if (!p.surface) fail("no surface");
  if (p.surface->width < static_cast<int>(p.ex) || p.surface->height < static_cast<int>(p.ey))
    fail("surface is " + std::to_string(p.surface->width) + "x" + std::to_string(p.surface->height) + ", smaller than the frame " +
         std::to_string(p.ex) + "x" + std::to_string(p.ey));
  if (p.surface->pitch < static_cast<std::size_t>(8) * p.surface->width || p.surface->bytes.size() < p.surface->pitch * p.surface->height)
    fail("surface pitch or byte count too small for its size");
}

// The launch grid: the one given, or the one covering (ex, ey) from the block offsets; a grid
// beyond the limits (api/frame.hpp grid_problem) throws std::invalid_argument with the numbers.
std::pair<int, int> launch_grid(const LaunchParams& p) {
  if (const auto why = grid_problem(p.ex, p.ey, p.block_offset_x, p.block_offset_y, p.grid_x, p.grid_y))
    throw std::invalid_argument("run_frame: " + *why);
  const GridExtent cover = covering_grid(p.ex, p.ey, p.block_offset_x, p.block_offset_y);
  const int gx = p.grid_x ? static_cast<int>(p.grid_x) : static_cast<int>(cover.x);
  const int gy = p.grid_y ? static_cast<int>(p.grid_y) : static_cast<int>(cover.y);
  return {gx, gy};
}

// Block (cx, cy)'s context: its origin (facts A5: x0 = 8·ctaid.x − ox, y0 = 8·ctaid.y − oy).
golden::BlockContext block_context(const LaunchParams& p, const Profile& profile, const Readings& readings, int cx, int cy) {
  golden::BlockContext ctx;
  ctx.profile = &profile;
  ctx.readings = &readings;
  ctx.weights = p.weights;
  ctx.ex = static_cast<int>(p.ex);
  ctx.ey = static_cast<int>(p.ey);
  ctx.x0 = 8 * cx - p.block_offset_x;
  ctx.y0 = 8 * cy - p.block_offset_y;
  return ctx;
}

int thread_count(const RunOptions& o) {
  return o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

LaunchParams frame_launch(std::uint32_t ex, std::uint32_t ey, std::span<const std::uint8_t> input_arena, const WeightImage& weights,
                          std::span<std::uint8_t> output_arena, const Texture& texture, Surface& surface) {
  LaunchParams p;
  p.ex = ex;
  p.ey = ey;
  p.input_arena = input_arena;
  p.weights = &weights;
  p.output_arena = output_arena;
  p.texture = &texture;
  p.surface = &surface;
  return p;
}

std::optional<std::string> grid_problem(std::uint32_t ex, std::uint32_t ey, std::uint32_t ox, std::uint32_t oy, std::uint32_t grid_x,
                                        std::uint32_t grid_y) {
  const GridExtent c = covering_grid(ex, ey, ox, oy);
  const std::int64_t mx = kGridSlackFactor * c.x + kGridSlackBlocks, my = kGridSlackFactor * c.y + kGridSlackBlocks;
  const std::int64_t gx = grid_x ? grid_x : c.x, gy = grid_y ? grid_y : c.y;
  if (gx <= mx && gy <= my) return std::nullopt;
  return "grid " + std::to_string(gx) + " × " + std::to_string(gy) + " (" + std::to_string(gx * gy) +
         " blocks) for the frame ex×ey = " + std::to_string(ex) + "×" + std::to_string(ey) + " at block offset (" + std::to_string(ox) +
         ", " + std::to_string(oy) + "), which " + std::to_string(c.x) + " × " + std::to_string(c.y) +
         " blocks cover; rrswin accepts at most " + std::to_string(mx) + " × " + std::to_string(my) +
         " (2 × covering + 8 per axis: blocks beyond the frame write nothing, so a larger grid is a damaged capture)";
}

namespace {

// The blocks that can touch the frame (covering_grid): columns [ox/8, cover.x), rows [oy/8,
// cover.y). The others drop every store, so skipping them leaves every byte as is; with `all`
// (options.stats) every block runs, since their counters count the dropped stores too.
struct BlockRect {
  int x0, x1, y0, y1;
  int count;  // blocks in the rectangle
  int width() const { return std::max(0, x1 - x0); }
};
BlockRect blocks_to_run(const LaunchParams& params, int gx, int gy, bool all) {
  const GridExtent cover = covering_grid(params.ex, params.ey, params.block_offset_x, params.block_offset_y);
  BlockRect r{};
  r.x0 = all ? 0 : std::min(gx, params.block_offset_x / 8);
  r.x1 = all ? gx : std::min<int>(gx, static_cast<int>(cover.x));
  r.y0 = all ? 0 : std::min(gy, params.block_offset_y / 8);
  r.y1 = all ? gy : std::min<int>(gy, static_cast<int>(cover.y));
  const std::int64_t n = static_cast<std::int64_t>(r.width()) * std::max(0, r.y1 - r.y0);
  if (n > std::numeric_limits<int>::max())
    throw std::invalid_argument("run_frame: " + std::to_string(n) + " blocks to run, more than 2^31-1");
  r.count = static_cast<int>(n);
  return r;
}

// Engine::fast: the prepared weights (cached per image) and the SIMD path; nothing for golden.
struct FastEngine {
  std::shared_ptr<const engine::PreparedWeights> prepared;
  engine::SimdPath simd = engine::SimdPath::scalar;
};
FastEngine fast_engine(const LaunchParams& params, const RunOptions& options) {
  FastEngine f;
  if (options.engine != Engine::fast) return f;
  if (options.simd.empty()) {
    f.simd = engine::default_simd_path();  // throws on a misspelt RRSWIN_SIMD
  } else {
    const auto asked = engine::parse_simd_path(options.simd);
    if (!asked) throw std::invalid_argument("run_frame: unknown SIMD path '" + std::string(options.simd) + "' (scalar, avx2, avx512)");
    if (!engine::simd_supported(*asked))
      throw std::invalid_argument("run_frame: this CPU does not support the SIMD path '" + std::string(options.simd) + "'");
    f.simd = *asked;
  }
  f.prepared = engine::prepare_weights(*params.weights);
  return f;
}

}  // namespace

void run_frame(const LaunchParams& params, const RunOptions& options) {
  validate(params);
  // The mma-* readings replace the profile's corners (model/readings.hpp); both engines run this copy.
  const Profile profile = with_readings(options.profile ? *options.profile : profile_ada(), options.readings);
  // Named variables, not a structured binding: clang 14 (the fuzz build) cannot capture those.
  const std::pair<int, int> grid = launch_grid(params);
  const int gx = grid.first, gy = grid.second;
  const std::int64_t blocks = static_cast<std::int64_t>(gx) * gy;
  const BlockRect rect = blocks_to_run(params, gx, gy, options.stats != nullptr);
  const int bx0 = rect.x0, bx1 = rect.x1, by0 = rect.y0, by1 = rect.y1, run_w = rect.width(), run_blocks = rect.count;

  if (options.trace && options.trace_out) {
    options.trace_out->block_x = options.trace->block_x;
    options.trace_out->block_y = options.trace->block_y;
    options.trace_out->stages.clear();
  }
  std::vector<golden::LayerStats> stats(options.stats ? static_cast<std::size_t>(blocks) : 0);

  // A traced block always runs the golden model (the fast engine records no stages); its outputs
  // are the same bytes.
  const FastEngine fast = fast_engine(params, options);
  const std::shared_ptr<const engine::PreparedWeights>& prepared = fast.prepared;
  const engine::SimdPath simd = fast.simd;

  golden::BlockIo io;
  io.input_arena = params.input_arena;
  io.output_arena = params.output_arena;
  io.texture = params.texture;
  io.surface = params.surface;

  int inner_threads = 1;  // threads per block (the fast engine's heads) when blocks < threads
  auto run_block_at = [&](int cx, int cy) {
    const std::size_t b = static_cast<std::size_t>(cy) * gx + cx;
    golden::BlockContext ctx = block_context(params, profile, options.readings, cx, cy);
    ctx.stats = options.stats ? &stats[b] : nullptr;
    if (options.trace && options.trace_out && options.trace->block_x == cx && options.trace->block_y == cy) {
      ctx.trace_request = options.trace;
      ctx.trace = options.trace_out;
    }
    if (prepared && !ctx.trace)
      engine::run_block(*prepared, simd, ctx, io, inner_threads);
    else
      golden::run_block(ctx, io);
  };

  // Index i of the blocks that run, row-major over the touching rectangle.
  auto run_one = [&](int i) { run_block_at(bx0 + i % run_w, by0 + i / run_w); };
  // A traced block outside the rectangle still runs (golden, for its trace; it writes nothing).
  if (options.trace && options.trace_out) {
    const int tx = options.trace->block_x, ty = options.trace->block_y;
    if (tx >= 0 && ty >= 0 && tx < gx && ty < gy && !(tx >= bx0 && tx < bx1 && ty >= by0 && ty < by1)) run_block_at(tx, ty);
  }
  engine::ProgressCounter progress(run_blocks, options.progress);

  int threads = thread_count(options);
  if (run_blocks > 0 && run_blocks < threads) inner_threads = threads / run_blocks;
  threads = std::min(threads, run_blocks);
  // The last blocks_left = run_blocks % threads blocks would run one per thread while the other
  // threads wait: they run after the others, each on threads / blocks_left threads (its heads and
  // MLP rows, as for a frame with fewer blocks than threads). The bytes are the same either way.
  const int tail = prepared && threads > 1 && run_blocks > threads ? run_blocks % threads : 0;
  engine::parallel_for(run_blocks - tail, threads, [&](int b, int) {  // rethrows a block's exception here
    run_one(b);
    progress.finished_one();
  });
  if (tail > 0) {
    inner_threads = threads / tail;
    engine::parallel_for(tail, tail, [&](int b, int) {
      run_one(run_blocks - tail + b);
      progress.finished_one();
    });
  }
  if (options.stats)
    for (const auto& s : stats) options.stats->add(s);  // block order: deterministic
}

std::vector<Trace> trace_every_block(const LaunchParams& params, const RunOptions& options, const std::vector<std::string>& stages,
                                     int last_phase) {
  validate(params);
  const Profile& profile = options.profile ? *options.profile : profile_ada();
  // Named variables, not a structured binding: clang 14 (the fuzz build) cannot capture those.
  const std::pair<int, int> grid = launch_grid(params);
  const int gx = grid.first, gy = grid.second;
  std::vector<Trace> traces(static_cast<std::size_t>(gx) * gy);
  std::vector<TraceRequest> requests(traces.size());
  golden::BlockIo io;
  io.input_arena = params.input_arena;
  io.output_arena = params.output_arena;
  io.texture = params.texture;
  io.surface = params.surface;
  engine::parallel_for(gx * gy, std::min(thread_count(options), gx * gy), [&](int b, int) {
    const int cx = b % gx, cy = b / gx;
    golden::BlockContext ctx = block_context(params, profile, options.readings, cx, cy);
    requests[b].stages = stages;
    requests[b].block_x = cx;
    requests[b].block_y = cy;
    traces[b].block_x = cx;
    traces[b].block_y = cy;
    ctx.trace_request = &requests[b];
    ctx.trace = &traces[b];
    ctx.last_phase = last_phase;
    golden::run_block(ctx, io);
  });
  return traces;
}

}  // namespace rrswin
