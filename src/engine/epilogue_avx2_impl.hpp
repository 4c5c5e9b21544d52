// Two epilogue operations of the avx2 path in vector arithmetic instead of tables: E11 steps 1..5
// (e = e11(s), golden::e11_expval) and q8 (cvt.rn.satfinite.e4m3x2.f16x2: numerics' f16_to_e4m3).
// Included by kernels_avx2.cpp only, after the F16C helpers; internal linkage except the two
// entry points kernel_args.hpp declares. Their arithmetic is kernels_avx512vnni.cpp's
// (e11_expval16, q8_codes: the reasoning is written there) on 8 lanes of binary32 / int32,
// as AVX2 has no 16-bit variable shifts; each is checked exhaustively (every f16 input:
// EngineE11.ExpvalEqualsGoldenOnEveryPattern, EngineF16.Q8RunEqualsNumerics).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "engine/kernel_args.hpp"
#include "model/constants.hpp"
#include "numerics/f16.hpp"

namespace enc5::engine {
namespace {
namespace epilogue_avx2 {

constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

struct E11Consts {
  __m256 scale, low, high, quadratic_c, c, linear;
};
inline E11Consts e11_consts() {
  auto f = [](f16_t h) { return f16_to_f32(h); };
  constexpr float kC = 6144.0f;  // 1.5 * 2^12: binary32's ulp at it is 2^-11 (kernels_avx512vnni.cpp)
  return {_mm256_set1_ps(f(golden::kE11Scale)),
          _mm256_set1_ps(f(golden::kE11ClampLow)),
          _mm256_set1_ps(f(golden::kE11ClampHigh)),
          _mm256_set1_ps(f(golden::kE11Quadratic) + kC),
          _mm256_set1_ps(kC),
          _mm256_set1_ps(f(golden::kE11Linear))};
}
// e11(s) of 8 scores: steps 1, 2 (maxps / minps return the bound for a NaN, as max.f16 / min.f16
// return the non-NaN operand), m by Veltkamp's split, step 3 on the 1.5 * 2^12 offset, step 4
// rounded to binary32 then f16, step 5 on the int16 lanes.
inline __m128i e11_expval8(__m128i s, const E11Consts& k) {
  const __m256 y = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(_mm256_cvtph_ps(s), k.scale), k.low), k.high);
  const __m256 cy = _mm256_mul_ps(y, _mm256_set1_ps(8193.0f));
  const __m256 m = _mm256_sub_ps(cy, _mm256_sub_ps(cy, y));
  const __m256 tt = _mm256_sub_ps(_mm256_fnmadd_ps(m, m, k.quadratic_c), k.c);
  const __m128i u = _mm256_cvtps_ph(_mm256_fmadd_ps(m, tt, k.linear), kNearest);
  return _mm_and_si128(_mm_slli_epi16(u, 5), _mm_set1_epi16(static_cast<short>(golden::kE11ExponentBits)));
}

// The q8 codes of 8 f16 zero-extended to int32 lanes (kernels_avx512vnni.cpp's q8_codes rule:
// E >= 9 rounds the f16 bits at bit 7, E <= 8 gives e4m3 subnormals by a rounding shift, NaN ->
// 0x7F or 0x7F | sign where nan_sign is 0x80); every intermediate fits 32 bits.
inline __m256i q8_codes8(__m256i x, __m256i nan_sign) {
  const __m256i a = _mm256_and_si256(x, _mm256_set1_epi32(0x7FFF));
  const __m256i sign = _mm256_srli_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x8000)), 8);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i r = _mm256_add_epi32(_mm256_add_epi32(a, _mm256_set1_epi32(0x3F)), _mm256_and_si256(_mm256_srli_epi32(a, 7), one));
  const __m256i normal = _mm256_min_epi32(_mm256_sub_epi32(_mm256_srli_epi32(r, 7), _mm256_set1_epi32(0x40)), _mm256_set1_epi32(0x7E));
  const __m256i sh = _mm256_sub_epi32(_mm256_set1_epi32(16), _mm256_srli_epi32(a, 10));
  const __m256i M = _mm256_or_si256(_mm256_and_si256(a, _mm256_set1_epi32(0x3FF)), _mm256_set1_epi32(0x400));
  const __m256i half = _mm256_sub_epi32(_mm256_sllv_epi32(one, _mm256_sub_epi32(sh, one)), one);
  const __m256i lsb = _mm256_and_si256(_mm256_srlv_epi32(M, sh), one);
  const __m256i sub = _mm256_srlv_epi32(_mm256_add_epi32(_mm256_add_epi32(M, half), lsb), sh);
  const __m256i is_normal = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x23FF));  // a >= 0x2400: E >= 9
  const __m256i code = _mm256_or_si256(_mm256_blendv_epi8(sub, normal, is_normal), sign);
  const __m256i nan = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7C00));
  return _mm256_blendv_epi8(code, _mm256_or_si256(_mm256_set1_epi32(0x7F), _mm256_and_si256(sign, nan_sign)), nan);
}

}  // namespace epilogue_avx2
}  // namespace

void e11_expval_run_avx2(const f16_t* s, f16_t* e, std::size_t n) {
  const epilogue_avx2::E11Consts k = epilogue_avx2::e11_consts();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(e + i),
                     epilogue_avx2::e11_expval8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)), k));
  if (i < n) {  // the last n % 8 through a padded vector
    alignas(16) f16_t in[8] = {}, out[8];
    for (std::size_t j = i; j < n; ++j) in[j - i] = s[j];
    _mm_store_si128(reinterpret_cast<__m128i*>(out), epilogue_avx2::e11_expval8(_mm_load_si128(reinterpret_cast<const __m128i*>(in)), k));
    for (std::size_t j = i; j < n; ++j) e[j] = out[j - i];
  }
}

void q8_run_avx2(const f16_t* h, e4m3_t* out, std::size_t n, bool nan_keeps_sign) {
  const __m256i nan_sign = nan_keeps_sign ? _mm256_set1_epi32(0x80) : _mm256_setzero_si256();
  auto codes16 = [&](const f16_t* p) {  // 16 codes in order, as bytes
    const __m256i c0 = epilogue_avx2::q8_codes8(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), nan_sign);
    const __m256i c1 = epilogue_avx2::q8_codes8(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 8))), nan_sign);
    const __m256i w = _mm256_permute4x64_epi64(_mm256_packus_epi32(c0, c1), 0xD8);  // 16 words in order
    return _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
  };
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), codes16(h + i));
  if (i < n) {  // the last n % 16 through a padded vector
    alignas(16) f16_t in[16] = {};
    alignas(16) e4m3_t c[16];
    for (std::size_t j = i; j < n; ++j) in[j - i] = h[j];
    _mm_store_si128(reinterpret_cast<__m128i*>(c), codes16(in));
    for (std::size_t j = i; j < n; ++j) out[j] = c[j - i];
  }
}

}  // namespace enc5::engine
