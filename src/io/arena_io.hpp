// Plane-arena files (.bin): the raw bytes of a layer's e4m3 plane arena exactly as the kernel reads
// them at param+8 and writes them at param+48 (facts B3, C13; spec E60(b)): 5 planes of
// [ey][ex][8 u32], u32 word index q*8*ex*ey + 8*ex*y + 8*x + d, little endian, no header.
// Which channels a pixel's 8 words hold is the reading "arena-order" (docs/formats.md).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rrswin {

// 5 * ey * ex * 32. Throws std::invalid_argument for non-positive extents.
std::size_t plane_arena_bytes(int ex, int ey);
// The same, or nothing for extents that are not positive or whose arena exceeds kMaxBufferBytes.
std::optional<std::uint64_t> plane_arena_bytes_checked(int ex, int ey);

// Reads a plane arena and checks its size; a wrong size is an InputError whose message says
// "expected 5×ey×ex×32 = 5×23×40×32 = 147200 bytes (ex = 40, ey = 23), found M bytes".
std::vector<std::uint8_t> read_plane_arena(const std::string& path, int ex, int ey);
// Writes atomically (temp + rename). Throws std::invalid_argument when bytes.size() is not
// plane_arena_bytes(ex, ey).
void write_plane_arena(const std::string& path, std::span<const std::uint8_t> bytes, int ex, int ey);

// Per-plane statistics of the e4m3 codes, independent of the arena order (every byte is a code).
struct PlaneSummary {
  int plane = 0;              // q: channels 32q .. 32q+31
  std::uint64_t codes = 0;    // bytes in the plane (32 * ex * ey)
  std::uint64_t nan = 0;      // 0x7F / 0xFF
  std::uint64_t zero = 0;     // 0x00 / 0x80
  std::uint64_t sat_pos = 0;  // 0x7E = +448 (what satfinite gives for overflow)
  std::uint64_t sat_neg = 0;  // 0xFE = -448
  double min = 0, max = 0;    // over the non-NaN codes (0 when there are none)
};
std::vector<PlaneSummary> summarize_plane_arena(std::span<const std::uint8_t> bytes, int ex, int ey);
// One line per plane, e.g. "plane 0: 7360 codes, 12 NaN, 301 zero, 0 at +448, 0 at -448, min -3.5, max 4".
std::string format_plane_summary(const std::vector<PlaneSummary>& planes);

}  // namespace rrswin
