// The `ada` k-step kernel on int16 lanes (AVX-512 BW + AVX512-VNNI), for the avx512vnni path:
// every term is truncated in integer arithmetic, 16 elements x 2 k per 512-bit register (the k
// pairs of vpdpwssd). Included by kernels_avx512vnni.cpp only; internal linkage (kernel_args.hpp
// says why). The avx512 path keeps kernels_avx512.cpp's binary32 kernel (RRSWIN_SIMD=avx512).
//
// The model (numerics.md `ada`, kernels_impl.hpp's proof of the binary32 form): per half h (ISA k
// 0..15, then 16..31) acc = f16_RN(sum over the terms t of trunc_q(t)), q = 2^(M - 13), M = the
// largest E over the nonzero terms (E = e(a) + e(b) for a product, max(floor(log2|acc|), -14) for
// acc), clamped at -14. An operand is x = +-m 2^(e - 3) with e = e(x) and the integer m <= 15
// (an e4m3 normal: m = 8 + mantissa, e = exponent - 7; a subnormal: m = mantissa, e = -6), so a
// product is +-ma mb 2^(E - 6) and
//   t / q = ma mb 2^(E - M + 7),  trunc(|t| / q) = (ma mb 2^7) >> (M - E)   (a floor: unsigned)
// with ma mb 2^7 <= 15 * 15 * 128 = 28800 < 2^15 and M - E >= 0 (M is the maximum; a zero
// operand's e = -64 keeps E far below it; vpsrlvw gives 0 for counts >= 16, and the zero
// product's 0 whatever the count).
//
// The operand words (gemm.hpp: kDecodeAdaInt16; aw = A's, bw = B's, sa / sb the sign bits):
//   aw = ma << 3 | 0x1000 | (sa ? 0xE000 : 0),     bw = mb << 4 | (sb ? 0xE000 : 0).
// The low 16 bits of aw * bw (vpmullw) are ma mb 2^7: every cross term holds a factor 2^16
// (ma 2^3 * 0xE000 = ma 7 2^16; 0x1000 * mb 2^4 = mb 2^16; the high parts' product 2^25).
// And (aw ^ bw) & 0xF000 (vpternlogd) is 0x1000 = +4096 when sa = sb, 0xF000 = -4096 when not:
// bit 12 is aw's 1, bits 13..15 are sa ^ sb. So vpdpwssd adds 4096 * sign(t) * trunc(|t| / q) for
// two k at once into int32: sign times truncated magnitude is truncation toward zero.
//
// Bounds (int32, no wrap-around needed): |4096 x| <= 4096 * 28800 < 2^27 per term; acc enters as
// 4096 trunc(|acc| / q) with |acc| / q < 2^(E(acc) + 1 - M + 13) <= 2^14; so every partial sum of
// the 16 terms and acc is at most 16 * 4096 * 28800 + 4096 * 2^14 = 1954545664 < 2^31 - 1. The
// sum S = 4096 * (an integer below 2^19) converts to binary32 exactly, S * 2^(M - 25) (= the sum
// of the truncated terms: q / 4096) is exact (M in -14..16: a binary32 normal), and vcvtps2ph is
// the model's one f16 rounding. acc's term is trunc(acc * 2^(13 - M)) by vcvttps2dq as in
// kernels_avx512.cpp, then times 4096.
//
// Zero signs: an integer sum has none. A zero sum with a nonzero term is +0 (the largest term
// survives truncation, so it is a cancellation: +0 in mma.cpp as in IEEE); with no nonzero term
// mma.cpp's sum of signed zeros is -0 exactly when acc = -0 and every product is -0, i.e. sa != sb
// for every k of the half (a product of zeros has the sign sa ^ sb): the AND of aw ^ bw over the
// half's k has bit 15 set exactly then (computed only for registers that have such an element). Inf / NaN accumulators pass
// through (NaN -> 0x7FFF) as in kernels_avx512.cpp; NaN codes never reach the kernel (gemm()
// sends them to mma_dot).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/kernel_args.hpp"

