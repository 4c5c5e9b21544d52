// The k-step kernels with AVX-512 intrinsics (F, BW, DQ, VL; F16C for the f16 conversions). The
// arithmetic and its exactness are those of kernels_impl.hpp (read its header comment first); this
// file only maps them onto 512-bit registers and register tiles:
//  * `ada`: R rows x 16*NV columns of binary32; per half: the exponent maximum (add, max), the
//    power-of-two scale built in the exponent field, then per term mul, mul by scale, truncation
//    toward zero (vrndscaleps, which keeps the sign of a zero), add.
//  * `hopper`: the same structure per HMMA group (hopper_tile below; the model's proof is in
//    kernels_hopper_impl.hpp, which the scalar and AVX2 paths compile).
// NaN results become the canonical 0x7FFF (vcvtps2ph would keep a payload).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "engine/kernel_args.hpp"

namespace rrswin::engine {
namespace {

constexpr int kRoundNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// The `ada` block maximum maxE of one half for an R x 16*NV tile. The maximum over the 16 k of
// e(a) + e(b) runs on int16 lanes (32 columns per 512-bit register; a zero operand's -64 keeps a
// zero product below every real exponent, and every sum fits int16); then E(acc) = max(biased
// f16 exponent - 15, -14) joins it (subnormals and zero give the clamp -14; special accumulators
// give 16, harmless since their lanes are passed through). Result: int32 lanes, and per element
// whether the half has no nonzero term at all (no nonzero product and acc = +-0), where the
// result is a signed zero (numerics/mma.cpp's zero-sign rule, see ada_tile).
template <int R, int NV>
void exponent_max(const KStepArgs& g, int r0, int n0, const std::int16_t* ea, const std::int16_t* eb, const __m256i (&c)[R][NV],
                  __m512i (&m)[R][NV], __mmask16 (&no_term)[R][NV]) {
  __m512i mp[R][NV];  // products only
  if constexpr (NV == 2) {
    __m512i m16[R];
    for (int r = 0; r < R; ++r) m16[r] = _mm512_set1_epi16(-128);
    for (int k = 0; k < 16; ++k) {
      const __m512i ebk = _mm512_loadu_si512(eb + k * g.N + n0);
      for (int r = 0; r < R; ++r) m16[r] = _mm512_max_epi16(m16[r], _mm512_add_epi16(_mm512_set1_epi16(ea[(r0 + r) * g.lda + k]), ebk));
    }
    for (int r = 0; r < R; ++r) {
      mp[r][0] = _mm512_cvtepi16_epi32(_mm512_castsi512_si256(m16[r]));
      mp[r][1] = _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(m16[r], 1));
    }
  } else {
    static_assert(NV == 1);
    __m256i m16[R];
    for (int r = 0; r < R; ++r) m16[r] = _mm256_set1_epi16(-128);
    for (int k = 0; k < 16; ++k) {
      const __m256i ebk = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(eb + k * g.N + n0));
      for (int r = 0; r < R; ++r) m16[r] = _mm256_max_epi16(m16[r], _mm256_add_epi16(_mm256_set1_epi16(ea[(r0 + r) * g.lda + k]), ebk));
    }
    for (int r = 0; r < R; ++r) mp[r][0] = _mm512_cvtepi16_epi32(m16[r]);
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) {
      const __m512i h = _mm512_cvtepu16_epi32(c[r][v]);
      const __m512i biased = _mm512_srli_epi32(_mm512_and_si512(h, _mm512_set1_epi32(0x7C00)), 10);
      const __m512i e_acc = _mm512_max_epi32(_mm512_sub_epi32(biased, _mm512_set1_epi32(15)), _mm512_set1_epi32(-14));
      m[r][v] = _mm512_max_epi32(mp[r][v], e_acc);
      const __mmask16 acc_zero = _mm512_testn_epi32_mask(h, _mm512_set1_epi32(0x7FFF));
      no_term[r][v] = acc_zero & _mm512_cmplt_epi32_mask(mp[r][v], _mm512_set1_epi32(-14));
    }
}

