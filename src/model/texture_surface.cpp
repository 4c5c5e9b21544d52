// Texture fetch and surface store (model/texture_surface.hpp).
#include "model/texture_surface.hpp"

#include <algorithm>

namespace rrswin {

int Texture::axis(int v, int n) const {
  if (n <= 0) return -1;
  auto wrap = [](int u, int m) { return ((u % m) + m) % m; };
  switch (mode) {
    case AddressMode::clamp: return std::clamp(v, 0, n - 1);
    case AddressMode::border_zero: return v < 0 || v >= n ? -1 : v;
    case AddressMode::wrap: return wrap(v, n);
    case AddressMode::mirror: {
      const int m = wrap(v, 2 * n);
      return m < n ? m : 2 * n - 1 - m;
    }
  }
  return -1;
}

std::array<f16_t, 4> Texture::fetch(int x, int y) const {
  // Unfiltered fetch of texel (x, y) at level 0; out-of-range coordinates follow the address mode,
  // axis by axis.
  const int tx = axis(x, width), ty = axis(y, height);
  if (tx < 0 || ty < 0) return {0, 0, 0, 0};
  const std::size_t i = (static_cast<std::size_t>(ty) * width + tx) * 4;
  return {rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]};
}

Surface Surface::make(int width, int height) {
  Surface s;
  s.width = width;
  s.height = height;
  s.pitch = static_cast<std::size_t>(8) * width;
  s.bytes.assign(s.pitch * height, 0);
  return s;
}

void Surface::store_b16x4(int x_bytes, int y, const std::array<f16_t, 4>& v) {
  // sust.b.2d.v4.b16.zero: out-of-bounds stores are dropped.
  if (x_bytes < 0 || y < 0 || y >= height || x_bytes + 8 > 8 * width) return;
  std::uint8_t* p = bytes.data() + static_cast<std::size_t>(y) * pitch + x_bytes;
  for (int c = 0; c < 4; ++c) {
    p[2 * c] = static_cast<std::uint8_t>(v[c] & 0xFF);
    p[2 * c + 1] = static_cast<std::uint8_t>(v[c] >> 8);
  }
}

SurfaceF32 SurfaceF32::make(int width, int height) {
  SurfaceF32 s;
  s.width = width;
  s.height = height;
  s.rgba.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4, 0.0f);
  return s;
}

void SurfaceF32::store_p(int x, int y, const std::array<float, 4>& v) {
  if (x < 0 || y < 0 || x >= width || y >= height) return;  // .zero: dropped
  const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)) * 4;
  for (int c = 0; c < 4; ++c) rgba[i + static_cast<std::size_t>(c)] = v[static_cast<std::size_t>(c)];
}

}  // namespace rrswin
