// The .approx.ftz.f32 instructions (numerics.md "Approximate f32 instructions", PTX ISA 9.7.3).
//
// Model: the correctly rounded (round-to-nearest-even) binary32 result, with .ftz applied to every
// input and to the result. PTX only bounds the hardware's error (rcp 1 ulp, rsqrt 2^-22.9 relative,
// ex2 2 ulp, div 2 ulp); it publishes no bit-exact algorithm. Where the kernel rounds the result to
// f16 (rcp, rsqrt: facts D4, D5, D7) every answer within those bounds gives the same f16, so the
// model is exact there (proved exhaustively by approx_test.cpp). ex2 and div (E61 softmax) act on
// unrounded f32 values: those two are MODEL-DEPENDENT and this file is the one place the choice
// lives (docs/readings.md §2, "approx-model").
//
// ftz: a subnormal input is read as a zero of the same sign; a result that is subnormal after
// rounding is written as a zero of the same sign (PTX ISA: ".ftz flushes subnormal inputs and
// results to sign-preserving zero").
// NaN results are NVIDIA's canonical binary32 NaN 0x7FFFFFFF (PTX leaves the pattern unspecified).
#include "numerics/approx.hpp"

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>

#include "numerics/f16.hpp"
#include "numerics/f32.hpp"
#include "numerics/round_detail.hpp"

// The correctly rounded f32 operations below (1.0f / x, a / b, a * b, a + b) rely on binary32
// arithmetic being evaluated in binary32 (SSE on x86-64), not in x87 extended precision.
static_assert(FLT_EVAL_METHOD == 0, "binary32 arithmetic must be evaluated in binary32");
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559);

