// The `zluda` k-step kernel on AVX512-VNNI integer dot products (vpdpwssd: 32 int16 products
// into 16 int32 lanes per instruction, against 8 binary64 FMAs), for the avx512vnni path; its `ada`
// kernel is kernels_ada_int16_impl.hpp's, and every other kernel of the path is the avx512 one.
// Selected only where CPUID reports AVX512-VNNI (simd.cpp); RRSWIN_SIMD=avx512 turns it off.
//
// Exactness (numerics.md `zluda`: D = f16_RN(f32_RN(exact(C + sum of 32 products)))). An e4m3
// value is M 2^(sh - 9) with an integer M <= 15 and a shift 0 <= sh <= 14 (gemm.hpp:
// AOperand::i16). Per k-step, A's row r holds A_k = +-M_k << (sh_k - alpha) with alpha = the
// smallest shift of its nonzero values, and B holds B_kn = +-M << (sh - beta) with beta = the
// smallest over the whole k-step; both are int16 exactly when the shifts span at most 12 values
// (15 << 11 = 30720 <= 32767), otherwise the operand says so (l1 / max = -1). Then
//   sum_k a_k b_kn = 2^(alpha + beta - 18) sum_k A_k B_kn,
// and |sum_k A_k B_kn| <= sum_k |A_k| max |B| = l1(r) max(B) (and so is every partial sum). Where
// l1 max < 2^31 (checked per tile and k-step, below) the int32 lanes of vpdpwssd (products of
// int16 exact in 32 bits, additions wrapping, not saturating) hold the exact integer sum:
// modular arithmetic is exact when the true value is in range. Converting it to binary64 is exact
// (< 2^31), the power-of-two scale is exact (a multiple of 2^-18 far inside the range), and the FMA
// with C (f16 -> binary64 exact) adds exactly: every partial sum of C and products is a multiple
// of 2^-24 below 2^22.8, 47 significant bits (kernels_impl.hpp's proof). The binary64 -> binary32
// -> f16 conversions are the model's two roundings, as in kernels_avx512.cpp. Where every integer
// sum of a tile is below 2^24 it is exact in binary32 as well, and one binary32 FMA (sum times the
// scale, plus C) rounds the exact value once: the same f32_RN, cheaper.
// Signs of zero: an integer sum has none. A zero integer sum plus C is C's zero sign under IEEE
// addition ((+0) + C), which is right except where C = -0 and every product is -0 as well
// (mma.cpp: -0 only when C and all products are -0); tiles with an element whose integer sum is 0
// and whose C is -0 take the binary64 step instead, as do tiles whose operands have no int16 form
// or exceed the int32 bound. An infinite C stays infinite and a NaN C gives 0x7FFF, as in the
// binary64 kernel; NaN codes never reach the kernels (gemm() sends them to mma_dot).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <algorithm>

#include "engine/e61_lanes_impl.hpp"
#include "engine/kernel_args.hpp"
#include "model/constants.hpp"
#include "model/e61_pixel_impl.hpp"
#include "numerics/approx.hpp"
#include "numerics/f16.hpp"

namespace rrswin::engine {
namespace {

constexpr int kRoundNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// f16(x) of 16 binary32 lanes (cvt.rn.f16.f32 = f32_to_f16: RNE, subnormals kept, overflow to
// Inf); NaN -> 0x7FFF.
inline __m256i f16_of_f32(__m512 x) {
  return _mm256_mask_blend_epi16(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), _mm512_cvtps_ph(x, kRoundNearest), _mm256_set1_epi16(0x7FFF));
}
// x rounded to f16 and back (one f16 rounding of a binary32 result).
inline __m512 rnd16(__m512 x) { return _mm512_cvtph_ps(_mm512_cvtps_ph(x, kRoundNearest)); }
// Two 8-column f16 vectors (rows r and r + 1) as the words 0..7 and 8..15 of one register, and
// as binary32 lanes.
inline __m256i load_bits8x2(const f16_t* lo, const f16_t* hi) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(lo))),
                                 _mm_loadu_si128(reinterpret_cast<const __m128i*>(hi)), 1);
}
inline __m512 load_h8x2(const f16_t* lo, const f16_t* hi) { return _mm512_cvtph_ps(load_bits8x2(lo, hi)); }

// f16(f32(x)) of 16 binary64 lanes (lo = lanes 0..7); NaN -> 0x7FFF.
inline __m256i round_to_f16(__m512d lo, __m512d hi) {
  const __m512 f = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
  return f16_of_f32(f);
}

inline __m512d low8_pd(__m512 f) { return _mm512_cvtps_pd(_mm512_castps512_ps256(f)); }
inline __m512d high8_pd(__m512 f) { return _mm512_cvtps_pd(_mm512_extractf32x8_ps(f, 1)); }

