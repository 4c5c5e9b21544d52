// engine::parallel_for, the one worker pool (api/frame.cpp's blocks, engine/block.cpp's heads and
// MLP rows): every task runs once, worker indices are in range, and an exception thrown by a task
// on any thread surfaces in the caller (the lowest-numbered throwing task's).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/workers.hpp"

using enc5::engine::parallel_for;

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