namespace rrswin::engine {
namespace {

// A's k pair (k, k+1) of one row, in both words of every dword (a vpbroadcastd from memory).
inline __m512i pair(const std::int16_t* p) {
  std::int32_t v;
  std::memcpy(&v, p, sizeof v);
  return _mm512_set1_epi32(v);
}

// All k-steps and halves of an R x 16*NV tile; the f16 accumulators c stay in registers.
// One function of ~90 lines on purpose, as blackwell's tile: its stages (the exponent maximum,
// the int16 terms, the per-half rounding) share the R x NV register tiles, which helper
// functions would pass through memory.
template <int R, int NV>
void ada_tile_i16(const KStepArgs& g, int r0, int n0) {
  constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  // word 2i and 2i+1 <- word i: element i's value in both k lanes of its dword
  const __m512i dup =
      _mm512_set_epi16(15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8, 7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
  const std::ptrdiff_t pair_stride = 2 * static_cast<std::ptrdiff_t>(g.N);  // words per k pair of B
  __m256i c[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) c[r][v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(g.d + (r0 + r) * g.ldd + n0 + 16 * v));
  for (int half = 0; half < 2 * g.ksteps; ++half) {
    const int k0 = 32 * (half >> 1) + 16 * (half & 1);
    const std::int16_t* aw = g.aw16 + r0 * g.lda + k0;
    const std::int16_t* ea = g.ea16 + r0 * g.lda + k0;
    const std::int16_t* bw = g.bw16 + static_cast<std::ptrdiff_t>(k0) * g.N + 2 * n0;
    const std::int16_t* eb = g.beb16 + static_cast<std::ptrdiff_t>(k0) * g.N + 2 * n0;
    // The products' maximum of E per element, in both k lanes (E fits int16: -128..16).
    __m512i m[R][NV];
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v) m[r][v] = _mm512_set1_epi16(-128);
    for (int j = 0; j < 8; ++j) {
      __m512i ebj[NV];
      for (int v = 0; v < NV; ++v) ebj[v] = _mm512_loadu_si512(eb + j * pair_stride + 32 * v);
      for (int r = 0; r < R; ++r) {
        const __m512i ear = pair(ea + r * g.lda + 2 * j);
        for (int v = 0; v < NV; ++v) m[r][v] = _mm512_max_epi16(m[r][v], _mm512_add_epi16(ear, ebj[v]));
      }
    }
    __m512i isum[R][NV];
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v) {
        const __m512i mp = _mm512_max_epi16(m[r][v], _mm512_rol_epi32(m[r][v], 16));  // over the 16 k
        // E(acc) = max(biased exponent - 15, -14): zero and subnormals give the clamp, special
        // accumulators 16 (harmless: their lanes are passed through below).
        const __m256i ef = _mm256_and_si256(c[r][v], _mm256_set1_epi16(0x7C00));
        const __m256i e_acc = _mm256_max_epi16(_mm256_sub_epi16(_mm256_srli_epi16(ef, 10), _mm256_set1_epi16(15)), _mm256_set1_epi16(-14));
        m[r][v] = _mm512_max_epi16(mp, _mm512_permutexvar_epi16(dup, _mm512_castsi256_si512(e_acc)));
        const __m512i m32 = _mm512_srai_epi32(m[r][v], 16);
        const __m512 scale = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_sub_epi32(_mm512_set1_epi32(127 + 13), m32), 23));
        isum[r][v] = _mm512_slli_epi32(_mm512_cvttps_epi32(_mm512_mul_ps(_mm512_cvtph_ps(c[r][v]), scale)), 12);
      }
    const __m512i sign_bits = _mm512_set1_epi16(static_cast<short>(0xF000));
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      __m512i bwj[NV], ebj[NV];
      for (int v = 0; v < NV; ++v) {
        bwj[v] = _mm512_loadu_si512(bw + j * pair_stride + 32 * v);
        ebj[v] = _mm512_loadu_si512(eb + j * pair_stride + 32 * v);
      }
      for (int r = 0; r < R; ++r) {
        const __m512i awr = pair(aw + r * g.lda + 2 * j);
        const __m512i ear = pair(ea + r * g.lda + 2 * j);
        for (int v = 0; v < NV; ++v) {
          const __m512i count = _mm512_sub_epi16(m[r][v], _mm512_add_epi16(ear, ebj[v]));
          const __m512i x = _mm512_srlv_epi16(_mm512_mullo_epi16(awr, bwj[v]), count);
          const __m512i y = _mm512_ternarylogic_epi32(awr, bwj[v], sign_bits, 0x28);  // (aw ^ bw) & 0xF000
          isum[r][v] = _mm512_dpwssd_epi32(isum[r][v], x, y);
        }
      }
    }
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v) {
        const __m512i m32 = _mm512_srai_epi32(m[r][v], 16);
        const __m512 q = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_set1_epi32(127 - 13 - 12), m32), 23));
        __m256i h = _mm512_cvtps_ph(_mm512_mul_ps(_mm512_cvtepi32_ps(isum[r][v]), q), kRound);
        // No nonzero term: acc = +-0 (E(acc) = the clamp -14) and no nonzero product (those have
        // E >= -12), i.e. acc = +-0 and M = -14.
        const __mmask16 no_term =
            _mm256_testn_epi16_mask(c[r][v], _mm256_set1_epi16(0x7FFF)) & _mm512_cmpeq_epi32_mask(m32, _mm512_set1_epi32(-14));
        if (no_term) {  // -0 exactly where acc = -0 and sa != sb for all 16 k (the words' bit 15)
          __m512i all = _mm512_set1_epi32(-1);
          for (int jj = 0; jj < 8; ++jj)
            all =
                _mm512_and_si512(all, _mm512_xor_si512(pair(aw + r * g.lda + 2 * jj), _mm512_loadu_si512(bw + jj * pair_stride + 32 * v)));
          const __mmask16 negative = _mm512_movepi32_mask(_mm512_and_si512(all, _mm512_slli_epi32(all, 16)));
          const __mmask16 minus_zero = negative & _mm256_cmpeq_epi16_mask(c[r][v], _mm256_set1_epi16(static_cast<short>(0x8000)));
          h = _mm256_mask_blend_epi16(no_term, h, _mm256_maskz_mov_epi16(minus_zero, _mm256_set1_epi16(static_cast<short>(0x8000))));
        }
        // Special accumulators (rare, so behind a branch): Inf stays, NaN becomes 0x7FFF.
        const __mmask16 special = _mm256_cmpeq_epi16_mask(_mm256_and_si256(c[r][v], _mm256_set1_epi16(0x7C00)), _mm256_set1_epi16(0x7C00));
        if (special) {
          const __mmask16 nan = special & _mm256_test_epi16_mask(c[r][v], _mm256_set1_epi16(0x03FF));
          h = _mm256_mask_blend_epi16(nan, _mm256_mask_blend_epi16(special, h, c[r][v]), _mm256_set1_epi16(0x7FFF));
        }
        c[r][v] = h;
      }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) _mm256_storeu_si256(reinterpret_cast<__m256i*>(g.d + (r0 + r) * g.ldd + n0 + 16 * v), c[r][v]);
}