// k-step s of an R x 16*NV tile in binary64 (kernels_avx512.cpp's `zluda` arithmetic); the f16
// accumulators c in and out. The fallback of the integer step, out of line.
template <int R, int NV>
[[gnu::noinline]] void kstep_f64(const KStepArgs& g, int r0, int n0, int s, __m256i (&c)[R][NV]) {
  __m512d acc[R][2 * NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) {
      const __m512 cf = _mm512_cvtph_ps(c[r][v]);
      acc[r][2 * v] = low8_pd(cf);
      acc[r][2 * v + 1] = high8_pd(cf);
    }
  // The binary64 values: decoded (a64, b64) or looked up from the codes (the VNNI path decodes
  // only the integer form; this step is the exception).
  double bt[32][16 * NV];
  const double* b64 = g.b64 ? g.b64 + static_cast<std::ptrdiff_t>(32) * g.N * s + n0 : &bt[0][0];
  const int ldb = g.b64 ? g.N : 16 * NV;
  if (!g.b64)
    for (int n = 0; n < 16 * NV; ++n)
      for (int k = 0; k < 32; ++k) bt[k][n] = g.value64[g.b_codes[static_cast<std::ptrdiff_t>(n0 + n) * g.ldb_codes + 32 * s + k]];
  for (int k = 0; k < 32; ++k) {
    __m512d b[2 * NV];
    for (int u = 0; u < 2 * NV; ++u) b[u] = _mm512_loadu_pd(b64 + k * ldb + 8 * u);
    for (int r = 0; r < R; ++r) {
      const int at = (r0 + r) * g.lda + 32 * s + k;
      const __m512d a = _mm512_set1_pd(g.a64 ? g.a64[at] : g.value64[g.a_codes[at]]);
      for (int u = 0; u < 2 * NV; ++u) acc[r][u] = _mm512_fmadd_pd(a, b[u], acc[r][u]);  // exact
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) c[r][v] = round_to_f16(acc[r][2 * v], acc[r][2 * v + 1]);
}

// Whether k-step s of rows r0.. r0+R-1 has the int16 form and stays within the int32 bound.
template <int R>
bool integer_step(const KStepArgs& g, int r0, int s) {
  if (g.a16 == nullptr || g.b16_max[s] < 0) return false;
  const int steps = g.lda / 32;
  for (int r = 0; r < R; ++r) {
    const std::int32_t l1 = g.a16_l1[(r0 + r) * steps + s];
    if (l1 < 0 || static_cast<std::int64_t>(l1) * g.b16_max[s] >= (std::int64_t{1} << 31)) return false;
  }
  return true;
}

// All k-steps of an R x 16*NV tile; the f16 accumulators stay in registers between the steps.
template <int R, int NV>
void zluda_tile(const KStepArgs& g, int r0, int n0) {
  __m256i c[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) c[r][v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(g.d + (r0 + r) * g.ldd + n0 + 16 * v));
  const int steps = g.lda / 32;
  for (int s = 0; s < g.ksteps; ++s) {
    if (!integer_step<R>(g, r0, s)) {
      kstep_f64<R, NV>(g, r0, n0, s, c);
      continue;
    }
    // One pointer per A row (its k pairs at constant offsets) and one B pointer stepped by a
    // stride: written with the row and pair products, GCC kept 64 precomputed pair addresses per
    // tile on the stack and reloaded one per broadcast (perf: mov / lea / add ~47 % of this
    // kernel's samples, vpdpwssd 10 %).
    const std::int16_t* ar[R];
    for (int r = 0; r < R; ++r) ar[r] = g.a16 + static_cast<std::ptrdiff_t>(r0 + r) * g.lda + 32 * s;
    const std::int16_t* bp = g.b16 + static_cast<std::ptrdiff_t>(32) * g.N * s + 2 * n0;
    const std::ptrdiff_t bstride = 2 * static_cast<std::ptrdiff_t>(g.N);
    __m512i isum[R][NV];
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v) isum[r][v] = _mm512_setzero_si512();
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) {  // k pairs 2j, 2j + 1 (unrolled: GCC otherwise copies the accumulators every pair)
      __m512i bk[NV];
      for (int v = 0; v < NV; ++v) bk[v] = _mm512_loadu_si512(bp + 32 * v);
      bp += bstride;
      for (int r = 0; r < R; ++r) {
        std::int32_t pair;
        std::memcpy(&pair, ar[r] + 2 * j, 4);
        const __m512i ap = _mm512_set1_epi32(pair);
        for (int v = 0; v < NV; ++v) isum[r][v] = _mm512_dpwssd_epi32(isum[r][v], ap, bk[v]);
      }
    }
    // The zero-sign case (top of the file): an integer sum of 0 on a C of -0.
    __mmask16 minus_zero = 0;
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v)
        minus_zero |= _mm512_testn_epi32_mask(isum[r][v], isum[r][v]) &
                      _mm256_cmpeq_epi16_mask(c[r][v], _mm256_set1_epi16(static_cast<short>(0x8000)));
    if (minus_zero) {
      kstep_f64<R, NV>(g, r0, n0, s, c);
      continue;
    }
    // Where every integer sum of the tile is below 2^24 it is exact in binary32 too, and one
    // binary32 FMA of it (times the power-of-two scale) with C is f32_RN of the exact sum: the
    // model's f32 rounding, without the binary64 detour (which stays for larger sums).
    __mmask16 large = 0;
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v) large |= _mm512_cmpgt_epu32_mask(_mm512_abs_epi32(isum[r][v]), _mm512_set1_epi32(0xFFFFFF));
    if (!large) {
      for (int r = 0; r < R; ++r) {
        const int e = g.a16_base[(r0 + r) * steps + s] + g.b16_base[s] - 18;  // -18 .. 10
        const __m512 scale = _mm512_castsi512_ps(_mm512_set1_epi32((127 + e) << 23));
        for (int v = 0; v < NV; ++v) {
          const __m512 f = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[r][v]), scale, _mm512_cvtph_ps(c[r][v]));
          const __mmask16 nan = _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
          c[r][v] = _mm256_mask_blend_epi16(nan, _mm512_cvtps_ph(f, kRoundNearest), _mm256_set1_epi16(0x7FFF));
        }
      }
      continue;
    }
    for (int r = 0; r < R; ++r) {
      // 2^(alpha + beta - 18), -18 <= alpha + beta - 18 <= 10, from its binary64 exponent field
      const int e = g.a16_base[(r0 + r) * steps + s] + g.b16_base[s] - 18;
      const std::uint64_t bits = static_cast<std::uint64_t>(1023 + e) << 52;
      double scale_d;
      std::memcpy(&scale_d, &bits, 8);
      const __m512d scale = _mm512_set1_pd(scale_d);
      for (int v = 0; v < NV; ++v) {
        const __m512 cf = _mm512_cvtph_ps(c[r][v]);
        const __m512d lo = _mm512_fmadd_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(isum[r][v])), scale, low8_pd(cf));
        const __m512d hi = _mm512_fmadd_pd(_mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(isum[r][v], 1)), scale, high8_pd(cf));
        c[r][v] = round_to_f16(lo, hi);  // exact sums, then the f32 and f16 roundings
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) _mm256_storeu_si256(reinterpret_cast<__m256i*>(g.d + (r0 + r) * g.ldd + n0 + 16 * v), c[r][v]);
}

