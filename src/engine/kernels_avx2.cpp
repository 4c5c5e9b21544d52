// The k-step kernels with AVX2 + FMA + F16C intrinsics: the AVX-512 kernels (kernels_avx512.cpp)
// on 256-bit registers, same arithmetic (exactness: kernels_impl.hpp's header comment). AVX2 has
// no vgetexpps / mask registers: E(acc) comes from the f16 exponent field, and the pass-through of
// special accumulators uses byte blends.
#include <immintrin.h>

#include <cstddef>

#include "engine/kernel_args.hpp"
#include "numerics/f16.hpp"

namespace enc5::engine {
namespace {

constexpr int kRoundNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
constexpr int kTruncate = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;

template <int R, int NV>
void zluda_tile(const KStepArgs& g, int r0, int n0) {
  __m256d acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) {
      const __m128i c = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(g.d + (r0 + r) * g.ldd + n0 + 4 * v));
      acc[r][v] = _mm256_cvtps_pd(_mm_cvtph_ps(c));
    }
  for (int s = 0; s < g.ksteps; ++s) {
    if (s > 0)  // step s-1's D (f32 then f16 rounding, in registers) is step s's C; NaN stays NaN
      for (int r = 0; r < R; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v] = _mm256_cvtps_pd(_mm_cvtph_ps(_mm_cvtps_ph(_mm256_cvtpd_ps(acc[r][v]), kRoundNearest)));
    const double* a64 = g.a64 + 32 * s;
    const double* b64 = g.b64 + static_cast<std::ptrdiff_t>(32) * g.N * s;
    for (int k = 0; k < 32; ++k) {
      __m256d b[NV];
      for (int v = 0; v < NV; ++v) b[v] = _mm256_loadu_pd(b64 + k * g.N + n0 + 4 * v);
      for (int r = 0; r < R; ++r) {
        const __m256d a = _mm256_broadcast_sd(a64 + (r0 + r) * g.lda + k);
        for (int v = 0; v < NV; ++v) acc[r][v] = _mm256_fmadd_pd(a, b[v], acc[r][v]);
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) {
      const __m128 f = _mm256_cvtpd_ps(acc[r][v]);
      __m128i h = _mm_cvtps_ph(f, kRoundNearest);
      const __m128i nan32 = _mm_castps_si128(_mm_cmpunord_ps(f, f));
      h = _mm_blendv_epi8(h, _mm_set1_epi16(0x7FFF), _mm_packs_epi32(nan32, nan32));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(g.d + (r0 + r) * g.ldd + n0 + 4 * v), h);
    }
}

// The binary64 kernel: operands decoded without the integer form (gemm.hpp: decode_for of another
// path). The integer kernel below is the avx2 path's own.
void zluda_kstep_f64(const KStepArgs& g) {
  int r = 0;
  for (; r + 2 <= g.rows; r += 2)
    for (int n0 = 0; n0 < g.N; n0 += 16) zluda_tile<2, 4>(g, r, n0);
  for (; r < g.rows; ++r)
    for (int n0 = 0; n0 < g.N; n0 += 16) zluda_tile<1, 4>(g, r, n0);
}

// All k-steps and halves of an R x 16 tile; the f16 accumulator c stays in registers.
template <int R>
void ada_tile(const KStepArgs& g, int r0, int n0) {
  constexpr int NV = 2;  // 16 columns
  __m256 mx[R][NV], scale[R][NV], sum[R][NV];
  __m128i c[R][NV], special[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) c[r][v] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(g.d + (r0 + r) * g.ldd + n0 + 8 * v));
  for (int half = 0; half < 2 * g.ksteps; ++half) {
    const int k0 = 32 * (half >> 1) + 16 * (half & 1);
    const float* ea = g.ea + k0;
    const float* a = g.a + k0;
    const float* eb = g.eb + static_cast<std::ptrdiff_t>(k0) * g.N;
    const float* b = g.b + static_cast<std::ptrdiff_t>(k0) * g.N;
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v) {
        const __m128i ef = _mm_and_si128(c[r][v], _mm_set1_epi16(0x7C00));
        special[r][v] = _mm_cmpeq_epi16(ef, _mm_set1_epi16(0x7C00));
        const __m256 cf = _mm256_cvtph_ps(c[r][v]);
        sum[r][v] = _mm256_andnot_ps(_mm256_castsi256_ps(_mm256_cvtepi16_epi32(special[r][v])), cf);
        // E(acc) = max(biased exponent - 15, -14): subnormals and zero give -14 (the clamp).
        const __m128i e16 = _mm_max_epi16(_mm_sub_epi16(_mm_srli_epi16(ef, 10), _mm_set1_epi16(15)), _mm_set1_epi16(-14));
        mx[r][v] = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(e16));
      }
    for (int k = 0; k < 16; ++k) {
      __m256 ebk[NV];
      for (int v = 0; v < NV; ++v) ebk[v] = _mm256_loadu_ps(eb + k * g.N + n0 + 8 * v);
      for (int r = 0; r < R; ++r) {
        const __m256 ear = _mm256_broadcast_ss(ea + (r0 + r) * g.lda + k);
        for (int v = 0; v < NV; ++v) mx[r][v] = _mm256_max_ps(mx[r][v], _mm256_add_ps(ear, ebk[v]));
      }
    }
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v) {
        const __m256i m = _mm256_cvtps_epi32(mx[r][v]);
        scale[r][v] = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(127 + 13), m), 23));
        mx[r][v] = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_set1_epi32(127 - 13), m), 23));  // q
        sum[r][v] = _mm256_round_ps(_mm256_mul_ps(sum[r][v], scale[r][v]), kTruncate);
      }
    for (int k = 0; k < 16; ++k) {
      __m256 bk[NV];
      for (int v = 0; v < NV; ++v) bk[v] = _mm256_loadu_ps(b + k * g.N + n0 + 8 * v);
      for (int r = 0; r < R; ++r) {
        const __m256 ar = _mm256_broadcast_ss(a + (r0 + r) * g.lda + k);
        for (int v = 0; v < NV; ++v) {
          const __m256 t = _mm256_mul_ps(_mm256_mul_ps(ar, bk[v]), scale[r][v]);
          sum[r][v] = _mm256_add_ps(sum[r][v], _mm256_round_ps(t, kTruncate));
        }
      }
    }
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v) {
        __m128i h = _mm256_cvtps_ph(_mm256_mul_ps(sum[r][v], mx[r][v]), kRoundNearest);
        const __m128i mant = _mm_and_si128(c[r][v], _mm_set1_epi16(0x03FF));
        const __m128i nan = _mm_andnot_si128(_mm_cmpeq_epi16(mant, _mm_setzero_si128()), special[r][v]);
        h = _mm_blendv_epi8(h, c[r][v], special[r][v]);
        c[r][v] = _mm_blendv_epi8(h, _mm_set1_epi16(0x7FFF), nan);
      }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) _mm_storeu_si128(reinterpret_cast<__m128i*>(g.d + (r0 + r) * g.ldd + n0 + 8 * v), c[r][v]);
}

