// An independent binary16 rounding oracle for the tests. It shares no code and no method with
// src/numerics: instead of shifting significands it decodes every f16 pattern once (std::ldexp of
// the IEEE 754 binary16 definition), then rounds a value by binary search in that sorted table and
// an exact comparison with the midpoint of the two neighbours (ties to the even pattern).
// Overflow: IEEE 754 RNE gives Inf from 65520 = 65504 + half an ulp upwards.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace rrswin::oracle {

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

inline constexpr int kFiniteCount = 0x7C00;  // patterns 0x0000..0x7BFF are the finite f16 >= +0

// Exact value of every non-negative finite f16 pattern, in increasing order (IEEE 754 binary16:
// exponent field e, fraction f; e == 0: f * 2^-24; else (1 + f/1024) * 2^(e - 15)).
inline const std::array<double, kFiniteCount>& f16_values() {
  static const std::array<double, kFiniteCount> t = [] {
    std::array<double, kFiniteCount> v{};
    for (int k = 0; k < kFiniteCount; ++k) {
      const int e = k >> 10, f = k & 1023;
      v[k] = (e == 0) ? std::ldexp(static_cast<double>(f), -24) : std::ldexp(1.0 + f / 1024.0, e - 15);
    }
    return v;
  }();
  return t;
}

// The same values as integers in units of 2^-48 (all below 2^64; exact since every f16 is a
// multiple of 2^-24).
inline const std::array<std::uint64_t, kFiniteCount>& f16_units48() {
  static const std::array<std::uint64_t, kFiniteCount> t = [] {
    std::array<std::uint64_t, kFiniteCount> v{};
    for (int k = 0; k < kFiniteCount; ++k) v[k] = static_cast<std::uint64_t>(std::ldexp(f16_values()[k], 48));
    return v;
  }();
  return t;
}

// Value of an f16 pattern (NaN for NaN patterns), independent of src/.
inline double f16_value(std::uint16_t h) {
  const int mag = h & 0x7FFF;
  double v;
  if (mag < kFiniteCount)
    v = f16_values()[mag];
  else if (mag == 0x7C00)
    v = INFINITY;
  else
    v = NAN;
  return (h & 0x8000) ? -v : v;
}

inline bool is_nan(std::uint16_t h) { return (h & 0x7FFF) > 0x7C00; }

// Ties-to-even choice between pattern i (value below) and i + 1 (value above).
inline std::uint16_t pick(int i, int cmp_to_mid) {
  if (cmp_to_mid < 0) return static_cast<std::uint16_t>(i);
  if (cmp_to_mid > 0) return static_cast<std::uint16_t>(i + 1);
  return static_cast<std::uint16_t>((i % 2 == 0) ? i : i + 1);
}

// RNE of a double to f16 (NaN -> 0x7FFF). All comparisons are exact in double.
inline std::uint16_t round_double(double x) {
  if (std::isnan(x)) return 0x7FFF;
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (a >= 65520.0) return sign | 0x7C00;
  const auto& t = f16_values();
  const int i = static_cast<int>(std::upper_bound(t.begin(), t.end(), a) - t.begin()) - 1;
  if (t[i] == a) return static_cast<std::uint16_t>(sign | i);
  const double next = (i + 1 < kFiniteCount) ? t[i + 1] : 65536.0;
  const double mid = (t[i] + next) / 2;  // exact: 12 significant bits at most
  return static_cast<std::uint16_t>(sign | pick(i, a < mid ? -1 : (a > mid ? 1 : 0)));
}

// RNE of the exact value sign * mag * 2^-48 (mag may exceed 2^64) to f16; mag == 0 gives +-0.
inline std::uint16_t round_units48(bool negative, u128 mag) {
  const std::uint16_t sign = negative ? 0x8000 : 0;
  const u128 overflow = static_cast<u128>(65520) << 48;
  if (mag >= overflow) return sign | 0x7C00;
  const auto& t = f16_units48();
  const int i = static_cast<int>(std::upper_bound(t.begin(), t.end(), mag, [](u128 v, std::uint64_t e) { return v < e; }) - t.begin()) - 1;
  if (t[i] == mag) return static_cast<std::uint16_t>(sign | i);
  const u128 next = (i + 1 < kFiniteCount) ? static_cast<u128>(t[i + 1]) : (static_cast<u128>(65536) << 48);
  const u128 twice = 2 * mag, sum = static_cast<u128>(t[i]) + next;
  return static_cast<std::uint16_t>(sign | pick(i, twice < sum ? -1 : (twice > sum ? 1 : 0)));
}

// Exact a*b + c for f16 patterns, IEEE 754 semantics, one RNE rounding; NaN results -> 0x7FFF.
// The signed exact value lives in units of 2^-48 (|a*b| < 2^80, |c| < 2^64).
inline std::uint16_t fma(std::uint16_t a, std::uint16_t b, std::uint16_t c) {
  if (is_nan(a) || is_nan(b) || is_nan(c)) return 0x7FFF;
  const double va = f16_value(a), vb = f16_value(b), vc = f16_value(c);
  const bool pneg = std::signbit(va) != std::signbit(vb);
  if (std::isinf(va) || std::isinf(vb)) {
    if (va == 0 || vb == 0) return 0x7FFF;
    if (std::isinf(vc) && std::signbit(vc) != pneg) return 0x7FFF;
    return pneg ? 0xFC00 : 0x7C00;
  }
  if (std::isinf(vc)) return c;
  const i128 a24 = static_cast<i128>(f16_units48()[a & 0x7FFF] >> 24);
  const i128 b24 = static_cast<i128>(f16_units48()[b & 0x7FFF] >> 24);
  const i128 p = (pneg ? -1 : 1) * a24 * b24;
  const i128 cc = (std::signbit(vc) ? -1 : 1) * static_cast<i128>(f16_units48()[c & 0x7FFF]);
  const i128 x = p + cc;
  if (x == 0) {
    // IEEE 754 6.3: exact zero sum -> +0 in RNE, unless both addends are zeros of sign -.
    const bool pzero = (p == 0), czero = (cc == 0);
    return (pzero && czero && pneg && std::signbit(vc)) ? 0x8000 : 0x0000;
  }
  return round_units48(x < 0, static_cast<u128>(x < 0 ? -x : x));
}

inline std::uint16_t add(std::uint16_t a, std::uint16_t b) { return fma(a, 0x3C00, b); }           // a*1 + b
inline std::uint16_t sub(std::uint16_t a, std::uint16_t b) { return fma(a, 0x3C00, b ^ 0x8000); }  // a*1 + (-b)
inline std::uint16_t mul(std::uint16_t a, std::uint16_t b) {
  // a*b + (-0): the -0 addend keeps the sign of a zero product (x + -0 = x).
  return fma(a, b, 0x8000);
}

// Test scale: RRSWIN_TEST_SCALE=small (the sanitizer preset) divides big loops by 100.
inline bool small_scale() {
  const char* s = std::getenv("RRSWIN_TEST_SCALE");
  return s != nullptr && std::string(s) == "small";
}
inline long long scaled(long long n) { return small_scale() ? std::max<long long>(n / 100, 1) : n; }

}  // namespace rrswin::oracle
