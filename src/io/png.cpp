#include "io/png.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace rrswin {
namespace {

void be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 3; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(v >> 8 * i));
}

void chunk(std::vector<std::uint8_t>& out, const char type[4], std::span<const std::uint8_t> data) {
  be32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  // The CRC covers the chunk type and data, not the length (PNG §5.3).
  be32(out, crc32(std::span<const std::uint8_t>(out).subspan(start)));
}

}  // namespace

std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc) {
  // Reflected CRC-32, polynomial 0xEDB88320 (ISO 3309, as PNG and zip use it).
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (const std::uint8_t b : bytes) crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

std::uint32_t adler32(std::span<const std::uint8_t> bytes) {
  std::uint32_t a = 1, b = 0;
  for (const std::uint8_t x : bytes) {
    a = (a + x) % 65521;
    b = (b + a) % 65521;
  }
  return b << 16 | a;
}

std::vector<std::uint8_t> encode_png(int width, int height, int channels, std::span<const std::uint8_t> pixels) {
  if (width <= 0 || height <= 0 || (channels != 1 && channels != 3) || pixels.size() != static_cast<std::size_t>(width) * height * channels)
    throw std::invalid_argument("encode_png: bad image shape " + std::to_string(width) + "x" + std::to_string(height));
  // The raw scan lines: filter type 0 (None) before each row.
  const std::size_t row = static_cast<std::size_t>(width) * channels;
  std::vector<std::uint8_t> raw;
  raw.reserve((row + 1) * height);
  for (int y = 0; y < height; ++y) {
    raw.push_back(0);
    raw.insert(raw.end(), pixels.begin() + y * row, pixels.begin() + (y + 1) * row);
  }
  // zlib stream: CMF 0x78 (deflate, 32K window), FLG 0x01 (check bits: 0x7801 % 31 == 0), stored
  // blocks of at most 65535 bytes (BTYPE 00: LEN, ~LEN little endian), Adler-32 big endian.
  std::vector<std::uint8_t> z = {0x78, 0x01};
  std::size_t pos = 0;
  do {
    const std::size_t len = std::min<std::size_t>(65535, raw.size() - pos);
    const bool last = pos + len == raw.size();
    z.push_back(last ? 1 : 0);
    z.push_back(static_cast<std::uint8_t>(len));
    z.push_back(static_cast<std::uint8_t>(len >> 8));
    z.push_back(static_cast<std::uint8_t>(~len));
    z.push_back(static_cast<std::uint8_t>(~len >> 8));
    z.insert(z.end(), raw.begin() + pos, raw.begin() + pos + len);
    pos += len;
  } while (pos < raw.size());
  be32(z, adler32(raw));

  std::vector<std::uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<std::uint8_t> ihdr;
  be32(ihdr, static_cast<std::uint32_t>(width));
  be32(ihdr, static_cast<std::uint32_t>(height));
  ihdr.push_back(8);                      // bit depth
  ihdr.push_back(channels == 1 ? 0 : 2);  // colour type: greyscale / truecolour
  ihdr.push_back(0);                      // compression: deflate
  ihdr.push_back(0);                      // filter method 0
  ihdr.push_back(0);                      // no interlace
  chunk(out, "IHDR", ihdr);
  chunk(out, "IDAT", z);
  chunk(out, "IEND", {});
  return out;
}

}  // namespace rrswin
