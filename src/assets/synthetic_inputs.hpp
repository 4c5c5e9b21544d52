// Deterministic synthetic inputs for the layer: an input plane arena (5*ey*ex*32 bytes of e4m3, or
// `planes` planes for another layer of the template: enc3 reads 4,
// never a NaN code) and an RGBA f16 texture of ex x ey texels. The default variant looks like a
// normalised activation; the stress variant mixes in the extremes that drive every nonlinear
// branch of the layer (with the stress weights): saturating codes (+-448), e4m3 subnormals,
// all-zero tokens (the norm's epsilon path), huge tokens, f16 subnormal and large texels.
#pragma once
#include <cstdint>
#include <vector>

#include "model/texture_surface.hpp"

namespace rrswin {

struct SyntheticFrame {
  int ex = 0, ey = 0;
  std::vector<std::uint8_t> input_arena;  // planes (5) * ey * ex * 32 bytes
  Texture texture;                        // ex x ey, clamp addressing
};

// splitmix64 (Steele, Lea, Flood 2014): the project's own PRNG for synthetic data.
struct SplitMix64 {
  std::uint64_t state;
  explicit SplitMix64(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(next() % n); }
};

SyntheticFrame make_synthetic_frame(int ex, int ey, std::uint64_t seed, bool stress, int planes = 5);

}  // namespace rrswin
