// The PTX interpreter (src/ptx): per-instruction PTX snippets, control flow, collectives, memory,
// bad input. Expected values come from expressions written here (integer/bit ops), the independent
// f16 oracle (tests/reference/f16_oracle.hpp), NVIDIA's cuda_fp8.hpp host code, the Ada mma
// measurements, or src/numerics where the instruction is defined as that function (the point of
// those tests is that the interpreter routes the registers to it correctly).
#include <gtest/gtest.h>

#include "ci_skip.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ada_mma_data.hpp"
#include "api/frame.hpp"
#include "layout/fragment.hpp"
#include "numerics/approx.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"
#include "numerics/mma.hpp"
#include "numerics/warp.hpp"
#include "ptx/ir.hpp"
#include "ptx/ptx.hpp"
#include "ptx_test_util.hpp"
#include "reference/f16_oracle.hpp"
#if defined(RRSWIN_HAVE_CUDA_FP8_REF)
#include "reference/cuda_fp8_ref.hpp"
#endif

using namespace rrswin::ptx;

namespace {

// A kernel k(out, in) with the usual register pools; %r0 = %tid.x of a (32*W,1,1) block, %rd4 =
// &out[global thread], %rd5 = &in[global thread] (u32 words), %r50 = global thread index.
std::string kernel(const std::string& body, const std::string& extra_decls = "") {
  return ".version 8.0\n.target sm_89\n.address_size 64\n" + extra_decls +
         "\n.visible .entry k(\n  .param .u64 pout,\n  .param .u64 pin\n)\n{\n"
         "  .reg .b32 %r<64>;\n  .reg .b64 %rd<32>;\n  .reg .pred %p<16>;\n  .reg .b16 %rs<16>;\n  .reg .f32 %f<16>;\n  .reg .f64 %fd<8>;\n"
         "  ld.param.u64 %rd1, [pout];\n  ld.param.u64 %rd2, [pin];\n  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, %rd2;\n"
         "  mov.u32 %r0, %tid.x;\n  mov.u32 %r51, %ctaid.x;\n  mov.u32 %r52, %ntid.x;\n  mad.lo.s32 %r50, %r51, %r52, %r0;\n"
         "  mul.wide.u32 %rd3, %r50, 4;\n  add.s64 %rd4, %rd1, %rd3;\n  add.s64 %rd5, %rd2, %rd3;\n" +
         body + "\n  ret;\n}\n";
}

struct Out {
  std::vector<std::uint32_t> out;
  RunStats st;
};

Out run_kernel(const std::string& ptx, std::vector<std::uint32_t> in, std::size_t out_words, Dim3 grid = {1, 1, 1}, Dim3 block = {32, 1, 1},
               const rrswin::Profile* profile = nullptr, Device* dev_in = nullptr, int threads = 1) {
  auto m = parse_module(ptx, "test.ptx");
  Out o;
  o.out.assign(out_words, 0xDEADBEEFu);
  if (in.empty()) in.push_back(0);
  RunOptions opt;
  opt.profile = profile;
  opt.threads = threads;
  o.st = test::run_out_in(*m, o.out, in, opt, dev_in, grid, block);
  return o;
}

std::string run_error(const std::string& ptx, std::size_t out_words = 32, Dim3 block = {32, 1, 1}, std::uint64_t max_inst = 0) {
  try {
    auto m = parse_module(ptx, "bad.ptx");
    std::vector<std::uint32_t> out(out_words), in(64);
    Device dev;
    const std::uint64_t a_out = dev.add_global("out", {reinterpret_cast<std::uint8_t*>(out.data()), out.size() * 4});
    const std::uint64_t a_in = dev.add_global("in", {reinterpret_cast<std::uint8_t*>(in.data()), in.size() * 4});
    std::uint8_t params[16];
    std::memcpy(params, &a_out, 8);
    std::memcpy(params + 8, &a_in, 8);
    RunOptions opt;
    opt.threads = 1;
    if (max_inst) opt.max_warp_instructions = max_inst;
    run(*m, "k", {1, 1, 1}, block, params, dev, opt);
  } catch (const PtxError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& n) { return s.find(n) != std::string::npos; }

std::uint32_t line_of(const std::string& text, const std::string& needle) {
  const std::size_t p = text.find(needle);
  return p == std::string::npos
             ? 0
             : static_cast<std::uint32_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(p), '\n') + 1);
}

std::vector<std::uint32_t> random_words(std::size_t n, std::uint32_t seed) {
  std::mt19937 g(seed);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = g();
  return v;
}

// ---------------------------------------------------------------------------------------------
// Integer and bit instructions: every expected value is a C++ expression here.

struct IntCase {
  std::string ptx;  // computes %r3 from %r1 = a, %r2 = b
  std::uint32_t (*expect)(std::uint32_t a, std::uint32_t b);
};

