// `rrswin ptx launch` (issue 20 §1, bridge/launch.hpp): any entry with buffers, typed parameters,
// textures, surfaces and dynamic shared memory from the command line. The parameter block is checked
// byte by byte with a kernel that echoes every parameter (tests/ptx/launch.ptx params_echo, expected
// bytes written here by hand); the nvcc kernel int_mix is compared with the C++ API run on a block
// built here independently; every hostile value ends in a clear error and no output.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bridge/launch.hpp"
#include "io/files.hpp"
#include "ptx/ptx.hpp"
#include "test_util.hpp"

using namespace test_util;

namespace {

std::string launch_ptx() { return std::string(RRSWIN_TESTS_DIR) + "/ptx/launch.ptx"; }
std::string kernels_ptx() { return std::string(RRSWIN_TESTS_DIR) + "/ptx/kernels.ptx"; }

std::vector<std::uint8_t> slurp(const fs::path& p) { return rrswin::read_file_bytes(p.string()); }

template <class T>
T at(const std::vector<std::uint8_t>& b, std::size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}

}  // namespace

TEST(PtxLaunch, ParameterBlockFromTypedValuesInDeclaredOrder) {
  TempDir t;
  const Result r = t.rrswin("ptx launch '" + launch_ptx() +
                            "' --entry params_echo --grid 1 --block 32 --buffer out:48 --param ptr:out --param u8:255 --param u16:0xBEEF"
                            " --param u32:4000000000 --param u64:0x0123456789ABCDEF --param s8:-5 --param f16:1.5 --param f32:-2.25"
                            " --param f64:0.1 --param b8:-1 -o res");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto out = slurp(t.path / "res" / "out.bin");
  ASSERT_EQ(out.size(), 48u);
  EXPECT_EQ(out[0], 0xFF);
  EXPECT_EQ(at<std::uint16_t>(out, 2), 0xBEEF);
  EXPECT_EQ(at<std::uint32_t>(out, 4), 4000000000u);
  EXPECT_EQ(at<std::uint64_t>(out, 8), 0x0123456789ABCDEFull);
  EXPECT_EQ(at<std::uint32_t>(out, 16), 0xFFFFFFFBu);            // ld.param.s8 of -5, sign-extended
  EXPECT_EQ(at<std::uint16_t>(out, 20), 0x3E00);                 // f16 1.5
  EXPECT_EQ(at<std::uint32_t>(out, 24), 0xC0100000u);            // f32 -2.25
  EXPECT_EQ(at<std::uint64_t>(out, 32), 0x3FB999999999999Aull);  // f64 0.1, the nearest double
  EXPECT_EQ(out[40], 0xFF);
  EXPECT_TRUE(contains(r.out, "wrote ")) << r.out;
}

TEST(PtxLaunch, DecimalsRoundOnceToNearestEven) {
  using rrswin::ptx::parse_param_arg;
  // f16: 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even gives 1 (0x3C00); a decimal just
  // above the midpoint (1.00048828125000000001) must round up to 0x3C01 although its nearest double
  // is the midpoint itself.
  EXPECT_EQ(parse_param_arg("f16:1.00048828125", "p").bits, 0x3C00u);
  EXPECT_EQ(parse_param_arg("f16:1.00048828125000000001", "p").bits, 0x3C01u);
  EXPECT_EQ(parse_param_arg("f16:1.00146484375", "p").bits, 0x3C02u);  // 1 + 3·2^-11: tie, to even (0x3C02)
  EXPECT_EQ(parse_param_arg("f16:65504", "p").bits, 0x7BFFu);
  EXPECT_EQ(parse_param_arg("f16:-inf", "p").bits, 0xFC00u);
  EXPECT_EQ(parse_param_arg("f16:0x7e00", "p").bits, 0x7E00u);
  EXPECT_EQ(parse_param_arg("f16:5.9604644775390625e-8", "p").bits, 0x0001u);  // 2^-24, the least subnormal
  EXPECT_EQ(parse_param_arg("f32:16777217", "p").bits, 0x4B800000u);           // 2^24 + 1: tie, to even 2^24
  EXPECT_EQ(parse_param_arg("s32:-2147483648", "p").bits, 0x80000000u);
  EXPECT_EQ(parse_param_arg("s16:0xFFFF", "p").bits, 0xFFFFu);  // a bit pattern
  EXPECT_EQ(parse_param_arg("b32:-1", "p").bits, 0xFFFFFFFFu);
  EXPECT_EQ(parse_param_arg("u64:18446744073709551615", "p").bits, ~0ull);
  EXPECT_EQ(parse_param_arg("ptr:buf+0x10", "p").offset, 16u);
}

