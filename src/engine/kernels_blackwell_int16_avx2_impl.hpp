// The `blackwell` k-step kernel on AVX2 integer dot products, for the avx2 path: where a k-step
// of a tile truncates nothing (the usual case: every product and C within the model's 25-bit
// window of the maximum), the model's value is f16_RN of the exact sum, and the exact sum of the
// products is the `zluda` integer sum (kernels_zluda_int16_avx2_impl.hpp: vpmaddwd, 16
// multiply-adds per instruction pair); elsewhere the tile's k-step runs the binary32 kernel
// (kernels_blackwell_impl.hpp, AVX2). Included by kernels_avx2.cpp after both; internal linkage
// (kernel_args.hpp says why). Its operands are the binary32 values, the int16 ada exponents and
// the `zluda` integer form (gemm.cpp: decode_for).
//
// The window check (the model: kernels_blackwell_impl.hpp's top; numerics.md "Consumer Blackwell").
// A product's terms are truncated to q = 2^(maxE - 25); a product ma mb 2^(E - 6) is a multiple of
// 2^(E - 6), so it is kept whole iff E >= maxE - 19; C (an f16 whose ulp is 2^(E(C) - 10), also for
// subnormals with E(C) = -14) iff E(C) >= maxE - 15. With maxE unknown, bounds on it suffice:
//  - e(x) = sh - 6 for every nonzero code of the integer form (sh = field - 1 for a normal, whose
//    floor(log2|x|) = 3 + sh - 9; sh = 0 for a subnormal, whose e(x) is the clamp -6), so every
//    nonzero product has E = sh_a + sh_b - 12 >= L = base_a + base_b - 12 (base: the least sh of the
//    row's / k-step's nonzero values);
//  - a value's i16 = M << (sh - base) with M in 8..15 for a normal, M <= 7 only where sh = 0 =
//    base, so the largest sh is top = base + max(floor(log2 max|i16|) - 3, 0), every product
//    E <= P = top_a + top_b - 12, and maxE <= U = max(P, E(C)) (the clamp -14 is below P >= -12).
// No term is truncated if L >= U - 19 and (C = 0 or E(C) >= U - 15), that is, per row
// (top_a - base_a) + (top_b - base_b) <= 19, and per element with a nonzero C of exponent field f:
// P <= max(f, 1) <= base_a + base_b + 22 (E(C) = max(f, 1) - 15). Then the model's D is f16_RN
// (subnormals kept, overflow to Inf) of S 2^(base_a + base_b - 18) + C, S the exact int32 sum
// (the zluda kernel's bound l1 max < 2^31, checked per row and k-step by integer_step). Its span
// is at most 32 bits (from 2^(U - 25) to below 2^(U + 7)), so one binary64 FMA is exact; a zero
// sum is +0, the model's (an int32 0 times the scale is +0, and +0 + -0 = +0); then binary64 ->
// binary32 rounded to odd and vcvtps2ph are the single rounding (kernels_blackwell_impl.hpp:
// blackwell_detail::to_f32_odd; every nonzero value is >= 2^-18, a binary32 normal).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/kernel_args.hpp"

