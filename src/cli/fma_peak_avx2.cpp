// AVX2 FMA peak loops (fma_peak.hpp); compiled with -mavx2 -mfma (CMakeLists.txt).
#include <immintrin.h>

#include "cli/fma_chains_impl.hpp"
#include "cli/fma_peak.hpp"

namespace rrswin::bench {

namespace {

__m256d set1_pd(double v) { return _mm256_set1_pd(v); }
__m256d fma_pd(__m256d a, __m256d b, __m256d c) { return _mm256_fmadd_pd(a, b, c); }
__m256d add_pd(__m256d a, __m256d b) { return _mm256_add_pd(a, b); }
__m256 set1_ps(double v) { return _mm256_set1_ps(static_cast<float>(v)); }
__m256 fma_ps(__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); }
__m256 add_ps(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }

}  // namespace

double f64_fma_loop_avx2(std::int64_t iters) {
  alignas(32) double out[4];
  _mm256_store_pd(out, chains<__m256d, set1_pd, fma_pd, add_pd>(iters));
  return out[0] + out[1] + out[2] + out[3];
}

double f32_fma_loop_avx2(std::int64_t iters) {
  alignas(32) float out[8];
  _mm256_store_ps(out, chains<__m256, set1_ps, fma_ps, add_ps>(iters));
  double s = 0;
  for (float v : out) s += v;
  return s;
}

}  // namespace rrswin::bench
