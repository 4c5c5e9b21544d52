// Google Benchmark targets: the layer per frame (golden on the small geometry; fast engine on
// every geometry, profile and SIMD path), the binary64 FMA peak and the f32 BLAS reference.
// Counters: blocks, MAC/s (e4m3 multiply-adds per second). `rrswin bench` prints the same
// measurements as one table.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <thread>

#include "cli/bench_core.hpp"
#include "engine/simd.hpp"

namespace {

using namespace rrswin;

void run_layer(benchmark::State& state, const bench::Geometry& g, Engine e, const Profile* p, std::string simd) {
  bench::Frame f(g);
  RunOptions o;
  o.profile = p;
  o.engine = e;
  o.simd = simd;
  run_frame(f.params, o);
  for (auto _ : state) run_frame(f.params, o);
  const int nb = bench::blocks(g);
  state.counters["blocks"] = nb;
  state.counters["MAC/s"] = benchmark::Counter(nb * bench::macs_per_block(), benchmark::Counter::kIsIterationInvariantRate);
}

void fma_peak(benchmark::State& state) {
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  double peak = 0;
  for (auto _ : state) peak = bench::fma_peaks(threads, 0.2).f64;
  state.counters["GFMA/s"] = peak / 1e9;
  state.counters["layer_real_ms"] = 1e3 * 15 * bench::macs_per_block() / peak;
}

void blas_ref(benchmark::State& state, const bench::Geometry& g) {
  if (!bench::blas_available()) {
    state.SkipWithError("built without a CBLAS (libopenblas-dev)");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(bench::blas_frame_seconds(g, 0, 1));
  state.counters["MAC/s"] = benchmark::Counter(bench::blocks(g) * bench::macs_per_block(), benchmark::Counter::kIsIterationInvariantRate);
}

const bool registered = [] {
  for (const Profile* p : all_profiles()) {
    const std::string pn(p->name);
    benchmark::RegisterBenchmark(("layer/golden/" + pn + "/small").c_str(), run_layer, bench::geometries()[0], Engine::golden, p, "")
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1)
        ->UseRealTime();
    for (engine::SimdPath path : engine::supported_simd_paths())
      for (const auto& g : bench::geometries()) {
        const std::string sp(engine::to_string(path));
        benchmark::RegisterBenchmark(("layer/fast/" + pn + "/" + sp + "/" + g.name).c_str(), run_layer, g, Engine::fast, p, sp)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
  }
  benchmark::RegisterBenchmark("reference/f64_fma_peak", fma_peak)->Iterations(1)->UseRealTime();
  for (const auto& g : bench::geometries())
    benchmark::RegisterBenchmark(("reference/blas_f32/" + g.name).c_str(), blas_ref, g)->Unit(benchmark::kMillisecond)->UseRealTime();
  return true;
}();

}  // namespace
