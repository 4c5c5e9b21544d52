// Pictures for people: a tone-mapped PNG of the RGBA16F surface and a heat map of each plane of a
// plane arena (`rrswin run --preview`). Display only; nothing here feeds back into the layer.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "model/texture_surface.hpp"

namespace rrswin {

// 8-bit sRGB display value of one linear channel: Reinhard tone map x / (1 + x) of max(x, 0)
// (NaN -> 0, +Inf -> 1), then the sRGB transfer curve, rounded to nearest.
std::uint8_t tone_map_channel(float linear);

// RGB PNG bytes of the surface's ex x ey texels (alpha ignored: E61 writes 0 there), each texel
// drawn as scale x scale pixels (nearest neighbour) so that a person can see a 40 x 23 frame.
std::vector<std::uint8_t> surface_preview_png(const Surface& surface, int scale = 1);

// Greyscale PNG bytes, ex x ey, of plane q of a plane arena of `planes` planes (C/32; enc5's 5):
// per pixel the mean |value| of its 32 e4m3 codes (NaN codes count as 448), scaled so the plane's
// largest mean is white.
std::vector<std::uint8_t> arena_plane_heatmap_png(std::span<const std::uint8_t> arena, int ex, int ey, int plane, int scale = 1,
                                                  int planes = 5);

// The same heat map of ex x ey pixels of `codes` consecutive e4m3 codes each (dec0's +48: 8 a pixel).
std::vector<std::uint8_t> pixel_codes_heatmap_png(std::span<const std::uint8_t> bytes, int ex, int ey, int codes, int scale = 1);

// RGB PNG bytes of an f32 surface's first three channels (dec0's +144, tanh values): [-1, 1] drawn
// as 0..255 (clamped; NaN 0), each texel scale x scale pixels.
std::vector<std::uint8_t> surface_f32_preview_png(const SurfaceF32& surface, int scale = 1);

// The scale `rrswin run --preview` uses: up to 8, so that the larger side is at most 512 pixels.
int preview_scale(int width, int height);

// A contact sheet (`rrswin run --preview`'s network.png): rows x cols cells, each a label band of
// kSheetLabel pixels (the label in a built-in 5 x 7 font drawn twice as large: digits, space and
// "cdenx"; other characters are left blank) above a tile_w x tile_h tile, the surface's tone-mapped
// preview scaled to the tile (nearest), cells kSheetMargin pixels apart and from the edges, on a
// dark grey ground. A cell without a tile stays empty.
inline constexpr int kSheetMargin = 8, kSheetLabel = 16, kSheetTileSide = 256;
struct SheetTile {
  int row = 0, col = 0;
  std::string label;
  const Surface* surface = nullptr;
};
// The tile for a level-0 grid of ex x ey: kSheetTileSide pixels on its larger side, the other in
// proportion (rounded, at least 1): 256 x 128 for 256 x 128 tokens.
std::pair<int, int> sheet_tile_size(int ex, int ey);
// The sheet's size: (cols (tile_w + margin) + margin) x (rows (label + tile_h + margin) + margin).
std::pair<int, int> sheet_size(int rows, int cols, int tile_w, int tile_h);
std::vector<std::uint8_t> contact_sheet_png(int rows, int cols, int tile_w, int tile_h, std::span<const SheetTile> tiles);

}  // namespace rrswin
