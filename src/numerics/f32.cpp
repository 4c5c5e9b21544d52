// IEEE binary32/binary64 operations with an explicit rounding direction (f32.hpp).
//
// Why the host's operations are exact here: IEEE 754 requires +, -, *, /, sqrt, fma and the
// conversions to be correctly rounded in the current rounding direction, and x86-64's SSE
// instructions (and glibc's fma) implement that for all four directions. Each directed operation
// sets the direction for itself and restores the previous one; the operands are read from, and
// the result written to, volatile objects between the two calls, so the compiler (which builds
// this file without -frounding-math) cannot move the operation across the mode change. Round to
// nearest runs without a mode change: the process keeps the C default (to nearest), nothing in
// rrswin changes it except this file, which restores it. The binary32 operations are evaluated in
// binary32 (FLT_EVAL_METHOD == 0), never through a wider type (that would round twice).
// Verified against MPFR in every direction, subnormals and specials included (tests/f32_test.cpp).
#include "numerics/f32.hpp"

#include <bit>
#include <cfenv>
#include <cfloat>
#include <cmath>
#include <limits>

static_assert(FLT_EVAL_METHOD == 0, "binary32 arithmetic must be evaluated in binary32");

namespace rrswin {

namespace {

int host_mode(Round r) {
  switch (r) {
    case Round::rz: return FE_TOWARDZERO;
    case Round::rm: return FE_DOWNWARD;
    case Round::rp: return FE_UPWARD;
    case Round::rn: break;
  }
  return FE_TONEAREST;
}

// Runs op() with the host's rounding direction set to r.
template <class T, class F>
T in_mode(Round r, F op) {
  if (r == Round::rn) return op();
  const int old = std::fegetround();
  std::fesetround(host_mode(r));
  const T v = op();
  std::fesetround(old);
  return v;
}

template <class T>
T canonical(T v) {
  if constexpr (sizeof(T) == 4)
    return std::isnan(v) ? std::bit_cast<float>(kF32CanonicalNaN) : v;
  else
    return std::isnan(v) ? std::bit_cast<double>(kF64CanonicalNaN) : v;
}

template <class T>
T add(T a, T b, Round r) {
  return canonical(in_mode<T>(r, [&] {
    volatile T x = a, y = b;
    volatile T z = x + y;
    return static_cast<T>(z);
  }));
}
template <class T>
T mul(T a, T b, Round r) {
  return canonical(in_mode<T>(r, [&] {
    volatile T x = a, y = b;
    volatile T z = x * y;
    return static_cast<T>(z);
  }));
}
template <class T>
T div(T a, T b, Round r) {
  return canonical(in_mode<T>(r, [&] {
    volatile T x = a, y = b;
    volatile T z = x / y;
    return static_cast<T>(z);
  }));
}
template <class T>
T fma3(T a, T b, T c, Round r) {
  return canonical(in_mode<T>(r, [&] {
    volatile T x = a, y = b, w = c;
    volatile T z = std::fma(static_cast<T>(x), static_cast<T>(y), static_cast<T>(w));
    return static_cast<T>(z);
  }));
}
template <class T>
T sqrt1(T a, Round r) {
  if (std::isnan(a) || a < 0) return canonical(std::numeric_limits<T>::quiet_NaN());
  return in_mode<T>(r, [&] {
    volatile T x = a;
    volatile T z = std::sqrt(static_cast<T>(x));
    return static_cast<T>(z);
  });
}

template <class T>
T min2(T a, T b, bool nan_wins) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) {
    if (nan_wins || (na && nb)) return canonical(std::numeric_limits<T>::quiet_NaN());
    return na ? b : a;
  }
  if (a == b) return std::signbit(a) ? a : b;  // -0 < +0
  return a < b ? a : b;
}
template <class T>
T max2(T a, T b, bool nan_wins) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) {
    if (nan_wins || (na && nb)) return canonical(std::numeric_limits<T>::quiet_NaN());
    return na ? b : a;
  }
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

template <class T>
T round_integral(T x, Round r) {
  switch (r) {
    case Round::rz: return std::trunc(x);
    case Round::rm: return std::floor(x);
    case Round::rp: return std::ceil(x);
    case Round::rn: break;
  }
  return std::nearbyint(x);  // to nearest even in the default direction (see the file comment)
}

}  // namespace

