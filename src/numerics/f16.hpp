// binary16 arithmetic as PTX defines it (numerics.md "f16 arithmetic"): one IEEE round to
// nearest even per result, subnormals kept (no .ftz on any f16 instruction of this kernel).
// NaN results are the canonical 0x7FFF in both profiles (the payload is unspecified by PTX).
#pragma once
#include "numerics/types.hpp"

namespace rrswin {

inline constexpr f16_t kF16CanonicalNaN = 0x7FFF;

// Conversions
float f16_to_f32(f16_t h);   // cvt.f32.f16 (exact)
double f16_to_f64(f16_t h);  // exact
f16_t f32_to_f16(float x);   // cvt.rn.f16.f32
f16_t f64_to_f16(double x);  // cvt.rn.f16.f64 (directly, not through f32)

bool f16_is_nan(f16_t h);

// Scalar (add/sub/mul/fma .rn.f16, max/min/neg/abs .f16)
f16_t f16_add(f16_t a, f16_t b);
f16_t f16_sub(f16_t a, f16_t b);
f16_t f16_mul(f16_t a, f16_t b);
f16_t f16_fma(f16_t a, f16_t b, f16_t c);  // a*b+c, one rounding
f16_t f16_max(f16_t a, f16_t b);           // one NaN -> the other operand; +0 > -0
f16_t f16_min(f16_t a, f16_t b);
f16_t f16_neg(f16_t a);
f16_t f16_abs(f16_t a);
// .relu (fma/min/max/cvt): a negative result becomes +0, a NaN the canonical NaN; a -0 result per
// the reading z (types.hpp ReluNegativeZero: +0 by default, as cuda_fp16.hpp's pre-sm_80 form of
// __hfma_relu does: max.NaN with +0, PTX max orders -0 below +0).
f16_t f16_relu(f16_t a, ReluNegativeZero z = ReluNegativeZero::plus_zero);
// .ftz on an f16 input (setp/set, cvt from f16): a subnormal becomes the zero of its sign.
f16_t f16_flush(f16_t a);
// .sat on an f16 destination (cvt): clamped to [0, 1], NaN and -0 to +0 (as f32_sat).
f16_t f16_sat(f16_t a);

// Bilinear texture filtering of four f16 texels t00, t10, t01, t11 (x then y) with weights
// alpha = a / 256 and beta = b / 256 (the 9-bit fixed-point weights with 8 fractional bits of the
// CUDA Programming Guide, "Texture Fetching": a, b in 0..256):
//   (1-alpha)(1-beta) t00 + alpha(1-beta) t10 + (1-alpha)beta t01 + alpha beta t11,
// computed exactly and rounded once to f16 (RNE). A NaN texel with a nonzero weight gives the
// canonical NaN; infinities follow IEEE (+Inf and -Inf together: NaN). docs/readings.md
// "ptx-tex-sampler" (the hardware's internal precision is not documented).
f16_t f16_bilinear(f16_t t00, f16_t t10, f16_t t01, f16_t t11, unsigned a, unsigned b);

// Packed .f16x2: the scalar operation on each half independently.
f16x2_t f16x2_add(f16x2_t a, f16x2_t b);
f16x2_t f16x2_sub(f16x2_t a, f16x2_t b);
f16x2_t f16x2_mul(f16x2_t a, f16x2_t b);
f16x2_t f16x2_fma(f16x2_t a, f16x2_t b, f16x2_t c);
f16x2_t f16x2_max(f16x2_t a, f16x2_t b);
// min/max.xorsign.abs (PTX ISA 9.7.4.7/8, semantics as 9.7.3.11/12): min/max of |a| and |b|, the
// sign bit of a result that is not NaN the XOR of a's and b's sign bits (per half for f16x2).
f16_t f16_min_xorsign_abs(f16_t a, f16_t b);
f16_t f16_max_xorsign_abs(f16_t a, f16_t b);
f16x2_t f16x2_min_xorsign_abs(f16x2_t a, f16x2_t b);
f16x2_t f16x2_max_xorsign_abs(f16x2_t a, f16x2_t b);
f16x2_t f16x2_min(f16x2_t a, f16x2_t b);
f16x2_t f16x2_neg(f16x2_t a);
f16x2_t f16x2_abs(f16x2_t a);
f16x2_t f16x2_relu(f16x2_t a, ReluNegativeZero z = ReluNegativeZero::plus_zero);

}  // namespace rrswin
