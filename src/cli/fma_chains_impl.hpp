// The FMA peak loop of fma_peak.hpp, written once for each SIMD width's translation unit
// (fma_peak_avx2.cpp, fma_peak_avx512.cpp), which include it with their own target flags and vector
// types. Internal linkage: no code compiled for one width may be shared with the other.
#pragma once
#include <cstdint>

#include "cli/fma_peak.hpp"

namespace rrswin::bench {
namespace {

// kFmaChains (12) independent chains of one FMA each per iteration (fma_peak.hpp says why 12).
template <typename V, V (*Set1)(double), V (*Fma)(V, V, V), V (*Add)(V, V)>
V chains(std::int64_t iters) {
  static_assert(kFmaChains == 12, "the chains below are written out");
  V a0 = Set1(1.0), a1 = Set1(1.001), a2 = Set1(1.002), a3 = Set1(1.003), a4 = Set1(1.004), a5 = Set1(1.005);
  V a6 = Set1(1.006), a7 = Set1(1.007), a8 = Set1(1.008), a9 = Set1(1.009), a10 = Set1(1.010), a11 = Set1(1.011);
  const V x = Set1(0.999999), y = Set1(1e-7);
  for (std::int64_t it = 0; it < iters; ++it) {
    a0 = Fma(a0, x, y), a1 = Fma(a1, x, y), a2 = Fma(a2, x, y), a3 = Fma(a3, x, y);
    a4 = Fma(a4, x, y), a5 = Fma(a5, x, y), a6 = Fma(a6, x, y), a7 = Fma(a7, x, y);
    a8 = Fma(a8, x, y), a9 = Fma(a9, x, y), a10 = Fma(a10, x, y), a11 = Fma(a11, x, y);
  }
  return Add(Add(Add(Add(a0, a1), Add(a2, a3)), Add(Add(a4, a5), Add(a6, a7))), Add(Add(a8, a9), Add(a10, a11)));
}

}  // namespace
}  // namespace rrswin::bench
