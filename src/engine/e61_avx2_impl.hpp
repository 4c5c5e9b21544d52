// E61 steps 4..6 on the avx2 path: model/e61_pixel_impl.hpp's one definition on 8 pixels per
// vector (pixel p in lane p; H = 8 f16 in an __m128i, F = 8 binary32 in an __m256), the port of
// kernels_avx512vnni.cpp's E61OpsX16 to AVX2 + FMA + F16C. Included by kernels_avx2.cpp only;
// internal linkage except the entry points kernel_args.hpp declares (its header comment: no
// inline code compiled with -mavx2 may be shared with other translation units). AVX2 has no mask
// registers, no unsigned 16/64-bit compares and no vpmovqw: the blends are vpblendvb on full-lane
// masks, the unsigned compares are signed ones on operands whose sign bit is clear (or on keys
// xored with 0x8000), and the binary64 -> f16 results are gathered from their int64 lanes with
// vpermd + vpackusdw. Each operation is checked against src/numerics on 8 lanes
// (tests/engine_e61_test.cpp: EngineE61.*, which run every vector form the CPU has).
#include <immintrin.h>

#include "engine/e61_lanes_impl.hpp"
#include "engine/kernel_args.hpp"
#include "model/e61_pixel_impl.hpp"
#include "numerics/approx.hpp"
#include "numerics/f16.hpp"

namespace rrswin::engine {
namespace {
namespace e61_avx2 {

constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// f16(x) of 8 binary32 lanes (cvt.rn.f16.f32 = f32_to_f16: vcvtps2ph is RNE with subnormals kept
// and overflow to Inf); a NaN lane -> 0x7FFF (the unordered compare's all-ones int32 lanes,
// packed with signed saturation, are all-ones int16 lanes).
inline __m128i f16_of_f32(__m256 x) {
  const __m256i nan32 = _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q));
  const __m128i nan16 = _mm_packs_epi32(_mm256_castsi256_si128(nan32), _mm256_extracti128_si256(nan32, 1));
  return _mm_blendv_epi8(_mm256_cvtps_ph(x, kNearest), _mm_set1_epi16(0x7FFF), nan16);
}

// f16 of 4 binary64 lanes, round to nearest even: numerics' round_f64_rne (f16.cpp), the
// AVX-512 f16_of_f64's rule on 4 int64 lanes, each result in the low 16 bits of its lane.
// a = |r| as bits (sign bit clear, so a signed 64-bit compare against a positive constant is the
// unsigned one). |r| >= 65520 (a >= 0x40EFFE0000000000, Inf included): Inf. A normal f16
// (|r| >= 2^-14, a >= 0x3F10000000000000): the exponent rebiased by subtracting (1023 - 15) << 52,
// then the top 10 of the 52 mantissa bits rounded on the 42 below by adding half - 1 (0x1FFFFFFFFFF)
// plus the kept lsb (bit 42): a remainder above half carries, one below does not, and exactly
// half carries only onto an odd lsb (ties to even); the carry runs into the exponent field, up to
// 0x7C00 only from |r| >= 65520, which the Inf blend already covers. Below 2^-14: |r| + 2^28 in
// binary64 is |r| rounded once (RNE, default MXCSR) to a multiple of 2^-24, the ulp of [2^28, 2^29)
// (|r| < 2^-14 keeps the sum in that binade), and the bits of that sum above 2^28's are the
// multiple k (0..1024; 1024, from |r| rounding up to 2^-14, is the smallest normal's pattern),
// i.e. the subnormal pattern. The wrapped arithmetic of the normal formula on such lanes is
// blended away. Then the sign (bit 63 -> bit 15), and NaN -> 0x7FFF.
inline __m256i f16_of_f64_x4(__m256d r) {
  const __m256i b = _mm256_castpd_si256(r);
  const __m256i a = _mm256_and_si256(b, _mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
  const __m256i sign = _mm256_and_si256(_mm256_srli_epi64(b, 48), _mm256_set1_epi64x(0x8000));
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi64(a, 42), _mm256_set1_epi64x(1));
  const __m256i normal =
      _mm256_srli_epi64(_mm256_add_epi64(_mm256_sub_epi64(a, _mm256_set1_epi64x(static_cast<long long>(1023 - 15) << 52)),
                                         _mm256_add_epi64(_mm256_set1_epi64x(0x1FFFFFFFFFFll), lsb)),
                        42);
  const __m256d two28 = _mm256_set1_pd(0x1p28);
  const __m256i sub = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(_mm256_castsi256_pd(a), two28)), _mm256_castpd_si256(two28));
  // a >= C as a > C - 1 (signed: both sides below 2^63)
  __m256i m = _mm256_blendv_epi8(sub, normal, _mm256_cmpgt_epi64(a, _mm256_set1_epi64x(0x3F10000000000000ll - 1)));
  m = _mm256_blendv_epi8(m, _mm256_set1_epi64x(0x7C00), _mm256_cmpgt_epi64(a, _mm256_set1_epi64x(0x40EFFE0000000000ll - 1)));
  return _mm256_blendv_epi8(_mm256_or_si256(m, sign), _mm256_set1_epi64x(0x7FFF), _mm256_castpd_si256(_mm256_cmp_pd(r, r, _CMP_UNORD_Q)));
}
// Two f16_of_f64_x4 results (lanes 0..3 and 4..7) as 8 f16: vpermd takes each int64 lane's low
// int32 (0..0xFFFF) into the low 128 bits, vpackusdw narrows them (unsigned saturation keeps
// 0..0xFFFF unchanged).
inline __m128i f16_of_f64_x8(__m256d lo, __m256d hi) {
  const __m256i low32 = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  const __m256i l = _mm256_permutevar8x32_epi32(f16_of_f64_x4(lo), low32);
  const __m256i h = _mm256_permutevar8x32_epi32(f16_of_f64_x4(hi), low32);
  return _mm_packus_epi32(_mm256_castsi256_si128(l), _mm256_castsi256_si128(h));
}

