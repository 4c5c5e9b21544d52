// A progress line on stderr for long runs: only when stderr is a terminal, only once the run has
// taken more than a second, with the blocks done and an estimate of the time left. Erased when the
// run ends, so a terminal shows the results as before and a pipe or log file never sees it.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include <unistd.h>

namespace rrswin::cli {

class ProgressLine {
 public:
  explicit ProgressLine(std::string what) : what_(std::move(what)), enabled_(::isatty(2) != 0) {}
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() { finish(); }

  // (blocks done, blocks in total); cheap when nothing is printed.
  void update(std::int64_t done, std::int64_t total) {
    if (!enabled_ || total <= 0) return;
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < 1.0 || (!relabelled_ && std::chrono::duration<double>(now - last_).count() < 0.25)) return;
    relabelled_ = false;
    last_ = now;
    const double left = done > 0 ? elapsed * static_cast<double>(total - done) / static_cast<double>(done) : 0;
    std::fprintf(stderr, "\r\033[K%s: %lld of %lld blocks (%.0f%%), %.0f s so far, about %.0f s left", what_.c_str(),
                 static_cast<long long>(done), static_cast<long long>(total),
                 100.0 * static_cast<double>(done) / static_cast<double>(total), elapsed, left);
    std::fflush(stderr);
    shown_ = true;
  }
  // The same with a new label (`rrswin run`'s network: the layer running); a changed label is drawn
  // at once (past the first second), not after the quarter second between lines.
  void update(std::int64_t done, std::int64_t total, const std::string& what) {
    if (!enabled_) return;
    if (what != what_) {
      what_ = what;
      relabelled_ = true;
    }
    update(done, total);
  }
  bool enabled() const { return enabled_; }
  void finish() {
    if (shown_) std::fputs("\r\033[K", stderr);
    shown_ = false;
  }
  // For RunOptions::progress.
  auto callback() {
    return [this](std::int64_t d, std::int64_t t) { update(d, t); };
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::string what_;
  bool enabled_;
  bool shown_ = false;
  bool relabelled_ = false;
  Clock::time_point start_ = Clock::now(), last_{};
};

}  // namespace rrswin::cli
