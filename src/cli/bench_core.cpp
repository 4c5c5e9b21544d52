#include "cli/bench_core.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <thread>

#include "assets/synthetic_weights.hpp"
#include "cli/fma_peak.hpp"
#include "engine/simd.hpp"
#include "model/layer_program.hpp"
#include "model/weight_image.hpp"

#ifdef RRSWIN_HAVE_BLAS
#include <cblas.h>  // the prototype only: the library is loaded at run time (blas() below)
#include <dlfcn.h>

#include <cstdlib>
#endif

namespace rrswin::bench {

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
// CPU time of all the process's threads: grows only while they run, not while other processes
// hold the cores (the bench machine is shared).
double process_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
}  // namespace

const std::vector<Geometry>& geometries() {
  static const std::vector<Geometry> g = {{"small", 8, 8}, {"real", 40, 23}, {"1080p", 60, 34}, {"4k", 120, 68}};
  return g;
}

int blocks(const Geometry& g) {
  const GridExtent cover = covering_grid(static_cast<std::uint32_t>(g.ex), static_cast<std::uint32_t>(g.ey), 0, 0);
  return static_cast<int>(cover.x * cover.y);
}

double macs_per_block() { return macs_per_block(layer_program(LayerId::enc5)); }

Frame::Frame(const Geometry& g) : input(make_synthetic_frame(g.ex, g.ey, 1, false)) {
  arena.assign(input.input_arena.size(), 0);
  surface = Surface::make(g.ex, g.ey);
  params.ex = static_cast<std::uint32_t>(g.ex);
  params.ey = static_cast<std::uint32_t>(g.ey);
  params.input_arena = input.input_arena;
  params.weights = &default_weights();
  params.output_arena = arena;
  params.texture = &input.texture;
  params.surface = &surface;
}

FrameTime time_frame_cpu(Frame& f, Engine e, const Profile& p, std::string_view simd, int threads, int reps) {
  RunOptions o;
  o.profile = &p;
  o.engine = e;
  o.simd = simd;
  o.threads = threads;
  run_frame(f.params, o);
  FrameTime best{1e30, 1e30};
  for (int i = 0; i < reps; ++i) {
    const double t0 = now(), c0 = process_seconds();
    run_frame(f.params, o);
    best.wall = std::min(best.wall, now() - t0);  // other load only ever adds time
    best.cpu = std::min(best.cpu, process_seconds() - c0);
  }
  return best;
}

double time_frame(Frame& f, Engine e, const Profile& p, std::string_view simd, int threads, int reps) {
  return time_frame_cpu(f, e, p, simd, threads, reps).wall;
}

engine::PhaseTimes phase_breakdown(const Profile& p, std::string_view simd, int reps) {
  Frame f(geometries()[0]);
  RunOptions o;
  o.profile = &p;
  o.engine = Engine::fast;
  o.simd = simd;
  o.threads = 1;
  run_frame(f.params, o);
  // Per group the minimum over the reps of the thread's CPU time (run_block's laps): robust to
  // other processes on a shared machine, which only ever add time.
  engine::PhaseTimes best;
  for (double& s : best.seconds) s = 1e30;
  for (int i = 0; i < reps; ++i) {
    engine::PhaseTimes t;
    engine::set_phase_timing(&t);
    run_frame(f.params, o);
    engine::set_phase_timing(nullptr);
    for (int g = 0; g < engine::kPhaseGroups; ++g) best.seconds[g] = std::min(best.seconds[g], t.seconds[g]);
  }
  return best;
}

FmaPeaks fma_peaks(int threads, double seconds) {
  const engine::SimdPath path = engine::best_simd_path();
  const bool avx512 = path == engine::SimdPath::avx512 || path == engine::SimdPath::avx512vnni;
  if (!avx512 && path != engine::SimdPath::avx2) return {};
  enum class Unit { f64, f32, i16 };
  // Multiply-adds per chain step: the lanes of one FMA, or the int16 products of one dot-product
  // instruction (fma_peak.hpp).
  const int lanes64 = avx512 ? 8 : 4;
  auto per_step = [&](Unit u) { return u == Unit::f64 ? lanes64 : u == Unit::f32 ? 2 * lanes64 : avx512 ? kI16MacsAvx512 : kI16MacsAvx2; };
  auto loop = [&](Unit u, std::int64_t iters) {
    switch (u) {
      case Unit::f64: return avx512 ? f64_fma_loop_avx512(iters) : f64_fma_loop_avx2(iters);
      case Unit::f32: return avx512 ? f32_fma_loop_avx512(iters) : f32_fma_loop_avx2(iters);
      case Unit::i16: break;
    }
    return path == engine::SimdPath::avx512vnni ? i16_dot_loop_avx512vnni(iters)
           : avx512                             ? i16_dot_loop_avx512(iters)
                                                : i16_dot_loop_avx2(iters);
  };
  auto measure = [&](Unit u) {
    // Calibrate a round to about seconds/4 on one thread; that also warms the core up (the first
    // wide-vector work of a process runs at a lower clock until the licence changes).
    std::int64_t iters = 1 << 14;
    for (;;) {
      const double t0 = now();
      volatile double sink = loop(u, iters);
      (void)sink;
      if (now() - t0 > seconds / 8) break;
      iters *= 2;
    }
    // Then rounds on all threads at once, the best of them (other load only ever adds time).
    double best = 1e30;
    for (int round = 0; round < 4; ++round) {
      std::vector<std::thread> pool;
      const double t0 = now();
      for (int i = 0; i < threads; ++i)
        pool.emplace_back([&] {
          volatile double sink = loop(u, iters);
          (void)sink;
        });
      for (auto& th : pool) th.join();
      best = std::min(best, now() - t0);
    }
    return static_cast<double>(iters) * kFmaChains * per_step(u) * threads / best;
  };
  FmaPeaks p;
  p.f64 = measure(Unit::f64);
  p.f32 = measure(Unit::f32);
  p.i16 = measure(Unit::i16);
  return p;
}