template <int R>
void zluda_rows(const KStepArgs& g, int r0) {
  int n0 = 0;
  for (; n0 + 32 <= g.N; n0 += 32) zluda_tile<R, 2>(g, r0, n0);
  for (; n0 < g.N; n0 += 16) zluda_tile<R, 1>(g, r0, n0);
}

// Reads the integer form (gemm.hpp: kDecodeInt16) where the operands have it, and a64 / b64 or
// the codes for the binary64 steps.
void zluda_kstep_vnni(const KStepArgs& g) {
  int r = 0;
  for (; r + 4 <= g.rows; r += 4) zluda_rows<4>(g, r);
  for (; r < g.rows; ++r) zluda_rows<1>(g, r);
}

// ---- the integer form's decoders (gemm.hpp: AOperand::i16 / BOperand::i16) ----

// The integer form of 32 codes as int16 lanes, with the shift set of the nonzero ones.
struct IntLanes {
  __m512i mag;  // M
  __m512i sh;   // sh
  __mmask32 neg;
  __mmask32 nan;    // the NaN codes
  unsigned shifts;  // bit sh set for every nonzero value's sh
};
inline IntLanes int_lanes(const e4m3_t* src) {
  const __m512i c = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src)));
  const __m512i m = _mm512_and_si512(c, _mm512_set1_epi16(0x7F));
  const __m512i e = _mm512_srli_epi16(m, 3);
  const __m512i f = _mm512_and_si512(m, _mm512_set1_epi16(7));
  IntLanes l;
  // M = 8 + (m & 7) for an exponent field >= 1, m for a subnormal; sh = max(e - 1, 0)
  l.mag = _mm512_mask_add_epi16(f, _mm512_test_epi16_mask(e, e), f, _mm512_set1_epi16(8));  // f < 8: add = or
  l.sh = _mm512_subs_epu16(e, _mm512_set1_epi16(1));
  l.neg = _mm512_test_epi16_mask(c, _mm512_set1_epi16(0x80));
  l.nan = _mm512_cmpeq_epi16_mask(m, _mm512_set1_epi16(0x7F));
  const __m512i bit = _mm512_maskz_sllv_epi16(_mm512_test_epi16_mask(m, m), _mm512_set1_epi16(1), l.sh);
  const __m512i both = _mm512_or_si512(bit, _mm512_srli_epi32(bit, 16));  // the two halves of each dword
  l.shifts = static_cast<unsigned>(_mm512_reduce_or_epi32(both)) & 0xFFFFu;
  return l;
}
// +-M << (sh - base); values whose sh < base (only zeros, M = 0) give 0 whatever the count.
inline __m512i int_values(const IntLanes& l, int base) {
  const __m512i v = _mm512_sllv_epi16(l.mag, _mm512_sub_epi16(l.sh, _mm512_set1_epi16(static_cast<short>(base))));
  return _mm512_mask_sub_epi16(v, l.neg, _mm512_setzero_si512(), v);
}

}  // namespace

// Same values as gemm.cpp's portable int16_kstep (tested against it: EngineGemm.IntegerFormDecoders).
bool int16_form_a_avx512(const e4m3_t* codes, int groups, std::int16_t* out, std::int8_t* base, std::int32_t* l1) {
  __mmask32 nan = 0;
  for (int i = 0; i < groups; ++i) {
    const IntLanes l = int_lanes(codes + 32 * i);
    nan |= l.nan;
    const int lo = l.shifts ? __builtin_ctz(l.shifts) : 0, hi = l.shifts ? 31 - __builtin_clz(l.shifts) : 0;
    base[i] = static_cast<std::int8_t>(lo);
    if (hi - lo > 11) {  // no int16 form (the values are never read)
      l1[i] = -1;
      continue;
    }
    const __m512i v = int_values(l, lo);
    _mm512_storeu_si512(out + 32 * i, v);
    const __m512i mag = _mm512_madd_epi16(_mm512_abs_epi16(v), _mm512_set1_epi16(1));  // exact: 2 x 30720
    l1[i] = _mm512_reduce_add_epi32(mag);
  }
  return nan != 0;
}

bool int16_form_b_avx512(const e4m3_t* codes, int N, int K, std::int16_t* out, std::int8_t* base, std::int32_t* max) {
  unsigned shifts = 0;
  __mmask32 nan = 0;
  for (int n = 0; n < N; ++n) {
    const IntLanes l = int_lanes(codes + static_cast<std::ptrdiff_t>(n) * K);
    shifts |= l.shifts;
    nan |= l.nan;
  }
  const int lo = shifts ? __builtin_ctz(shifts) : 0, hi = shifts ? 31 - __builtin_clz(shifts) : 0;
  *base = static_cast<std::int8_t>(lo);
  if (hi - lo > 11) {
    *max = -1;
    return nan != 0;
  }
  // Column n's values as 16 k pairs (dwords), pair j to dword N j + n of the step.
  const __m512i index = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32(N));
  __m512i mx = _mm512_setzero_si512();
  for (int n = 0; n < N; ++n) {
    const __m512i v = int_values(int_lanes(codes + static_cast<std::ptrdiff_t>(n) * K), lo);
    mx = _mm512_max_epu16(mx, _mm512_abs_epi16(v));
    _mm512_i32scatter_epi32(out, _mm512_add_epi32(index, _mm512_set1_epi32(n)), v, 4);
  }
  const __m512i m32 = _mm512_max_epu32(_mm512_and_si512(mx, _mm512_set1_epi32(0xFFFF)), _mm512_srli_epi32(mx, 16));
  *max = static_cast<std::int32_t>(_mm512_reduce_max_epu32(m32));
  return nan != 0;
}

