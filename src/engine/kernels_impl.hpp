// The k-step kernels, written once as portable C++ that the compiler vectorises, and compiled
// three times with different target flags (kernels_scalar.cpp: the baseline ISA; kernels_avx2.cpp;
// kernels_avx512.cpp). Everything here has internal linkage and uses compiler builtins only, so
// no copy compiled for a wider ISA can leak into a caller of another translation unit.
//
// Exactness (numerics.md "mma"; both proofs are about values, not about the order of operations):
//
// `zluda`: D = f16_RN(f32_RN(exact(C + sum of 32 products))). An e4m3 value is an integer times
// 2^-9 with at most 4 significant bits, so a product is an integer times 2^-18 with at most 8
// significant bits and |product| <= 448^2 < 2^17.7; C is an f16, an integer times 2^-24 with
// |C| <= 65504 < 2^16 (or +-Inf/NaN). Every partial sum of C and any subset of the products is
// therefore an integer multiple of 2^-24 of magnitude < 32 * 2^17.7 + 2^16 < 2^22.8, i.e. an
// integer below 2^46.8 times 2^-24: it has at most 47 significant bits <= 53, so every binary64
// multiplication (8-bit product) and addition or FMA in the chain is exact, in any order. The
// binary64 -> binary32 conversion is then the one f32 rounding and f32 -> f16 the f16 rounding.
// Zero signs follow IEEE exact addition, which is what mma.cpp implements (-0 only when C and all
// products are -0). NaN operands / C propagate as NaN and are mapped to the canonical 0x7FFF;
// an infinite C stays infinite (Inf + finite).
//
// `ada`: per half h (k 0..15, then 16..31, ISA order) acc = f16_RN(sum over terms t of
// trunc_q(t)), q = 2^(maxE - 13), maxE = the largest E over the nonzero terms (products with
// E = e(a) + e(b); acc itself with E = max(floor(log2|acc|), -14)). With scale = 1/q = 2^(13 -
// maxE): a product is ma mb 2^(E-6) (ma, mb < 16 integers), so t * scale = ma mb 2^(E - maxE + 7)
// < 2^15 is exact in binary32, and so is acc * scale < 2^(E_acc + 1 + 13 - maxE) <= 2^14.
// Truncating toward zero (exact: |x| < 2^31 converts to int32 exactly after truncation) gives
// integers below 2^15, whose sum of at most 17 stays below 2^20: exact in binary32 in any order.
// S * q is exact too (a power-of-two scale, far from the binary32 range limits), so the f16
// conversion is the model's single rounding. Zero terms get e = -64 and cannot raise maxE; maxE
// is clamped at -14 (no nonzero term is below it; when every term is zero the result is a signed
// zero whatever the scale). Zero signs: the largest term survives truncation (|t| >= 2^(E-6) >=
// q), so a zero sum with a nonzero term is a cancellation, +0 in IEEE addition as in mma.cpp; with
// no nonzero term the sum of signed zeros is -0 exactly when all are -0, as in mma.cpp. An infinite
// or NaN acc is passed through (NaN -> 0x7FFF) exactly as mma.cpp does; NaN e4m3 codes never reach
// this kernel (gemm() sends such operands to mma_dot).
#include <cstddef>
#include <cstdint>

#include "engine/f16_bits.hpp"
#include "engine/kernel_args.hpp"

