// The GEMM benchmark's operands, shared by bench/gemm_bench.cpp and the in-process A/B of two
// kernel builds (bench/kernel_ab/kernel_ab.cpp): 64 rows, the shapes, random finite codes.
#pragma once
#include <random>

#include "numerics/types.hpp"

namespace rrswin::bench {

struct Shape {
  int K, N;
};
constexpr int kRows = 64;
// The layer's MLP chunk (K 160 N 32, K 32 N 160), its attention scores (K 32 N 96), and two larger
// ones that keep the kernel's inner loops long.
constexpr Shape kShapes[] = {{160, 32}, {32, 160}, {32, 96}, {160, 480}, {640, 160}};

// A random finite code (never 0x7F / 0xFF, which gemm() sends to mma_dot) whose exponent field is
// at most max_field, so that products spread over a few binades below the largest.
inline e4m3_t random_code(std::mt19937& rng, unsigned max_field) {
  for (;;) {
    const auto c = static_cast<e4m3_t>(rng() & 0xFF);
    if ((c & 0x7F) != 0x7F && ((c >> 3) & 0xF) <= max_field) return c;
  }
}

}  // namespace rrswin::bench
