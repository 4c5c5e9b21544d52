// `rrswin ptx stats`' counts (ptx::entry_stats): every model-dependent instruction (every .approx form,
// the same criterion as the run's RunStats::model_dependent), the FP8 and the integer mma. The
// expected counts are the instructions of the PTX written here.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ptx/ptx.hpp"

using namespace rrswin::ptx;

namespace {

const char* kPtx =
    ".version 8.0\n.target sm_89\n.address_size 64\n"
    ".visible .entry k(.param .u64 pout)\n{\n"
    "  .reg .b32 %r<12>;\n  .reg .s32 %s<4>;\n  .reg .f32 %f<8>;\n  .reg .f64 %fd<4>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [pout];\n  cvta.to.global.u64 %rd1, %rd1;\n"
    "  mov.f32 %f1, 0f3F000000;\n"
    "  ex2.approx.f32 %f2, %f1;\n  sin.approx.f32 %f3, %f1;\n  sin.approx.f32 %f4, %f2;\n  rcp.approx.ftz.f64 %fd1, %fd0;\n"
    "  div.approx.ftz.f32 %f5, %f1, %f2;\n  add.rn.f32 %f6, %f3, %f4;\n  sqrt.rn.f32 %f7, %f6;\n"
    "  mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%r1, %r2}, {%r3, %r4, %r5, %r6}, {%r7, %r8}, {%r9, %r10};\n"
    "  mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%s0, %s1}, {%r1}, {%r2}, {%s2, %s3};\n"
    "  st.global.f32 [%rd1], %f5;\n  ret;\n}\n";

TEST(PtxStats, CountsEveryModelDependentInstructionAndBothMmaKinds) {
  const auto m = parse_module(kPtx, "stats.ptx");
  const EntryStats s = entry_stats(*m, "k");
  const std::map<std::string, std::uint32_t> want = {
      {"ex2.approx.f32", 1}, {"sin.approx.f32", 2}, {"rcp.approx.ftz.f64", 1}, {"div.approx.ftz.f32", 1}};
  EXPECT_EQ(s.model_dependent, want);
  EXPECT_EQ(s.mma, 1u);
  EXPECT_EQ(s.mma_int, 1u);
  // A run of one warp executes each once: the run reports the same instructions (warp executions).
  std::vector<std::uint8_t> out(64);
  Device dev;
  const std::uint64_t a = dev.add_global("out", {out.data(), out.size()});
  std::uint8_t params[8];
  std::memcpy(params, &a, 8);
  RunOptions o;
  o.threads = 1;
  const RunStats st = run(*m, "k", {1, 1, 1}, {32, 1, 1}, params, dev, o);
  ASSERT_EQ(st.model_dependent.size(), want.size());
  for (const auto& [name, n] : want) EXPECT_EQ(st.model_dependent.at(name), n) << name;
}

}  // namespace
