// Texture coordinate arithmetic (texcoord.hpp). Every step is exact in binary64 (an f32 minus 0.5,
// its floor, the fraction times 256), so the only rounding is the weight's, done explicitly.
#include "numerics/texcoord.hpp"

#include <algorithm>
#include <cmath>

#include "numerics/f32.hpp"

namespace rrswin {

namespace {

constexpr double kTexelClamp = 1073741824.0;  // 2^30

double texel_floor(double v) { return std::clamp(std::floor(v), -kTexelClamp, kTexelClamp); }

// v >= 0 rounded to the nearest integer, ties to even (independent of the host's rounding mode).
double round_half_even(double v) {
  const double f = std::floor(v), d = v - f;
  if (d > 0.5 || (d == 0.5 && std::fmod(f, 2.0) != 0.0)) return f + 1.0;
  return f;
}

}  // namespace

float tex_unnormalize(float x, std::uint32_t size) { return f32_mul(x, static_cast<float>(size), Round::rn); }

std::int32_t tex_point_texel(float x) { return std::isnan(x) ? 0 : static_cast<std::int32_t>(texel_floor(x)); }

TexLinearTexel tex_linear_texel(float x) {
  if (std::isnan(x)) return {0, 0};
  const double xb = static_cast<double>(x) - 0.5;  // exact: an f32 has 24 significant bits
  const double i = texel_floor(xb);
  // Beyond the clamp the fraction is meaningless: such a coordinate reads the clamped texel.
  const double frac = std::clamp(xb - i, 0.0, 1.0);
  return {static_cast<std::int32_t>(i), static_cast<std::uint32_t>(round_half_even(frac * 256.0))};
}

}  // namespace rrswin
