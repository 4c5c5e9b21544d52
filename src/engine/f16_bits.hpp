// The fast engine's binary16 <-> binary32 / binary64 conversions, written once for every kernel
// (kernels_impl.hpp, kernels_hopper_impl.hpp, the scalar epilogues): branch-free, so that loops
// over them vectorise, and bit-identical to src/numerics/f16.hpp (tests/engine_diff_test.cpp
// "EngineF16"). They use the host's IEEE hardware and rely on round-to-nearest-even without
// flush-to-zero / denormals-are-zero in MXCSR (the process default; the engine never changes it).
// Internal linkage, like everything the per-ISA translation units include (kernels_impl.hpp).
#pragma once
#include <cstdint>

#include "numerics/f16.hpp"
#include "numerics/types.hpp"

namespace rrswin::engine {
namespace {

inline std::uint32_t bits_of(float f) {
  std::uint32_t u;
  __builtin_memcpy(&u, &f, 4);
  return u;
}
inline float float_of(std::uint32_t u) {
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}
inline std::uint64_t bits_of(double d) {
  std::uint64_t u;
  __builtin_memcpy(&u, &d, 8);
  return u;
}
inline double double_of(std::uint64_t u) {
  double d;
  __builtin_memcpy(&d, &u, 8);
  return d;
}

// cvt.f32.f16 (exact: every binary16 is a binary32 normal or zero; a NaN's payload moves up as
// src/numerics does).
inline float h2f(f16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t em = h & 0x7FFFu;
  const std::uint32_t normal = (em << 13) + ((127u - 15u) << 23);  // rebias the exponent
  const std::uint32_t special = 0x7F800000u | ((em & 0x3FFu) << 13);
  const std::uint32_t sub = bits_of(static_cast<float>(static_cast<std::int32_t>(em)) * 0x1p-24f);  // m 2^-24, exact
  const std::uint32_t mag = em >= 0x7C00u ? special : em >= 0x0400u ? normal : sub;
  return float_of(mag | sign);
}

// cvt.rn.f16.f32: round to nearest even, subnormals kept, overflow to Inf, NaN -> canonical.
inline f16_t f2h(float f) {
  const std::uint32_t x = bits_of(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t a = x & 0x7FFFFFFFu;
  // |x| < 2^-14: adding 0.5 (ulp 2^-24) rounds to a multiple of 2^-24 with RNE; the bits above
  // 0.5's are the count of 2^-24 steps, i.e. the f16 subnormal (or 0x0400) encoding.
  const std::uint32_t sub = bits_of(float_of(a) + 0.5f) - 0x3F000000u;
  // Normal: rebias (127 -> 15) and round the 13 dropped bits to nearest even; a carry moves into
  // the exponent field, which is the right next binade.
  const std::uint32_t normal = (a - 0x38000000u + 0x0FFFu + ((a >> 13) & 1u)) >> 13;
  std::uint32_t r = a < 0x38800000u ? sub : normal;
  r = a >= 0x477FF000u ? 0x7C00u : r;  // 65520 and above
  r |= sign;
  r = a > 0x7F800000u ? kF16CanonicalNaN : r;
  return static_cast<f16_t>(r);
}

// f16 RNE of a FINITE binary64 (subnormals kept, |x| >= 65520 -> Inf): the construction of f2h
// with 42 dropped mantissa bits; below 2^-14, 2^28 plays 0.5's role (its ulp is 2^-24).
inline f16_t d2h(double x) {
  const std::uint64_t u = bits_of(x);
  const auto sign = static_cast<std::uint32_t>((u >> 48) & 0x8000u);
  const std::uint64_t a = u & 0x7FFFFFFFFFFFFFFFull;
  const auto sub = static_cast<std::uint32_t>(bits_of(double_of(a) + 0x1p28) - 0x41B0000000000000ull);
  const auto normal = static_cast<std::uint32_t>((a - 0x3F00000000000000ull + 0x1FFFFFFFFFFull + ((a >> 42) & 1u)) >> 42);
  std::uint32_t r = a < 0x3F10000000000000ull ? sub : normal;  // 2^-14
  r = a >= 0x40EFFE0000000000ull ? 0x7C00u : r;                // 65520
  return static_cast<f16_t>(r | sign);
}

}  // namespace
}  // namespace rrswin::engine
