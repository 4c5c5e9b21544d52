// Plain bit types. Values travel as their bit patterns so that every rounding is explicit.
#pragma once
#include <cstdint>

namespace enc5 {

using f16_t = std::uint16_t;    // IEEE binary16 bits
using f16x2_t = std::uint32_t;  // two binary16: low half in bits 0..15 (PTX .f16x2)
using e4m3_t = std::uint8_t;    // FP8 E4M3 "fn" code (bias 7, NaN 0x7F/0xFF, max 448)

inline f16_t f16x2_lo(f16x2_t v) { return static_cast<f16_t>(v & 0xFFFFu); }
inline f16_t f16x2_hi(f16x2_t v) { return static_cast<f16_t>(v >> 16); }
inline f16x2_t f16x2_pack(f16_t lo, f16_t hi) { return static_cast<f16x2_t>(lo) | (static_cast<f16x2_t>(hi) << 16); }

}  // namespace enc5
