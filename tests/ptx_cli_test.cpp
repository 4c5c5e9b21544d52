// `rrswin ptx run | trace | stats` (cli/cmd_ptx.cpp): the parameter block, grid and output files of
// enc5's launch (through tests/ptx/kernels.cu's enc5_abi_probe), traces, the seed-pair check,
// --sampler on a capture of another kernel, and command-line errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bridge/kernel_capture.hpp"
#include "io/arena_io.hpp"
#include "io/frame_io.hpp"
#include "test_util.hpp"

using test_util::contains;
using test_util::TempDir;

namespace {

std::string kernels() { return std::string(RRSWIN_TESTS_DIR) + "/ptx/kernels.ptx"; }

std::vector<std::uint8_t> slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

TEST(PtxCli, RunBuildsEnc5LaunchFromRunInputs) {
  // Odd extents and non-zero block offsets: grid ceil((13+3)/8) x ceil((7+5)/8) = 2 x 2.
  TempDir t;
  const std::string geo = "--ex 13 --ey 7 --block-offset 3,5 --seed 4";
  auto r = t.rrswin("run --layer enc5 " + geo + " --save-inputs -o in");
  ASSERT_EQ(r.status, 0) << r.out;
  r = t.rrswin("ptx run '" + kernels() + "' --entry enc5_abi_probe " + geo + " --threads 2 -o out");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "grid 2x2")) << r.out;
  EXPECT_TRUE(contains(r.out, "4 CTAs")) << r.out;
  const auto input = rrswin::read_plane_arena(t.file("in/input_arena.bin"), 13, 7);
  const auto weights = slurp(t.file("in/weights.bin"));
  const auto arena = rrswin::read_plane_arena(t.file("out/arena.bin"), 13, 7);
  ASSERT_EQ(arena.size(), input.size());
  for (std::size_t i = 0; i < arena.size(); ++i) ASSERT_EQ(arena[i], input[i] ^ weights[i % 16]) << i;
  const rrswin::Texture tex = rrswin::texture_from_exr(t.file("in/texture.exr"));
  const rrswin::Texture surf = rrswin::texture_from_exr(t.file("out/surface112.exr"));
  ASSERT_EQ(surf.width, 13);
  ASSERT_EQ(surf.height, 7);
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 13; ++x)
      for (int c = 0; c < 4; ++c) ASSERT_EQ(surf.rgba[(y * 13 + x) * 4 + c], tex.rgba[(y * tex.width + x) * 4 + c]) << x << "," << y;
}

TEST(PtxCli, RunOnACaptureWritesAReplayFolder) {
  TempDir t;
  auto r = t.rrswin("capture --synthetic --form replay --ex 9 --ey 9 -o cap");
  ASSERT_EQ(r.status, 0) << r.out;
  r = t.rrswin("ptx run '" + kernels() + "' --entry enc5_abi_probe --capture cap -o rep");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "arg048")) << r.out;
  EXPECT_TRUE(contains(r.out, "arg112")) << r.out;
  r = t.rrswin("ptx run '" + kernels() + "' --entry enc5_abi_probe --capture cap --ex 5 -o rep2");
  EXPECT_EQ(r.status, 2) << r.out;
}

TEST(PtxCli, TraceStatsAndErrors) {
  TempDir t;
  // seed_ops' statement 5 is `shl.b32 %r30, %r29, 5` (ctaid.x << 5): in CTA 0 every lane has 0.
  auto r = t.rrswin("ptx trace '" + kernels() + "' --entry seed_ops --at s5 --reg %r30,%r28 --block 0,0 -o tr");
  // seed_ops takes 32 parameter bytes, not enc5's 144: the launch is refused, naming both.
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "takes 32 parameter bytes; enc5's launch passes 144")) << r.out;
  r = t.rrswin("ptx trace '" + kernels() + "' --entry enc5_abi_probe --ex 16 --ey 8 --at s3 --reg %r17,%r1 --block 1,0 -o tr");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string txt(reinterpret_cast<const char*>(slurp(t.file("tr/trace.txt")).data()), slurp(t.file("tr/trace.txt")).size());
  // s3 = shl.b32 %r17, %r1, 5 (tid.z << 5): 8 warps, one event each, %r17 = 32 z in every lane.
  EXPECT_TRUE(contains(txt, "warp 7 #0 active ffffffff")) << txt;
  EXPECT_TRUE(contains(txt, "  %r17: 000000e0 000000e0")) << txt;
  EXPECT_TRUE(contains(txt, "  %r1: 00000007 00000007")) << txt;  // %tid.z (s2); %tid.x is only read at s4
  EXPECT_EQ(slurp(t.file("tr/trace.bin")).size(), 8u + 12 + (4 + 4 + 4) + (4 + 4 + 3) + 8 * (16 + 2 * 32 * 8));
  r = t.rrswin("ptx stats '" + kernels() + "' --entry enc5_abi_probe");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "parameters: 144 bytes")) << r.out;
  EXPECT_TRUE(contains(r.out, "tex.base.2d.v4.f16.s32")) << r.out;
  r = t.rrswin("ptx stats '" + kernels() + "' --entry seed_ops --check-seed-pairs");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "s7511 = L11833: MISMATCH (the entry has 41 statements)")) << r.out;
  r = t.rrswin("ptx run '" + kernels() + "' -o x");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.out, "choose one with --entry")) << r.out;
  r = t.rrswin("ptx run nosuch.ptx --entry k -o x");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.out, "nosuch.ptx: cannot open")) << r.out;
  r = t.rrswin("ptx frob x.ptx");
  EXPECT_EQ(r.status, 2);
  r = t.rrswin("ptx trace '" + kernels() + "' --entry enc5_abi_probe --at q5 --reg %r1 --block 0,0");
  EXPECT_EQ(r.status, 2);
  r = t.rrswin("ptx trace '" + kernels() + "' --entry enc5_abi_probe --at s3 --reg %nosuch --block 0,0");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.out, "declares no register %nosuch")) << r.out;
}

