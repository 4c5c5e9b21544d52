// The other narrow formats of cvt (PTX ISA 9.7.9.21): e5m2 (1-5-2, bias 15, IEEE-like Inf/NaN),
// e4m3 from f32, and bfloat16. One conversion per function; round to nearest even, subnormals
// kept; the fp8 ones with .satfinite (|x| > MAX_NORM and +-Inf -> +-MAX_NORM). NaN results: fp8
// 0x7F with the profile's sign rule (as numerics/e4m3, docs/readings.md "e4m3-nan-sign"), bf16
// 0x7FFF. Tests: tests/minifloat_test.cpp against NVIDIA's cuda_fp8.hpp / cuda_bf16.hpp host code.
#pragma once
#include <cstdint>

#include "numerics/profile.hpp"
#include "numerics/types.hpp"

namespace rrswin {

std::uint8_t f32_to_e4m3(float x, const Profile& p);  // cvt.rn.satfinite.e4m3x2.f32, one byte
std::uint8_t f32_to_e5m2(float x, const Profile& p);  // cvt.rn.satfinite.e5m2x2.f32, one byte
std::uint8_t f16_to_e5m2(f16_t h, const Profile& p);  // cvt.rn.satfinite.e5m2x2.f16x2, one byte
f16_t e5m2_to_f16(std::uint8_t c);                    // cvt.rn.f16x2.e5m2x2, one byte: exact
std::uint16_t f32_to_bf16(float x);                   // cvt.rn.bf16.f32
float bf16_to_f32(std::uint16_t b);                   // cvt.f32.bf16 (exact)
// .relu of a bf16 result: as f16_relu (NaN -> 0x7FFF; -0 per the reading z).
std::uint16_t bf16_relu(std::uint16_t b, ReluNegativeZero z = ReluNegativeZero::plus_zero);
// bf16 arithmetic (add/sub/mul.rn.bf16, min/max/neg/abs.bf16; PTX ISA half arithmetic): one RNE
// rounding per result, subnormals kept, NaN results 0x7FFF; min/max as the f16 ones (one NaN -> the
// other operand, +0 above -0). .bf16x2: per half (low half = bits 0..15).
std::uint16_t bf16_add(std::uint16_t a, std::uint16_t b);
std::uint16_t bf16_sub(std::uint16_t a, std::uint16_t b);
std::uint16_t bf16_mul(std::uint16_t a, std::uint16_t b);
std::uint16_t bf16_min(std::uint16_t a, std::uint16_t b);
std::uint16_t bf16_max(std::uint16_t a, std::uint16_t b);
std::uint32_t bf16x2_add(std::uint32_t a, std::uint32_t b);
std::uint32_t bf16x2_sub(std::uint32_t a, std::uint32_t b);
std::uint32_t bf16x2_mul(std::uint32_t a, std::uint32_t b);
std::uint32_t bf16x2_min(std::uint32_t a, std::uint32_t b);
// fma.rn.bf16 / fma.rn.bf16x2: a*b + c with one rounding (round to odd in binary64, then to bf16).
std::uint16_t bf16_fma(std::uint16_t a, std::uint16_t b, std::uint16_t c);
std::uint32_t bf16x2_fma(std::uint32_t a, std::uint32_t b, std::uint32_t c);
// min/max.xorsign.abs on bf16 (as f16_min_xorsign_abs: min/max of the magnitudes, sign the XOR).
std::uint16_t bf16_min_xorsign_abs(std::uint16_t a, std::uint16_t b);
std::uint16_t bf16_max_xorsign_abs(std::uint16_t a, std::uint16_t b);
std::uint32_t bf16x2_min_xorsign_abs(std::uint32_t a, std::uint32_t b);
std::uint32_t bf16x2_max_xorsign_abs(std::uint32_t a, std::uint32_t b);
std::uint32_t bf16x2_max(std::uint32_t a, std::uint32_t b);  // .relu: negative (-0 too) -> +0, NaN -> 0x7FFF (as f16_relu)

}  // namespace rrswin
