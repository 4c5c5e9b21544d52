// `rrswin eval` (src/cli/cmd_eval.cpp), run as a process (RRSWIN_CLI_PATH):
//   * --batch on the 3000 Ada mma measurements converted to the 65-number operand format: every
//     output line must be the measured d;
//   * single instructions with expected results worked out by hand from numerics.md;
//   * bad input: non-zero exit status, nothing on stdout, a message on stderr naming the problem.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include "ci_skip.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ada_mma_data.hpp"
#include "numerics/mma.hpp"
#include "numerics/op_table.hpp"
#include "numerics/profile.hpp"

namespace {

constexpr const char* kMma = "mma.m16n8k32.row.col.f16.e4m3.e4m3.f16";

struct CliRun {
  int status = -1;  // exit status
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Runs `rrswin eval ARGS` with `input` on stdin; the arguments are plain tokens (no quoting needed
// beyond the single quotes added here).
CliRun eval(const std::vector<std::string>& args, const std::string& input = "") {
  static int counter = 0;
  const std::string base = ::testing::TempDir() + "/rrswin_eval_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  {
    std::ofstream in(base + ".in", std::ios::binary);
    in << input;
  }
  std::string cmd = std::string("'") + RRSWIN_CLI_PATH + "' eval";
  for (const std::string& a : args) cmd += " '" + a + "'";
  cmd += " < '" + base + ".in' > '" + base + ".out' 2> '" + base + ".err'";
  const int raw = std::system(cmd.c_str());
  CliRun r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".in").c_str());
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

// The single-line result of one instruction (status 0, nothing on stderr).
std::string one(const std::vector<std::string>& args) {
  const CliRun r = eval(args);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::string s = r.out;
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

std::string hex(unsigned v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, v);
  return buf;
}

// One Ada case as a line of 65 hex operands; `plain` leaves out the 0x prefixes (both accepted).
std::string mma_line(const rrswin_test::AdaMmaCase& cs, bool plain) {
  std::string s;
  auto put = [&](unsigned v, int digits) {
    if (!s.empty()) s += ' ';
    s += plain ? hex(v, digits).substr(2) : hex(v, digits);
  };
  for (int k = 0; k < 32; ++k) put(cs.a[k], 2);
  for (int k = 0; k < 32; ++k) put(cs.b[k], 2);
  put(cs.c, 4);
  return s;
}

std::vector<std::string> words(std::initializer_list<std::string> first, std::vector<std::string> rest) {
  std::vector<std::string> v(first);
  v.insert(v.end(), rest.begin(), rest.end());
  return v;
}

}  // namespace

// ---- --batch on the Ada measurements -------------------------------------------------------

class EvalCliAda : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!rrswin_test::load_ada_mma_cases(cases_, why)) RRSWIN_SKIP_UNLESS_CI() << why;
    for (std::size_t i = 0; i < cases_.size(); ++i) input_ += mma_line(cases_[i], i % 2 == 1) + "\n";
  }
  std::vector<rrswin_test::AdaMmaCase> cases_;
  std::string input_;
};

TEST_F(EvalCliAda, BatchReproducesEveryMeasuredD) {
  const CliRun r = eval({"--batch", kMma}, input_);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> got = lines_of(r.out);
  ASSERT_EQ(got.size(), cases_.size());
  int matches = 0;
  for (std::size_t i = 0; i < cases_.size(); ++i) {
    EXPECT_EQ(got[i], hex(cases_[i].d, 4)) << "line " << i + 1;
    matches += got[i] == hex(cases_[i].d, 4);
  }
  std::printf("[ eval    ] --batch reproduced %d / %zu Ada measurements\n", matches, cases_.size());
}

// --profile zluda reaches the zluda accumulation: the output is the library's zluda result, which
// differs from the measurement on some lines.
TEST_F(EvalCliAda, BatchWithZludaProfile) {
  const CliRun r = eval({"--batch", kMma, "--profile", "zluda"}, input_);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> got = lines_of(r.out);
  ASSERT_EQ(got.size(), cases_.size());
  int differ = 0;
  for (std::size_t i = 0; i < cases_.size(); ++i) {
    const auto& cs = cases_[i];
    EXPECT_EQ(got[i], hex(rrswin::mma_dot(rrswin::profile_zluda(), cs.a, cs.b, cs.c), 4)) << "line " << i + 1;
    differ += got[i] != hex(cs.d, 4);
  }
  EXPECT_GT(differ, 0);
}

// ---- --batch --profile hopper on the H100, H200 and B200 measurements ------------------------

