// Two epilogue operations of the avx2 path in vector arithmetic instead of tables: E11 steps 1..5
// (e = e11(s), golden::e11_expval) and q8 (cvt.rn.satfinite.e4m3x2.f16x2: numerics' f16_to_e4m3).
// Included by kernels_avx2.cpp only, after the F16C helpers; internal linkage except the two
// entry points kernel_args.hpp declares. Their arithmetic is kernels_avx512vnni.cpp's
// (e11_expval16, q8_codes: the reasoning is written there) on 8 binary32 / 16 int16 lanes, the
// e4m3 subnormals of q8 in binary32 as AVX2 has no 16-bit variable shifts; each is checked
// exhaustively (every f16 input:
// EngineE11.ExpvalEqualsGoldenOnEveryPattern, EngineF16.Q8RunEqualsNumerics).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "engine/kernel_args.hpp"
#include "model/constants.hpp"
#include "numerics/f16.hpp"

namespace rrswin::engine {
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

// The q8 codes of 16 f16 in int16 lanes (kernels_avx512vnni.cpp's q8_codes rule: E >= 9 rounds
// the f16 bits at bit 7; NaN -> 0x7F, or 0x7F | sign where nan_sign is 0x80), except the e4m3
// subnormals (E <= 8): their code RNE(|x| 2^9) (0 .. 8) is computed as such in binary32, where
// |x| 2^9 is exact (AVX2 has no 16-bit variable shifts for the rounding shift).
inline __m256i q8_codes16(__m256i x, __m256i nan_sign) {
  const __m256i a = _mm256_and_si256(x, _mm256_set1_epi16(0x7FFF));
  const __m256i sign = _mm256_srli_epi16(_mm256_andnot_si256(_mm256_set1_epi16(0x7FFF), x), 8);
  // E >= 9
  const __m256i r =
      _mm256_add_epi16(_mm256_add_epi16(a, _mm256_set1_epi16(0x3F)), _mm256_and_si256(_mm256_srli_epi16(a, 7), _mm256_set1_epi16(1)));
  const __m256i normal = _mm256_min_epu16(_mm256_sub_epi16(_mm256_srli_epi16(r, 7), _mm256_set1_epi16(0x40)), _mm256_set1_epi16(0x7E));
  // E <= 8
  constexpr int kNearestInt = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  auto sub8 = [](__m128i h) {
    return _mm256_cvttps_epi32(_mm256_round_ps(_mm256_mul_ps(_mm256_cvtph_ps(h), _mm256_set1_ps(512.0f)), kNearestInt));
  };
  const __m256i sub32lo = sub8(_mm256_castsi256_si128(a)), sub32hi = sub8(_mm256_extracti128_si256(a, 1));
  const __m256i sub = _mm256_permute4x64_epi64(_mm256_packs_epi32(sub32lo, sub32hi), 0xD8);          // back in lane order
  __m256i code = _mm256_blendv_epi8(sub, normal, _mm256_cmpgt_epi16(a, _mm256_set1_epi16(0x23FF)));  // a >= 0x2400: E >= 9
  code = _mm256_or_si256(code, sign);
  return _mm256_blendv_epi8(code, _mm256_or_si256(_mm256_set1_epi16(0x7F), _mm256_and_si256(sign, nan_sign)),
                            _mm256_cmpgt_epi16(a, _mm256_set1_epi16(0x7C00)));
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
  const __m256i nan_sign = nan_keeps_sign ? _mm256_set1_epi16(0x80) : _mm256_setzero_si256();
  auto codes16 = [&](const f16_t* p) {  // 16 codes in order, as bytes
    const __m256i c = epilogue_avx2::q8_codes16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), nan_sign);
    return _mm_packus_epi16(_mm256_castsi256_si128(c), _mm256_extracti128_si256(c, 1));
  };
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), codes16(h + i));
  if (i < n) {  // the last n % 16 through a padded vector
    alignas(32) f16_t in[16] = {};
    alignas(16) e4m3_t c[16];
    for (std::size_t j = i; j < n; ++j) in[j - i] = h[j];
    _mm_store_si128(reinterpret_cast<__m128i*>(c), codes16(in));
    for (std::size_t j = i; j < n; ++j) out[j] = c[j - i];
  }
}

}  // namespace rrswin::engine
