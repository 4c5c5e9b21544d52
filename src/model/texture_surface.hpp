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
  // The texel coordinate fetch reads for coordinate v on an axis of n texels (the address mode
  // applies to each axis alone), or -1 where the fetch gives zeros (border_zero out of range, n <= 0).
  int axis(int v, int n) const;
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

// sust.p.2d.v4.b32.zero of dec0's E19 to param+144 (DOC-d0 §4.2, s18603): x is an ELEMENT
// (texel) coordinate and the four f32 values go through the surface's format, which the PTX does
// not name (dec0.md U7). The model keeps them as f32 (an RGBA32F surface: the values stored
// unchanged); out-of-bounds stores are dropped (.zero).
struct SurfaceF32 {
  int width = 0, height = 0;
  std::vector<float> rgba;  // width*height*4 f32, row-major, r first
  static SurfaceF32 make(int width, int height);
  void store_p(int x, int y, const std::array<float, 4>& v);
};

}  // namespace rrswin
