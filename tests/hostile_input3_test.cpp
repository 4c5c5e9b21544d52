// Hostile inputs, third pass (issue 38): a capture's kernel name that would become a path (F1),
// call inlining that would need gigabytes (F2), CTA set-up outside the work bound (F3), costly
// instructions counted as cheap ones (F4), the memory of the running CTAs never checked as a
// whole (F5). Each reproducer ends in a clear error (exit status 2 from the CLI) or a bounded run.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "bridge/kernel_capture.hpp"
#include "capture/capture.hpp"
#include "capture_edit.hpp"
#include "ptx/ptx.hpp"
#include "test_util.hpp"

using namespace test_util;
using namespace capture_edit;
using namespace rrswin::ptx;
namespace fs = std::filesystem;

namespace {

const std::string kHead = ".version 7.8\n.target sm_89\n.address_size 64\n";

std::string kernels_ptx() { return std::string(RRSWIN_TESTS_DIR) + "/ptx/kernels.ptx"; }
std::string enc5_ptx() { return std::string(RRSWIN_CUDA_GENERATED_DIR) + "/enc5_kernel.sm_89.ptx"; }

void append_u64(std::vector<unsigned char>& b, std::uint64_t v) {
  for (int k = 0; k < 8; ++k) b.push_back(static_cast<unsigned char>(v >> (8 * k)));
}

// A replay capture of tests/ptx/kernels.ptx's int_mix(in, out, n) whose manifest's kernel line is
// `kernel_line` (after a comment line, so that the kernel line is line 2).
void int_mix_capture(const fs::path& dir, const std::string& kernel_line) {
  fs::create_directories(dir);
  put(dir / "alloc-0.bin", std::vector<unsigned char>(4000, 7));
  put(dir / "alloc-1.bin", std::vector<unsigned char>(4000, 0));
  write_text(dir / "manifest.txt", "# int_mix(in, out, n)\n" + kernel_line +
                                       "\nlaunch 4 1 1 256 1 1 0\nalloc 0 0x7f0000000000 4000\n"
                                       "alloc 1 0x7f0000100000 4000\npointer 0 0 0\npointer 8 1 0\n");
  std::vector<unsigned char> args;
  append_u64(args, 0x7f0000000000ull);
  append_u64(args, 0x7f0000100000ull);
  for (const unsigned char b : {0xE8, 0x03, 0x00, 0x00}) args.push_back(b);  // n = 1000
  put(dir / "args.bin", args);
}

// Every regular file under dir whose name contains `part`.
std::vector<fs::path> files_named(const fs::path& dir, const std::string& part) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(part) != std::string::npos) out.push_back(e.path());
  return out;
}

// nlevels functions f0 .. f<n-1>, f<i> calling f<i-1> `calls` times, and an entry k calling the last.
std::string nested_calls(int nlevels, int calls) {
  std::string p = kHead + ".func f0()\n{\n  membar.gl;\n  ret;\n}\n";
  for (int i = 1; i < nlevels; ++i) {
    p += ".func f" + std::to_string(i) + "()\n{\n";
    for (int c = 0; c < calls; ++c) p += "  call.uni f" + std::to_string(i - 1) + ", ();\n";
    p += "  ret;\n}\n";
  }
  return p + ".visible .entry k()\n{\n  call.uni f" + std::to_string(nlevels - 1) + ", ();\n  ret;\n}\n";
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

// --- F1: a capture's kernel name becomes a path ----------------------------------------------------

// `rrswin ptx run --capture` of another kernel: '/' and '..' in the kernel line used to write the
// outputs outside -o (deep/out/launch-000-a/../../../evil-… is the test folder's evil-…), a NUL
// collapsed every output into one file named launch-000-a and exited 0.
TEST(HostileCapture3, KernelNameOfAnotherKernelsCaptureNamesNoPath) {
  const std::string nul_name = std::string("a\0b", 3);
  const std::string too_long = "k" + std::string(rrswin::capture::kMaxKernelNameBytes, 'x');  // 161 bytes
  struct Case {
    std::string name, found;
  };
  const Case cases[] = {
      {"a/../../../evil", "kernel 'a/../../../evil'"},
      {"..", "kernel '..'"},
      {"../evil", "kernel '../evil'"},
      {"/tmp/evil", "kernel '/tmp/evil'"},
      {"int-mix", "kernel 'int-mix'"},
      {"9lives", "kernel '9lives'"},
      {"_", "kernel '_'"},
      {too_long, "kernel '" + too_long + "'"},
  };
  for (const Case& c : cases) {
    TempDir t;
    int_mix_capture(t.path / "cap", "kernel " + c.name);
    const Result r = t.rrswin("ptx run '" + kernels_ptx() + "' --entry int_mix --capture cap -o deep/out --threads 2");
    EXPECT_EQ(r.status, 2) << c.name << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, "manifest.txt: at byte offset 22")) << r.out;  // line 2 starts after the comment
    EXPECT_TRUE(contains(r.out, "on line 2")) << r.out;
    EXPECT_TRUE(contains(r.out, "PTX identifier")) << r.out;
    EXPECT_TRUE(contains(r.out, c.found)) << r.out;
    EXPECT_TRUE(files_named(t.path, "evil").empty()) << c.name;
    EXPECT_FALSE(fs::exists(t.path / "deep")) << c.name << ": nothing is written";
  }
  // A NUL byte: refused where it is (it used to make every output the file launch-000-a).
  TempDir t;
  int_mix_capture(t.path / "cap", "kernel " + nul_name);
  const Result r = t.rrswin("ptx run '" + kernels_ptx() + "' --entry int_mix --capture cap -o out --threads 2");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "manifest.txt: at byte offset 30: expected a text manifest without NUL bytes")) << r.out;
  EXPECT_FALSE(fs::exists(t.path / "out"));
}

