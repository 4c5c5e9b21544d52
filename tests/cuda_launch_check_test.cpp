// The host side of the CUDA kernel (src/cuda) that runs without a GPU: the refusal of readings the
// kernel does not implement, the device -> profile map of scripts/gpu-check.sh, and the trace
// build's stage table against the golden model's stages (names, warps, registers).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "bridge/enc5_launch.hpp"
#include "capture/capture.hpp"
#include "cuda/enc5_params.hpp"
#include "cuda/launch_check.hpp"
#include "cuda/trace_stages.hpp"

namespace rrswin {
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
  // The kernel's block (cuda::Enc5Params, which rrswin-gpu fills), capture's offsets (what replay
  // and the launch dumps read, capture.hpp) and the interpreter's block (bridge/enc5_launch.cpp
  // enc5_param_block) must put every LaunchParams field at the same bytes (facts A4).
  EXPECT_EQ(sizeof(cuda::Enc5Params), capture::kParamBlockBytes);
  EXPECT_EQ(offsetof(cuda::Enc5Params, input_arena), static_cast<std::size_t>(capture::kArgInput));
  EXPECT_EQ(offsetof(cuda::Enc5Params, weights), static_cast<std::size_t>(capture::kArgWeights));
  EXPECT_EQ(offsetof(cuda::Enc5Params, output_arena), static_cast<std::size_t>(capture::kArgOutput));
  EXPECT_EQ(offsetof(cuda::Enc5Params, texture), static_cast<std::size_t>(capture::kArgTexture));
  EXPECT_EQ(offsetof(cuda::Enc5Params, surface), static_cast<std::size_t>(capture::kArgSurface));
  // Distinct values in every field of the interpreter's block, read back at the kernel's offsets.
  ptx::Enc5Args a;
  a.ex = 0x11121314u;
  a.ey = 0x21222324u;
  a.input = 0x3132333435363738ull;
  a.weights = 0x4142434445464748ull;
  a.output = 0x5152535455565758ull;
  a.ox = 0x6162;
  a.oy = 0x7172;
  a.texture = 0x8182838485868788ull;
  a.surface = 0x9192939495969798ull;
  const std::vector<std::uint8_t> block = ptx::enc5_param_block(a);
  ASSERT_EQ(block.size(), sizeof(cuda::Enc5Params));
  cuda::Enc5Params k;
  std::memcpy(&k, block.data(), sizeof k);
  EXPECT_EQ(k.ex, a.ex);
  EXPECT_EQ(k.ey, a.ey);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(k.input_arena), a.input);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(k.weights), a.weights);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(k.output_arena), a.output);
  EXPECT_EQ(k.block_offset_x, a.ox);
  EXPECT_EQ(k.block_offset_y, a.oy);
  EXPECT_EQ(k.texture, a.texture);
  EXPECT_EQ(k.surface, a.surface);
  // Every byte the original does not read stays zero (facts A4), and the trace build's extra
  // fields sit in such bytes, before the weights.
  for (const auto* unread : {&k.unread_16, &k.unread_56})
    for (std::uint8_t b : *unread) EXPECT_EQ(b, 0);
  for (std::uint8_t b : k.unread_84) EXPECT_EQ(b, 0);
  for (std::uint8_t b : k.unread_96) EXPECT_EQ(b, 0);
  for (std::uint8_t b : k.unread_120) EXPECT_EQ(b, 0);
  EXPECT_EQ(cuda::kTraceBufferParamOffset, offsetof(cuda::Enc5Params, unread_16));
  EXPECT_EQ(cuda::kTraceBlockParamOffset, cuda::kTraceBufferParamOffset + 8);
  EXPECT_LE(cuda::kTraceBlockParamOffset + 8, offsetof(cuda::Enc5Params, weights));
}

TEST(CudaLaunchCheck, TraceStagesAreGoldenStages) {
  const int ex = 8, ey = 8;
  const SyntheticFrame f = make_synthetic_frame(ex, ey, 1, false);
  std::vector<std::uint8_t> arena(f.input_arena.size(), 0);
  Surface s = Surface::make(ex, ey);
  LaunchParams p = frame_launch(ex, ey, f.input_arena, default_weights(), arena, f.texture, s);
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
}  // namespace rrswin