namespace rrswin::engine {
namespace {
namespace blackwell_int16 {

// The largest sh of a k-step's nonzero values from its base and max |i16| (see the top).
inline int top_of(int base, std::int32_t max_abs) {
  return max_abs >= 16 ? base + (31 - __builtin_clz(static_cast<unsigned>(max_abs))) - 3 : base;
}

// The binary32 kernel on k-step s of this R x 16 tile (the truncating case), C and D in c.
template <int R>
[[gnu::noinline]] void kstep_truncating(const KStepArgs& g, int r0, int n0, int s, f16_t (&c)[R][16]) {
  KStepArgs one = g;
  const std::ptrdiff_t a_at = static_cast<std::ptrdiff_t>(r0) * g.lda + 32 * s;
  const std::ptrdiff_t b_at = static_cast<std::ptrdiff_t>(32) * g.N * s + n0;
  one.a = g.a + a_at;
  one.ea16 = g.ea16 + a_at;
  one.b = g.b + b_at;
  one.eb16 = g.eb16 + b_at;
  one.d = &c[0][0];
  one.ldd = 16;
  one.rows = R;
  one.ksteps = 1;
  blackwell_detail::tile<R, 1>(one, 0, 0);
}

// All k-steps of an R x 16 tile; a_top: the top of row r's k-step s at a_top[r * ksteps + s].
template <int R>
void tile(const KStepArgs& g, int r0, int n0, const std::int8_t* a_top) {
  alignas(32) f16_t c[R][16];
  for (int r = 0; r < R; ++r) std::memcpy(c[r], g.d + (r0 + r) * g.ldd + n0, sizeof c[r]);
  const int steps = g.lda / 32;
  for (int s = 0; s < g.ksteps; ++s) {
    if (!zluda_int16::integer_step<R>(g, r0, s)) {
      kstep_truncating<R>(g, r0, n0, s, c);
      continue;
    }
    const int base_b = g.b16_base[s], span_b = top_of(base_b, g.b16_max[s]) - base_b;
    int base[R];  // base_a + base_b
    bool window = true;
    __m256i bad = _mm256_setzero_si256();
    for (int r = 0; r < R; ++r) {
      const int base_a = g.a16_base[(r0 + r) * steps + s], top_a = a_top[(r0 + r) * g.ksteps + s];
      base[r] = base_a + base_b;
      window &= (top_a - base_a) + span_b <= 19;
      const __m256i cr = _mm256_load_si256(reinterpret_cast<const __m256i*>(c[r]));
      const __m256i field = _mm256_srli_epi16(_mm256_and_si256(cr, _mm256_set1_epi16(0x7C00)), 10);
      const __m256i f = _mm256_max_epi16(field, _mm256_set1_epi16(1));
      const __m256i nonzero = _mm256_xor_si256(_mm256_cmpeq_epi16(_mm256_and_si256(cr, _mm256_set1_epi16(0x7FFF)), _mm256_setzero_si256()),
                                               _mm256_set1_epi16(-1));
      const __m256i outside = _mm256_or_si256(_mm256_cmpgt_epi16(_mm256_set1_epi16(static_cast<short>(top_a + base_b + span_b - 12)), f),
                                              _mm256_cmpgt_epi16(f, _mm256_set1_epi16(static_cast<short>(base[r] + 22))));
      // an Inf / NaN C (field 31) always takes the binary32 kernel, which passes it through
      bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_and_si256(nonzero, outside), _mm256_cmpeq_epi16(field, _mm256_set1_epi16(31))));
    }
    if (!window || !_mm256_testz_si256(bad, bad)) {
      kstep_truncating<R>(g, r0, n0, s, c);
      continue;
    }
    __m256i isum[R][2];
    zluda_int16::integer_sums<R>(g, r0, n0, s, isum);
    for (int r = 0; r < R; ++r) {
      const std::uint64_t bits = static_cast<std::uint64_t>(1023 + base[r] - 18) << 52;
      double scale_d;
      std::memcpy(&scale_d, &bits, 8);
      const __m256d scale = _mm256_set1_pd(scale_d);
      for (int v = 0; v < 2; ++v) {
        const __m256 cf = _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(&c[r][8 * v])));
        const __m256d lo =
            _mm256_fmadd_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(isum[r][v])), scale, _mm256_cvtps_pd(_mm256_castps256_ps128(cf)));
        const __m256d hi = _mm256_fmadd_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(isum[r][v], 1)), scale,
                                           _mm256_cvtps_pd(_mm256_extractf128_ps(cf, 1)));
        const __m256 f = _mm256_set_m128(blackwell_detail::to_f32_odd(hi), blackwell_detail::to_f32_odd(lo));
        _mm_store_si128(reinterpret_cast<__m128i*>(&c[r][8 * v]), _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
      }
    }
  }
  for (int r = 0; r < R; ++r) std::memcpy(g.d + (r0 + r) * g.ldd + n0, c[r], sizeof c[r]);
}

// Whether every row and k-step of the call has the integer form (otherwise the call is the binary32
// kernel's: the gemm bench's random codes span more than 12 shifts almost everywhere).
inline bool integer_form_everywhere(const KStepArgs& g) {
  const int steps = g.lda / 32;
  for (int s = 0; s < g.ksteps; ++s)
    if (g.b16_max[s] < 0) return false;
  for (int r = 0; r < g.rows; ++r)
    for (int s = 0; s < g.ksteps; ++s)
      if (g.a16_l1[r * steps + s] < 0) return false;
  return true;
}

}  // namespace blackwell_int16

// The KStepKernel of the `blackwell` profile on the avx2 path: reads a, b, ea16, eb16 and the
// integer form; operands without the integer form take blackwell_kstep.
void blackwell_kstep_int16(const KStepArgs& g) {
  if (g.a16 == nullptr || g.b16 == nullptr || !blackwell_int16::integer_form_everywhere(g)) {
    blackwell_kstep(g);
    return;
  }
  // The top sh of each row's k-steps (see the top), from the largest |i16| of its 32 values.
  thread_local std::vector<std::int8_t> a_top;
  a_top.resize(static_cast<std::size_t>(g.rows) * g.ksteps);
  const int steps = g.lda / 32;
  for (int r = 0; r < g.rows; ++r)
    for (int s = 0; s < g.ksteps; ++s) {
      const std::int16_t* v = g.a16 + static_cast<std::ptrdiff_t>(r) * g.lda + 32 * s;
      const __m256i m = _mm256_max_epu16(_mm256_abs_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(v))),
                                         _mm256_abs_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + 16))));
      __m128i h = _mm_max_epu16(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
      h = _mm_max_epu16(h, _mm_shuffle_epi32(h, 0x4E));
      h = _mm_max_epu16(h, _mm_shuffle_epi32(h, 0xB1));
      h = _mm_max_epu16(h, _mm_srli_epi32(h, 16));
      const int base = g.a16_base[r * steps + s];
      a_top[static_cast<std::size_t>(r) * g.ksteps + s] =
          static_cast<std::int8_t>(blackwell_int16::top_of(base, _mm_cvtsi128_si32(h) & 0xFFFF));
    }
  const std::int8_t* top = a_top.data();
  int r = 0;
  for (; r + 6 <= g.rows; r += 6)
    for (int n0 = 0; n0 < g.N; n0 += 16) blackwell_int16::tile<6>(g, r, n0, top);
  for (; r + 4 <= g.rows; r += 4)
    for (int n0 = 0; n0 < g.N; n0 += 16) blackwell_int16::tile<4>(g, r, n0, top);
  for (; r + 2 <= g.rows; r += 2)
    for (int n0 = 0; n0 < g.N; n0 += 16) blackwell_int16::tile<2>(g, r, n0, top);
  for (; r < g.rows; ++r)
    for (int n0 = 0; n0 < g.N; n0 += 16) blackwell_int16::tile<1>(g, r, n0, top);
}

}  // namespace
}  // namespace rrswin::engine