// A file laid out so that the seed's six pairs hold: the check a user runs on the corpus file.
TEST(PtxCli, SeedPairCheckOnAFileReproducingThePairs) {
  TempDir t;
  std::string text = ".version 8.0\n.target sm_89\n.address_size 64\n.visible .entry e(.param .u64 p)\n{\n.reg .b32 %r<4>;\n";
  int line = 7;
  const std::pair<int, int> pairs[] = {{1, 1018}, {4, 1032}, {5, 1033}, {9, 1037}, {15, 1043}, {7511, 11833}};
  int s = 0;
  for (const auto& [st, ln] : pairs) {
    // statements s+1 .. st-1 fill the lines before ln (with blank lines where room is left), then st at ln.
    const int before = st - 1 - s;
    while (line < ln - before) {
      text += "\n";
      ++line;
    }
    for (int k = 0; k < before; ++k) {
      text += "  mov.u32 %r1, 1;\n";
      ++line;
    }
    text += "  mov.u32 %r2, 2;\n";
    ++line;
    s = st;
  }
  text += "  ret;\n}\n";
  std::ofstream(t.file("pairs.ptx")) << text;
  auto r = t.rrswin("ptx stats pairs.ptx --check-seed-pairs");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "all 6 pairs agree")) << r.out;
}

}  // namespace

namespace {

TEST(PtxCli, SettleOracleOptionsAndBench) {
  TempDir t;
  auto r = t.rrswin("settle --oracle nosuch.ptx");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "nosuch.ptx: cannot open")) << r.out;
  r = t.rrswin("settle somecap --oracle '" + kernels() + "'");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "not both")) << r.out;
  r = t.rrswin("settle --oracle '" + kernels() + "'");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "choose one with --entry")) << r.out;
  r = t.rrswin("settle --oracle '" + kernels() + "' --entry enc5_abi_probe --oracle-profile volta");  // not a profile
  EXPECT_EQ(r.status, 2) << r.out;
  r = t.rrswin("ptx bench '" + kernels() + "' --entry enc5_abi_probe --ex 8 --ey 8 --repeat 1");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "lane-instructions/s")) << r.out;
}

// `ptx run --capture --sampler OFF=point|linear`: a capture holds no sampler, so its textures are
// point-sampled unless told; dec4's port (src/cuda/generated/dec4_kernel.sm_89.ptx) samples +88 at
// f32 coordinates, and equals the golden model (decoder-sampler linear, the default) only with the
// linear sampler. The option's errors name what is wrong.
TEST(PtxCli, SamplerOptionBindsACaptureTexture) {
  TempDir t;
  const std::string port = std::string("'") + RRSWIN_CUDA_GENERATED_DIR + "/dec4_kernel.sm_89.ptx'";
  auto r = t.rrswin("capture --layer dec4 --synthetic --ex 21 --ey 13 --block-offset 3,5 --seed 2 -o cap");
  ASSERT_EQ(r.status, 0) << r.out;
  ASSERT_EQ(t.rrswin("replay --layer dec4 cap --engine golden -o gold").status, 0);
  r = t.rrswin("ptx run " + port + " --capture cap --sampler 88=linear -o linear");
  ASSERT_EQ(r.status, 0) << r.out;
  r = t.rrswin("diff gold linear");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "IDENTICAL")) << r.out;
  ASSERT_EQ(t.rrswin("ptx run " + port + " --capture cap -o point").status, 0);
  r = t.rrswin("diff gold point");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "arg112")) << r.out;
  r = t.rrswin("ptx run " + port + " --capture cap --sampler 72=linear -o bad");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "has no texture at +72")) << r.out;
  r = t.rrswin("ptx run " + port + " --capture cap --sampler 88=cubic -o bad");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "expected OFFSET=point|linear, got '88=cubic'")) << r.out;
  r = t.rrswin("ptx run " + port + " --sampler 88=linear -o bad");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "--sampler is run --capture's")) << r.out;
  EXPECT_FALSE(std::filesystem::exists(t.file("bad")));
}

// The one parser of `--sampler` (rrswin ptx run --capture and rrswin-gpu replay): offsets are the
// dump naming's three decimal digits, the filter point or linear; anything else is refused with
// the value in the message.
TEST(PtxCli, SamplerOptionParser) {
  using rrswin::ptx::TextureFilter;
  struct Good {
    const char* text;
    std::uint32_t offset;
    TextureFilter filter;
  };
  for (const Good& g : {Good{"88=linear", 88, TextureFilter::linear}, Good{"0=point", 0, TextureFilter::point},
                        Good{"999=linear", 999, TextureFilter::linear}, Good{"096=point", 96, TextureFilter::point}}) {
    const rrswin::ptx::SamplerOption o = rrswin::ptx::parse_sampler_option(g.text);
    EXPECT_EQ(o.offset, g.offset) << g.text;
    EXPECT_EQ(o.filter, g.filter) << g.text;
  }
  for (const char* bad : {"1000=linear", "=linear", "88", "88=", "88=cubic", "8a=point", "-8=point", "+8=point", " 8=point", "88=Linear"}) {
    try {
      rrswin::ptx::parse_sampler_option(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), std::string("--sampler: expected OFFSET=point|linear, got '") + bad + "'");
    }
  }
}

}  // namespace