TEST(EvalCliHopper, BatchReproducesEveryMeasuredD) {
  for (const char* gpu : rrswin_test::kHopperGpus) {
    std::vector<rrswin_test::AdaMmaCase> cases;
    std::string why;
    if (!rrswin_test::load_hopper_mma_cases(gpu, cases, why)) {
      RRSWIN_SKIP_UNLESS_CI() << why;
    }
    std::string input;
    for (std::size_t i = 0; i < cases.size(); ++i) input += mma_line(cases[i], i % 2 == 0) + "\n";
    const CliRun r = eval({"--batch", kMma, "--profile", "hopper"}, input);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> got = lines_of(r.out);
    ASSERT_EQ(got.size(), cases.size());
    int matches = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      EXPECT_EQ(got[i], hex(cases[i].d, 4)) << gpu << " line " << i + 1;
      matches += got[i] == hex(cases[i].d, 4);
    }
    std::printf("[ eval    ] --batch --profile hopper reproduced %d / %zu %s measurements\n", matches, cases.size(), gpu);
  }
}

// The instruction-level readings reach eval; the layer's readings are refused there.
TEST(EvalCli, MmaCornerReadings) {
  // C = -0 and 32 products -0 (0 x -1): -0 in ada, +0 in hopper ((+0) + (-0) in its f16 add)
  std::vector<std::string> ops(65, "0x00");
  for (int k = 32; k < 64; ++k) ops[k] = "0xb8";
  ops[64] = "0x8000";
  EXPECT_EQ(one(words({kMma}, ops)), "0x8000");
  EXPECT_EQ(one(words({kMma, "--profile", "hopper"}, ops)), "0x0000");
  EXPECT_EQ(one(words({kMma, "--reading", "mma-zero-sign=plus"}, ops)), "0x0000");
  EXPECT_EQ(one(words({kMma, "--reading=mma-zero-sign=ieee", "--profile=zluda"}, ops)), "0x8000");
  // C = 65504 plus 4 x 4 = 65520: Inf, or 65504 under mma-overflow=saturate
  std::vector<std::string> o(65, "0x00");
  o[0] = o[32] = "0x48";
  o[64] = "0x7bff";
  for (const char* p : {"ada", "zluda", "hopper", "blackwell"}) {
    EXPECT_EQ(one(words({kMma, "--profile", p}, o)), "0x7c00") << p;
    EXPECT_EQ(one(words({kMma, "--profile", p, "--reading", "mma-overflow=saturate"}, o)), "0x7bff") << p;
  }
  // a NaN C: 0x7fff, or its own payload quieted
  o[64] = "0x7c01";
  EXPECT_EQ(one(words({kMma, "--profile", "hopper"}, o)), "0x7fff");
  EXPECT_EQ(one(words({kMma, "--profile", "hopper", "--reading", "mma-nan-payload=quiet-c"}, o)), "0x7e01");
  const CliRun layer = eval(words({kMma, "--reading", "arena-order=natural"}, ops));
  EXPECT_EQ(layer.status, 2);
  EXPECT_NE(layer.err.find("instruction-level"), std::string::npos) << layer.err;
  const CliRun unknown = eval(words({kMma, "--reading", "mma-zero-sign=minus"}, ops));
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("allowed"), std::string::npos) << unknown.err;
  const CliRun badp = eval(words({kMma, "--profile", "volta"}, ops));
  EXPECT_EQ(badp.status, 2);
  EXPECT_NE(badp.err.find("ada|zluda|hopper|blackwell"), std::string::npos) << badp.err;
}