// q8 in int16 lanes, 32 values per step. A finite f16 x = (-1)^s 2^(E - 15) (1024 + m) / 1024
// (E >= 1) or m 2^-24 (E = 0); e4m3 has 3 fraction bits and its normals start at 2^-6 (E = 9):
//  * E >= 9: the f16 bits E:m rounded to nearest-even at bit 7 (add 0x3F plus the kept lsb; a
//    carry moves into E, as it should) give (E << 3 | m3); minus 8 << 3 it is the e4m3 code
//    ((E - 8) << 3 | m3), e4m3's exponent bias being 7 against f16's 15. satfinite: codes above
//    0x7E (448; 0x7F is NaN) become 0x7E, Inf included (E = 31 gives 0xB8).
//  * E <= 8: e4m3 subnormals, steps of 2^-9: the code is RNE(|x| 2^9) = RNE((1024 + m) / 2^(16 - E))
//    (0 .. 8; 8 is the code of 2^-6, the smallest normal); for E = 0 the shift of 16 gives 0, and
//    |x| < 2^-14 does round to 0.
//  * the sign bit becomes bit 7 (a -0 result keeps it); a NaN gives 0x7F, or 0x7F | sign where the
//    profile keeps a NaN's sign.
// Checked against numerics' f16_to_e4m3 for every f16 and both forms (EngineF16.Q8RunEqualsNumerics).
namespace {
// The codes of 32 f16 x (the rule above) in the low bytes of int16 lanes; nan_sign is 0x80 in
// every lane where the profile keeps a NaN's sign, else 0.
inline __m512i q8_codes(__m512i x, __m512i nan_sign) {
  const __m512i a = _mm512_and_si512(x, _mm512_set1_epi16(0x7FFF));
  const __m512i sign = _mm512_srli_epi16(_mm512_andnot_si512(_mm512_set1_epi16(0x7FFF), x), 8);
  // E >= 9
  const __m512i r =
      _mm512_add_epi16(_mm512_add_epi16(a, _mm512_set1_epi16(0x3F)), _mm512_and_si512(_mm512_srli_epi16(a, 7), _mm512_set1_epi16(1)));
  const __m512i normal = _mm512_min_epu16(_mm512_sub_epi16(_mm512_srli_epi16(r, 7), _mm512_set1_epi16(0x40)), _mm512_set1_epi16(0x7E));
  // E <= 8: (M + 2^(sh-1) - 1 + the kept lsb) >> sh, M = 1024 + m, sh = 16 - E (< 2^16: no wrap)
  const __m512i sh = _mm512_sub_epi16(_mm512_set1_epi16(16), _mm512_srli_epi16(a, 10));
  const __m512i M = _mm512_or_si512(_mm512_and_si512(a, _mm512_set1_epi16(0x3FF)), _mm512_set1_epi16(0x400));
  const __m512i half =
      _mm512_sub_epi16(_mm512_sllv_epi16(_mm512_set1_epi16(1), _mm512_sub_epi16(sh, _mm512_set1_epi16(1))), _mm512_set1_epi16(1));
  const __m512i lsb = _mm512_and_si512(_mm512_srlv_epi16(M, sh), _mm512_set1_epi16(1));
  const __m512i sub = _mm512_srlv_epi16(_mm512_add_epi16(_mm512_add_epi16(M, half), lsb), sh);
  __m512i code = _mm512_mask_blend_epi16(_mm512_cmpge_epu16_mask(a, _mm512_set1_epi16(0x2400)), sub, normal);
  code = _mm512_or_si512(code, sign);
  return _mm512_mask_blend_epi16(_mm512_cmpgt_epu16_mask(a, _mm512_set1_epi16(0x7C00)), code,
                                 _mm512_or_si512(_mm512_set1_epi16(0x7F), _mm512_and_si512(sign, nan_sign)));
}
inline __m512i q8_nan_sign(bool nan_keeps_sign) { return nan_keeps_sign ? _mm512_set1_epi16(0x80) : _mm512_setzero_si512(); }
}  // namespace

void q8_run_avx512(const f16_t* h, e4m3_t* out, std::size_t n, bool nan_keeps_sign) {
  const __m512i nan_sign = q8_nan_sign(nan_keeps_sign);
  for (std::size_t i = 0; i < n; i += 32) {
    const __mmask32 live = n - i >= 32 ? ~__mmask32{0} : static_cast<__mmask32>((1u << (n - i)) - 1u);
    _mm256_mask_storeu_epi8(out + i, live, _mm512_cvtepi16_epi8(q8_codes(_mm512_maskz_loadu_epi16(live, h + i), nan_sign)));
  }
}

