// The `hopper` k-step kernel (numerics.md "hopper"), included by the scalar and AVX2 translation
// units (kernels_scalar.cpp, kernels_avx2.cpp): AVX2 + FMA + F16C intrinsics where the unit is
// compiled for them (the AVX-512 kernel's structure, kernels_avx512.cpp's hopper_tile, on 256-bit
// registers), otherwise portable C++. The AVX-512 unit has its own kernel with the same arithmetic.
// Self-contained, internal linkage only (see kernel_args.hpp for why no inline library code may be
// shared between the units).
//
// The model, per k-step and output element (k in the ISA order of the step):
//   p1 = hmma(G1, +0), p2 = hmma(G2, p1), D = f16 add(p2, C); G1 = {k : k mod 4 in {0, 1}}, G2 the
//   rest; hmma(G, acc) = f16_RN(sum over the nonzero terms t of trunc_q(t)), q = 2^(maxE - 25),
//   E(product) = e(a) + e(b) with e = floor(log2|x|) of the operand as f16 (an e4m3 subnormal is an
//   f16 normal), E(acc) = max(floor(log2|acc|), -14).
//
// Exactness (about values, not the order of operations): every e4m3 value is a binary32 normal
// (or zero), so e(x) is its binary32 exponent field - 127 (a zero gives -127, which puts its
// "product" below every real E >= -18 and its value is 0 anyway). A product is ma mb 2^(E - 6)
// with integers 8 <= ma, mb <= 15, exact in binary32 (at most 8 significant bits). With m =
// max(maxE, -18) (no nonzero term has E below -18) and scale = 1/q = 2^(25 - m):
//   t * scale = ma mb 2^(E - m + 19) <= 225 * 2^19 < 2^27          (exact: a power-of-two scale)
//   acc * scale < 2^(E_acc + 1 + 25 - m) <= 2^26                    (an f16 of 11 bits, exact)
// Truncation toward zero is the float -> int32 conversion (|x| < 2^31), and the sum of at most 16
// products and acc is below 16 * 225 * 2^19 + 2^26 < 1.96e9 < 2^31: exact in int32 in any order.
// S * q is exact in binary64 (S < 2^31, q a power of two in range), and d2h rounds it once to f16
// (RNE, subnormals kept, |x| >= 65520 -> Inf): the model's single rounding. A zero sum is +0: with
// a nonzero term it is a cancellation (the largest term survives truncation: |t| >= 2^E > q), and
// without one every term is a zero product on top of acc = +0 (p1 starts from +0, so p1 is never
// -0, and neither is p2), which is +0 in mma.cpp's IEEE rule too. An infinite acc (p1 after an
// overflow) passes through hmma unchanged (Inf + finite), as in mma.cpp.
// The final add D = p2 + C is binary32 addition of two f16 values rounded once to f16: exact for
// add (numerics.md "f16 arithmetic"), with IEEE zero signs ((+0) + (-0) = +0), Inf + finite = Inf,
// Inf - Inf and NaN C -> 0x7FFF as f16_add. NaN e4m3 codes never reach this kernel (gemm() sends
// such operands, and profiles with non-default mma corners, to mma_dot).
#include <cstddef>
#include <cstdint>

#include "engine/f16_bits.hpp"
#include "engine/kernel_args.hpp"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>

#include "engine/avx2_asm.hpp"