void ada_kstep(const KStepArgs& g) {
  int r = 0;
  for (; r + 2 <= g.rows; r += 2)
    for (int n0 = 0; n0 < g.N; n0 += 16) ada_tile<2>(g, r, n0);
  for (; r < g.rows; ++r)
    for (int n0 = 0; n0 < g.N; n0 += 16) ada_tile<1>(g, r, n0);
}

// epilogue_impl.hpp's vector interface with F16C.
typedef float V8 __attribute__((vector_size(32)));
inline float from_h(f16_t h) { return _cvtsh_ss(h); }
inline f16_t to_h(float x) { return x != x ? kF16CanonicalNaN : static_cast<f16_t>(_cvtss_sh(x, kRoundNearest)); }
inline V8 load_h8(const f16_t* p) { return (V8)_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
inline V8 rnd(V8 x) { return (V8)_mm256_cvtph_ps(_mm256_cvtps_ph((__m256)x, kRoundNearest)); }
inline void store_h8(f16_t* p, V8 x) {
  const __m256 f = (__m256)x;
  const __m128i h = _mm256_cvtps_ph(f, kRoundNearest);
  const __m256i nan32 = _mm256_castps_si256(_mm256_cmp_ps(f, f, _CMP_UNORD_Q));
  const __m128i nan16 = _mm_packs_epi32(_mm256_castsi256_si128(nan32), _mm256_extracti128_si256(nan32, 1));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_blendv_epi8(h, _mm_set1_epi16(0x7FFF), nan16));
}

}  // namespace
}  // namespace enc5::engine