TEST(PtxLaunch, NvccKernelMatchesTheApiRunOnAHandBuiltBlock) {
  TempDir t;
  const int n = 1000;
  std::vector<std::uint32_t> in(n);
  std::mt19937 g(3);
  for (auto& x : in) x = g();
  std::vector<std::uint8_t> bytes(4 * n);
  std::memcpy(bytes.data(), in.data(), bytes.size());
  put(t.path / "in.bin", bytes);
  const Result r = t.rrswin("ptx launch '" + kernels_ptx() +
                            "' --entry int_mix --grid 4 --block 256 --buffer in=in.bin --buffer out:4000 --param ptr:in --param ptr:out"
                            " --param s32:1000 --threads 2 -o res");
  ASSERT_EQ(r.status, 0) << r.out;
  // The reference: ptx::run with the block laid out here (u64, u64, u32 at +0, +8, +16).
  const auto m = rrswin::ptx::load_module(kernels_ptx());
  rrswin::ptx::Device dev;
  std::vector<std::uint8_t> out(4 * n, 0);
  const std::uint64_t a_in = dev.add_global_readonly("in", bytes), a_out = dev.add_global("out", out);
  std::vector<std::uint8_t> block(20, 0);
  std::memcpy(block.data(), &a_in, 8);
  std::memcpy(block.data() + 8, &a_out, 8);
  const std::int32_t nn = n;
  std::memcpy(block.data() + 16, &nn, 4);
  rrswin::ptx::RunOptions o;
  o.threads = 1;
  rrswin::ptx::run(*m, "int_mix", {4, 1, 1}, {256, 1, 1}, block, dev, o);
  EXPECT_EQ(slurp(t.path / "res" / "out.bin"), out);
  EXPECT_EQ(slurp(t.path / "res" / "in.bin"), bytes);  // every buffer is written back
}

TEST(PtxLaunch, DynamicSharedMemory) {
  TempDir t;
  std::vector<std::uint8_t> in(1024);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>(i * 7 + 1);
  put(t.path / "in.bin", in);
  const std::string base = "ptx launch '" + launch_ptx() +
                           "' --entry dyn_reverse --grid 1 --block 256 --buffer in=in.bin --buffer out:1024 --param ptr:in --param ptr:out";
  Result r = t.rrswin(base + " --shared 1024 -o res");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto out = slurp(t.path / "res" / "out.bin");
  for (int i = 0; i < 256; ++i) EXPECT_EQ(at<std::uint32_t>(out, 4 * i), at<std::uint32_t>(in, 4 * (255 - i))) << i;
  // Too little dynamic shared memory: the run fails on the first access beyond it, and nothing is written.
  r = t.rrswin(base + " --shared 512 -o res2");
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "shared")) << r.out;
  EXPECT_FALSE(fs::exists(t.path / "res2"));
}

TEST(PtxLaunch, TextureAndSurfaceObjects) {
  TempDir t;
  // A 4x2 RGBA16F texture as raw texel rows; the kernel copies it into a zero 4x2 surface.
  std::vector<std::uint8_t> tex(4 * 2 * 8);
  for (std::size_t i = 0; i < tex.size(); ++i) tex[i] = static_cast<std::uint8_t>(0x31 + i);
  put(t.path / "tex.bin", tex);
  Result r =
      t.rrswin("ptx launch '" + launch_ptx() +
               "' --entry tex_copy --grid 2 --block 4 --texture img=tex.bin@4x2 --surface s=4x2 --param ptr:img --param ptr:s -o res");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(slurp(t.path / "res" / "s.bin"), tex);
  EXPECT_FALSE(fs::exists(t.path / "res" / "img.bin"));  // textures are read-only: not written back
  // A pitched surface keeps its padding bytes.
  r = t.rrswin(
      "ptx launch '" + launch_ptx() +
      "' --entry tex_copy --grid 2 --block 4 --texture img=tex.bin@4x2 --surface s=4x2-pitch40 --param ptr:img --param ptr:s -o res2");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto s = slurp(t.path / "res2" / "s.bin");
  ASSERT_EQ(s.size(), 80u);
  EXPECT_TRUE(std::equal(tex.begin(), tex.begin() + 32, s.begin()));
  EXPECT_TRUE(std::equal(tex.begin() + 32, tex.end(), s.begin() + 40));
  EXPECT_EQ(s[32], 0);
}

