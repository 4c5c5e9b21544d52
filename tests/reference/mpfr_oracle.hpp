// MPFR as the independent oracle of IEEE binary32/binary64 results (tests only): an operation at
// the format's precision and exponent range, then mpfr_subnormalize, is the correctly rounded
// IEEE result in the chosen direction, subnormals included. NaN results are reported as the
// canonical NaN (the interpreter's and numerics/f32's rule), so callers compare bits.
#pragma once
#include <mpfr.h>

#include <bit>
#include <cstdint>

#include "numerics/f32.hpp"

namespace rrswin_test {

inline mpfr_rnd_t mpfr_mode(rrswin::Round r) {
  switch (r) {
    case rrswin::Round::rz: return MPFR_RNDZ;
    case rrswin::Round::rm: return MPFR_RNDD;
    case rrswin::Round::rp: return MPFR_RNDU;
    case rrswin::Round::rn: break;
  }
  return MPFR_RNDN;
}

// The correctly rounded result of op in a binary format of precision P and exponent range
// [emin, emax] (MPFR's convention: values in [2^(e-1), 2^e)).
template <class T>
struct Oracle {
  static constexpr int P = sizeof(T) == 4 ? 24 : 53;
  static constexpr long kEmin = sizeof(T) == 4 ? -148 : -1073, kEmax = sizeof(T) == 4 ? 128 : 1024;
  mpfr_t x, y, z, w;
  mpfr_exp_t old_emin, old_emax;
  Oracle() {
    old_emin = mpfr_get_emin();
    old_emax = mpfr_get_emax();
    mpfr_set_emin(kEmin);
    mpfr_set_emax(kEmax);
    mpfr_inits2(P, x, y, z, w, static_cast<mpfr_ptr>(nullptr));
  }
  ~Oracle() {
    mpfr_clears(x, y, z, w, static_cast<mpfr_ptr>(nullptr));
    mpfr_set_emin(old_emin);
    mpfr_set_emax(old_emax);
  }
  void set(mpfr_t m, T v) {
    if constexpr (sizeof(T) == 4)
      mpfr_set_flt(m, v, MPFR_RNDN);
    else
      mpfr_set_d(m, v, MPFR_RNDN);
  }
  T get(int t, rrswin::Round r) {
    mpfr_subnormalize(z, t, mpfr_mode(r));
    if (mpfr_nan_p(z))
      return sizeof(T) == 4 ? static_cast<T>(std::bit_cast<float>(rrswin::kF32CanonicalNaN))
                            : static_cast<T>(std::bit_cast<double>(rrswin::kF64CanonicalNaN));
    if constexpr (sizeof(T) == 4)
      return mpfr_get_flt(z, MPFR_RNDN);
    else
      return mpfr_get_d(z, MPFR_RNDN);
  }
  // Every operation sets the format's exponent range first (another Oracle may have changed it).
  void range() {
    mpfr_set_emin(kEmin);
    mpfr_set_emax(kEmax);
  }
  T bin(int op, T a, T b, rrswin::Round r) {
    range();
    set(x, a);
    set(y, b);
    const mpfr_rnd_t m = mpfr_mode(r);
    int t = 0;
    switch (op) {
      case 0: t = mpfr_add(z, x, y, m); break;
      case 1: t = mpfr_sub(z, x, y, m); break;
      case 2: t = mpfr_mul(z, x, y, m); break;
      case 3: t = mpfr_div(z, x, y, m); break;
    }
    return get(t, r);
  }
  T fma(T a, T b, T c, rrswin::Round r) {
    range();
    set(x, a);
    set(y, b);
    set(w, c);
    return get(mpfr_fma(z, x, y, w, mpfr_mode(r)), r);
  }
  T sqrt(T a, rrswin::Round r) {
    range();
    set(x, a);
    return get(mpfr_sqrt(z, x, mpfr_mode(r)), r);
  }
  // A double rounded into this format (cvt.rnd.f32.f64): rounded at full range, then brought into
  // the format's range (mpfr_check_range), then subnormalised.
  T from_f64(double e, rrswin::Round r) {
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    mpfr_t t;
    mpfr_init2(t, 53);
    mpfr_set_d(t, e, MPFR_RNDN);
    int tern = mpfr_set(z, t, mpfr_mode(r));
    mpfr_clear(t);
    range();
    tern = mpfr_check_range(z, tern, mpfr_mode(r));
    return get(tern, r);
  }
  // An integer rounded into this format.
  T from_int(std::int64_t i, bool is_signed, rrswin::Round r) {
    range();
    const int t = is_signed ? mpfr_set_sj(z, i, mpfr_mode(r)) : mpfr_set_uj(z, static_cast<std::uint64_t>(i), mpfr_mode(r));
    return get(t, r);
  }
};

}  // namespace rrswin_test
