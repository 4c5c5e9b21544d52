// Internal to src/numerics: one exact round-to-nearest-even routine shared by every conversion
// into a narrow binary format (f16 for cvt.rn.f16.{f32,f64} and the f16 arithmetic, e4m3 for
// cvt.rn.satfinite.e4m3x2.f16x2). Not part of the public contract.
//
// A narrow format with P stored mantissa bits and smallest quantum 2^QMIN (the subnormal spacing)
// holds exactly the values k * 2^q with q >= QMIN and k < 2^(P+1), where k >= 2^P unless q == QMIN
// (subnormals). Its bit pattern (without sign) is ((q - QMIN) << P) + k: for a normal value
// k = 2^P + f and the biased exponent is q - QMIN + 1, so ((q-QMIN+1) << P) + f is the same number;
// for a subnormal q == QMIN and the pattern is k itself. A carry of the rounding (k == 2^(P+1))
// lands on ((q+1-QMIN) << P) + 2^P, the next binade, by the same formula, so no special case.
//   f16:  P = 10, QMIN = -24  (binary16: bias 15, 2^-14 * 2^-10)
//   e4m3: P = 3,  QMIN = -9   (numerics.md "Formats": smallest subnormal 2^-9)
#pragma once
#include <cstdint>

namespace rrswin::detail {

__extension__ typedef unsigned __int128 u128;

inline int bit_length(u128 m) {
  const auto hi = static_cast<std::uint64_t>(m >> 64);
  const auto lo = static_cast<std::uint64_t>(m);
  if (hi != 0) return 128 - __builtin_clzll(hi);
  if (lo != 0) return 64 - __builtin_clzll(lo);
  return 0;
}

// Rounds the exact non-negative value m * 2^e (m may be zero) to the nearest value of the format,
// ties to the even pattern, with unbounded exponent range above; returns the magnitude pattern as
// a 64-bit number so that the caller decides about overflow (a result >= the infinity/saturation
// pattern). IEEE 754 roundTiesToEven, subnormals kept.
template <int P, int QMIN>
std::uint64_t round_magnitude_rne(u128 m, int e) {
  if (m == 0) return 0;
  const int top = bit_length(m) - 1 + e;  // floor(log2(value))
  // Quantum of the result: ulp of the binade, but never below the subnormal spacing.
  const int q = (top - P > QMIN) ? top - P : QMIN;
  const int shift = q - e;  // bits of m below the quantum
  u128 k;
  if (shift <= 0) {
    k = m << -shift;  // exact: value = k * 2^q, and k < 2^(P+1) since top - q <= P
  } else if (shift >= 128) {
    // m < 2^128 <= 2^shift: the value is below one quantum. It rounds up to one quantum only
    // when above half of it (a tie goes to the even 0); half = 2^(shift-1) exceeds m unless
    // shift == 128.
    k = (shift == 128 && m > (static_cast<u128>(1) << 127)) ? 1 : 0;
  } else {
    k = m >> shift;
    const u128 rem = m - (k << shift);
    const u128 half = static_cast<u128>(1) << (shift - 1);
    if (rem > half || (rem == half && (k & 1) != 0)) k += 1;
  }
  // k <= 2^(P+1): the pattern is ((q - QMIN) << P) + k (see the header comment).
  return (static_cast<std::uint64_t>(q - QMIN) << P) + static_cast<std::uint64_t>(k);
}

// binary16 from an exact sign-magnitude value m * 2^e: RNE, subnormals kept, overflow -> Inf.
inline std::uint16_t round_to_f16(bool negative, u128 m, int e) {
  const std::uint16_t sign = negative ? 0x8000 : 0;
  if (m != 0 && bit_length(m) - 1 + e > 16) return sign | 0x7C00;  // >= 2^17: certainly Inf
  const std::uint64_t mag = round_magnitude_rne<10, -24>(m, e);
  // 0x7C00 is the pattern that follows 65504 (0x7BFF): every value >= 65520 rounds there.
  return static_cast<std::uint16_t>(sign | (mag >= 0x7C00 ? 0x7C00 : mag));
}

// round_to_f16 of a 64-bit m, without 128-bit arithmetic (f16_bilinear's exact sums, below 2^59):
// the same quantum, rounding and pattern rule as round_magnitude_rne<10, -24> above.
inline std::uint16_t round_to_f16_u64(bool negative, std::uint64_t m, int e) {
  const std::uint16_t sign = negative ? 0x8000 : 0;
  if (m == 0) return sign;
  const int top = 63 - __builtin_clzll(m) + e;  // floor(log2(value))
  if (top > 16) return sign | 0x7C00;           // >= 2^17: certainly Inf
  const int q = top - 10 > -24 ? top - 10 : -24;
  const int shift = q - e;
  std::uint64_t k;
  if (shift <= 0) {
    k = m << -shift;  // exact, k < 2^11
  } else if (shift >= 64) {
    k = (shift == 64 && m > (std::uint64_t{1} << 63)) ? 1 : 0;  // below one quantum (see round_magnitude_rne)
  } else {
    k = m >> shift;
    const std::uint64_t rem = m - (k << shift), half = std::uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (k & 1) != 0)) k += 1;
  }
  const std::uint64_t mag = (static_cast<std::uint64_t>(q + 24) << 10) + k;
  return static_cast<std::uint16_t>(sign | (mag >= 0x7C00 ? 0x7C00 : mag));
}

}  // namespace rrswin::detail