// All k-steps and halves of an R x 16*NV tile; the f16 accumulator c stays in registers.
template <int R, int NV>
void ada_tile(const KStepArgs& g, int r0, int n0) {
  __m512 mx[R][NV], scale[R][NV];
  __m256i c[R][NV];
  __mmask16 special[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) c[r][v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(g.d + (r0 + r) * g.ldd + n0 + 16 * v));
  for (int half = 0; half < 2 * g.ksteps; ++half) {
    const int k0 = 32 * (half >> 1) + 16 * (half & 1);  // column of A / row of B where the half starts
    const std::int16_t* ea = g.ea16 + k0;
    const float* a = g.a + k0;
    const std::int16_t* eb = g.eb16 + static_cast<std::ptrdiff_t>(k0) * g.N;
    const float* b = g.b + static_cast<std::ptrdiff_t>(k0) * g.N;
    __m512i m[R][NV];  // maxE per element, int32
    __mmask16 no_term[R][NV];
    exponent_max<R, NV>(g, r0, n0, ea, eb, c, m, no_term);
    __m512i isum[R][NV];  // the sum of the truncated scaled terms, as int32 (exact: below 2^20)
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v) {
        // Inf / NaN accumulators pass through (blended back at the end); compute with 0 there.
        const __m256i ef = _mm256_and_si256(c[r][v], _mm256_set1_epi16(0x7C00));
        special[r][v] = _mm256_cmpeq_epi16_mask(ef, _mm256_set1_epi16(0x7C00));
        const __m512 cf = _mm512_maskz_mov_ps(static_cast<__mmask16>(~special[r][v]), _mm512_cvtph_ps(c[r][v]));
        scale[r][v] = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_sub_epi32(_mm512_set1_epi32(127 + 13), m[r][v]), 23));
        mx[r][v] = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_set1_epi32(127 - 13), m[r][v]), 23));  // q
        // vcvttps2dq truncates toward zero: one uop where vrndscaleps + vaddps took three.
        isum[r][v] = _mm512_cvttps_epi32(_mm512_mul_ps(cf, scale[r][v]));
      }
    for (int k = 0; k < 16; ++k) {
      __m512 bk[NV];
      for (int v = 0; v < NV; ++v) bk[v] = _mm512_loadu_ps(b + k * g.N + n0 + 16 * v);
      for (int r = 0; r < R; ++r) {
        const __m512 ar = _mm512_set1_ps(a[(r0 + r) * g.lda + k]);
        for (int v = 0; v < NV; ++v) {
          const __m512 t = _mm512_mul_ps(_mm512_mul_ps(ar, bk[v]), scale[r][v]);
          isum[r][v] = _mm512_add_epi32(isum[r][v], _mm512_cvttps_epi32(t));
        }
      }
    }
    // An integer sum has no signed zero. A zero sum with a nonzero term is +0 (a cancellation, see
    // kernels_impl.hpp), which the conversion gives; with no nonzero term mma.cpp returns -0 exactly
    // when acc and every product are -0, which is the IEEE sum of those zeros: computed here, for
    // the (rare) tiles that have such an element.
    __mmask16 any_zero_case = 0;
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v) any_zero_case |= no_term[r][v];
    __m512 zsum[R][NV];
    if (any_zero_case) {
      for (int r = 0; r < R; ++r)
        for (int v = 0; v < NV; ++v) zsum[r][v] = _mm512_cvtph_ps(c[r][v]);
      for (int k = 0; k < 16; ++k)
        for (int r = 0; r < R; ++r) {
          const __m512 ar = _mm512_set1_ps(a[(r0 + r) * g.lda + k]);
          for (int v = 0; v < NV; ++v)
            zsum[r][v] = _mm512_add_ps(zsum[r][v], _mm512_mul_ps(ar, _mm512_loadu_ps(b + k * g.N + n0 + 16 * v)));
        }
    }
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v) {
        const __m512 sum = _mm512_cvtepi32_ps(isum[r][v]);  // exact
        __m256i h = _mm512_cvtps_ph(_mm512_mul_ps(sum, mx[r][v]), kRoundNearest);
        if (any_zero_case) {
          const __m256i zero_bits =
              _mm256_and_si256(_mm512_cvtps_ph(zsum[r][v], kRoundNearest), _mm256_set1_epi16(static_cast<short>(0x8000)));
          h = _mm256_mask_blend_epi16(no_term[r][v], h, zero_bits);
        }
        // Special accumulators: Inf stays, NaN becomes 0x7FFF.
        const __m256i is_nan_bits = _mm256_and_si256(c[r][v], _mm256_set1_epi16(0x03FF));
        const __mmask16 nan = special[r][v] & _mm256_test_epi16_mask(is_nan_bits, is_nan_bits);
        h = _mm256_mask_blend_epi16(special[r][v], h, c[r][v]);
        c[r][v] = _mm256_mask_blend_epi16(nan, h, _mm256_set1_epi16(0x7FFF));
      }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) _mm256_storeu_si256(reinterpret_cast<__m256i*>(g.d + (r0 + r) * g.ldd + n0 + 16 * v), c[r][v]);
}

