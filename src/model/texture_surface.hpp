// The texture E61 reads and the surface it writes (facts C14, numerics.md "Texture and surface"):
// E61's operands, so they belong to the model layer; api/frame.hpp re-exports them.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "numerics/types.hpp"

namespace rrswin {

// tex.base.2d.v4.f16.s32: an unfiltered fetch of texel (x, y), level 0 (numerics.md).
enum class AddressMode { clamp, border_zero, wrap, mirror };
struct Texture {
  int width = 0, height = 0;
  AddressMode mode = AddressMode::clamp;
  std::vector<f16_t> rgba;  // width*height*4 f16, row-major, r first
  std::array<f16_t, 4> fetch(int x, int y) const;
};

// sust.b.2d.v4.b16.zero: x is a BYTE offset in the row; 8 bytes written raw, little endian, r
// lowest; out-of-bounds stores are dropped (.zero).
struct Surface {
  int width = 0, height = 0;        // in texels (RGBA16F, 8 bytes each)
  std::size_t pitch = 0;            // bytes per row, >= 8*width
  std::vector<std::uint8_t> bytes;  // pitch*height
  static Surface make(int width, int height);
  void store_b16x4(int x_bytes, int y, const std::array<f16_t, 4>& v);
};

}  // namespace rrswin
