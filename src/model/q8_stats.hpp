// Which inputs of a requantisation q8 (cvt.rn.satfinite.e4m3x2.f16x2) the statistics count
// (golden::LayerStats): f16 subnormals, and magnitudes above 448 that saturate (Inf included,
// NaN not). Written once: golden::quantise and the fast engine's q8 (engine/block.cpp and its
// per-ISA epilogues) all call these. `static`: each per-ISA translation unit of the engine keeps
// its own copy (engine/kernel_args.hpp: no shared inline code across ISAs).
#pragma once
#include "numerics/types.hpp"

namespace rrswin::golden {

static inline bool q8_counts_subnormal(f16_t h) {
  const unsigned mag = h & 0x7FFFu;
  return mag != 0 && mag < 0x0400u;
}
static inline bool q8_counts_saturated(f16_t h) {
  const unsigned mag = h & 0x7FFFu;
  return mag > 0x5F00u && mag <= 0x7C00u;  // |x| > 448 (0x5F00), up to Inf (0x7C00)
}
// E11's "p != 0 but q8(p) == 0" (LayerStats::p_quantised_zero).
static inline bool q8_counts_quantised_zero(f16_t p, e4m3_t q) { return (p & 0x7FFFu) != 0 && (q & 0x7Fu) == 0; }

}  // namespace rrswin::golden
