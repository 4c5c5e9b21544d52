// The threaded parts of rrswin, driven hard enough for ThreadSanitizer (preset tsan, CI: .ci/run):
// run_frame's worker pool and its progress callback, the fast engine's inner head threads, the
// prepared-weights cache shared by concurrent frames with different weight images, and the
// embedded default image's one-time construction. Each test also checks the bytes, so it runs
// (and can fail) in the ordinary suite too.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "engine/engine.hpp"
#include "model/weight_image.hpp"

namespace {

struct Frame {
  std::vector<std::uint8_t> arena;
  rrswin::Surface surface;
};

Frame run(const rrswin::SyntheticFrame& f, const rrswin::WeightImage& w, int threads, rrswin::Engine e = rrswin::Engine::fast,
          std::atomic<std::int64_t>* progress_calls = nullptr) {
  Frame r;
  r.arena.assign(f.input_arena.size(), 0);
  r.surface = rrswin::Surface::make(f.ex, f.ey);
  rrswin::LaunchParams p = rrswin::frame_launch(static_cast<std::uint32_t>(f.ex), static_cast<std::uint32_t>(f.ey), f.input_arena, w,
                                                r.arena, f.texture, r.surface);
  rrswin::RunOptions o;
  o.engine = e;
  o.threads = threads;
  std::int64_t last = -1;  // touched only inside the callback: run_frame never calls it twice at once
  if (progress_calls)
    o.progress = [&](std::int64_t done, std::int64_t total) {
      EXPECT_GT(done, last);
      EXPECT_LE(done, total);
      last = done;
      ++*progress_calls;
    };
  rrswin::run_frame(p, o);
  return r;
}

}  // namespace

// Worker pool + progress callback: more threads than cores, bytes equal to one thread's.
TEST(Threads, PoolAndProgressGiveTheSingleThreadBytes) {
  const rrswin::SyntheticFrame f = rrswin::make_synthetic_frame(24, 17, 11, false);
  const Frame one = run(f, rrswin::default_weights(), 1);
  std::atomic<std::int64_t> calls{0};
  const Frame many = run(f, rrswin::default_weights(), 5, rrswin::Engine::fast, &calls);
  EXPECT_EQ(one.arena, many.arena);
  EXPECT_EQ(one.surface.bytes, many.surface.bytes);
  EXPECT_GT(calls.load(), 0);
}

// Fewer blocks than threads: the fast engine splits each block's heads over inner threads.
TEST(Threads, InnerHeadThreadsGiveTheSingleThreadBytes) {
  const rrswin::SyntheticFrame f = rrswin::make_synthetic_frame(8, 8, 12, false);
  const Frame one = run(f, rrswin::default_weights(), 1);
  const Frame inner = run(f, rrswin::default_weights(), 4);
  EXPECT_EQ(one.arena, inner.arena);
  EXPECT_EQ(one.surface.bytes, inner.surface.bytes);
}

// More blocks than threads, not a multiple of them: the last blocks run after the others, each
// on threads / (blocks % threads) inner threads (api/frame.cpp). Every thread count gives the
// single-thread bytes, and the progress callback still sees every block.
TEST(Threads, TailBlocksOnInnerThreadsGiveTheSingleThreadBytes) {
  const rrswin::SyntheticFrame f = rrswin::make_synthetic_frame(24, 17, 13, false);
  const Frame one = run(f, rrswin::default_weights(), 1);
  for (int threads : {2, 3, 4}) {
    std::atomic<std::int64_t> calls{0};
    const Frame many = run(f, rrswin::default_weights(), threads, rrswin::Engine::fast, &calls);
    EXPECT_EQ(one.arena, many.arena) << threads << " threads";
    EXPECT_EQ(one.surface.bytes, many.surface.bytes) << threads << " threads";
    EXPECT_GT(calls.load(), 0);
  }
}

// Concurrent frames with different weight images share the prepared-weights cache (engine.hpp:
// the last kPreparedCacheEntries images): each must get its own image's results, equal to a one-thread run made
// before any concurrency (fast = golden is engine_diff_test's; golden here would cost seconds).
TEST(Threads, PreparedWeightsCacheUnderConcurrentFrames) {
  const rrswin::SyntheticFrame f = rrswin::make_synthetic_frame(9, 8, 13, false);
  std::vector<rrswin::WeightImage> images;
  for (std::uint64_t s = 2; s < 4 + rrswin::engine::kPreparedCacheEntries; ++s)
    images.push_back(rrswin::make_synthetic_weights({.seed = s}));  // more than the cache holds
  std::vector<Frame> golden;
  for (const auto& w : images) golden.push_back(run(f, w, 1));
  std::vector<std::thread> threads;
  std::vector<int> ok(images.size() * 2, 0);
  for (std::size_t i = 0; i < ok.size(); ++i)
    threads.emplace_back([&, i] {
      const std::size_t k = (i * 5) % images.size();
      (void)rrswin::engine::prepare_weights(images[(k + 1) % images.size()]);  // churn the cache
      const Frame r = run(f, images[k], 2);
      ok[i] = r.arena == golden[k].arena && r.surface.bytes == golden[k].surface.bytes;
    });
  for (auto& t : threads) t.join();
  for (std::size_t i = 0; i < ok.size(); ++i) EXPECT_TRUE(ok[i]) << "frame " << i;
}

// The embedded default image is built once, whoever asks first.
TEST(Threads, DefaultWeightsBuiltOnce) {
  std::vector<const rrswin::WeightImage*> seen(6, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i) threads.emplace_back([&, i] { seen[i] = &rrswin::default_weights(); });
  for (auto& t : threads) t.join();
  for (const auto* p : seen) EXPECT_EQ(p, seen[0]);
}