TEST(PtxInteger, ArithmeticAndBitOps) {
  const std::vector<IntCase> cases = {
      {"add.s32 %r3, %r1, %r2;", [](std::uint32_t a, std::uint32_t b) { return a + b; }},
      {"sub.u32 %r3, %r1, %r2;", [](std::uint32_t a, std::uint32_t b) { return a - b; }},
      {"mul.lo.s32 %r3, %r1, %r2;", [](std::uint32_t a, std::uint32_t b) { return a * b; }},
      {"mul.hi.u32 %r3, %r1, %r2;", [](std::uint32_t a, std::uint32_t b) { return static_cast<std::uint32_t>((std::uint64_t{a} * b) >> 32); }},
      {"mul.hi.s32 %r3, %r1, %r2;", [](std::uint32_t a, std::uint32_t b) {
         return static_cast<std::uint32_t>(static_cast<std::uint64_t>(std::int64_t{static_cast<std::int32_t>(a)} * static_cast<std::int32_t>(b)) >> 32);
       }},
      {"mad.lo.s32 %r3, %r1, %r2, -7;", [](std::uint32_t a, std::uint32_t b) { return a * b - 7u; }},
      {"or.b32 %r4, %r2, 1; div.u32 %r3, %r1, %r4;", [](std::uint32_t a, std::uint32_t b) { return a / (b | 1u); }},
      {"or.b32 %r4, %r2, 1; rem.s32 %r3, %r1, %r4;", [](std::uint32_t a, std::uint32_t b) {
         const std::int64_t d = static_cast<std::int32_t>(b | 1u);  // INT_MIN % -1 is 0 (in 64 bits)
         return static_cast<std::uint32_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(a)) % d);
       }},
      {"or.b32 %r4, %r2, 1; div.s32 %r3, %r1, %r4;", [](std::uint32_t a, std::uint32_t b) {
         const std::int64_t d = static_cast<std::int32_t>(b | 1u);  // INT_MIN / -1 wraps to INT_MIN
         return static_cast<std::uint32_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(a)) / d);
       }},
      {"min.s32 %r3, %r1, %r2;", [](std::uint32_t a, std::uint32_t b) { return static_cast<std::uint32_t>(std::min(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b))); }},
      {"max.u32 %r3, %r1, %r2;", [](std::uint32_t a, std::uint32_t b) { return std::max(a, b); }},
      {"and.b32 %r4, %r2, 31; shl.b32 %r3, %r1, %r4;", [](std::uint32_t a, std::uint32_t b) { return a << (b & 31); }},
      {"shl.b32 %r3, %r1, 40;", [](std::uint32_t, std::uint32_t) { return 0u; }},
      {"and.b32 %r4, %r2, 31; shr.s32 %r3, %r1, %r4;", [](std::uint32_t a, std::uint32_t b) { return static_cast<std::uint32_t>(static_cast<std::int32_t>(a) >> (b & 31)); }},
      {"shr.s32 %r3, %r1, 33;", [](std::uint32_t a, std::uint32_t) { return (a >> 31) ? 0xFFFFFFFFu : 0u; }},
      {"and.b32 %r4, %r2, 31; shr.u32 %r3, %r1, %r4;", [](std::uint32_t a, std::uint32_t b) { return a >> (b & 31); }},
      {"and.b32 %r3, %r1, %r2;", [](std::uint32_t a, std::uint32_t b) { return a & b; }},
      {"or.b32 %r3, %r1, %r2;", [](std::uint32_t a, std::uint32_t b) { return a | b; }},
      {"xor.b32 %r3, %r1, %r2;", [](std::uint32_t a, std::uint32_t b) { return a ^ b; }},
      {"not.b32 %r3, %r1;", [](std::uint32_t a, std::uint32_t) { return ~a; }},
      {"neg.s32 %r3, %r1;", [](std::uint32_t a, std::uint32_t) { return 0u - a; }},
      {"abs.s32 %r3, %r1;", [](std::uint32_t a, std::uint32_t) { return static_cast<std::int32_t>(a) < 0 ? 0u - a : a; }},
      {"popc.b32 %r3, %r1;", [](std::uint32_t a, std::uint32_t) { return static_cast<std::uint32_t>(std::popcount(a)); }},
      {"clz.b32 %r3, %r1;", [](std::uint32_t a, std::uint32_t) { return static_cast<std::uint32_t>(std::countl_zero(a)); }},
      {"brev.b32 %r3, %r1;", [](std::uint32_t a, std::uint32_t) {
         std::uint32_t r = 0;
         for (int i = 0; i < 32; ++i) r |= ((a >> i) & 1u) << (31 - i);
         return r;
       }},
      {"bfind.u32 %r3, %r1;", [](std::uint32_t a, std::uint32_t) { return a == 0 ? 0xFFFFFFFFu : 31u - static_cast<std::uint32_t>(std::countl_zero(a)); }},
      {"bfe.u32 %r3, %r1, 4, 8;", [](std::uint32_t a, std::uint32_t) { return (a >> 4) & 0xFFu; }},
      {"bfe.s32 %r3, %r1, 20, 12;", [](std::uint32_t a, std::uint32_t) { return static_cast<std::uint32_t>(static_cast<std::int32_t>(a) >> 20); }},
      {"bfe.s32 %r3, %r1, 3, 5;", [](std::uint32_t a, std::uint32_t) { return static_cast<std::uint32_t>(static_cast<std::int32_t>(a << 24) >> 27); }},
      {"bfi.b32 %r3, %r2, %r1, 8, 5;", [](std::uint32_t a, std::uint32_t b) { return (a & ~(0x1Fu << 8)) | ((b & 0x1Fu) << 8); }},
      {"prmt.b32 %r3, %r1, %r2, 0x7351;", [](std::uint32_t a, std::uint32_t b) {
         const std::uint64_t x = a | (std::uint64_t{b} << 32);
         auto byte = [&](int i) { return static_cast<std::uint32_t>((x >> (8 * i)) & 0xFF); };
         return byte(1) | (byte(5) << 8) | (byte(3) << 16) | (byte(7) << 24);
       }},
      {"prmt.b32 %r3, %r1, %r2, 0x98BA;", [](std::uint32_t a, std::uint32_t b) {
         const std::uint64_t x = a | (std::uint64_t{b} << 32);
         auto sbyte = [&](int i) { return ((x >> (8 * i + 7)) & 1) ? 0xFFu : 0u; };
         return sbyte(2) | (sbyte(3) << 8) | (sbyte(0) << 16) | (sbyte(1) << 24);
       }},
      {"lop3.b32 %r3, %r1, %r2, 0xF0F0F0F0, 0x96;", [](std::uint32_t a, std::uint32_t b) { return a ^ b ^ 0xF0F0F0F0u; }},
      {"lop3.b32 %r3, %r1, %r2, 0x0FF00FF0, 0xE8;", [](std::uint32_t a, std::uint32_t b) {
         const std::uint32_t c = 0x0FF00FF0u;
         return (a & b) | (a & c) | (b & c);
       }},
      {"setp.lt.s32 %p1, %r1, %r2; selp.u32 %r3, 11, 22, %p1;", [](std::uint32_t a, std::uint32_t b) { return static_cast<std::int32_t>(a) < static_cast<std::int32_t>(b) ? 11u : 22u; }},
      {"setp.lo.u32 %p1, %r1, %r2; selp.u32 %r3, 1, 0, %p1;", [](std::uint32_t a, std::uint32_t b) { return a < b ? 1u : 0u; }},
      {"setp.ge.u32 %p1, %r1, %r2; setp.ne.s32 %p2, %r1, 0; and.pred %p3, %p1, %p2; selp.b32 %r3, 1, 0, %p3;",
       [](std::uint32_t a, std::uint32_t b) { return (a >= b && a != 0) ? 1u : 0u; }},
      {"setp.gt.and.s32 %p1|%p2, %r1, %r2, %p0; setp.eq.s32 %p0, %r0, %r0; setp.gt.and.s32 %p1|%p2, %r1, %r2, %p0; selp.b32 %r3, 1, 0, %p2;",
       [](std::uint32_t a, std::uint32_t b) { return static_cast<std::int32_t>(a) > static_cast<std::int32_t>(b) ? 0u : 1u; }},
      {"mul.wide.s32 %rd6, %r1, %r2; mov.b64 {%r4, %r3}, %rd6;", [](std::uint32_t a, std::uint32_t b) {
         return static_cast<std::uint32_t>(static_cast<std::uint64_t>(std::int64_t{static_cast<std::int32_t>(a)} * static_cast<std::int32_t>(b)) >> 32);
       }},
      {"mul.wide.u32 %rd6, %r1, %r2; cvt.u32.u64 %r3, %rd6;", [](std::uint32_t a, std::uint32_t b) { return a * b; }},
      {"cvt.s64.s32 %rd6, %r1; shr.u64 %rd7, %rd6, 32; cvt.u32.u64 %r3, %rd7;", [](std::uint32_t a, std::uint32_t) { return (a >> 31) ? 0xFFFFFFFFu : 0u; }},
      {"cvt.u16.u32 %rs1, %r1; cvt.s32.s16 %r3, %rs1;", [](std::uint32_t a, std::uint32_t) { return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int16_t>(a))); }},
      {"mad.wide.u32 %rd6, %r1, %r2, %rd5; sub.s64 %rd6, %rd6, %rd5; mov.b64 {%r3, %r4}, %rd6;", [](std::uint32_t a, std::uint32_t b) { return a * b; }},
      {"mov.b64 %rd6, {%r1, %r2}; mov.b64 %rd7, {%r2, %r1}; add.cc.u32 %r4, %r1, %r2; addc.u32 %r3, %r2, %r1; ",
       [](std::uint32_t a, std::uint32_t b) {
         const std::uint64_t s = (a | (std::uint64_t{b} << 32)) + (b | (std::uint64_t{a} << 32));
         return static_cast<std::uint32_t>(s >> 32);
       }},
      {"mov.b32 {%rs1, %rs2}, %r1; mov.b32 %r3, {%rs2, %rs1};", [](std::uint32_t a, std::uint32_t) { return (a >> 16) | (a << 16); }},
      {"mul24.lo.u32 %r3, %r1, %r2;", [](std::uint32_t a, std::uint32_t b) { return (a & 0xFFFFFF) * (b & 0xFFFFFF); }},
      {"sad.u32 %r3, %r1, %r2, 5;", [](std::uint32_t a, std::uint32_t b) { return (a > b ? a - b : b - a) + 5u; }},
      {"cnot.b32 %r3, %r1;", [](std::uint32_t a, std::uint32_t) { return a == 0 ? 1u : 0u; }},
      {"slct.s32.s32 %r3, %r1, %r2, %r1;", [](std::uint32_t a, std::uint32_t b) { return static_cast<std::int32_t>(a) >= 0 ? a : b; }},
  };
  std::string body = "  ld.global.u32 %r1, [%rd5];\n  ld.global.u32 %r2, [%rd5+128];\n";
  for (std::size_t k = 0; k < cases.size(); ++k)
    body += "  " + cases[k].ptx + "\n  st.global.u32 [%rd4+" + std::to_string(k * 128) + "], %r3;\n";
  auto in = random_words(64, 7);
  in[0] = 0;
  in[1] = 0x80000000u;
  in[33] = 0xFFFFFFFFu;
  in[2] = 0xFFFFFFFFu;
  in[34] = 1;  // corner cases
  const Out o = run_kernel(kernel(body), in, cases.size() * 32);
  for (std::size_t k = 0; k < cases.size(); ++k)
    for (int l = 0; l < 32; ++l)
      ASSERT_EQ(o.out[k * 32 + l], cases[k].expect(in[l], in[32 + l]))
          << cases[k].ptx << " lane " << l << " a=" << in[l] << " b=" << in[32 + l];
}

// ---------------------------------------------------------------------------------------------
// f16 arithmetic against the independent oracle; e4m3 conversions against NVIDIA's host code.

