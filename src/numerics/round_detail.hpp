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
#include <type_traits>

namespace rrswin::detail {

__extension__ typedef unsigned __int128 u128;

inline int bit_length(u128 m) {
  const auto hi = static_cast<std::uint64_t>(m >> 64);
  const auto lo = static_cast<std::uint64_t>(m);
  if (hi != 0) return 128 - __builtin_clzll(hi);
  if (lo != 0) return 64 - __builtin_clzll(lo);
  return 0;
}

inline int bit_length(std::uint64_t m) { return m != 0 ? 64 - __builtin_clzll(m) : 0; }

// Rounds the exact non-negative value m * 2^e (m may be zero) to the nearest value of the format,
// ties to the even pattern, with unbounded exponent range above; returns the magnitude pattern as
// a 64-bit number so that the caller decides about overflow (a result >= the infinity/saturation
// pattern). IEEE 754 roundTiesToEven, subnormals kept. U is m's unsigned type (u128 unless a caller
// names std::uint64_t, whose arithmetic is cheaper: f16_bilinear's sums).
template <int P, int QMIN, class U = u128>
std::uint64_t round_magnitude_rne(std::type_identity_t<U> m, int e) {
  constexpr int W = 8 * sizeof(U);
  if (m == 0) return 0;
  const int top = bit_length(m) - 1 + e;  // floor(log2(value))
  // Quantum of the result: ulp of the binade, but never below the subnormal spacing.
  const int q = (top - P > QMIN) ? top - P : QMIN;
  const int shift = q - e;  // bits of m below the quantum
  U k;
  if (shift <= 0) {
    k = m << -shift;  // exact: value = k * 2^q, and k < 2^(P+1) since top - q <= P
  } else if (shift >= W) {
    // m < 2^W <= 2^shift: the value is below one quantum. It rounds up to one quantum only
    // when above half of it (a tie goes to the even 0); half = 2^(shift-1) exceeds m unless
    // shift == W.
    k = (shift == W && m > (static_cast<U>(1) << (W - 1))) ? 1 : 0;
  } else {
    k = m >> shift;
    const U rem = m - (k << shift);
    const U half = static_cast<U>(1) << (shift - 1);
    if (rem > half || (rem == half && (k & 1) != 0)) k += 1;
  }
  // k <= 2^(P+1): the pattern is ((q - QMIN) << P) + k (see the header comment).
  return (static_cast<std::uint64_t>(q - QMIN) << P) + static_cast<std::uint64_t>(k);
}

// binary16 from an exact sign-magnitude value m * 2^e: RNE, subnormals kept, overflow -> Inf.
template <class U = u128>
inline std::uint16_t round_to_f16(bool negative, std::type_identity_t<U> m, int e) {
  const std::uint16_t sign = negative ? 0x8000 : 0;
  if (m != 0 && bit_length(m) - 1 + e > 16) return sign | 0x7C00;  // >= 2^17: certainly Inf
  const std::uint64_t mag = round_magnitude_rne<10, -24, U>(m, e);
  // 0x7C00 is the pattern that follows 65504 (0x7BFF): every value >= 65520 rounds there.
  return static_cast<std::uint16_t>(sign | (mag >= 0x7C00 ? 0x7C00 : mag));
}

}  // namespace rrswin::detail
