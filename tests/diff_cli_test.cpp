// `rrswin diff`: folders and single files, text and JSON reports (checked with Python's json),
// heat maps, and the exit status (0 identical, 1 different, 2 errors).
#include <gtest/gtest.h>

#include "io/files.hpp"
#include "test_util.hpp"

using namespace test_util;

namespace {
// A capture and a replay of it under the other profile: different arena and surface.
void make_pair(const TempDir& t) {
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 16 --ey 8 --window 64,0 --threads 2").status, 0);
  ASSERT_EQ(t.rrswin("replay cap -o zl --profile zluda --threads 2").status, 1);
}
}  // namespace

TEST(DiffCli, FoldersReportLayoutAndHeatMaps) {
  TempDir t;
  make_pair(t);
  Result r = t.rrswin("diff cap zl --heatmap-dir heat");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "DIFFERS:")) << r.out;
  EXPECT_TRUE(contains(r.out, "per plane: q0")) << r.out;
  EXPECT_TRUE(contains(r.out, "per channel (values): r")) << r.out;
  EXPECT_TRUE(contains(r.out, "e4m3 codes at")) << r.out;
  EXPECT_TRUE(contains(r.out, "f16 ulp at")) << r.out;
  EXPECT_TRUE(contains(r.out, "first: byte 64 (window byte 0)") || contains(r.out, "window byte")) << r.out;
  int pngs = 0;
  for (const auto& e : fs::directory_iterator(t.file("heat"))) pngs += e.path().extension() == ".png";
  EXPECT_EQ(pngs, 2);
}

TEST(DiffCli, JsonIsValid) {
  if (!have_python()) GTEST_SKIP() << "python3 not available";
  TempDir t;
  make_pair(t);
  const Result r = shell("cd '" + t.path.string() +
                         "' && '" RRSWIN_CLI_PATH
                         "' diff cap zl --json | python3 -c '"
                         "import json,sys; d=json.load(sys.stdin); assert d[\"identical\"] is False; "
                         "f=[x for x in d[\"files\"] if x[\"kind\"]==\"arena\"][0]; "
                         "assert f[\"bytes_differing\"]==sum(f[\"per_plane\"]); assert f[\"first\"][\"offset\"]>=64; "
                         "s=[x for x in d[\"files\"] if \"arg112\" in x[\"key\"]][0]; assert s[\"max_distance\"]>0; "
                         "print(\"json ok\", len(d[\"only_in_a\"]))'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "json ok 0")) << r.out;  // the replay folder holds every argument
}

TEST(DiffCli, SingleFiles) {
  TempDir t;
  ASSERT_EQ(t.rrswin("run --layer enc5 --ex 16 --ey 8 --engine fast -o a --threads 2").status, 0);
  ASSERT_EQ(t.rrswin("run --layer enc5 --ex 16 --ey 8 --engine fast -o b --profile zluda --threads 2").status, 0);
  EXPECT_EQ(t.rrswin("diff a/arena.bin a/arena.bin --ex 16 --ey 8").status, 0);
  Result r = t.rrswin("diff a/arena.bin b/arena.bin --ex 16 --ey 8");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "plane ")) << r.out;
  r = t.rrswin("diff a/surface112.exr b/surface112.exr");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "f16 ulp")) << r.out;
  EXPECT_EQ(t.rrswin("diff a/surface112.exr a/surface112.exr").status, 0);
  // Errors: exit 2.
  EXPECT_EQ(t.rrswin("diff a/arena.bin missing.bin").status, 2);
  EXPECT_EQ(t.rrswin("diff a a/arena.bin").status, 2);
  rrswin::write_file_atomic(t.file("bad.exr"), std::vector<std::uint8_t>(10, 0));
  r = t.rrswin("diff a/surface112.exr bad.exr");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "bad.exr")) << r.out;
  EXPECT_EQ(t.rrswin("diff --help").status, 0);
}