// --profile blackwell (MMA-Sim's sm_120 model, docs/readings.md §3): hand-worked cases of
// tests/blackwell_mma_test.cpp through the CLI.
TEST(EvalCli, BlackwellProfile) {
  // C = -0 and 32 products -0: +0 (the model's zero), -0 under mma-zero-sign=ieee
  std::vector<std::string> z(65, "0x00");
  for (int k = 32; k < 64; ++k) z[k] = "0xb8";
  z[64] = "0x8000";
  EXPECT_EQ(one(words({kMma, "--profile", "blackwell"}, z)), "0x0000");
  EXPECT_EQ(one(words({kMma, "--profile", "blackwell", "--reading", "mma-zero-sign=ieee"}, z)), "0x8000");
  // 4096 + 2 (a tie) + 2^-13 (= q = 2^(12-25): kept) -> 4100; with 2^-14 instead -> 4096
  std::vector<std::string> t(65, "0x00");
  t[0] = "0x78", t[32] = "0x58";   // 2^8 * 2^4
  t[1] = "0x40", t[33] = "0x38";   // 2 * 1
  t[20] = "0x08", t[52] = "0x04";  // 2^-6 * 2^-7, in the second half: one block
  t[64] = "0x0000";
  EXPECT_EQ(one(words({kMma, "--profile", "blackwell"}, t)), "0x6c01");
  EXPECT_EQ(one(words({kMma, "--profile", "ada"}, t)), "0x6c00");
  t[52] = "0x02";
  EXPECT_EQ(one(words({kMma, "--profile", "blackwell"}, t)), "0x6c00");
  // +448^2 in k 0..15 and -448^2 in k 16..31 cancel in the fused block (ada: +Inf)
  std::vector<std::string> h(65, "0x00");
  h[0] = h[32] = "0x7e", h[16] = "0xfe", h[48] = "0x7e";
  EXPECT_EQ(one(words({kMma, "--profile", "blackwell"}, h)), "0x0000");
  EXPECT_EQ(one(words({kMma, "--profile", "ada"}, h)), "0x7c00");
}

// ---- single instructions, expected values worked by hand from numerics.md ------------------

TEST(EvalCli, Conversions) {
  // numerics.md "Conversions": low half -> byte 0; 1.0 -> 0x38, -1.0 -> 0xb8.
  EXPECT_EQ(one({"cvt.rn.satfinite.e4m3x2.f16x2", "0x3c00bc00"}), "0x38b8");
  EXPECT_EQ(one({"cvt.rn.satfinite.e4m3x2.f16x2", "0x7c00fc00"}), "0x7efe");  // +-Inf -> +-448
  EXPECT_EQ(one({"cvt.rn.satfinite.e4m3x2.f16x2", "0x00001400"}), "0x0000");  // 2^-10 is a tie -> 0
  EXPECT_EQ(one({"cvt.rn.satfinite.e4m3x2.f16x2", "0x00001401"}), "0x0001");  // just above -> 2^-9
  // negative NaN: 0x7f in ada, the signed 0xff in zluda
  EXPECT_EQ(one({"cvt.rn.satfinite.e4m3x2.f16x2", "0x0000fe00"}), "0x007f");
  EXPECT_EQ(one({"cvt.rn.satfinite.e4m3x2.f16x2", "0x0000fe00", "--profile", "zluda"}), "0x00ff");
  EXPECT_EQ(one({"cvt.rn.f16x2.e4m3x2", "0x38b8"}), "0x3c00bc00");
  EXPECT_EQ(one({"cvt.rn.f16x2.e4m3x2", "0x7f01"}), "0x7fff1800");  // NaN -> 0x7fff; 2^-9 -> 0x1800
  EXPECT_EQ(one({"cvt.f32.f16", "0x3c00"}), "0x3f800000");
  EXPECT_EQ(one({"cvt.f32.f16", "0x0001"}), "0x33800000");     // 2^-24
  EXPECT_EQ(one({"cvt.rn.f16.f32", "0x3f801000"}), "0x3c00");  // 1 + 2^-11: tie -> even
  EXPECT_EQ(one({"cvt.rn.f16.f32", "0x3f803000"}), "0x3c02");  // 1 + 3 2^-11: tie -> even
  EXPECT_EQ(one({"cvt.rn.f16.f32", "0x477ff000"}), "0x7c00");  // 65520 overflows
  // 1 + 2^-11 + 2^-40: above the tie when rounded once; through f32 it would be 0x3c00
  EXPECT_EQ(one({"cvt.rn.f16.f64", "0x3ff0020000001000"}), "0x3c01");
}

