// The `zluda` k-step kernel on AVX2 integer dot products, for the avx2 path: vpmaddwd (16 int16
// products summed pairwise into 8 int32 lanes) and vpaddd, 16 multiply-adds per pair of
// instructions against 4 per binary64 FMA. Included by kernels_avx2.cpp only; internal linkage
// (kernel_args.hpp says why). Its operands are the integer form (gemm.hpp: kDecodeInt16), and its
// binary64 step reads the values through the codes (KStepArgs::value64), as the avx512vnni
// kernel's does.
//
// Exactness: kernels_avx512vnni.cpp's proof, with vpdpwssd(acc, a, b) = vpaddd(acc, vpmaddwd(a, b)).
// vpmaddwd's pair sum A_k B_kn + A_k+1 B_k+1,n is exact in int32: the form's values satisfy
// |i16| <= 15 << 11 = 30720, so |pair sum| <= 2 * 30720^2 < 2^31 (its one wrap-around, both pairs
// -32768 * -32768, needs values the form never holds). It is a partial sum of the step's products,
// so it is bounded by l1 max < 2^31 like every other partial sum, and vpaddd (wrapping) adds exactly
// when the true value is in range. The rest (the scale, the FMA with C, the zero-sign and 2^24
// cases, the binary64 step) is the avx512vnni kernel's arithmetic on 8 lanes.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/kernel_args.hpp"

namespace rrswin::engine {
namespace {
namespace zluda_int16 {

constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// f16(x) of 8 binary32 lanes (cvt.rn.f16.f32: RNE, subnormals kept, overflow to Inf); NaN -> 0x7FFF.
inline __m128i f16_of_f32(__m256 f) {
  const __m128i h = _mm256_cvtps_ph(f, kNearest);
  const __m256i nan32 = _mm256_castps_si256(_mm256_cmp_ps(f, f, _CMP_UNORD_Q));
  const __m128i nan16 = _mm_packs_epi32(_mm256_castsi256_si128(nan32), _mm256_extracti128_si256(nan32, 1));
  return _mm_blendv_epi8(h, _mm_set1_epi16(0x7FFF), nan16);
}

// acc + the pair sums of a * b (vpdpwssd in two instructions). The empty asm keeps each sum in its
// register: integer addition is associative, and GCC otherwise rewrote the 16 k pairs' chain of
// one tile into all products first, spilled to the stack (objdump: 2 stores per vpmaddwd).
inline __m256i dot_add(__m256i acc, __m256i a, __m256i b) {
  acc = _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
  __asm__("" : "+x"(acc));
  return acc;
}

inline __m128i load8(const f16_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline void store8(f16_t* p, __m128i h) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), h); }

// k-step s of rows r0.. r0+R-1, columns n0.. n0+15, in binary64 (kernels_impl.hpp's `zluda`
// arithmetic: every FMA exact); c holds the f16 accumulators (C in, D out). The fallback of the
// integer step, out of line, one row at a time.
template <int R>
[[gnu::noinline]] void kstep_f64(const KStepArgs& g, int r0, int n0, int s, f16_t (&c)[R][16]) {
  double bt[32][16];
  for (int n = 0; n < 16; ++n)
    for (int k = 0; k < 32; ++k)
      bt[k][n] = g.b64 ? g.b64[(static_cast<std::ptrdiff_t>(32) * s + k) * g.N + n0 + n]
                       : g.value64[g.b_codes[static_cast<std::ptrdiff_t>(n0 + n) * g.ldb_codes + 32 * s + k]];
  for (int r = 0; r < R; ++r) {
    __m256d acc[4];
    for (int u = 0; u < 4; ++u) acc[u] = _mm256_cvtps_pd(_mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(&c[r][4 * u]))));
    for (int k = 0; k < 32; ++k) {
      const int at = (r0 + r) * g.lda + 32 * s + k;
      const __m256d a = _mm256_set1_pd(g.a64 ? g.a64[at] : g.value64[g.a_codes[at]]);
      for (int u = 0; u < 4; ++u) acc[u] = _mm256_fmadd_pd(a, _mm256_loadu_pd(&bt[k][4 * u]), acc[u]);  // exact
    }
    for (int v = 0; v < 2; ++v) {
      const __m256 f = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(acc[2 * v])), _mm256_cvtpd_ps(acc[2 * v + 1]), 1);
      store8(&c[r][8 * v], f16_of_f32(f));
    }
  }
}

