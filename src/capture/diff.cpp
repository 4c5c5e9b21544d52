#include "capture/diff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "io/files.hpp"
#include "io/png.hpp"

namespace rrswin::capture {
namespace {

std::string fmt(const char* f, auto... args) {
  char b[512];
  std::snprintf(b, sizeof b, f, args...);
  return b;
}

void compare_common(FileDiff& d, std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  d.size_a = a.size();
  d.size_b = b.size();
  d.compared = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < d.compared; ++i) {
    if (a[i] == b[i]) continue;
    if (d.differing++ == 0) {
      d.first = static_cast<std::int64_t>(i);
      d.first_a = a[i];
      d.first_b = b[i];
    }
  }
  if (d.first < 0 && a.size() != b.size()) {
    d.first = static_cast<std::int64_t>(d.compared);
  }
}

}  // namespace

int e4m3_ordinal(std::uint8_t c) { return (c & 0x80) ? -(c & 0x7F) : (c & 0x7F); }
int f16_ordinal(std::uint16_t h) { return (h & 0x8000) ? -(h & 0x7FFF) : (h & 0x7FFF); }

FileDiff diff_bytes(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  FileDiff d;
  d.kind = DiffKind::bytes;
  compare_common(d, a, b);
  if (d.first >= 0) d.first_where = fmt("byte %lld", static_cast<long long>(d.first));
  return d;
}

FileDiff diff_arena(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b, int ex, int ey, std::size_t offset, int ox, int oy) {
  FileDiff d;
  d.kind = DiffKind::arena;
  compare_common(d, a, b);
  d.width = ex;
  d.height = ey;
  d.pixel.assign(static_cast<std::size_t>(5) * ex * ey, 0);
  d.pixel_dist.assign(d.pixel.size(), 0);
  const std::size_t plane_bytes = static_cast<std::size_t>(32) * ex * ey;
  // Byte b of the window: u32 word idx = b/4 = q·8·ex·ey + 8·ex·y + 8·x + d, byte j = b%4
  // (docs/formats.md "Plane arena", spec E60(b)).
  auto where = [&](std::size_t i) -> std::string {
    if (i < offset || i >= offset + 5 * plane_bytes)
      return fmt("byte %zu of the allocation, outside the arena window [%zu, %zu)", i, offset, offset + 5 * plane_bytes);
    const std::size_t w = i - offset;
    const int q = static_cast<int>(w / plane_bytes);
    const std::size_t r = w % plane_bytes;
    const int y = static_cast<int>(r / (32 * ex)), x = static_cast<int>(r % (32 * ex) / 32);
    const int word = static_cast<int>(r % 32 / 4), j = static_cast<int>(r % 4);
    return fmt("byte %zu (window byte %zu): plane %d, pixel (%d, %d), block (%d, %d), word %d byte %d", i, w, q, x, y, (x + ox) / 8,
               (y + oy) / 8, word, j);
  };
  for (std::size_t i = 0; i < d.compared; ++i) {
    if (a[i] == b[i]) continue;
    if (i < offset || i >= offset + 5 * plane_bytes) {
      ++d.outside;
      continue;
    }
    const std::size_t w = i - offset;
    const int q = static_cast<int>(w / plane_bytes);
    const std::size_t pix = w / 32;  // q*ex*ey + y*ex + x
    ++d.plane[q];
    ++d.pixel[pix];
    const std::uint32_t dist = static_cast<std::uint32_t>(std::abs(e4m3_ordinal(a[i]) - e4m3_ordinal(b[i])));
    d.pixel_dist[pix] = std::max(d.pixel_dist[pix], dist);
    if (dist > d.max_dist || d.max_where.empty()) {
      if (dist > d.max_dist || d.max_where.empty()) {
        d.max_dist = dist;
        d.max_where = where(i) + fmt(": 0x%02x vs 0x%02x", a[i], b[i]);
      }
    }
  }
  if (d.first >= 0) d.first_where = where(static_cast<std::size_t>(d.first));
  return d;
}

