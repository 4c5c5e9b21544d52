// The newcomer's path (issue 12): `rrswin --version`, `rrswin run`'s preparation and layer times,
// previews big enough to see, a re-run that leaves no stale output of the previous run, and
// CI=true turning a skip for a missing reference into a failure.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/files.hpp"
#include "test_util.hpp"

using namespace test_util;
namespace fs = std::filesystem;

namespace {
// Width and height from a PNG's IHDR chunk (bytes 16..23, big endian).
std::pair<std::uint32_t, std::uint32_t> png_size(const fs::path& p) {
  const auto b = rrswin::read_file_bytes(p.string());
  auto be = [&](std::size_t i) {
    return std::uint32_t{b[i]} << 24 | std::uint32_t{b[i + 1]} << 16 | std::uint32_t{b[i + 2]} << 8 | b[i + 3];
  };
  return b.size() >= 24 ? std::pair{be(16), be(20)} : std::pair{0u, 0u};
}
}  // namespace

TEST(Newcomer, VersionIsPrinted) {
  TempDir t;
  const Result r = t.rrswin("--version");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "rrswin 0.1.0")) << r.out;
}

TEST(Newcomer, RunPrintsPreparationAndLayerApart) {
  TempDir t;
  const Result r = t.rrswin("run --layer enc5 -o out --ex 16 --ey 8 --threads 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "preparation: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "layer: 2 blocks in ")) << r.out;
}

TEST(Newcomer, PreviewsAreScaledUpAndStaleOnesRemoved) {
  TempDir t;
  Result r = t.rrswin("run --layer enc5 -o out --preview --trace w1 --block 0,0 --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(png_size(t.path / "out" / "surface112.png"), (std::pair<std::uint32_t, std::uint32_t>{320, 184}));  // 40 x 23, x8
  EXPECT_EQ(png_size(t.path / "out" / "arena_plane3.png"), (std::pair<std::uint32_t, std::uint32_t>{320, 184}));
  // The same folder again without --preview and --trace: the previous previews and trace go.
  r = t.rrswin("run --layer enc5 -o out --seed 2 --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "removed out/surface112.png (a previous run's output)")) << r.out;
  for (const char* f : {"surface112.png", "arena_plane0.png", "arena_plane4.png", "trace.bin", "trace.txt"})
    EXPECT_FALSE(fs::exists(t.path / "out" / f)) << f;
  EXPECT_TRUE(fs::exists(t.path / "out" / "arena.bin"));
  // Inputs in the folder are never removed, even when this run did not write them.
  ASSERT_EQ(t.rrswin("run --layer enc5 -o out --save-inputs --threads 2").status, 0);
  r = t.rrswin("run --layer enc5 -o out --input out/input_arena.bin --threads 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::exists(t.path / "out" / "input_arena.bin"));
}

// RRSWIN_SKIP_UNLESS_CI (tests/ci_skip.hpp): this very binary, with ../shared pointed elsewhere,
// skips the measurement tests, and fails them when CI=true.
TEST(Newcomer, MissingSharedSkipsOutsideCiAndFailsInCi) {
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(n, 0);
  self[n] = 0;
  const std::string cmd =
      std::string("RRSWIN_SHARED_DIR=/nonexistent '") + self + "' --gtest_filter=AdaMeasurements.AdaProfileMatchesEveryMeasuredCase";
  Result r = shell("env -u CI " + cmd);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "SKIPPED")) << r.out;
  r = shell("CI=true " + cmd);
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "CI=true, so this skip is a failure")) << r.out;
}