namespace {

// epilogue_impl.hpp's vector interface with F16C (as kernels_avx2.cpp defines it), so that this
// path's E11 can run two rows per 512-bit register and fall back on the 8-lane code.
typedef float V8 __attribute__((vector_size(32)));
inline float from_h(f16_t h) { return _cvtsh_ss(h); }
inline f16_t to_h(float x) { return x != x ? kF16CanonicalNaN : static_cast<f16_t>(_cvtss_sh(x, kRoundNearest)); }
inline V8 load_h8(const f16_t* p) { return (V8)_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
inline V8 rnd(V8 x) { return (V8)_mm256_cvtph_ps(_mm256_cvtps_ph((__m256)x, kRoundNearest)); }
inline void store_h8(f16_t* p, V8 x) {
  const __m256 f = (__m256)x;
  const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(f, f, _CMP_UNORD_Q));
  const __m128i h = _mm256_cvtps_ph(f, kRoundNearest);
  _mm_storeu_si128(
      reinterpret_cast<__m128i*>(p),
      _mm_blendv_epi8(h, _mm_set1_epi16(0x7FFF), _mm_packs_epi32(_mm256_castsi256_si128(nan), _mm256_extracti128_si256(nan, 1))));
}

}  // namespace
}  // namespace rrswin::engine

#include "engine/epilogue_impl.hpp"
#include "engine/kernels_ada_int16_impl.hpp"

namespace rrswin::engine {
namespace {

// E11 on two score rows per 512-bit register: lanes 0..7 hold row r's columns 8i..8i+7 and lanes
// 8..15 row r+1's, so the golden tree (e11_in_lane) and p = e * rcp are epilogue_impl.hpp's
// e11_rows lane for lane (each f16 add a binary32 add and one rounding) in half the
// instructions; the fold across lanes and the reciprocal are its own, per row; q8 by
// q8_run_avx512. With statistics, and for an odd last row, that e11_rows itself. Two register
// pairs (4 rows) per step: on Zen 4 E11 was latency-bound (a row pair's chain of vcvtps2ph /
// vcvtph2ps roundings, each 2 and 1.35 cycles per zmm there), 40.4 -> 33.3 us per block.
// epilogue_impl.hpp's fold_lanes (model/sum_tree.hpp: the butterflies xor 1 and xor 2 across the
// four lanes' f16x2, then lo + hi) of both rows at once: lane pair t of a row is its lanes 2t,
// 2t + 1, so the f16x2 partner t ^ 1 is lane j ^ 2, t ^ 2 is lane j ^ 4, and the halves are lanes
// j, j ^ 1; each add one binary32 add and one rounding to f16, as there. Row r's sum is lane 0,
// row r + 1's lane 8 (NaN -> 0x7FFF, the table index to_h gives).
inline void fold_lanes_x2(__m512 S, f16_t& s0, f16_t& s1) {
  const __m512 u = rnd16(_mm512_add_ps(S, _mm512_permute_ps(S, _MM_SHUFFLE(1, 0, 3, 2))));        // lane j ^ 2
  const __m512 v = rnd16(_mm512_add_ps(u, _mm512_shuffle_f32x4(u, u, _MM_SHUFFLE(2, 3, 0, 1))));  // lane j ^ 4
  const __m512 w = _mm512_add_ps(v, _mm512_permute_ps(v, _MM_SHUFFLE(2, 3, 0, 1)));               // lane j ^ 1
  const __m256i h = f16_of_f32(w);
  s0 = static_cast<f16_t>(_mm256_extract_epi16(h, 0));
  s1 = static_cast<f16_t>(_mm256_extract_epi16(h, 8));
}

// E11 steps 1..5 (golden::e11_expval, facts C4; constants model/constants.hpp) of 16 scores in
// binary32 lanes instead of the 128 KiB e11 table (96 scattered loads per row, most of E11's
// time). Step 1's mul is exact in binary32 (two 11-bit significands), and the clamp (step 2)
// commutes with the rounding to f16 (monotone, the bounds are f16 values), so m = f16(clamp(x s));
// maxps returns its second operand (the bound) for a NaN, as max.f16 returns the non-NaN one.
// The rounding of y to m by Veltkamp's split (c = y (2^13 + 1), m = c - (c - y): y to the nearest
// 11-bit significand in three binary32 operations instead of two conversions; its ties and the
// f16 subnormal range (|y| < 2^-14, where m's later steps round the difference away) are covered
// by the exhaustive test below, not argued).
// Step 3: tt = m*(-m) + q lies in [q - 0.556^2, q] within [0.5, 1), where f16's ulp is 2^-11;
// adding C = 1.5 * 2^12 (exact: q is a multiple of 2^-11) makes the binary32 FMA round the exact
// value once to a multiple of 2^-11 with ties to even at the same bit, i.e. fma.rn.f16's rounding,
// and subtracting C is exact. Step 4's FMA rounded to binary32 and then to f16 (u spans two
// binades) is a double rounding, also checked rather than argued: e11 has only 65536 arguments,
// and EngineE11.ExpvalEqualsGoldenOnEveryPattern compares every one against golden::e11_expval.
// Step 5 (u's mantissa into e's exponent) on the int16 lanes.
struct E11Consts {
  __m512 scale, low, high, quadratic_c, c, linear;
};
inline E11Consts e11_consts() {
  auto f = [](f16_t h) { return f16_to_f32(h); };
  constexpr float kC = 6144.0f;  // 1.5 * 2^12: binary32's ulp at it is 2^-11
  return {_mm512_set1_ps(f(golden::kE11Scale)),
          _mm512_set1_ps(f(golden::kE11ClampLow)),
          _mm512_set1_ps(f(golden::kE11ClampHigh)),
          _mm512_set1_ps(f(golden::kE11Quadratic) + kC),
          _mm512_set1_ps(kC),
          _mm512_set1_ps(f(golden::kE11Linear))};
}
inline __m256i e11_expval16(__m256i s, const E11Consts& k) {
  const __m512 y = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(_mm512_cvtph_ps(s), k.scale), k.low), k.high);  // steps 1, 2
  const __m512 cy = _mm512_mul_ps(y, _mm512_set1_ps(8193.0f));
  const __m512 m = _mm512_sub_ps(cy, _mm512_sub_ps(cy, y));
  const __m512 tt = _mm512_sub_ps(_mm512_fnmadd_ps(m, m, k.quadratic_c), k.c);         // step 3
  const __m256i u = _mm512_cvtps_ph(_mm512_fmadd_ps(m, tt, k.linear), kRoundNearest);  // step 4
  return _mm256_and_si256(_mm256_slli_epi16(u, 5), _mm256_set1_epi16(static_cast<short>(golden::kE11ExponentBits)));
}

