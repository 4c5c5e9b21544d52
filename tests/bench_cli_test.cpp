// `rrswin bench`'s BLAS reference, run as a user would (RRSWIN_CLI_PATH): OpenBLAS is opened when the
// reference runs (src/cli/bench_core.cpp blas()), not linked into the executable, whose other
// commands would otherwise start its spinning thread pool (docs/performance.md "Eighth pass").
#include <gtest/gtest.h>

#include <string>

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

}  // namespace