FileDiff diff_surface(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b, int width, int height, std::size_t pitch) {
  FileDiff d;
  d.kind = DiffKind::surface;
  compare_common(d, a, b);
  d.width = width;
  d.height = height;
  d.pixel.assign(static_cast<std::size_t>(width) * height, 0);
  d.pixel_dist.assign(d.pixel.size(), 0);
  static const char* kCh = "rgba";
  auto where = [&](std::size_t i) -> std::string {
    const std::size_t y = i / pitch, xb = i % pitch;
    if (y >= static_cast<std::size_t>(height) || xb >= static_cast<std::size_t>(8) * width)
      return fmt("byte %zu, outside the %dx%d texels", i, width, height);
    return fmt("byte %zu: pixel (%zu, %zu), block (%zu, %zu), channel %c", i, xb / 8, y, xb / 64, y / 8, kCh[xb % 8 / 2]);
  };
  for (std::size_t i = 0; i + 1 < d.compared; i += 2) {
    const std::uint16_t va = static_cast<std::uint16_t>(a[i] | a[i + 1] << 8), vb = static_cast<std::uint16_t>(b[i] | b[i + 1] << 8);
    if (va == vb) continue;
    const std::size_t y = i / pitch, xb = i % pitch;
    if (y >= static_cast<std::size_t>(height) || xb >= static_cast<std::size_t>(8) * width) {
      d.outside += (a[i] != b[i]) + (a[i + 1] != b[i + 1]);
      continue;
    }
    const std::size_t pix = y * width + xb / 8;
    ++d.channel[xb % 8 / 2];
    ++d.pixel[pix];
    const std::uint32_t dist = static_cast<std::uint32_t>(std::abs(f16_ordinal(va) - f16_ordinal(vb)));
    d.pixel_dist[pix] = std::max(d.pixel_dist[pix], dist);
    if (dist > d.max_dist || d.max_where.empty()) {
      d.max_dist = dist;
      d.max_where = where(i) + fmt(": f16 0x%04x vs 0x%04x", va, vb);
    }
  }
  if (d.first >= 0) d.first_where = where(static_cast<std::size_t>(d.first));
  return d;
}

std::string describe(const FileDiff& d) {
  std::string s;
  if (d.identical()) return fmt("identical (%llu bytes)\n", static_cast<unsigned long long>(d.size_a));
  if (d.size_a != d.size_b)
    s += fmt("  sizes differ: %llu vs %llu bytes (compared the first %llu)\n", static_cast<unsigned long long>(d.size_a),
             static_cast<unsigned long long>(d.size_b), static_cast<unsigned long long>(d.compared));
  s += fmt("  DIFFERS: %llu of %llu bytes", static_cast<unsigned long long>(d.differing), static_cast<unsigned long long>(d.compared));
  if (d.first >= 0 && d.first < static_cast<std::int64_t>(d.compared))
    s += fmt(", first at %lld (A %02x B %02x)\n", static_cast<long long>(d.first), d.first_a, d.first_b);
  else
    s += "\n";
  if (!d.first_where.empty()) s += "  first: " + d.first_where + "\n";
  if (d.kind == DiffKind::arena) {
    s += "  per plane:";
    for (int q = 0; q < 5; ++q) s += fmt(" q%d %llu", q, static_cast<unsigned long long>(d.plane[q]));
    if (d.outside) s += fmt(", outside the window %llu", static_cast<unsigned long long>(d.outside));
    s += "\n";
  } else if (d.kind == DiffKind::surface) {
    s += fmt("  per channel (values): r %llu, g %llu, b %llu, a %llu", static_cast<unsigned long long>(d.channel[0]),
             static_cast<unsigned long long>(d.channel[1]), static_cast<unsigned long long>(d.channel[2]),
             static_cast<unsigned long long>(d.channel[3]));
    if (d.outside) s += fmt(", outside the texels %llu bytes", static_cast<unsigned long long>(d.outside));
    s += "\n";
  }
  if (d.kind != DiffKind::bytes) {
    // Per pixel (x, y), summed over planes for an arena.
    const std::size_t npix = static_cast<std::size_t>(d.width) * d.height;
    std::vector<std::uint32_t> per(npix, 0);
    for (std::size_t i = 0; i < d.pixel.size(); ++i) per[i % npix] += d.pixel[i];
    const auto diff_pixels = std::count_if(per.begin(), per.end(), [](std::uint32_t v) { return v != 0; });
    std::vector<std::size_t> order(npix);
    for (std::size_t i = 0; i < npix; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return per[x] > per[y]; });
    s += fmt("  pixels differing: %lld of %zu; most:", static_cast<long long>(diff_pixels), npix);
    for (std::size_t k = 0; k < std::min<std::size_t>(5, npix) && per[order[k]]; ++k)
      s += fmt(" (%zu, %zu) %u", order[k] % d.width, order[k] / d.width, per[order[k]]);
    s += "\n";
    s += fmt("  largest difference: %u %s at %s\n", d.max_dist, d.kind == DiffKind::arena ? "e4m3 codes" : "f16 ulp", d.max_where.c_str());
  }
  return s;
}