template <int R, int NV>
void ada_rows(const KStepArgs& g, int r0) {
  for (int n0 = 0; n0 + 16 * NV <= g.N; n0 += 16 * NV) ada_tile<R, NV>(g, r0, n0);
  if constexpr (NV > 1) {
    for (int n0 = g.N - g.N % (16 * NV); n0 < g.N; n0 += 16) ada_tile<R, 1>(g, r0, n0);
  }
}

void ada_kstep(const KStepArgs& g) {
  int r = 0;
  for (; r + 4 <= g.rows; r += 4) ada_rows<4, 2>(g, r);
  for (; r < g.rows; ++r) ada_rows<1, 2>(g, r);
}

// ---- `hopper` (numerics.md "hopper"; the model and its exactness proof: kernels_hopper_impl.hpp) ----
// The portable kernel's arithmetic in ada_tile's structure: per k-step two HMMA groups of 16 k
// (k mod 4 in {0, 1}, then {2, 3}), each the exponent maximum on int16 lanes (the decoded `hopper`
// exponents, -64 for a zero), the power-of-two scale 2^(25 - m) built in the exponent field, per
// term mul, mul by the scale and vcvttps2dq into an exact int32 sum (< 2^31, see the proof), then
// one rounding to f16 (hopper_round); the final f16 add of C and the chain stay in registers.

// The ISA k of the j-th k (j = 0..15) of group grp: k mod 4 in {0, 1} (grp 0) or {2, 3} (grp 1).
constexpr int hopper_group_k(int grp, int j) { return 4 * (j >> 1) + (j & 1) + 2 * grp; }

