// Little-endian numbers in byte buffers: the one definition the parameter block, capture, trace
// and image readers and writers of every layer use (the launch's 144-byte block is little endian,
// facts A4; so are d4r's files, facts F5).
#pragma once
#include <cstdint>

namespace rrswin {

// The n-byte (n <= 8) little-endian number at p.
constexpr std::uint64_t load_le(const std::uint8_t* p, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}
// The low n bytes (n <= 8) of v at p, little endian.
constexpr void store_le(std::uint8_t* p, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
constexpr std::uint32_t load_le32(const std::uint8_t* p) { return static_cast<std::uint32_t>(load_le(p, 4)); }
constexpr std::uint64_t load_le64(const std::uint8_t* p) { return load_le(p, 8); }
constexpr void store_le32(std::uint8_t* p, std::uint32_t v) { store_le(p, v, 4); }
constexpr void store_le64(std::uint8_t* p, std::uint64_t v) { store_le(p, v, 8); }

}  // namespace rrswin
