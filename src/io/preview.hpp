// Pictures for people: a tone-mapped PNG of the RGBA16F surface and a heat map of each plane of a
// plane arena (`rrswin run --preview`). Display only; nothing here feeds back into the layer.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "model/texture_surface.hpp"

namespace rrswin {

// 8-bit sRGB display value of one linear channel: Reinhard tone map x / (1 + x) of max(x, 0)
// (NaN -> 0, +Inf -> 1), then the sRGB transfer curve, rounded to nearest.
std::uint8_t tone_map_channel(float linear);

// RGB PNG bytes of the surface's ex x ey texels (alpha ignored: E61 writes 0 there), each texel
// drawn as scale x scale pixels (nearest neighbour) so that a person can see a 40 x 23 frame.
std::vector<std::uint8_t> surface_preview_png(const Surface& surface, int scale = 1);

// Greyscale PNG bytes, ex x ey, of plane q of a plane arena: per pixel the mean |value| of its 32
// e4m3 codes (NaN codes count as 448), scaled so the plane's largest mean is white.
std::vector<std::uint8_t> arena_plane_heatmap_png(std::span<const std::uint8_t> arena, int ex, int ey, int plane, int scale = 1);

// The scale `rrswin run --preview` uses: up to 8, so that the larger side is at most 512 pixels.
int preview_scale(int width, int height);

}  // namespace rrswin
