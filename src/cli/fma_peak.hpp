// The machine's FMA peaks for `rrswin bench` (bench_core.cpp): binary64 (the exact-arithmetic limit
// of the `zluda` kernels) and binary32 (what an f32 BLAS can reach), per SIMD width. Bench code
// only: the engine's kernel files hold no measurement loops.
#pragma once
#include <cstdint>

namespace rrswin::bench {

// iters x kFmaChains independent chains of one FMA each per iteration, on 8 (AVX-512) or 4 (AVX2)
// binary64 lanes, resp. 16 / 8 binary32 lanes. Twelve chains: the FMA latency (4 cycles) times
// the two FMA ports is 8 in flight, so 12 cover it with room; every accumulator stays in a
// register (checked with objdump: the loop body is 12 vfmadd with register operands, no memory).
// Each returns a value depending on every chain, so nothing is optimised away.
inline constexpr int kFmaChains = 12;
double f64_fma_loop_avx512(std::int64_t iters);
double f32_fma_loop_avx512(std::int64_t iters);
double f64_fma_loop_avx2(std::int64_t iters);
double f32_fma_loop_avx2(std::int64_t iters);

}  // namespace rrswin::bench