TEST(HostileCapture3, KernelNamesOfPtxIdentifierSyntaxRunAsBefore) {
  const std::string longest = "k" + std::string(rrswin::capture::kMaxKernelNameBytes - 1, '_');  // 160 bytes
  for (const std::string& name : std::vector<std::string>{"int_mix", "$k$2", "%k", "_Z3fooPi", longest}) {
    TempDir t;
    int_mix_capture(t.path / "cap", "kernel " + name);
    const Result r = t.rrswin("ptx run '" + kernels_ptx() + "' --entry int_mix --capture cap -o out --threads 2");
    ASSERT_EQ(r.status, 0) << name << "\n" << r.out;
    EXPECT_TRUE(fs::exists(t.path / "out" / ("launch-000-" + name + "-arg008-buffer-base0x7f0000100000-size4000-fmt0.bin"))) << r.out;
  }
}

// `rrswin replay` and `rrswin ptx run --capture` of enc5's replay capture: a kernel line holding
// swin_enc5 passed the reader's one check and named the outputs.
TEST(HostileCapture3, KernelNameOfEnc5CaptureNamesNoPath) {
  TempDir t;
  ASSERT_EQ(t.rrswin("capture --synthetic --form replay -o rc --ex 16 --ey 8 --threads 2").status, 0);
  edit_manifest(t.path / "rc", "kernel cuda_dldn_engine_swin_enc5_kernel", "kernel a/../../../evil_swin_enc5");
  for (const std::string& cmd :
       std::vector<std::string>{"replay rc -o deep/out --threads 2", "ptx run '" + enc5_ptx() + "' --capture rc -o deep/out --threads 2"}) {
    const Result r = t.rrswin(cmd);
    EXPECT_EQ(r.status, 2) << cmd << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, "rc/manifest.txt: at byte offset 53: expected on line 2 'kernel NAME'")) << cmd << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, "found kernel 'a/../../../evil_swin_enc5'")) << r.out;
    EXPECT_TRUE(files_named(t.path, "evil").empty()) << cmd;
    EXPECT_FALSE(fs::exists(t.path / "deep")) << cmd;
  }
}

