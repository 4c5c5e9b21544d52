// `rrswin settle` recovers the readings and profile of synthetic captures made with non-default
// choices, and says which readings the capture cannot decide.
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace test_util;

TEST(SettleCli, RecoversNonDefaultReadingsAndZluda) {
  TempDir t;
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 16 --ey 16 --profile zluda --reading arena-order=natural "
                     "--reading filter-border=clamp --threads 2")
                .status,
            0);
  Result r = t.rrswin("settle cap --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "best: profile=zluda")) << r.out;
  EXPECT_TRUE(contains(r.out, "arena-order=natural")) << r.out;
  EXPECT_TRUE(contains(r.out, "filter-border=clamp")) << r.out;
  EXPECT_TRUE(contains(r.out, "reproduces arena and surface exactly")) << r.out;
  if (have_python()) {
    r = shell(
        "'" RRSWIN_CLI_PATH "' settle '" + t.file("cap") +
        "' --json --threads 2 | python3 -c '"
        "import json,sys; d=json.load(sys.stdin); b=d[\"best\"]; "
        "assert d[\"exact\"] and b[\"profile\"]==\"zluda\" and b[\"arena-order\"]==\"natural\" and b[\"filter-border\"]==\"clamp\", b; "
        "assert \"arena-order\" not in d[\"not_settled\"] and \"filter-border\" not in d[\"not_settled\"]; print(\"json ok\")'");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(contains(r.out, "json ok")) << r.out;
  }
}

TEST(SettleCli, RecoversPrologueAndStressReadingsFromAReplayCapture) {
  TempDir t;
  ASSERT_EQ(t.rrswin("capture --synthetic --form replay -o rc --ex 16 --ey 16 --stress --seed 5 --reading prologue-fill=mirror "
                     "--reading filter-logits=nine '--reading=arena-lane-guard=laneid>15' --threads 2")
                .status,
            0);
  const Result r = t.rrswin("settle rc --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "prologue-fill=mirror")) << r.out;
  EXPECT_TRUE(contains(r.out, "filter-logits=nine")) << r.out;
}

TEST(SettleCli, NeedsResults) {
  TempDir t;
  ASSERT_EQ(t.rrswin("capture --synthetic --form replay -o rc --ex 8 --ey 8").status, 0);
  fs::remove_all(t.file("rc/results"));
  const Result r = t.rrswin("settle rc");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "no results")) << r.out;
  EXPECT_EQ(t.rrswin("settle --help").status, 0);
}
