// The k-step kernels with AVX2 + FMA + F16C intrinsics: the AVX-512 kernels (kernels_avx512.cpp)
// on 256-bit registers, same arithmetic (exactness: kernels_impl.hpp's header comment; `ada`'s
// integer form of it: ada_tile below). AVX2 has no vgetexpps / mask registers: E(acc) comes from the
// f16 exponent field, and the pass-through of special accumulators uses byte blends.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "engine/avx2_asm.hpp"
#include "engine/kernel_args.hpp"
#include "numerics/f16.hpp"

namespace rrswin::engine {
namespace {

constexpr int kRoundNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

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

using avx2_asm::add_into;  // engine/avx2_asm.hpp
using avx2_asm::max_into;

// The elements of an `ada` half with no nonzero term and acc = -0 (minus_zero): mma.cpp's IEEE sum
// of the signed zeros acc (c) and a b, in binary32 (exact: every addend is +-0); its sign bit
// replaces res there (the sum is -0 exactly when every product is -0). Out of line: taken only for
// tiles that have such an element.
template <int R, int NC>
__attribute__((noinline)) void ada_zero_signs(const float* a, const float* b, std::ptrdiff_t lda, std::ptrdiff_t N,
                                              const __m256i (&c)[R][NC], const __m256i (&minus_zero)[R][NC], __m256i (&res)[R][NC]) {
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NC; ++j) {
      __m128i zh[2];
      for (int h = 0; h < 2; ++h) {
        __m256 zsum = _mm256_cvtph_ps(h == 0 ? _mm256_castsi256_si128(c[r][j]) : _mm256_extracti128_si256(c[r][j], 1));
        for (int k = 0; k < 16; ++k)
          zsum = _mm256_add_ps(zsum, _mm256_mul_ps(_mm256_broadcast_ss(a + r * lda + k), _mm256_loadu_ps(b + k * N + 16 * j + 8 * h)));
        zh[h] = _mm256_cvtps_ph(zsum, kRoundNearest);
      }
      const __m256i zero_bits = _mm256_and_si256(_mm256_set_m128i(zh[1], zh[0]), _mm256_set1_epi16(static_cast<short>(0x8000)));
      res[r][j] = _mm256_blendv_epi8(res[r][j], zero_bits, minus_zero[r][j]);
    }
}

// `ada` (numerics.md "mma" `ada`; the model and its exactness proof: kernels_impl.hpp's header
// comment), on an R x 16 NC tile of f16 accumulators kept in registers across every k-step and half
// (16 columns of f16 bits per register, one register per row and 16 columns). Per half:
//  * maxE on int16 lanes, 16 columns per register: the maximum over the 16 k of e(a) + e(b) (the
//    decoded ea16 / eb16; a zero operand's -64 keeps a zero product below every real exponent, and
//    every sum fits int16: -128..16), started at E(acc) = max(biased f16 exponent - 15, -14) (a
//    zero or subnormal acc gives the clamp -14, which is also maxE's clamp: no nonzero term is below
//    it; an Inf / NaN acc gives 16, harmless: those lanes are passed through at the end).
//  * scale = 2^(13 - maxE) built in the exponent field (maxE in -14..16: a binary32 normal), then per
//    term mul, mul by the scale (both exact, kernels_impl.hpp), vcvttps2dq (truncation toward zero:
//    |t * scale| < 2^15), vpaddd into an int32 sum; acc enters as vcvttps2dq(acc * scale) (exact:
//    |acc * scale| < 2^14). The sum of at most 17 integers below 2^15 stays below 2^20: exact in
//    int32, and exact when converted back to binary32 (< 2^24); times q = 2^(maxE - 13) (a power of
//    two, the product a binary32 normal or zero) it is the model's sum, and vcvtps2ph (RNE,
//    subnormals kept, >= 65520 -> Inf) the model's one f16 rounding.
//  * Zero signs: an integer sum has none, and vcvtdq2ps gives +0. A zero sum with a nonzero term is
//    +0 (the largest term survives truncation, so it is a cancellation: +0 in IEEE addition and in
//    mma.cpp). With no nonzero term, i.e. acc = +-0 and maxE = -14 (nonzero products have E >= -12,
//    a nonzero acc makes itself a term), mma.cpp returns the IEEE sum of acc and the products, all
//    signed zeros: +0 when acc = +0, as the integer sum gives; where acc = -0 it is computed in
//    binary32 (exact: every addend is +-0) for the tiles that have such an element (rare), and its
//    sign bit taken.
//  * An Inf / NaN acc passes through (NaN -> 0x7FFF) as mma.cpp does; those lanes compute garbage
//    (vcvttps2dq of Inf / NaN is 0x80000000, the int32 adds wrap) that is blended away. NaN e4m3
//    codes never reach the kernel (gemm() sends such operands to mma_dot).
// One function on purpose (as kernels_avx512.cpp's): its stages share the R x NC register tiles.
template <int R, int NC>
void ada_tile(const KStepArgs& g, int r0, int n0) {
  constexpr int NV = 2 * NC;  // 8-column binary32 vectors per row
  const std::ptrdiff_t lda = g.lda, N = g.N;
  __m256i c[R][NC];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NC; ++j) c[r][j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(g.d + (r0 + r) * g.ldd + n0 + 16 * j));
  for (int half = 0; half < 2 * g.ksteps; ++half) {
    const std::ptrdiff_t k0 = 32 * (half >> 1) + 16 * (half & 1);  // column of A / row of B where the half starts
    const std::int16_t* ea = g.ea16 + r0 * lda + k0;
    const float* a = g.a + r0 * lda + k0;
    const std::int16_t* eb = g.eb16 + k0 * N + n0;
    const float* b = g.b + k0 * N + n0;
    __m256i m[R][NC];  // maxE per element, int16
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < NC; ++j) {
        const __m256i biased = _mm256_srli_epi16(_mm256_and_si256(c[r][j], _mm256_set1_epi16(0x7C00)), 10);
        m[r][j] = _mm256_max_epi16(_mm256_sub_epi16(biased, _mm256_set1_epi16(15)), _mm256_set1_epi16(-14));
      }
#pragma GCC unroll 2
    for (int k = 0; k < 16; ++k) {
      __m256i ebk[NC];
      for (int j = 0; j < NC; ++j) ebk[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(eb + k * N + 16 * j));
      for (int r = 0; r < R; ++r) {
        const __m256i ear = _mm256_set1_epi16(ea[r * lda + k]);
        for (int j = 0; j < NC; ++j) max_into(m[r][j], _mm256_add_epi16(ear, ebk[j]));
      }
    }
    // The elements whose result may be -0 (no nonzero term, i.e. maxE = -14, and acc = -0; with a
    // +0 acc the IEEE sum of the zeros is +0, which the integer sum gives): any in the tile?
    __m256i minus_zero[R][NC];
    __m256i any_minus_zero = _mm256_setzero_si256();
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < NC; ++j) {
        const __m256i acc_minus_zero = _mm256_cmpeq_epi16(c[r][j], _mm256_set1_epi16(static_cast<short>(0x8000)));
        minus_zero[r][j] = _mm256_and_si256(acc_minus_zero, _mm256_cmpeq_epi16(m[r][j], _mm256_set1_epi16(-14)));
        any_minus_zero = _mm256_or_si256(any_minus_zero, minus_zero[r][j]);
      }
    __m256 scale[R][NV];
    __m256i isum[R][NV];  // the sum of the truncated scaled terms (exact: below 2^20)
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < NC; ++j)
        for (int h = 0; h < 2; ++h) {
          const __m128i mh = h == 0 ? _mm256_castsi256_si128(m[r][j]) : _mm256_extracti128_si256(m[r][j], 1);
          const __m128i ch = h == 0 ? _mm256_castsi256_si128(c[r][j]) : _mm256_extracti128_si256(c[r][j], 1);
          const __m256i m32 = _mm256_cvtepi16_epi32(mh);
          scale[r][2 * j + h] = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(127 + 13), m32), 23));
          isum[r][2 * j + h] = _mm256_cvttps_epi32(_mm256_mul_ps(_mm256_cvtph_ps(ch), scale[r][2 * j + h]));
        }
