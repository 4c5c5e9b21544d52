// AVX2 FMA and int16 dot-product peak loops (fma_peak.hpp); compiled with -mavx2 -mfma (CMakeLists.txt).
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
// The chains' distinct starting values 1.000 .. 1.011 as distinct int16 1000 .. 1011 (equal ones
// would let the compiler merge their chains).
__m256i set1_w(double v) { return _mm256_set1_epi16(static_cast<short>(v * 1000 + 0.5)); }
// The chain runs through the vpmaddwd (its int32 lanes read as int16 pairs): with the products of
// two loop invariants the compiler would hoist them and time the adds alone.
__m256i dot_w(__m256i acc, __m256i x, __m256i y) { return _mm256_add_epi32(_mm256_madd_epi16(acc, x), y); }
__m256i add_d(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }

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

double i16_dot_loop_avx2(std::int64_t iters) {
  alignas(32) std::int32_t out[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(out), chains<__m256i, set1_w, dot_w, add_d>(iters));
  double s = 0;
  for (std::int32_t v : out) s += v;
  return s;
}

}  // namespace rrswin::bench