// Every hostile or inconsistent value: non-zero exit, a message naming the option and the value,
// and no output folder.
TEST(PtxLaunch, HostileValuesEndInClearErrors) {
  TempDir t;
  put(t.path / "in.bin", std::vector<std::uint8_t>(16, 1));
  const std::string k = "ptx launch '" + kernels_ptx() + "' --entry int_mix ";
  const std::string ok = "--grid 1 --block 32 --buffer in=in.bin --buffer out:16 --param ptr:in --param ptr:out ";
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {ok + "--param s32:2147483648", "--param #3 's32:2147483648': the value is outside s32's range [-2147483648, 2147483647"},
      {ok + "--param u32:-1", "outside u32's range [0, 4294967295]"},
      {ok + "--param u32:abc", "expected a decimal or 0x hex integer"},
      {ok + "--param u32:18446744073709551616", "at most 2^64 - 1"},
      {ok + "--param q32:1", "unknown type 'q32'"},
      {ok + "--param 7", "expected TYPE:VALUE"},
      {ok, "declares 3 parameters"},
      {ok + "--param s32:1 --param s32:2", "3 parameters"},
      {ok + "--param f32:1e39", "beyond f32's largest finite value"},
      {"--grid 1 --block 32 --buffer in=in.bin --buffer out:16 --param ptr:in --param ptr:nope --param s32:1",
       "no buffer, texture or surface is named 'nope'"},
      {"--grid 1 --block 32 --buffer in=in.bin --buffer in:16 --param ptr:in --param ptr:in --param s32:1", "already a buffer"},
      {ok + "--buffer extra:16 --param s32:1", "no --param ptr:extra passes it"},
      {"--grid 1 --block 32 --buffer in=in.bin --buffer out:17179869185 --param ptr:in --param ptr:out --param s32:1",
       "outside [1, 17179869184]"},
      {"--grid 1 --block 32 --buffer in=in.bin --buffer out:99999999999999999999 --param ptr:in --param ptr:out --param s32:1",
       "expected a byte count"},
      {"--grid 1 --block 32 --buffer in=in.bin --buffer out:0 --param ptr:in --param ptr:out --param s32:1", "outside [1, "},
      {"--grid 1 --block 32 --buffer in=missing.bin --buffer out:16 --param ptr:in --param ptr:out --param s32:1",
       "--buffer 'in=missing.bin': missing.bin"},
      {"--grid 1 --block 32 --buffer ../in=in.bin --buffer out:16 --param ptr:in --param ptr:out --param s32:1", "is not 1-100 letters"},
      {"--grid 1 --block 32 --buffer in=in.bin --buffer out:16 --param ptr:in --param ptr:out+17 --param s32:1",
       "beyond the end of buffer out"},
      {ok + "--param s32:1 --grid 0,1,1", "--grid '0,1,1': x = 0 is outside [1, 2147483647]"},
      {ok + "--param s32:1 --grid 4294967296", "--grid '4294967296'"},
      {ok + "--param s32:1 --grid 1,65536", "y = 65536 is outside [1, 65535]"},
      {ok + "--param s32:1 --grid 65535,65535", "exceed the interpreter's 16777216"},
      {ok + "--param s32:1 --grid 1,2,3,4", "at most three numbers"},
      {ok + "--param s32:1 --block 1025", "x = 1025 is outside [1, 1024]"},
      {ok + "--param s32:1 --block 32,32,2", "2048 threads per block exceed CUDA's 1024"},
      {ok + "--param s32:1 --block 1,1,65", "z = 65 is outside [1, 64]"},
      {ok + "--param s32:1 --shared 300000", "--shared '300000': the byte count is outside [0, 232448]"},
      {ok + "--param s32:1 --texture t=nothing", "--texture 't=nothing'"},
      {ok + "--param s32:1 --surface s=0x5", "outside 1..65536"},
      {ok + "--param s32:1 --entry nope", "--entry 'nope': the file has no such entry"},
  };
  for (const Case& c : cases) {
    const Result r = t.rrswin(k + c.args + " -o res");
    EXPECT_NE(r.status, 0) << c.args << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, c.message)) << c.args << "\n" << r.out;
    EXPECT_FALSE(fs::exists(t.path / "res")) << c.args;
  }
  // A parameter of another size, and an aggregate no scalar fills.
  Result r = t.rrswin(k + ok + "--param u64:1 -o res");
  EXPECT_TRUE(contains(r.out, "parameter 3 of int_mix, int_mix_param_2, is 4 bytes; u64 is 8")) << r.out;
  r = t.rrswin("ptx launch '" + launch_ptx() +
               "' --entry by_value --grid 1 --block 1 --buffer out:16 --param ptr:out --param u64:0 -o res");
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.out, "agg, is 16 bytes; u64 is 8")) << r.out;
  EXPECT_FALSE(fs::exists(t.path / "res"));
}

