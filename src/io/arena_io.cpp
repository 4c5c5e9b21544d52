#include "io/arena_io.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "base/errors.hpp"
#include "io/checked_size.hpp"
#include "io/files.hpp"
#include "layout/arena.hpp"
#include "numerics/e4m3.hpp"

namespace rrswin {
namespace {

std::string size_formula(int ex, int ey) {
  return "5×ey×ex×32 = 5×" + std::to_string(ey) + "×" + std::to_string(ex) + "×32 = " + std::to_string(plane_arena_bytes(ex, ey)) +
         " bytes (ex = " + std::to_string(ex) + ", ey = " + std::to_string(ey) + ")";
}

}  // namespace

std::size_t plane_arena_bytes(int ex, int ey) {
  if (ex <= 0 || ey <= 0)
    throw std::invalid_argument("plane arena extents must be positive, got ex = " + std::to_string(ex) + ", ey = " + std::to_string(ey));
  // 5·ey·ex·32 without wrapping, within kMaxBufferBytes (io/checked_size.hpp).
  return static_cast<std::size_t>(
      checked_bytes("the plane arena 5·ey·ex·32", {5, static_cast<std::uint64_t>(ey), static_cast<std::uint64_t>(ex), 32}));
}

std::optional<std::uint64_t> plane_arena_bytes_checked(int ex, int ey) {
  if (ex <= 0 || ey <= 0) return std::nullopt;
  std::string why;
  const std::uint64_t n =
      size_detail::product({5, static_cast<std::uint64_t>(ey), static_cast<std::uint64_t>(ex), 32}, kMaxBufferBytes, why);
  if (!why.empty()) return std::nullopt;
  return n;
}

std::vector<std::uint8_t> read_plane_arena(const std::string& path, int ex, int ey) {
  // The file is named in every refusal: extents that cannot describe an arena included.
  if (ex <= 0 || ey <= 0)
    throw InputError(path, 0, "a plane arena of positive extents ex, ey", "ex = " + std::to_string(ex) + ", ey = " + std::to_string(ey));
  checked_bytes_in(path, 0, "the plane arena 5·ey·ex·32", {5, static_cast<std::uint64_t>(ey), static_cast<std::uint64_t>(ex), 32});
  const std::size_t want = plane_arena_bytes(ex, ey);
  std::vector<std::uint8_t> bytes = read_file_bytes(path);
  if (bytes.size() != want)
    // The offset is where file and expectation part: the end of a short file, the first extra
    // byte of a long one.
    throw InputError(path, std::min(bytes.size(), want), size_formula(ex, ey), std::to_string(bytes.size()) + " bytes");
  return bytes;
}

void write_plane_arena(const std::string& path, std::span<const std::uint8_t> bytes, int ex, int ey) {
  const std::size_t want = plane_arena_bytes(ex, ey);
  if (bytes.size() != want)
    throw std::invalid_argument(path + ": a plane arena must be " + size_formula(ex, ey) + ", got " + std::to_string(bytes.size()) +
                                " bytes");
  write_file_atomic(path, bytes);
}

std::vector<PlaneSummary> summarize_plane_arena(std::span<const std::uint8_t> bytes, int ex, int ey) {
  const layout::PlaneArena arena{ex, ey};
  if (bytes.size() != plane_arena_bytes(ex, ey))
    throw std::invalid_argument("summarize_plane_arena: expected " + size_formula(ex, ey) + ", got " + std::to_string(bytes.size()) +
                                " bytes");
  std::vector<PlaneSummary> out;
  const std::size_t plane_bytes = 4 * arena.plane_words();
  for (int q = 0; q < layout::PlaneArena::kPlanes; ++q) {
    PlaneSummary s;
    s.plane = q;
    s.codes = plane_bytes;
    bool any = false;
    for (std::size_t i = 0; i < plane_bytes; ++i) {
      const e4m3_t c = bytes[q * plane_bytes + i];
      if (e4m3_is_nan(c)) {
        ++s.nan;
        continue;
      }
      if ((c & 0x7F) == 0) ++s.zero;
      if (c == 0x7E) ++s.sat_pos;
      if (c == 0xFE) ++s.sat_neg;
      const double v = e4m3_to_f64(c);
      if (!any || v < s.min) s.min = v;
      if (!any || v > s.max) s.max = v;
      any = true;
    }
    out.push_back(s);
  }
  return out;
}

std::string format_plane_summary(const std::vector<PlaneSummary>& planes) {
  std::string text;
  char line[256];
  for (const PlaneSummary& s : planes) {
    std::snprintf(line, sizeof line, "plane %d: %llu codes, %llu NaN, %llu zero, %llu at +448, %llu at -448, min %g, max %g\n", s.plane,
                  static_cast<unsigned long long>(s.codes), static_cast<unsigned long long>(s.nan), static_cast<unsigned long long>(s.zero),
                  static_cast<unsigned long long>(s.sat_pos), static_cast<unsigned long long>(s.sat_neg), s.min, s.max);
    text += line;
  }
  return text;
}

}  // namespace rrswin
