// The machine's multiply-add peaks for `rrswin bench` (bench_core.cpp): binary64 FMA (the limit of
// the exact binary64 kernels), binary32 FMA (what an f32 BLAS can reach) and int16 dot products (the
// limit of the exact integer kernels the `zluda` sums run on: kernels_zluda_int16_*), per SIMD width.
// Bench code only: the engine's kernel files hold no measurement loops.
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
// The int16 dot-product peak, written with the same chains: each step of a chain is one int16
// pair-product instruction, 16 (AVX2) or 32 (AVX-512) multiply-adds: vpmaddwd + vpaddd (avx2,
// avx512), vpdpwssd (avx512vnni), the instructions of the engine's int16 kernels on each path.
inline constexpr int kI16MacsAvx2 = 16, kI16MacsAvx512 = 32;
double i16_dot_loop_avx2(std::int64_t iters);
double i16_dot_loop_avx512(std::int64_t iters);
double i16_dot_loop_avx512vnni(std::int64_t iters);

}  // namespace rrswin::bench