TEST(PtxLaunch, HelpDocumentsTheSpelling) {
  TempDir t;
  const Result r = t.rrswin("ptx launch --help");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "usage: rrswin ptx launch FILE.ptx --entry NAME --grid X,Y,Z --block X,Y,Z [--shared BYTES]")) << r.out;
  for (const char* o : {"--buffer NAME=FILE", "--buffer NAME:BYTES", "--param TYPE:VALUE", "ptr:NAME", "--texture NAME=FILE",
                        "--surface NAME=", "--profile", "--threads N", "-o, --out DIR"})
    EXPECT_TRUE(contains(r.out, o)) << o;
}

// `rrswin ptx run --capture` of another kernel's replay capture (bridge/kernel_capture.hpp): the
// launch as captured, the outputs in launch-dump naming, which `rrswin diff` compares with a dump.
namespace {

void write_text(const fs::path& p, const std::string& s) { put(p, std::vector<std::uint8_t>(s.begin(), s.end())); }

template <class T>
void append(std::vector<std::uint8_t>& b, T v) {
  const std::size_t o = b.size();
  b.resize(o + sizeof v);
  std::memcpy(b.data() + o, &v, sizeof v);
}

// A replay capture of int_mix over n = 1000 inputs: alloc 0 the inputs, alloc 1 the outputs (zero).
std::vector<std::uint8_t> int_mix_capture(const fs::path& dir, const std::string& extra = "") {
  fs::create_directories(dir);
  std::vector<std::uint8_t> in(4000);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>(i * 13 + 5);
  put(dir / "alloc-0.bin", in);
  put(dir / "alloc-1.bin", std::vector<std::uint8_t>(4000, 0));
  write_text(dir / "manifest.txt",
             "# int_mix(in, out, n)\nkernel int_mix\nlaunch 4 1 1 256 1 1 0\nalloc 0 0x7f0000000000 4000\n"
             "alloc 1 0x7f0000100000 4000\npointer 0 0 0\npointer 8 1 0\n" +
                 extra);
  std::vector<std::uint8_t> args;
  append<std::uint64_t>(args, 0x7f0000000000ull);
  append<std::uint64_t>(args, 0x7f0000100000ull);
  append<std::int32_t>(args, 1000);
  put(dir / "args.bin", args);
  return in;
}

}  // namespace

TEST(PtxLaunch, CaptureOfAnotherKernelRunsAndDiffs) {
  TempDir t;
  const auto in = int_mix_capture(t.path / "cap");
  Result r = t.rrswin("ptx run '" + kernels_ptx() + "' --capture cap -o out --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  const fs::path out_file = t.path / "out" / "launch-000-int_mix-arg008-buffer-base0x7f0000100000-size4000-fmt0.bin";
  const fs::path in_file = t.path / "out" / "launch-000-int_mix-arg000-buffer-base0x7f0000000000-size4000-fmt0.bin";
  ASSERT_TRUE(fs::exists(out_file)) << r.out;
  EXPECT_EQ(slurp(in_file), in);
  // The same launch through `ptx launch`.
  put(t.path / "in.bin", in);
  r = t.rrswin(
      "ptx launch '" + kernels_ptx() +
      "' --entry int_mix --grid 4 --block 256 --buffer in=in.bin --buffer out:4000 --param ptr:in --param ptr:out --param s32:1000 -o res");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(slurp(out_file), slurp(t.path / "res" / "out.bin"));
  // rrswin diff against a "GPU dump" of the launch: identical, then one byte off.
  fs::create_directories(t.path / "gpu");
  for (const auto& e : fs::directory_iterator(t.path / "out")) fs::copy_file(e.path(), t.path / "gpu" / e.path().filename());
  r = t.rrswin("diff gpu out");
  EXPECT_EQ(r.status, 0) << r.out;
  auto bytes = slurp(out_file);
  bytes[100] ^= 1;
  put(t.path / "gpu" / out_file.filename(), bytes);
  r = t.rrswin("diff gpu out");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "arg008")) << r.out;
}

