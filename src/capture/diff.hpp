// Comparing outputs byte by byte, with the layout in mind: a plane arena (per plane q and pixel,
// e4m3 code distance; docs/formats.md "Plane arena") or an RGBA16F surface (per pixel and
// channel, f16 ulp), plus heat maps. Used by `rrswin diff` and `rrswin settle`.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace rrswin::capture {

enum class DiffKind { arena, surface, bytes };

struct FileDiff {
  std::string key, file_a, file_b;
  DiffKind kind = DiffKind::bytes;
  std::uint64_t size_a = 0, size_b = 0;
  std::uint64_t compared = 0, differing = 0;  // bytes
  std::int64_t first = -1;                    // byte offset of the first difference, -1: none
  std::uint8_t first_a = 0, first_b = 0;
  std::string first_where;                 // the first difference in layout terms
  std::array<std::uint64_t, 5> plane{};    // arena: differing bytes per plane
  std::uint64_t outside = 0;               // differing bytes outside the arena window / texels
  std::array<std::uint64_t, 4> channel{};  // surface: differing values per channel r g b a
  int width = 0, height = 0;               // per-pixel map: arena ex x ey, surface w x h
  std::vector<std::uint32_t> pixel;        // differing bytes (arena) / channels (surface)
  std::vector<std::uint32_t> pixel_dist;   // largest distance at the pixel
  std::uint32_t max_dist = 0;              // e4m3 code distance / f16 ulp
  std::string max_where;
  bool identical() const { return size_a == size_b && differing == 0; }
};

// e4m3 / f16 codes as ordinals on the number line (sign-magnitude: +-0 are both 0); the distance
// of two codes is the difference of their ordinals (NaN codes sit above the largest finite).
int e4m3_ordinal(std::uint8_t code);
int f16_ordinal(std::uint16_t bits);

// a, b: whole allocations; the arena window is [offset, offset + 5*ey*ex*32). (ox, oy) name blocks.
FileDiff diff_arena(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b, int ex, int ey, std::size_t offset, int ox = 0,
                    int oy = 0);
// Surface memory of rows of `pitch` bytes; texels (x, y) at y*pitch + 8x, four little-endian f16.
FileDiff diff_surface(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b, int width, int height, std::size_t pitch);
FileDiff diff_bytes(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b);

std::string describe(const FileDiff& d);  // a few human-readable lines
std::string to_json(const FileDiff& d);   // one JSON object
std::string json_escape(const std::string& s);
// Greyscale map, 8 screen pixels per pixel (arena: planes stacked top to bottom; black = equal,
// brighter = more bytes / larger distance). Returns false when the diff has no pixel map.
bool write_heatmap(const std::string& path, const FileDiff& d);

}  // namespace rrswin::capture