// Whether k-step s of rows r0.. r0+R-1 has the int16 form and stays within the int32 bound.
template <int R>
bool integer_step(const KStepArgs& g, int r0, int s) {
  if (g.b16_max[s] < 0) return false;
  const int steps = g.lda / 32;
  for (int r = 0; r < R; ++r) {
    const std::int32_t l1 = g.a16_l1[(r0 + r) * steps + s];
    if (l1 < 0 || static_cast<std::int64_t>(l1) * g.b16_max[s] >= (std::int64_t{1} << 31)) return false;
  }
  return true;
}

// The exact int32 sums of k-step s on rows r0.. r0+R-1, columns n0.. n0+15 (8 per vector), from
// the integer form; the caller has checked integer_step. Shared with the AVX2 `blackwell` kernel
// (kernels_blackwell_int16_avx2_impl.hpp), whose proof reads the same sums.
template <int R>
[[gnu::always_inline]] inline void integer_sums(const KStepArgs& g, int r0, int n0, int s, __m256i (&isum)[R][2]) {
  constexpr int NV = 2;
  const std::int16_t* ar[R];
  for (int r = 0; r < R; ++r) ar[r] = g.a16 + static_cast<std::ptrdiff_t>(r0 + r) * g.lda + 32 * s;
  const std::int16_t* bp = g.b16 + static_cast<std::ptrdiff_t>(32) * g.N * s + 2 * n0;
  const std::ptrdiff_t bstride = 2 * static_cast<std::ptrdiff_t>(g.N);
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) isum[r][v] = _mm256_setzero_si256();
#pragma GCC unroll 16
  for (int j = 0; j < 16; ++j) {  // k pairs 2j, 2j + 1
    __m256i bk[NV];
    for (int v = 0; v < NV; ++v) bk[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bp + 16 * v));
    bp += bstride;
    for (int r = 0; r < R; ++r) {
      std::int32_t pair;
      std::memcpy(&pair, ar[r] + 2 * j, 4);
      const __m256i ap = _mm256_set1_epi32(pair);
      for (int v = 0; v < NV; ++v) isum[r][v] = dot_add(isum[r][v], ap, bk[v]);
    }
  }
}