TEST(PtxF16, PackedAndScalarOpsMatchOracle) {
  const char* ops[] = {"add.rn.f16x2", "sub.rn.f16x2", "mul.rn.f16x2", "fma.rn.f16x2", "add.f16",  "mul.f16",
                       "fma.rn.f16",   "max.f16x2",    "min.f16x2",    "neg.f16x2",    "abs.f16x2"};
  std::string body =
      "  ld.global.u32 %r1, [%rd5];\n  ld.global.u32 %r2, [%rd5+1024];\n  ld.global.u32 %r4, [%rd5+2048];\n"
      "  mov.b32 {%rs1, %rs2}, %r1;\n  mov.b32 {%rs3, %rs4}, %r2;\n  mov.b32 {%rs5, %rs6}, %r4;\n";
  for (int k = 0; k < 11; ++k) {
    const std::string op = ops[k];
    if (op == "add.f16" || op == "mul.f16")
      body += "  " + op + " %rs7, %rs1, %rs3;\n  mov.b32 %r3, {%rs7, %rs7};\n";
    else if (op == "fma.rn.f16")
      body += "  " + op + " %rs7, %rs1, %rs3, %rs5;\n  mov.b32 %r3, {%rs7, %rs7};\n";
    else if (op == "fma.rn.f16x2")
      body += "  " + op + " %r3, %r1, %r2, %r4;\n";
    else if (op == "neg.f16x2" || op == "abs.f16x2")
      body += "  " + op + " %r3, %r1;\n";
    else
      body += "  " + op + " %r3, %r1, %r2;\n";
    body += "  st.global.u32 [%rd4+" + std::to_string(k * 1024) + "], %r3;\n";
  }
  const int kBlocks = 8;  // 256 threads: 256 random operand triples
  auto in = random_words(3 * 256, 11);
  in[0] = 0x7BFF7BFF;
  in[256] = 0x3C013C01;  // overflow to Inf
  in[1] = 0x00010001;
  in[257] = 0x38003800;  // subnormal * 0.5 (tie)
  in[2] = 0x7E007C00;
  in[258] = 0xFC003C00;  // NaN and Inf - Inf
  const Out o = run_kernel(kernel(body), in, 11 * 256, {kBlocks, 1, 1});
  using namespace rrswin;
  for (int t = 0; t < 256; ++t) {
    const std::uint32_t a = in[t], b = in[256 + t], c = in[512 + t];
    auto halves = [&](auto f) -> std::uint32_t {
      return static_cast<std::uint32_t>(f(f16x2_lo(a), f16x2_lo(b), f16x2_lo(c))) |
             (static_cast<std::uint32_t>(f(f16x2_hi(a), f16x2_hi(b), f16x2_hi(c))) << 16);
    };
    // The oracle rounds finite values; Inf/NaN operands go to src/numerics' definition.
    auto fin = [](f16_t h) { return (h & 0x7C00) != 0x7C00; };
    auto H = [&](auto orc, auto num) {
      return [=](f16_t x, f16_t y, f16_t z) -> f16_t { return (fin(x) && fin(y) && fin(z)) ? orc(x, y, z) : num(x, y, z); };
    };
    const auto add = H([](f16_t x, f16_t y, f16_t) { return oracle::add(x, y); }, [](f16_t x, f16_t y, f16_t) { return f16_add(x, y); });
    const auto sub = H([](f16_t x, f16_t y, f16_t) { return oracle::sub(x, y); }, [](f16_t x, f16_t y, f16_t) { return f16_sub(x, y); });
    const auto mul = H([](f16_t x, f16_t y, f16_t) { return oracle::mul(x, y); }, [](f16_t x, f16_t y, f16_t) { return f16_mul(x, y); });
    const auto fma =
        H([](f16_t x, f16_t y, f16_t z) { return oracle::fma(x, y, z); }, [](f16_t x, f16_t y, f16_t z) { return f16_fma(x, y, z); });
    const f16_t alo = f16x2_lo(a), blo = f16x2_lo(b), clo = f16x2_lo(c);
    EXPECT_EQ(o.out[0 * 256 + t], halves(add)) << t;
    EXPECT_EQ(o.out[1 * 256 + t], halves(sub)) << t;
    EXPECT_EQ(o.out[2 * 256 + t], halves(mul)) << t;
    EXPECT_EQ(o.out[3 * 256 + t], halves(fma)) << t;
    EXPECT_EQ(o.out[4 * 256 + t], add(alo, blo, 0) * 0x10001u) << t;
    EXPECT_EQ(o.out[5 * 256 + t], mul(alo, blo, 0) * 0x10001u) << t;
    EXPECT_EQ(o.out[6 * 256 + t], fma(alo, blo, clo) * 0x10001u) << t;
    EXPECT_EQ(o.out[7 * 256 + t], f16x2_max(a, b)) << t;
    EXPECT_EQ(o.out[8 * 256 + t], f16x2_min(a, b)) << t;
    EXPECT_EQ(o.out[9 * 256 + t], a ^ 0x80008000u) << t;
    EXPECT_EQ(o.out[10 * 256 + t], a & 0x7FFF7FFFu) << t;
  }
  EXPECT_EQ(o.out[2 * 256] & 0xFFFF, 0x7C00u);  // 65504 * 1.000977 -> Inf
}

TEST(PtxCvt, E4m3BothDirectionsAndF16Conversions) {
  // cvt.rn.satfinite.e4m3x2.f16x2 over all 65536 low halves (high half varied), both profiles.
  const std::string body =
      "  ld.global.u32 %r1, [%rd5];\n"
      "  cvt.rn.satfinite.e4m3x2.f16x2 %rs1, %r1;\n  cvt.u32.u16 %r3, %rs1;\n  st.global.u32 [%rd4], %r3;\n"
      "  cvt.u16.u32 %rs2, %r1;\n  cvt.rn.f16x2.e4m3x2 %r4, %rs2;\n  st.global.u32 [%rd4+262144], %r4;\n"
      "  cvt.f32.f16 %f1, %rs2;\n  mov.b32 %r5, %f1;\n  st.global.u32 [%rd4+524288], %r5;\n"
      "  mov.b32 %f2, %r1;\n  cvt.rn.f16.f32 %rs3, %f2;\n  cvt.u32.u16 %r6, %rs3;\n  st.global.u32 [%rd4+786432], %r6;\n"
      "  cvt.f64.f32 %fd1, %f2;\n  mul.rn.f64 %fd2, %fd1, 0d3FF0000000000001;\n  cvt.rn.f16.f64 %rs4, %fd2;\n  cvt.u32.u16 %r7, %rs4;\n"
      "  st.global.u32 [%rd4+1048576], %r7;\n";
  std::vector<std::uint32_t> in(65536);
  std::mt19937 g(3);
  for (std::uint32_t i = 0; i < 65536; ++i) in[i] = i | (g() & 0xFFFF0000u);
  for (const rrswin::Profile* p : {&rrswin::profile_ada(), &rrswin::profile_zluda()}) {
    const Out o = run_kernel(kernel(body), in, 5 * 65536, {256, 1, 1}, {256, 1, 1}, p, nullptr, 2);
    for (std::uint32_t i = 0; i < 65536; ++i) {
      const std::uint32_t x = in[i];
      ASSERT_EQ(o.out[i], rrswin::cvt_e4m3x2_f16x2(x, *p)) << std::hex << x;
#if defined(RRSWIN_HAVE_CUDA_FP8_REF)
      if (p == &rrswin::profile_ada()) {
        ASSERT_EQ(o.out[i], rrswin::ref::nv_cvt_f16x2_to_e4m3x2_satfinite(x)) << std::hex << x;
      }
      ASSERT_EQ(o.out[65536 + i], rrswin::ref::nv_cvt_e4m3x2_to_f16x2(static_cast<std::uint16_t>(x))) << std::hex << x;
#endif
      ASSERT_EQ(o.out[65536 + i], rrswin::cvt_f16x2_e4m3x2(static_cast<std::uint16_t>(x)));
      // cvt.f32.f16 is exact: compare with the oracle's decoded value.
      const std::uint16_t h = static_cast<std::uint16_t>(x);
      if ((h & 0x7C00) != 0x7C00) {
        const double want = (h & 0x8000 ? -1 : 1) * rrswin::oracle::f16_value(h & 0x7FFF);
        ASSERT_EQ(std::bit_cast<float>(o.out[2 * 65536 + i]), static_cast<float>(want)) << std::hex << h;
      }
      const float f = std::bit_cast<float>(x);
      if (std::isfinite(f) && std::fabs(f) < 1e30f) {
        ASSERT_EQ(o.out[3 * 65536 + i], rrswin::oracle::round_double(static_cast<double>(f))) << std::hex << x;
        ASSERT_EQ(o.out[4 * 65536 + i], rrswin::oracle::round_double(static_cast<double>(f) * std::bit_cast<double>(0x3FF0000000000001ull)))
            << std::hex << x;
      }
    }
  }
}

TEST(PtxCvt, FloatIntegerConversionsSaturate) {
  const std::string body =
      "  ld.global.f32 %f1, [%rd5];\n"
      "  cvt.rzi.s32.f32 %r3, %f1;\n  st.global.u32 [%rd4], %r3;\n"
      "  cvt.rni.u32.f32 %r3, %f1;\n  st.global.u32 [%rd4+128], %r3;\n"
      "  cvt.rmi.s32.f32 %r3, %f1;\n  st.global.u32 [%rd4+256], %r3;\n"
      "  cvt.rn.f32.s32 %f2, %r0;\n  mul.rn.f32 %f3, %f2, 0f3F000000;\n  mov.b32 %r3, %f3;\n  st.global.u32 [%rd4+384], %r3;\n"
      "  cvt.rpi.f32.f32 %f4, %f1;\n  mov.b32 %r3, %f4;\n  st.global.u32 [%rd4+512], %r3;\n";
  const float vals[8] = {1.5f, -1.5f, 2.5f, 3e9f, -3e9f, NAN, -0.7f, 1e-3f};
  std::vector<std::uint32_t> in(32);
  for (int i = 0; i < 32; ++i) in[i] = std::bit_cast<std::uint32_t>(vals[i % 8] * (i < 8 ? 1.0f : static_cast<float>(i)));
  const Out o = run_kernel(kernel(body), in, 5 * 32);
  for (int i = 0; i < 32; ++i) {
    const double v = std::bit_cast<float>(in[i]);
    auto sat_s = [](double x) -> std::uint32_t {
      if (std::isnan(x)) return 0;
      if (x >= 2147483648.0) return 0x7FFFFFFF;
      if (x < -2147483648.0) return 0x80000000u;
      return static_cast<std::uint32_t>(static_cast<std::int32_t>(x));
    };
    auto sat_u = [](double x) -> std::uint32_t {
      if (std::isnan(x) || x <= 0) return 0;
      if (x >= 4294967296.0) return 0xFFFFFFFFu;
      return static_cast<std::uint32_t>(x);
    };
    EXPECT_EQ(o.out[i], sat_s(std::trunc(v))) << v;
    EXPECT_EQ(o.out[32 + i], sat_u(std::nearbyint(v))) << v;
    EXPECT_EQ(o.out[64 + i], sat_s(std::floor(v))) << v;
    EXPECT_EQ(std::bit_cast<float>(o.out[96 + i]), static_cast<float>(i) * 0.5f);
    if (!std::isnan(v)) {
      EXPECT_EQ(std::bit_cast<float>(o.out[128 + i]), std::ceil(static_cast<float>(v)));
    }
  }
}