TEST(EvalCli, F16Arithmetic) {
  EXPECT_EQ(one({"add.rn.f16", "0x3c00", "0x3c00"}), "0x4000");
  EXPECT_EQ(one({"sub.rn.f16", "3c00", "3C00"}), "0x0000");
  EXPECT_EQ(one({"mul.rn.f16", "0x4000", "0xc000"}), "0xc400");
  // (1 + 2^-10)^2 - (1 + 2^-9) = 2^-20 exactly, one rounding (two roundings would give 0)
  EXPECT_EQ(one({"fma.rn.f16", "0x3c01", "0x3c01", "0xbc02"}), "0x0010");
  EXPECT_EQ(one({"add.rn.f16x2", "0x3c004000", "0x3c00c000"}), "0x40000000");
  EXPECT_EQ(one({"fma.rn.f16x2", "0x3c013c00", "0x3c013c00", "0xbc023c00"}), "0x00104000");
  EXPECT_EQ(one({"max.f16", "0x7e00", "0x3c00"}), "0x3c00");  // one NaN -> the other operand
  EXPECT_EQ(one({"max.f16", "0x8000", "0x0000"}), "0x0000");  // +0 > -0
  EXPECT_EQ(one({"min.f16", "0x0000", "0x8000"}), "0x8000");
  EXPECT_EQ(one({"max.f16x2", "0x3c00bc00", "0xbc003c00"}), "0x3c003c00");
  EXPECT_EQ(one({"min.f16x2", "0x3c00bc00", "0xbc003c00"}), "0xbc00bc00");
  EXPECT_EQ(one({"neg.f16", "0x3c00"}), "0xbc00");
  EXPECT_EQ(one({"abs.f16", "0xbc00"}), "0x3c00");
  EXPECT_EQ(one({"neg.f16x2", "0x00008000"}), "0x80000000");
  EXPECT_EQ(one({"abs.f16x2", "0xbc00bc00"}), "0x3c003c00");
}

TEST(EvalCli, ApproxF32) {
  EXPECT_EQ(one({"rcp.approx.ftz.f32", "0x40000000"}), "0x3f000000");
  EXPECT_EQ(one({"rcp.approx.ftz.f32", "0x00000001"}), "0x7f800000");  // ftz: 1/+0
  EXPECT_EQ(one({"rcp.approx.ftz.f32", "0x80000001"}), "0xff800000");  // ftz: 1/-0
  EXPECT_EQ(one({"rsqrt.approx.ftz.f32", "0x40800000"}), "0x3f000000");
  EXPECT_EQ(one({"ex2.approx.ftz.f32", "0x3f800000"}), "0x40000000");
  EXPECT_EQ(one({"ex2.approx.ftz.f32", "0xc2fe0000"}), "0x00000000");  // 2^-127 is subnormal: ftz
  EXPECT_EQ(one({"div.approx.ftz.f32", "0x40400000", "0x40000000"}), "0x3fc00000");
}

TEST(EvalCli, WarpMovement) {
  std::vector<std::string> lanes, expect_bfly1, expect_bfly16, mm_in, mm_out;
  for (unsigned l = 0; l < 32; ++l) {
    lanes.push_back(hex(0xa0000000u + l, 8));
    expect_bfly1.push_back(hex(0xa0000000u + (l ^ 1), 8));
    expect_bfly16.push_back(hex(0xa0000000u + (l ^ 16), 8));
    // movmatrix: M[r][c] = 8r + c; lane L holds M[L/4][2(L%4)] low and M[L/4][2(L%4)+1] high and
    // receives M[2(L%4)][L/4] low and M[2(L%4)+1][L/4] high (numerics.md).
    auto m = [](unsigned r, unsigned c) { return 8 * r + c; };
    mm_in.push_back(hex(m(l / 4, 2 * (l % 4)) | (m(l / 4, 2 * (l % 4) + 1) << 16), 8));
    mm_out.push_back(hex(m(2 * (l % 4), l / 4) | (m(2 * (l % 4) + 1, l / 4) << 16), 8));
  }
  auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
    return s;
  };
  std::vector<std::string> args = words({"shfl.bfly.b32"}, lanes);
  args.push_back("0x1");
  EXPECT_EQ(one(args), joined(expect_bfly1));
  args.back() = "0x10";
  EXPECT_EQ(one(args), joined(expect_bfly16));
  EXPECT_EQ(one(words({"movmatrix.m8n8.trans.b16"}, mm_in)), joined(mm_out));
}

TEST(EvalCli, Mma) {
  // a0 = b0 = 1.0 (0x38), C = 1.0: D = 2.0
  std::vector<std::string> ops(65, "0x00");
  ops[0] = ops[32] = "0x38";
  ops[64] = "0x3c00";
  EXPECT_EQ(one(words({kMma}, ops)), "0x4000");
  // products 1, 2^-11, 2^-18 and C = 0 (mma_test.cpp TruncationBelowQ): ada truncates 2^-18 and
  // lands on a tie (1.0); zluda's exact sum is above the tie (1 + 2^-10).
  ops[64] = "0x0000";
  ops[1] = "0x01", ops[33] = "0x28";
  ops[2] = "0x01", ops[34] = "0x01";
  EXPECT_EQ(one(words({kMma}, ops)), "0x3c00");
  EXPECT_EQ(one(words({kMma, "--profile=zluda"}, ops)), "0x3c01");
  ops[40] = "0x7f";  // a NaN code times zero
  EXPECT_EQ(one(words({kMma}, ops)), "0x7fff");
}