// The backstop: whatever a caller passes, a launch-dump name stays one plain file name.
TEST(HostileCapture3, DumpNamesAreOnePlainFileName) {
  using rrswin::capture::DumpName;
  using rrswin::capture::format_dump_name;
  EXPECT_EQ(format_dump_name(DumpName{1, "k", 8, "buffer", "base0x10-size4", 0}), "launch-001-k-arg008-buffer-base0x10-size4-fmt0.bin");
  EXPECT_THROW(format_dump_name(DumpName{0, "a/../../x", 8, "buffer", "size4", 0}), std::invalid_argument);
  EXPECT_THROW(format_dump_name(DumpName{0, std::string("a\0b", 3), 8, "buffer", "size4", 0}), std::invalid_argument);
  EXPECT_THROW(format_dump_name(DumpName{0, "k", 8, "buffer", "x/y", 0}), std::invalid_argument);
  EXPECT_THROW(format_dump_name(DumpName{0, "", 8, "buffer", "size4", 0}), std::invalid_argument);
  EXPECT_TRUE(rrswin::capture::is_ptx_identifier("cuda_dldn_engine_swin_enc5_kernel"));
  EXPECT_FALSE(rrswin::capture::is_ptx_identifier("$"));
  EXPECT_FALSE(rrswin::capture::is_ptx_identifier("k.x"));
}

// --- F2: exponential call inlining -------------------------------------------------------------

// 28 levels of two calls each (1.8 KB of PTX) asked for 2^27 copies of f0, 2.7 GB, and ended in
// "out of memory … please report the input". Now the copy that would pass 2^20 instructions is
// refused before it is allocated, naming the callee, the function and the limit. Sizes: f0 is 3
// decoded instructions (membar, ret, the final exit), f(i) = 2 f(i-1) + 2 = 5 * 2^i - 2: f17 is
// 655358, and f18's second call of it would make f18 1310716 > 2^20.
TEST(PtxLimits, ExponentialCallInliningIsRefusedBeforeItIsAllocated) {
  const std::string e = error_of([&] { parse_module(nested_calls(28, 2), "calls.ptx"); });
  EXPECT_TRUE(contains(e, "calls.ptx:")) << e;
  EXPECT_TRUE(contains(e, "call of f17: inlining its 655358 decoded instructions (its calls inlined) makes f18 1310716 instructions")) << e;
  EXPECT_TRUE(contains(e, "above the interpreter's limit of 1048576 instructions")) << e;
  // 17 levels (f16 = 327678 instructions, the entry 327680) are within the limit.
  EXPECT_NO_THROW(parse_module(nested_calls(17, 2), "calls17.ptx"));
}

TEST(PtxLimits, CallsNestedDeeperThanTheLimitAreRefused) {
  // A chain f63 -> f62 -> ... -> f0 is 63 calls deep, the entry's call of f63 the 64th: accepted.
  EXPECT_NO_THROW(parse_module(nested_calls(64, 1), "deep.ptx"));
  const std::string e = error_of([&] { parse_module(nested_calls(65, 1), "deeper.ptx"); });
  EXPECT_TRUE(contains(e, "deeper.ptx:")) << e;
  EXPECT_TRUE(contains(e, "call of f64: calls nested 65 deep, above the interpreter's limit of 64")) << e;
  // The CLI: exit status 2, the message.
  TempDir t;
  write_text(t.path / "calls.ptx", nested_calls(28, 2));
  const Result r = t.rrswin("ptx stats calls.ptx");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "calls.ptx:")) << r.out;
  EXPECT_TRUE(contains(r.out, "per function, callees inlined")) << r.out;
  EXPECT_FALSE(contains(r.out, "out of memory")) << r.out;
}

// --- F3: each CTA's set-up is work --------------------------------------------------------------

namespace {

// One `ret` with `local_bytes` of .local per thread.
std::string local_kernel(std::uint32_t local_bytes) {
  return kHead + ".visible .entry k()\n{\n  .local .align 8 .b8 buf[" + std::to_string(local_bytes) + "];\n  ret;\n}\n";
}

}  // namespace