void e11_rows_x2(const E11Args& g) {
  if (g.counts || !g.q8_run) {
    e11_rows(g);
    return;
  }
  const f16_t* const s = g.s;
  e4m3_t* const p = g.p;
  const int rows = g.rows;
  const E11Consts k = e11_consts();
  const f16_t* const rcp_table = g.rcp;
  const bool nan_keeps_sign = g.q8_nan_keeps_sign;
  const __m512i nan_sign = q8_nan_sign(nan_keeps_sign);
  // RP register pairs (2 RP rows) per step: each pair is one chain of dependent roundings (the
  // tree, the fold, the reciprocal's lookup, the products), so the pairs' chains overlap.
  auto step = [&]<int RP>(int r) {
    __m512 E[RP][12], S[RP], rf[RP];
    for (int u = 0; u < RP; ++u) {
      const f16_t* const srow = s + (r + 2 * u) * 96;  // rows r + 2u, r + 2u + 1
      for (int i = 0; i < 12; ++i) E[u][i] = _mm512_cvtph_ps(e11_expval16(load_bits8x2(srow + 8 * i, srow + 96 + 8 * i), k));
    }
    for (int u = 0; u < RP; ++u) S[u] = e11_in_lane(E[u], [](__m512 a, __m512 b) { return rnd16(a + b); });
    for (int u = 0; u < RP; ++u) {
      f16_t sum0, sum1;
      fold_lanes_x2(S[u], sum0, sum1);
      const float rf0 = from_h(rcp_table[sum0]), rf1 = from_h(rcp_table[sum1]);
      rf[u] = _mm512_insertf32x8(_mm512_set1_ps(rf0), _mm256_set1_ps(rf1), 1);
    }
    // p = e * rcp and q8(p) in registers: columns 8i..8i+15 of both rows per q8_codes, the codes
    // back in row order (rows r, r + 1: 64-bit quarters 0, 2 and 1, 3).
    for (int u = 0; u < RP; ++u) {
      e4m3_t* const prow = p + (r + 2 * u) * 96;
      auto p16 = [&](int i) { return f16_of_f32(_mm512_mul_ps(E[u][i], rf[u])); };
      for (int i = 0; i < 12; i += 2) {
        const __m512i h = _mm512_inserti64x4(_mm512_castsi256_si512(p16(i)), p16(i + 1), 1);
        const __m256i c = _mm256_permute4x64_epi64(_mm512_cvtepi16_epi8(q8_codes(h, nan_sign)), _MM_SHUFFLE(3, 1, 2, 0));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(prow + 8 * i), _mm256_castsi256_si128(c));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(prow + 96 + 8 * i), _mm256_extracti128_si256(c, 1));
      }
    }
  };
  int r = 0;
  for (; r + 4 <= rows; r += 4) step.template operator()<2>(r);
  for (; r + 2 <= rows; r += 2) step.template operator()<1>(r);
  if (rows % 2) {
    E11Args last = g;
    last.s += (rows - 1) * 96;
    last.p += (rows - 1) * 96;
    last.rows = 1;
    e11_rows(last);
  }
}

// The RMS norms (prologue, E20) on two rows per 512-bit register, as e11_rows_x2: the squares, the
// reading's tree and out = x * (inv * gain) are epilogue_impl.hpp's rms_rows_nt lane for lane (C =
// 8 NT, NT an entry of kFusedNTiles); the fold across lanes and golden::rms_inverse per row; an odd
// last row by rms_rows itself.
template <int NT>
void rms_rows_x2_nt(const RmsArgs& g) {
  constexpr int C = 8 * NT;
  const int rows = g.rows;
  const auto tree = static_cast<SumTree>(g.tree);
  // RP register pairs (2 RP rows) per step, as e11_rows_x2: the pairs' chains of roundings overlap.
  auto step = [&]<int RP>(int r) {
    __m512 S[RP], fi[RP];
    for (int u = 0; u < RP; ++u) {
      const f16_t* const x0 = g.x + (r + 2 * u) * C;
      __m512 T[NT];
      for (int i = 0; i < NT; ++i) {
        const __m512 X = load_h8x2(x0 + 8 * i, x0 + C + 8 * i);
        T[i] = rnd16(X * X);
      }
      S[u] = reduce_in_lane(T, tree, [](__m512 a, __m512 b) { return rnd16(a + b); });
    }
    for (int u = 0; u < RP; ++u) {
      const float i0 = from_h(golden::rms_inverse(fold_lanes((V8)_mm512_castps512_ps256(S[u])), g.eps));
      const float i1 = from_h(golden::rms_inverse(fold_lanes((V8)_mm512_extractf32x8_ps(S[u], 1)), g.eps));
      fi[u] = _mm512_insertf32x8(_mm512_set1_ps(i0), _mm256_set1_ps(i1), 1);
    }
    for (int u = 0; u < RP; ++u) {
      const f16_t* const x0 = g.x + (r + 2 * u) * C;
      f16_t* const out = g.out + (r + 2 * u) * C;
      for (int i = 0; i < NT; ++i) {
        const __m512 y = load_h8x2(x0 + 8 * i, x0 + C + 8 * i) * rnd16(load_h8x2(g.gain + 8 * i, g.gain + 8 * i) * fi[u]);
        const __m256i h = f16_of_f32(y);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 8 * i), _mm256_castsi256_si128(h));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + C + 8 * i), _mm256_extracti128_si256(h, 1));
      }
    }
  };
  int r = 0;
  for (; r + 4 <= rows; r += 4) step.template operator()<2>(r);
  for (; r + 2 <= rows; r += 2) step.template operator()<1>(r);
  if (rows % 2) {
    RmsArgs last = g;
    last.x += (rows - 1) * C;
    last.out += (rows - 1) * C;
    last.rows = 1;
    rms_rows(last);
  }
}
void rms_rows_x2(const RmsArgs& g) {
  with_n_tiles(g.channels / 8, [&]<int NT>() { rms_rows_x2_nt<NT>(g); });
}

