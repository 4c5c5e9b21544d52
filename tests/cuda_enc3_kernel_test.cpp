// The proof of enc3's CUDA port without a GPU (issue 37): its checked-in sm_89 PTX
// (src/cuda/generated/enc3_kernel.sm_89.ptx, what nvcc makes of src/cuda/enc3_kernel.cu;
// cuda_enc3_ptx_up_to_date checks that where nvcc exists) runs in the PTX interpreter on replay
// captures of enc3 (bridge/layer_capture.hpp) and must give the golden model's outputs byte for
// byte: the arena (+48), the merged output (+56) and the three surfaces (+112/+120/+128), under
// every profile, with frame borders inside blocks and odd extents. The kernel's dimensions and
// offsets are the layer's row (cuda/layer_dims.hpp, CudaLayerDims.Enc3IsItsRow).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bridge/layer_capture.hpp"
#include "bridge/layer_settle.hpp"
#include "cuda/enc3_params.hpp"
#include "cuda/layer_dims.hpp"
#include "model/layer_golden.hpp"
#include "model/layer_program.hpp"
#include "numerics/profile.hpp"
#include "ptx/ptx.hpp"
#include "test_util.hpp"

namespace rrswin {
namespace {

constexpr const char* kEntry = "cuda_dldn_engine_swin_enc3_kernel";

std::string ptx_path() { return std::string(RRSWIN_CUDA_GENERATED_DIR) + "/enc3_kernel.sm_89.ptx"; }
const ptx::Module& kernel_module() {
  static std::shared_ptr<const ptx::Module> m;
  if (!m) m = ptx::load_module(ptx_path());
  return *m;
}

bool small_scale() {
  const char* s = std::getenv("RRSWIN_TEST_SCALE");
  return s && std::string(s) == "small";
}

// The capture after the interpreted launch and after the model's (golden or fast) launch must
// hold the same bytes in every allocation and surface; returns the first difference.
std::string compare(const ptx::KernelCapture& before, const Profile& prof, bool golden, const ptx::Module* module = nullptr) {
  ptx::KernelCapture interpreted = before, model = before;
  ptx::RunOptions ro;
  ro.profile = &prof;
  ro.max_launch_instructions = 1'000'000'000;
  ptx::run_kernel_capture(module ? *module : kernel_module(), kEntry, interpreted, ro);
  ptx::LayerReplayOptions mo;
  mo.profile = &prof;
  mo.golden = golden;
  ptx::replay_layer_capture(model, LayerId::enc3, mo);
  for (std::size_t i = 0; i < model.allocs.size(); ++i)
    for (std::size_t k = 0; k < model.allocs[i].bytes.size(); ++k)
      if (model.allocs[i].bytes[k] != interpreted.allocs[i].bytes[k])
        return "alloc " + std::to_string(i) + " byte " + std::to_string(k) + ": model " + std::to_string(model.allocs[i].bytes[k]) +
               ", interpreted " + std::to_string(interpreted.allocs[i].bytes[k]);
  for (std::size_t i = 0; i < model.images.size(); ++i)
    for (std::size_t k = 0; k < model.images[i].image.bytes.size(); ++k)
      if (model.images[i].image.bytes[k] != interpreted.images[i].image.bytes[k])
        return "image +" + std::to_string(model.images[i].offset) + " byte " + std::to_string(k);
  return "";
}

}  // namespace

// The PTX's entry against the row: name, parameter block, shared memory (the original's 12800
// bytes, DOC3 §0).
TEST(CudaEnc3Kernel, EntryIsTheRows) {
  const LayerSpec& s = layer_spec(LayerId::enc3);
  EXPECT_EQ(s.entry, kEntry);
  const ptx::EntryStats st = ptx::entry_stats(kernel_module(), kEntry);
  EXPECT_EQ(st.param_bytes, sizeof(cuda::Enc3Params));
  EXPECT_EQ(static_cast<int>(st.param_bytes), s.abi.param_block_bytes);
  EXPECT_EQ(static_cast<int>(st.shared_bytes), s.abi.shared_bytes);
  EXPECT_EQ(cuda::Enc3::kSharedBytes, s.abi.shared_bytes);
}

// The border launch (21 x 13 tokens at block offsets 3,5: odd extents, frame borders inside
// blocks) against the golden model, every profile.
TEST(CudaEnc3Kernel, InterpretedPtxEqualsGoldenOnTheBorderLaunch) {
  const auto launches = ptx::oracle_layer_launches(LayerId::enc3);
  for (const Profile* prof : all_profiles()) {
    SCOPED_TRACE(prof->name);
    EXPECT_EQ(compare(launches[1].before, *prof, true), "");
  }
}

// The layer's token grid (160 x 92, 273 blocks) against the fast engine (bit-identical to the
// golden model: tests/layer_engine_diff_test.cpp), ada.
TEST(CudaEnc3Kernel, InterpretedPtxEqualsTheModelOnTheTokenGrid) {
  if (small_scale()) GTEST_SKIP() << "RRSWIN_TEST_SCALE=small: the border launch covers the kernel";
  const auto launches = ptx::oracle_layer_launches(LayerId::enc3);
  EXPECT_EQ(compare(launches[0].before, profile_ada(), false), "");
}

// The comparison sees E48's cross-lane sum: shfl.sync.down by 8 turned into .up must change the
// quad sums of surface +128.
TEST(CudaEnc3Kernel, AMutatedKernelIsCaught) {
  std::ifstream f(ptx_path());
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  const std::size_t at = text.rfind("shfl.sync.down.b32");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("shfl.sync.down").size(), "shfl.sync.up");
  const auto mutated = ptx::parse_module(text, "mutated.ptx");
  const auto launches = ptx::oracle_layer_launches(LayerId::enc3);
  EXPECT_NE(compare(launches[1].before, profile_ada(), false, mutated.get()), "");
}

// The port's PTX as the stand-in for the corpus file (0016-PREPASS_ENTRYPOINT_NAME.ptx): `settle
// --layer enc3 --oracle` runs it on the oracle launch set (the token grid and the border launch)
// and settles every reading of the layer at its default, every output reproduced.
TEST(CudaEnc3Kernel, SettleOracleWithThePortsPtxSettlesEveryDefault) {
  using namespace test_util;
  TempDir d;
  const Result r = d.rrswin("settle --layer enc3 --oracle '" + ptx_path() + "'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "best: 0 differing bytes (every output reproduced)")) << r.out;
  for (const LayerReadingInfo& info : layer_reading_registry()) {
    const std::vector<LayerId> applies = reading_layers(info.name);
    if (std::find(applies.begin(), applies.end(), LayerId::enc3) == applies.end()) continue;
    // Its line: "  NAME  DEFAULT  settled:  ..."
    std::istringstream lines(r.out);
    std::string line, found;
    while (std::getline(lines, line)) {
      std::istringstream words(line);
      std::string name, value, state;
      words >> name >> value >> state;
      if (name == info.name) found = value + " " + state;
    }
    EXPECT_EQ(found, info.values.front() + " settled:") << r.out;
  }
}

}  // namespace rrswin
