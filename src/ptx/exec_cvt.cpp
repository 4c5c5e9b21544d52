// The conversions: cvt between integers, floats and integers, and f16/f32/f64 (numerics/f32,
// numerics/f16), and the minifloat forms (numerics/e4m3, numerics/minifloat). One value per lane.
#include <algorithm>
#include <cmath>

#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"
#include "numerics/f32.hpp"
#include "numerics/minifloat.hpp"
#include "ptx/exec.hpp"

namespace rrswin::ptx::detail {

namespace {

// cvt between integer types (PTX ISA 9.7.9.21): truncation, or with .sat a clamp of the source
// value to the destination range.
std::uint64_t cvt_int_int(const Inst& in, std::uint64_t x) {
  const Type dt = in.t, st = in.t2;
  const int dw = type_bits(dt), sw = type_bits(st);
  if (!(in.flags & kSat)) return trunc(type_is_signed(st) ? static_cast<std::uint64_t>(sext(x, sw)) : trunc(x, sw), dw);
  const bool ss = type_is_signed(st), ds = type_is_signed(dt);
  const __int128 val = ss ? static_cast<__int128>(sext(x, sw)) : static_cast<__int128>(trunc(x, sw));
  const __int128 lo = ds ? -(static_cast<__int128>(1) << (dw - 1)) : 0;
  const __int128 hi = ds ? (static_cast<__int128>(1) << (dw - 1)) - 1 : (static_cast<__int128>(1) << dw) - 1;
  return trunc(static_cast<std::uint64_t>(std::clamp(val, lo, hi)), dw);
}

// Integer -> float in the instruction's rounding direction (numerics/f32).
std::uint64_t cvt_int_float(const Inst& in, std::uint64_t x) {
  const Type dt = in.t, st = in.t2;
  const bool sat = in.flags & kSat;
  const int sw = type_bits(st);
  const bool ss = type_is_signed(st);
  const std::uint64_t xv = ss ? static_cast<std::uint64_t>(sext(x, sw)) : trunc(x, sw);
  if (dt == Type::f16) {
    // .rn only (decoder): every integer that rounds to a finite f16 is exact in a double,
    // and the larger ones round to Inf either way.
    return f64_to_f16(int_to_f64(xv, ss, Round::rn));
  }
  if (dt == Type::f32) {
    const float fv = int_to_f32(xv, ss, round_of(in.rnd));
    return bits(sat ? f32_sat(fv) : fv);
  }
  const double dv = int_to_f64(xv, ss, round_of(in.rnd));
  return bits(sat ? f64_sat(dv) : dv);
}

// Float -> float: an integral value in the same format (.rni/.rzi/.rmi/.rpi), or between f16, f32
// and f64 (a NaN result canonical, numerics/f32).
std::uint64_t cvt_float_float(const Inst& in, std::uint64_t x, ReluNegativeZero relu_zero) {
  const Type dt = in.t, st = in.t2;
  const bool fz = in.flags & kFtz, sat = in.flags & kSat;
  if (dt == st) {
    // cvt.rni/rzi/rmi/rpi.f32.f32 (and f64): round to an integral value in the same format.
    if (dt == Type::f32) {
      const float fr = ftz(f32_round_integral(ftz(f32(x), fz), round_of(in.rnd)), fz);
      return bits(sat ? f32_sat(fr) : fr);
    }
    const double r = f64_round_integral(f64(x), round_of(in.rnd));
    return bits(sat ? f64_sat(r) : r);
  }
  if (dt == Type::f16) {
    f16_t hr = st == Type::f32 ? f32_to_f16(ftz(f32(x), fz)) : f64_to_f16(f64(x));
    if (in.sub2 & kRelu) hr = f16_relu(hr, relu_zero);
    return sat ? f16_sat(hr) : hr;
  }
  if (dt == Type::f32) {
    float r = st == Type::f16 ? f16_to_f32(static_cast<f16_t>(x)) : f64_to_f32(f64(x), round_of(in.rnd));
    r = f32_canonicalize(ftz(r, fz));
    return bits(sat ? f32_sat(r) : r);
  }
  // f64 from f16 or f32: exact, a NaN canonical (numerics/f32).
  const double r = st == Type::f16 ? f64_canonicalize(f16_to_f64(static_cast<f16_t>(x))) : f32_to_f64(ftz(f32(x), fz));
  return bits(sat ? f64_sat(r) : r);
}

}  // namespace

// cvt.dtype.stype (not the packed and minifloat forms).
void Cta::exec_cvt(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const Type dt = in.t, st = in.t2;
  const bool df = type_is_float(dt), sf = type_is_float(st);
  const int dw = type_bits(dt);
  if (!df && !sf) {
    LANES v[l] = cvt_int_int(in, a[l]);
  } else if (!df) {
    const bool fz = in.flags & kFtz;
    LANES v[l] = f64_to_int(float_value(a[l], st, fz), round_of(in.rnd), dw, type_is_signed(dt));
  } else if (!sf) {
    LANES v[l] = cvt_int_float(in, a[l]);
  } else {
    LANES v[l] = cvt_float_float(in, a[l], s_.opt.relu_negative_zero);
  }
  // A signed result is sign-extended to a wider destination register, the others are
  // zero-extended (PTX ISA 9.4.1, Table 28: `cvt.s16.s8` into a .b32 register).
  if (type_is_signed(dt) && in.dbits > dw) LANES v[l] = trunc(static_cast<std::uint64_t>(sext(v[l], dw)), in.dbits);
  put(R(w, d[0]), v, am);
}

// The packed and minifloat conversions: e4m3x2/e5m2x2 <-> f16x2/f32 (numerics/e4m3, numerics/
// minifloat; the NaN sign is the profile's; cvt.rn.satfinite.relu.e4m3x2.f16x2), bf16, cvt.rn{.relu}.f16x2.f32.
void Cta::exec_cvt_minifloat(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  switch (in.op) {
    case Op::cvt_e4m3x2_f16x2:
      if (in.sub2 & kRelu)
        LANES v[l] = cvt_e4m3x2_f16x2_relu(static_cast<f16x2_t>(a[l]), s_.profile, s_.opt.relu_negative_zero);
      else
        LANES v[l] = cvt_e4m3x2_f16x2(static_cast<f16x2_t>(a[l]), s_.profile);
      break;
    case Op::cvt_f16x2_e4m3x2: LANES v[l] = cvt_f16x2_e4m3x2(static_cast<std::uint16_t>(a[l])); break;
    case Op::cvt_alt: {
      const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
      const Profile& p = s_.profile;
      LANES {
        switch (in.sub) {
          case 0: v[l] = f32_to_e4m3(f32(b[l]), p) | (static_cast<std::uint64_t>(f32_to_e4m3(f32(a[l]), p)) << 8); break;
          case 1: v[l] = f32_to_e5m2(f32(b[l]), p) | (static_cast<std::uint64_t>(f32_to_e5m2(f32(a[l]), p)) << 8); break;
          case 2:
            v[l] = f16_to_e5m2(static_cast<f16_t>(a[l]), p) |
                   (static_cast<std::uint64_t>(f16_to_e5m2(static_cast<f16_t>(a[l] >> 16), p)) << 8);
            break;
          case 3:
            v[l] = e5m2_to_f16(static_cast<std::uint8_t>(a[l])) |
                   (static_cast<std::uint64_t>(e5m2_to_f16(static_cast<std::uint8_t>(a[l] >> 8))) << 16);
            break;
          case 4: v[l] = f32_to_bf16(f32(a[l])); break;
          case 5: v[l] = bits(bf16_to_f32(static_cast<std::uint16_t>(a[l]))); break;
          default: v[l] = f32_to_bf16(f32(b[l])) | (static_cast<std::uint64_t>(f32_to_bf16(f32(a[l]))) << 16); break;
        }
      }
      if (in.sub2 & kRelu)
        LANES v[l] = bf16_relu(static_cast<std::uint16_t>(v[l]), s_.opt.relu_negative_zero) |
                     (static_cast<std::uint64_t>(bf16_relu(static_cast<std::uint16_t>(v[l] >> 16), s_.opt.relu_negative_zero)) << 16);
      break;
    }
    case Op::cvt_pack_f16x2_f32: {
      const std::uint64_t* b = R(w, s[1]);
      LANES v[l] = f16x2_pack(f32_to_f16(f32(b[l])), f32_to_f16(f32(a[l])));  // a -> upper half, b -> lower
      if (in.sub2 & kRelu) LANES v[l] = f16x2_relu(static_cast<f16x2_t>(v[l]), s_.opt.relu_negative_zero);
      break;
    }
    default: fail("instruction not implemented by the executor");
  }
  put(R(w, d[0]), v, am);
}

}  // namespace rrswin::ptx::detail
