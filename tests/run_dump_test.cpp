// `rrswin run` straight from d4r's raw dumps (issue 14 item 2): --from-dump DIR takes every input of
// a launch, --texture-raw FILE [--texture-shape WxH[-pitchP]] a raw RGBA16F texture; both read and
// check exactly as rrswin replay does (one parser, capture::load_image_arg), malformed shapes and
// sizes included.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "io/exr.hpp"
#include "test_util.hpp"

using namespace test_util;

namespace {

// The surface memory (rows of 8·width bytes) of an enc5 surface112.exr.
std::vector<unsigned char> surface_bytes(const std::string& exr) {
  const rrswin::RgbaHalfImage im = rrswin::read_exr_rgba_half(exr);
  std::vector<unsigned char> v(im.rgba.size() * 2);
  for (std::size_t i = 0; i < im.rgba.size(); ++i) {
    v[2 * i] = static_cast<unsigned char>(im.rgba[i]);
    v[2 * i + 1] = static_cast<unsigned char>(im.rgba[i] >> 8);
  }
  return v;
}

}  // namespace

TEST(RunFromDump, EveryInputOfALaunchAndRawTextures) {
  TempDir t;
  // A launch dump whose output arena sits 128 bytes into its allocation (facts F4).
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 16 --ey 8 --seed 3 --window 128,0 --profile zluda --threads 2").status, 0);
  Result r = t.rrswin("run --layer enc5 --from-dump cap -o out --profile zluda --threads 2 --save-inputs");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "ex 16, ey 8")) << r.out;  // the extents are the surface's
  const std::size_t n = 5 * 16 * 8 * 32;
  const auto alloc = bytes_of(find_file(t.file("cap"), "arg048"));
  EXPECT_EQ(bytes_of(t.file("out/arena.bin")), std::vector<unsigned char>(alloc.begin() + 128, alloc.begin() + 128 + n));
  EXPECT_EQ(surface_bytes(t.file("out/surface112.exr")), bytes_of(find_file(t.file("cap"), "arg112")));

  // The raw texture dump by its launch-dump name, the rest as plain files: the same outputs.
  const fs::path tex = find_file(t.file("cap"), "arg088");
  r = t.rrswin("run --layer enc5 -o raw --ex 16 --ey 8 --input out/input_arena.bin --weights out/weights.bin --texture-raw '" +
               tex.string() + "' --profile zluda --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(bytes_of(t.file("raw/arena.bin")), bytes_of(t.file("out/arena.bin")));
  EXPECT_EQ(bytes_of(t.file("raw/surface112.exr")), bytes_of(t.file("out/surface112.exr")));

  // A plain file with a row pitch: --texture-shape gives its shape.
  const auto texels = bytes_of(tex);
  std::vector<unsigned char> pitched(144 * 8, 0xEE);
  for (int y = 0; y < 8; ++y) std::copy(texels.begin() + 128 * y, texels.begin() + 128 * (y + 1), pitched.begin() + 144 * y);
  put(t.file("tex.raw"), pitched);
  r = t.rrswin(
      "run -o pitched --ex 16 --ey 8 --input out/input_arena.bin --weights out/weights.bin --texture-raw tex.raw "
      "--texture-shape 16x8-pitch144 --profile zluda --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(bytes_of(t.file("pitched/surface112.exr")), bytes_of(t.file("out/surface112.exr")));
}

TEST(RunFromDump, MalformedShapesAndSizesAreTheReplayErrors) {
  TempDir t;
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 16 --ey 8 --threads 2").status, 0);
  const auto texels = bytes_of(find_file(t.file("cap"), "arg088"));
  put(t.file("tex.raw"), texels);  // 16 x 8 texels, 1024 bytes
  auto run_raw = [&](const std::string& shape) {
    return t.rrswin("run --layer enc5 -o x --ex 16 --ey 8 --texture-raw tex.raw --texture-shape '" + shape + "' --threads 2");
  };
  struct Case {
    const char* shape;
    const char* says;
  } cases[] = {
      {"16x", "expected a shape starting with <width>x<height>"},
      {"x8", "expected a shape starting with <width>x<height>"},
      {"0x8", "expected a width and height in 1..65536 texels"},
      {"16x8x", "expected a shape starting with <width>x<height>"},
      {"99999x8", "expected a width and height in 1..65536 texels"},
      {"16x8-pitch100", "expected a pitch of at least 8·width = 128 bytes, found 100"},
      {"16x9", "expected 1152 bytes (pitch 128 × height 9), found 1024 bytes"},
      {"16x8-pitch136", "expected 1088 bytes (pitch 136 × height 8), found 1024 bytes"},
      {"8x8-pitch128", "expected a texture of at least ex×ey = 16×8 texels, found 8×8"},
      {"16x8-pitch2305843009213694080", "the product wraps in 64 bits"},  // pitch·height = 1024 mod 2^64
  };
  for (const Case& c : cases) {
    const Result r = run_raw(c.shape);
    EXPECT_EQ(r.status, 2) << c.shape << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, "tex.raw: at byte offset")) << c.shape << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, c.says)) << c.shape << "\n" << r.out;
    EXPECT_FALSE(fs::exists(t.file("x/arena.bin"))) << c.shape;  // no output on a failed run
  }
  // Wrong command lines (exit 2).
  EXPECT_EQ(t.rrswin("run --layer enc5 -o x --texture-raw tex.raw").status, 2);  // no shape, no dump name
  EXPECT_EQ(t.rrswin("run --layer enc5 -o x --texture-shape 16x8").status, 2);   // shape without file
  EXPECT_EQ(t.rrswin("run --layer enc5 -o x --texture-raw tex.raw --texture x.exr --texture-shape 16x8").status, 2);
  EXPECT_EQ(t.rrswin("run --layer enc5 -o x --from-dump cap --input a.bin").status, 2);
  EXPECT_EQ(t.rrswin("run --layer enc5 -o x --from-dump cap --launch 9").status, 2);

  // The same damaged dump read by replay and by run --from-dump: one parser, one message.
  const fs::path f = find_file(t.file("cap"), "arg088");
  std::string n = f.filename().string();
  n.replace(n.find("-16x8-"), 6, "-16x8-pitch100-");
  fs::rename(f, t.file("cap/" + n));
  const Result a = t.rrswin("replay cap -o rep"), b = t.rrswin("run --layer enc5 --from-dump cap -o x");
  EXPECT_EQ(a.status, 2) << a.out;
  EXPECT_EQ(b.status, 2) << b.out;
  const std::string msg = "expected a pitch of at least 8·width = 128 bytes, found 100";
  EXPECT_TRUE(contains(a.out, msg) && contains(b.out, msg)) << a.out << b.out;
  EXPECT_EQ(a.out.substr(a.out.find("cap/")), b.out.substr(b.out.find("cap/")));
  // A folder holding no dump at all.
  fs::create_directories(t.file("empty"));
  EXPECT_EQ(t.rrswin("run --layer enc5 --from-dump empty -o x").status, 2);
}
