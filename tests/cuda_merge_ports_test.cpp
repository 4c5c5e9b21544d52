// The proof of the merge layers' and the decoders' CUDA ports without a GPU (issues 21, 37):
// enc4's, enc3's, enc2's, enc1's, dec4's, dec3's, dec2's, dec1's and dec0's checked-in sm_89 PTX (src/cuda/generated/<layer>_kernel.sm_89.ptx,
// what nvcc makes of src/cuda/<layer>_kernel.cu; cuda_<layer>_ptx_up_to_date checks that where nvcc
// exists) runs in the PTX interpreter on replay captures of the layer (bridge/layer_capture.hpp) and
// must give the golden model's outputs byte for byte: the arena (+48), a merge layer's merged output
// (+56) and three surfaces (+112/+120/+128), a decoder's one surface (+112, from the skip +24 and the
// textures +88/+96/+104; dec0 also its e4m3 output +48 and the f32 tanh surface +144, bound as
// RGBA32F as the golden model writes it), under every profile, with frame borders inside blocks and odd extents.
// The kernels' dimensions and offsets are the layers' rows (cuda/layer_dims.hpp,
// CudaLayerDims.*IsItsRow). One body per check, one row per port: a new port is a row and its
// one-line tests.
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

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "bridge/layer_capture.hpp"
#include "bridge/layer_settle.hpp"
#include "cuda/dec0_params.hpp"
#include "cuda/dec1_params.hpp"
#include "cuda/dec2_params.hpp"
#include "cuda/dec3_params.hpp"
#include "cuda/dec4_params.hpp"
#include "cuda/enc0_params.hpp"
#include "cuda/enc1_params.hpp"
#include "cuda/enc2_params.hpp"
#include "cuda/enc3_params.hpp"
#include "cuda/enc4_params.hpp"
#include "cuda/layer_dims.hpp"
#include "layout/arena.hpp"
#include "model/launch_abi.hpp"
#include "model/layer_golden.hpp"
#include "model/layer_program.hpp"
#include "numerics/profile.hpp"
#include "ptx/ptx.hpp"
#include "test_util.hpp"

