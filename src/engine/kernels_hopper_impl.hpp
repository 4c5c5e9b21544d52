// The `hopper` k-step kernel (numerics.md "hopper"), written once as portable C++ and included by
// each per-ISA translation unit (kernels_scalar.cpp, kernels_avx2.cpp, kernels_avx512.cpp), where
// the compiler vectorises it for that unit's target flags. Self-contained, internal linkage only
// (see kernel_args.hpp for why no inline library code may be shared between the units).
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

namespace enc5::engine {
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

// The KStepKernel of the `hopper` profile: reads a, b (binary32 values, ISA k order) only.
void hopper_kstep(const KStepArgs& g) {
  int r = 0;
  for (; r + 4 <= g.rows; r += 4)
    for (int n0 = 0; n0 < g.N; n0 += hopper_detail::kNB) hopper_detail::hopper_tile<4>(g, r, n0);
  for (; r < g.rows; ++r)
    for (int n0 = 0; n0 < g.N; n0 += hopper_detail::kNB) hopper_detail::hopper_tile<1>(g, r, n0);
}

}  // namespace
}  // namespace enc5::engine
