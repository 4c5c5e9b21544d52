// The floating-point operations: f16/f16x2 and bf16/bf16x2 arithmetic (numerics/f16,
// numerics/minifloat), f32/f64 in every rounding direction (numerics/f32), the .approx models
// (numerics/approx), testp. The values are computed in src/numerics; here they are routed per lane.
#include <cfloat>
#include <cmath>

#include "numerics/approx.hpp"
#include "numerics/f16.hpp"
#include "numerics/f32.hpp"
#include "numerics/fp_class.hpp"
#include "numerics/minifloat.hpp"
#include "ptx/exec.hpp"

static_assert(FLT_EVAL_METHOD == 0, "binary32 arithmetic must be evaluated in binary32");

namespace rrswin::ptx::detail {

// The float families by type (the decoder has checked which operations each type takes).
void Cta::exec_float(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  switch (in.t) {
    case Type::f16:
    case Type::f16x2: exec_f16(w, in, d, s, am); return;
    case Type::bf16:
    case Type::bf16x2: exec_bf16(w, in, d, s, am); return;
    case Type::f32: exec_f32(w, in, d, s, am); return;
    case Type::f64: exec_f64(w, in, d, s, am); return;
    default: fail("unsupported float type");
  }
}

// testp (PTX ISA 9.7.3.3): a predicate per lane.
void Cta::exec_testp(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const std::uint64_t* a = R(w, s[0]);
  // Inst::sub: the decoder's index of .finite .infinite .number .notanumber .normal .subnormal.
  static constexpr FpTest kTests[] = {FpTest::finite,     FpTest::infinite, FpTest::number,
                                      FpTest::notanumber, FpTest::normal,   FpTest::subnormal};
  const FpTest t = kTests[in.sub];
  std::uint32_t res = 0;
  if (in.t == Type::f32)
    LANES res |= static_cast<std::uint32_t>(f32_testp(static_cast<std::uint32_t>(a[l]), t)) << l;
  else
    LANES res |= static_cast<std::uint32_t>(f64_testp(a[l], t)) << l;
  put_pred(w, d[0], res, am);
}

void Cta::exec_f16(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  const std::uint64_t* c = in.ns > 2 ? R(w, s[2]) : nullptr;
  // The operation chosen once per instruction, then applied to the 32 lanes.
  const bool x2 = in.t == Type::f16x2;
  const auto w32 = [](std::uint64_t u) { return static_cast<std::uint32_t>(u); };
  const auto h = [](std::uint64_t u) { return static_cast<f16_t>(u); };
#define F16_UNARY(P, S)        \
  if (x2) {                    \
    LANES v[l] = P(w32(a[l])); \
  } else {                     \
    LANES v[l] = S(h(a[l]));   \
  }                            \
  break;
// The packed (x2) or single half-precision binary operation, f16 and bf16 alike.
#define F16_BINARY(P, S)                  \
  if (x2) {                               \
    LANES v[l] = P(w32(a[l]), w32(b[l])); \
  } else {                                \
    LANES v[l] = S(h(a[l]), h(b[l]));     \
  }                                       \
  break;
  switch (in.op) {
    case Op::fadd: F16_BINARY(f16x2_add, f16_add)
    case Op::fsub: F16_BINARY(f16x2_sub, f16_sub)
    case Op::fmul: F16_BINARY(f16x2_mul, f16_mul)
    case Op::fmin:
      if (in.sub2 & kXorsignAbs) {
        F16_BINARY(f16x2_min_xorsign_abs, f16_min_xorsign_abs)
      }
      F16_BINARY(f16x2_min, f16_min)
    case Op::fmax:
      if (in.sub2 & kXorsignAbs) {
        F16_BINARY(f16x2_max_xorsign_abs, f16_max_xorsign_abs)
      }
      F16_BINARY(f16x2_max, f16_max)
    case Op::fneg: F16_UNARY(f16x2_neg, f16_neg)
    case Op::fabs: F16_UNARY(f16x2_abs, f16_abs)
    case Op::ffma:
      if (x2) {
        LANES v[l] = f16x2_fma(w32(a[l]), w32(b[l]), w32(c[l]));
      } else {
        LANES v[l] = f16_fma(h(a[l]), h(b[l]), h(c[l]));
      }
      break;
    default: fail("operation not supported on f16");
  }
#undef F16_UNARY
  // min/max.NaN: a NaN operand gives the canonical NaN (per half); .relu (fma/min/max).
  if (in.sub2 & kMinMaxNaN) {
    LANES for (int hv = 0; hv < (x2 ? 2 : 1); ++hv) if (f16_is_nan(h(a[l] >> (16 * hv))) || f16_is_nan(h(b[l] >> (16 * hv)))) v[l] =
        (v[l] & ~(0xFFFFull << (16 * hv))) | (static_cast<std::uint64_t>(kF16CanonicalNaN) << (16 * hv));
  }
  if (in.sub2 & kRelu) {
    if (x2) {
      LANES v[l] = f16x2_relu(w32(v[l]), s_.opt.relu_negative_zero);
    } else {
      LANES v[l] = f16_relu(h(v[l]), s_.opt.relu_negative_zero);
    }
  }
  put(R(w, d[0]), v, am);
}

void Cta::exec_bf16(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  const std::uint64_t* c = in.ns > 2 ? R(w, s[2]) : nullptr;
  // bf16 arithmetic (numerics/minifloat); neg/abs flip / clear the sign bits.
  const bool x2 = in.t == Type::bf16x2;
  const auto w32 = [](std::uint64_t u) { return static_cast<std::uint32_t>(u); };
  const auto h = [](std::uint64_t u) { return static_cast<std::uint16_t>(u); };
  const std::uint32_t sign = x2 ? 0x80008000u : 0x8000u;
  switch (in.op) {
    case Op::fadd: F16_BINARY(bf16x2_add, bf16_add)
    case Op::fsub: F16_BINARY(bf16x2_sub, bf16_sub)
    case Op::fmul: F16_BINARY(bf16x2_mul, bf16_mul)
    case Op::fmin:
      if (in.sub2 & kXorsignAbs) {
        F16_BINARY(bf16x2_min_xorsign_abs, bf16_min_xorsign_abs)
      }
      F16_BINARY(bf16x2_min, bf16_min)
    case Op::fmax:
      if (in.sub2 & kXorsignAbs) {
        F16_BINARY(bf16x2_max_xorsign_abs, bf16_max_xorsign_abs)
      }
      F16_BINARY(bf16x2_max, bf16_max)
    case Op::fneg: LANES v[l] = (w32(a[l]) ^ sign) & (x2 ? 0xFFFFFFFFu : 0xFFFFu); break;
    case Op::fabs: LANES v[l] = w32(a[l]) & ~sign & (x2 ? 0xFFFFFFFFu : 0xFFFFu); break;
    case Op::ffma:
      if (x2) {
        LANES v[l] = bf16x2_fma(w32(a[l]), w32(b[l]), w32(c[l]));
      } else {
        LANES v[l] = bf16_fma(h(a[l]), h(b[l]), h(c[l]));
      }
      break;
    default: fail("operation not supported on bf16");
  }
#undef F16_BINARY
  if (in.sub2 & kRelu) {  // fma.rn.relu.bf16{x2} (docs/readings.md "ptx-relu-negative-zero")
    const ReluNegativeZero z = s_.opt.relu_negative_zero;
    LANES v[l] = bf16_relu(h(v[l]), z) | (x2 ? static_cast<std::uint64_t>(bf16_relu(h(v[l] >> 16), z)) << 16 : 0);
  }
  put(R(w, d[0]), v, am);
}

namespace {

// div.approx.f32 without .ftz (PTX ISA "div": d = a * (1/b); for 2^126 < |b| < 2^128 the result
// is 0, or NaN where a is infinite; subnormal inputs and results are kept): the .ftz form's model
// (numerics/approx div_approx_ftz_f32, one correctly rounded quotient) without the flushing.
// Model-dependent, like every .approx form.
float div_approx_f32(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return f32_canonical_nan();
  if (std::fabs(b) > 0x1p126f && !std::isinf(b)) {
    if (std::isinf(a)) return f32_canonical_nan();
    return std::signbit(a) != std::signbit(b) ? -0.0f : 0.0f;
  }
  const float q = a / b;
  return std::isnan(q) ? f32_canonical_nan() : q;
}

}  // namespace

// f32: numerics/f32 (IEEE, every direction), numerics/approx (.approx, add/mul.ftz).
void Cta::exec_f32(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  const std::uint64_t* c = in.ns > 2 ? R(w, s[2]) : nullptr;
  const bool fz = in.flags & kFtz, sat = in.flags & kSat;
  const Round rd = round_of(in.rnd);
  const bool nan_wins = in.sub2 & kMinMaxNaN;
  LANES {
    const float x = ftz(f32(a[l]), fz), y = b ? ftz(f32(b[l]), fz) : 0.0f, z = c ? ftz(f32(c[l]), fz) : 0.0f;
    float r = 0;
    switch (in.op) {
      // add/mul.ftz.f32 without a rounding modifier: numerics/approx's definition (E61).
      case Op::fadd: r = fz && in.rnd == Rnd::none ? add_ftz_f32(x, y) : f32_add(x, y, rd); break;
      case Op::fsub: r = f32_sub(x, y, rd); break;
      case Op::fmul: r = fz && in.rnd == Rnd::none ? mul_ftz_f32(x, y) : f32_mul(x, y, rd); break;
      case Op::ffma: r = f32_fma(x, y, z, rd); break;
      case Op::fdiv: r = !(in.flags & kApprox) ? f32_div(x, y, rd) : fz ? div_approx_ftz_f32(x, y) : div_approx_f32(x, y); break;
      case Op::fmin: r = (in.sub2 & kXorsignAbs) ? f32_min_xorsign_abs(x, y, nan_wins) : f32_min(x, y, nan_wins); break;
      case Op::fmax: r = (in.sub2 & kXorsignAbs) ? f32_max_xorsign_abs(x, y, nan_wins) : f32_max(x, y, nan_wins); break;
      case Op::fabs: v[l] = std::bit_cast<std::uint32_t>(x) & 0x7FFFFFFFu; continue;
      case Op::fneg: v[l] = std::bit_cast<std::uint32_t>(x) ^ 0x80000000u; continue;
      case Op::fsqrt: r = (in.flags & kApprox) ? sqrt_approx_f32(x, fz) : f32_sqrt(x, rd); break;
      case Op::frcp: r = !(in.flags & kApprox) ? f32_rcp(x, rd) : fz ? rcp_approx_ftz_f32(x) : rcp_approx_f32(x); break;
      case Op::frsqrt: r = fz ? rsqrt_approx_ftz_f32(x) : rsqrt_approx_f32(x); break;
      case Op::fex2: r = fz ? ex2_approx_ftz_f32(x) : ex2_approx_f32(x); break;
      case Op::fsin: r = sin_approx_f32(x, fz); break;
      case Op::fcos: r = cos_approx_f32(x, fz); break;
      case Op::flg2: r = lg2_approx_f32(x, fz); break;
      case Op::ftanh: r = tanh_approx_f32(x); break;
      case Op::fcopysign:
        v[l] = (static_cast<std::uint32_t>(a[l]) & 0x80000000u) | (static_cast<std::uint32_t>(b[l]) & 0x7FFFFFFFu);
        continue;
      default: fail("operation not supported on f32");
    }
    r = ftz(r, fz);
    if (sat) r = f32_sat(r);
    v[l] = bits(r);
  }
  put(R(w, d[0]), v, am);
}

void Cta::exec_f64(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  const std::uint64_t* c = in.ns > 2 ? R(w, s[2]) : nullptr;
  const bool fz = in.flags & kFtz, sat = in.flags & kSat;
  const Round rd = round_of(in.rnd);
  const bool nan_wins = in.sub2 & kMinMaxNaN;
  LANES {
    const double x = f64(a[l]), y = b ? f64(b[l]) : 0.0, z = c ? f64(c[l]) : 0.0;
    double r = 0;
    switch (in.op) {
      case Op::fadd: r = f64_add(x, y, rd); break;
      case Op::fsub: r = f64_sub(x, y, rd); break;
      case Op::fmul: r = f64_mul(x, y, rd); break;
      case Op::ffma: r = f64_fma(x, y, z, rd); break;
      case Op::fdiv: r = f64_div(x, y, rd); break;
      case Op::fmin: r = f64_min(x, y, nan_wins); break;
      case Op::fmax: r = f64_max(x, y, nan_wins); break;
      case Op::fabs: v[l] = a[l] & 0x7FFFFFFFFFFFFFFFull; continue;
      case Op::fneg: v[l] = a[l] ^ 0x8000000000000000ull; continue;
      case Op::fsqrt: r = f64_sqrt(x, rd); break;
      case Op::frcp: r = (in.flags & kApprox) ? rcp_approx_ftz_f64(x) : f64_rcp(x, rd); break;
      case Op::frsqrt: r = rsqrt_approx_f64(x, fz); break;
      case Op::fcopysign: v[l] = (a[l] & 0x8000000000000000ull) | (b[l] & 0x7FFFFFFFFFFFFFFFull); continue;
      default: fail("operation not supported on f64");
    }
    if (sat) r = f64_sat(r);
    v[l] = bits(r);
  }
  put(R(w, d[0]), v, am);
}

}  // namespace rrswin::ptx::detail
