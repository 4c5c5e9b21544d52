#include "io/preview.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "io/png.hpp"
#include "layout/arena.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"

namespace rrswin {
namespace {

// Each pixel as a scale x scale square (nearest neighbour), then the PNG.
std::vector<std::uint8_t> encode_png_scaled(int w, int h, int ch, const std::vector<std::uint8_t>& px, int scale) {
  if (scale <= 1) return encode_png(w, h, ch, px);
  const int W = w * scale, H = h * scale;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(W) * H * ch);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < ch; ++c)
        out[(static_cast<std::size_t>(y) * W + x) * ch + c] = px[(static_cast<std::size_t>(y / scale) * w + x / scale) * ch + c];
  return encode_png(W, H, ch, out);
}

// The surface's texels as tone-mapped sRGB bytes, row-major, 3 a texel.
std::vector<std::uint8_t> surface_rgb(const Surface& surface) {
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(surface.width) * surface.height * 3);
  for (int y = 0; y < surface.height; ++y)
    for (int x = 0; x < surface.width; ++x) {
      const std::uint8_t* texel = &surface.bytes[static_cast<std::size_t>(y) * surface.pitch + 8 * static_cast<std::size_t>(x)];
      for (int c = 0; c < 3; ++c) {
        const f16_t h = static_cast<f16_t>(texel[2 * c] | (texel[2 * c + 1] << 8));  // little endian, r lowest
        rgb[(static_cast<std::size_t>(y) * surface.width + x) * 3 + c] = tone_map_channel(f16_to_f32(h));
      }
    }
  return rgb;
}

// ex x ey pixels of `codes` consecutive e4m3 codes: per pixel the mean |value| (NaN = 448), white
// = the largest mean.
std::vector<std::uint8_t> heatmap_png(std::span<const std::uint8_t> bytes, int ex, int ey, int codes, int scale) {
  std::vector<double> mean(static_cast<std::size_t>(ex) * ey, 0.0);
  double top = 0.0;
  for (std::size_t p = 0; p < mean.size(); ++p) {
    double sum = 0.0;
    for (int b = 0; b < codes; ++b) {
      const e4m3_t code = bytes[p * static_cast<std::size_t>(codes) + static_cast<std::size_t>(b)];
      sum += e4m3_is_nan(code) ? 448.0 : std::fabs(e4m3_to_f64(code));
    }
    mean[p] = sum / codes;
    top = std::max(top, mean[p]);
  }
  std::vector<std::uint8_t> grey(mean.size());
  for (std::size_t i = 0; i < mean.size(); ++i) grey[i] = top > 0.0 ? static_cast<std::uint8_t>(std::lround(255.0 * mean[i] / top)) : 0;
  return encode_png_scaled(ex, ey, 1, grey, scale);
}

// The contact sheet's font: 5 x 7 glyphs, a row per byte, bit 4 the leftmost column.
struct Glyph {
  char c;
  std::uint8_t rows[7];
};
constexpr Glyph kFont[] = {
    {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}}, {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}}, {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
    {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}}, {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
    {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}}, {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}}, {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
    {'c', {0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E}}, {'d', {0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F}},
    {'e', {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E}}, {'n', {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11}},
    {'x', {0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11}},
};
constexpr std::uint8_t kSheetGround = 32, kSheetInk = 224;

// `text` at (x, y) in the font drawn 2 x 2 per dot, 12 pixels a character, clipped at x_end.
void draw_label(std::vector<std::uint8_t>& rgb, int width, int x, int y, int x_end, const std::string& text) {
  for (const char ch : text) {
    const Glyph* g = nullptr;
    for (const Glyph& f : kFont)
      if (f.c == ch) g = &f;
    for (int r = 0; g && r < 7; ++r)
      for (int col = 0; col < 5; ++col) {
        if (!(g->rows[r] >> (4 - col) & 1)) continue;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx) {
            const int px = x + 2 * col + dx, py = y + 2 * r + dy;
            if (px >= x_end) continue;
            for (int c = 0; c < 3; ++c) rgb[(static_cast<std::size_t>(py) * width + px) * 3 + c] = kSheetInk;
          }
      }
    x += 12;
    if (x >= x_end) break;
  }
}

}  // namespace

int preview_scale(int width, int height) { return std::clamp(512 / std::max({width, height, 1}), 1, 8); }

std::uint8_t tone_map_channel(float linear) {
  if (std::isnan(linear) || linear <= 0.0f) return 0;
  const double x = std::isinf(linear) ? 1.0 : linear / (1.0 + static_cast<double>(linear));
  const double s = x <= 0.0031308 ? 12.92 * x : 1.055 * std::pow(x, 1.0 / 2.4) - 0.055;
  return static_cast<std::uint8_t>(std::lround(std::clamp(s, 0.0, 1.0) * 255.0));
}

