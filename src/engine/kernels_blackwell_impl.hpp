// The `blackwell` k-step kernel (numerics.md "Consumer Blackwell"; MMA-Sim's sm_120 model,
// docs/readings.md §3 "blackwell"), included by kernels_scalar.cpp and kernels_avx2.cpp: AVX2
// intrinsics where the unit is compiled for them (ada's kernel structure, kernels_avx2.cpp; it
// reads the int16 exponents ea16 / eb16), otherwise portable C++. Self-contained, internal linkage
// only (kernel_args.hpp says why). On the avx2 and AVX-512 paths this binary32 kernel is the
// fallback of the integer one (kernels_blackwell_int16_avx2_impl.hpp), which runs a tile's k-step
// on the `zluda` integer sums where the window truncates nothing and calls blackwell_detail::tile
// for the others. (An AVX-512 form of this kernel was the AVX-512 paths' until the integer kernel
// ran 1.5x faster on Zen 4; docs/performance.md "SIMD paths".)
//
// The model, per k-step and output element: D = f16_RN(sum over the 32 products and C of
// trunc_q(t)), q = 2^(maxE - 25), E(product) = e(a) + e(b) with `ada`'s e(x) = max(floor(log2|x|),
// -6) (the operands' ea / eb, -64 for a zero), E(C) = max(floor(log2|C|), -14), zero terms never
// setting the maximum; a zero sum is +0 (the profile's mma-zero-sign=plus); C = +-Inf gives C.
//
// Exactness (about values, not the order of operations). A product is ma mb 2^(E - 6) with
// integers ma, mb <= 15 (an e4m3 normal is ma 2^(e-3), ma in 8..15; a subnormal m 2^-9 is
// m 2^(-6-3), m <= 7), exact in binary32. With m = max(maxE, -14) (no nonzero term is below -14:
// products >= -12, C >= -14) and scale = 1/q = 2^(25 - m):
//   t * scale = ma mb 2^(E - m + 19) <= 225 * 2^19 < 2^27        (exact: a power-of-two scale)
//   C * scale < 2^(E_C + 1 + 25 - m) <= 2^26                      (an f16 of 11 bits, exact)
// and a product below the window still gets a binary32 normal (>= 2^-18 * 2^(25 - 17)).
// Truncation toward zero is the float -> int32 conversion (|x| < 2^31). The 32 truncated
// products and C can reach 32 * 225 * 2^19 + 2^26 > 2^31, so they go into two int32 sums, k 0..15
// with C and k 16..31, each below 16 * 225 * 2^19 + 2^26 < 1.96e9 < 2^31: exact in any order.
// Their binary64 sum S (< 2^32) and S * q are exact (q a power of two in range), and one RNE to
// f16 (subnormals kept, |x| >= 65520 -> Inf) is the model's single rounding: d2h below, or
// binary64 -> binary32 rounded to odd (truncated, the last bit set where inexact) then vcvtps2ph:
// rounding to odd with at least two extra bits and then to nearest is the single correct rounding
// (Boldo & Melquiond, IEEE TC 2008), and binary32 keeps 13 bits more than f16 at every magnitude
// here (every nonzero S q is >= q >= 2^-39, a binary32 normal; f16 subnormals only lower f16's
// precision). A zero S is +0, the
// model's (and the profile's) zero. NaN e4m3 codes and non-default corners never reach this
// kernel (gemm() sends them to mma_dot); a NaN C becomes 0x7FFF, an infinite C passes through.
#include <cstddef>
#include <cstdint>

#include "engine/f16_bits.hpp"
#include "engine/kernel_args.hpp"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>

#include "engine/avx2_asm.hpp"