TEST(PtxApprox, WrappedApproxOpsCallNumerics) {
  // The kernel's cvt.f32.f16 -> op.approx.ftz.f32 -> cvt.rn.f16.f32 wrappers, and ex2/div on f32.
  const std::string body =
      "  ld.global.u32 %r1, [%rd5];\n  ld.global.f32 %f5, [%rd5+4096];\n  mov.b32 {%rs1, %rs2}, %r1;\n"
      "  cvt.f32.f16 %f1, %rs1;\n  rcp.approx.ftz.f32 %f2, %f1;\n  cvt.rn.f16.f32 %rs3, %f2;\n"
      "  rsqrt.approx.ftz.f32 %f3, %f1;\n  cvt.rn.f16.f32 %rs4, %f3;\n  mov.b32 %r3, {%rs3, %rs4};\n  st.global.u32 [%rd4], %r3;\n"
      "  ex2.approx.ftz.f32 %f4, %f5;\n  mov.b32 %r3, %f4;\n  st.global.u32 [%rd4+4096], %r3;\n"
      "  div.approx.ftz.f32 %f6, %f5, %f1;\n  mov.b32 %r3, %f6;\n  st.global.u32 [%rd4+8192], %r3;\n"
      "  mul.ftz.f32 %f7, %f5, %f1;\n  add.ftz.f32 %f8, %f7, %f5;\n  mov.b32 %r3, %f8;\n  st.global.u32 [%rd4+12288], %r3;\n";
  std::vector<std::uint32_t> in(2048);
  std::mt19937 g(5);
  for (int i = 0; i < 1024; ++i) {
    in[i] = (g() & 0x7FFF) | 0x3C000000u;
    in[1024 + i] = std::bit_cast<std::uint32_t>(std::ldexp(static_cast<float>(g() % 20000) / 1000.0f - 10.0f, static_cast<int>(g() % 3)));
  }
  const Out o = run_kernel(kernel(body), in, 4 * 1024, {4, 1, 1}, {256, 1, 1});
  using namespace rrswin;
  for (int i = 0; i < 1024; ++i) {
    const f16_t h = static_cast<f16_t>(in[i]);
    const float x = f16_to_f32(h), y = std::bit_cast<float>(in[1024 + i]);
    EXPECT_EQ(o.out[i], f16x2_pack(rcp_f16(h), rsqrt_f16(h))) << i;
    EXPECT_EQ(o.out[1024 + i], std::bit_cast<std::uint32_t>(ex2_approx_ftz_f32(y))) << i;
    EXPECT_EQ(o.out[2048 + i], std::bit_cast<std::uint32_t>(div_approx_ftz_f32(y, x))) << i;
    EXPECT_EQ(o.out[3072 + i], std::bit_cast<std::uint32_t>(add_ftz_f32(mul_ftz_f32(y, x), y))) << i;
  }
}

// PtxFloat.F32AndF64IeeeOps moved to ptx_conformance_test.cpp (PtxConformance.F32F64*), with MPFR
// as its oracle (issue 19: it compared with the host expression it was meant to check, and its
// max ignored -0 < +0).

// ---------------------------------------------------------------------------------------------
// Warp collectives and the seed's inline-asm instructions.

const char* kMmaBody =
    "  mul.wide.u32 %rd6, %r0, 32;\n  add.s64 %rd7, %rd2, %rd6;\n  mul.wide.u32 %rd8, %r51, 1024;\n  add.s64 %rd7, %rd7, %rd8;\n"
    "  ld.weak.global.ca.v4.u32 {%r1, %r2, %r3, %r4}, [%rd7];\n  ld.weak.global.ca.v4.u32 {%r5, %r6, %r7, %r8}, [%rd7+16];\n"
    "  mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16\n    {%r10, %r11},\n    {%r1, %r2, %r3, %r4},\n    {%r5, %r6},\n    {%r7, %r8};\n"
    "  mul.wide.u32 %rd9, %r50, 8;\n  add.s64 %rd10, %rd1, %rd9;\n  st.global.v2.u32 [%rd10], {%r10, %r11};\n";

TEST(PtxCollective, MmaFragmentsMatchNumericsBothProfiles) {
  const int n = 16;
  std::vector<std::uint32_t> in(static_cast<std::size_t>(n) * 256);
  std::mt19937 g(21);
  for (auto& w : in) {
    // e4m3 bytes avoiding NaN codes; C halves moderate f16 values.
    std::uint32_t x = 0;
    for (int k = 0; k < 4; ++k) {
      std::uint32_t byte = g() & 0xFF;
      if ((byte & 0x7F) == 0x7F) byte = 0x3F;
      x |= byte << (8 * k);
    }
    w = x;
  }
  for (int c = 0; c < n; ++c)
    for (int l = 0; l < 32; ++l)
      for (int k = 6; k < 8; ++k)
        in[static_cast<std::size_t>(c) * 256 + l * 8 + k] = ((g() & 0x3FF) | 0x3000) | (((g() & 0x3FF) | 0xB400) << 16);
  for (const rrswin::Profile* p : {&rrswin::profile_ada(), &rrswin::profile_zluda()}) {
    const Out o = run_kernel(kernel(kMmaBody), in, static_cast<std::size_t>(n) * 64, {static_cast<std::uint32_t>(n), 1, 1}, {32, 1, 1}, p);
    EXPECT_EQ(o.st.mma, static_cast<std::uint64_t>(n));
    for (int c = 0; c < n; ++c) {
      rrswin::MmaFragA fa;
      rrswin::MmaFragB fb;
      rrswin::MmaFragC fc;
      for (int l = 0; l < 32; ++l) {
        const std::uint32_t* w = &in[static_cast<std::size_t>(c) * 256 + l * 8];
        for (int k = 0; k < 4; ++k) fa.reg[l][k] = w[k];
        fb.reg[l] = {w[4], w[5]};
        fc.reg[l] = {w[6], w[7]};
      }
      const rrswin::MmaFragC want = rrswin::mma_m16n8k32(*p, fa, fb, fc);
      for (int l = 0; l < 32; ++l)
        for (int k = 0; k < 2; ++k)
          ASSERT_EQ(o.out[static_cast<std::size_t>(c) * 64 + l * 2 + k], want.reg[l][k]) << p->name << " case " << c << " lane " << l;
    }
  }
}

TEST(PtxCollective, MmaReproducesAdaMeasurements) {
  std::vector<rrswin_test::AdaMmaCase> cases;
  std::string why;
  if (!rrswin_test::load_ada_mma_cases(cases, why)) RRSWIN_SKIP_UNLESS_CI() << why;
  if (std::getenv("RRSWIN_TEST_SCALE") && std::string(std::getenv("RRSWIN_TEST_SCALE")) == "small")
    cases.resize(std::min<std::size_t>(cases.size(), 200));
  // A's row 0 and B's column 0 live in lanes 0..3 (g = 0): A reg0 = A[0][4t..], reg2 = A[0][16+4t..],
  // B reg0 = B[4t..][0], reg1 = B[16+4t..][0]; C/D element [0][0] is lane 0's reg0 low half.
  const std::size_t n = cases.size();
  std::vector<std::uint32_t> in(n * 256, 0);
  for (std::size_t c = 0; c < n; ++c)
    for (int t = 0; t < 4; ++t) {
      std::uint32_t* w = &in[c * 256 + static_cast<std::size_t>(t) * 8];
      auto pack = [](const std::uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24); };
      w[0] = pack(&cases[c].a[4 * t]);
      w[2] = pack(&cases[c].a[16 + 4 * t]);
      w[4] = pack(&cases[c].b[4 * t]);
      w[5] = pack(&cases[c].b[16 + 4 * t]);
      if (t == 0) w[6] = cases[c].c;
    }
  const Out o =
      run_kernel(kernel(kMmaBody), in, n * 64, {static_cast<std::uint32_t>(n), 1, 1}, {32, 1, 1}, &rrswin::profile_ada(), nullptr, 2);
  for (std::size_t c = 0; c < n; ++c) ASSERT_EQ(o.out[c * 64] & 0xFFFF, cases[c].d) << "measured case " << c;
}