std::vector<std::uint8_t> surface_preview_png(const Surface& surface, int scale) {
  if (surface.width <= 0 || surface.height <= 0) throw std::invalid_argument("surface preview: empty surface");
  return encode_png_scaled(surface.width, surface.height, 3, surface_rgb(surface), scale);
}

std::vector<std::uint8_t> surface_f32_preview_png(const SurfaceF32& surface, int scale) {
  if (surface.width <= 0 || surface.height <= 0) throw std::invalid_argument("surface preview: empty surface");
  const std::size_t n = static_cast<std::size_t>(surface.width) * surface.height;
  if (surface.rgba.size() != 4 * n) throw std::invalid_argument("surface preview: the f32 surface holds the wrong number of values");
  std::vector<std::uint8_t> rgb(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) {
      const float v = surface.rgba[4 * i + c];
      rgb[3 * i + c] = std::isnan(v) ? 0 : static_cast<std::uint8_t>(std::lround(127.5 * (std::clamp(v, -1.0f, 1.0f) + 1.0)));
    }
  return encode_png_scaled(surface.width, surface.height, 3, rgb, scale);
}

std::vector<std::uint8_t> arena_plane_heatmap_png(std::span<const std::uint8_t> arena, int ex, int ey, int plane, int scale, int planes) {
  layout::PlaneArena a{ex, ey};
  a.planes = planes;
  if (arena.size() != a.total_bytes())
    throw std::invalid_argument("arena heat map: expected " + std::to_string(a.total_bytes()) + " bytes, found " +
                                std::to_string(arena.size()));
  if (plane < 0 || plane >= planes) throw std::invalid_argument("arena heat map: plane out of range");
  const std::size_t plane_bytes = 4 * a.plane_words();
  // Plane q is an [ey][ex][32 bytes] array (layout/arena.hpp): a pixel's 32 codes are consecutive.
  return heatmap_png(arena.subspan(static_cast<std::size_t>(plane) * plane_bytes, plane_bytes), ex, ey, 32, scale);
}

std::vector<std::uint8_t> pixel_codes_heatmap_png(std::span<const std::uint8_t> bytes, int ex, int ey, int codes, int scale) {
  if (ex <= 0 || ey <= 0 || codes <= 0 || bytes.size() != static_cast<std::size_t>(ex) * ey * codes)
    throw std::invalid_argument("heat map: expected " +
                                std::to_string(static_cast<std::size_t>(std::max(ex, 0)) * std::max(ey, 0) * std::max(codes, 0)) +
                                " bytes, found " + std::to_string(bytes.size()));
  return heatmap_png(bytes, ex, ey, codes, scale);
}

std::pair<int, int> sheet_tile_size(int ex, int ey) {
  const int side = std::max({ex, ey, 1});
  auto other = [&](int v) { return std::max(1, static_cast<int>(std::lround(static_cast<double>(kSheetTileSide) * v / side))); };
  return {other(std::max(ex, 1)), other(std::max(ey, 1))};
}

std::pair<int, int> sheet_size(int rows, int cols, int tile_w, int tile_h) {
  return {cols * (tile_w + kSheetMargin) + kSheetMargin, rows * (kSheetLabel + tile_h + kSheetMargin) + kSheetMargin};
}

std::vector<std::uint8_t> contact_sheet_png(int rows, int cols, int tile_w, int tile_h, std::span<const SheetTile> tiles) {
  if (rows <= 0 || cols <= 0 || tile_w <= 0 || tile_h <= 0) throw std::invalid_argument("contact sheet: empty");
  const auto [W, H] = sheet_size(rows, cols, tile_w, tile_h);
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(W) * H * 3, kSheetGround);
  for (const SheetTile& t : tiles) {
    if (t.row < 0 || t.row >= rows || t.col < 0 || t.col >= cols) throw std::invalid_argument("contact sheet: a tile outside the sheet");
    const int x0 = kSheetMargin + t.col * (tile_w + kSheetMargin);
    const int y0 = kSheetMargin + t.row * (kSheetLabel + tile_h + kSheetMargin);
    draw_label(rgb, W, x0, y0 + 1, x0 + tile_w, t.label);
    if (!t.surface || t.surface->width <= 0 || t.surface->height <= 0) continue;
    const std::vector<std::uint8_t> src = surface_rgb(*t.surface);
    const int sw = t.surface->width, sh = t.surface->height;
    for (int y = 0; y < tile_h; ++y)
      for (int x = 0; x < tile_w; ++x) {
        const int sx = static_cast<int>(static_cast<long long>(x) * sw / tile_w);
        const int sy = static_cast<int>(static_cast<long long>(y) * sh / tile_h);
        for (int c = 0; c < 3; ++c)
          rgb[(static_cast<std::size_t>(y0 + kSheetLabel + y) * W + x0 + x) * 3 + c] =
              src[(static_cast<std::size_t>(sy) * sw + sx) * 3 + c];
      }
  }
  return encode_png(W, H, 3, rgb);
}

}  // namespace rrswin