namespace rrswin {
namespace {

// A port: its layer, its PTX file and what its C++ side says of the launch.
struct Port {
  LayerId layer;
  const char* entry;        // the original's entry name
  const char* ptx_file;     // under src/cuda/generated/
  std::size_t param_bytes;  // sizeof its parameter struct
  int shared_bytes;         // its kSharedBytes
  // The mutation a_mutated_kernel_is_caught makes: the last `mutate_from` of the PTX becomes
  // `mutate_to` (an instruction of the final epilogue, so the comparison must see its outputs).
  const char* mutate_from;
  const char* mutate_to;
};
// The merge layers' E62 sums its 2x2 quads over shfl.sync.down: as .up the quad sums of +128 change.
constexpr const char* kQuadShfl = "shfl.sync.down";
constexpr const char* kQuadShflMutated = "shfl.sync.up";
// The shared memory of each original: enc4 16384 bytes (DOC4 §0), enc3 12800 (DOC3 §0), enc2 9600
// (DESC-e2 _LAUNCH), enc1 none (HIP-e1 header); the rows hold them (LayerSpec::abi), the ports' constants must equal them.
const Port kEnc4{LayerId::enc4,
                 "cuda_dldn_engine_swin_enc4_kernel",
                 "enc4_kernel.sm_89.ptx",
                 sizeof(cuda::Enc4Params),
                 cuda::Enc4::kSharedBytes,
                 kQuadShfl,
                 kQuadShflMutated};
const Port kEnc3{LayerId::enc3,
                 "cuda_dldn_engine_swin_enc3_kernel",
                 "enc3_kernel.sm_89.ptx",
                 sizeof(cuda::Enc3Params),
                 cuda::Enc3::kSharedBytes,
                 kQuadShfl,
                 kQuadShflMutated};
const Port kEnc2{LayerId::enc2,
                 "cuda_dldn_engine_swin_enc2_kernel",
                 "enc2_kernel.sm_89.ptx",
                 sizeof(cuda::Enc2Params),
                 cuda::Enc2::kSharedBytes,
                 kQuadShfl,
                 kQuadShflMutated};
// enc1: one warp, no shared memory (HIP-e1 header); its E32 sums the quads the same way.
const Port kEnc1{LayerId::enc1,
                 "cuda_dldn_engine_swin_enc1_kernel",
                 "enc1_kernel.sm_89.ptx",
                 sizeof(cuda::Enc1Params),
                 cuda::Enc1::kSharedBytes,
                 kQuadShfl,
                 kQuadShflMutated};
// The decoders have no cross-lane sum in their final epilogue: the mutation turns the last
// ex2.approx (the gate's sigmoid or the softmax's exponentials, all in the final epilogue) into
// rsqrt.approx, which changes the +112 texels of every pixel in the frame.
const Port kDec4{LayerId::dec4,
                 "cuda_dldn_engine_swin_dec4_kernel",
                 "dec4_kernel.sm_89.ptx",
                 sizeof(cuda::Dec4Params),
                 cuda::Dec4::kSharedBytes,
                 "ex2.approx.ftz.f32",
                 "rsqrt.approx.ftz.f32"};
const Port kDec3{LayerId::dec3,
                 "cuda_dldn_engine_swin_dec3_kernel",
                 "dec3_kernel.sm_89.ptx",
                 sizeof(cuda::Dec3Params),
                 cuda::Dec3::kSharedBytes,
                 "ex2.approx.ftz.f32",
                 "rsqrt.approx.ftz.f32"};
const Port kDec2{LayerId::dec2,
                 "cuda_dldn_engine_swin_dec2_kernel",
                 "dec2_kernel.sm_89.ptx",
                 sizeof(cuda::Dec2Params),
                 cuda::Dec2::kSharedBytes,
                 "ex2.approx.ftz.f32",
                 "rsqrt.approx.ftz.f32"};
const Port kDec1{LayerId::dec1,
                 "cuda_dldn_engine_swin_dec1_kernel",
                 "dec1_kernel.sm_89.ptx",
                 sizeof(cuda::Dec1Params),
                 cuda::Dec1::kSharedBytes,
                 "ex2.approx.ftz.f32",
                 "rsqrt.approx.ftz.f32"};
// dec0 (one warp, 3200 bytes: DESC-d0 layer()): the same mutation; its E19 runs the blend's
// exponentials and the tanh's ex2 (E19(d)) per pixel.
const Port kDec0{LayerId::dec0,
                 "cuda_dldn_engine_swin_dec0_kernel",
                 "dec0_kernel.sm_89.ptx",
                 sizeof(cuda::Dec0Params),
                 cuda::Dec0::kSharedBytes,
                 "ex2.approx.ftz.f32",
                 "rsqrt.approx.ftz.f32"};

// enc0 (one warp, DESC-e0 GRID/BLOCK and HIP-e0: 4000 bytes of shared memory, 1032 parameter bytes):
// the same quad sums over shfl.sync.down in its E22. Its prologue is decoded by no source, so its
// captures are in rrswin's stand-in convention (+8 the staged input tensor, +88 the texture standing
// for input_noise: the port's offsets, LaunchAbi::standin_*); its tests also launch the PTX
// themselves (enc0_launch below) on the golden model's own inputs, stress inputs included.
const Port kEnc0{LayerId::enc0,
                 "cuda_dldn_engine_swin_enc0_kernel",
                 "enc0_kernel.sm_89.ptx",
                 sizeof(cuda::Enc0Params),
                 cuda::Enc0::kSharedBytes,
                 kQuadShfl,
                 kQuadShflMutated};

std::string ptx_path(const Port& p) { return std::string(RRSWIN_CUDA_GENERATED_DIR) + "/" + p.ptx_file; }
const ptx::Module& kernel_module(const Port& p) {
  static std::map<LayerId, std::shared_ptr<const ptx::Module>> modules;
  std::shared_ptr<const ptx::Module>& m = modules[p.layer];
  if (!m) m = ptx::load_module(ptx_path(p));
  return *m;
}

bool small_scale() {
  const char* s = std::getenv("RRSWIN_TEST_SCALE");
  return s && std::string(s) == "small";
}

// The capture after the interpreted launch and after the model's (golden or fast) launch must
// hold the same bytes in every allocation and surface; returns the first difference.
std::string compare(const Port& p, const ptx::KernelCapture& before, const Profile& prof, bool golden,
                    const ptx::Module* module = nullptr) {
  ptx::KernelCapture interpreted = before, model = before;
  ptx::RunOptions ro;
  ro.profile = &prof;
  ro.max_launch_instructions = 1'000'000'000;
  ptx::run_kernel_capture(module ? *module : kernel_module(p), p.entry, interpreted, ro);
  ptx::LayerReplayOptions mo;
  mo.profile = &prof;
  mo.golden = golden;
  ptx::replay_layer_capture(model, p.layer, mo);
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

// The PTX's entry against the row: name, parameter block, shared memory.
void entry_is_the_rows(const Port& p) {
  const LayerSpec& s = layer_spec(p.layer);
  EXPECT_EQ(std::string(s.entry), p.entry);
  const ptx::EntryStats st = ptx::entry_stats(kernel_module(p), p.entry);
  EXPECT_EQ(st.param_bytes, p.param_bytes);
  EXPECT_EQ(static_cast<int>(st.param_bytes), s.abi.param_block_bytes);
  EXPECT_EQ(static_cast<int>(st.shared_bytes), s.abi.shared_bytes);
  EXPECT_EQ(p.shared_bytes, s.abi.shared_bytes);
}

// The border launch (21 x 13 tokens at block offsets 3,5: odd extents, frame borders inside
// blocks) against the golden model, every profile (under the sanitizers, RRSWIN_TEST_SCALE=small,
// ada alone: the profiles' instructions run under them in enc5's CudaKernel.* and the numerics
// tests, and the kernel's memory accesses do not depend on the profile).
void equals_golden_on_the_border_launch(const Port& p) {
  const auto launches = ptx::oracle_layer_launches(p.layer);
  for (const Profile* prof : all_profiles()) {
    if (small_scale() && prof != &profile_ada()) continue;
    SCOPED_TRACE(prof->name);
    EXPECT_EQ(compare(p, launches[1].before, *prof, true), "");
  }
}

// The layer's token grid at a 1280 x 720 render against the fast engine (bit-identical to the
// golden model: tests/layer_engine_diff_test.cpp), ada.
void equals_the_model_on_the_token_grid(const Port& p) {
  if (small_scale()) GTEST_SKIP() << "RRSWIN_TEST_SCALE=small: the border launch covers the kernel";
  const auto launches = ptx::oracle_layer_launches(p.layer);
  EXPECT_EQ(compare(p, launches[0].before, profile_ada(), false), "");
}

// The comparison sees the final epilogue: the port's mutation (Port::mutate_from -> mutate_to, at
// its last occurrence) must change an output.
void a_mutated_kernel_is_caught(const Port& p) {
  std::ifstream f(ptx_path(p));
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  const std::size_t at = text.rfind(p.mutate_from);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string(p.mutate_from).size(), p.mutate_to);
  const auto mutated = ptx::parse_module(text, "mutated.ptx");
  const auto launches = ptx::oracle_layer_launches(p.layer);
  EXPECT_NE(compare(p, launches[1].before, profile_ada(), false, mutated.get()), "");
}

// The port's PTX as the stand-in for the corpus file: `settle --layer L --oracle` runs it and
// settles every reading of the layer at its default, every output reproduced.
// `whole_set`: on the oracle launch set (no capture given: the token grid and the border launch);
// otherwise on the border launch alone (bridge/layer_settle.cpp oracle_layer_launches' second, 21 x 13
// tokens at block offsets 3,5, seed 2, written by `capture --layer L --synthetic` and given as the
// CAPTURE). The border launch alone proves the same: every pair of values of every reading differs
// there (LayerSettle.EveryPairOfValuesDiffersOnTheBorderLaunch, DecoderCapture.SettleRecovers...;
// a value it could not tell apart would show here as "undecided"), and the port's PTX equals the
// model on the token grid in InterpretedPtxEqualsTheModelOnTheTokenGrid, so the grid's settle
// decides nothing more. It cost the release suite 7 minutes of CPU (dec0 135 s, enc0 114 s, dec1
// 54 s, enc1 51 s, enc2 30 s, dec2 24 s); enc4 and dec4 (7 s and 3 s) keep the whole set, so the
// capture-less `settle --layer --oracle` runs for a merge layer and a decoder.
// `ties`: readings whose values are one computation on this layer (enc0's one plane: the register
// merge's raster-token and raster-plane orders are one order, tests/layer_engine_diff_test.cpp),
// left undecided at their default.
void settle_oracle_settles_every_default(const Port& p, bool whole_set, const std::vector<std::string>& ties = {}) {
  // Under the sanitizers settle's search interprets the token grid dozens of times (enc1 alone 11
  // minutes): there, settle --oracle is LayerSettle.CliOracleAndResults and the port's PTX is its
  // border launch (InterpretedPtxEqualsGoldenOnTheBorderLaunch).
  if (small_scale()) GTEST_SKIP() << "RRSWIN_TEST_SCALE=small: the release suite settles with every port's PTX";
  using namespace test_util;
  TempDir d;
  const std::string L(layer_spec(p.layer).name);
  if (!whole_set) {
    ASSERT_EQ(d.rrswin("capture --layer " + L + " --synthetic --ex 21 --ey 13 --block-offset 3,5 --seed 2 -o border").status, 0);
  }
  const Result r = d.rrswin("settle --layer " + L + (whole_set ? "" : " border") + " --oracle '" + ptx_path(p) + "'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "best: 0 differing bytes (every output reproduced)")) << r.out;
  for (const LayerReadingInfo& info : layer_reading_registry()) {
    const std::vector<LayerId> applies = reading_layers(info.name);
    if (std::find(applies.begin(), applies.end(), p.layer) == applies.end()) continue;
    // Its line: "  NAME  DEFAULT  settled:  ..."
    std::istringstream lines(r.out);
    std::string line, found;
    while (std::getline(lines, line)) {
      std::istringstream words(line);
      std::string name, value, state;
      words >> name >> value >> state;
      if (name == info.name) found = value + " " + state;
    }
    const bool tie = std::find(ties.begin(), ties.end(), info.name) != ties.end();
    EXPECT_EQ(found, info.values.front() + (tie ? " undecided:" : " settled:")) << r.out;
  }
}

// ---- enc0: the generic launch against run_layer_frame (the golden model's own inputs) ----
// One frame of enc0's inputs: the staged input tensor (a one-plane arena, the golden model's input:
// model/embedding_front.cpp), the texture standing for input_noise, enc0's synthetic weights.
struct Enc0Frame {
  int ex, ey, ox, oy;
  SyntheticFrame in;
};
Enc0Frame enc0_frame(int ex, int ey, int ox, int oy, std::uint64_t seed, bool stress) {
  return {ex, ey, ox, oy, make_synthetic_frame(ex, ey, seed, stress, 1)};
}
// What enc0 writes: +48, +56 and the three surfaces.
struct Enc0Outputs {
  std::vector<std::uint8_t> arena, merged;
  Surface s112, s120, s128;
};

// The golden model (run_layer_frame) on the frame.
Enc0Outputs enc0_golden(const Enc0Frame& fr, const Profile& prof) {
  LayerFrame f;
  f.ex = fr.ex;
  f.ey = fr.ey;
  f.ox = fr.ox;
  f.oy = fr.oy;
  f.input_arena = fr.in.input_arena;
  f.weights = &default_layer_weights(LayerId::enc0);
  f.texture = &fr.in.texture;
  run_layer_frame_golden(f, prof, Readings{}, LayerReadings{});
  return {f.output_arena, f.merged_output, f.surface112, f.surface120, f.surface128};
}

// The port's PTX on the interpreter: the 1032-byte block built field by field at cuda/enc0_params.hpp's
// offsets (the staged tensor at +8 and the texture at +88: the stand-ins), the grid covering the frame
// at its block offsets, block (32, 1, 1), as the golden driver's blocks.
Enc0Outputs enc0_launch(const ptx::Module& m, const Enc0Frame& fr, const Profile& prof) {
  const WeightImage& w = default_layer_weights(LayerId::enc0);
  const layout::PlaneArena out{fr.ex, fr.ey, 1}, half{fr.ex >> 1, fr.ey >> 1, 2};
  Enc0Outputs o{std::vector<std::uint8_t>(out.total_bytes(), 0), std::vector<std::uint8_t>(half.total_bytes(), 0),
                Surface::make(fr.ex, fr.ey), Surface::make(fr.ex, fr.ey), Surface::make(fr.ex >> 1, fr.ey >> 1)};
  ptx::Device dev;
  std::vector<std::uint8_t> block(sizeof(cuda::Enc0Params), 0);
  auto put = [&](std::size_t off, auto v) { std::memcpy(block.data() + off, &v, sizeof v); };
  using P = cuda::MergeLayerParams;
  put(offsetof(P, ex), static_cast<std::uint32_t>(fr.ex));
  put(offsetof(P, ey), static_cast<std::uint32_t>(fr.ey));
  put(static_cast<std::size_t>(cuda::kEnc0StagedInputOffset), dev.add_global_readonly("staged input tensor (+8)", fr.in.input_arena));
  put(offsetof(P, weights), dev.add_global_readonly("weight image (+40)", w.bytes()));
  put(offsetof(P, output_arena), dev.add_global("arena (+48)", o.arena));
  put(offsetof(P, merged_output), dev.add_global("merged output (+56)", o.merged));
  put(offsetof(P, block_offset_x), static_cast<std::uint16_t>(fr.ox));
  put(offsetof(P, block_offset_y), static_cast<std::uint16_t>(fr.oy));
  put(static_cast<std::size_t>(cuda::kEnc0NoiseTextureOffset), dev.bind_texture(&fr.in.texture));
  put(offsetof(P, surface112), dev.bind_surface(&o.s112));
  put(offsetof(P, surface120), dev.bind_surface(&o.s120));
  put(offsetof(P, surface128), dev.bind_surface(&o.s128));
  const abi::GridExtent g = abi::covering_grid(static_cast<std::uint32_t>(fr.ex), static_cast<std::uint32_t>(fr.ey),
                                               static_cast<std::uint32_t>(fr.ox), static_cast<std::uint32_t>(fr.oy));
  ptx::RunOptions ro;
  ro.profile = &prof;
  ro.max_launch_instructions = 1'000'000'000;
  ptx::run(m, kEnc0.entry, {static_cast<std::uint32_t>(g.x), static_cast<std::uint32_t>(g.y), 1}, {32, 1, 1}, block, dev, ro);
  return o;
}

// The first differing byte of two runs' outputs, or "".
std::string enc0_difference(const Enc0Outputs& model, const Enc0Outputs& port) {
  auto first = [](const char* what, const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) -> std::string {
    if (a.size() != b.size())
      return std::string(what) + ": " + std::to_string(a.size()) + " bytes, interpreted " + std::to_string(b.size());
    for (std::size_t k = 0; k < a.size(); ++k)
      if (a[k] != b[k])
        return std::string(what) + " byte " + std::to_string(k) + ": model " + std::to_string(a[k]) + ", interpreted " +
               std::to_string(b[k]);
    return "";
  };
  for (const std::string& d :
       {first("+48", model.arena, port.arena), first("+56", model.merged, port.merged), first("+112", model.s112.bytes, port.s112.bytes),
        first("+120", model.s120.bytes, port.s120.bytes), first("+128", model.s128.bytes, port.s128.bytes)})
    if (!d.empty()) return d;
  return "";
}

// enc1's border launch (21 x 13 tokens at block offsets 3, 5: odd extents, frame borders inside
// blocks), every profile (ada alone under RRSWIN_TEST_SCALE=small, as the other ports).
const Enc0Frame& enc0_border_frame() {
  static const Enc0Frame f = enc0_frame(21, 13, 3, 5, 37, false);
  return f;
}

// The port's PTX with `from` replaced by `to` at its last (or first) occurrence must change an output.
void enc0_mutation_is_caught(const char* from, const char* to, bool last) {
  std::ifstream f(ptx_path(kEnc0));
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  const std::size_t at = last ? text.rfind(from) : text.find(from);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string(from).size(), to);
  const auto mutated = ptx::parse_module(text, "mutated.ptx");
  EXPECT_NE(enc0_difference(enc0_golden(enc0_border_frame(), profile_ada()), enc0_launch(*mutated, enc0_border_frame(), profile_ada())),
            "");
}
}  // namespace

TEST(CudaEnc4Kernel, EntryIsTheRows) { entry_is_the_rows(kEnc4); }
TEST(CudaEnc4Kernel, InterpretedPtxEqualsGoldenOnTheBorderLaunch) { equals_golden_on_the_border_launch(kEnc4); }
TEST(CudaEnc4Kernel, InterpretedPtxEqualsTheModelOnTheTokenGrid) { equals_the_model_on_the_token_grid(kEnc4); }
TEST(CudaEnc4Kernel, AMutatedKernelIsCaught) { a_mutated_kernel_is_caught(kEnc4); }
TEST(CudaEnc4Kernel, SettleOracleWithThePortsPtxSettlesEveryDefault) { settle_oracle_settles_every_default(kEnc4, true); }

TEST(CudaEnc3Kernel, EntryIsTheRows) { entry_is_the_rows(kEnc3); }
TEST(CudaEnc3Kernel, InterpretedPtxEqualsGoldenOnTheBorderLaunch) { equals_golden_on_the_border_launch(kEnc3); }
TEST(CudaEnc3Kernel, InterpretedPtxEqualsTheModelOnTheTokenGrid) { equals_the_model_on_the_token_grid(kEnc3); }
TEST(CudaEnc3Kernel, AMutatedKernelIsCaught) { a_mutated_kernel_is_caught(kEnc3); }
TEST(CudaEnc3Kernel, SettleOracleWithThePortsPtxSettlesEveryDefault) { settle_oracle_settles_every_default(kEnc3, false); }

TEST(CudaEnc2Kernel, EntryIsTheRows) { entry_is_the_rows(kEnc2); }
TEST(CudaEnc2Kernel, InterpretedPtxEqualsGoldenOnTheBorderLaunch) { equals_golden_on_the_border_launch(kEnc2); }
TEST(CudaEnc2Kernel, InterpretedPtxEqualsTheModelOnTheTokenGrid) { equals_the_model_on_the_token_grid(kEnc2); }
TEST(CudaEnc2Kernel, AMutatedKernelIsCaught) { a_mutated_kernel_is_caught(kEnc2); }
TEST(CudaEnc2Kernel, SettleOracleWithThePortsPtxSettlesEveryDefault) { settle_oracle_settles_every_default(kEnc2, false); }

TEST(CudaEnc1Kernel, EntryIsTheRows) { entry_is_the_rows(kEnc1); }
TEST(CudaEnc1Kernel, InterpretedPtxEqualsGoldenOnTheBorderLaunch) { equals_golden_on_the_border_launch(kEnc1); }
TEST(CudaEnc1Kernel, InterpretedPtxEqualsTheModelOnTheTokenGrid) { equals_the_model_on_the_token_grid(kEnc1); }
TEST(CudaEnc1Kernel, AMutatedKernelIsCaught) { a_mutated_kernel_is_caught(kEnc1); }
TEST(CudaEnc1Kernel, SettleOracleWithThePortsPtxSettlesEveryDefault) { settle_oracle_settles_every_default(kEnc1, false); }

TEST(CudaDec4Kernel, EntryIsTheRows) { entry_is_the_rows(kDec4); }
TEST(CudaDec4Kernel, InterpretedPtxEqualsGoldenOnTheBorderLaunch) { equals_golden_on_the_border_launch(kDec4); }
TEST(CudaDec4Kernel, InterpretedPtxEqualsTheModelOnTheTokenGrid) { equals_the_model_on_the_token_grid(kDec4); }
TEST(CudaDec4Kernel, AMutatedKernelIsCaught) { a_mutated_kernel_is_caught(kDec4); }
TEST(CudaDec4Kernel, SettleOracleWithThePortsPtxSettlesEveryDefault) { settle_oracle_settles_every_default(kDec4, true); }

TEST(CudaDec3Kernel, EntryIsTheRows) { entry_is_the_rows(kDec3); }
TEST(CudaDec3Kernel, InterpretedPtxEqualsGoldenOnTheBorderLaunch) { equals_golden_on_the_border_launch(kDec3); }
TEST(CudaDec3Kernel, InterpretedPtxEqualsTheModelOnTheTokenGrid) { equals_the_model_on_the_token_grid(kDec3); }
TEST(CudaDec3Kernel, AMutatedKernelIsCaught) { a_mutated_kernel_is_caught(kDec3); }
TEST(CudaDec3Kernel, SettleOracleWithThePortsPtxSettlesEveryDefault) { settle_oracle_settles_every_default(kDec3, false); }

TEST(CudaDec2Kernel, EntryIsTheRows) { entry_is_the_rows(kDec2); }
TEST(CudaDec2Kernel, InterpretedPtxEqualsGoldenOnTheBorderLaunch) { equals_golden_on_the_border_launch(kDec2); }
TEST(CudaDec2Kernel, InterpretedPtxEqualsTheModelOnTheTokenGrid) { equals_the_model_on_the_token_grid(kDec2); }
TEST(CudaDec2Kernel, AMutatedKernelIsCaught) { a_mutated_kernel_is_caught(kDec2); }
TEST(CudaDec2Kernel, SettleOracleWithThePortsPtxSettlesEveryDefault) { settle_oracle_settles_every_default(kDec2, false); }

TEST(CudaDec1Kernel, EntryIsTheRows) { entry_is_the_rows(kDec1); }
TEST(CudaDec1Kernel, InterpretedPtxEqualsGoldenOnTheBorderLaunch) { equals_golden_on_the_border_launch(kDec1); }
TEST(CudaDec1Kernel, InterpretedPtxEqualsTheModelOnTheTokenGrid) { equals_the_model_on_the_token_grid(kDec1); }
TEST(CudaDec1Kernel, AMutatedKernelIsCaught) { a_mutated_kernel_is_caught(kDec1); }
TEST(CudaDec1Kernel, SettleOracleWithThePortsPtxSettlesEveryDefault) { settle_oracle_settles_every_default(kDec1, false); }

TEST(CudaDec0Kernel, EntryIsTheRows) { entry_is_the_rows(kDec0); }
TEST(CudaDec0Kernel, InterpretedPtxEqualsGoldenOnTheBorderLaunch) { equals_golden_on_the_border_launch(kDec0); }
TEST(CudaDec0Kernel, InterpretedPtxEqualsTheModelOnTheTokenGrid) { equals_the_model_on_the_token_grid(kDec0); }
TEST(CudaDec0Kernel, AMutatedKernelIsCaught) { a_mutated_kernel_is_caught(kDec0); }
TEST(CudaDec0Kernel, SettleOracleWithThePortsPtxSettlesEveryDefault) { settle_oracle_settles_every_default(kDec0, false); }

// enc0: the entry against the row (1032 bytes, 4000 bytes of shared memory), the border launch
// against run_layer_frame under every profile, a frame of stress inputs (NaN, +-448 and subnormal
// codes in the staged tensor: make_synthetic_frame's stress mode) at a whole-block grid with an even
// offset, the mutated PTX; and, as every port, the synthetic replay captures (in rrswin's stand-in
// convention, +8/+88) against the golden model and settle --oracle with the PTX as the stand-in.
TEST(CudaEnc0Kernel, EntryIsTheRows) { entry_is_the_rows(kEnc0); }
TEST(CudaEnc0Kernel, InterpretedPtxEqualsGoldenOnTheStandInCaptures) { equals_golden_on_the_border_launch(kEnc0); }
TEST(CudaEnc0Kernel, InterpretedPtxEqualsTheModelOnTheTokenGrid) { equals_the_model_on_the_token_grid(kEnc0); }
// merge-register-k-order: raster-token and raster-plane are one order on enc0's one plane.
TEST(CudaEnc0Kernel, SettleOracleWithThePortsPtxSettlesEveryDefault) {
  settle_oracle_settles_every_default(kEnc0, false, {"merge-register-k-order"});
}
TEST(CudaEnc0Kernel, InterpretedPtxEqualsGoldenOnTheBorderLaunch) {
  for (const Profile* prof : all_profiles()) {
    if (small_scale() && prof != &profile_ada()) continue;
    SCOPED_TRACE(prof->name);
    const Enc0Outputs model = enc0_golden(enc0_border_frame(), *prof);
    // Every output the comparison covers holds data (not a frame of zeros on both sides).
    auto nonzero = [](const std::vector<std::uint8_t>& v) {
      return std::count_if(v.begin(), v.end(), [](std::uint8_t c) { return c != 0; });
    };
    EXPECT_GT(nonzero(model.arena), 1000);
    EXPECT_GT(nonzero(model.merged), 1000);
    EXPECT_GT(nonzero(model.s112.bytes), 1000);
    EXPECT_GT(nonzero(model.s120.bytes), 1000);
    EXPECT_GT(nonzero(model.s128.bytes), 100);
    EXPECT_EQ(enc0_difference(model, enc0_launch(kernel_module(kEnc0), enc0_border_frame(), *prof)), "");
  }
}
TEST(CudaEnc0Kernel, InterpretedPtxEqualsGoldenOnStressInputs) {
  const Enc0Frame f = enc0_frame(24, 16, 2, 0, 11, true);
  EXPECT_EQ(enc0_difference(enc0_golden(f, profile_ada()), enc0_launch(kernel_module(kEnc0), f, profile_ada())), "");
}
// E22's quad sums (the ports' mutation), and the front's relu (P2's A without it: every output
// downstream of a negative D1 changes).
TEST(CudaEnc0Kernel, AMutatedKernelIsCaught) { enc0_mutation_is_caught(kEnc0.mutate_from, kEnc0.mutate_to, true); }
TEST(CudaEnc0Kernel, AMutatedEmbeddingIsCaught) {
  enc0_mutation_is_caught("cvt.rn.satfinite.relu.e4m3x2.f16x2", "cvt.rn.satfinite.e4m3x2.f16x2", false);
}

}  // namespace rrswin