// ---- E61 steps 4..6 on 16 pixels (model/e61_pixel_impl.hpp's definition, pixel p in lane p) ----

// f16 of 8 binary64 lanes, round to nearest even: numerics' round_f64_rne (f16.cpp) in 64-bit
// lanes. |r| >= 65520 (Inf included): Inf. A normal f16 (|r| >= 2^-14): the top 10 of the 52
// mantissa bits rounded on the 42 below (+ half - 1 + the kept lsb: ties to even; the carry runs
// into the exponent field, up to Inf), the exponent rebiased. Below 2^-14: |r| + 2^28 in binary64
// is |r| rounded once (RNE) to a multiple of 2^-24, the ulp of [2^28, 2^29), and the bits of that
// sum above 2^28's are the multiple k (0..1024; 1024 is the smallest normal's pattern), i.e. the
// subnormal pattern. NaN -> 0x7FFF. Tested against f64_to_f16 (EngineE61.F64ToF16EqualsNumerics).
inline __m128i f16_of_f64(__m512d r) {
  const __m512i b = _mm512_castpd_si512(r);
  const __m512i a = _mm512_and_si512(b, _mm512_set1_epi64(0x7FFFFFFFFFFFFFFFll));
  const __m512i sign = _mm512_and_si512(_mm512_srli_epi64(b, 48), _mm512_set1_epi64(0x8000));
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi64(a, 42), _mm512_set1_epi64(1));
  const __m512i normal = _mm512_srli_epi64(_mm512_add_epi64(_mm512_sub_epi64(a, _mm512_set1_epi64(static_cast<long long>(1023 - 15) << 52)),
                                                            _mm512_add_epi64(_mm512_set1_epi64(0x1FFFFFFFFFFll), lsb)),
                                           42);
  const __m512d two28 = _mm512_set1_pd(0x1p28);
  const __m512i sub = _mm512_sub_epi64(_mm512_castpd_si512(_mm512_add_pd(_mm512_castsi512_pd(a), two28)), _mm512_castpd_si512(two28));
  __m512i m = _mm512_mask_blend_epi64(_mm512_cmpge_epu64_mask(a, _mm512_set1_epi64(0x3F10000000000000ll)), sub, normal);
  m = _mm512_mask_blend_epi64(_mm512_cmpge_epu64_mask(a, _mm512_set1_epi64(0x40EFFE0000000000ll)), m, _mm512_set1_epi64(0x7C00));
  m = _mm512_mask_blend_epi64(_mm512_cmp_pd_mask(r, r, _CMP_UNORD_Q), _mm512_or_si512(m, sign), _mm512_set1_epi64(0x7FFF));
  return _mm512_cvtepi64_epi16(m);
}

// fma.rn.f16 (f16_fma) of 8 lanes: a*b is exact in binary64 (two 11-bit significands), so the
// binary64 FMA is f16_fma's binary64 sum (f16.cpp's proof that rounding it to f16 is the single
// rounding of the exact a*b + c); NaN operands, Inf * 0 and Inf - Inf give a NaN, hence 0x7FFF.
inline __m128i fma_h8(__m128i a, __m128i b, __m128i c) {
  auto d = [](__m128i h) { return _mm512_cvtps_pd(_mm256_cvtph_ps(h)); };
  return f16_of_f64(_mm512_fmadd_pd(d(a), d(b), d(c)));
}

// .ftz on 16 binary32 lanes (numerics' ftz_f32): a magnitude below 2^-126 becomes the zero of its sign.
inline __m512 ftz16(__m512 x) {
  const __m512i b = _mm512_castps_si512(x);
  const __mmask16 tiny = _mm512_cmplt_epu32_mask(_mm512_and_si512(b, _mm512_set1_epi32(0x7FFFFFFF)), _mm512_set1_epi32(0x00800000));
  return _mm512_castsi512_ps(_mm512_mask_and_epi32(b, tiny, b, _mm512_set1_epi32(static_cast<int>(0x80000000u))));
}
// add.ftz.f32 (numerics' add_ftz_f32) on 16 lanes: the inputs flushed, the IEEE sum (RNE), a NaN
// the canonical 0x7FFFFFFF (f32_canonical_nan), the result flushed. Tested against add_ftz_f32
// (EngineE61.AddFtzEqualsNumerics).
inline __m512 add_ftz16(__m512 a, __m512 b) {
  const __m512 r = _mm512_add_ps(ftz16(a), ftz16(b));
  return ftz16(_mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q), _mm512_castsi512_ps(_mm512_set1_epi32(0x7FFFFFFF))));
}

// src/numerics' scalar function on each lane (mul.ftz.f32 and the model-dependent div.approx:
// their one definition, numerics/approx.cpp).
template <class Fn>
inline __m512 per_lane(__m512 x, __m512 y, Fn f) {
  alignas(64) float a[16], b[16];
  _mm512_store_ps(a, x);
  _mm512_store_ps(b, y);
  for (int i = 0; i < 16; ++i) a[i] = f(a[i], b[i]);
  return _mm512_load_ps(a);
}