// f16 RNE of S q (S an int32 sum, |S| < 2^31; q = 2^(m - 25) with -18 <= m <= 16): S is converted
// to binary32 rounded to odd (truncation toward zero, vcvtdq2ps {rz}, then the last significand bit
// set where that was inexact; the truncated value is an integer below 2^31, so converting it back
// is exact and tells whether it was), multiplied by q (exact: a power of two, the product stays a
// binary32 normal, >= 2^-43 or zero, < 2^22), and rounded to f16 by vcvtps2ph (RNE, subnormals
// kept, >= 65520 -> Inf). Rounding to odd at 24 bits and then to nearest at 11 bits or fewer is
// the single correct rounding (round-to-odd with at least two extra bits: Boldo & Melquiond,
// "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd", IEEE TC
// 2008), so this is kernels_hopper_impl.hpp's d2h(S * q).
inline __m256i hopper_round(__m512i s, __m512 q) {
  const __m512 t = _mm512_cvt_roundepi32_ps(s, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __mmask16 inexact = _mm512_cmpneq_epi32_mask(_mm512_cvttps_epi32(t), s);
  const __m512i tb = _mm512_castps_si512(t);
  const __m512 odd = _mm512_castsi512_ps(_mm512_mask_or_epi32(tb, inexact, tb, _mm512_set1_epi32(1)));
  return _mm512_cvtps_ph(_mm512_mul_ps(odd, q), kRoundNearest);
}

// One HMMA (group grp of k-step s) on an R x 16*NV tile: acc (f16) in, the result out in place.
// kFromZero: acc is +0 everywhere (the first group: C is not the first accumulator), so it is no
// term and never special. Otherwise a zero acc is no term either, and an infinite acc (the first
// group overflowed; never NaN: the products are finite) passes through.
template <int R, int NV, bool kFromZero>
void hopper_group(const KStepArgs& g, int r0, int n0, int s, int grp, __m256i (&acc)[R][NV]) {
  const std::int16_t* ea = g.hea16 + 32 * s;
  const std::int16_t* eb = g.heb16 + static_cast<std::ptrdiff_t>(32) * g.N * s;
  const float* a = g.a + 32 * s;
  const float* b = g.b + static_cast<std::ptrdiff_t>(32) * g.N * s;
  // maxE of the products on int16 lanes (every e(a) + e(b) fits: -128 .. 16).
  __m512i mp[R][NV];
  if constexpr (NV == 2) {
    __m512i m16[R];
    for (int r = 0; r < R; ++r) m16[r] = _mm512_set1_epi16(-128);
    for (int j = 0; j < 16; ++j) {
      const int k = hopper_group_k(grp, j);
      const __m512i ebk = _mm512_loadu_si512(eb + k * g.N + n0);
      for (int r = 0; r < R; ++r) m16[r] = _mm512_max_epi16(m16[r], _mm512_add_epi16(_mm512_set1_epi16(ea[(r0 + r) * g.lda + k]), ebk));
    }
    for (int r = 0; r < R; ++r) {
      mp[r][0] = _mm512_cvtepi16_epi32(_mm512_castsi512_si256(m16[r]));
      mp[r][1] = _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(m16[r], 1));
    }
  } else {
    static_assert(NV == 1);
    __m256i m16[R];
    for (int r = 0; r < R; ++r) m16[r] = _mm256_set1_epi16(-128);
    for (int j = 0; j < 16; ++j) {
      const int k = hopper_group_k(grp, j);
      const __m256i ebk = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(eb + k * g.N + n0));
      for (int r = 0; r < R; ++r) m16[r] = _mm256_max_epi16(m16[r], _mm256_add_epi16(_mm256_set1_epi16(ea[(r0 + r) * g.lda + k]), ebk));
    }
    for (int r = 0; r < R; ++r) mp[r][0] = _mm512_cvtepi16_epi32(m16[r]);
  }
  __m512 scale[R][NV], q[R][NV];
  __m512i isum[R][NV];
  __mmask16 special[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) {
      __m512i m = mp[r][v];
      if constexpr (!kFromZero) {
        // E(acc) = max(floor(log2|acc|), -14) for a nonzero finite acc; a zero acc is no term.
        const __m512i h = _mm512_cvtepu16_epi32(acc[r][v]);
        const __m512i biased = _mm512_srli_epi32(_mm512_and_si512(h, _mm512_set1_epi32(0x7C00)), 10);
        const __m512i e_acc = _mm512_max_epi32(_mm512_sub_epi32(biased, _mm512_set1_epi32(15)), _mm512_set1_epi32(-14));
        const __mmask16 nonzero = _mm512_test_epi32_mask(h, _mm512_set1_epi32(0x7FFF));
        m = _mm512_mask_max_epi32(m, nonzero, m, e_acc);
        special[r][v] = _mm512_cmpeq_epi32_mask(biased, _mm512_set1_epi32(31));
      }
      // No nonzero term has E below -18 (e >= -9 each); a lower m (no term at all) gives a zero sum
      // whatever the scale.
      m = _mm512_max_epi32(m, _mm512_set1_epi32(-18));
      scale[r][v] = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_sub_epi32(_mm512_set1_epi32(127 + 25), m), 23));
      q[r][v] = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_set1_epi32(127 - 25), m), 23));
      if constexpr (kFromZero) {
        isum[r][v] = _mm512_setzero_si512();
      } else {
        // acc * scale < 2^26, exact; the truncation is the conversion. Inf: computed with 0.
        const __m512 cf = _mm512_maskz_mov_ps(static_cast<__mmask16>(~special[r][v]), _mm512_cvtph_ps(acc[r][v]));
        isum[r][v] = _mm512_cvttps_epi32(_mm512_mul_ps(cf, scale[r][v]));
      }
    }
  for (int j = 0; j < 16; ++j) {
    const int k = hopper_group_k(grp, j);
    __m512 bk[NV];
    for (int v = 0; v < NV; ++v) bk[v] = _mm512_loadu_ps(b + k * g.N + n0 + 16 * v);
    for (int r = 0; r < R; ++r) {
      const __m512 ar = _mm512_set1_ps(a[(r0 + r) * g.lda + k]);
      for (int v = 0; v < NV; ++v)  // (a b) exact, times a power of two exact, truncated by the conversion
        isum[r][v] = _mm512_add_epi32(isum[r][v], _mm512_cvttps_epi32(_mm512_mul_ps(_mm512_mul_ps(ar, bk[v]), scale[r][v])));
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) {
      const __m256i h = hopper_round(isum[r][v], q[r][v]);
      if constexpr (kFromZero)
        acc[r][v] = h;
      else
        acc[r][v] = _mm256_mask_blend_epi16(special[r][v], h, acc[r][v]);
    }
}

