// `rrswin run --preview`: the tone map against values worked by hand from its formula (Reinhard
// x/(1+x), then the sRGB curve), and the arena heat map on a constructed arena.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "io/files.hpp"
#include "io/preview.hpp"
#include "layout/arena.hpp"
#include "test_util.hpp"

using namespace rrswin;

namespace {

// The pixel rows of a PNG whose image data is one stored (uncompressed) deflate block, as
// io/png writes small images: IHDR (25 bytes after the signature), then IDAT = zlib header (2),
// block header (1), LEN (2), NLEN (2), then rows of (filter byte 0, pixels).
std::vector<std::uint8_t> stored_png_pixels(const std::vector<std::uint8_t>& png, int width, int height, int channels) {
  const std::size_t idat = 8 + 25;
  EXPECT_EQ(std::memcmp(&png[idat + 4], "IDAT", 4), 0);
  const std::size_t data = idat + 8 + 2 + 1 + 4;
  std::vector<std::uint8_t> px;
  for (int y = 0; y < height; ++y) {
    const std::size_t row = data + static_cast<std::size_t>(y) * (1 + width * channels);
    EXPECT_EQ(png[row], 0) << "filter byte";
    px.insert(px.end(), png.begin() + row + 1, png.begin() + row + 1 + width * channels);
  }
  return px;
}

}  // namespace

TEST(Preview, ToneMapMatchesHandWorkedValues) {
  // 1.0 -> 0.5 -> 1.055 * 0.5^(1/2.4) - 0.055 = 0.735357 -> 187.5 -> 188
  EXPECT_EQ(tone_map_channel(1.0f), 188);
  // 0.001 -> 0.000999 (linear segment) -> 12.92 * 0.000999 = 0.012907 -> 3.29 -> 3
  EXPECT_EQ(tone_map_channel(0.001f), 3);
  // 3.0 -> 0.75 -> 1.055 * 0.75^(1/2.4) - 0.055 = 0.880825 -> 224.6 -> 225
  EXPECT_EQ(tone_map_channel(3.0f), 225);
  EXPECT_EQ(tone_map_channel(0.0f), 0);
  EXPECT_EQ(tone_map_channel(-2.0f), 0);
  EXPECT_EQ(tone_map_channel(std::numeric_limits<float>::quiet_NaN()), 0);
  EXPECT_EQ(tone_map_channel(std::numeric_limits<float>::infinity()), 255);
}

TEST(Preview, SurfacePreviewReadsRgbAndIgnoresAlpha) {
  Surface s = Surface::make(2, 1);
  // texel 0: r = 1.0 (0x3C00), g = 0, b = 3.0 (0x4200), a = 1.0; texel 1 all zero.
  const std::array<f16_t, 4> t0{0x3C00, 0x0000, 0x4200, 0x3C00};
  s.store_b16x4(0, 0, t0);
  const auto px = stored_png_pixels(surface_preview_png(s), 2, 1, 3);
  EXPECT_EQ(px, (std::vector<std::uint8_t>{188, 0, 225, 0, 0, 0}));
}

TEST(Preview, ArenaHeatMapIsMeanMagnitudePerPixel) {
  const int ex = 3, ey = 2;
  const layout::PlaneArena a{ex, ey};
  std::vector<std::uint8_t> arena(a.total_bytes(), 0);
  // plane 2: pixel (1,0) all 32 codes 1.0 (0x38), pixel (2,1) half of them -1.0 (0xB8).
  for (int d = 0; d < 8; ++d)
    for (int b = 0; b < 4; ++b) {
      arena[4 * a.word_index(2, 1, 0, d) + b] = 0x38;
      if (d < 4) arena[4 * a.word_index(2, 2, 1, d) + b] = 0xB8;
    }
  const auto px = stored_png_pixels(arena_plane_heatmap_png(arena, ex, ey, 2), ex, ey, 1);
  EXPECT_EQ(px, (std::vector<std::uint8_t>{0, 255, 0, 0, 0, 128}));  // 0.5 * 255 = 127.5 -> 128
  EXPECT_EQ(stored_png_pixels(arena_plane_heatmap_png(arena, ex, ey, 0), ex, ey, 1), std::vector<std::uint8_t>(6, 0));
  EXPECT_THROW(arena_plane_heatmap_png(std::vector<std::uint8_t>(5), ex, ey, 0), std::invalid_argument);
}

TEST(Preview, RunPreviewWritesSurfaceAndPlanePictures) {
  test_util::TempDir dir;
  const auto r = dir.rrswin("run --layer enc5 --ex 12 --ey 9 --preview -o res");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* name :
       {"surface112.png", "arena_plane0.png", "arena_plane1.png", "arena_plane2.png", "arena_plane3.png", "arena_plane4.png"}) {
    const auto bytes = read_file_bytes(dir.file(std::string("res/") + name));
    ASSERT_GT(bytes.size(), 8u) << name;
    EXPECT_EQ(std::memcmp(bytes.data(), "\x89PNG\r\n\x1a\n", 8), 0) << name;
    EXPECT_TRUE(test_util::contains(r.out, name)) << r.out;
  }
}
