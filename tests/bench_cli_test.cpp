// `rrswin bench`'s BLAS reference, run as a user would (RRSWIN_CLI_PATH): OpenBLAS is opened when the
// reference runs (src/cli/bench_core.cpp blas()), not linked into the executable, whose other
// commands would otherwise start its spinning thread pool (docs/performance.md "`rrswin bench`").
#include <gtest/gtest.h>

#include <string>

#include "engine/simd.hpp"
#include "model/layer_spec.hpp"
#include "test_util.hpp"

namespace {

using test_util::contains;
using test_util::Result;
using test_util::shell;

TEST(BenchCli, ExecutableDoesNotLinkOpenBlas) {
  if (shell("command -v readelf").status != 0) GTEST_SKIP() << "no readelf on this machine";
  const Result r = shell(std::string("readelf -d '") + RRSWIN_CLI_PATH + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  ASSERT_TRUE(contains(r.out, "(NEEDED)")) << "readelf printed no NEEDED entries:\n" << r.out;
  EXPECT_FALSE(contains(r.out, "openblas")) << r.out;
  EXPECT_FALSE(contains(r.out, "libblas")) << r.out;
}

TEST(BenchCli, BlasReferenceIsOpenedWhenItRuns) {
  const Result r =
      shell(std::string("'") + RRSWIN_CLI_PATH + "' bench --geometry small --profile zluda --simd scalar --reps 1 --no-golden --threads 1");
  ASSERT_EQ(r.status, 0) << r.out;
#ifdef RRSWIN_TEST_EXPECT_BLAS
  EXPECT_TRUE(contains(r.out, "BLAS f32")) << r.out;
  EXPECT_TRUE(contains(r.out, "(OpenBLAS sgemm, f32, GEMMs only)")) << r.out;
  EXPECT_FALSE(contains(r.out, "BLAS reference skipped")) << r.out;
#else
  EXPECT_TRUE(contains(r.out, "BLAS reference skipped: configured with -DRRSWIN_BENCH_BLAS=OFF")) << r.out;
#endif
}

// `rrswin bench --layer L` (issue 33): the layer at its real token grid beside enc5 (the baseline of
// "vs enc5", measured in the same run), with the parts that ran; an unknown layer is a usage error.
TEST(BenchCli, LayerTableHasEnc5AsItsBaseline) {
  const std::string best(rrswin::engine::to_string(rrswin::engine::best_simd_path()));
  const Result r = shell("'" RRSWIN_CLI_PATH "' bench --layer enc3 --profile zluda --simd " + best + " --reps 1 --no-reference");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "vs enc5")) << r.out;
  EXPECT_TRUE(contains(r.out, "enc5      40x23     15")) << r.out;  // facts A3: 40 x 23 tokens, 5 x 3 blocks
  EXPECT_TRUE(contains(r.out, "enc3     160x92    240")) << r.out;  // DESC3: 160 x 92, 20 x 12 blocks at no offset
  // enc3 runs the fused block at its C = 128 (issue 33): no golden parts on either line.
  EXPECT_TRUE(contains(r.out, "fused engine")) << r.out;
  EXPECT_FALSE(contains(r.out, "golden parts")) << r.out;
  EXPECT_TRUE(contains(r.out, "vs i16lim")) << r.out;
  // The per-phase-group breakdown (issue 33): a row per layer, profile and path, the front and tail
  // groups among the columns, the total and the fixed share.
  EXPECT_TRUE(contains(r.out, "per-phase-group time per block")) << r.out;
  EXPECT_TRUE(contains(r.out, "front prologue")) << r.out;
  EXPECT_TRUE(contains(r.out, "tail     total  fixed")) << r.out;
  EXPECT_TRUE(contains(r.out, "enc5  zluda  " + best)) << r.out;
  EXPECT_TRUE(contains(r.out, "enc3  zluda  " + best)) << r.out;
  EXPECT_EQ(shell("'" RRSWIN_CLI_PATH "' bench --layer enc9").status, 2);
}

// `rrswin bench --network` (issue 36): every runnable layer at each render, a total with its GMAC/s
// against enc5 alone in the same run and its time per megapixel.
TEST(BenchCli, NetworkTableListsEveryLayerThatRunsAndATotal) {
  const Result r = shell("'" RRSWIN_CLI_PATH "' bench --network --render 64,64 --render 128,64 --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "profile ada: enc5 alone (40x23)")) << r.out;
  for (rrswin::LayerId id : rrswin::layer_ids()) {
    if (!rrswin::layer_spec(id).runnable) continue;
    EXPECT_TRUE(contains(r.out, "128x64     " + std::string(rrswin::to_string(id)))) << rrswin::to_string(id) << r.out;
  }
  EXPECT_TRUE(contains(r.out, "64x64      enc0       64x64 ")) << r.out;  // level 0 of a 64 x 64 render
  EXPECT_TRUE(contains(r.out, "128x64     total")) << r.out;
  EXPECT_TRUE(contains(r.out, "vs enc5")) << r.out;
  EXPECT_TRUE(contains(r.out, "ms/Mpx")) << r.out;
  EXPECT_EQ(shell("'" RRSWIN_CLI_PATH "' bench --network --layer enc3").status, 2);
  EXPECT_EQ(shell("'" RRSWIN_CLI_PATH "' bench --render 64,64").status, 2);
}

}  // namespace