#pragma GCC unroll 2
    for (int k = 0; k < 16; ++k) {
      __m256 bk[NV];
      for (int v = 0; v < NV; ++v) bk[v] = _mm256_loadu_ps(b + k * N + 8 * v);
      for (int r = 0; r < R; ++r) {
        const __m256 ar = _mm256_broadcast_ss(a + r * lda + k);
        for (int v = 0; v < NV; ++v) add_into(isum[r][v], _mm256_cvttps_epi32(_mm256_mul_ps(_mm256_mul_ps(ar, bk[v]), scale[r][v])));
      }
    }
    __m256i res[R][NC];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
      for (int j = 0; j < NC; ++j) {
        __m128i hv[2];
        for (int h = 0; h < 2; ++h) {
          const int v = 2 * j + h;
          // q = 2^(maxE - 13): exponent field 127 - 13 + maxE = 254 - (127 + 13 - maxE), scale's
          const __m256 q = _mm256_castsi256_ps(_mm256_sub_epi32(_mm256_set1_epi32(254 << 23), _mm256_castps_si256(scale[r][v])));
          hv[h] = _mm256_cvtps_ph(_mm256_mul_ps(_mm256_cvtepi32_ps(isum[r][v]), q), kRoundNearest);
        }
        res[r][j] = _mm256_set_m128i(hv[1], hv[0]);
      }
    if (!_mm256_testz_si256(any_minus_zero, any_minus_zero)) ada_zero_signs<R, NC>(a, b, lda, N, c, minus_zero, res);
    // Special accumulators (rare, so behind one branch per tile): Inf stays, NaN becomes 0x7FFF.
    __m256i special[R][NC], any_special = _mm256_setzero_si256();
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < NC; ++j) {
        special[r][j] = _mm256_cmpeq_epi16(_mm256_and_si256(c[r][j], _mm256_set1_epi16(0x7C00)), _mm256_set1_epi16(0x7C00));
        any_special = _mm256_or_si256(any_special, special[r][j]);
      }
    if (!_mm256_testz_si256(any_special, any_special))
      for (int r = 0; r < R; ++r)
        for (int j = 0; j < NC; ++j) {
          const __m256i mant_zero = _mm256_cmpeq_epi16(_mm256_and_si256(c[r][j], _mm256_set1_epi16(0x03FF)), _mm256_setzero_si256());
          res[r][j] = _mm256_blendv_epi8(res[r][j], c[r][j], special[r][j]);
          res[r][j] = _mm256_blendv_epi8(res[r][j], _mm256_set1_epi16(0x7FFF), _mm256_andnot_si256(mant_zero, special[r][j]));
        }
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < NC; ++j) c[r][j] = res[r][j];
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NC; ++j) _mm256_storeu_si256(reinterpret_cast<__m256i*>(g.d + (r0 + r) * g.ldd + n0 + 16 * j), c[r][j]);
}