namespace rrswin::engine {
namespace {
namespace hopper_detail {

// The ISA k of the j-th k (j = 0..15) of group grp: k mod 4 in {0, 1} (grp 0) or {2, 3} (grp 1).
constexpr int group_k(int grp, int j) { return 4 * (j >> 1) + (j & 1) + 2 * grp; }

constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// f16 RNE of S q, 8 lanes (S an int32 sum, |S| < 1.96e9 < 2^31; q = 2^(m - 25), -18 <= m <= 16):
// S is rounded to binary32 to odd, multiplied by q (exact: a power of two; every nonzero S q is
// >= 2^-43, a binary32 normal, and below 2^22) and rounded to f16 by vcvtps2ph (RNE, subnormals
// kept, >= 65520 -> Inf). Rounding to odd at 24 bits and then to nearest at 11 bits or fewer is
// the single correct rounding (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums:
// proved algorithms using rounding to odd", IEEE TC 2008), so this is d2h(S * q) of the portable
// kernel below. AVX2 has no conversion with its own rounding: vcvtdq2ps rounds to nearest
// (MXCSR's default, which the engine never changes), its result n is an integer below 2^31, so
// vcvttps2dq gives it back exactly; where |n| > |S| it rounded away from zero and the integer
// decrement of its sign-magnitude bits is the truncation (the next binary32 toward zero: |S|
// lies strictly between the two), and where n != S the last significand bit is set. Of the two
// binary32 neighbours of an inexact S exactly one has that bit set, which is S rounded to odd.
inline __m128i round_f16(__m256i s, __m256 q) {
  const __m256 n = _mm256_cvtepi32_ps(s);
  const __m256i back = _mm256_cvttps_epi32(n);
  const __m256i away = _mm256_cmpgt_epi32(_mm256_abs_epi32(back), _mm256_abs_epi32(s));  // -1 there
  const __m256i inexact_bit = _mm256_andnot_si256(_mm256_cmpeq_epi32(back, s), _mm256_set1_epi32(1));
  const __m256i odd = _mm256_or_si256(_mm256_add_epi32(_mm256_castps_si256(n), away), inexact_bit);
  return _mm256_cvtps_ph(_mm256_mul_ps(_mm256_castsi256_ps(odd), q), kNearest);
}

// One HMMA (group kGroup of k-step s) on an R x 16 tile (2 x 8 lanes): acc (f16) in, the result out
// in place. kFromZero: acc is +0 everywhere (the first group: C is not the first accumulator), so
// it is no term and never special. Otherwise a zero acc is no term either, and an infinite acc
// (the first group overflowed; never NaN: the products are finite) passes through.
template <int R, int kGroup, bool kFromZero>
void hmma_tile(const KStepArgs& g, int r0, int n0, int s, __m128i (&acc)[R][2]) {
  // Extents and pointers in locals, the k of the group constants of the unrolled loops: read
  // through g and multiplied per k, they cost more instructions than the terms (callgrind).
  const std::ptrdiff_t N = g.N, lda = g.lda;
  const std::int16_t* ea = g.hea16 + 32 * s + r0 * lda;
  const std::int16_t* eb = g.heb16 + 32 * N * s + n0;
  const float* a = g.a + 32 * s + r0 * lda;
  const float* b = g.b + 32 * N * s + n0;
  // maxE of the products on int16 lanes, 16 columns per register (every e(a) + e(b) fits: -128 ..
  // 16; a zero operand's -64 keeps its product below every real exponent).
  __m256i m16[R];
  for (int r = 0; r < R; ++r) m16[r] = _mm256_set1_epi16(-128);
#pragma GCC unroll 16
  for (int j = 0; j < 16; ++j) {
    const int k = group_k(kGroup, j);
    const __m256i ebk = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(eb + k * N));
    for (int r = 0; r < R; ++r) avx2_asm::max_into(m16[r], _mm256_add_epi16(_mm256_set1_epi16(ea[r * lda + k]), ebk));
  }
  __m256 scale[R][2], q[R][2];
  __m256i isum[R][2], special[R][2];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < 2; ++v) {
      __m256i m = _mm256_cvtepi16_epi32(v == 0 ? _mm256_castsi256_si128(m16[r]) : _mm256_extracti128_si256(m16[r], 1));
      if constexpr (!kFromZero) {
        // E(acc) = max(floor(log2|acc|), -14). A zero acc is no term, yet gets the clamp -14 here:
        // harmless, since with m <= -14 no term truncates (a product would need E < m - 19 <= -33,
        // but every nonzero one has E >= -18; acc a unit 2^(E(acc) - 10) < q, i.e. E(acc) < m - 15),
        // so S q is the same exact sum for any such m.
        const __m256i h = _mm256_cvtepu16_epi32(acc[r][v]);
        const __m256i biased = _mm256_srli_epi32(_mm256_and_si256(h, _mm256_set1_epi32(0x7C00)), 10);
        m = _mm256_max_epi32(m, _mm256_max_epi32(_mm256_sub_epi32(biased, _mm256_set1_epi32(15)), _mm256_set1_epi32(-14)));
        special[r][v] = _mm256_cmpeq_epi32(biased, _mm256_set1_epi32(31));
      }
      // No nonzero term has E below -18 (e >= -9 each); a lower m (no term at all) gives a zero sum
      // whatever the scale.
      m = _mm256_max_epi32(m, _mm256_set1_epi32(-18));
      scale[r][v] = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(127 + 25), m), 23));
      q[r][v] = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_set1_epi32(127 - 25), m), 23));
      if constexpr (kFromZero) {
        isum[r][v] = _mm256_setzero_si256();
      } else {
        // acc * scale < 2^26, exact; the truncation is the conversion. Inf: computed with 0.
        const __m256 cf = _mm256_andnot_ps(_mm256_castsi256_ps(special[r][v]), _mm256_cvtph_ps(acc[r][v]));
        isum[r][v] = _mm256_cvttps_epi32(_mm256_mul_ps(cf, scale[r][v]));
      }
    }