// fma.rn.f16 (f16_fma) of 8 lanes: f16 -> binary32 -> binary64 is exact, a*b is exact in binary64
// (two 11-bit significands), so the binary64 FMA is f16_fma's binary64 sum (f16.cpp's proof that
// rounding it to f16 is the single rounding of the exact a*b + c); NaN operands, Inf * 0 and
// Inf - Inf give a NaN, hence 0x7FFF.
inline __m128i fma_h8(__m128i a, __m128i b, __m128i c) {
  const __m256 fa = _mm256_cvtph_ps(a), fb = _mm256_cvtph_ps(b), fc = _mm256_cvtph_ps(c);
  auto lo = [](__m256 f) { return _mm256_cvtps_pd(_mm256_castps256_ps128(f)); };
  auto hi = [](__m256 f) { return _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)); };
  return f16_of_f64_x8(_mm256_fmadd_pd(lo(fa), lo(fb), lo(fc)), _mm256_fmadd_pd(hi(fa), hi(fb), hi(fc)));
}

// .ftz on 8 binary32 lanes (numerics' ftz_f32): a magnitude below 2^-126 becomes the zero of its
// sign. |x|'s bits have the sign bit clear, so the signed compare is the unsigned one; the
// tiny lanes keep only their sign bit.
inline __m256 ftz8(__m256 x) {
  const __m256i b = _mm256_castps_si256(x);
  const __m256i mag = _mm256_set1_epi32(0x7FFFFFFF);
  const __m256i tiny = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x00800000), _mm256_and_si256(b, mag));
  return _mm256_castsi256_ps(_mm256_andnot_si256(_mm256_and_si256(tiny, mag), b));
}
// add.ftz.f32 / mul.ftz.f32 (numerics' add_ftz_f32 / mul_ftz_f32, the same three steps) on 8
// lanes: the inputs flushed, the IEEE operation (RNE, default MXCSR: no DAZ / FTZ), a NaN the
// canonical 0x7FFFFFFF (f32_canonical_nan), the result flushed (the NaN is not touched by it).
inline __m256 canon_ftz8(__m256 r) {
  return ftz8(_mm256_blendv_ps(r, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF)), _mm256_cmp_ps(r, r, _CMP_UNORD_Q)));
}
inline __m256 add_ftz8(__m256 a, __m256 b) { return canon_ftz8(_mm256_add_ps(ftz8(a), ftz8(b))); }
inline __m256 mul_ftz8(__m256 a, __m256 b) { return canon_ftz8(_mm256_mul_ps(ftz8(a), ftz8(b))); }

// The signed order key of an f16 pattern: h for a positive one, h ^ 0x7FFF for a negative one
// (h ^ (sign mask & 0x7FFF)). It is f16.cpp's unsigned key (h | 0x8000, ~h) xored with 0x8000, so
// a signed 16-bit compare of keys is the unsigned compare of the AVX-512 code: -0 < +0, and the
// order of the values elsewhere.
inline __m128i order_key(__m128i h) { return _mm_xor_si128(h, _mm_and_si128(_mm_srai_epi16(h, 15), _mm_set1_epi16(0x7FFF))); }