// All k-steps of an R x 16*NV tile: p1, p2, D = p2 + C (an f16 add: binary32 add of the two f16
// values, exact for add, then one rounding; NaN -> 0x7FFF as f16_add), the chain in registers.
template <int R, int NV>
void hopper_tile(const KStepArgs& g, int r0, int n0) {
  __m256i c[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) c[r][v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(g.d + (r0 + r) * g.ldd + n0 + 16 * v));
  for (int s = 0; s < g.ksteps; ++s) {
    __m256i p[R][NV];
    hopper_group<R, NV, true>(g, r0, n0, s, 0, p);   // p1 = hmma(G1, +0)
    hopper_group<R, NV, false>(g, r0, n0, s, 1, p);  // p2 = hmma(G2, p1)
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v) {
        const __m512 sum = _mm512_add_ps(_mm512_cvtph_ps(p[r][v]), _mm512_cvtph_ps(c[r][v]));
        const __mmask16 nan = _mm512_cmp_ps_mask(sum, sum, _CMP_UNORD_Q);
        c[r][v] = _mm256_mask_blend_epi16(nan, _mm512_cvtps_ph(sum, kRoundNearest), _mm256_set1_epi16(0x7FFF));
      }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) _mm256_storeu_si256(reinterpret_cast<__m256i*>(g.d + (r0 + r) * g.ldd + n0 + 16 * v), c[r][v]);
}

template <int R, int NV>
void hopper_rows(const KStepArgs& g, int r0) {
  for (int n0 = 0; n0 + 16 * NV <= g.N; n0 += 16 * NV) hopper_tile<R, NV>(g, r0, n0);
  if constexpr (NV > 1) {
    for (int n0 = g.N - g.N % (16 * NV); n0 < g.N; n0 += 16) hopper_tile<R, 1>(g, r0, n0);
  }
}

// Reads a, b and hea16, heb16 only (gemm.hpp: decode_for).
void hopper_kstep_avx512(const KStepArgs& g) {
  int r = 0;
  for (; r + 4 <= g.rows; r += 4) hopper_rows<4, 2>(g, r);
  for (; r < g.rows; ++r) hopper_rows<1, 2>(g, r);
}

}  // namespace

KernelSet kernels_avx512() {
  // The epilogues, E61's pixels and the operand decoder are the AVX2 + F16C ones (8- and 16-lane
  // f16 vectors). So are `zluda` and `blackwell`, the AVX2 kernels on the `zluda` integer sums
  // (kernels_zluda_int16_avx2_impl.hpp, kernels_blackwell_int16_avx2_impl.hpp): on Zen 4 they ran
  // 1.5x faster than the binary64 and binary32 AVX-512 kernels this unit had (docs/performance.md
  // "SIMD paths").
  const KernelSet avx2 = kernels_avx2();
  return {.zluda = avx2.zluda,
          .ada = ada_kstep,
          .e11_rows = avx2.e11_rows,
          .rms_rows = avx2.rms_rows,
          .decode_run = avx2.decode_run,
          .add_rows = avx2.add_rows,
          .hopper = hopper_kstep_avx512,
          .blackwell = avx2.blackwell,
          .e61_pixels = avx2.e61_pixels,
          .decoder_pixels = avx2.decoder_pixels,
          .e62_lanes = avx2.e62_lanes};
}

}  // namespace rrswin::engine
