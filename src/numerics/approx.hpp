// The .approx.ftz.f32 instructions (numerics.md "Approximate f32 instructions").
// No bit-exact public model exists for NVIDIA's or AMD's units. rrswin computes the correctly
// rounded f32 result (after .ftz on input and output). Wrapped as cvt.f32.f16 -> op ->
// cvt.rn.f16.f32, rcp and rsqrt are provably exact this way for any hardware meeting the documented
// bounds (test: approx_test.cpp). ex2 and div in E61 are applied to unrounded f32 values and are
// MODEL-DEPENDENT: this file is the one place that choice lives (docs/readings.md §2 "approx-model").
#pragma once
#include "numerics/types.hpp"

namespace rrswin {

float ftz_f32(float x);  // subnormal -> signed zero

float rcp_approx_ftz_f32(float x);           // 1/x, correctly rounded, ftz
float rsqrt_approx_ftz_f32(float x);         // 1/sqrt(x), correctly rounded, ftz
float ex2_approx_ftz_f32(float x);           // 2^x, correctly rounded, ftz          (model-dependent)
float div_approx_ftz_f32(float a, float b);  // a * (1/b) as one correctly rounded quotient (model-dependent)
float mul_ftz_f32(float a, float b);         // mul.ftz.f32
float add_ftz_f32(float a, float b);         // add.ftz.f32

// The other .approx instructions (issue 20 §2). NVIDIA publishes error bounds, not bits, so every
// one is MODEL-DEPENDENT: modelled as the correctly rounded result (long double, and binary128
// where the long double lies near an f32 midpoint), after .ftz on input and output where given.
// PTX specials: sin/cos(+-Inf) = NaN; lg2(+-0) = -Inf, lg2(x < 0) = NaN; tanh(+-Inf) = +-1.
// The interpreter reports every execution of them (RunStats::model_dependent).
float sin_approx_f32(float x, bool ftz);
float cos_approx_f32(float x, bool ftz);
float lg2_approx_f32(float x, bool ftz);
float tanh_approx_f32(float x);
float ex2_approx_f32(float x);                // ex2.approx.f32 (subnormal results kept)
float rcp_approx_f32(float x);                // rcp.approx.f32 (no .ftz)
float rsqrt_approx_f32(float x);              // rsqrt.approx.f32 (no .ftz)
float sqrt_approx_f32(float x, bool ftz);     // sqrt.approx{.ftz}.f32
double rcp_approx_ftz_f64(double x);          // rcp.approx.ftz.f64 (binary64 subnormals flushed)
double rsqrt_approx_f64(double x, bool ftz);  // rsqrt.approx{.ftz}.f64

// The kernel's wrapped forms: cvt.f32.f16 -> op -> cvt.rn.f16.f32.
f16_t rcp_f16(f16_t h);
f16_t rsqrt_f16(f16_t h);

}  // namespace rrswin