namespace rrswin::engine {
namespace {
namespace blackwell_detail {

// binary64 -> binary32 rounded to odd, 4 lanes (finite values, binary32 normals: see the top):
// AVX2 has no per-instruction rounding, so the RNE conversion is stepped one ulp toward zero where
// it rounded away from zero (an integer decrement of the sign-magnitude bits), which is the
// truncation, and the last bit is set where it was inexact.
inline __m128 to_f32_odd(__m256d x) {
  const __m128 n = _mm256_cvtpd_ps(x);
  const __m256d back = _mm256_cvtps_pd(n);
  const __m256d abs = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
  const __m256d above = _mm256_cmp_pd(_mm256_and_pd(back, abs), _mm256_and_pd(x, abs), _CMP_GT_OQ);
  const __m256d inexact = _mm256_cmp_pd(back, x, _CMP_NEQ_OQ);
  // the 64-bit lane masks as 32-bit lane masks
  auto narrow = [](__m256d m) {
    const __m256 f = _mm256_castpd_ps(m);
    return _mm_castps_si128(_mm_shuffle_ps(_mm256_castps256_ps128(f), _mm256_extractf128_ps(f, 1), _MM_SHUFFLE(2, 0, 2, 0)));
  };
  __m128i bits = _mm_add_epi32(_mm_castps_si128(n), narrow(above));  // -1 where above
  bits = _mm_or_si128(bits, _mm_and_si128(narrow(inexact), _mm_set1_epi32(1)));
  return _mm_castsi128_ps(bits);
}

// S0 + S1 (int32, 8 lanes) times q = 2^(m - 25), rounded to f16 (8 lanes): see the top.
inline __m128i round_f16(__m256i s0, __m256i s1, __m256i m) {
  __m128 f[2];
  for (int h = 0; h < 2; ++h) {
    const __m128i a = h == 0 ? _mm256_castsi256_si128(s0) : _mm256_extracti128_si256(s0, 1);
    const __m128i b = h == 0 ? _mm256_castsi256_si128(s1) : _mm256_extracti128_si256(s1, 1);
    const __m128i mh = h == 0 ? _mm256_castsi256_si128(m) : _mm256_extracti128_si256(m, 1);
    const __m256i qbits = _mm256_slli_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(mh), _mm256_set1_epi64x(1023 - 25)), 52);
    const __m256d x = _mm256_mul_pd(_mm256_add_pd(_mm256_cvtepi32_pd(a), _mm256_cvtepi32_pd(b)), _mm256_castsi256_pd(qbits));
    f[h] = to_f32_odd(x);
  }
  return _mm256_cvtps_ph(_mm256_set_m128(f[1], f[0]), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

using avx2_asm::add_into;  // engine/avx2_asm.hpp
using avx2_asm::max_into;

// One k-step chain on an R x 16 NC tile: C (f16 bits, 16 columns per register) stays in registers.
// As the AVX2 `ada` kernel (kernels_avx2.cpp): maxE on int16 lanes from the decoded ea16 / eb16
// (every e(a) + e(b) fits: -128..16), started at E(C) = max(biased exponent - 15, -14) (a zero or
// subnormal C gives the clamp, harmless: no nonzero term is below it; an Inf / NaN C gives 16 and
// computes garbage, vcvttps2dq of Inf / NaN being 0x80000000 and the int32 adds wrapping, in lanes
// that are passed through at the end).
template <int R, int NC>
void tile(const KStepArgs& g, int r0, int n0) {
  constexpr int NV = 2 * NC;
  const std::ptrdiff_t lda = g.lda, N = g.N;
  __m256i c[R][NC];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NC; ++j) c[r][j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(g.d + (r0 + r) * g.ldd + n0 + 16 * j));
  for (int s = 0; s < g.ksteps; ++s) {
    const std::int16_t* ea = g.ea16 + r0 * lda + 32 * s;
    const float* a = g.a + r0 * lda + 32 * s;
    const std::int16_t* eb = g.eb16 + 32 * N * s + n0;
    const float* b = g.b + 32 * N * s + n0;
    __m256i m[R][NC];
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < NC; ++j) {
        const __m256i biased = _mm256_srli_epi16(_mm256_and_si256(c[r][j], _mm256_set1_epi16(0x7C00)), 10);
        m[r][j] = _mm256_max_epi16(_mm256_sub_epi16(biased, _mm256_set1_epi16(15)), _mm256_set1_epi16(-14));
      }
    for (int k = 0; k < 32; ++k) {
      __m256i ebk[NC];
      for (int j = 0; j < NC; ++j) ebk[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(eb + k * N + 16 * j));
      for (int r = 0; r < R; ++r) {
        const __m256i ear = _mm256_set1_epi16(ea[r * lda + k]);
        for (int j = 0; j < NC; ++j) max_into(m[r][j], _mm256_add_epi16(ear, ebk[j]));
      }
    }
    __m256 scale[R][NV];
    __m256i sum0[R][NV], sum1[R][NV];  // k 0..15 and C; k 16..31 (each exact in int32, see above)
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < NC; ++j)
        for (int h = 0; h < 2; ++h) {
          const int v = 2 * j + h;
          const __m256i m32 = _mm256_cvtepi16_epi32(h == 0 ? _mm256_castsi256_si128(m[r][j]) : _mm256_extracti128_si256(m[r][j], 1));
          scale[r][v] = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(127 + 25), m32), 23));
          const __m256 cf = _mm256_cvtph_ps(h == 0 ? _mm256_castsi256_si128(c[r][j]) : _mm256_extracti128_si256(c[r][j], 1));
          sum0[r][v] = _mm256_cvttps_epi32(_mm256_mul_ps(cf, scale[r][v]));  // truncation toward zero
          sum1[r][v] = _mm256_setzero_si256();
        }
    // k 0..15 into sum0, k 16..31 into sum1 (two loops: a selection inside one made GCC keep the sums
    // in memory)
    for (int k = 0; k < 16; ++k) {
      __m256 bk[NV];
      for (int v = 0; v < NV; ++v) bk[v] = _mm256_loadu_ps(b + k * N + 8 * v);
      for (int r = 0; r < R; ++r) {
        const __m256 ar = _mm256_broadcast_ss(a + r * lda + k);
        for (int v = 0; v < NV; ++v) add_into(sum0[r][v], _mm256_cvttps_epi32(_mm256_mul_ps(_mm256_mul_ps(ar, bk[v]), scale[r][v])));
      }
    }
    for (int k = 16; k < 32; ++k) {
      __m256 bk[NV];
      for (int v = 0; v < NV; ++v) bk[v] = _mm256_loadu_ps(b + k * N + 8 * v);
      for (int r = 0; r < R; ++r) {
        const __m256 ar = _mm256_broadcast_ss(a + r * lda + k);
        for (int v = 0; v < NV; ++v) add_into(sum1[r][v], _mm256_cvttps_epi32(_mm256_mul_ps(_mm256_mul_ps(ar, bk[v]), scale[r][v])));
      }
    }
    __m256i res[R][NC], any_special = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
      for (int j = 0; j < NC; ++j) {
        const __m128i lo = round_f16(sum0[r][2 * j], sum1[r][2 * j], _mm256_cvtepi16_epi32(_mm256_castsi256_si128(m[r][j])));
        const __m128i hi = round_f16(sum0[r][2 * j + 1], sum1[r][2 * j + 1], _mm256_cvtepi16_epi32(_mm256_extracti128_si256(m[r][j], 1)));
        res[r][j] = _mm256_set_m128i(hi, lo);
        any_special = _mm256_or_si256(any_special,
                                      _mm256_cmpeq_epi16(_mm256_and_si256(c[r][j], _mm256_set1_epi16(0x7C00)), _mm256_set1_epi16(0x7C00)));
      }
    if (!_mm256_testz_si256(any_special, any_special))  // special C (rare): Inf stays, NaN becomes 0x7FFF
      for (int r = 0; r < R; ++r)
        for (int j = 0; j < NC; ++j) {
          const __m256i special = _mm256_cmpeq_epi16(_mm256_and_si256(c[r][j], _mm256_set1_epi16(0x7C00)), _mm256_set1_epi16(0x7C00));
          const __m256i mant_zero = _mm256_cmpeq_epi16(_mm256_and_si256(c[r][j], _mm256_set1_epi16(0x03FF)), _mm256_setzero_si256());
          res[r][j] = _mm256_blendv_epi8(res[r][j], c[r][j], special);
          res[r][j] = _mm256_blendv_epi8(res[r][j], _mm256_set1_epi16(static_cast<short>(kF16CanonicalNaN)),
                                         _mm256_andnot_si256(mant_zero, special));
        }
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < NC; ++j) c[r][j] = res[r][j];
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NC; ++j) _mm256_storeu_si256(reinterpret_cast<__m256i*>(g.d + (r0 + r) * g.ldd + n0 + 16 * j), c[r][j]);
}

