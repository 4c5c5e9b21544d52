// The one worker pool of enc5's frame and block loops (api/frame.cpp's blocks, engine/block.cpp's
// heads and MLP rows).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>

namespace rrswin::engine {

// Runs task(t, w) for every t in [0, tasks), in increasing t order of starting, on
// min(workers, tasks) threads: w = 0 is the calling thread, w < workers names the worker (for
// per-worker scratch). Returns when every thread has finished. If tasks throw, no further task
// starts and the exception of the lowest-numbered task that threw is rethrown here (the others
// are dropped), so a failure surfaces in the caller instead of terminating the process.
void parallel_for(int tasks, int workers, const std::function<void(int task, int worker)>& task);

// Counts finished tasks for a progress callback called from worker threads (RunOptions::progress):
// never two calls at once, the counts strictly increasing, and the last call is (total, total). A
// thread that finds the callback busy skips it (a progress line may lag, never block a worker),
// except the one that finishes the last task, which waits. The count reported is read under the
// lock, not the one the thread's own finish produced: a thread preempted between its increment
// and the lock would otherwise report a count below one already shown (CI stop 28: 2, then 1).
class ProgressCounter {
 public:
  ProgressCounter(std::int64_t total, std::function<void(std::int64_t done, std::int64_t total)> callback);
  void finished_one() { report(count()); }
  // finished_one's two halves, apart so that a test can interleave them as a preemption would:
  // count() adds the finished task and returns the count it made; report(mine) calls back.
  std::int64_t count() { return done_.fetch_add(1) + 1; }
  void report(std::int64_t mine);

 private:
  std::int64_t total_;
  std::function<void(std::int64_t, std::int64_t)> callback_;
  std::atomic<std::int64_t> done_{0};
  std::mutex mutex_;
  std::int64_t reported_ = 0;  // guarded by mutex_
};

}  // namespace rrswin::engine