// All k-steps of an R x 16 tile. The accumulators live in c (L1) between the k-steps: the 2R
// integer sums, two B vectors and a broadcast fill the 16 ymm registers for R = 6.
template <int R>
void tile(const KStepArgs& g, int r0, int n0) {
  constexpr int NV = 2;  // 8 columns per vector
  alignas(16) f16_t c[R][16];
  for (int r = 0; r < R; ++r) std::memcpy(c[r], g.d + (r0 + r) * g.ldd + n0, sizeof c[r]);
  const int steps = g.lda / 32;
  for (int s = 0; s < g.ksteps; ++s) {
    if (!integer_step<R>(g, r0, s)) {
      kstep_f64<R>(g, r0, n0, s, c);
      continue;
    }
    __m256i isum[R][NV];
    integer_sums<R>(g, r0, n0, s, isum);
    // C's rare values, checked on the whole tile first: -0 (the zero-sign case of
    // kernels_avx512vnni.cpp: an integer sum of 0 on a C of -0 takes the binary64 step) and Inf /
    // NaN (only then can the sum be NaN, which needs the canonical 0x7FFF).
    __m256i c_minus_zero = _mm256_setzero_si256(), c_special = _mm256_setzero_si256();
    for (int r = 0; r < R; ++r) {
      const __m256i cr = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c[r]));
      c_minus_zero = _mm256_or_si256(c_minus_zero, _mm256_cmpeq_epi16(cr, _mm256_set1_epi16(static_cast<short>(0x8000))));
      const __m256i field = _mm256_and_si256(cr, _mm256_set1_epi16(0x7C00));
      c_special = _mm256_or_si256(c_special, _mm256_cmpeq_epi16(field, _mm256_set1_epi16(0x7C00)));
    }
    if (!_mm256_testz_si256(c_minus_zero, c_minus_zero)) {
      __m256i minus_zero = _mm256_setzero_si256();
      for (int r = 0; r < R; ++r)
        for (int v = 0; v < NV; ++v) {
          const __m256i cz = _mm256_cvtepi16_epi32(_mm_cmpeq_epi16(load8(&c[r][8 * v]), _mm_set1_epi16(static_cast<short>(0x8000))));
          minus_zero = _mm256_or_si256(minus_zero, _mm256_and_si256(_mm256_cmpeq_epi32(isum[r][v], _mm256_setzero_si256()), cz));
        }
      if (!_mm256_testz_si256(minus_zero, minus_zero)) {
        kstep_f64<R>(g, r0, n0, s, c);
        continue;
      }
    }
    const bool finite_c = _mm256_testz_si256(c_special, c_special);
    for (int r = 0; r < R; ++r) {
      const int e = g.a16_base[(r0 + r) * steps + s] + g.b16_base[s] - 18;  // -18 .. 10
      // Every sum of the row below 2^24: by the bound |sum| <= l1 max, or else by the sums.
      bool small = static_cast<std::int64_t>(g.a16_l1[(r0 + r) * steps + s]) * g.b16_max[s] <= 0xFFFFFF;
      if (!small) {
        __m256i large = _mm256_setzero_si256();
        for (int v = 0; v < NV; ++v)  // |sum| < 2^31 (the bound), so abs does not wrap
          large = _mm256_or_si256(large, _mm256_cmpgt_epi32(_mm256_abs_epi32(isum[r][v]), _mm256_set1_epi32(0xFFFFFF)));
        small = _mm256_testz_si256(large, large);
      }
      if (small) {
        // Exact in binary32: one FMA with C rounds the exact value once (f32_RN), then f16. A
        // finite C gives a finite f (|sum scale| < 2^34), which vcvtps2ph rounds as cvt.rn.f16.f32.
        const __m256 scale = _mm256_castsi256_ps(_mm256_set1_epi32((127 + e) << 23));
        for (int v = 0; v < NV; ++v) {
          const __m256 f = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[r][v]), scale, _mm256_cvtph_ps(load8(&c[r][8 * v])));
          store8(&c[r][8 * v], finite_c ? _mm256_cvtps_ph(f, kNearest) : f16_of_f32(f));
        }
        continue;
      }
      const std::uint64_t bits = static_cast<std::uint64_t>(1023 + e) << 52;
      double scale_d;
      std::memcpy(&scale_d, &bits, 8);
      const __m256d scale = _mm256_set1_pd(scale_d);
      for (int v = 0; v < NV; ++v) {
        const __m256 cf = _mm256_cvtph_ps(load8(&c[r][8 * v]));
        const __m256d lo =
            _mm256_fmadd_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(isum[r][v])), scale, _mm256_cvtps_pd(_mm256_castps256_ps128(cf)));
        const __m256d hi = _mm256_fmadd_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(isum[r][v], 1)), scale,
                                           _mm256_cvtps_pd(_mm256_extractf128_ps(cf, 1)));
        const __m256 f = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi), 1);
        store8(&c[r][8 * v], f16_of_f32(f));  // exact sums, then the f32 and f16 roundings
      }
    }
  }
  for (int r = 0; r < R; ++r) std::memcpy(g.d + (r0 + r) * g.ldd + n0, c[r], sizeof c[r]);
}

// ---- the integer form's decoders (gemm.hpp: AOperand::i16 / BOperand::i16) on byte lanes ----

