// Whole-layer tests of the golden model: determinism across runs and thread counts, the frame
// API's validation, what is written where (odd extents, negative block offsets, tiny frames),
// and the branch counters on the stress assets.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "layout/arena.hpp"
#include "model/layer.hpp"
#include "model/weight_image.hpp"

namespace rrswin {
namespace {

bool small_scale() {
  const char* s = std::getenv("RRSWIN_TEST_SCALE");
  return s && std::string(s) == "small";
}

struct FrameRun {
  std::vector<std::uint8_t> arena;
  Surface surface;
  golden::LayerStats stats;
};

constexpr std::uint8_t kArenaFill = 0xA5;  // marks words the layer did not write
constexpr std::uint8_t kSurfaceFill = 0x5A;

FrameRun run(const SyntheticFrame& f, const WeightImage& w, const Readings& rd = {}, int threads = 2, std::uint16_t ox = 0,
             std::uint16_t oy = 0, const Profile* profile = nullptr) {
  FrameRun r;
  r.arena.assign(f.input_arena.size(), kArenaFill);
  r.surface = Surface::make(f.ex, f.ey);
  std::fill(r.surface.bytes.begin(), r.surface.bytes.end(), kSurfaceFill);
  LaunchParams p =
      frame_launch(static_cast<std::uint32_t>(f.ex), static_cast<std::uint32_t>(f.ey), f.input_arena, w, r.arena, f.texture, r.surface);
  p.block_offset_x = ox;
  p.block_offset_y = oy;
  RunOptions o;
  o.engine = Engine::golden;  // these tests are about the golden model itself
  o.profile = profile;
  o.readings = rd;
  o.threads = threads;
  o.stats = &r.stats;
  run_frame(p, o);
  return r;
}

TEST(GoldenFrame, DeterministicAcrossRunsAndThreadCounts) {
  // 6 blocks (3 x 2, the last column and row partial): enough to interleave 3 threads.
  const int ex = small_scale() ? 20 : 21, ey = small_scale() ? 9 : 13;
  const SyntheticFrame f = make_synthetic_frame(ex, ey, 7, small_scale());
  const FrameRun a = run(f, default_weights(), {}, 1);
  for (int threads : {1, 2, 3}) {
    const FrameRun b = run(f, default_weights(), {}, threads);
    EXPECT_EQ(a.arena, b.arena) << "threads " << threads;
    EXPECT_EQ(a.surface.bytes, b.surface.bytes) << "threads " << threads;
  }
}

TEST(GoldenFrame, WholeFrameWritesEveryPixelOnce) {
  if (small_scale()) GTEST_SKIP() << "full 40x23 frame only in the release suite";
  const SyntheticFrame f = make_synthetic_frame(40, 23, 1, false);
  // Timing belongs to `rrswin bench`, not to tests (docs/performance.md).
  const FrameRun r = run(f, default_weights(), {}, 0);
  // Every arena word and every surface texel of the frame is written (fragment order: each
  // in-frame pixel receives 8 words per plane from the two rows of its vertical pair).
  std::size_t unwritten = 0;
  for (std::size_t i = 0; i < r.arena.size(); i += 4)
    if (std::memcmp(&r.arena[i], "\xA5\xA5\xA5\xA5", 4) == 0) ++unwritten;
  EXPECT_EQ(unwritten, 0u);
  EXPECT_EQ(r.stats.pixels_written, 40u * 23u);
  // An odd ey: the last pixel row's partner row (y = 23) is out of frame: 40 pixels x 5 planes x
  // 8 words... of stores dropped per missing row, none written outside the frame.
  EXPECT_GT(r.stats.arena_stores_dropped, 0u);
  // The output is not trivially constant.
  std::set<std::uint64_t> texels;
  for (std::size_t i = 0; i + 8 <= r.surface.bytes.size(); i += 8) {
    std::uint64_t v;
    std::memcpy(&v, &r.surface.bytes[i], 8);
    texels.insert(v);
  }
  EXPECT_GT(texels.size(), 100u);
}

TEST(GoldenFrame, NothingWrittenOutsideTheFrame) {
  // Odd extents, negative block offsets, frames smaller than a block.
  struct Case {
    int ex, ey;
    std::uint16_t ox, oy;
  };
  const Case cases[] = {{5, 3, 0, 0}, {9, 11, 3, 5}, {1, 1, 7, 7}, {13, 6, 0, 2}};
  for (const Case& c : cases) {
    const SyntheticFrame f = make_synthetic_frame(c.ex, c.ey, 11, false);
    FrameRun r;
    r.arena.assign(f.input_arena.size() + 64, kArenaFill);  // guard bytes after the arena
    r.surface = Surface::make(c.ex + 2, c.ey + 2);          // a larger surface: margins must stay
    std::fill(r.surface.bytes.begin(), r.surface.bytes.end(), kSurfaceFill);
    LaunchParams p = frame_launch(c.ex, c.ey, f.input_arena, default_weights(),
                                  std::span<std::uint8_t>(r.arena.data(), f.input_arena.size()), f.texture, r.surface);
    p.block_offset_x = c.ox;
    p.block_offset_y = c.oy;
    RunOptions o;
    o.engine = Engine::golden;  // these tests are about the golden model itself
    o.threads = 2;
    o.stats = &r.stats;
    run_frame(p, o);
    for (std::size_t i = f.input_arena.size(); i < r.arena.size(); ++i) EXPECT_EQ(r.arena[i], kArenaFill);
    for (int y = 0; y < r.surface.height; ++y)
      for (int x = 0; x < r.surface.width; ++x) {
        const bool inside = x < c.ex && y < c.ey;
        const std::uint8_t* px = &r.surface.bytes[y * r.surface.pitch + 8 * x];
        bool untouched = true;
        for (int b = 0; b < 8; ++b) untouched &= px[b] == kSurfaceFill;
        EXPECT_EQ(untouched, !inside) << c.ex << "x" << c.ey << " offset " << c.ox << "," << c.oy << " texel " << x << "," << y;
      }
    EXPECT_EQ(r.stats.pixels_written, static_cast<std::uint64_t>(c.ex) * c.ey);
    // Every arena word of the frame is written exactly by the pixel pairs: count the stores.
    EXPECT_EQ(r.stats.arena_stores, static_cast<std::uint64_t>(c.ex) * c.ey * 5 * 8);
  }
}

TEST(GoldenFrame, ValidatesSizes) {
  const SyntheticFrame f = make_synthetic_frame(8, 8, 1, false);
  std::vector<std::uint8_t> arena(f.input_arena.size());
  Surface s = Surface::make(8, 8);
  LaunchParams p = frame_launch(8, 8, f.input_arena, default_weights(), arena, f.texture, s);
  RunOptions o;
  o.engine = Engine::golden;  // these tests are about the golden model itself
  EXPECT_NO_THROW(run_frame(p, o));
  LaunchParams bad = p;
  bad.input_arena = std::span<const std::uint8_t>(f.input_arena.data(), f.input_arena.size() - 4);
  EXPECT_THROW(run_frame(bad, o), std::invalid_argument);
  bad = p;
  bad.output_arena = std::span<std::uint8_t>(arena.data(), arena.size() - 1);
  EXPECT_THROW(run_frame(bad, o), std::invalid_argument);
  bad = p;
  bad.weights = nullptr;
  EXPECT_THROW(run_frame(bad, o), std::invalid_argument);
  Surface small = Surface::make(7, 8);
  bad = p;
  bad.surface = &small;
  EXPECT_THROW(run_frame(bad, o), std::invalid_argument);
  Texture tex = f.texture;
  tex.height = 7;
  tex.rgba.resize(8 * 7 * 4);
  bad = p;
  bad.texture = &tex;
  EXPECT_THROW(run_frame(bad, o), std::invalid_argument);
  try {
    run_frame(bad, o);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("texture"), std::string::npos);
  }
}

TEST(GoldenFrame, StressAssetsFireEveryNonlinearBranch) {
  const int ex = small_scale() ? 16 : 40, ey = small_scale() ? 16 : 23;
  const SyntheticFrame f = make_synthetic_frame(ex, ey, 3, true);
  const WeightImage w = make_synthetic_weights({.seed = 5, .stress = true});
  const FrameRun r = run(f, w, {}, 0);
  const auto& s = r.stats;
  std::printf("stress counters: e11 clamp %llu/%llu, p->0 %llu, act clamp %llu/%llu, e4m3 sat %llu, f16 subnormal %llu\n",
              (unsigned long long)s.e11_clamp_low, (unsigned long long)s.e11_clamp_high, (unsigned long long)s.p_quantised_zero,
              (unsigned long long)s.act_clamp_low, (unsigned long long)s.act_clamp_high, (unsigned long long)s.e4m3_saturated,
              (unsigned long long)s.f16_subnormal);
  EXPECT_GT(s.e11_clamp_low + s.e11_clamp_high, 0u);
  EXPECT_GT(s.p_quantised_zero, 0u);
  EXPECT_GT(s.act_clamp_low, 0u);
  EXPECT_GT(s.act_clamp_high, 0u);
  EXPECT_GT(s.e4m3_saturated, 0u);
  EXPECT_GT(s.f16_subnormal, 0u);
  // And the default assets run clean enough to be a meaningful baseline.
  const FrameRun d = run(make_synthetic_frame(ex, ey, 3, false), default_weights(), {}, 0);
  EXPECT_EQ(d.stats.pixels_written, static_cast<std::uint64_t>(ex) * ey);
}

TEST(GoldenFrame, ProfilesDiffer) {
  const SyntheticFrame f = make_synthetic_frame(small_scale() ? 8 : 16, 8, 21, false);
  const FrameRun a = run(f, default_weights(), {}, 2, 0, 0, &profile_ada());
  const FrameRun z = run(f, default_weights(), {}, 2, 0, 0, &profile_zluda());
  EXPECT_NE(a.arena, z.arena);
}

}  // namespace
}  // namespace rrswin
