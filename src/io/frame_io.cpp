#include "io/frame_io.hpp"

#include <stdexcept>

#include "io/exr.hpp"

namespace rrswin {

Texture texture_from_exr(const std::string& path, AddressMode mode) {
  RgbaHalfImage img = read_exr_rgba_half(path);
  Texture t;
  t.width = img.width;
  t.height = img.height;
  t.mode = mode;
  t.rgba = std::move(img.rgba);
  return t;
}

void write_texture_exr(const std::string& path, const Texture& tex) {
  if (tex.rgba.size() != static_cast<std::size_t>(tex.width) * tex.height * 4)
    throw std::invalid_argument(path + ": texture of " + std::to_string(tex.width) + "x" + std::to_string(tex.height) + " texels holds " +
                                std::to_string(tex.rgba.size()) + " f16 values");
  write_exr_rgba_half(path, tex.width, tex.height, tex.rgba.data());
}

std::vector<f16_t> surface_rgba(const Surface& s) {
  if (s.width < 0 || s.height < 0 || s.pitch < 8 * static_cast<std::size_t>(s.width) ||
      s.bytes.size() < s.pitch * static_cast<std::size_t>(s.height))
    throw std::invalid_argument("surface of " + std::to_string(s.width) + "x" + std::to_string(s.height) + " texels with pitch " +
                                std::to_string(s.pitch) + " holds " + std::to_string(s.bytes.size()) + " bytes");
  std::vector<f16_t> rgba(static_cast<std::size_t>(s.width) * s.height * 4);
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x) {
      const std::uint8_t* texel = s.bytes.data() + y * s.pitch + 8 * static_cast<std::size_t>(x);
      for (int c = 0; c < 4; ++c)
        rgba[(static_cast<std::size_t>(y) * s.width + x) * 4 + c] = static_cast<f16_t>(texel[2 * c] | (texel[2 * c + 1] << 8));
    }
  return rgba;
}

void write_surface_exr(const std::string& path, const Surface& s) {
  const std::vector<f16_t> rgba = surface_rgba(s);
  write_exr_rgba_half(path, s.width, s.height, rgba.data());
}

}  // namespace rrswin