// 32 codes: M, sh (gemm.hpp: M = 8 + (m & 7), sh = e - 1 for an exponent field e >= 1; M = m,
// sh = 0 for a subnormal or zero) as bytes, the sign and NaN flags, and the shift set of the
// nonzero values (bit sh).
struct IntBytes {
  __m256i mag, sh, neg;  // neg: 0xFF where the sign bit is set
  bool nan;
  unsigned shifts;
};
inline IntBytes int_bytes(const e4m3_t* src) {
  const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
  const __m256i m = _mm256_and_si256(c, _mm256_set1_epi8(0x7F));
  const __m256i e = _mm256_and_si256(_mm256_srli_epi16(m, 3), _mm256_set1_epi8(0x0F));  // the field, 0..15
  const __m256i zero = _mm256_setzero_si256();
  const __m256i normal = _mm256_cmpgt_epi8(e, zero);
  IntBytes b;
  b.mag = _mm256_or_si256(_mm256_and_si256(m, _mm256_set1_epi8(7)), _mm256_and_si256(normal, _mm256_set1_epi8(8)));  // a subnormal's m < 8
  b.sh = _mm256_subs_epu8(e, _mm256_set1_epi8(1));
  b.neg = _mm256_cmpgt_epi8(zero, c);
  b.nan = _mm256_movemask_epi8(_mm256_cmpeq_epi8(m, _mm256_set1_epi8(0x7F))) != 0;
  // bit sh of the 16-bit shift set: its low byte (sh < 8) and high byte (sh >= 8) by table
  const __m256i lo_tab =
      _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i hi_tab =
      _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128);
  const __m256i nonzero = _mm256_xor_si256(_mm256_cmpeq_epi8(m, zero), _mm256_set1_epi8(-1));
  const __m256i lo = _mm256_and_si256(_mm256_shuffle_epi8(lo_tab, b.sh), nonzero);
  const __m256i hi = _mm256_and_si256(_mm256_shuffle_epi8(hi_tab, b.sh), nonzero);
  __m256i w = _mm256_or_si256(_mm256_unpacklo_epi8(lo, hi), _mm256_unpackhi_epi8(lo, hi));  // 16 words
  w = _mm256_or_si256(w, _mm256_srli_si256(w, 8));
  w = _mm256_or_si256(w, _mm256_srli_si256(w, 4));
  w = _mm256_or_si256(w, _mm256_srli_si256(w, 2));
  b.shifts = static_cast<unsigned>(_mm256_extract_epi16(w, 0) | _mm256_extract_epi16(w, 8)) & 0xFFFFu;
  return b;
}
// +-M << (sh - base) as 32 words in k order (base <= every nonzero value's sh, sh - base <= 11);
// zeros give 0 (M = 0). M 2^d by vpmullw with 2^d from a byte table (AVX2 has no vpsllvw).
inline void int_words(const IntBytes& b, int base, __m256i& w0, __m256i& w1) {
  const __m256i d = _mm256_subs_epu8(b.sh, _mm256_set1_epi8(static_cast<char>(base)));  // a zero's sh < base: 0
  const __m256i p_lo =
      _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i p_hi =
      _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128);
  const __m256i lo = _mm256_shuffle_epi8(p_lo, d), hi = _mm256_shuffle_epi8(p_hi, d);
  const __m256i zero = _mm256_setzero_si256();
  // words of codes 0..7 | 16..23 (unpacklo) and 8..15 | 24..31 (unpackhi)
  __m256i v_lo = _mm256_mullo_epi16(_mm256_unpacklo_epi8(b.mag, zero), _mm256_unpacklo_epi8(lo, hi));
  __m256i v_hi = _mm256_mullo_epi16(_mm256_unpackhi_epi8(b.mag, zero), _mm256_unpackhi_epi8(lo, hi));
  const __m256i n_lo = _mm256_unpacklo_epi8(b.neg, b.neg), n_hi = _mm256_unpackhi_epi8(b.neg, b.neg);
  v_lo = _mm256_sub_epi16(_mm256_xor_si256(v_lo, n_lo), n_lo);
  v_hi = _mm256_sub_epi16(_mm256_xor_si256(v_hi, n_hi), n_hi);
  w0 = _mm256_permute2x128_si256(v_lo, v_hi, 0x20);
  w1 = _mm256_permute2x128_si256(v_lo, v_hi, 0x31);
}
inline std::int32_t hsum_epi32(__m256i x) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  return _mm_cvtsi128_si32(s);
}

}  // namespace zluda_int16