// 8 rows x 16 columns per tile: 0.90-0.93x of 4 x 32 on K 160 N 480 / K 640 N 160 (fewer B loads
// per k pair at the same count of broadcasts and registers).
template <int R>
void ada_rows_i16(const KStepArgs& g, int r0) {
  for (int n0 = 0; n0 < g.N; n0 += 16) ada_tile_i16<R, 1>(g, r0, n0);
}

// Reads aw16, ea16 (A) and bw16, beb16 (B) only (gemm.hpp: decode_for).
void ada_kstep_int16(const KStepArgs& g) {
  int r = 0;
  for (; r + 8 <= g.rows; r += 8) ada_rows_i16<8>(g, r);
  for (; r < g.rows; ++r) ada_rows_i16<1>(g, r);
}

// e(x) and the mantissa with its implicit bit of 32 codes zero-extended to words (gemm.hpp:
// AOperand::aw16): m = code & 0x7F; mant = m & 7, plus 8 for a normal (m >= 8); e = max(m >> 3,
// 1) - 7, -64 for a zero.
inline void ada_fields(__m512i w, __m512i& mant, __m512i& e, __m512i& sign) {
  const __m512i m = _mm512_and_si512(w, _mm512_set1_epi16(0x7F));
  const __m512i field = _mm512_srli_epi16(m, 3);
  const __mmask32 normal = _mm512_test_epi16_mask(field, field);
  mant = _mm512_mask_blend_epi16(normal, _mm512_and_si512(m, _mm512_set1_epi16(7)),
                                 _mm512_or_si512(_mm512_and_si512(m, _mm512_set1_epi16(7)), _mm512_set1_epi16(8)));
  e = _mm512_sub_epi16(_mm512_max_epi16(field, _mm512_set1_epi16(1)), _mm512_set1_epi16(7));
  e = _mm512_mask_blend_epi16(_mm512_testn_epi16_mask(m, m), e, _mm512_set1_epi16(-64));
  sign = _mm512_and_si512(_mm512_srai_epi16(_mm512_slli_epi16(w, 8), 15), _mm512_set1_epi16(static_cast<short>(0xE000)));
}

}  // namespace