float f32_canonical_nan() { return std::bit_cast<float>(kF32CanonicalNaN); }
double f64_canonical_nan() { return std::bit_cast<double>(kF64CanonicalNaN); }
float f32_canonicalize(float x) { return canonical(x); }
double f64_canonicalize(double x) { return canonical(x); }
double f32_to_f64(float x) { return canonical(static_cast<double>(x)); }
float f32_flush(float x) { return (x != 0.0f && std::fabs(x) < FLT_MIN) ? std::copysign(0.0f, x) : x; }
float f32_sat(float x) { return std::isnan(x) || x <= 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
double f64_sat(double x) { return std::isnan(x) || x <= 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x); }

float f32_add(float a, float b, Round r) { return add(a, b, r); }
float f32_sub(float a, float b, Round r) { return add(a, -b, r); }
float f32_mul(float a, float b, Round r) { return mul(a, b, r); }
float f32_fma(float a, float b, float c, Round r) { return fma3(a, b, c, r); }
float f32_div(float a, float b, Round r) { return div(a, b, r); }
float f32_sqrt(float a, Round r) { return sqrt1(a, r); }
float f32_rcp(float a, Round r) { return div(1.0f, a, r); }
double f64_add(double a, double b, Round r) { return add(a, b, r); }
double f64_sub(double a, double b, Round r) { return add(a, -b, r); }
double f64_mul(double a, double b, Round r) { return mul(a, b, r); }
double f64_fma(double a, double b, double c, Round r) { return fma3(a, b, c, r); }
double f64_div(double a, double b, Round r) { return div(a, b, r); }
double f64_sqrt(double a, Round r) { return sqrt1(a, r); }
double f64_rcp(double a, Round r) { return div(1.0, a, r); }

float f32_min(float a, float b, bool nan_wins) { return min2(a, b, nan_wins); }
float f32_max(float a, float b, bool nan_wins) { return max2(a, b, nan_wins); }
namespace {
float xorsign(float r, float a, float b) {
  if (r != r) return r;
  const std::uint32_t s = (std::bit_cast<std::uint32_t>(a) ^ std::bit_cast<std::uint32_t>(b)) & 0x80000000u;
  return std::bit_cast<float>((std::bit_cast<std::uint32_t>(r) & 0x7FFFFFFFu) | s);
}
}  // namespace
float f32_min_xorsign_abs(float a, float b, bool nan_wins) { return xorsign(min2(std::fabs(a), std::fabs(b), nan_wins), a, b); }
float f32_max_xorsign_abs(float a, float b, bool nan_wins) { return xorsign(max2(std::fabs(a), std::fabs(b), nan_wins), a, b); }
double f64_min(double a, double b, bool nan_wins) { return min2(a, b, nan_wins); }
double f64_max(double a, double b, bool nan_wins) { return max2(a, b, nan_wins); }

std::uint64_t f64_to_int(double v, Round r, int bits, bool is_signed) {
  const std::uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  if (std::isnan(v)) return 0;
  v = round_integral(v, r);
  if (is_signed) {
    const double lim = std::ldexp(1.0, bits - 1);      // exact: a power of two
    if (v < -lim) return (1ull << (bits - 1)) & mask;  // the most negative value
    if (v >= lim) return ((1ull << (bits - 1)) - 1) & mask;
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) & mask;
  }
  if (v <= 0) return 0;  // -0 and negative values saturate to 0
  if (v >= std::ldexp(1.0, bits)) return mask;
  return static_cast<std::uint64_t>(v);
}

float int_to_f32(std::uint64_t x, bool is_signed, Round r) {
  return in_mode<float>(r, [&] {
    volatile std::uint64_t v = x;
    volatile float z = is_signed ? static_cast<float>(static_cast<std::int64_t>(v)) : static_cast<float>(static_cast<std::uint64_t>(v));
    return static_cast<float>(z);
  });
}
double int_to_f64(std::uint64_t x, bool is_signed, Round r) {
  return in_mode<double>(r, [&] {
    volatile std::uint64_t v = x;
    volatile double z = is_signed ? static_cast<double>(static_cast<std::int64_t>(v)) : static_cast<double>(static_cast<std::uint64_t>(v));
    return static_cast<double>(z);
  });
}
float f64_to_f32(double x, Round r) {
  return canonical(in_mode<float>(r, [&] {
    volatile double v = x;
    volatile float z = static_cast<float>(static_cast<double>(v));
    return static_cast<float>(z);
  }));
}
float f32_round_integral(float x, Round r) { return canonical(round_integral(x, r)); }
double f64_round_integral(double x, Round r) { return canonical(round_integral(x, r)); }

}  // namespace rrswin
