// The host side of the CUDA kernel (src/cuda) that runs without a GPU: the refusal of readings the
// kernel does not implement, the device -> profile map of scripts/gpu-check.sh, and the trace
// build's stage table against the golden model's stages (names, warps, registers).
#include <gtest/gtest.h>

#include <cstddef>
#include <map>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "cuda/enc5_params.hpp"
#include "cuda/launch_check.hpp"
#include "cuda/trace_stages.hpp"

namespace enc5 {
namespace {

TEST(CudaLaunchCheck, DefaultReadingsAreTheKernelsAndAnyOtherIsRefusedByName) {
  EXPECT_EQ(cuda::unsupported_reading(Readings{}), "");
  for (const ReadingInfo& info : reading_registry())
    for (const std::string& v : info.values) {
      if (v == info.default_value) continue;
      Readings r;
      ASSERT_TRUE(set_reading(r, info.name, v, nullptr));
      const std::string why = cuda::unsupported_reading(r);
      EXPECT_NE(why.find(info.name + "=" + info.default_value), std::string::npos) << why;
      EXPECT_NE(why.find("asked: " + v), std::string::npos) << why;
    }
}

TEST(CudaLaunchCheck, ProfileOfTheDevice) {
  EXPECT_EQ(cuda::profile_for_compute_capability(8, 9), "ada");
  EXPECT_EQ(cuda::profile_for_compute_capability(9, 0), "hopper");
  EXPECT_EQ(cuda::profile_for_compute_capability(10, 0), "hopper");
  EXPECT_EQ(cuda::profile_for_compute_capability(8, 6), "");
  EXPECT_EQ(cuda::profile_for_compute_capability(12, 0), "blackwell");
  EXPECT_EQ(cuda::profile_for_compute_capability(12, 1), "");  // sm_121 (GB10): not what MMA-Sim modelled
}

TEST(CudaLaunchCheck, ParameterBlockMirrorsTheLaunch) {
  // facts A4: 144 bytes; the trace build's extra fields sit in bytes the original does not read.
  EXPECT_EQ(sizeof(cuda::Enc5Params), 144u);
  EXPECT_EQ(cuda::kTraceBufferParamOffset, offsetof(cuda::Enc5Params, unread_16));
  EXPECT_EQ(cuda::kTraceBlockParamOffset, cuda::kTraceBufferParamOffset + 8);
  EXPECT_LE(cuda::kTraceBlockParamOffset + 8, offsetof(cuda::Enc5Params, weights));
}

TEST(CudaLaunchCheck, TraceStagesAreGoldenStages) {
  const int ex = 8, ey = 8;
  const SyntheticFrame f = make_synthetic_frame(ex, ey, 1, false);
  std::vector<std::uint8_t> arena(f.input_arena.size(), 0);
  Surface s = Surface::make(ex, ey);
  LaunchParams p;
  p.ex = ex;
  p.ey = ey;
  p.input_arena = f.input_arena;
  p.weights = &default_weights();
  p.output_arena = arena;
  p.texture = &f.texture;
  p.surface = &s;
  TraceRequest req;
  for (int i = 0; i < cuda::kTraceStageCount; ++i) req.stages.push_back(cuda::trace_stage(i).name);
  Trace t;
  RunOptions o;
  o.trace = &req;
  o.trace_out = &t;
  run_frame(p, o);
  std::map<std::string, const TraceStage*> by;
  for (const auto& st : t.stages) by[st.name] = &st;
  for (int i = 0; i < cuda::kTraceStageCount; ++i) {
    const cuda::TraceStageInfo info = cuda::trace_stage(i);
    ASSERT_TRUE(by.count(info.name)) << info.name;
    EXPECT_EQ(by[info.name]->warps, info.warps) << info.name;
    EXPECT_EQ(by[info.name]->regs, info.regs) << info.name;
  }
}

}  // namespace
}  // namespace enc5
