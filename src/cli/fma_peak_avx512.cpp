// AVX-512 FMA peak loops (fma_peak.hpp); compiled with -mavx512f (CMakeLists.txt).
#include <immintrin.h>

#include "cli/fma_peak.hpp"

namespace enc5::bench {

namespace {

template <typename V, V (*Set1)(double), V (*Fma)(V, V, V), V (*Add)(V, V)>
V chains(std::int64_t iters) {
  V a0 = Set1(1.0), a1 = Set1(1.001), a2 = Set1(1.002), a3 = Set1(1.003), a4 = Set1(1.004), a5 = Set1(1.005);
  V a6 = Set1(1.006), a7 = Set1(1.007), a8 = Set1(1.008), a9 = Set1(1.009), a10 = Set1(1.010), a11 = Set1(1.011);
  const V x = Set1(0.999999), y = Set1(1e-7);
  for (std::int64_t it = 0; it < iters; ++it) {
    a0 = Fma(a0, x, y), a1 = Fma(a1, x, y), a2 = Fma(a2, x, y), a3 = Fma(a3, x, y);
    a4 = Fma(a4, x, y), a5 = Fma(a5, x, y), a6 = Fma(a6, x, y), a7 = Fma(a7, x, y);
    a8 = Fma(a8, x, y), a9 = Fma(a9, x, y), a10 = Fma(a10, x, y), a11 = Fma(a11, x, y);
  }
  return Add(Add(Add(Add(a0, a1), Add(a2, a3)), Add(Add(a4, a5), Add(a6, a7))), Add(Add(a8, a9), Add(a10, a11)));
}

__m512d set1_pd(double v) { return _mm512_set1_pd(v); }
__m512d fma_pd(__m512d a, __m512d b, __m512d c) { return _mm512_fmadd_pd(a, b, c); }
__m512d add_pd(__m512d a, __m512d b) { return _mm512_add_pd(a, b); }
__m512 set1_ps(double v) { return _mm512_set1_ps(static_cast<float>(v)); }
__m512 fma_ps(__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }
__m512 add_ps(__m512 a, __m512 b) { return _mm512_add_ps(a, b); }

}  // namespace

double f64_fma_loop_avx512(std::int64_t iters) {
  static_assert(kFmaChains == 12);
  return _mm512_reduce_add_pd(chains<__m512d, set1_pd, fma_pd, add_pd>(iters));
}

double f32_fma_loop_avx512(std::int64_t iters) { return _mm512_reduce_add_ps(chains<__m512, set1_ps, fma_ps, add_ps>(iters)); }

}  // namespace enc5::bench
