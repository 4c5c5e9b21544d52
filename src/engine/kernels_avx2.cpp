// The k-step kernels compiled for the avx2 path (flags in CMakeLists.txt; see kernels_impl.hpp).
#include "engine/kernels_impl.hpp"

namespace enc5::engine {
KernelSet kernels_avx2() { return {zluda_kstep, ada_kstep}; }
}  // namespace enc5::engine

#include <immintrin.h>

namespace enc5::engine {

// See kernels_avx512.cpp: 12 chains of 4-wide binary64 FMAs.
double f64_fma_loop_avx2(std::int64_t iters) {
  __m256d acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_pd(1.0 + i * 1e-3);
  const __m256d x = _mm256_set1_pd(0.999999999), y = _mm256_set1_pd(1e-9);
  for (std::int64_t it = 0; it < iters; ++it)
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_pd(acc[i], x, y);
  __m256d s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_pd(s, acc[i]);
  double out[4];
  _mm256_storeu_pd(out, s);
  return out[0] + out[1] + out[2] + out[3];
}

}  // namespace enc5::engine