// Reads the integer form where the operands have it (and the codes for the binary64 steps);
// operands decoded without it (another path's decode_for) take the binary64 kernel.
void zluda_kstep_int16(const KStepArgs& g) {
  if (g.a16 == nullptr) {
    zluda_kstep_f64(g);
    return;
  }
  int r = 0;
  for (; r + 6 <= g.rows; r += 6)
    for (int n0 = 0; n0 < g.N; n0 += 16) zluda_int16::tile<6>(g, r, n0);
  for (; r + 4 <= g.rows; r += 4)  // the layer's 64 rows: 10 x 6 + 4
    for (int n0 = 0; n0 < g.N; n0 += 16) zluda_int16::tile<4>(g, r, n0);
  for (; r + 2 <= g.rows; r += 2)
    for (int n0 = 0; n0 < g.N; n0 += 16) zluda_int16::tile<2>(g, r, n0);
  for (; r < g.rows; ++r)
    for (int n0 = 0; n0 < g.N; n0 += 16) zluda_int16::tile<1>(g, r, n0);
}

}  // namespace

// Same values as gemm.cpp's portable int16_kstep (tested against the code table on every path:
// EngineGemm.ZludaIntegerFormMatchesTheCodeTable).
bool int16_form_a_avx2(const e4m3_t* codes, int groups, std::int16_t* out, std::int8_t* base, std::int32_t* l1) {
  bool nan = false;
  for (int i = 0; i < groups; ++i) {
    const zluda_int16::IntBytes b = zluda_int16::int_bytes(codes + 32 * i);
    nan |= b.nan;
    const int lo = b.shifts ? __builtin_ctz(b.shifts) : 0, hi = b.shifts ? 31 - __builtin_clz(b.shifts) : 0;
    base[i] = static_cast<std::int8_t>(lo);
    if (hi - lo > 11) {  // no int16 form (the values are never read)
      l1[i] = -1;
      continue;
    }
    __m256i w0, w1;
    zluda_int16::int_words(b, lo, w0, w1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * i), w0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * i + 16), w1);
    const __m256i ones = _mm256_set1_epi16(1);  // |v| <= 30720: the pair sums are exact
    l1[i] = zluda_int16::hsum_epi32(
        _mm256_add_epi32(_mm256_madd_epi16(_mm256_abs_epi16(w0), ones), _mm256_madd_epi16(_mm256_abs_epi16(w1), ones)));
  }
  return nan;
}

bool int16_form_b_avx2(const e4m3_t* codes, int N, int K, std::int16_t* out, std::int8_t* base, std::int32_t* max) {
  unsigned shifts = 0;
  bool nan = false;
  for (int n = 0; n < N; ++n) {
    const zluda_int16::IntBytes b = zluda_int16::int_bytes(codes + static_cast<std::ptrdiff_t>(n) * K);
    shifts |= b.shifts;
    nan |= b.nan;
  }
  const int lo = shifts ? __builtin_ctz(shifts) : 0, hi = shifts ? 31 - __builtin_clz(shifts) : 0;
  *base = static_cast<std::int8_t>(lo);
  if (hi - lo > 11) {
    *max = -1;
    return nan;
  }
  __m256i mx = _mm256_setzero_si256();
  std::int32_t* const out32 = reinterpret_cast<std::int32_t*>(out);  // k pair j of column n: dword N j + n
  for (int n = 0; n < N; ++n) {
    alignas(32) std::int32_t pairs[16];
    __m256i w0, w1;
    zluda_int16::int_words(zluda_int16::int_bytes(codes + static_cast<std::ptrdiff_t>(n) * K), lo, w0, w1);
    mx = _mm256_max_epu16(mx, _mm256_max_epu16(_mm256_abs_epi16(w0), _mm256_abs_epi16(w1)));
    _mm256_store_si256(reinterpret_cast<__m256i*>(pairs), w0);
    _mm256_store_si256(reinterpret_cast<__m256i*>(pairs + 8), w1);
    for (int j = 0; j < 16; ++j) out32[static_cast<std::ptrdiff_t>(N) * j + n] = pairs[j];
  }
  __m128i m = _mm_max_epu16(_mm256_castsi256_si128(mx), _mm256_extracti128_si256(mx, 1));
  m = _mm_max_epu16(m, _mm_shuffle_epi32(m, 0x4E));
  m = _mm_max_epu16(m, _mm_shuffle_epi32(m, 0xB1));
  m = _mm_max_epu16(m, _mm_srli_epi32(m, 16));
  *max = _mm_cvtsi128_si32(m) & 0xFFFF;
  return nan;
}

}  // namespace rrswin::engine