#ifdef RRSWIN_HAVE_BLAS
namespace {
// OpenBLAS is opened on first use, not linked: a linked OpenBLAS starts its thread pool when the
// process starts, one worker per core, and the workers spin in sched_yield while the process is
// young (measured: the demo, `rrswin run`, spent 0.078 s of system time in
// them, on 2 cores beside the engine's threads; 0.011 s without them).
// OPENBLAS_NUM_THREADS=1 before the library starts makes the pool empty (the reference runs one
// sgemm per thread of its own); a value the user set is kept. Called from the bench's main thread
// before any frame runs (nothing reads the environment concurrently).
struct Blas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  void (*set_num_threads)(int) = nullptr;  // OpenBLAS's own; absent from other CBLAS
  std::string error;                       // why sgemm is null
};
const Blas& blas() {
  static const Blas b = [] {
    Blas r;
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
    void* h = nullptr;
    const char* opened = nullptr;
    for (const char* name : {RRSWIN_BLAS_PATH, "libopenblas.so.0"})
      if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) {
        opened = name;
        break;
      }
    if (h == nullptr) {
      const char* e = dlerror();
      r.error = std::string("could not load ") + RRSWIN_BLAS_PATH + " or libopenblas.so.0" + (e ? std::string(": ") + e : "");
      return r;
    }
    r.sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(dlsym(h, "cblas_sgemm"));
    r.set_num_threads = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"));
    if (r.sgemm == nullptr) r.error = std::string(opened) + " has no cblas_sgemm";
    return r;
  }();
  return b;
}
}  // namespace
#endif

bool blas_available() {
#ifdef RRSWIN_HAVE_BLAS
  return blas().sgemm != nullptr;
#else
  return false;
#endif
}

std::string blas_unavailable_reason() {
#ifdef RRSWIN_HAVE_BLAS
  return blas().error;
#else
  return "configured with -DRRSWIN_BENCH_BLAS=OFF";
#endif
}

std::string blas_name() {
#ifdef RRSWIN_HAVE_BLAS
  return blas().set_num_threads ? "OpenBLAS sgemm" : "CBLAS sgemm";
#else
  return "none";
#endif
}

double blas_frame_seconds(const Geometry& g, int threads, int reps) {
#ifdef RRSWIN_HAVE_BLAS
  // The layer's GEMMs per block in f32 (no epilogues, no requantisation, no chained f16 rounding):
  // QV: 96x(8 heads x 64)x160; per head score 64x96x32 and PV 64x32x96; out-projection
  // 64x160x256; MLP up 64x640x160 and down 64x160x640; phase 61 64x16x160. Blocks are spread over
  // threads like the engine's, each sgemm single-threaded.
  const Blas& lib = blas();
  if (lib.sgemm == nullptr) return 0;
  if (lib.set_num_threads) lib.set_num_threads(1);
  const int nb = blocks(g);
  struct Buffers {
    std::vector<float> a, b, c;
    Buffers() : a(96 * 640, 0.5f), b(640 * 640, 0.25f), c(96 * 640, 0.0f) {}
  };
  auto one_block = [&lib](Buffers& m) {
    auto gemm = [&](int M, int N, int K) {
      lib.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, m.a.data(), K, m.b.data(), N, 1.0f, m.c.data(), N);
    };
    gemm(96, 512, 160);
    for (int h = 0; h < 8; ++h) {
      gemm(64, 96, 32);
      gemm(64, 32, 96);
    }
    gemm(64, 160, 256);
    gemm(64, 640, 160);
    gemm(64, 160, 640);
    gemm(64, 16, 160);
  };
  const int nthreads = std::max(1, std::min(threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency()), nb));
  auto frame = [&] {
    std::atomic<int> next{0};
    std::vector<std::thread> pool;
    for (int i = 0; i < nthreads; ++i)
      pool.emplace_back([&] {
        Buffers m;
        for (int b; (b = next.fetch_add(1)) < nb;) one_block(m);
      });
    for (auto& th : pool) th.join();
  };
  frame();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const double t0 = now();
    frame();
    t.push_back(now() - t0);
  }
  return *std::min_element(t.begin(), t.end());
#else
  (void)g;
  (void)threads;
  (void)reps;
  return 0;
#endif
}

}  // namespace rrswin::bench