// Column strips outer (a strip of B, K x 16 NC, stays in the caches across the row tiles), then R
// rows at a time and the rows left one by one.
template <int R, int NC>
void ada_strip(const KStepArgs& g, int n0) {
  int r = 0;
  for (; r + R <= g.rows; r += R) ada_tile<R, NC>(g, r, n0);
  for (; r < g.rows; ++r) ada_tile<1, NC>(g, r, n0);
}

// Reads a, b and ea16, eb16 (gemm.hpp: decode_for).
// 2 rows x 32 columns per tile (callgrind / timing on Zen 3: 2 x 32 and 4 x 16 within noise of
// each other, 2 x 16, 3 x 16 and 1 x 32 5-15 % slower).
void ada_kstep(const KStepArgs& g) {
  constexpr int R = 2, NC = 2;
  int n0 = 0;
  for (; n0 + 16 * NC <= g.N; n0 += 16 * NC) ada_strip<R, NC>(g, n0);
  for (; n0 < g.N; n0 += 16) ada_strip<R, 1>(g, n0);
}

// epilogue_impl.hpp's vector interface with F16C.
typedef float V8 __attribute__((vector_size(32)));
inline float from_h(f16_t h) { return _cvtsh_ss(h); }
inline f16_t to_h(float x) { return x != x ? kF16CanonicalNaN : static_cast<f16_t>(_cvtss_sh(x, kRoundNearest)); }
inline V8 load_h8(const f16_t* p) { return (V8)_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
inline V8 rnd(V8 x) { return (V8)_mm256_cvtph_ps(_mm256_cvtps_ph((__m256)x, kRoundNearest)); }
// The f16 bits of 8 lanes (RNE; NaN -> the canonical 0x7FFF), in a register.
inline __m128i h8_bits(V8 x) {
  const __m256 f = (__m256)x;
  const __m128i h = _mm256_cvtps_ph(f, kRoundNearest);
  const __m256i nan32 = _mm256_castps_si256(_mm256_cmp_ps(f, f, _CMP_UNORD_Q));
  const __m128i nan16 = _mm_packs_epi32(_mm256_castsi256_si128(nan32), _mm256_extracti128_si256(nan32, 1));
  return _mm_blendv_epi8(h, _mm_set1_epi16(0x7FFF), nan16);
}
inline void store_h8(f16_t* p, V8 x) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), h8_bits(x)); }

}  // namespace
}  // namespace rrswin::engine

