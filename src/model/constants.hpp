// The layer's numeric constants, each written once for the golden model, the fast engine and the
// CUDA port (plain constexpr scalars: host and device code both read them). Every value is the bit
// pattern the original kernel materialises; the comments give the value and the spec's place.
#pragma once
#include <cstdint>

#include "numerics/types.hpp"

namespace rrswin::golden {

// E11 steps 1..5 (facts C4; DOC5 E11(a) s8080..s8103): the cubic exponent of a score x:
// m = clamp(x * kE11Scale, -kE11Clamp, +kE11Clamp), tt = m*(-m) + kE11Quadratic,
// u = m*tt + kE11Linear, e = (u << 5) & kE11ExponentBits (u's mantissa becomes e's exponent).
inline constexpr f16_t kE11Scale = 0x2466;         // 0.017181396484375 (f32 literal 0x3C8CCB50 -> f16)
inline constexpr f16_t kE11ClampLow = 0xB873;      // -0.55615234375
inline constexpr f16_t kE11ClampHigh = 0x3873;     // +0.55615234375
inline constexpr f16_t kE11Quadratic = 0x3B6B;     // 0.92724609375
inline constexpr f16_t kE11Linear = 0x3D80;        // 1.375
inline constexpr f16_t kE11ExponentBits = 0x7FE0;  // the 10 bits the shifted mantissa lands in

// E21's clamped cubic activation (facts C10): y = clamp(y0, -2, 2),
// gate = kActHalf + y (kActOffset - kActSlope |y|), out = y0 gate; each op one f16 rounding.
inline constexpr f16_t kActClampLow = 0xC000;   // -2
inline constexpr f16_t kActClampHigh = 0x4000;  // +2
inline constexpr f16_t kActSlope = 0x2D30;      // 0.0810546875
inline constexpr f16_t kActOffset = 0x3698;     // 0.412109375
inline constexpr f16_t kActHalf = 0x3800;       // 0.5

// The RMS norms' epsilon: E20 adds 2^-13 (facts C8.4, CONFIRMED: the f16 0x0800 materialised at
// s12820); the prologue's is the reading prologue-eps (facts B4, %fd770): 2^-13 or 2^-10.
inline constexpr f16_t kE20Eps = 0x0800;
inline constexpr f16_t kPrologueEpsE2m13 = 0x0800;  // 2^-13
inline constexpr f16_t kPrologueEpsE2m10 = 0x1400;  // 2^-10

// E61's softmax exponent (facts C14.4): e_i = ex2.approx.ftz(f32(d_i) * log2 e), log2 e as the
// binary32 0x3FB8AA3B the kernel multiplies by (mul.ftz.f32).
inline constexpr std::uint32_t kLog2eF32Bits = 0x3FB8AA3Bu;

// The merge layers' final epilogue (enc4's E62, enc3's E48; docs/readings.md §7 "e62"): the
// sigmoid 1/(1 + 2^(-log2e v)) multiplies by -log2 e as the binary32 0xBFB8AA3B and adds and
// divides with 1.0 (DOC0 E22(c)/(e), DOC1 E(e): mul.ftz.f32 by 0fBFB8AA3B, add.ftz.f32 0f3F800000,
// div.approx.ftz.f32 0f3F800000); the quad value is scaled by 0.25 (DOC4 %f1148 = 0f3E800000 at
// s21606, DOC3 s17122, rounded to f16 for mul.f16x2) and summed over shfl.sync.down by 1 and 8
// (DOC4 %r31545 = 1 at s21424, %r31553 = 8 at s21417).
inline constexpr std::uint32_t kMinusLog2eF32Bits = 0xBFB8AA3Bu;
inline constexpr std::uint32_t kOneF32Bits = 0x3F800000u;
inline constexpr f16_t kE62Quarter = 0x3400;  // 0.25
inline constexpr int kE62ShflDeltaX = 1;
inline constexpr int kE62ShflDeltaY = 8;

}  // namespace rrswin::golden
