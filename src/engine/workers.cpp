#include "engine/workers.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace rrswin::engine {

ProgressCounter::ProgressCounter(std::int64_t total, std::function<void(std::int64_t, std::int64_t)> callback)
    : total_(total), callback_(std::move(callback)) {}

void ProgressCounter::report(std::int64_t mine) {
  if (!callback_) return;
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) {
    if (mine != total_) return;
    lock.lock();
  }
  const std::int64_t now = done_.load();  // >= mine, and >= every count reported before this lock
  if (now <= reported_) return;           // a later finisher already reported it
  reported_ = now;
  callback_(now, total_);
}

void parallel_for(int tasks, int workers, const std::function<void(int, int)>& task) {
  if (tasks <= 0) return;
  workers = std::clamp(workers, 1, tasks);
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::exception_ptr error;
  int error_task = tasks;
  auto work = [&](int w) {
    for (int t; !failed.load(std::memory_order_relaxed) && (t = next.fetch_add(1)) < tasks;) {
      try {
        task(t, w);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (t < error_task) {
          error_task = t;
          error = std::current_exception();
        }
        failed.store(true, std::memory_order_relaxed);
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(workers - 1));
  try {
    for (int w = 1; w < workers; ++w) pool.emplace_back(work, w);
  } catch (...) {
    // A thread could not start: the started ones and the caller still finish every task.
  }
  work(0);
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace rrswin::engine