TEST(PtxLaunch, CaptureOfAnotherKernelWithTextureAndSurface) {
  TempDir t;
  const fs::path cap = t.path / "cap";
  fs::create_directories(cap);
  std::vector<std::uint8_t> tex(4 * 2 * 8);
  for (std::size_t i = 0; i < tex.size(); ++i) tex[i] = static_cast<std::uint8_t>(0x20 + i);
  put(cap / "tex.bin", tex);
  put(cap / "surf.bin", std::vector<std::uint8_t>(2 * 40, 0xAA));
  write_text(cap / "manifest.txt", "kernel tex_copy\nlaunch 2 1 1 4 1 1 0\ntexture 0 4 2 16 clamp tex.bin\nsurface 8 4 2 16 40 surf.bin\n");
  put(cap / "args.bin", std::vector<std::uint8_t>(16, 0));
  const Result r = t.rrswin("ptx run '" + launch_ptx() + "' --capture cap -o out");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto s = slurp(t.path / "out" / "launch-000-tex_copy-arg008-surface-4x2-pitch40-fmt16.bin");
  ASSERT_EQ(s.size(), 80u);
  EXPECT_TRUE(std::equal(tex.begin(), tex.begin() + 32, s.begin()));
  EXPECT_TRUE(std::equal(tex.begin() + 32, tex.end(), s.begin() + 40));
  EXPECT_EQ(s[32], 0xAA);  // the pitch padding is the capture's
  EXPECT_EQ(slurp(t.path / "out" / "launch-000-tex_copy-arg000-texture-4x2-clamp-fmt16.bin"), tex);
}

TEST(PtxLaunch, HostileCapturesOfAnotherKernel) {
  struct Case {
    std::string extra_manifest;
    std::function<void(const fs::path&)> damage;
    std::string message;
  };
  const Case cases[] = {
      {"pointer 1000 0 0\n", nullptr, "a parameter offset of at most 999"},
      {"pointer 8 0 0\n", nullptr, "one argument per parameter offset"},
      {"launch 1 1 1 1 1 1 0\n", nullptr, "one launch line"},
      {"", [](const fs::path& d) { write_text(d / "manifest.txt", "kernel int_mix\nlaunch 65536 65536 1 256 1 1 0\n"); }, "grid"},
      {"", [](const fs::path& d) { write_text(d / "manifest.txt", "kernel int_mix\nlaunch 1 1 1 2048 1 1 0\n"); }, "block"},
      {"", [](const fs::path& d) { write_text(d / "manifest.txt", "kernel int_mix\nlaunch 1 1 1 32 1 1 999999\n"); },
       "dynamic shared memory of at most 232448"},
      {"alloc 2 0 99999999999999\n", nullptr, "at most 16 GiB"},
      {"texture 16 4 2 16 clamp ../tex.bin\n", nullptr, "a plain file name inside the capture folder"},
      {"",
       [](const fs::path& d) {
         auto a = slurp(d / "args.bin");
         a.resize(12);
         put(d / "args.bin", a);
       },
       "a parameter block holding the pointer at +8"},
      {"",
       [](const fs::path& d) {
         auto a = slurp(d / "args.bin");
         a.push_back(0);
         put(d / "args.bin", a);
       },
       "takes 20 parameter bytes"},
      {"",
       [](const fs::path& d) {
         fs::remove(d / "alloc-1.bin");
         fs::create_symlink("/etc/passwd", d / "alloc-1.bin");
       },
       "not a symbolic link (rrswin follows no link"},
      {"", [](const fs::path& d) { put(d / "alloc-1.bin", std::vector<std::uint8_t>(10, 0)); }, "4000 bytes (the manifest's alloc size)"},
  };
  for (const Case& c : cases) {
    TempDir t;
    int_mix_capture(t.path / "cap", c.extra_manifest);
    if (c.damage) c.damage(t.path / "cap");
    const Result r = t.rrswin("ptx run '" + kernels_ptx() + "' --capture cap -o out");
    EXPECT_NE(r.status, 0) << c.message << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, c.message)) << c.message << "\n" << r.out;
    EXPECT_FALSE(fs::exists(t.path / "out")) << c.message;
  }
}