// A kernel of one `ret` with 1 MiB of .local on a 2^24-CTA grid cleared 32 MiB per CTA (the warp's
// 32 lanes) for one unit of work each: 512 TiB under the bound, days. Now each CTA counts its
// set-up: 24 special registers x 32 lanes x 8 bytes (6144) + 32 x 1 MiB of local memory =
// 33560576 bytes, ceil(/4096) = 8194 units, and its `ret` one more.
TEST(PtxLimits, EachCtasSetUpCountsAgainstTheLaunchBound) {
  const auto m = parse_module(local_kernel(1u << 20), "local.ptx");
  Device dev;
  RunOptions opt;
  opt.threads = 2;
  const RunStats st = run(*m, "k", {10, 1, 1}, {1, 1, 1}, {}, dev, opt);
  EXPECT_EQ(st.work, 10u * (8194 + 1));
  EXPECT_EQ(st.warp_instructions, 10u);
  // The 2^24-CTA grid ends at the bound (here 10^6 units: after at most 123 CTAs), naming the option.
  opt.max_launch_instructions = 1'000'000;
  const std::string e = error_of([&] { run(*m, "k", {1u << 24, 1, 1}, {1, 1, 1}, {}, dev, opt); });
  EXPECT_TRUE(contains(e, "local.ptx: the launch did more than 1000000 units of work")) << e;
  EXPECT_TRUE(contains(e, "each CTA's set-up one per 4096 bytes it clears")) << e;
  EXPECT_TRUE(contains(e, "--max-launch-instructions")) << e;
  // The same bound, the same outcome, for every thread count.
  for (const int threads : {1, 3}) {
    opt.threads = threads;
    opt.max_launch_instructions = 10 * 8195;
    EXPECT_NO_THROW(run(*m, "k", {10, 1, 1}, {1, 1, 1}, {}, dev, opt)) << threads;
    opt.max_launch_instructions = 10 * 8195 - 1;
    EXPECT_THROW(run(*m, "k", {10, 1, 1}, {1, 1, 1}, {}, dev, opt), PtxError) << threads;
  }
}

// The reproducer through the CLI: `rrswin ptx launch` takes --max-launch-instructions, the
// option the error names (it used to be an unknown option of `ptx launch`).
TEST(PtxLimits, TheSetUpBoundThroughTheCli) {
  TempDir t;
  write_text(t.path / "local.ptx", local_kernel(1u << 20));
  const Result r =
      t.rrswin("ptx launch local.ptx --entry k --grid 16777216 --block 1 --threads 2 --max-launch-instructions 1000000 -o out");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "the launch did more than 1000000 units of work")) << r.out;
  EXPECT_TRUE(contains(r.out, "--max-launch-instructions")) << r.out;
  EXPECT_FALSE(fs::exists(t.path / "out"));
  const Result ok = t.rrswin("ptx launch local.ptx --entry k --grid 3 --block 1 --max-launch-instructions 24585 -o out");
  EXPECT_EQ(ok.status, 0) << ok.out;  // 3 x (8194 + 1)
  EXPECT_EQ(t.rrswin("ptx launch local.ptx --entry k --grid 3 --block 1 --max-launch-instructions 24584 -o out2").status, 2);
}

// --- F4: costly instructions weigh their cost ---------------------------------------------------

// Loops of rsqrt.approx.f64 or sin.approx.f32 with large arguments ran 17-20 minutes under the
// default bound, each counting one unit. Each instruction now counts its weight (ir.hpp
// work_weight): `INST; ret` runs under a per-warp bound of weight + 1 and not under weight.
TEST(PtxLimits, CostlyInstructionsCountTheirWeight) {
  struct Case {
    const char* inst;
    std::uint64_t weight;
  };
  const Case cases[] = {
      {"ex2.approx.f32 %f1, %f2;", 256},
      {"ex2.approx.ftz.f32 %f1, %f2;", 256},
      {"sin.approx.f32 %f1, %f2;", 128},
      {"cos.approx.ftz.f32 %f1, %f2;", 128},
      {"tanh.approx.f32 %f1, %f2;", 128},
      {"lg2.approx.f32 %f1, %f2;", 64},
      {"rsqrt.approx.f32 %f1, %f2;", 64},
      {"rsqrt.approx.ftz.f32 %f1, %f2;", 1},
      {"rsqrt.approx.f64 %fd1, %fd2;", 32},
      {"rsqrt.approx.ftz.f64 %fd1, %fd2;", 32},
      {"match.any.sync.b32 %r1, %r2, -1;", 4},
      {"mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%r1,%r2}, {%r3,%r4,%r5,%r6}, {%r7,%r8}, {%r1,%r2};", 16},
      {"add.f32 %f1, %f2, %f2;", 1},
      {"div.rz.f64 %fd1, %fd2, %fd2;", 1},
  };
  for (const Case& c : cases) {
    const std::string src =
        kHead + ".visible .entry k()\n{\n  .reg .f32 %f<3>;\n  .reg .f64 %fd<3>;\n  .reg .b32 %r<9>;\n  " + c.inst + "\n  ret;\n}\n";
    const auto m = parse_module(src, "w.ptx");
    Device dev;
    RunOptions opt;
    opt.threads = 1;
    opt.max_warp_instructions = c.weight + 1;
    RunStats st;
    EXPECT_NO_THROW(st = run(*m, "k", {1, 1, 1}, {32, 1, 1}, {}, dev, opt)) << c.inst;
    EXPECT_EQ(st.warp_instructions, 2u) << c.inst;
    opt.max_warp_instructions = c.weight;
    const std::string e = error_of([&] { run(*m, "k", {1, 1, 1}, {32, 1, 1}, {}, dev, opt); });
    EXPECT_TRUE(contains(e, "one warp did more than " + std::to_string(c.weight) + " units of work")) << c.inst << ": " << e;
    EXPECT_TRUE(contains(e, "--max-instructions")) << e;
  }
}