// e61_pixel_impl.hpp's Ops, each lane equal to the src/numerics function (EngineE61.*): the f16
// add/sub/mul are the binary32 operation rounded once (epilogue_impl.hpp's argument), max is
// max.f16's rule on the order key of f16.cpp (one NaN -> the other operand, +0 > -0).
struct E61OpsX16 {
  using H = __m256i;
  using F = __m512;
  const float* exp_table;
  static H max(H a, H b) {
    const __m256i mag = _mm256_set1_epi16(0x7FFF), inf = _mm256_set1_epi16(0x7C00);
    const __mmask16 na = _mm256_cmpgt_epu16_mask(_mm256_and_si256(a, mag), inf);
    const __mmask16 nb = _mm256_cmpgt_epu16_mask(_mm256_and_si256(b, mag), inf);
    // key: ~h for a negative pattern, h | 0x8000 for a positive one (h ^ (sign mask | 0x8000))
    auto key = [](H h) {
      return _mm256_xor_si256(h, _mm256_or_si256(_mm256_srai_epi16(h, 15), _mm256_set1_epi16(static_cast<short>(0x8000))));
    };
    H r = _mm256_mask_blend_epi16(_mm256_cmpge_epu16_mask(key(a), key(b)), b, a);
    r = _mm256_mask_blend_epi16(na, r, b);
    r = _mm256_mask_blend_epi16(nb, r, a);
    return _mm256_mask_blend_epi16(na & nb, r, _mm256_set1_epi16(0x7FFF));
  }
  static H sub(H a, H b) { return f16_of_f32(_mm512_sub_ps(_mm512_cvtph_ps(a), _mm512_cvtph_ps(b))); }
  static H add(H a, H b) { return f16_of_f32(_mm512_add_ps(_mm512_cvtph_ps(a), _mm512_cvtph_ps(b))); }
  static H mul(H a, H b) { return f16_of_f32(_mm512_mul_ps(_mm512_cvtph_ps(a), _mm512_cvtph_ps(b))); }
  static H fma(H a, H b, H c) {
    const __m128i lo = fma_h8(_mm256_castsi256_si128(a), _mm256_castsi256_si128(b), _mm256_castsi256_si128(c));
    const __m128i hi = fma_h8(_mm256_extracti128_si256(a, 1), _mm256_extracti128_si256(b, 1), _mm256_extracti128_si256(c, 1));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
  }
  F exp(H d) const { return _mm512_i32gather_ps(_mm512_cvtepu16_epi32(d), exp_table, 4); }
  static H to_h(F x) { return f16_of_f32(x); }
  // cvt.f32.f16 is exact; only NaN payloads could differ from f16_to_f32, and to_h's NaN is 0x7FFF.
  static F to_f(H h) { return _mm512_cvtph_ps(h); }
  static F add_ftz(F a, F b) { return add_ftz16(a, b); }
  static F mul_ftz(F a, F b) {
    return per_lane(a, b, [](float x, float y) { return mul_ftz_f32(x, y); });
  }
  static F rcp(F x) {
    return per_lane(x, x, [](float v, float) { return div_approx_ftz_f32(1.0f, v); });
  }  // model-dependent
};

}  // namespace

void e61_pixels_avx512(const Readings& rd, const golden::E61Inputs* in, int n, const float* exp_table, golden::E61Pixel* out) {
  e61_pixels_lanes<E61OpsX16>(rd, in, n, exp_table, out);
}
void decoder_pixels_avx512(const Readings& rd, const golden::DecoderFinalReadings& dr, const golden::DecoderPixelInputs* in, int n,
                           const golden::DecoderTables& tab, golden::DecoderPixel* out) {
  decoder_pixels_lanes<E61OpsX16>(rd, dr, in, n, tab, out);
}
void e62_lanes_avx512(const Readings& rd, const LayerReadings& lr, const float* exp_table, const f16_t* sigmoid_table, E62Lanes& px) {
  e62_lanes<E61OpsX16>(rd, lr, exp_table, sigmoid_table, px);
}

void f16_fma_x8_avx512(const f16_t* a, const f16_t* b, const f16_t* c, f16_t* r) {
  auto ld = [](const f16_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
  _mm_storeu_si128(reinterpret_cast<__m128i*>(r), fma_h8(ld(a), ld(b), ld(c)));
}
void add_ftz_x16_avx512(const float* a, const float* b, float* r) {
  _mm512_storeu_ps(r, add_ftz16(_mm512_loadu_ps(a), _mm512_loadu_ps(b)));
}
void e11_expval_x16_avx512(const f16_t* s, f16_t* e) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(e), e11_expval16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)), e11_consts()));
}
void f64_to_f16_x8_avx512(const double* x, f16_t* r) { _mm_storeu_si128(reinterpret_cast<__m128i*>(r), f16_of_f64(_mm512_loadu_pd(x))); }

namespace {}  // namespace

KernelSet kernels_avx512vnni() {
  const KernelSet avx512 = kernels_avx512();
  // epilogue_impl.hpp compiled here: E11 and the RMS norms on two rows per register; the seeds
  // are the same code as the avx512 path's (kernels_avx2.cpp), so the same values.
  return {.zluda = zluda_kstep_vnni,
          .ada = ada_kstep_int16,  // kernels_ada_int16_impl.hpp (the avx512 path keeps the binary32 kernel)
          .e11_rows = e11_rows_x2,
          .rms_rows = rms_rows_x2,
          .decode_run = avx512.decode_run,
          .add_rows = add_rows,
          .hopper = avx512.hopper,
          .blackwell = avx512.blackwell,
          .e61_pixels = e61_pixels_avx512,
          .decoder_pixels = decoder_pixels_avx512,
          .e62_lanes = e62_lanes_avx512};
}

}  // namespace rrswin::engine
