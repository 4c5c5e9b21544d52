// NVIDIA's host emulation of the FP8 conversions, compiled from the CUDA toolkit's cuda_fp8.hpp
// (only when the toolkit is present: RRSWIN_HAVE_CUDA_FP8_REF). The independent reference for e4m3.
#pragma once
#include <cstdint>

namespace rrswin::ref {
// __nv_cvt_halfraw2_to_fp8x2(x, __NV_SATFINITE, __NV_E4M3) on the f16x2 bits (low half -> byte 0).
std::uint16_t nv_cvt_f16x2_to_e4m3x2_satfinite(std::uint32_t f16x2_bits);
// __nv_cvt_fp8x2_to_halfraw2(x, __NV_E4M3): byte 0 -> low half.
std::uint32_t nv_cvt_e4m3x2_to_f16x2(std::uint16_t e4m3x2);
// __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3 / __NV_E5M2).
std::uint8_t nv_cvt_float_to_e4m3_satfinite(float x);
std::uint8_t nv_cvt_float_to_e5m2_satfinite(float x);
// __nv_cvt_halfraw_to_fp8(h, __NV_SATFINITE, __NV_E5M2) and __nv_cvt_fp8_to_halfraw(c, __NV_E5M2).
std::uint8_t nv_cvt_half_to_e5m2_satfinite(std::uint16_t h);
std::uint16_t nv_cvt_e5m2_to_half(std::uint8_t c);
// cuda_bf16.h: __float2bfloat16_rn(x) and __bfloat162float(b), as raw bits.
std::uint16_t nv_float2bfloat16_rn(float x);
float nv_bfloat162float(std::uint16_t b);
}  // namespace rrswin::ref