#pragma GCC unroll 16
  for (int j = 0; j < 16; ++j) {
    const int k = group_k(kGroup, j);
    __m256 bk[2];
    for (int v = 0; v < 2; ++v) bk[v] = _mm256_loadu_ps(b + k * N + 8 * v);
    for (int r = 0; r < R; ++r) {
      const __m256 ar = _mm256_broadcast_ss(a + r * lda + k);
      for (int v = 0; v < 2; ++v)  // (a b) exact, times a power of two exact, truncated by the conversion
        avx2_asm::add_into(isum[r][v], _mm256_cvttps_epi32(_mm256_mul_ps(_mm256_mul_ps(ar, bk[v]), scale[r][v])));
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < 2; ++v) {
      const __m128i h = round_f16(isum[r][v], q[r][v]);
      if constexpr (kFromZero) {
        acc[r][v] = h;
      } else {
        const __m128i special16 = _mm_packs_epi32(_mm256_castsi256_si128(special[r][v]), _mm256_extracti128_si256(special[r][v], 1));
        acc[r][v] = _mm_blendv_epi8(h, acc[r][v], special16);
      }
    }
}

// All k-steps of an R x 16 tile: p1, p2, D = p2 + C (an f16 add: binary32 add of the two f16
// values, exact for add, then one rounding; NaN -> 0x7FFF as f16_add), the chain in registers.
template <int R>
void hopper_tile(const KStepArgs& g, int r0, int n0) {
  __m128i c[R][2];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < 2; ++v) c[r][v] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(g.d + (r0 + r) * g.ldd + n0 + 8 * v));
  for (int s = 0; s < g.ksteps; ++s) {
    __m128i p[R][2];
    hmma_tile<R, 0, true>(g, r0, n0, s, p);   // p1 = hmma(G1, +0)
    hmma_tile<R, 1, false>(g, r0, n0, s, p);  // p2 = hmma(G2, p1)
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < 2; ++v) {
        const __m256 sum = _mm256_add_ps(_mm256_cvtph_ps(p[r][v]), _mm256_cvtph_ps(c[r][v]));
        const __m256i nan32 = _mm256_castps_si256(_mm256_cmp_ps(sum, sum, _CMP_UNORD_Q));
        const __m128i nan16 = _mm_packs_epi32(_mm256_castsi256_si128(nan32), _mm256_extracti128_si256(nan32, 1));
        c[r][v] = _mm_blendv_epi8(_mm256_cvtps_ph(sum, kNearest), _mm_set1_epi16(static_cast<short>(kF16CanonicalNaN)), nan16);
      }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < 2; ++v) _mm_storeu_si128(reinterpret_cast<__m128i*>(g.d + (r0 + r) * g.ldd + n0 + 8 * v), c[r][v]);
}

}  // namespace hopper_detail

// The KStepKernel of the `hopper` profile (AVX2): reads a, b and hea16, heb16 (gemm.hpp: decode_for).
// Column strips outer (a strip of B, K x 16, stays in the caches across the row tiles), as the
// AVX2 `ada` kernel (kernels_avx2.cpp: ada_kstep).
void hopper_kstep(const KStepArgs& g) {
  for (int n0 = 0; n0 < g.N; n0 += 16) {
    int r = 0;
    for (; r + 2 <= g.rows; r += 2) hopper_detail::hopper_tile<2>(g, r, n0);
    for (; r < g.rows; ++r) hopper_detail::hopper_tile<1>(g, r, n0);
  }
}

}  // namespace
}  // namespace rrswin::engine

#else  // portable C++ (the scalar unit)

