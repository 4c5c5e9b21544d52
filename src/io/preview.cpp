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
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(surface.width) * surface.height * 3);
  for (int y = 0; y < surface.height; ++y)
    for (int x = 0; x < surface.width; ++x) {
      const std::uint8_t* texel = &surface.bytes[static_cast<std::size_t>(y) * surface.pitch + 8 * static_cast<std::size_t>(x)];
      for (int c = 0; c < 3; ++c) {
        const f16_t h = static_cast<f16_t>(texel[2 * c] | (texel[2 * c + 1] << 8));  // little endian, r lowest
        rgb[(static_cast<std::size_t>(y) * surface.width + x) * 3 + c] = tone_map_channel(f16_to_f32(h));
      }
    }
  return encode_png_scaled(surface.width, surface.height, 3, rgb, scale);
}

std::vector<std::uint8_t> arena_plane_heatmap_png(std::span<const std::uint8_t> arena, int ex, int ey, int plane, int scale) {
  const layout::PlaneArena a{ex, ey};
  if (arena.size() != a.total_bytes())
    throw std::invalid_argument("arena heat map: expected " + std::to_string(a.total_bytes()) + " bytes, found " +
                                std::to_string(arena.size()));
  if (plane < 0 || plane >= layout::PlaneArena::kPlanes) throw std::invalid_argument("arena heat map: plane out of range");
  std::vector<double> mean(static_cast<std::size_t>(ex) * ey, 0.0);
  double top = 0.0;
  for (int y = 0; y < ey; ++y)
    for (int x = 0; x < ex; ++x) {
      double sum = 0.0;
      for (int d = 0; d < layout::PlaneArena::kWordsPerPixel; ++d)
        for (int b = 0; b < 4; ++b) {
          const e4m3_t code = arena[4 * a.word_index(plane, x, y, d) + b];
          sum += e4m3_is_nan(code) ? 448.0 : std::fabs(e4m3_to_f64(code));
        }
      mean[static_cast<std::size_t>(y) * ex + x] = sum / 32.0;
      top = std::max(top, sum / 32.0);
    }
  std::vector<std::uint8_t> grey(mean.size());
  for (std::size_t i = 0; i < mean.size(); ++i) grey[i] = top > 0.0 ? static_cast<std::uint8_t>(std::lround(255.0 * mean[i] / top)) : 0;
  return encode_png_scaled(ex, ey, 1, grey, scale);
}

}  // namespace rrswin
