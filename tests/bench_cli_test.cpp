// `enc5 bench`'s BLAS reference, run as a user would (ENC5_CLI_PATH): OpenBLAS is opened when the
// reference runs (src/cli/bench_core.cpp blas()), not linked into the executable, whose other
// commands would otherwise start its spinning thread pool (docs/performance.md "Eighth pass").
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace {

namespace fs = std::filesystem;

struct Result {
  int rc;
  std::string out;
};

Result shell(const std::string& cmd) {
  const fs::path out = fs::temp_directory_path() / ("enc5_bench_cli_" + std::to_string(::getpid()) + ".txt");
  const int status = std::system((cmd + " >'" + out.string() + "' 2>&1").c_str());
  std::ifstream in(out, std::ios::binary);
  Result r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>())};
  fs::remove(out);
  return r;
}

TEST(BenchCli, ExecutableDoesNotLinkOpenBlas) {
  if (shell("command -v readelf").rc != 0) GTEST_SKIP() << "no readelf on this machine";
  const Result r = shell(std::string("readelf -d '") + ENC5_CLI_PATH + "'");
  ASSERT_EQ(r.rc, 0) << r.out;
  ASSERT_NE(r.out.find("(NEEDED)"), std::string::npos) << "readelf printed no NEEDED entries:\n" << r.out;
  EXPECT_EQ(r.out.find("openblas"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("libblas"), std::string::npos) << r.out;
}

TEST(BenchCli, BlasReferenceIsOpenedWhenItRuns) {
  const Result r =
      shell(std::string("'") + ENC5_CLI_PATH + "' bench --geometry small --profile zluda --simd scalar --reps 1 --no-golden --threads 1");
  ASSERT_EQ(r.rc, 0) << r.out;
#ifdef ENC5_TEST_EXPECT_BLAS
  EXPECT_NE(r.out.find("BLAS f32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(OpenBLAS sgemm, f32, GEMMs only)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("BLAS reference skipped"), std::string::npos) << r.out;
#else
  EXPECT_NE(r.out.find("BLAS reference skipped: configured with -DENC5_BENCH_BLAS=OFF"), std::string::npos) << r.out;
#endif
}

}  // namespace
