// `rrswin capture --synthetic` and `rrswin replay` as a user runs them: round trips through both
// capture forms (capture -> replay -> diff says identical), sequences with a throughput summary,
// JSON output, and errors that name the file (exit 2).
#include <gtest/gtest.h>

#include "io/files.hpp"
#include "test_util.hpp"

using namespace test_util;

TEST(ReplayCli, LaunchDumpRoundTrip) {
  TempDir t;
  Result r = t.rrswin("capture --synthetic -o cap --ex 16 --ey 8 --window 128,16 --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  r = t.rrswin("replay cap -o out --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "reproduces the capture's results")) << r.out;
  EXPECT_FALSE(find_file(t.file("out"), "arg048-buffer-base0x").empty());
  EXPECT_FALSE(find_file(t.file("out"), "arg112-surface-16x8-fmt16.bin").empty());
  r = t.rrswin("diff cap out");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "IDENTICAL: 5 compared")) << r.out;
  // The replay folder carries the read-only arguments too, so even --strict finds every key.
  EXPECT_EQ(t.rrswin("diff --strict cap out").status, 0);
}

TEST(ReplayCli, ReplayFormRoundTripAndReadings) {
  TempDir t;
  Result r = t.rrswin("capture --synthetic --form replay -o rc --ex 16 --ey 8 --profile zluda --reading filter-border=clamp --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  // Replayed with the default readings it differs (exit 1) ...
  r = t.rrswin("replay rc -o out1 --threads 2");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "DIFFERS from the capture's results")) << r.out;
  // ... and with the capture's own it reproduces results/ exactly.
  r = t.rrswin("replay rc -o out2 --profile zluda --reading filter-border=clamp --engine golden --threads 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(t.rrswin("diff rc/results out2").status, 0);
}

TEST(ReplayCli, SequenceSummaryAndJson) {
  TempDir t;
  ASSERT_EQ(t.rrswin("capture --synthetic -o seq/a --ex 8 --ey 8 --threads 2").status, 0);
  ASSERT_EQ(t.rrswin("capture --synthetic -o seq/b --ex 8 --ey 8 --seed 3 --launch 2 --threads 2").status, 0);
  ASSERT_EQ(t.rrswin("capture --synthetic --form replay -o seq/c --ex 8 --ey 8 --seed 4 --threads 2").status, 0);
  Result r = t.rrswin("replay seq -o out --threads 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "3 launches in")) << r.out;
  EXPECT_TRUE(contains(r.out, "launches/s")) << r.out;
  EXPECT_TRUE(contains(r.out, "0 of 3 differ")) << r.out;
  if (have_python()) {
    r = shell("'" RRSWIN_CLI_PATH "' replay '" + t.file("seq") + "' -o '" + t.file("out2") +
              "' --json --threads 2 | python3 -c 'import json,sys; d=json.load(sys.stdin); "
              "assert d[\"launches_run\"]==3 and d[\"differing\"]==0, d; print(\"json ok\")'");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(contains(r.out, "json ok")) << r.out;
  }
}

TEST(ReplayCli, ErrorsNameTheFileAndExit2) {
  TempDir t;
  Result r = t.rrswin("replay nowhere -o out");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "nowhere")) << r.out;
  r = t.rrswin("replay");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.out, "rrswin replay --help")) << r.out;
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 8 --ey 8").status, 0);
  r = t.rrswin("replay cap");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.out, "-o DIR")) << r.out;
  // Truncate the arena dump: the message names it and the byte offset.
  const auto arena = find_file(t.file("cap"), "arg048");
  fs::resize_file(arena, 50);
  r = t.rrswin("replay cap -o out");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, arena.filename().string() + ": at byte offset 50")) << r.out;
  EXPECT_EQ(t.rrswin("capture -o x").status, 2);
  EXPECT_EQ(t.rrswin("replay --help").status, 0);
  EXPECT_EQ(t.rrswin("capture --help").status, 0);
}

TEST(ReplayCli, SeveralLaunchesInOneDumpFolderAndOtherKernels) {
  TempDir t;
  // Two enc5 launches (3 and 5) in one folder, plus a launch of another kernel that must be skipped.
  ASSERT_EQ(t.rrswin("capture --synthetic -o dumps --ex 8 --ey 8 --launch 3 --threads 2").status, 0);
  ASSERT_EQ(t.rrswin("capture --synthetic -o dumps --ex 8 --ey 8 --launch 5 --seed 9 --threads 2").status, 0);
  rrswin::write_file_atomic(t.file("dumps/launch-004-cuda_dldn_engine_swin_enc4_kernel-arg048-buffer-base0x10-size4-fmt0.bin"),
                            std::vector<std::uint8_t>(4, 0));
  Result r = t.rrswin("replay dumps -o out --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "launch 003")) << r.out;
  EXPECT_TRUE(contains(r.out, "launch 005")) << r.out;
  EXPECT_TRUE(contains(r.out, "2 launches in")) << r.out;
  // Keys with occurrence counts match launch 3 with 3 and 5 with 5.
  r = t.rrswin("diff dumps out");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "#1: ok")) << r.out;
  // Replaying only another kernel's launches is an error that names what was found.
  r = t.rrswin("replay dumps -o out2 --kernel swin_enc4");
  EXPECT_EQ(r.status, 2) << r.out;
}