// ---- help, list and errors -------------------------------------------------------------------

TEST(EvalCli, ListAndHelpNameEveryInstruction) {
  const CliRun list = eval({"--list"});
  ASSERT_EQ(list.status, 0);
  const CliRun help = eval({"--help"});
  ASSERT_EQ(help.status, 0);
  const std::vector<std::string> names = lines_of(list.out);
  for (const char* required : {"add.rn.f16",
                               "sub.rn.f16",
                               "mul.rn.f16",
                               "fma.rn.f16",
                               "add.rn.f16x2",
                               "sub.rn.f16x2",
                               "mul.rn.f16x2",
                               "fma.rn.f16x2",
                               "max.f16",
                               "min.f16",
                               "max.f16x2",
                               "min.f16x2",
                               "neg.f16",
                               "abs.f16",
                               "neg.f16x2",
                               "abs.f16x2",
                               "cvt.rn.f16x2.e4m3x2",
                               "cvt.rn.satfinite.e4m3x2.f16x2",
                               "cvt.f32.f16",
                               "cvt.rn.f16.f32",
                               "cvt.rn.f16.f64",
                               "rcp.approx.ftz.f32",
                               "rsqrt.approx.ftz.f32",
                               "ex2.approx.ftz.f32",
                               "div.approx.ftz.f32",
                               "shfl.bfly.b32",
                               "movmatrix.m8n8.trans.b16",
                               kMma})
    EXPECT_NE(std::find(names.begin(), names.end(), required), names.end()) << required;
  for (const std::string& n : names) EXPECT_NE(help.out.find("  " + n + "\n      operands: "), std::string::npos) << n;
  // Every row of the shared operation table (numerics/op_table.hpp) that is one PTX instruction is
  // an eval instruction, exactly once: a row added there reaches eval without a second edit.
  auto listed_once = [&](std::string_view ptx) {
    if (ptx.empty()) return;
    EXPECT_EQ(std::count(names.begin(), names.end(), std::string(ptx)), 1) << ptx;
  };
  for (const auto& op : rrswin::kF16BinaryOps) listed_once(op.ptx);
  for (const auto& op : rrswin::kF16UnaryOps) listed_once(op.ptx);
  for (const auto& op : rrswin::kF16x2BinaryOps) listed_once(op.ptx);
  for (const auto& op : rrswin::kF16x2UnaryOps) listed_once(op.ptx);
  for (const auto& op : rrswin::kF32UnaryOps) listed_once(op.ptx);
  for (const auto& op : rrswin::kF32BinaryOps) listed_once(op.ptx);
}

TEST(EvalCli, BadInputIsReported) {
  auto bad = [](const std::vector<std::string>& args, const std::string& input, const std::string& must_say) {
    const CliRun r = eval(args, input);
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find(must_say), std::string::npos) << "stderr: " << r.err;
    return r;
  };
  EXPECT_EQ(bad({"add.rn.f16", "0x3c00"}, "", "takes 2 operands").out, "");
  EXPECT_EQ(bad({"add.rn.f16", "0x3c00", "0xzz"}, "", "operand 2 (b)").out, "");
  bad({"add.rn.f16", "0x3c00", "0x1ffff"}, "", "does not fit in 16 bits");
  bad({"add.rn.f16", "0x3c00", "0x"}, "", "no hex digits");
  bad({"cvt.rn.f16.f64", "0x1ffffffffffffffff"}, "", "does not fit in 64 bits");
  bad({"nosuch.op", "1"}, "", "unknown instruction 'nosuch.op'");
  bad({"add.rn.f16", "1", "2", "--profile", "amd"}, "", "unknown profile 'amd'");
  bad({"add.rn.f16", "1", "2", "--profile"}, "", "--profile needs a value");
  bad({"add.rn.f16", "1", "2", "--frobnicate"}, "", "unknown option");
  bad({}, "", "expected an INSTRUCTION");
  bad({"--batch", "add.rn.f16", "1"}, "", "--batch reads the operands from stdin");
  // --batch: the lines before the bad one are answered, then the error names the line
  const CliRun r = bad({"--batch", "add.rn.f16"}, "0x3c00 0x3c00\n0x3c00\n0x3c00 0x3c00\n", "stdin line 2");
  EXPECT_EQ(r.out, "0x4000\n");
  EXPECT_NE(r.err.find("takes 2 operands"), std::string::npos);
  bad({"--batch", kMma}, std::string(64 * 3, ' ') + "\n", "stdin line 1");
}