#include "engine/e61_avx2_impl.hpp"
#include "engine/epilogue_avx2_impl.hpp"
#include "engine/epilogue_impl.hpp"
#include "engine/kernels_blackwell_impl.hpp"
#include "engine/kernels_hopper_impl.hpp"
#include "engine/kernels_zluda_int16_avx2_impl.hpp"

// After the blackwell and zluda kernels: it uses both.
#include "engine/kernels_blackwell_int16_avx2_impl.hpp"

namespace rrswin::engine {
namespace {
// E11 (facts C4) without statistics: epilogue_impl.hpp's e11_rows lane for lane (the same tree,
// fold, reciprocal and products), with steps 1..5 by e11_expval8 and q8 by q8_codes16 in registers
// (epilogue_avx2_impl.hpp, each checked on every f16) instead of through a buffer per row and two
// calls: the scores' 96 values go from the loads to the codes' stores without a round trip. Four
// rows per step (their chains of dependent roundings overlap, as in e11_rows). With statistics, or
// without a q8 kernel, e11_rows itself.
void e11_rows_avx2(const E11Args& g) {
  if (g.counts || !g.q8_run) {
    e11_rows(g);
    return;
  }
  const epilogue_avx2::E11Consts k = epilogue_avx2::e11_consts();
  const __m256i nan_sign = g.q8_nan_keeps_sign ? _mm256_set1_epi16(0x80) : _mm256_setzero_si256();
  const f16_t* const s = g.s;
  e4m3_t* const p = g.p;
  const f16_t* const rcp_table = g.rcp;
  auto step = [&]<int R>(int r0) {
    V8 E[R][12];
    for (int u = 0; u < R; ++u)
      for (int i = 0; i < 12; ++i)
        E[u][i] = (V8)_mm256_cvtph_ps(
            epilogue_avx2::e11_expval8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + (r0 + u) * 96 + 8 * i)), k));
    float rf[R];
    for (int u = 0; u < R; ++u) rf[u] = from_h(rcp_table[fold_lanes(e11_in_lane(E[u], [](V8 a, V8 b) { return rnd(a + b); }))]);
    for (int u = 0; u < R; ++u) {
      e4m3_t* const prow = p + (r0 + u) * 96;
      for (int i = 0; i < 12; i += 2) {
        const __m256i c = epilogue_avx2::q8_codes16(_mm256_set_m128i(h8_bits(E[u][i + 1] * rf[u]), h8_bits(E[u][i] * rf[u])), nan_sign);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(prow + 8 * i),
                         _mm_packus_epi16(_mm256_castsi256_si128(c), _mm256_extracti128_si256(c, 1)));
      }
    }
  };
  int r = 0;
  for (; r + 4 <= g.rows; r += 4) step.template operator()<4>(r);
  for (; r + 2 <= g.rows; r += 2) step.template operator()<2>(r);
  for (; r < g.rows; ++r) step.template operator()<1>(r);
}

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
  return {.zluda = zluda_kstep_int16,  // kernels_zluda_int16_avx2_impl.hpp
          .ada = ada_kstep,
          .e11_rows = e11_rows_avx2,
          .rms_rows = rms_rows,
          .decode_run = decode_run,
          .add_rows = add_rows,
          .hopper = hopper_kstep,
          .blackwell = blackwell_kstep_int16,  // kernels_blackwell_int16_avx2_impl.hpp
          .e61_pixels = e61_pixels_avx2,
          .decoder_pixels = decoder_pixels_avx2,
          .e62_lanes = e62_lanes_avx2};
}

}  // namespace rrswin::engine
