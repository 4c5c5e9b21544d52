// OpenEXR images of RGBA binary16 pixels: the texture E61 samples and the RGBA16F surface it writes
// (facts C14, numerics.md "Texture and surface") travel as OpenEXR, the graphics world's file
// format for f16 frames, so any image tool can open them. docs/formats.md "Texture and surface".
//
// Written from the OpenEXR file layout description (magic 20000630, version field, header
// attributes, line offset table, scan line blocks); no OpenEXR code is used or copied.
//
// Writing: single-part scan-line file, NO_COMPRESSION, INCREASING_Y, HALF channels A, B, G, R
// (the layout stores channels in alphabetical order), data window = display window =
// (0, 0)-(width-1, height-1). Every bit pattern (NaN payloads, infinities, subnormals, -0) is kept.
//
// Reading: single-part scan-line files with NO_COMPRESSION, INCREASING_Y or DECREASING_Y, any
// data-window origin, HALF channels R, G, B (A optional: 1.0 = 0x3C00 when absent, as OpenEXR's
// RGBA interface does); other channels of any type are skipped. Anything else (tiled, multi-part,
// deep, compressed, subsampled, non-HALF R/G/B) is an InputError naming the file, the byte offset,
// what was expected and what was found.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "numerics/types.hpp"

namespace rrswin {

struct RgbaHalfImage {
  int width = 0, height = 0;
  std::vector<f16_t> rgba;  // width*height*4, row-major from the data window's top row, r first
};

// The complete file image (what write_exr_rgba_half writes). Throws std::invalid_argument when
// width or height is not in [1, 2^24] (an EXR data window cannot be empty).
std::vector<std::uint8_t> encode_exr_rgba_half(int width, int height, const f16_t* rgba);
// Writes through write_file_atomic: a failed write never leaves a partial file.
void write_exr_rgba_half(const std::string& path, int width, int height, const f16_t* rgba);

// `name` is the file name used in error messages.
RgbaHalfImage decode_exr_rgba_half(std::span<const std::uint8_t> bytes, const std::string& name);
RgbaHalfImage read_exr_rgba_half(const std::string& path);

}  // namespace rrswin