// The launch bound counts the same weights: a loop of 1000 sin.approx.f32 (with add, setp, bra)
// on 2 CTAs of one warp.
TEST(PtxLimits, TheLaunchBoundCountsTheWeightsToo) {
  const std::string src = kHead +
                          ".visible .entry k()\n{\n  .reg .b32 %r<2>;\n  .reg .f32 %f<3>;\n  .reg .pred %p;\n"
                          "  mov.f32 %f2, 0f7E000000;\n"
                          "$L: sin.approx.f32 %f1, %f2;\n  add.s32 %r1, %r1, 1;\n  setp.lt.u32 %p, %r1, 1000;\n  @%p bra $L;\n  ret;\n}\n";
  const auto m = parse_module(src, "sin.ptx");
  Device dev;
  RunOptions opt;
  opt.threads = 2;
  const RunStats st = run(*m, "k", {2, 1, 1}, {32, 1, 1}, {}, dev, opt);
  // Per CTA: mov 1, 1000 x (128 + 3), ret 1; the set-up (24 special registers and %r1 cleared,
  // 6400 bytes, and %p, 4 bytes) 2 units.
  EXPECT_EQ(st.work, 2u * (1 + 1000 * 131 + 1 + 2));
  opt.max_launch_instructions = st.work - 1;
  const std::string e = error_of([&] { run(*m, "k", {2, 1, 1}, {32, 1, 1}, {}, dev, opt); });
  EXPECT_TRUE(contains(e, "sin.ptx: the launch did more than " + std::to_string(st.work - 1) + " units of work")) << e;
  EXPECT_TRUE(contains(e, "sin.approx 128")) << e;
}

// --- F5: the memory of the running CTAs ---------------------------------------------------------

// Local memory x threads per CTA plus registers, times the worker threads, reached 3.6 GB and
// ended in "std::bad_alloc". A CTA of this kernel (64 KiB of .local per thread, 1024 threads)
// holds 32 warps x (24 special registers x 256 bytes + 32 lanes x 64 KiB) = 67305472 bytes.
TEST(PtxLimits, TheRunningCtasMemoryIsCheckedBeforeTheLaunch) {
  EXPECT_EQ(RunOptions{}.max_running_cta_bytes, 2ull << 30);  // the documented limit
  const auto m = parse_module(local_kernel(64u << 10), "big.ptx");
  Device dev;
  RunOptions opt;
  opt.max_running_cta_bytes = 200u << 20;  // three such CTAs fit
  opt.threads = 16;
  std::string e = error_of([&] { run(*m, "k", {8, 1, 1}, {1024, 1, 1}, {}, dev, opt); });
  EXPECT_TRUE(contains(e, "big.ptx: 8 threads would run 8 CTAs of entry k at once, 65 MiB each (67305472 bytes")) << e;
  EXPECT_TRUE(contains(e, "above the interpreter's limit of 209715200 bytes")) << e;
  EXPECT_TRUE(contains(e, "--threads 3 or fewer fit")) << e;
  opt.threads = 3;
  EXPECT_EQ(run(*m, "k", {8, 1, 1}, {1024, 1, 1}, {}, dev, opt).threads, 3);
  // The default thread count runs as many as fit.
  opt.threads = 0;
  const RunStats st = run(*m, "k", {8, 1, 1}, {1024, 1, 1}, {}, dev, opt);
  EXPECT_GE(st.threads, 1);
  EXPECT_LE(st.threads, 3);
  EXPECT_EQ(st.ctas, 8u);
  // One CTA over the limit is an error whatever the thread count.
  opt.max_running_cta_bytes = 64u << 20;
  e = error_of([&] { run(*m, "k", {1, 1, 1}, {1024, 1, 1}, {}, dev, opt); });
  EXPECT_TRUE(contains(e, "big.ptx: a CTA of entry k would hold 67305472 bytes (65 MiB")) << e;
  EXPECT_TRUE(contains(e, "limit of 67108864 bytes")) << e;
}

