// The coordinate arithmetic of a texture fetch with float coordinates (tex.2d.v4.f16.f32), one
// axis at a time: CUDA Programming Guide, "Texture Fetching" (appendix "Texture Fetching":
// nearest-point and linear filtering, 9-bit fixed-point weights with 8 fractional bits).
// docs/readings.md "ptx-tex-sampler" (the sampler is a reading of the launch, not in the PTX).
// The texels found are read by the texture's address mode (model/texture_surface.hpp) and, for
// linear filtering, blended by numerics/f16's f16_bilinear. Tests: tests/fp_class_test.cpp.
#pragma once
#include <cstdint>

namespace rrswin {

// A normalised coordinate scaled to texels: x * size, one f32 multiplication rounded to nearest.
float tex_unnormalize(float x, std::uint32_t size);

// Nearest-point filtering: the texel floor(x). A NaN coordinate reads texel 0; coordinates are
// clamped to [-2^30, 2^30] first (beyond any texture: every address mode treats them alike).
std::int32_t tex_point_texel(float x);

// Linear filtering: x_B = x - 0.5, i = floor(x_B), alpha = frac(x_B) rounded to nearest (ties to
// even) in units of 1/256, 0..256; the texels i and i+1 get weights (256-alpha)/256 and alpha/256.
// A NaN coordinate gives i = 0, alpha = 0; i is clamped as in tex_point_texel.
struct TexLinearTexel {
  std::int32_t i;
  std::uint32_t alpha;
};
TexLinearTexel tex_linear_texel(float x);

}  // namespace rrswin