TEST(PtxCollective, MovmatrixAndShuffles) {
  const std::string body =
      "  ld.global.u32 %r1, [%rd5];\n"
      "  movmatrix.sync.aligned.m8n8.trans.b16 %r3, %r1;\n  st.global.u32 [%rd4], %r3;\n"
      "  shfl.sync.bfly.b32 %r3, %r1, 5, 31, -1;\n  st.global.u32 [%rd4+128], %r3;\n"
      "  shfl.sync.down.b32 %r3|%p1, %r1, 3, 31, -1;\n  st.global.u32 [%rd4+256], %r3;\n  selp.u32 %r4, 1, 0, %p1;\n  st.global.u32 [%rd4+384], %r4;\n"
      "  shfl.sync.up.b32 %r3, %r1, 2, 0, -1;\n  st.global.u32 [%rd4+512], %r3;\n"
      "  add.s32 %r5, %r0, 3;\n  and.b32 %r5, %r5, 7;\n  shfl.sync.idx.b32 %r3, %r1, %r5, 0x181f, 0xffffffff;\n  st.global.u32 [%rd4+640], %r3;\n"
      "  setp.lt.u32 %p2, %r0, 20;\n  vote.sync.ballot.b32 %r3, %p2, -1;\n  st.global.u32 [%rd4+768], %r3;\n"
      "  movmatrix.sync.trans.aligned.m8n8.b16 %r3, %r1;\n  st.global.u32 [%rd4+896], %r3;\n";
  auto in = random_words(32, 13);
  const Out o = run_kernel(kernel(body), in, 8 * 32);
  rrswin::WarpReg a;
  for (int l = 0; l < 32; ++l) a[l] = in[l];
  const rrswin::WarpReg mt = rrswin::movmatrix_trans(a), bf = rrswin::shfl_bfly(a, 5);
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(o.out[l], mt[l]);
    EXPECT_EQ(o.out[224 + l], mt[l]);
    // Hand formula: lane L gets M[2(L%4)][L/4] (low) and M[2(L%4)+1][L/4] (high); M[r][c] is in
    // lane 4r + c/2, half c%2.
    auto el = [&](int r, int c) { return (in[4 * r + c / 2] >> (16 * (c % 2))) & 0xFFFF; };
    EXPECT_EQ(o.out[l], el(2 * (l % 4), l / 4) | (el(2 * (l % 4) + 1, l / 4) << 16));
    EXPECT_EQ(o.out[32 + l], bf[l]);
    EXPECT_EQ(o.out[32 + l], in[l ^ 5]);
    EXPECT_EQ(o.out[64 + l], l + 3 < 32 ? in[l + 3] : in[l]);
    EXPECT_EQ(o.out[96 + l], l + 3 < 32 ? 1u : 0u);
    EXPECT_EQ(o.out[128 + l], l >= 2 ? in[l - 2] : in[l]);
    EXPECT_EQ(o.out[160 + l], in[(l & 0x18) | ((l + 3) & 7)]);  // segments of 8 lanes (c = 0x181f)
    EXPECT_EQ(o.out[192 + l], 0x000FFFFFu);
  }
}

TEST(PtxTexture, TexFetchAndSurfaceStore) {
  rrswin::Texture tex;
  tex.width = 5;
  tex.height = 3;
  tex.mode = rrswin::AddressMode::clamp;
  for (int i = 0; i < 5 * 3 * 4; ++i) tex.rgba.push_back(static_cast<rrswin::f16_t>(0x3C00 + i));
  rrswin::Surface surf = rrswin::Surface::make(4, 2);
  Device dev;
  const std::uint64_t th = dev.bind_texture(&tex), sh = dev.bind_surface(&surf);
  // in[0..1] = handles; each lane fetches texel (lane%7 - 1, lane/7 - 1) (clamped) and stores it
  // to surface pixel (lane%4, lane/4) with x in bytes; lanes 8.. are out of bounds (dropped).
  const std::string body =
      "  ld.global.u64 %rd10, [%rd2];\n  ld.global.u64 %rd11, [%rd2+8];\n"
      "  rem.u32 %r1, %r0, 7;\n  sub.s32 %r1, %r1, 1;\n  div.u32 %r2, %r0, 7;\n  sub.s32 %r2, %r2, 1;\n"
      "  tex.base.2d.v4.f16.s32 {%rs1, %rs2, %rs3, %rs4}, [%rd10, {%r1, %r2}];\n"
      "  mov.b32 %r3, {%rs1, %rs2};\n  mov.b32 %r4, {%rs3, %rs4};\n  mul.wide.u32 %rd12, %r0, 8;\n  add.s64 %rd13, %rd1, %rd12;\n"
      "  st.global.v2.u32 [%rd13], {%r3, %r4};\n"
      "  rem.u32 %r5, %r0, 4;\n  shl.b32 %r5, %r5, 3;\n  div.u32 %r6, %r0, 4;\n"
      "  sust.b.2d.v4.b16.zero [%rd11, {%r5, %r6}], {%rs1, %rs2, %rs3, %rs4};\n";
  std::vector<std::uint32_t> in = {static_cast<std::uint32_t>(th), static_cast<std::uint32_t>(th >> 32), static_cast<std::uint32_t>(sh),
                                   static_cast<std::uint32_t>(sh >> 32)};
  const Out o = run_kernel(kernel(body), in, 64, {1, 1, 1}, {32, 1, 1}, nullptr, &dev);
  for (int l = 0; l < 32; ++l) {
    const auto t = tex.fetch(l % 7 - 1, l / 7 - 1);
    EXPECT_EQ(o.out[2 * l], t[0] | (static_cast<std::uint32_t>(t[1]) << 16)) << l;
    EXPECT_EQ(o.out[2 * l + 1], t[2] | (static_cast<std::uint32_t>(t[3]) << 16)) << l;
    const int px = l % 4, py = l / 4;
    if (py < 2)
      for (int c = 0; c < 4; ++c) {
        const std::uint8_t* p = surf.bytes.data() + py * surf.pitch + px * 8 + 2 * c;
        EXPECT_EQ(p[0] | (p[1] << 8), t[c]) << l;
      }
  }
}

// ---------------------------------------------------------------------------------------------
// Memory: vector loads, shared memory, param space, module variables.

TEST(PtxMemory, VectorSharedParamAndModuleVariables) {
  const std::string decls =
      ".global .align 4 .u32 gtab[4] = {10, 20, 30, 40};\n.const .align 4 .b32 ctab[2] = {0f3F800000, 7};\n.shared .align 16 .b8 smem[1024];\n";
  const std::string body =
      "  mov.u32 %r10, smem;\n  shl.b32 %r11, %r0, 4;\n  add.s32 %r12, %r10, %r11;\n"
      "  add.s32 %r1, %r0, 1;\n  add.s32 %r2, %r0, 2;\n  add.s32 %r3, %r0, 3;\n  add.s32 %r4, %r0, 4;\n"
      "  st.shared.v4.u32 [%r12], {%r1, %r2, %r3, %r4};\n"
      "  ld.shared.v2.u32 {%r5, %r6}, [%r12+8];\n  add.s32 %r7, %r5, %r6;\n  st.global.u32 [%rd4], %r7;\n"
      "  and.b32 %r13, %r0, 3;\n  mul.wide.u32 %rd14, %r13, 4;\n  mov.u64 %rd15, gtab;\n  add.s64 %rd16, %rd15, %rd14;\n"
      "  ld.global.u32 %r8, [%rd16];\n  st.global.u32 [%rd4+128], %r8;\n  add.s32 %r8, %r8, 1;\n  st.global.u32 [%rd16], %r8;\n"
      "  ld.const.u32 %r9, [ctab+4];\n  st.global.u32 [%rd4+256], %r9;\n"
      "  ld.param.v2.u32 {%r14, %r15}, [pin];\n  st.global.u32 [%rd4+384], %r14;\n"
      "  cvt.u64.u32 %rd18, %r12;\n  cvta.shared.u64 %rd19, %rd18;\n  ld.u32 %r16, [%rd19+12];\n"
      "  st.global.u32 [%rd4+512], %r16;\n";
  const Out o = run_kernel(kernel(body, decls), random_words(32, 1), 5 * 32);
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(o.out[l], static_cast<std::uint32_t>(2 * l + 7));
    EXPECT_EQ(o.out[32 + l], static_cast<std::uint32_t>(10 * (l % 4 + 1)));
    EXPECT_EQ(o.out[64 + l], 7u);
    EXPECT_EQ(o.out[128 + l], static_cast<std::uint32_t>(l + 4));
  }
}

// ---------------------------------------------------------------------------------------------
// Control flow: divergence, loops, nesting, predication, barriers.

