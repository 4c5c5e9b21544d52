// engine::parallel_for, the one worker pool (api/frame.cpp's blocks, engine/block.cpp's heads and
// MLP rows): every task runs once, worker indices are in range, and an exception thrown by a task
// on any thread surfaces in the caller (the lowest-numbered throwing task's).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/workers.hpp"

using rrswin::engine::parallel_for;
using rrswin::engine::ProgressCounter;

TEST(Workers, EveryTaskRunsOnceOnAWorkerInRange) {
  for (int workers : {1, 2, 3, 8}) {
    std::vector<std::atomic<int>> runs(37);
    std::atomic<int> bad_worker{0};
    parallel_for(37, workers, [&](int t, int w) {
      ++runs[static_cast<std::size_t>(t)];
      if (w < 0 || w >= workers) ++bad_worker;
    });
    for (const auto& r : runs) EXPECT_EQ(r.load(), 1) << workers;
    EXPECT_EQ(bad_worker.load(), 0);
  }
  parallel_for(0, 4, [](int, int) { FAIL() << "no task to run"; });
}

TEST(Workers, AThrowingTaskSurfacesInTheCaller) {
  for (int workers : {1, 2, 4}) {
    std::atomic<int> ran{0};
    try {
      parallel_for(16, workers, [&](int t, int) {
        ++ran;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // let every worker take tasks
        if (t == 5 || t == 9) throw std::runtime_error("task " + std::to_string(t));
      });
      ADD_FAILURE() << "no exception, workers " << workers;
    } catch (const std::runtime_error& e) {
      // Task 5 was handed out before task 9, so it ran and threw: its exception wins.
      EXPECT_EQ(std::string(e.what()), "task 5") << workers;
    }
    EXPECT_GE(ran.load(), 6);  // tasks 0..5 at least
  }
  // A task that throws on a worker thread (not the caller's): tasks 1.. run on whichever worker
  // is free; the caller still gets the exception.
  EXPECT_THROW(parallel_for(2, 2,
                            [](int t, int) {
                              if (t == 1) throw std::logic_error("worker");
                              std::this_thread::sleep_for(std::chrono::milliseconds(5));
                            }),
               std::logic_error);
}

// ProgressCounter under contention (CI stop 28 saw run_frame report 2 blocks done, then 1): many
// threads finish tasks at once while the callback is slow enough to be found busy. Every call must
// see a strictly larger count than the one before, no two calls may overlap, and the last call is
// (total, total).
TEST(Workers, ProgressCountsOnlyIncreaseUnderContention) {
  constexpr int kThreads = 8, kEach = 4000;
  constexpr std::int64_t kTotal = std::int64_t{kThreads} * kEach;
  for (int round = 0; round < 4; ++round) {
    std::atomic<int> inside{0};
    std::atomic<int> overlaps{0}, decreases{0}, beyond{0};
    std::int64_t last = 0, calls = 0, final_done = -1;  // touched only inside the callback
    ProgressCounter progress(kTotal, [&](std::int64_t done, std::int64_t total) {
      if (inside.fetch_add(1) != 0) ++overlaps;
      if (done <= last) ++decreases;
      if (done > total || total != kTotal) ++beyond;
      last = final_done = done;
      ++calls;
      std::this_thread::yield();  // hold the lock a while: others find it busy
      inside.fetch_sub(1);
    });
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&] {
        for (int i = 0; i < kEach; ++i) {
          progress.finished_one();
          if (i % 64 == 0) std::this_thread::yield();  // invite a preemption between count and lock
        }
      });
    for (auto& t : threads) t.join();
    EXPECT_EQ(overlaps.load(), 0) << "round " << round;
    EXPECT_EQ(decreases.load(), 0) << "round " << round;
    EXPECT_EQ(beyond.load(), 0) << "round " << round;
    EXPECT_EQ(final_done, kTotal) << "round " << round;
    EXPECT_GT(calls, 0) << "round " << round;
  }
  // The interleaving itself, made deterministic: task 1 finishes, task 2 finishes and reports,
  // then task 1's thread reaches the callback. It must not report 1 after 2.
  std::vector<std::int64_t> seen;
  ProgressCounter ordered(3, [&](std::int64_t done, std::int64_t) { seen.push_back(done); });
  const std::int64_t first = ordered.count(), second = ordered.count();
  ordered.report(second);
  ordered.report(first);
  ordered.finished_one();
  EXPECT_EQ(seen, (std::vector<std::int64_t>{2, 3}));
  ProgressCounter silent(3, nullptr);  // no callback: counting alone
  for (int i = 0; i < 3; ++i) silent.finished_one();
}