// Column strips outer (B's strip stays in the caches across the row tiles), R rows at a time.
template <int R, int NC>
void strip(const KStepArgs& g, int n0) {
  int r = 0;
  for (; r + R <= g.rows; r += R) tile<R, NC>(g, r, n0);
  for (; r < g.rows; ++r) tile<1, NC>(g, r, n0);
}

}  // namespace blackwell_detail

// The KStepKernel of the `blackwell` profile (AVX2): reads a, b and ea16, eb16; 2 x 32 tiles.
void blackwell_kstep(const KStepArgs& g) {
  int n0 = 0;
  for (; n0 + 32 <= g.N; n0 += 32) blackwell_detail::strip<2, 2>(g, n0);
  for (; n0 < g.N; n0 += 16) blackwell_detail::strip<2, 1>(g, n0);
}

}  // namespace
}  // namespace rrswin::engine

#else  // portable C++ (the scalar unit)

namespace rrswin::engine {
namespace {
namespace blackwell_detail {

// The bit conversions (float_of, double_of, h2f, d2h) are engine/f16_bits.hpp's.

constexpr int kNB = 16;  // columns per tile (N is a multiple of 16)

template <int R>
void tile(const KStepArgs& g, int r0, int n0) {
  f16_t c[R][kNB];
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < kNB; ++n) c[r][n] = g.d[(r0 + r) * g.ldd + n0 + n];
  for (int s = 0; s < g.ksteps; ++s) {
    const float* a = g.a + 32 * s;
    const float* ea = g.ea + 32 * s;
    const float* b = g.b + static_cast<std::ptrdiff_t>(32) * g.N * s;
    const float* eb = g.eb + static_cast<std::ptrdiff_t>(32) * g.N * s;
    float mx[R][kNB], scale[R][kNB];
    std::int32_t sum0[R][kNB], sum1[R][kNB];
    for (int r = 0; r < R; ++r)
      for (int n = 0; n < kNB; ++n) {
        const int ef = (c[r][n] >> 10) & 31;
        mx[r][n] = ef == 0 ? -14.0f : static_cast<float>(ef - 15);  // E(C); zero and subnormal: the clamp
      }
    for (int k = 0; k < 32; ++k) {
      const float* ebk = eb + k * g.N + n0;
      for (int r = 0; r < R; ++r) {
        const float e_a = ea[(r0 + r) * g.lda + k];
        for (int n = 0; n < kNB; ++n) {
          const float e = e_a + ebk[n];
          mx[r][n] = e > mx[r][n] ? e : mx[r][n];
        }
      }
    }
    for (int r = 0; r < R; ++r)
      for (int n = 0; n < kNB; ++n) {
        const auto m = static_cast<std::int32_t>(mx[r][n]);
        scale[r][n] = float_of(static_cast<std::uint32_t>(127 + 25 - m) << 23);
        const f16_t h = c[r][n];
        const float cf = (h & 0x7C00) == 0x7C00 ? 0.0f : h2f(h);
        sum0[r][n] = static_cast<std::int32_t>(cf * scale[r][n]);  // truncation toward zero
        sum1[r][n] = 0;
      }
    for (int k = 0; k < 16; ++k) {
      const float* bk = b + k * g.N + n0;
      for (int r = 0; r < R; ++r) {
        const float ar = a[(r0 + r) * g.lda + k];
        for (int n = 0; n < kNB; ++n) sum0[r][n] += static_cast<std::int32_t>(ar * bk[n] * scale[r][n]);
      }
    }
    for (int k = 16; k < 32; ++k) {
      const float* bk = b + k * g.N + n0;
      for (int r = 0; r < R; ++r) {
        const float ar = a[(r0 + r) * g.lda + k];
        for (int n = 0; n < kNB; ++n) sum1[r][n] += static_cast<std::int32_t>(ar * bk[n] * scale[r][n]);
      }
    }
    for (int r = 0; r < R; ++r)
      for (int n = 0; n < kNB; ++n) {
        const auto m = static_cast<std::int64_t>(mx[r][n]);
        const double q = double_of(static_cast<std::uint64_t>(1023 - 25 + m) << 52);
        const f16_t res = d2h((static_cast<double>(sum0[r][n]) + static_cast<double>(sum1[r][n])) * q);
        const f16_t h = c[r][n];
        const bool special = (h & 0x7C00) == 0x7C00;                  // Inf C passes through
        const f16_t pass = (h & 0x03FF) != 0 ? kF16CanonicalNaN : h;  // NaN -> canonical
        c[r][n] = special ? pass : res;
      }
  }
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < kNB; ++n) g.d[(r0 + r) * g.ldd + n0 + n] = c[r][n];
}

}  // namespace blackwell_detail

// The KStepKernel of the `blackwell` profile (portable): reads a, b and ea, eb.
void blackwell_kstep(const KStepArgs& g) {
  int r = 0;
  for (; r + 4 <= g.rows; r += 4)
    for (int n0 = 0; n0 < g.N; n0 += blackwell_detail::kNB) blackwell_detail::tile<4>(g, r, n0);
  for (; r < g.rows; ++r)
    for (int n0 = 0; n0 < g.N; n0 += blackwell_detail::kNB) blackwell_detail::tile<1>(g, r, n0);
}

}  // namespace
}  // namespace rrswin::engine

#endif
