// NVIDIA's host emulation of the FP8 conversions, compiled from the CUDA toolkit's cuda_fp8.hpp
// (only when the toolkit is present: ENC5_HAVE_CUDA_FP8_REF). The independent reference for e4m3.
#pragma once
#include <cstdint>

namespace enc5::ref {
// __nv_cvt_halfraw2_to_fp8x2(x, __NV_SATFINITE, __NV_E4M3) on the f16x2 bits (low half -> byte 0).
std::uint16_t nv_cvt_f16x2_to_e4m3x2_satfinite(std::uint32_t f16x2_bits);
// __nv_cvt_fp8x2_to_halfraw2(x, __NV_E4M3): byte 0 -> low half.
std::uint32_t nv_cvt_e4m3x2_to_f16x2(std::uint16_t e4m3x2);
}  // namespace enc5::ref