bool ada_forms_a_avx512(const e4m3_t* codes, int K, const std::int16_t* isa_source, std::int16_t* words, std::int16_t* exps) {
  const __m512i idx = _mm512_loadu_si512(isa_source);
  __mmask32 nan = 0;
  for (int k0 = 0; k0 < K; k0 += 32) {
    // the k-step's codes as words, then in the ISA order (word i <- code isa_source[i])
    const __m512i w = _mm512_permutexvar_epi16(idx, _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + k0))));
    nan |= _mm512_cmpeq_epi16_mask(_mm512_and_si512(w, _mm512_set1_epi16(0x7F)), _mm512_set1_epi16(0x7F));
    __m512i mant, e, sign;
    ada_fields(w, mant, e, sign);
    const __m512i word = _mm512_or_si512(_mm512_or_si512(_mm512_slli_epi16(mant, 3), _mm512_set1_epi16(0x1000)), sign);
    _mm512_storeu_si512(words + k0, word);
    _mm512_storeu_si512(exps + k0, e);
  }
  return nan != 0;
}

bool ada_pairs_b_avx512(const e4m3_t* even, const e4m3_t* odd, int N, std::int16_t* words, std::int16_t* exps) {
  // lanes 0..15: the even row's codes n0.., lanes 16..31: the odd row's; out word 2j + h <- lane 16 h + j
  alignas(64) static constexpr std::int16_t kInterleave[32] = {0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,  21, 6,  22, 7,  23,
                                                               8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
  const __m512i idx = _mm512_load_si512(kInterleave);
  __mmask32 nan = 0;
  for (int n0 = 0; n0 < N; n0 += 16) {
    const __m128i ce = _mm_loadu_si128(reinterpret_cast<const __m128i*>(even + n0));
    const __m128i co = _mm_loadu_si128(reinterpret_cast<const __m128i*>(odd + n0));
    const __m512i w = _mm512_cvtepu8_epi16(_mm256_inserti128_si256(_mm256_castsi128_si256(ce), co, 1));
    nan |= _mm512_cmpeq_epi16_mask(_mm512_and_si512(w, _mm512_set1_epi16(0x7F)), _mm512_set1_epi16(0x7F));
    __m512i mant, e, sign;
    ada_fields(w, mant, e, sign);
    const __m512i word = _mm512_or_si512(_mm512_slli_epi16(mant, 4), sign);
    _mm512_storeu_si512(words + 2 * n0, _mm512_permutexvar_epi16(idx, word));
    _mm512_storeu_si512(exps + 2 * n0, _mm512_permutexvar_epi16(idx, e));
  }
  return nan != 0;
}

}  // namespace rrswin::engine