// The reproducer's shape through the CLI: 256 KiB of .local x 1024 threads is 257 MiB per CTA;
// 16 threads would hold 4.1 GiB. Refused before anything is allocated, exit status 2.
TEST(PtxLimits, TheRunningCtasMemoryLimitThroughTheCli) {
  TempDir t;
  write_text(t.path / "big.ptx", local_kernel(256u << 10));
  const Result r = t.rrswin("ptx launch big.ptx --entry k --grid 64 --block 1024 --threads 16 -o out");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "16 threads would run 16 CTAs of entry k at once, 257 MiB each")) << r.out;
  EXPECT_TRUE(contains(r.out, "2147483648 bytes")) << r.out;
  EXPECT_TRUE(contains(r.out, "--threads 7 or fewer fit")) << r.out;
  EXPECT_FALSE(contains(r.out, "bad_alloc")) << r.out;
  EXPECT_FALSE(fs::exists(t.path / "out"));
}

// F7: a worker thread that cannot start ends nothing. Under an address-space limit (ulimit -v) most
// of 4096 requested threads cannot get their stacks; the interpreter's CTA workers take CTAs from
// one counter, so the started ones (and the calling thread) run every CTA and the outputs equal a
// one-thread run's (before: "terminate called without an active exception"). Not under the
// sanitizers, whose shadow memory needs more address space than the limit leaves.
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
TEST(PtxLimits, ThreadsThatCannotStartLeaveTheirWorkToTheOthers) {
  TempDir t;
  put(t.path / "in.bin", std::vector<unsigned char>(4000, 0x5A));
  const std::string launch = " ptx launch '" + kernels_ptx() +
                             "' --entry int_mix --grid 64 --block 256 --buffer in=in.bin --buffer out:4000 --param ptr:in "
                             "--param ptr:out --param s32:1000";
  const Result one = t.rrswin(launch + " -o one --threads 1");
  ASSERT_EQ(one.status, 0) << one.out;
  const Result many =
      shell("cd '" + t.path.string() + "' && ulimit -v 400000 && '" RRSWIN_CLI_PATH "'" + launch + " -o many --threads 4096");
  ASSERT_EQ(many.status, 0) << many.out;
  EXPECT_FALSE(contains(many.out, "terminate")) << many.out;
  EXPECT_EQ(bytes_of(t.path / "many" / "out.bin"), bytes_of(t.path / "one" / "out.bin"));
}
#endif

// F8: a texture or surface line's fields are parsed where they are read. Glued into a shape string,
// "1-pitch64" as a width used to parse as a shape and errors blamed the image file; now each bad
// field is manifest.txt's error at the line, naming the field's expected form.
TEST(HostileCapture3, ImageLineFieldsAreManifestErrors) {
  TempDir t;
  const auto error_with = [&](const std::string& line) {
    const fs::path d = t.path / ("c" + std::to_string(std::hash<std::string>{}(line)));
    int_mix_capture(d, "kernel int_mix");
    std::string m = read_text(d / "manifest.txt");
    m += line + "\n";
    write_text(d / "manifest.txt", m);
    put(d / "img.bin", std::vector<unsigned char>(64 * 8, 0));
    return error_of([&] { (void)rrswin::ptx::load_kernel_capture(d.string()); });
  };
  for (const std::string& line : {std::string("surface 96 1-pitch64 8 16 64 img.bin"), std::string("surface 96 8 1-pitch64 16 64 img.bin"),
                                  std::string("texture 96 8 8 16 pitch64 img.bin"), std::string("texture 96 8 8 16 clampy img.bin")}) {
    const std::string e = error_with(line);
    EXPECT_TRUE(contains(e, "manifest.txt: at byte offset")) << line << ": " << e;
    EXPECT_FALSE(contains(e, "img.bin: at")) << line << ": " << e;  // not the image file's error
  }
}
