// IEEE binary32 / binary64 arithmetic as PTX defines it for the f32 and f64 instructions (PTX ISA
// 9.7.3 / 9.7.4): one correctly rounded result per operation in the instruction's rounding
// direction (.rn, .rz, .rm, .rp, set explicitly for the one operation, never the host's current
// mode), subnormals kept unless .ftz, NaN results canonical (0x7FFFFFFF / 0x7FFFFFFFFFFFFFFF, the
// NaN NVIDIA GPUs produce: numerics.md, docs/ptx.md). One operation per function (SoftFloat
// style); the interpreter (src/ptx/exec.cpp) calls these and computes no float itself.
// Tests: tests/f32_test.cpp against MPFR.
#pragma once
#include <cstdint>

namespace rrswin {

// The rounding direction of an f32/f64 instruction (.rn when it has none).
enum class Round : std::uint8_t { rn, rz, rm, rp };

inline constexpr std::uint32_t kF32CanonicalNaN = 0x7FFFFFFFu;
inline constexpr std::uint64_t kF64CanonicalNaN = 0x7FFFFFFFFFFFFFFFull;

float f32_canonical_nan();
double f64_canonical_nan();
float f32_flush(float x);  // .ftz: a subnormal becomes the zero of its sign
// A NaN becomes the canonical NaN, every other value is kept (the results of the widening cvt).
float f32_canonicalize(float x);
double f64_canonicalize(double x);
// cvt.f64.f32 (PTX ISA 9.7.9.21): exact; a NaN gives the canonical NaN (not the widened payload).
double f32_to_f64(float x);
float f32_sat(float x);  // .sat: clamp to [+0, 1]; NaN -> +0
double f64_sat(double x);

// add/sub/mul/fma/div/sqrt/rcp (.rn/.rz/.rm/.rp). A NaN result is canonical.
float f32_add(float a, float b, Round r);
float f32_sub(float a, float b, Round r);
float f32_mul(float a, float b, Round r);
float f32_fma(float a, float b, float c, Round r);  // a*b+c, one rounding
float f32_div(float a, float b, Round r);
float f32_sqrt(float a, Round r);
float f32_rcp(float a, Round r);  // 1/a correctly rounded (rcp.rnd.f32)
double f64_add(double a, double b, Round r);
double f64_sub(double a, double b, Round r);
double f64_mul(double a, double b, Round r);
double f64_fma(double a, double b, double c, Round r);
double f64_div(double a, double b, Round r);
double f64_sqrt(double a, Round r);
double f64_rcp(double a, Round r);

// min/max (PTX ISA 9.7.3.10/11): -0 < +0; one NaN operand -> the other; both NaN -> canonical
// NaN. With .NaN (nan_wins): any NaN operand -> canonical NaN.
float f32_min(float a, float b, bool nan_wins);
float f32_max(float a, float b, bool nan_wins);
// min/max.xorsign.abs.f32 (PTX ISA 9.7.3.11/12): the min/max of |a| and |b| (nan_wins: .NaN), the
// sign bit of a result that is not NaN the XOR of a's and b's sign bits.
float f32_min_xorsign_abs(float a, float b, bool nan_wins);
float f32_max_xorsign_abs(float a, float b, bool nan_wins);
double f64_min(double a, double b, bool nan_wins);
double f64_max(double a, double b, bool nan_wins);

// Conversions (cvt, PTX ISA 9.7.9.21).
// Float -> integer: round to an integral value per `r` (.rni/.rzi/.rmi/.rpi = rn/rz/rm/rp), NaN
// -> 0, saturate to the destination's range; returns the destination's bits (width `bits`).
std::uint64_t f64_to_int(double v, Round r, int bits, bool is_signed);
// Integer -> float with a rounding direction (cvt.rnd.f32/f64.s/u*). `x` is the source value
// (sign-extended or zero-extended to 64 bits per is_signed).
float int_to_f32(std::uint64_t x, bool is_signed, Round r);
double int_to_f64(std::uint64_t x, bool is_signed, Round r);
// f64 -> f32 (cvt.rnd.f32.f64), and an f32/f64 rounded to an integral value (cvt.rni.f32.f32 ...).
float f64_to_f32(double x, Round r);
float f32_round_integral(float x, Round r);
double f64_round_integral(double x, Round r);

}  // namespace rrswin
