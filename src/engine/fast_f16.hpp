// Fast, exact binary16 helpers for the fast engine's epilogues (numerics.md "f16 arithmetic").
// They return the same bits as src/numerics/f16.hpp (tested exhaustively or on millions of random
// operands in tests/engine_numerics_test.cpp) but use the host's IEEE float/double hardware:
//  * f16 -> f32 / f64: exact (every binary16 is a binary32/64 normal or zero).
//  * add/sub/mul: computed in binary32 and rounded once to f16. The product of two 11-bit
//    significands has at most 22 bits and is exact in f32; a sum is rounded twice (f32, then f16),
//    which is innocuous because 24 >= 2*11 + 2 (Figueroa's double-rounding theorem for +, -, *).
//    A sum below 2^-13 in magnitude is a multiple of 2^-24 with at most 11 significant bits, hence
//    exact in f32: the f16 subnormal range has a single rounding too.
//  * fma: computed in binary64 (a*b is exact, the sum rounded once) and rounded once to f16
//    (src/numerics/f16.cpp proves the f64 result never crosses an f16 rounding midpoint).
// NaN results are NVIDIA's canonical 0x7FFF, as in src/numerics.
// These rely on round-to-nearest-even and no flush-to-zero / denormals-are-zero in MXCSR (the
// process default; the engine never changes it).
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>

#include "numerics/types.hpp"

namespace enc5::engine {

inline float f16_to_f32(f16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t em = h & 0x7FFFu;
  std::uint32_t bits;
  if (em >= 0x7C00u) {
    bits = 0x7F800000u | ((em & 0x3FFu) << 13);  // Inf / NaN (payload moved as src/numerics does)
  } else if (em >= 0x0400u) {
    bits = (em << 13) + ((127u - 15u) << 23);  // normal: rebias the exponent
  } else {
    bits = std::bit_cast<std::uint32_t>(static_cast<float>(em) * 0x1p-24f);  // subnormal: m 2^-24, exact
  }
  return std::bit_cast<float>(bits | sign);
}

inline double f16_to_f64(f16_t h) { return static_cast<double>(f16_to_f32(h)); }

// cvt.rn.f16.f32: round to nearest even, subnormals kept, overflow to Inf, NaN -> 0x7FFF.
inline f16_t f32_to_f16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t a = x & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return 0x7FFF;                               // NaN
  if (a >= 0x477FF000u) return static_cast<f16_t>(sign | 0x7C00u);  // |f| >= 65520 (incl. Inf)
  if (a < 0x38800000u) {
    // |f| < 2^-14: the f16 result is k 2^-24. In [0.5, 1) binary32's spacing is exactly 2^-24,
    // so the hardware addition |f| + 0.5 rounds |f| to that grid (RNE) and the low bits are k.
    const float t = std::bit_cast<float>(a) + 0.5f;
    return static_cast<f16_t>(sign | (std::bit_cast<std::uint32_t>(t) - 0x3F000000u));
  }
  // Normal: rebias (127 -> 15) and round the 13 dropped bits to nearest even; a carry moves into
  // the exponent field, which is the right next binade.
  const std::uint32_t odd = (a >> 13) & 1u;
  return static_cast<f16_t>(sign | ((a - 0x38000000u + 0x0FFFu + odd) >> 13));
}

// cvt.rn.f16.f64, one rounding directly from binary64.
inline f16_t f64_to_f16(double d) {
  const std::uint64_t x = std::bit_cast<std::uint64_t>(d);
  const auto sign = static_cast<std::uint32_t>((x >> 48) & 0x8000u);
  const std::uint64_t a = x & 0x7FFFFFFFFFFFFFFFull;
  if (a > 0x7FF0000000000000ull) return 0x7FFF;
  if (a >= 0x40EFFE0000000000ull) return static_cast<f16_t>(sign | 0x7C00u);  // >= 65520
  if (a < 0x3F10000000000000ull) {
    // |d| < 2^-14: binary64's spacing in [2^28, 2^29) is 2^-24 (see f32_to_f16).
    const double t = std::bit_cast<double>(a) + 0x1p28;
    return static_cast<f16_t>(sign | static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(t) - 0x41B0000000000000ull));
  }
  const std::uint64_t odd = (a >> 42) & 1u;
  return static_cast<f16_t>(sign | static_cast<std::uint32_t>((a - 0x3F00000000000000ull + 0x1FFFFFFFFFFull + odd) >> 42));
}

inline f16_t f16_add(f16_t a, f16_t b) { return f32_to_f16(f16_to_f32(a) + f16_to_f32(b)); }
inline f16_t f16_sub(f16_t a, f16_t b) { return f32_to_f16(f16_to_f32(a) - f16_to_f32(b)); }
inline f16_t f16_mul(f16_t a, f16_t b) { return f32_to_f16(f16_to_f32(a) * f16_to_f32(b)); }
inline f16_t f16_fma(f16_t a, f16_t b, f16_t c) {
  return f64_to_f16(std::fma(f16_to_f64(a), f16_to_f64(b), f16_to_f64(c)));
}
inline f16x2_t f16x2_add(f16x2_t a, f16x2_t b) {
  return f16x2_pack(f16_add(f16x2_lo(a), f16x2_lo(b)), f16_add(f16x2_hi(a), f16x2_hi(b)));
}

}  // namespace enc5::engine