TEST(PtxControl, DivergentBranchesLoopsAndNesting) {
  // if (tid & 1) x = 3*tid else x = tid + 100;  then a loop summing 0..tid-1 (trip count per lane);
  // nested: if (tid < 16) { if (tid & 2) y = 1 else y = 2 } else { if (tid % 3 == 0) y = 3 else { y = 4 } }
  // then a full-warp shuffle (which needs the warp reconverged) and a predicated add.
  const std::string body = R"(
  and.b32 %r1, %r0, 1;
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra $EVEN;
  mul.lo.s32 %r2, %r0, 3;
  bra.uni $JOIN;
$EVEN:
  add.s32 %r2, %r0, 100;
$JOIN:
  st.global.u32 [%rd4], %r2;
  mov.u32 %r3, 0;
  mov.u32 %r4, 0;
$LOOP:
  setp.ge.u32 %p2, %r4, %r0;
  @%p2 bra $DONE;
  add.s32 %r3, %r3, %r4;
  add.s32 %r4, %r4, 1;
  bra.uni $LOOP;
$DONE:
  st.global.u32 [%rd4+128], %r3;
  setp.lt.u32 %p3, %r0, 16;
  @!%p3 bra $HIGH;
  and.b32 %r5, %r0, 2;
  setp.ne.s32 %p4, %r5, 0;
  @%p4 bra $A1;
  mov.u32 %r6, 2;
  bra.uni $N1;
$A1:
  mov.u32 %r6, 1;
$N1:
  bra.uni $END;
$HIGH:
  rem.u32 %r7, %r0, 3;
  setp.eq.s32 %p5, %r7, 0;
  @%p5 bra $B1;
  {
  .reg .b32 %t;
  mov.u32 %t, 4;
  mov.u32 %r6, %t;
  }
  bra.uni $END;
$B1:
  mov.u32 %r6, 3;
$END:
  shfl.sync.bfly.b32 %r8, %r6, 1, 31, -1;
  st.global.u32 [%rd4+256], %r6;
  st.global.u32 [%rd4+384], %r8;
  setp.gt.u32 %p6, %r0, 10;
  mov.u32 %r9, 1000;
  @%p6 add.s32 %r9, %r9, %r0;
  @!%p6 sub.s32 %r9, %r9, %r0;
  st.global.u32 [%rd4+512], %r9;
)";
  const Out o = run_kernel(kernel(body), {}, 5 * 32);
  auto y = [](int t) { return t < 16 ? ((t & 2) ? 1u : 2u) : (t % 3 == 0 ? 3u : 4u); };
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(o.out[t], (t & 1) ? 3u * t : t + 100u);
    EXPECT_EQ(o.out[32 + t], static_cast<std::uint32_t>(t * (t - 1) / 2));
    EXPECT_EQ(o.out[64 + t], y(t));
    EXPECT_EQ(o.out[96 + t], y(t ^ 1));
    EXPECT_EQ(o.out[128 + t], t > 10 ? 1000u + t : 1000u - t);
  }
}

TEST(PtxControl, DivergentLoopExitReconvergesBeforeMma) {
  // A loop whose exit diverges (lane-dependent trip count, break from the middle), then a mma that
  // needs all 32 lanes: it only runs if the SIMT stack reconverged the warp.
  const std::string body = R"(
  mov.u32 %r3, 0;
  mov.u32 %r4, 0;
$LOOP:
  add.s32 %r4, %r4, 1;
  and.b32 %r5, %r0, 7;
  setp.gt.u32 %p1, %r4, %r5;
  @%p1 bra $OUT;
  add.s32 %r3, %r3, 2;
  setp.lt.u32 %p2, %r4, 100;
  @%p2 bra $LOOP;
$OUT:
  mov.u32 %r10, 0;
  mov.u32 %r11, 0;
  mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%r12, %r13}, {%r10, %r10, %r10, %r10}, {%r10, %r10}, {%r3, %r3};
  st.global.u32 [%rd4], %r12;
)";
  const Out o = run_kernel(kernel(body), {}, 32);
  for (int t = 0; t < 32; ++t) {
    // A = B = 0: D = C; C register = 2*(t&7) as raw f16x2 bits of lane t; D element (g, 2t'..) is
    // C's same element, so lane t's D reg0 equals its C reg0.
    EXPECT_EQ(o.out[t], static_cast<std::uint32_t>(2 * (t & 7)));
  }
}

TEST(PtxControl, BarrierExchangesSharedDataBetweenWarps) {
  const std::string decls = ".shared .align 4 .b8 xchg[512];\n";
  const std::string body = R"(
  mov.u32 %r10, xchg;
  shl.b32 %r11, %r0, 2;
  add.s32 %r12, %r10, %r11;
  mul.lo.s32 %r1, %r0, 7;
  st.shared.u32 [%r12], %r1;
  bar.sync 0;
  add.s32 %r2, %r0, 32;
  rem.u32 %r2, %r2, 128;
  shl.b32 %r2, %r2, 2;
  add.s32 %r2, %r10, %r2;
  ld.shared.u32 %r3, [%r2];
  bar.sync 0;
  st.shared.u32 [%r12], %r0;
  barrier.sync 0, 128;
  ld.shared.u32 %r4, [%r2];
  add.s32 %r3, %r3, %r4;
  st.global.u32 [%rd4], %r3;
)";
  const Out o = run_kernel(kernel(body, decls), {}, 128 * 2, {2, 1, 1}, {128, 1, 1}, nullptr, nullptr, 2);
  for (int c = 0; c < 2; ++c)
    for (int t = 0; t < 128; ++t) EXPECT_EQ(o.out[c * 128 + t], static_cast<std::uint32_t>(((t + 32) % 128) * 8)) << t;
}

TEST(PtxControl, ThreeDimensionalBlockSpecialRegistersAndExit) {
  // Block (32,1,8) as enc5's: %tid.z is the warp; lanes >= 16 of odd warps exit early.
  const std::string body = R"(
  mov.u32 %r1, %tid.z;
  mov.u32 %r2, %laneid;
  mov.u32 %r3, %warpid;
  mov.u32 %r4, %ctaid.y;
  mov.u32 %r5, %nctaid.y;
  mad.lo.s32 %r6, %r1, 32, %r2;
  mul.wide.u32 %rd6, %r6, 4;
  mad.lo.s32 %r7, %r4, 256, 0;
  mul.wide.u32 %rd8, %r7, 4;
  add.s64 %rd7, %rd1, %rd6;
  add.s64 %rd7, %rd7, %rd8;
  and.b32 %r8, %r1, 1;
  setp.ne.s32 %p1, %r8, 0;
  setp.ge.u32 %p2, %r2, 16;
  and.pred %p3, %p1, %p2;
  @%p3 exit;
  mad.lo.s32 %r9, %r3, 1000, %r5;
  shfl.sync.idx.b32 %r9, %r9, 0, 31, %r20;
  st.global.u32 [%rd7], %r9;
)";
  // %r20 = the membermask of the lanes still alive: all lanes on even warps, 0xFFFF on odd ones.
  std::string b2 = body;
  b2.replace(b2.find("  mad.lo.s32 %r9"), 0, "  selp.u32 %r20, 0xFFFF, 0xFFFFFFFF, %p1;\n");
  const Out o = run_kernel(kernel(b2), {}, 256 * 2, {1, 2, 1}, {32, 1, 8});
  for (int cy = 0; cy < 2; ++cy)
    for (int z = 0; z < 8; ++z)
      for (int l = 0; l < 32; ++l) {
        const std::uint32_t got = o.out[cy * 256 + z * 32 + l];
        if ((z & 1) && l >= 16)
          EXPECT_EQ(got, 0xDEADBEEFu);
        else
          EXPECT_EQ(got, static_cast<std::uint32_t>(z * 1000 + 2));
      }
}

TEST(PtxControl, OutputIsIndependentOfThreadCount) {
  const std::string body = "  mul.lo.s32 %r1, %r50, 2654435761;\n  xor.b32 %r1, %r1, %r51;\n  st.global.u32 [%rd4], %r1;\n";
  const Out a = run_kernel(kernel(body), {}, 64 * 64, {64, 1, 1}, {64, 1, 1}, nullptr, nullptr, 1);
  const Out b = run_kernel(kernel(body), {}, 64 * 64, {64, 1, 1}, {64, 1, 1}, nullptr, nullptr, 3);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.st.lane_instructions, b.st.lane_instructions);
  EXPECT_EQ(a.st.lane_instructions, 64u * 64u * 15u);  // 11 prelude + 3 body + ret, per thread
}

