// FP8 E4M3 conversions (numerics.md "Conversions", facts D2/D3).
#pragma once
#include "numerics/profile.hpp"
#include "numerics/types.hpp"

namespace rrswin {

inline constexpr e4m3_t kE4m3MaxFinite = 0x7E;  // 448

bool e4m3_is_nan(e4m3_t c);
// Exact value of a code as a double (NaN codes give a quiet NaN).
double e4m3_to_f64(e4m3_t c);
// cvt.rn.f16x2.e4m3x2 for one byte: exact; NaN codes give 0x7FFF (NVIDIA's host code).
f16_t e4m3_to_f16(e4m3_t c);
// cvt.rn.satfinite.e4m3x2.f16x2 for one half: RNE, |x| > 448 and +-Inf -> +-448, every
// |x| <= 2^-10 -> signed zero, NaN -> 0x7F (ada) or 0x7F|sign (zluda).
e4m3_t f16_to_e4m3(f16_t h, const Profile& p);

// The packed PTX forms: byte 0 <-> low f16 half, byte 1 <-> high half.
f16x2_t cvt_f16x2_e4m3x2(std::uint16_t pair);
std::uint16_t cvt_e4m3x2_f16x2(f16x2_t v, const Profile& p);
// cvt.rn.satfinite.relu.e4m3x2.f16x2 (PTX ISA cvt: .relu clamps a negative result to 0, a NaN
// result becomes the canonical NaN 0x7F): f16_to_e4m3 of each half, then a NaN code -> 0x7F, a
// negative code -> 0x00, its -0 (0x80) per the reading z (docs/readings.md "ptx-relu-negative-zero").
e4m3_t e4m3_relu(e4m3_t c, ReluNegativeZero z = ReluNegativeZero::plus_zero);
std::uint16_t cvt_e4m3x2_f16x2_relu(f16x2_t v, const Profile& p, ReluNegativeZero z = ReluNegativeZero::plus_zero);

// "q8" of the spec: f16 -> e4m3 satfinite -> back to f16 (the value an mma operand sees).
inline f16_t q8(f16_t h, const Profile& p) { return e4m3_to_f16(f16_to_e4m3(h, p)); }

}  // namespace rrswin