namespace rrswin::engine {
namespace {

inline double mul_add(double a, double b, double c) {
#ifdef __FMA__
  return __builtin_fma(a, b, c);  // exact either way (see above); one instruction with FMA
#else
  return a * b + c;
#endif
}

// Truncation toward zero of |x| < 2^31, keeping the sign of zero.
inline float trunc_small(float x) { return __builtin_copysignf(static_cast<float>(static_cast<std::int32_t>(x)), x); }

constexpr int kNB = 16;  // columns per tile (N is a multiple of 16)

template <int R>
void zluda_tile(const KStepArgs& g, int r0, int n0) {
  double acc[R][kNB];
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < kNB; ++n) acc[r][n] = static_cast<double>(h2f(g.d[(r0 + r) * g.ldd + n0 + n]));
  for (int s = 0; s < g.ksteps; ++s) {
    if (s > 0)  // step s-1's D, as the f16 the mma returns, is step s's C
      for (int r = 0; r < R; ++r)
        for (int n = 0; n < kNB; ++n) acc[r][n] = static_cast<double>(h2f(f2h(static_cast<float>(acc[r][n]))));
    const double* a = g.a64 + 32 * s;
    const double* b = g.b64 + static_cast<std::ptrdiff_t>(32) * g.N * s;
    for (int k = 0; k < 32; ++k) {
      const double* bk = b + k * g.N + n0;
      for (int r = 0; r < R; ++r) {
        const double ar = a[(r0 + r) * g.lda + k];
        for (int n = 0; n < kNB; ++n) acc[r][n] = mul_add(ar, bk[n], acc[r][n]);
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < kNB; ++n) g.d[(r0 + r) * g.ldd + n0 + n] = f2h(static_cast<float>(acc[r][n]));
}

void zluda_kstep(const KStepArgs& g) {
  int r = 0;
  for (; r + 4 <= g.rows; r += 4)
    for (int n0 = 0; n0 < g.N; n0 += kNB) zluda_tile<4>(g, r, n0);
  for (; r < g.rows; ++r)
    for (int n0 = 0; n0 < g.N; n0 += kNB) zluda_tile<1>(g, r, n0);
}

// One `ada` half (k = k0..k0+15) on an R x 16 tile; acc is read from and written to d.
template <int R>
void ada_half_tile(const KStepArgs& g, int r0, int n0, int k0) {
  float mx[R][kNB], scale[R][kNB], sum[R][kNB];
  f16_t c[R][kNB];
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < kNB; ++n) {
      const f16_t h = g.d[(r0 + r) * g.ldd + n0 + n];
      c[r][n] = h;
      const int ef = (h >> 10) & 31;
      // E(acc) = max(floor(log2|acc|), -14) when acc is a nonzero finite value.
      const float e_acc = (h & 0x7FFF) == 0 || ef == 31 ? -64.0f : ef == 0 ? -14.0f : static_cast<float>(ef - 15);
      mx[r][n] = e_acc;
    }
  for (int k = k0; k < k0 + 16; ++k) {
    const float* ebk = g.eb + k * g.N + n0;
    for (int r = 0; r < R; ++r) {
      const float ea = g.ea[(r0 + r) * g.lda + k];
      for (int n = 0; n < kNB; ++n) {
        const float e = ea + ebk[n];
        mx[r][n] = e > mx[r][n] ? e : mx[r][n];
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < kNB; ++n) {
      const float m = mx[r][n] > -14.0f ? mx[r][n] : -14.0f;
      const auto mi = static_cast<std::int32_t>(m);
      scale[r][n] = float_of(static_cast<std::uint32_t>(127 + 13 - mi) << 23);
      mx[r][n] = float_of(static_cast<std::uint32_t>(127 - 13 + mi) << 23);  // now q
      const f16_t h = c[r][n];
      const float cf = (h & 0x7C00) == 0x7C00 ? 0.0f : h2f(h);
      sum[r][n] = trunc_small(cf * scale[r][n]);
    }
  for (int k = k0; k < k0 + 16; ++k) {
    const float* bk = g.b + k * g.N + n0;
    for (int r = 0; r < R; ++r) {
      const float ar = g.a[(r0 + r) * g.lda + k];
      for (int n = 0; n < kNB; ++n) sum[r][n] += trunc_small(ar * bk[n] * scale[r][n]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < kNB; ++n) {
      const f16_t h = c[r][n];
      const f16_t res = f2h(sum[r][n] * mx[r][n]);
      const bool special = (h & 0x7C00) == 0x7C00;                  // Inf or NaN acc passes through
      const f16_t pass = (h & 0x03FF) != 0 ? kF16CanonicalNaN : h;  // NaN -> canonical
      g.d[(r0 + r) * g.ldd + n0 + n] = special ? pass : res;
    }
}

void ada_kstep(const KStepArgs& all) {
  for (int s = 0; s < all.ksteps; ++s) {
    KStepArgs g = all;  // step s alone; the scalar path chains through d
    g.a += 32 * s;
    g.ea += 32 * s;
    g.b += static_cast<std::ptrdiff_t>(32) * g.N * s;
    g.eb += static_cast<std::ptrdiff_t>(32) * g.N * s;
    for (int half = 0; half < 2; ++half) {
      int r = 0;
      for (; r + 4 <= g.rows; r += 4)
        for (int n0 = 0; n0 < g.N; n0 += kNB) ada_half_tile<4>(g, r, n0, 16 * half);
      for (; r < g.rows; ++r)
        for (int n0 = 0; n0 < g.N; n0 += kNB) ada_half_tile<1>(g, r, n0, 16 * half);
    }
  }
}

}  // namespace
}  // namespace rrswin::engine