// bar.red (PTX ISA; what __syncthreads_count/_and/_or compile to): the CTA waits, then every
// thread gets the reduction of its predicate over the CTA's threads; exited warps do not take part.
TEST(PtxControl, BarRedPopcAndOrOverTheCta) {
  const std::string body_tail =
      "  rem.u32 %r1, %r0, 3;\n  setp.eq.u32 %p1, %r1, 0;\n"
      "  bar.red.popc.u32 %r2, 0, %p1;\n  bar.red.and.pred %p2, 0, %p1;\n"
      "  setp.lt.u32 %p3, %r0, 1000;\n  barrier.red.and.pred %p4, 0, %p3;\n  bar.cta.red.or.pred %p6, 0, !%p3;\n"
      "  bar.red.or.pred %p7, 0, %p1;\n"
      "  selp.u32 %r3, 0x10000, 0, %p2;\n  selp.u32 %r4, 0x20000, 0, %p4;\n  selp.u32 %r5, 0x40000, 0, %p6;\n  selp.u32 %r6, 0x80000, 0, %p7;\n"
      "  or.b32 %r2, %r2, %r3;\n  or.b32 %r2, %r2, %r4;\n  or.b32 %r2, %r2, %r5;\n  or.b32 %r2, %r2, %r6;\n  st.global.u32 [%rd4], %r2;\n";
  for (int exit_last_warp = 0; exit_last_warp < 2; ++exit_last_warp) {
    const std::string body = (exit_last_warp ? "  setp.ge.u32 %p5, %r0, 96;\n  @%p5 exit;\n" : "") + body_tail;
    const Out o = run_kernel(kernel(body), {}, 2 * 128, {2, 1, 1}, {128, 1, 1}, nullptr, nullptr, 1);
    const int n = exit_last_warp ? 96 : 128;
    int count = 0;
    for (int t = 0; t < n; ++t) count += t % 3 == 0;
    for (int t = 0; t < 256; ++t) {
      if (t % 128 >= n) {
        EXPECT_EQ(o.out[t], 0xDEADBEEFu) << t;
        continue;
      }
      EXPECT_EQ(o.out[t], static_cast<std::uint32_t>(count) | 0x20000u | 0x80000u) << t;  // and(c) false, and(true), or(false) false, or(c)
    }
  }
  // A barrier that one warp reaches with bar.red and the others with bar.sync is an error.
  const std::string mixed =
      "  setp.lt.u32 %p1, %r0, 32;\n  @!%p1 bra PLAIN;\n  bar.red.popc.u32 %r2, 0, %p1;\n  bra DONE;\nPLAIN:\n  bar.sync 0;\nDONE:\n  st.global.u32 [%rd4], %r2;\n";
  try {
    run_kernel(kernel(mixed), {}, 64, {1, 1, 1}, {64, 1, 1});
    ADD_FAILURE() << "no error";
  } catch (const PtxError& e) {
    EXPECT_NE(std::string(e.what()).find("meet at one barrier"), std::string::npos) << e.what();
  }
}

// Barriers with a thread count (PTX ISA bar.sync a, b / bar.arrive a, b): warps 2 and 3 produce
// into shared memory and arrive at barrier 1 (128 threads); warps 0 and 1 wait there, then read
// what the producers wrote. A count that the other warps never reach is a deadlock error.
TEST(PtxControl, BarrierWithThreadCountAndArrive) {
  const std::string decls = ".shared .align 4 .b8 buf[512];\n";
  const std::string body =
      "  mov.u32 %r1, buf;\n  shr.u32 %r2, %r0, 5;\n  setp.lt.u32 %p1, %r2, 2;\n  @%p1 bra CONSUME;\n"
      "  sub.u32 %r3, %r0, 64;\n  shl.b32 %r4, %r3, 2;\n  add.u32 %r4, %r4, %r1;\n  mul.lo.u32 %r5, %r3, 7;\n  st.shared.u32 [%r4], %r5;\n"
      "  bar.arrive 1, 128;\n  mov.u32 %r6, 1;\n  bra DONE;\n"
      "CONSUME:\n  barrier.sync 1, 128;\n  shl.b32 %r4, %r0, 2;\n  add.u32 %r4, %r4, %r1;\n  ld.shared.u32 %r6, [%r4];\n"
      "DONE:\n  st.global.u32 [%rd4], %r6;\n";
  const Out o = run_kernel(kernel(body, decls), {}, 128, {1, 1, 1}, {128, 1, 1});
  for (int t = 0; t < 128; ++t) EXPECT_EQ(o.out[t], t < 64 ? static_cast<std::uint32_t>(t * 7) : 1u) << t;
  // Two warps of four meet at bar.sync 2, 96: the third never comes.
  const std::string stuck =
      "  shr.u32 %r2, %r0, 5;\n  setp.lt.u32 %p1, %r2, 2;\n  @!%p1 bra DONE;\n  bar.sync 2, 96;\nDONE:\n  st.global.u32 [%rd4], %r2;\n";
  try {
    run_kernel(kernel(stuck), {}, 128, {1, 1, 1}, {128, 1, 1});
    ADD_FAILURE() << "no error";
  } catch (const PtxError& e) {
    EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos) << e.what();
  }
  // A count that is no multiple of 32 is an error naming it.
  try {
    run_kernel(kernel("  bar.sync 1, 48;\n"), {}, 64, {1, 1, 1}, {64, 1, 1});
    ADD_FAILURE() << "no error";
  } catch (const PtxError& e) {
    EXPECT_NE(std::string(e.what()).find("thread count 48"), std::string::npos) << e.what();
  }
}

// A CTA zeroes only the registers some path reads before writing (Function::zero_init, cfg.cpp):
// CTA 1 runs on the same warps as CTA 0 (one thread) and must still read 0 where CTA 0 wrote.
TEST(PtxControl, RegistersReadBeforeWrittenStartAtZeroInEveryCta) {
  const std::string body =
      "  add.s64 %rd6, %rd4, 256;\n  add.s64 %rd7, %rd4, 512;\n"
      "  setp.eq.u32 %p1, %r51, 0;\n"
      "  @%p1 mov.u32 %r10, 77;\n"  // a guarded write: CTA 1 reads the zero
      "  st.global.u32 [%rd4], %r10;\n"
      "  mov.u32 %r12, 0;\n"
      "LOOP:\n  add.u32 %r11, %r11, 1;\n"  // read before its write, in a loop
      "  add.u32 %r12, %r12, 1;\n  setp.lt.u32 %p2, %r12, 3;\n  @%p2 bra LOOP;\n"
      "  st.global.u32 [%rd6], %r11;\n"
      "  @!%p1 bra SKIP;\n  mov.u32 %r13, 5;\n"  // written on one side of a branch only
      "SKIP:\n  st.global.u32 [%rd7], %r13;\n"
      "  mov.u32 %r14, 9;\n  st.global.u32 [%rd7+256], %r14;\n";
  const Out o = run_kernel(kernel(body), {}, 4 * 64, {2, 1, 1}, {32, 1, 1}, nullptr, nullptr, 1);
  for (int t = 0; t < 64; ++t) {
    const bool cta0 = t < 32;
    EXPECT_EQ(o.out[t], cta0 ? 77u : 0u) << t;
    EXPECT_EQ(o.out[64 + t], 3u) << t;
    EXPECT_EQ(o.out[128 + t], cta0 ? 5u : 0u) << t;
    EXPECT_EQ(o.out[192 + t], 9u) << t;
  }
  // The analysis itself: the four registers read before a write on some path are zeroed, the ones
  // written first on every path (%r12, %r14, the prelude's) are not.
  auto m = parse_module(kernel(body), "test.ptx");
  const Function& f = *m->find("k");
  ASSERT_TRUE(f.has_zero_init);
  auto zeroed = [&](const char* r) { return std::count(f.zero_init.begin(), f.zero_init.end(), f.regs[f.reg_by_name.at(r)].index) == 1; };
  for (const char* r : {"%r10", "%r11", "%r13"}) EXPECT_TRUE(zeroed(r)) << r;
  for (const char* r : {"%r12", "%r14", "%r0", "%r50", "%rd4", "%rd6"}) EXPECT_FALSE(zeroed(r)) << r;
}

// ---------------------------------------------------------------------------------------------
// Bad input: a clear error naming the line (and CTA, warp, lane at run time), never a crash.