// e61_pixel_impl.hpp's Ops, each lane equal to the src/numerics function (EngineE61.*): the f16
// add/sub/mul are the binary32 operation rounded once (epilogue_impl.hpp's argument), max is
// max.f16's rule on the order key (one NaN -> the other operand, both -> 0x7FFF, +0 > -0).
struct E61OpsX8 {
  using H = __m128i;
  using F = __m256;
  const float* exp_table;
  static H max(H a, H b) {
    const __m128i mag = _mm_set1_epi16(0x7FFF), inf = _mm_set1_epi16(0x7C00);
    // NaN: |h| > 0x7C00 (both sides below 0x8000: the signed compare is the unsigned one)
    const __m128i na = _mm_cmpgt_epi16(_mm_and_si128(a, mag), inf);
    const __m128i nb = _mm_cmpgt_epi16(_mm_and_si128(b, mag), inf);
    H r = _mm_blendv_epi8(a, b, _mm_cmpgt_epi16(order_key(b), order_key(a)));  // a where key(a) >= key(b)
    r = _mm_blendv_epi8(r, b, na);
    r = _mm_blendv_epi8(r, a, nb);
    return _mm_blendv_epi8(r, _mm_set1_epi16(0x7FFF), _mm_and_si128(na, nb));
  }
  static H sub(H a, H b) { return f16_of_f32(_mm256_sub_ps(_mm256_cvtph_ps(a), _mm256_cvtph_ps(b))); }
  static H add(H a, H b) { return f16_of_f32(_mm256_add_ps(_mm256_cvtph_ps(a), _mm256_cvtph_ps(b))); }
  static H mul(H a, H b) { return f16_of_f32(_mm256_mul_ps(_mm256_cvtph_ps(a), _mm256_cvtph_ps(b))); }
  static H fma(H a, H b, H c) { return fma_h8(a, b, c); }
  // The tabulated e61_exp, indexed by the f16 pattern (zero-extended).
  F exp(H d) const { return _mm256_i32gather_ps(exp_table, _mm256_cvtepu16_epi32(d), 4); }
  static H to_h(F x) { return f16_of_f32(x); }
  // cvt.f32.f16 is exact; only NaN payloads could differ from f16_to_f32, and to_h's NaN is 0x7FFF.
  static F to_f(H h) { return _mm256_cvtph_ps(h); }
  static F add_ftz(F a, F b) { return add_ftz8(a, b); }
  static F mul_ftz(F a, F b) { return mul_ftz8(a, b); }
  // div.approx (model-dependent): src/numerics' one definition on each lane (numerics/approx.cpp).
  static F rcp(F x) {
    alignas(32) float v[8];
    _mm256_store_ps(v, x);
    for (float& f : v) f = div_approx_ftz_f32(1.0f, f);
    return _mm256_load_ps(v);
  }
};

}  // namespace e61_avx2
}  // namespace

void e61_pixels_avx2(const Readings& rd, const golden::E61Inputs* in, int n, const float* exp_table, golden::E61Pixel* out) {
  e61_pixels_lanes<e61_avx2::E61OpsX8>(rd, in, n, exp_table, out);
}
void decoder_pixels_avx2(const Readings& rd, const golden::DecoderFinalReadings& dr, const golden::DecoderPixelInputs* in, int n,
                         const golden::DecoderTables& tab, golden::DecoderPixel* out) {
  decoder_pixels_lanes<e61_avx2::E61OpsX8>(rd, dr, in, n, tab, out);
}
void e62_lanes_avx2(const Readings& rd, const LayerReadings& lr, const float* exp_table, const f16_t* sigmoid_table, E62Lanes& px) {
  e62_lanes<e61_avx2::E61OpsX8>(rd, lr, exp_table, sigmoid_table, px);
}

void f16_fma_x8_avx2(const f16_t* a, const f16_t* b, const f16_t* c, f16_t* r) {
  auto ld = [](const f16_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
  _mm_storeu_si128(reinterpret_cast<__m128i*>(r), e61_avx2::fma_h8(ld(a), ld(b), ld(c)));
}
void f64_to_f16_x8_avx2(const double* x, f16_t* r) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(r), e61_avx2::f16_of_f64_x8(_mm256_loadu_pd(x), _mm256_loadu_pd(x + 4)));
}
void add_ftz_x8_avx2(const float* a, const float* b, float* r) {
  _mm256_storeu_ps(r, e61_avx2::add_ftz8(_mm256_loadu_ps(a), _mm256_loadu_ps(b)));
}
void mul_ftz_x8_avx2(const float* a, const float* b, float* r) {
  _mm256_storeu_ps(r, e61_avx2::mul_ftz8(_mm256_loadu_ps(a), _mm256_loadu_ps(b)));
}

}  // namespace rrswin::engine
