// `rrswin run --layer dec4` (cli/cmd_run_layer.cpp): the decoder on the embedded synthetic assets
// and on given files, its outputs (the arena +48 and the one surface +112, nothing of a merge), the
// fast engine's bytes equal to the golden model's, and clear errors naming the file, the expected
// and the found for inputs of the wrong size.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace {

using namespace test_util;

TEST(DecoderCli, RunsOnTheEmbeddedAssetsFastEqualsGolden) {
  TempDir d;
  const Result fast = d.rrswin("run --layer dec4 --ex 19 --ey 11 --block-offset 3,2 -o fast");
  ASSERT_EQ(fast.status, 0) << fast.out;
  EXPECT_TRUE(contains(fast.out, "62 phases, 1606 mma")) << fast.out;
  EXPECT_TRUE(contains(fast.out, "surface112.exr (19 x 11, E62's surface +112)")) << fast.out;
  const Result golden = d.rrswin("run --layer dec4 --ex 19 --ey 11 --block-offset 3,2 --engine golden --threads 1 -o golden");
  ASSERT_EQ(golden.status, 0) << golden.out;
  for (const char* f : {"arena.bin", "surface112.exr"}) {
    const std::vector<unsigned char> a = bytes_of(d.path / "fast" / f), b = bytes_of(d.path / "golden" / f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_TRUE(a == b) << f;
  }
  EXPECT_EQ(bytes_of(d.path / "fast" / "arena.bin").size(), 5u * 19 * 11 * 32);
  for (const char* f : {"merged.bin", "surface120.exr", "surface128.exr"}) EXPECT_FALSE(std::filesystem::exists(d.path / "fast" / f)) << f;
  // A decoder reading changes the outputs; an unknown one is a usage error.
  const Result point = d.rrswin("run --layer dec4 --ex 19 --ey 11 --block-offset 3,2 --layer-reading decoder-sampler=point -o point");
  ASSERT_EQ(point.status, 0) << point.out;
  EXPECT_TRUE(bytes_of(d.path / "point" / "surface112.exr") != bytes_of(d.path / "fast" / "surface112.exr"));
  EXPECT_TRUE(bytes_of(d.path / "point" / "arena.bin") == bytes_of(d.path / "fast" / "arena.bin"));
  EXPECT_EQ(d.rrswin("run --layer dec4 --layer-reading decoder-sampler=cubic -o x").status, 2);
}

TEST(DecoderCli, GivenFilesAndTheirErrors) {
  TempDir d;
  ASSERT_EQ(d.rrswin("run --layer dec4 --ex 10 --ey 8 -o a").status, 0);
  // The half-resolution input and the skip as files: the same sizes as the synthetic ones.
  put(d.path / "input.bin", std::vector<unsigned char>(5u * 5 * 4 * 32, 0x38));
  put(d.path / "skip.bin", std::vector<unsigned char>(5u * 10 * 8 * 32, 0x30));
  const Result ok = d.rrswin("run --layer dec4 --ex 10 --ey 8 --input input.bin --skip skip.bin --scale 0.5,0.25 -o b");
  EXPECT_EQ(ok.status, 0) << ok.out;
  put(d.path / "short.bin", std::vector<unsigned char>(100, 0));
  const Result bad_skip = d.rrswin("run --layer dec4 --ex 10 --ey 8 --skip short.bin -o c");
  EXPECT_NE(bad_skip.status, 0);
  EXPECT_TRUE(contains(bad_skip.out, "short.bin")) << bad_skip.out;
  EXPECT_TRUE(contains(bad_skip.out, "12800 bytes (the dec4 skip arena (+24): 5 planes at 10 x 8)")) << bad_skip.out;
  const Result bad_input = d.rrswin("run --layer dec4 --ex 10 --ey 8 --input short.bin -o c");
  EXPECT_NE(bad_input.status, 0);
  EXPECT_TRUE(contains(bad_input.out, "3200 bytes (the dec4 input arena: 5 planes at 5 x 4)")) << bad_input.out;
  for (const char* s : {"--scale 0.5", "--scale x,1", "--scale 1,nan", "--scale 1,"}) {
    const Result r = d.rrswin(std::string("run --layer dec4 ") + s + " -o c");
    EXPECT_EQ(r.status, 2) << s << r.out;
    EXPECT_TRUE(contains(r.out, "--scale wants SX,SY")) << s << r.out;
  }
  EXPECT_EQ(d.rrswin("run --layer enc4 --skip skip.bin -o c").status, 2);  // the decoders' input only
  EXPECT_FALSE(std::filesystem::exists(d.path / "c"));
}

}  // namespace
