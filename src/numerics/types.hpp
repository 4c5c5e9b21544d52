// Plain bit types. Values travel as their bit patterns so that every rounding is explicit.
#pragma once
#include <cstdint>

namespace rrswin {

using f16_t = std::uint16_t;    // IEEE binary16 bits
using f16x2_t = std::uint32_t;  // two binary16: low half in bits 0..15 (PTX .f16x2)
using e4m3_t = std::uint8_t;    // FP8 E4M3 "fn" code (bias 7, NaN 0x7F/0xFF, max 448)

// What .relu (f16/f16x2/bf16/bf16x2 results) makes of a -0 result: docs/readings.md
// "ptx-relu-negative-zero", the interpreter's reading (RunOptions::relu_negative_zero). plus_zero
// (default): -0 is negative and becomes +0, as cuda_fp16.hpp's pre-sm_80 __hfma_relu (max.NaN with
// +0) gives; keep: -0 is not below 0 and stays -0. Either way a NaN becomes the canonical NaN.
enum class ReluNegativeZero : std::uint8_t { plus_zero, keep };

inline f16_t f16x2_lo(f16x2_t v) { return static_cast<f16_t>(v & 0xFFFFu); }
inline f16_t f16x2_hi(f16x2_t v) { return static_cast<f16_t>(v >> 16); }
inline f16x2_t f16x2_pack(f16_t lo, f16_t hi) { return static_cast<f16x2_t>(lo) | (static_cast<f16x2_t>(hi) << 16); }

}  // namespace rrswin
