// Google Benchmark targets for the engine's GEMM alone (engine::gemm: the k-step kernels of every
// profile and SIMD path this CPU has), on 64 rows of random finite e4m3 operands, so that a kernel
// change is measured without the rest of the layer: gemm/PROFILE/PATH/KxN. Counter MAC/s (e4m3
// multiply-adds per second). The shapes and operands: gemm_shapes.hpp.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/gemm.hpp"
#include "engine/simd.hpp"
#include "gemm_shapes.hpp"
#include "numerics/profile.hpp"

namespace {

using namespace rrswin;

using bench::kRows;
using bench::kShapes;
using bench::random_code;
using bench::Shape;

void run_gemm(benchmark::State& state, const Profile* p, engine::SimdPath path, Shape sh) {
  std::mt19937 rng(5);
  std::vector<e4m3_t> ac(static_cast<std::size_t>(kRows) * sh.K), bc(static_cast<std::size_t>(sh.N) * sh.K);
  for (auto& c : ac) c = random_code(rng, 12);
  for (auto& c : bc) c = random_code(rng, 9);
  engine::AOperand a;
  a.assign(ac.data(), kRows, sh.K, sh.K, engine::decode_for(*p, path), path);
  engine::BOperand b;
  b.assign_nk(bc.data(), sh.N, sh.K, sh.K, engine::kDecodeAll, path);
  std::vector<f16_t> d0(static_cast<std::size_t>(kRows) * sh.N), d(d0.size());
  for (auto& x : d0) x = static_cast<f16_t>(rng() & 0x7BFF);  // finite C values of both signs
  for (auto _ : state) {
    state.PauseTiming();
    d = d0;
    state.ResumeTiming();
    engine::gemm(*p, path, a, 0, b, 0, sh.K / 32, kRows, d.data(), sh.N);
    benchmark::DoNotOptimize(d.data());
  }
  state.counters["MAC/s"] = benchmark::Counter(static_cast<double>(kRows) * sh.K * sh.N, benchmark::Counter::kIsIterationInvariantRate);
}

const bool registered = [] {
  for (const Profile* p : all_profiles())
    for (engine::SimdPath path : engine::supported_simd_paths())
      for (const Shape& sh : kShapes) {
        const std::string name = "gemm/" + std::string(p->name) + "/" + std::string(engine::to_string(path)) + "/K" + std::to_string(sh.K) +
                                 "xN" + std::to_string(sh.N);
        benchmark::RegisterBenchmark(name.c_str(), run_gemm, p, path, sh)->Unit(benchmark::kMicrosecond);
      }
  return true;
}();

}  // namespace
