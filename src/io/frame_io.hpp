// The texture E61 samples (param+88) and the surface it writes (param+112) as OpenEXR files
// (io/exr.hpp; facts C14.5/C14.7, numerics.md "Texture and surface").
#pragma once
#include <string>
#include <vector>

#include "model/texture_surface.hpp"

namespace rrswin {

// An RGBA HALF OpenEXR file as a Texture with the given address mode (clamp by default; the
// kernel clamps its own coordinates, so the mode only matters for out-of-range fetches).
Texture texture_from_exr(const std::string& path, AddressMode mode = AddressMode::clamp);
void write_texture_exr(const std::string& path, const Texture& tex);  // atomic

// The surface's texels as RGBA f16, row-major: texel (x, y) is the 8 bytes at y*pitch + 8x,
// little endian, r lowest (the sust.b.2d.v4.b16 layout). Throws std::invalid_argument when the
// surface's bytes are shorter than pitch*height or its pitch is below 8*width.
std::vector<f16_t> surface_rgba(const Surface& s);
void write_surface_exr(const std::string& path, const Surface& s);  // atomic

}  // namespace rrswin