std::string json_escape(const std::string& s) {
  std::string o = "\"";
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\')
      o += '\\', o += ch;
    else if (c < 0x20)
      o += fmt("\\u%04x", c);
    else
      o += ch;
  }
  return o + "\"";
}

std::string to_json(const FileDiff& d) {
  static const char* kKind[] = {"arena", "surface", "bytes"};
  std::string s = "{";
  s += "\"key\": " + json_escape(d.key) + ", \"a\": " + json_escape(d.file_a) + ", \"b\": " + json_escape(d.file_b);
  s += fmt(", \"kind\": \"%s\", \"identical\": %s, \"size_a\": %llu, \"size_b\": %llu, \"bytes_compared\": %llu, \"bytes_differing\": %llu",
           kKind[static_cast<int>(d.kind)], d.identical() ? "true" : "false", static_cast<unsigned long long>(d.size_a),
           static_cast<unsigned long long>(d.size_b), static_cast<unsigned long long>(d.compared),
           static_cast<unsigned long long>(d.differing));
  if (d.first >= 0) {
    s += fmt(", \"first\": {\"offset\": %lld", static_cast<long long>(d.first));
    if (d.first < static_cast<std::int64_t>(d.compared)) s += fmt(", \"a\": %u, \"b\": %u", d.first_a, d.first_b);
    s += ", \"where\": " + json_escape(d.first_where) + "}";
  }
  if (d.kind == DiffKind::arena) {
    s += ", \"per_plane\": [";
    for (int q = 0; q < 5; ++q) s += fmt("%s%llu", q ? ", " : "", static_cast<unsigned long long>(d.plane[q]));
    s += "]";
  }
  if (d.kind == DiffKind::surface)
    s += fmt(", \"per_channel\": {\"r\": %llu, \"g\": %llu, \"b\": %llu, \"a\": %llu}", static_cast<unsigned long long>(d.channel[0]),
             static_cast<unsigned long long>(d.channel[1]), static_cast<unsigned long long>(d.channel[2]),
             static_cast<unsigned long long>(d.channel[3]));
  if (d.kind != DiffKind::bytes) {
    s += fmt(", \"outside\": %llu, \"width\": %d, \"height\": %d", static_cast<unsigned long long>(d.outside), d.width, d.height);
    s += ", \"pixels\": [";
    bool first = true;
    const std::size_t npix = static_cast<std::size_t>(d.width) * d.height;
    for (std::size_t i = 0; i < d.pixel.size(); ++i) {
      if (!d.pixel[i]) continue;
      const std::size_t p = i % npix;
      s += first ? "" : ", ";
      first = false;
      if (d.kind == DiffKind::arena)
        s += fmt("{\"q\": %zu, \"x\": %zu, \"y\": %zu, \"bytes\": %u, \"max_dist\": %u}", i / npix, p % d.width, p / d.width, d.pixel[i],
                 d.pixel_dist[i]);
      else
        s += fmt("{\"x\": %zu, \"y\": %zu, \"channels\": %u, \"max_ulp\": %u}", p % d.width, p / d.width, d.pixel[i], d.pixel_dist[i]);
    }
    s += "]";
    s += fmt(", \"max_distance\": %u, \"max_distance_unit\": \"%s\", \"max_where\": ", d.max_dist,
             d.kind == DiffKind::arena ? "e4m3 code" : "f16 ulp") +
         json_escape(d.max_where);
  }
  return s + "}";
}

bool write_heatmap(const std::string& path, const FileDiff& d) {
  if (d.kind == DiffKind::bytes || d.width <= 0 || d.height <= 0) return false;
  constexpr int kScale = 8;
  const int planes = d.kind == DiffKind::arena ? 5 : 1;
  const int w = d.width * kScale, h = d.height * planes * kScale;
  std::vector<std::uint8_t> px(static_cast<std::size_t>(w) * h, 0);
  // Black: equal. Otherwise 64 + up to 191 by log2 of the distance (one bright step per doubling).
  for (std::size_t i = 0; i < d.pixel.size(); ++i) {
    if (!d.pixel[i]) continue;
    const int v = std::min(255, 64 + static_cast<int>(24 * std::log2(1.0 + d.pixel_dist[i])));
    const int x = static_cast<int>(i % d.width), row = static_cast<int>(i / d.width);  // row = q*ey + y
    for (int dy = 0; dy < kScale; ++dy)
      for (int dx = 0; dx < kScale; ++dx)
        px[static_cast<std::size_t>(row * kScale + dy) * w + x * kScale + dx] = static_cast<std::uint8_t>(v);
  }
  write_file_atomic(path, encode_png(w, h, 1, px));
  return true;
}

}  // namespace rrswin::capture
