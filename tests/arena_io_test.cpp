// io/arena_io: plane-arena files are raw 5 x ey x ex x 32 bytes (spec E60(b)); wrong sizes are
// InputErrors naming the file and both sizes; writes are atomic; the summary counts codes.
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "io/arena_io.hpp"
#include "io/files.hpp"
#include "layout/arena.hpp"

namespace fs = std::filesystem;
using namespace rrswin;

using test_util::TempDir;

TEST(ArenaIo, SizeIsFivePlanesOf32BytesPerPixel) {
  EXPECT_EQ(plane_arena_bytes(40, 23), 147200u);  // REC5 via facts A3
  EXPECT_EQ(plane_arena_bytes(1, 1), 160u);
  EXPECT_THROW(plane_arena_bytes(0, 23), std::invalid_argument);
}

TEST(ArenaIo, RoundTripIsRawBytes) {
  TempDir dir;
  std::vector<std::uint8_t> a(plane_arena_bytes(40, 23));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(i * 131 + (i >> 9));
  write_plane_arena(dir.file("a.bin"), a, 40, 23);
  EXPECT_EQ(fs::file_size(dir.file("a.bin")), 147200u);
  EXPECT_EQ(read_file_bytes(dir.file("a.bin")), a);  // no header, no reordering
  EXPECT_EQ(read_plane_arena(dir.file("a.bin"), 40, 23), a);
  // Word w of the file is u32 little endian at byte 4w: the kernel's index formula addresses it.
  const layout::PlaneArena geom{40, 23};
  const std::size_t w = geom.word_index(3, 7, 11, 5);
  EXPECT_EQ(w * 4 + 3, 3 * 8 * 40 * 23 * 4 + (8 * 40 * 11 + 8 * 7 + 5) * 4 + 3u);
}

TEST(ArenaIo, WrongSizeNamesFileAndBothSizes) {
  TempDir dir;
  for (std::size_t size : {std::size_t{147199}, std::size_t{147201}, std::size_t{0}, std::size_t{160}}) {
    const std::string path = dir.file("short.bin");
    write_file_atomic(path, std::vector<std::uint8_t>(size, 0));
    try {
      read_plane_arena(path, 40, 23);
      ADD_FAILURE() << "no error for " << size << " bytes";
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.offset(), std::min<std::size_t>(size, 147200));
      EXPECT_NE(msg.find(path), std::string::npos) << msg;
      EXPECT_NE(msg.find("5×ey×ex×32 = 5×23×40×32 = 147200 bytes"), std::string::npos) << msg;
      EXPECT_NE(msg.find("found " + std::to_string(size) + " bytes"), std::string::npos) << msg;
    }
  }
  EXPECT_THROW(read_plane_arena(dir.file("absent.bin"), 40, 23), InputError);
}

TEST(ArenaIo, WriteRejectsWrongSizeAndLeavesNothing) {
  TempDir dir;
  std::vector<std::uint8_t> a(100);
  EXPECT_THROW(write_plane_arena(dir.file("a.bin"), a, 40, 23), std::invalid_argument);
  EXPECT_TRUE(fs::is_empty(dir.path));
}

TEST(ArenaIo, SummaryCountsCodesPerPlane) {
  std::vector<std::uint8_t> a(plane_arena_bytes(2, 1), 0x38);  // 1.0 everywhere
  const std::size_t plane = 2 * 32;
  a[0] = 0x7F;              // NaN
  a[1] = 0xFF;              // NaN
  a[2] = 0x00;              // +0
  a[3] = 0x80;              // -0
  a[4] = 0x7E;              // +448
  a[plane + 5] = 0xFE;      // -448 in plane 1
  a[2 * plane + 6] = 0x01;  // 2^-9 in plane 2
  a[4 * plane + 7] = 0xB8;  // -1 in plane 4
  const auto s = summarize_plane_arena(a, 2, 1);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0].codes, 64u);
  EXPECT_EQ(s[0].nan, 2u);
  EXPECT_EQ(s[0].zero, 2u);
  EXPECT_EQ(s[0].sat_pos, 1u);
  EXPECT_EQ(s[0].min, 0.0);
  EXPECT_EQ(s[0].max, 448.0);
  EXPECT_EQ(s[1].sat_neg, 1u);
  EXPECT_EQ(s[1].min, -448.0);
  EXPECT_EQ(s[1].max, 1.0);
  EXPECT_EQ(s[2].min, 0.001953125);
  EXPECT_EQ(s[3].nan + s[3].zero + s[3].sat_pos + s[3].sat_neg, 0u);
  EXPECT_EQ(s[3].min, 1.0);
  EXPECT_EQ(s[4].min, -1.0);
  const std::string text = format_plane_summary(s);
  EXPECT_NE(text.find("plane 0: 64 codes, 2 NaN, 2 zero, 1 at +448, 0 at -448, min 0, max 448"), std::string::npos) << text;
  EXPECT_THROW(summarize_plane_arena(std::vector<std::uint8_t>(10), 2, 1), std::invalid_argument);
}
