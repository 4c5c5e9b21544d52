// The proof of the CUDA kernel without a GPU (issue 13): its checked-in sm_89 PTX
// (src/cuda/generated/, what nvcc makes of src/cuda/enc5_kernel.cu; cuda_ptx_up_to_date checks
// that where nvcc exists) runs in the PTX interpreter (src/ptx) and must give the golden model's
// output arena and surface byte for byte, under every profile, on the default and stress frames,
// odd extents and non-zero block offsets. The trace build's PTX must give the golden model's trace
// stages (phase boundaries, src/cuda/trace_stages.hpp) value for value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "bridge/enc5_launch.hpp"
#include "cuda/enc5_params.hpp"
#include "cuda/trace_stages.hpp"
#include "model/weight_image.hpp"
#include "numerics/profile.hpp"
#include "ptx/ptx.hpp"

namespace rrswin {
namespace {

bool small_scale() {
  const char* s = std::getenv("RRSWIN_TEST_SCALE");
  return s && std::string(s) == "small";
}

std::string ptx_path(bool trace) {
  return std::string(RRSWIN_CUDA_GENERATED_DIR) + (trace ? "/enc5_kernel_trace.sm_89.ptx" : "/enc5_kernel.sm_89.ptx");
}
const ptx::Module& kernel_module(bool trace) {
  static std::shared_ptr<const ptx::Module> m[2];
  if (!m[trace]) m[trace] = ptx::load_module(ptx_path(trace));
  return *m[trace];
}

// Every profile (the CUDA port is profile-free: the interpreter gives it each profile's mma).
const std::vector<const Profile*>& profiles() { return all_profiles(); }

struct Frame {
  std::string name;
  int ex, ey, ox, oy;
  std::uint64_t seed;
  bool stress;
};

struct Outputs {
  std::vector<std::uint8_t> arena;
  Surface surface;
};

struct Inputs {
  SyntheticFrame f;
  const WeightImage* weights;
};

Inputs inputs_of(const Frame& fr) {
  static const WeightImage stress_w = make_synthetic_weights(SyntheticOptions{1, true});
  return {make_synthetic_frame(fr.ex, fr.ey, fr.seed, fr.stress), fr.stress ? &stress_w : &default_weights()};
}

Outputs run_golden(const Frame& fr, const Inputs& in, const Profile& prof, const TraceRequest* req = nullptr, Trace* trace = nullptr) {
  Outputs o{std::vector<std::uint8_t>(in.f.input_arena.size(), 0), Surface::make(fr.ex, fr.ey)};
  LaunchParams p = frame_launch(fr.ex, fr.ey, in.f.input_arena, *in.weights, o.arena, in.f.texture, o.surface);
  p.block_offset_x = static_cast<std::uint16_t>(fr.ox);
  p.block_offset_y = static_cast<std::uint16_t>(fr.oy);
  RunOptions opt;
  opt.profile = &prof;
  opt.engine = Engine::golden;
  opt.trace = req;
  opt.trace_out = trace;
  run_frame(p, opt);
  return o;
}

// The kernel in the interpreter, launched as the original: grid ceil((ex+ox)/8) x ceil((ey+oy)/8),
// blocks (32, 1, 8), the 144-byte parameter block of src/cuda/enc5_params.hpp.
Outputs run_interpreted(const Frame& fr, const Inputs& in, const Profile& prof, std::vector<std::uint32_t>* trace_buf = nullptr,
                        int trace_bx = 0, int trace_by = 0, const ptx::Module* module = nullptr) {
  Outputs o{std::vector<std::uint8_t>(in.f.input_arena.size(), 0), Surface::make(fr.ex, fr.ey)};
  ptx::Device dev;
  cuda::Enc5Params p{};
  p.ex = static_cast<std::uint32_t>(fr.ex);
  p.ey = static_cast<std::uint32_t>(fr.ey);
  auto ptr = [](std::uint64_t a) { return reinterpret_cast<std::uint8_t*>(static_cast<std::uintptr_t>(a)); };
  p.input_arena = ptr(dev.add_global_readonly("input_arena", in.f.input_arena));
  p.weights = ptr(dev.add_global_readonly("weights", in.weights->bytes()));
  p.output_arena = ptr(dev.add_global("output_arena", o.arena));
  p.block_offset_x = static_cast<std::uint16_t>(fr.ox);
  p.block_offset_y = static_cast<std::uint16_t>(fr.oy);
  p.texture = dev.bind_texture(&in.f.texture);
  p.surface = dev.bind_surface(&o.surface);
  std::uint8_t block[sizeof(cuda::Enc5Params)];
  std::memcpy(block, &p, sizeof p);
  if (trace_buf) {
    trace_buf->assign(cuda::kTraceWords, 0xDEADBEEFu);
    const std::uint64_t a = dev.add_global("trace", {reinterpret_cast<std::uint8_t*>(trace_buf->data()), trace_buf->size() * 4});
    const std::uint32_t cta[2] = {static_cast<std::uint32_t>(trace_bx), static_cast<std::uint32_t>(trace_by)};
    std::memcpy(block + cuda::kTraceBufferParamOffset, &a, 8);
    std::memcpy(block + cuda::kTraceBlockParamOffset, cta, 8);
  }
  ptx::RunOptions opt;
  opt.profile = &prof;
  const ptx::Dim3 grid = ptx::enc5_grid(static_cast<std::uint32_t>(fr.ex), static_cast<std::uint32_t>(fr.ey),
                                        static_cast<std::uint32_t>(fr.ox), static_cast<std::uint32_t>(fr.oy));
  const ptx::Dim3 threads{cuda::kBlockX, cuda::kBlockY, cuda::kBlockZ};
  ptx::run(module ? *module : kernel_module(trace_buf != nullptr), "cuda_dldn_engine_swin_enc5_kernel", grid, threads, block, dev, opt);
  return o;
}

// The first differing byte, as a message ("" when equal).
std::string first_difference(const std::vector<std::uint8_t>& want, const std::vector<std::uint8_t>& got, const char* what) {
  if (want.size() != got.size()) return std::string(what) + ": sizes differ";
  std::size_t n = 0, first = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (want[i] != got[i] && n++ == 0) first = i;
  if (n == 0) return "";
  return std::string(what) + ": " + std::to_string(n) + " bytes differ, first at byte " + std::to_string(first) + " (golden " +
         std::to_string(want[first]) + ", kernel " + std::to_string(got[first]) + ")";
}

std::vector<Frame> frames() {
  if (small_scale())  // sanitizer build: one block, then a 1x2 grid with odd extents and offsets
    return {{"default-8x8", 8, 8, 0, 0, 1, false}, {"stress-5x7-offset-3,5", 5, 7, 3, 5, 1, true}};
  return {
      {"default-40x23", 40, 23, 0, 0, 1, false},               // the demo frame (real geometry)
      {"stress-40x23", 40, 23, 0, 0, 1, true},                 // every nonlinear branch
      {"odd-13x11", 13, 11, 0, 0, 4, false},                   // odd extents: partial blocks
      {"stress-odd-19x13-offset-3,5", 19, 13, 3, 5, 6, true},  // non-zero block offsets (u16 param+80/+82)
  };
}

TEST(CudaKernel, InterpretedPtxEqualsGoldenByteForByte) {
  for (const Frame& fr : frames()) {
    const Inputs in = inputs_of(fr);
    for (const Profile* prof : profiles()) {
      SCOPED_TRACE(fr.name + " / " + std::string(prof->name));
      const Outputs want = run_golden(fr, in, *prof);
      const Outputs got = run_interpreted(fr, in, *prof);
      EXPECT_EQ(first_difference(want.arena, got.arena, "output arena"), "");
      EXPECT_EQ(first_difference(want.surface.bytes, got.surface.bytes, "surface"), "");
      // Not vacuous: the layer wrote arena words and surface texels.
      EXPECT_GT(std::count_if(got.arena.begin(), got.arena.end(), [](std::uint8_t v) { return v != 0; }), 0);
      EXPECT_GT(std::count_if(got.surface.bytes.begin(), got.surface.bytes.end(), [](std::uint8_t v) { return v != 0; }), 0);
    }
  }
}

// The comparison catches a one-instruction change of the kernel: the prologue's rsqrt replaced by
// an rcp in the PTX text must change the outputs.
TEST(CudaKernel, AMutatedKernelIsCaught) {
  std::ifstream f(ptx_path(false));
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  const std::size_t at = text.find("rsqrt.approx.ftz.f32");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 5, "rcp");
  const auto mutated = ptx::parse_module(text, "mutated.ptx");
  const Frame fr{"default-8x8", 8, 8, 0, 0, 1, false};
  const Inputs in = inputs_of(fr);
  const Outputs want = run_golden(fr, in, profile_ada());
  const Outputs got = run_interpreted(fr, in, profile_ada(), nullptr, 0, 0, mutated.get());
  EXPECT_NE(first_difference(want.arena, got.arena, "output arena"), "");
}

// The trace build records the golden model's stages at phase boundaries; every value must agree.
TEST(CudaKernel, TraceBuildStagesEqualGoldenTraces) {
  struct Case {
    Frame fr;
    int bx, by;
  };
  const std::vector<Case> cases = small_scale() ? std::vector<Case>{{{"stress-5x7-offset-3,5", 5, 7, 3, 5, 1, true}, 0, 1}}
                                                : std::vector<Case>{{{"stress-16x16-offset-3,5", 16, 16, 3, 5, 2, true}, 1, 1},
                                                                    {{"default-16x8", 16, 8, 0, 0, 3, false}, 1, 0}};
  for (const Case& c : cases) {
    const Inputs in = inputs_of(c.fr);
    for (const Profile* prof : profiles()) {
      SCOPED_TRACE(c.fr.name + " / " + std::string(prof->name));
      TraceRequest req;
      for (int i = 0; i < cuda::kTraceStageCount; ++i) req.stages.push_back(cuda::trace_stage(i).name);
      req.block_x = c.bx;
      req.block_y = c.by;
      Trace golden_trace;
      const Outputs want = run_golden(c.fr, in, *prof, &req, &golden_trace);
      std::vector<std::uint32_t> buf;
      const Outputs got = run_interpreted(c.fr, in, *prof, &buf, c.bx, c.by);
      // The trace build computes the same outputs as the production build.
      EXPECT_EQ(first_difference(want.arena, got.arena, "output arena"), "");
      EXPECT_EQ(first_difference(want.surface.bytes, got.surface.bytes, "surface"), "");
      std::map<std::string, const TraceStage*> by;
      for (const TraceStage& st : golden_trace.stages) by[st.name] = &st;
      for (int i = 0; i < cuda::kTraceStageCount; ++i) {
        const cuda::TraceStageInfo info = cuda::trace_stage(i);
        ASSERT_TRUE(by.count(info.name)) << info.name;
        const TraceStage& st = *by[info.name];
        ASSERT_EQ(st.values.size(), static_cast<std::size_t>(info.warps) * 32 * info.regs) << info.name;
        int bad = 0;
        for (std::size_t k = 0; k < st.values.size(); ++k) {
          const std::uint32_t v = buf[cuda::trace_stage_offset(i) + k];
          if (v != st.values[k] && bad++ < 3) {
            const int regs = info.regs, w = static_cast<int>(k) / (32 * regs), lane = static_cast<int>(k) / regs % 32;
            ADD_FAILURE() << "stage " << info.name << " warp " << w << " lane " << lane << " reg " << static_cast<int>(k) % regs
                          << ": golden 0x" << std::hex << st.values[k] << ", kernel 0x" << v;
          }
        }
        EXPECT_EQ(bad, 0) << "stage " << info.name;
      }
    }
  }
}

}  // namespace
}  // namespace rrswin