namespace rrswin {
namespace {

using detail::u128;

float canonical_nan() { return f32_canonical_nan(); }  // numerics/f32.hpp: the one definition

bool is_subnormal(float x) { return x != 0.0f && std::fabs(x) < FLT_MIN; }

// A positive normal binary32 as an integer significand (24 bits) times 2^exp.
struct Dyadic {
  std::uint64_t sig;
  int exp;
};
Dyadic decompose_positive_normal(float x) {
  const std::uint32_t b = std::bit_cast<std::uint32_t>(x);
  return {(b & 0x7FFFFFu) | 0x800000u, static_cast<int>((b >> 23) & 0xFF) - 150};
}

// Sign of (m^2 * x - 1) for m = mm * 2^me and x = mx * 2^xe (all positive), exactly.
// mm < 2^26 and mx < 2^24, so mm^2 * mx < 2^76 fits 128 bits.
int compare_square_times_with_one(std::uint64_t mm, int me, std::uint64_t mx, int xe) {
  const u128 lhs = static_cast<u128>(mm) * mm * mx;  // value = lhs * 2^(2me + xe)
  const int s = -(2 * me + xe);                      // compare lhs with 2^s
  if (s < 0) return 1;                               // lhs >= 1 > 2^s
  if (s >= 127) return -1;                           // lhs < 2^76 < 2^s
  const u128 rhs = static_cast<u128>(1) << s;
  return lhs < rhs ? -1 : (lhs > rhs ? 1 : 0);
}

// Correctly rounded 1/sqrt(x) for a positive normal binary32 x (result in (2^-64, 2^63]).
// Candidate from double, then exact correction against the two neighbouring rounding midpoints:
// y = RN(t) iff m_lo < t < m_hi, i.e. m_lo^2 x < 1 < m_hi^2 x. t is never a midpoint: that would
// need (odd 25-bit integer)^2 * (integer) = power of two.
float rsqrt_correctly_rounded(float x) {
  const Dyadic xd = decompose_positive_normal(x);
  float y = static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
  for (int guard = 0; guard < 8; ++guard) {
    const Dyadic yd = decompose_positive_normal(y);
    // Midpoints in units of 2^(exp-2): m_hi = y + ulp/2; m_lo = y - ulp/2, or y - ulp/4 when y
    // is a power of two (the binade below has half the spacing).
    const std::uint64_t hi = 4 * yd.sig + 2;
    const std::uint64_t lo = (yd.sig == 0x800000u) ? 4 * yd.sig - 1 : 4 * yd.sig - 2;
    if (compare_square_times_with_one(lo, yd.exp - 2, xd.sig, xd.exp) >= 0) {
      y = std::nextafter(y, 0.0f);  // t <= m_lo: too big
    } else if (compare_square_times_with_one(hi, yd.exp - 2, xd.sig, xd.exp) <= 0) {
      y = std::nextafter(y, INFINITY);  // t >= m_hi: too small
    } else {
      return y;
    }
  }
  return y;  // unreachable: the double candidate is within one ulp
}

// 2^x for x in [-1/2, 1/2] scaled by 2^n, in binary128, to ~2^-105 relative: the slow path of
// ex2 for the rare inputs whose long double value lies too close to a binary32 rounding midpoint.
// 2^f = exp(f ln2) by its Taylor series (|f ln2| <= 0.35: 30 terms reach 2^-150).
float exp2_binary128(float x) {
  const float n = std::nearbyint(x);                                             // |x - n| <= 1/2, exact in binary32
  const __float128 f = static_cast<__float128>(x) - static_cast<__float128>(n);  // exact
  // ln 2 as a double-double (error ~2^-110 relative): 0x1.62e42fefa39efp-1 + 0x1.abc9e3b39803fp-56.
  const __float128 ln2 = static_cast<__float128>(0x1.62e42fefa39efp-1) + static_cast<__float128>(0x1.abc9e3b39803fp-56);
  const __float128 t = f * ln2;
  __float128 sum = 1;
  for (int k = 30; k >= 1; --k) sum = 1 + sum * t / k;  // Horner form of sum t^k / k!
  // Scale by 2^n exactly (|n| <= 128, binary128 holds every such power of two).
  const int ni = static_cast<int>(n);
  __float128 scale = 1;
  const __float128 two = 2, half = 0.5;
  for (int i = 0; i < (ni > 0 ? ni : -ni); ++i) scale *= (ni > 0 ? two : half);
  return static_cast<float>(sum * scale);  // one rounding (libgcc soft-fp, RNE)
}

// True when the exact 2^x could round differently from y = exp2l(x): y lies within 2^-24 of a
// half-ulp point in units of half an ulp (a relative distance of about 2^-48), far more than the
// error of exp2l (a few ulp of a 64-bit significand, 2^-62 relative).
bool near_f32_midpoint(long double y) {
  int ex;
  const long double s = std::ldexp(std::frexp(y, &ex), 25);  // in [2^24, 2^25): half-ulp units
  const long double nearest_odd = 2 * std::floor(s / 2) + 1;
  return std::fabs(s - nearest_odd) < 0x1p-24L;
}

}  // namespace

float ftz_f32(float x) { return is_subnormal(x) ? std::copysign(0.0f, x) : x; }

// rcp.approx.ftz.f32. PTX specials: +-0 and +-subnormal -> +-Inf, +-Inf -> +-0, NaN -> NaN.
// Binary32 division is correctly rounded (IEEE 754), so 1.0f / x is the model exactly.
float rcp_approx_ftz_f32(float x) {
  x = ftz_f32(x);
  if (std::isnan(x)) return canonical_nan();
  return ftz_f32(1.0f / x);
}

// rsqrt.approx.ftz.f32. PTX specials: -Inf, -normal -> NaN; -0, -subnormal -> -Inf;
// +0, +subnormal -> +Inf; +Inf -> +0; NaN -> NaN. Finite positive results are normal.
float rsqrt_approx_ftz_f32(float x) {
  x = ftz_f32(x);
  if (std::isnan(x)) return canonical_nan();
  if (x == 0.0f) return std::copysign(INFINITY, x);
  if (x < 0.0f) return canonical_nan();
  if (std::isinf(x)) return 0.0f;
  return rsqrt_correctly_rounded(x);
}

// ex2.approx.ftz.f32 (MODEL-DEPENDENT: the hardware is only bounded, 2 ulp). PTX specials:
// -Inf -> +0, +-0 and +-subnormal -> +1, +Inf -> +Inf, NaN -> NaN.
// For x < -126 the exact 2^x is below 2^-126 and its binary32 rounding is subnormal (the float
// just below -126 is -126 - 2^-17, far from rounding up to 2^-126): flushed to +0. For x >= 128
// it overflows; below 128 (at most 128 - 2^-17) it stays below FLT_MAX.
float ex2_approx_ftz_f32(float x) {
  x = ftz_f32(x);
  if (std::isnan(x)) return canonical_nan();
  if (x < -126.0f) return 0.0f;
  if (x >= 128.0f) return INFINITY;
  const long double y = std::exp2(static_cast<long double>(x));
  if (!near_f32_midpoint(y)) return static_cast<float>(y);
  return exp2_binary128(x);
}

// div.approx.ftz.f32 (MODEL-DEPENDENT): PTX defines it as a * (1/b) with at most 2 ulp error for
// |b| in [2^-126, 2^126]; for 2^126 < |b| < 2^128 it returns 0 for finite a and NaN for a = +-Inf
// (PTX ISA div; libdevice __nv_fast_fdividef). Model: the correctly rounded quotient a / b in the
// documented range (and IEEE a / b for b = +-0 and +-Inf, which a * (1/b) matches), the
// documented values outside it.
float div_approx_ftz_f32(float a, float b) {
  a = ftz_f32(a);
  b = ftz_f32(b);
  if (std::isnan(a) || std::isnan(b)) return canonical_nan();
  const float ab = std::fabs(b);
  if (ab > 0x1p126f && !std::isinf(b)) {
    if (std::isinf(a)) return canonical_nan();
    // a * (1/b) with 1/b flushed to a signed zero: a zero whose sign is sign(a) ^ sign(b).
    return std::signbit(a) != std::signbit(b) ? -0.0f : 0.0f;
  }
  const float q = a / b;
  return std::isnan(q) ? canonical_nan() : ftz_f32(q);
}

// mul.ftz.f32 / add.ftz.f32 (round to nearest even, the default .rn).
float mul_ftz_f32(float a, float b) {
  const float r = ftz_f32(a) * ftz_f32(b);
  return std::isnan(r) ? canonical_nan() : ftz_f32(r);
}
float add_ftz_f32(float a, float b) {
  const float r = ftz_f32(a) + ftz_f32(b);
  return std::isnan(r) ? canonical_nan() : ftz_f32(r);
}

// The kernel's wrapped forms (facts D7): cvt.f32.f16 -> op.approx.ftz.f32 -> cvt.rn.f16.f32.
// f16 subnormals are binary32 normals, so the .ftz never touches these inputs.
f16_t rcp_f16(f16_t h) { return f32_to_f16(rcp_approx_ftz_f32(f16_to_f32(h))); }
f16_t rsqrt_f16(f16_t h) { return f32_to_f16(rsqrt_approx_ftz_f32(f16_to_f32(h))); }

}  // namespace rrswin

