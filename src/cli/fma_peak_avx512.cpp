// AVX-512 FMA and int16 dot-product peak loops (fma_peak.hpp); compiled with -mavx512f -mavx512bw
// (CMakeLists.txt).
#include <immintrin.h>

#include "cli/fma_chains_impl.hpp"
#include "cli/fma_peak.hpp"

namespace rrswin::bench {

namespace {

__m512d set1_pd(double v) { return _mm512_set1_pd(v); }
__m512d fma_pd(__m512d a, __m512d b, __m512d c) { return _mm512_fmadd_pd(a, b, c); }
__m512d add_pd(__m512d a, __m512d b) { return _mm512_add_pd(a, b); }
__m512 set1_ps(double v) { return _mm512_set1_ps(static_cast<float>(v)); }
__m512 fma_ps(__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }
__m512 add_ps(__m512 a, __m512 b) { return _mm512_add_ps(a, b); }
__m512i set1_w(double v) { return _mm512_set1_epi16(static_cast<short>(v * 1000 + 0.5)); }
// The chain runs through the vpmaddwd (its int32 lanes read as int16 pairs): with the products of
// two loop invariants the compiler would hoist them and time the adds alone.
__m512i dot_w(__m512i acc, __m512i x, __m512i y) { return _mm512_add_epi32(_mm512_madd_epi16(acc, x), y); }
__m512i add_d(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }

}  // namespace

double f64_fma_loop_avx512(std::int64_t iters) { return _mm512_reduce_add_pd(chains<__m512d, set1_pd, fma_pd, add_pd>(iters)); }

double f32_fma_loop_avx512(std::int64_t iters) { return _mm512_reduce_add_ps(chains<__m512, set1_ps, fma_ps, add_ps>(iters)); }

double i16_dot_loop_avx512(std::int64_t iters) { return _mm512_reduce_add_epi32(chains<__m512i, set1_w, dot_w, add_d>(iters)); }

}  // namespace rrswin::bench