namespace rrswin::engine {
namespace {
namespace hopper_detail {

constexpr int kNB = 16;  // columns per tile (N is a multiple of 16)

// The ISA k of the j-th k (j = 0..15) of group grp: k mod 4 in {0, 1} (grp 0) or {2, 3} (grp 1).
constexpr int group_k(int grp, int j) { return 4 * (j >> 1) + (j & 1) + 2 * grp; }

// One HMMA of group grp of k-step s on an R x 16 tile: acc (f16) in, result out (may alias).
template <int R>
void hmma_tile(const float* a, int lda, const float* b, int N, int r0, int n0, int grp, const f16_t (&acc)[R][kNB], f16_t (&out)[R][kNB]) {
  std::int32_t mx[R][kNB], sum[R][kNB];
  float scale[R][kNB];
  double q[R][kNB];
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < kNB; ++n) {
      const f16_t h = acc[r][n];
      const int ef = (h >> 10) & 31;
      // E(acc) = max(floor(log2|acc|), -14) for a nonzero finite acc; below everything otherwise.
      mx[r][n] = (h & 0x7FFF) == 0 || ef == 31 ? -127 : ef == 0 ? -14 : ef - 15;
    }
  for (int j = 0; j < 16; ++j) {
    const int k = group_k(grp, j);
    const float* bk = b + k * N + n0;
    for (int r = 0; r < R; ++r) {
      const auto ea = static_cast<std::int32_t>((bits_of(a[(r0 + r) * lda + k]) >> 23) & 0xFF) - 254;
      for (int n = 0; n < kNB; ++n) {
        const std::int32_t e = ea + static_cast<std::int32_t>((bits_of(bk[n]) >> 23) & 0xFF);
        mx[r][n] = e > mx[r][n] ? e : mx[r][n];
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < kNB; ++n) {
      const std::int32_t m = mx[r][n] > -18 ? mx[r][n] : -18;
      scale[r][n] = float_of(static_cast<std::uint32_t>(127 + 25 - m) << 23);
      q[r][n] = static_cast<double>(float_of(static_cast<std::uint32_t>(127 - 25 + m) << 23));
      const f16_t h = acc[r][n];
      const float cf = (h & 0x7C00) == 0x7C00 ? 0.0f : h2f(h);
      sum[r][n] = static_cast<std::int32_t>(cf * scale[r][n]);  // truncation toward zero
    }
  for (int j = 0; j < 16; ++j) {
    const int k = group_k(grp, j);
    const float* bk = b + k * N + n0;
    for (int r = 0; r < R; ++r) {
      const float ar = a[(r0 + r) * lda + k];
      for (int n = 0; n < kNB; ++n) sum[r][n] += static_cast<std::int32_t>(ar * bk[n] * scale[r][n]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < kNB; ++n) {
      const f16_t h = acc[r][n];
      const f16_t res = d2h(static_cast<double>(sum[r][n]) * q[r][n]);
      out[r][n] = (h & 0x7C00) == 0x7C00 ? h : res;  // an infinite acc passes through (never NaN here)
    }
}

template <int R>
void hopper_tile(const KStepArgs& g, int r0, int n0) {
  f16_t c[R][kNB], p[R][kNB];
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < kNB; ++n) c[r][n] = g.d[(r0 + r) * g.ldd + n0 + n];
  for (int s = 0; s < g.ksteps; ++s) {
    const float* a = g.a + 32 * s;
    const float* b = g.b + static_cast<std::ptrdiff_t>(32) * g.N * s;
    for (int r = 0; r < R; ++r)
      for (int n = 0; n < kNB; ++n) p[r][n] = 0x0000;  // C is not the first accumulator: +0
    hmma_tile<R>(a, g.lda, b, g.N, r0, n0, 0, p, p);   // p1
    hmma_tile<R>(a, g.lda, b, g.N, r0, n0, 1, p, p);   // p2
    for (int r = 0; r < R; ++r)
      for (int n = 0; n < kNB; ++n) c[r][n] = f2h(h2f(p[r][n]) + h2f(c[r][n]));  // D = p2 + C (step s+1's C)
  }
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < kNB; ++n) g.d[(r0 + r) * g.ldd + n0 + n] = c[r][n];
}

}  // namespace hopper_detail

// The KStepKernel of the `hopper` profile (portable): reads a, b (binary32 values, ISA k order) only.
void hopper_kstep(const KStepArgs& g) {
  int r = 0;
  for (; r + 4 <= g.rows; r += 4)
    for (int n0 = 0; n0 < g.N; n0 += hopper_detail::kNB) hopper_detail::hopper_tile<4>(g, r, n0);
  for (; r < g.rows; ++r)
    for (int n0 = 0; n0 < g.N; n0 += hopper_detail::kNB) hopper_detail::hopper_tile<1>(g, r, n0);
}

}  // namespace
}  // namespace rrswin::engine

#endif