#include "engine/e61_avx2_impl.hpp"
#include "engine/epilogue_avx2_impl.hpp"
#include "engine/epilogue_impl.hpp"
#include "engine/kernels_blackwell_impl.hpp"
#include "engine/kernels_hopper_impl.hpp"
#include "engine/kernels_zluda_int16_avx2_impl.hpp"

namespace enc5::engine {
namespace {
// decode_run, 16 codes per step (the value via the f16 fields, as kernels_scalar.cpp explains).
bool decode_run(const DecodeRun& d) {
  __m256i nan = _mm256_setzero_si256();
  for (int i = 0; i < d.n; i += 16) {
    const __m256i c = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(d.src + i)));
    const __m256i m = _mm256_and_si256(c, _mm256_set1_epi16(0x7F));
    nan = _mm256_or_si256(nan, _mm256_cmpeq_epi16(m, _mm256_set1_epi16(0x7F)));
    if (d.v64 || d.v) {
      const __m256i h = _mm256_or_si256(_mm256_slli_epi16(_mm256_and_si256(c, _mm256_set1_epi16(0x80)), 8), _mm256_slli_epi16(m, 7));
      const __m256 lo = _mm256_mul_ps(_mm256_cvtph_ps(_mm256_castsi256_si128(h)), _mm256_set1_ps(256.0f));
      const __m256 hi = _mm256_mul_ps(_mm256_cvtph_ps(_mm256_extracti128_si256(h, 1)), _mm256_set1_ps(256.0f));
      if (d.v) {
        _mm256_storeu_ps(d.v + i, lo);
        _mm256_storeu_ps(d.v + i + 8, hi);
      }
      if (d.v64) {
        _mm256_storeu_pd(d.v64 + i, _mm256_cvtps_pd(_mm256_castps256_ps128(lo)));
        _mm256_storeu_pd(d.v64 + i + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(lo, 1)));
        _mm256_storeu_pd(d.v64 + i + 8, _mm256_cvtps_pd(_mm256_castps256_ps128(hi)));
        _mm256_storeu_pd(d.v64 + i + 12, _mm256_cvtps_pd(_mm256_extractf128_ps(hi, 1)));
      }
    }
    if (d.e || d.e16) {
      // e(x) = max((m >> 3) - 7, -6), and -64 for a zero.
      __m256i e = _mm256_max_epi16(_mm256_sub_epi16(_mm256_srli_epi16(m, 3), _mm256_set1_epi16(7)), _mm256_set1_epi16(-6));
      e = _mm256_blendv_epi8(e, _mm256_set1_epi16(-64), _mm256_cmpeq_epi16(m, _mm256_setzero_si256()));
      if (d.e16) _mm256_storeu_si256(reinterpret_cast<__m256i*>(d.e16 + i), e);
      if (d.e) {
        _mm256_storeu_ps(d.e + i, _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(e))));
        _mm256_storeu_ps(d.e + i + 8, _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_extracti128_si256(e, 1))));
      }
    }
    if (d.he16) {
      // `hopper`: (m >> 3) - 7 for a normal; a subnormal m is -9 + (m >= 2) + (m >= 4); -64 for a zero.
      const __m256i normal = _mm256_sub_epi16(_mm256_srli_epi16(m, 3), _mm256_set1_epi16(7));
      const __m256i sub = _mm256_sub_epi16(_mm256_sub_epi16(_mm256_set1_epi16(-9), _mm256_cmpgt_epi16(m, _mm256_set1_epi16(1))),
                                           _mm256_cmpgt_epi16(m, _mm256_set1_epi16(3)));
      __m256i e = _mm256_blendv_epi8(sub, normal, _mm256_cmpgt_epi16(m, _mm256_set1_epi16(7)));
      e = _mm256_blendv_epi8(e, _mm256_set1_epi16(-64), _mm256_cmpeq_epi16(m, _mm256_setzero_si256()));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d.he16 + i), e);
    }
  }
  return !_mm256_testz_si256(nan, nan);
}

}  // namespace

KernelSet kernels_avx2() {
  return {zluda_kstep_int16, ada_kstep, e11_rows, rms_rows, decode_run, add_rows, hopper_kstep, blackwell_kstep, e61_pixels_avx2};
}

}  // namespace enc5::engine