TEST(PtxErrors, MalformedUnknownAndOutOfBounds) {
  EXPECT_TRUE(has(run_error(kernel("  add.s32 %r1, %r2, %r3\n")), "bad.ptx:")) << run_error(kernel("  add.s32 %r1, %r2, %r3\n"));
  EXPECT_TRUE(has(run_error(kernel("  frobnicate.b32 %r1, %r2;\n")), "unsupported instruction frobnicate.b32"));
  EXPECT_TRUE(has(run_error(kernel("  add.s32 %r1, %r2, %nosuch;\n")), "undeclared register or symbol %nosuch"));
  EXPECT_TRUE(has(run_error(kernel("  bra $NOWHERE;\n")), "undefined label $NOWHERE"));
  EXPECT_TRUE(has(run_error(kernel("  ex2.approx.f64 %fd1, %fd2;\n")), "no model in src/numerics"));
  EXPECT_TRUE(has(run_error(kernel("  add.rz.f16 %rs1, %rs2, %rs3;\n")), "rounding modifier"));
  EXPECT_TRUE(has(run_error("garbage"), "bad.ptx:1"));
  // Hostile nesting is an error, not a stack overflow.
  EXPECT_TRUE(has(run_error(kernel(std::string(5000, '{') + std::string(5000, '}'))), "nested deeper than the limit of"));
  EXPECT_TRUE(has(run_error(kernel("  mov.b32 %r1, " + std::string(5000, '{') + "%r2" + std::string(5000, '}') + ";\n")),
                  "nested deeper than the limit of"));
  EXPECT_TRUE(has(run_error(".global .u32 g[1] = " + std::string(5000, '{') + "1" + std::string(5000, '}') + ";\n"),
                  "nested deeper than the limit of"));
  EXPECT_TRUE(has(run_error(".version 8.0\n.visible .entry k(.param .u64 a) {\n  ret;\n"), "unterminated"));
  // Out-of-bounds global load: line, CTA, warp and lane.
  const std::string e1 = run_error(kernel("  ld.global.u32 %r1, [%rd5+256];\n"));
  EXPECT_TRUE(has(e1, "out-of-bounds global load")) << e1;
  EXPECT_TRUE(has(e1, "allocation 'in'")) << e1;
  EXPECT_TRUE(has(e1, "CTA (0,0,0), warp 0, lane 0")) << e1;
  EXPECT_TRUE(has(e1, "bad.ptx:" + std::to_string(line_of(kernel("  ld.global.u32 %r1, [%rd5+256];\n"), "ld.global.u32 %r1")) + ":")) << e1;
  const std::string e2 = run_error(kernel("  shl.b32 %r1, %r0, 4;\n  st.shared.u32 [%r1+480], %r0;\n", ".shared .align 4 .b8 s[512];\n"));
  EXPECT_TRUE(has(e2, "out-of-bounds shared store")) << e2;
  EXPECT_TRUE(has(e2, "lane 2")) << e2;
  const std::string e3 = run_error(kernel("  st.global.u32 [%rd5], %r0;\n"));
  EXPECT_TRUE(e3.empty()) << e3;  // `in` is writable in run_error
  const std::string e4 = run_error(kernel("  ld.global.u32 %r1, [%rd0];\n"));
  EXPECT_TRUE(has(e4, "no allocation there")) << e4;
  const std::string e5 = run_error(kernel("  ld.global.u32 %r1, [%rd5+2];\n"));
  EXPECT_TRUE(has(e5, "misaligned")) << e5;
}

TEST(PtxErrors, DivergentCollectivesMissingEntryEndlessLoop) {
  const std::string mma =
      "  setp.lt.u32 %p1, %r0, 8;\n  @%p1 bra $S;\n  mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%r1, %r2}, {%r3, %r3, %r3, %r3}, {%r3, %r3}, {%r3, %r3};\n$S:\n";
  const std::string e1 = run_error(kernel(mma));
  EXPECT_TRUE(has(e1, "not all active")) << e1;
  const std::string e2 = run_error(kernel("  setp.lt.u32 %p1, %r0, 8;\n  @%p1 shfl.sync.bfly.b32 %r1, %r0, 1, 31, -1;\n"));
  EXPECT_TRUE(has(e2, "are not the membermask")) << e2;
  const std::string e3 = run_error(kernel("  setp.lt.u32 %p1, %r0, 8;\n  @%p1 bra $S;\n  bar.sync 0;\n$S:\n"));
  EXPECT_TRUE(has(e3, "bar.sync on a divergent warp")) << e3;
  const std::string e4 = run_error(kernel("$L:\n  bra.uni $L;\n"), 32, {32, 1, 1}, 10000);
  EXPECT_TRUE(has(e4, "endless loop")) << e4;
  const std::string ext = "  {\n  .param .b64 a0;\n  st.param.b64 [a0], %rd1;\n  .param .b32 r0;\n  call.uni (r0), vprintf, (a0);\n  }\n";
  const std::string e5 = run_error(kernel(ext, ".extern .func (.param .b32 ret) vprintf (.param .b64 p0);\n"));
  EXPECT_TRUE(has(e5, "call of vprintf: it is declared but has no body (external functions are not supported)")) << e5;
  auto m = parse_module(kernel(""), "x.ptx");
  Device dev;
  std::uint8_t params[16] = {};
  try {
    run(*m, "nope", {1, 1, 1}, {32, 1, 1}, params, dev, {});
    FAIL();
  } catch (const PtxError& e) {
    EXPECT_TRUE(has(e.what(), "no entry named 'nope' (entries: k)")) << e.what();
  }
  try {
    run(*m, "k", {1, 1, 1}, {32, 1, 1}, std::span<const std::uint8_t>(params, 8), dev, {});
    FAIL();
  } catch (const PtxError& e) {
    EXPECT_TRUE(has(e.what(), "takes 16 parameter bytes, got 8")) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// The seed's statement numbering (rrswin_enc5_epilogues.md §0).

TEST(PtxStatements, NumberingRule) {
  // Declarations and labels are no statements; a braced block and a multi-line mma are one each,
  // numbered at their first line.
  const std::string ptx =
      ".version 8.0\n"                                                                  // 1
      ".target sm_89\n"                                                                 // 2
      ".address_size 64\n"                                                              // 3
      ".visible .entry k(.param .u64 pout, .param .u64 pin)\n"                          // 4
      "{\n"                                                                             // 5
      "  .reg .b32 %r<8>;\n"                                                            // 6
      "  .reg .pred %p<2>;\n"                                                           // 7
      "  mov.u32 %r1, %tid.x;\n"                                                        // 8  s1
      "$L1:\n"                                                                          // 9
      "  {\n"                                                                           // 10 s2
      "  .reg .b16 %t;\n"                                                               // 11
      "  mov.b32 {%t, _}, %r1;\n"                                                       // 12
      "  }\n"                                                                           // 13
      "  mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16\n"                         // 14 s3
      "    {%r2, %r3},\n    {%r1, %r1, %r1, %r1},\n    {%r1, %r1},\n    {%r1, %r1};\n"  // 15-18
      "  @%p1 bra $L1;\n"                                                               // 19 s4
      "  ret;\n"                                                                        // 20 s5
      "}\n";
  auto m = parse_module(ptx, "n.ptx");
  EXPECT_EQ(statement_line(*m, "k", 1), 8u);
  EXPECT_EQ(statement_line(*m, "k", 2), 10u);
  EXPECT_EQ(statement_line(*m, "k", 3), 14u);
  EXPECT_EQ(statement_line(*m, "k", 4), 19u);
  EXPECT_EQ(statement_line(*m, "k", 5), 20u);
  EXPECT_EQ(statement_line(*m, "k", 6), 0u);
  const EntryStats s = entry_stats(*m, "k");
  EXPECT_EQ(s.statements, 5u);
  EXPECT_EQ(s.mma, 1u);
  EXPECT_EQ(s.instructions, 5u);
  EXPECT_EQ(s.registers.at(".b32"), 8u);
  const BodyItem items[] = {{BodyItem::declaration, 6}, {BodyItem::instruction, 8}, {BodyItem::label, 9}, {BodyItem::block, 10}};
  EXPECT_EQ(number_statements(items), (std::vector<std::uint32_t>{8, 10}));
}

TEST(PtxTrace, RecordsRegistersPerWarpAndLane) {
  const std::string body = R"(
  mov.u32 %r3, 0;
$LOOP:
  add.s32 %r3, %r3, %r0;
  add.s32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, 40;
  @%p1 bra $LOOP;
  st.global.u32 [%rd4], %r3;
)";
  auto m = parse_module(kernel(body), "t.ptx");
  std::vector<std::uint32_t> out(64), in(64);
  Device dev;
  const std::uint64_t a = dev.add_global("out", {reinterpret_cast<std::uint8_t*>(out.data()), 256});
  const std::uint64_t b = dev.add_global("in", {reinterpret_cast<std::uint8_t*>(in.data()), 256});
  std::uint8_t params[16];
  std::memcpy(params, &a, 8);
  std::memcpy(params + 8, &b, 8);
  TraceSpec ts;
  ts.line = line_of(kernel(body), "add.s32 %r3, %r3, %r0");
  ts.registers = {"%r3", "%p1"};
  ts.cta = {1, 0, 0};
  TraceResult tr;
  RunOptions o;
  o.trace = &ts;
  o.trace_out = &tr;
  run(*m, "k", {2, 1, 1}, {32, 1, 1}, params, dev, o);
  ASSERT_FALSE(tr.events.empty());
  // The first event has %r3 = tid in every lane; lane L runs the loop until (L+1)*n >= 40.
  EXPECT_EQ(tr.events[0].active, 0xFFFFFFFFu);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(tr.events[0].values[0][l], static_cast<std::uint64_t>(l));
  EXPECT_EQ(tr.events.size(), 40u);  // lane 0 needs 40 trips, and the warp's events are one per trip
  EXPECT_EQ(tr.events.back().active, 1u);
  EXPECT_EQ(tr.line, ts.line);
  EXPECT_EQ(tr.widths, (std::vector<std::uint32_t>{32, 1}));
}

}  // namespace