// ---------------------------------------------------------------------------------------------
// The other .approx instructions: correctly rounded models (approx.hpp). libquadmath's binary128
// functions decide the rare inputs whose long double result lies within 2^-48 (relative) of an
// f32 midpoint: their error (about 2^-112) is far below that distance.

extern "C" {
__float128 sinq(__float128);
__float128 cosq(__float128);
__float128 log2q(__float128);
__float128 tanhq(__float128);
__float128 sqrtq(__float128);
}

namespace rrswin {
namespace {

template <class L, class Q>
float correctly_rounded(float x, L long_fn, Q quad_fn) {
  const long double y = long_fn(static_cast<long double>(x));
  if (!std::isfinite(y) || y == 0 || !near_f32_midpoint(y)) return std::isnan(y) ? canonical_nan() : static_cast<float>(y);
  return static_cast<float>(quad_fn(static_cast<__float128>(x)));
}
double flush64(double x) { return (x != 0 && std::fabs(x) < DBL_MIN) ? std::copysign(0.0, x) : x; }

}  // namespace

float sin_approx_f32(float x, bool ftz) {
  if (ftz) x = ftz_f32(x);
  if (std::isnan(x) || std::isinf(x)) return canonical_nan();
  if (x == 0) return x;
  const float r = correctly_rounded(
      x, [](long double v) { return sinl(v); }, [](__float128 v) { return sinq(v); });
  return ftz ? ftz_f32(r) : r;
}
float cos_approx_f32(float x, bool ftz) {
  if (ftz) x = ftz_f32(x);
  if (std::isnan(x) || std::isinf(x)) return canonical_nan();
  const float r = correctly_rounded(
      x, [](long double v) { return cosl(v); }, [](__float128 v) { return cosq(v); });
  return ftz ? ftz_f32(r) : r;
}
float lg2_approx_f32(float x, bool ftz) {
  if (ftz) x = ftz_f32(x);
  if (std::isnan(x) || x < 0) return canonical_nan();
  if (x == 0) return -INFINITY;
  if (std::isinf(x)) return INFINITY;
  if (x == 1.0f) return 0.0f;
  return correctly_rounded(
      x, [](long double v) { return log2l(v); }, [](__float128 v) { return log2q(v); });
}
float tanh_approx_f32(float x) {
  if (std::isnan(x)) return canonical_nan();
  if (std::isinf(x)) return std::copysign(1.0f, x);
  if (x == 0) return x;
  return correctly_rounded(
      x, [](long double v) { return tanhl(v); }, [](__float128 v) { return tanhq(v); });
}
float ex2_approx_f32(float x) {
  if (std::isnan(x)) return canonical_nan();
  if (x >= 128.0f) return INFINITY;
  if (x < -150.0f) return 0.0f;
  const long double y = std::exp2(static_cast<long double>(x));
  if (!near_f32_midpoint(y)) return static_cast<float>(y);
  return exp2_binary128(x);
}
float rcp_approx_f32(float x) {
  if (std::isnan(x)) return canonical_nan();
  return 1.0f / x;  // IEEE division: correctly rounded, subnormals kept
}
float rsqrt_approx_f32(float x) {
  if (std::isnan(x) || x < 0) return canonical_nan();
  if (x == 0) return std::copysign(INFINITY, x);
  if (std::isinf(x)) return 0.0f;
  return correctly_rounded(
      x, [](long double v) { return 1.0L / sqrtl(v); }, [](__float128 v) { return 1 / sqrtq(v); });
}
float sqrt_approx_f32(float x, bool ftz) {
  if (ftz) x = ftz_f32(x);
  if (std::isnan(x) || x < 0) return canonical_nan();
  return ftz ? ftz_f32(std::sqrt(x)) : std::sqrt(x);  // IEEE sqrt: correctly rounded
}
double rcp_approx_ftz_f64(double x) {
  x = flush64(x);
  if (std::isnan(x)) return f64_canonical_nan();
  return flush64(1.0 / x);
}
double rsqrt_approx_f64(double x, bool ftz) {
  if (ftz) x = flush64(x);
  if (std::isnan(x) || x < 0) return f64_canonical_nan();
  if (x == 0) return std::copysign(INFINITY, x);
  if (std::isinf(x)) return 0.0;
  // binary128 (113 bits) rounded once to binary64: correct unless 1/sqrt(x) lies within 2^-60
  // (relative) of a binary64 midpoint, which no binary64 input is known to reach for rsqrt.
  const double r = static_cast<double>(1 / sqrtq(static_cast<__float128>(x)));
  return ftz ? flush64(r) : r;
}

}  // namespace rrswin
