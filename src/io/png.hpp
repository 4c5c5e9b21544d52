// A minimal PNG writer (diff heat maps, run previews): 8-bit greyscale or RGB, no filtering, zlib "stored"
// (uncompressed) deflate blocks. Written from the PNG (RFC 2083) and zlib/deflate (RFC 1950/1951)
// specifications; no library. tests/png_test.cpp decodes the files with Python's zlib.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace rrswin {

std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc = 0);
std::uint32_t adler32(std::span<const std::uint8_t> bytes);
// channels 1 (grey) or 3 (RGB); pixels row-major, width*height*channels bytes.
std::vector<std::uint8_t> encode_png(int width, int height, int channels, std::span<const std::uint8_t> pixels);

}  // namespace rrswin
