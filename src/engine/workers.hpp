// The one worker pool of enc5's frame and block loops (api/frame.cpp's blocks, engine/block.cpp's
// heads and MLP rows).
#pragma once
#include <functional>

namespace enc5::engine {

// Runs task(t, w) for every t in [0, tasks), in increasing t order of starting, on
// min(workers, tasks) threads: w = 0 is the calling thread, w < workers names the worker (for
// per-worker scratch). Returns when every thread has finished. If tasks throw, no further task
// starts and the exception of the lowest-numbered task that threw is rethrown here (the others
// are dropped), so a failure surfaces in the caller instead of terminating the process.
void parallel_for(int tasks, int workers, const std::function<void(int task, int worker)>& task);

}  // namespace enc5::engine
