// The PTX interpreter's conformance suite (issue 20 §3): a table of small kernels, one or a few
// instructions each, run on edge values (0, -0, subnormals, NaN payloads, INT_MIN, shifts >= the
// width, carries) through the interpreter's launch API. Every expected value is computed here,
// independently of src/ptx and src/numerics: exact integer arithmetic (__int128 where it needs the
// room), and for floating point MPFR (tests/reference/mpfr_oracle.hpp). The PTX ISA manual is
// the specification each row cites.
#include <gtest/gtest.h>

#include "ci_skip.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "model/texture_surface.hpp"
#include "ptx/ptx.hpp"
#include "ptx_test_util.hpp"
#include "reference/f16_oracle.hpp"
#include "test_util.hpp"
#if defined(RRSWIN_HAVE_MPFR)
#include "reference/mpfr_oracle.hpp"
#endif

using namespace rrswin::ptx;

namespace {

using u64 = std::uint64_t;
using i64 = std::int64_t;

// One kernel per row: lane l reads a = in[l], b = in[32+l], c = in[64+l] (64-bit words) into
// %a, %b, %c (.b64), runs the row's body, and writes %d (.b64) to out[l]. The body has typed
// scratch registers: %x<8> .b32, %h<8> .b16, %y<8> .b64, %s<8> .s32, %u<8> .u32, %f<8> .f32,
// %g<8> .f64, %q<4> .pred.
std::string row_kernel(const std::string& body) {
  return ".version 8.0\n.target sm_89\n.address_size 64\n"
         ".visible .entry k(.param .u64 pout, .param .u64 pin)\n{\n"
         "  .reg .b64 %a, %b, %c, %d, %rd<8>;\n  .reg .b32 %x<8>, %tid;\n  .reg .b16 %h<8>;\n  .reg .b64 %y<8>;\n"
         "  .reg .s32 %s<8>;\n  .reg .u32 %u<8>;\n  .reg .f32 %f<8>;\n  .reg .f64 %g<8>;\n  .reg .pred %q<4>;\n"
         "  ld.param.u64 %rd1, [pout];\n  ld.param.u64 %rd2, [pin];\n  mov.u32 %tid, %tid.x;\n"
         "  mul.wide.u32 %rd3, %tid, 8;\n  add.s64 %rd4, %rd1, %rd3;\n  add.s64 %rd5, %rd2, %rd3;\n"
         "  ld.global.b64 %a, [%rd5];\n  ld.global.b64 %b, [%rd5+256];\n  ld.global.b64 %c, [%rd5+512];\n  mov.b64 %d, 0;\n" +
         body + "\n  st.global.b64 [%rd4], %d;\n  ret;\n}\n";
}

struct Inputs {
  u64 a = 0, b = 0, c = 0;
};

// Runs `body` on up to 32 input triples; returns %d per triple.
std::vector<u64> run_rows(const std::string& body, const std::vector<Inputs>& in, RunOptions opt = {}) {
  EXPECT_LE(in.size(), 32u);
  std::vector<u64> words(96, 0), out(32, 0xDEADBEEFDEADBEEFull);
  for (std::size_t l = 0; l < in.size(); ++l) {
    words[l] = in[l].a;
    words[32 + l] = in[l].b;
    words[64 + l] = in[l].c;
  }
  auto m = parse_module(row_kernel(body), "conformance.ptx");
  Device dev;
  const u64 a_out = dev.add_global("out", {reinterpret_cast<std::uint8_t*>(out.data()), out.size() * 8});
  const u64 a_in = dev.add_global_readonly("in", {reinterpret_cast<const std::uint8_t*>(words.data()), words.size() * 8});
  std::uint8_t params[16];
  std::memcpy(params, &a_out, 8);
  std::memcpy(params + 8, &a_in, 8);
  opt.threads = 1;
  run(*m, "k", {1, 1, 1}, {32, 1, 1}, params, dev, opt);
  out.resize(in.size());
  return out;
}

std::string decode_error(const std::string& body) {
  try {
    parse_module(row_kernel(body), "conformance.ptx");
  } catch (const PtxError& e) {
    return e.what();
  }
  return "";
}

struct Row {
  const char* what;  // the instruction and the ISA section it follows
  std::string body;
  std::vector<Inputs> inputs;
  std::function<u64(const Inputs&)> expect;
};

void check_rows(const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    SCOPED_TRACE(r.what);
    const std::vector<u64> got = run_rows(r.body, r.inputs);
    for (std::size_t k = 0; k < r.inputs.size(); ++k) {
      const Inputs& x = r.inputs[k];
      EXPECT_EQ(got[k], r.expect(x)) << std::hex << "a=0x" << x.a << " b=0x" << x.b << " c=0x" << x.c;
    }
  }
}

// Edge values of 32-bit integers.
const std::vector<u64> kEdge32 = {0,      1,          2,           0x7F,        0x80,        0xFF,        0x7FFF,      0x8000,
                                  0xFFFF, 0x7FFFFFFF, 0x80000000u, 0x80000001u, 0xFFFFFFFEu, 0xFFFFFFFFu, 0x12345678u, 0xDEADBEEFu};

std::vector<Inputs> pairs32() {
  std::vector<Inputs> v;
  const u64 sel[] = {0, 1, 0x7FFFFFFF, 0x80000000u, 0xFFFFFFFFu, 0x12345678u};
  for (u64 a : sel)
    for (u64 b : {u64{0}, u64{1}, u64{0x80000000u}, u64{0xFFFFFFFFu}, u64{0xDEADBEEFu}}) v.push_back({a, b, 0});
  v.resize(std::min<std::size_t>(v.size(), 32));
  return v;
}

i64 sx(u64 x, int w) { return w >= 64 ? static_cast<i64>(x) : static_cast<i64>(x << (64 - w)) >> (64 - w); }
u64 lo(u64 x, int w) { return w >= 64 ? x : x & ((1ull << w) - 1); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Operand size exceeding the instruction type (PTX ISA 9.4.1, Table 28): the result of ld and cvt
// is sign-extended to a wider destination register for signed types, zero-extended otherwise.

TEST(PtxConformance, CvtAndLdExtendToTheDestinationRegister) {
  std::vector<Inputs> bytes;
  for (u64 a : kEdge32) bytes.push_back({a, 0, 0});
  check_rows({
      // The issue-20 silent wrong result: cvt.s16.s8 into a .b32 register.
      {"cvt.s16.s8 into .b32", "cvt.u32.u64 %x0, %a;\n cvt.s16.s8 %x1, %x0;\n cvt.u64.u32 %d, %x1;", bytes,
       [](const Inputs& x) { return lo(static_cast<u64>(sx(x.a, 8)), 32); }},
      {"cvt.s16.s8 into .b64", "cvt.u32.u64 %x0, %a;\n cvt.s16.s8 %d, %x0;", bytes,
       [](const Inputs& x) { return static_cast<u64>(sx(x.a, 8)); }},
      {"cvt.s8.s32 into .s32", "cvt.u32.u64 %x0, %a;\n cvt.s8.s32 %s1, %x0;\n cvt.s64.s32 %d, %s1;", bytes,
       [](const Inputs& x) { return static_cast<u64>(sx(x.a, 8)); }},
      {"cvt.u16.s32 into .b32 zero-extends", "cvt.u32.u64 %x0, %a;\n cvt.u16.s32 %x1, %x0;\n cvt.u64.u32 %d, %x1;", bytes,
       [](const Inputs& x) { return lo(x.a, 16); }},
      {"cvt.s16.u32 into .b64", "cvt.u32.u64 %x0, %a;\n cvt.s16.u32 %d, %x0;", bytes,
       [](const Inputs& x) { return static_cast<u64>(sx(x.a, 16)); }},
      {"cvt.sat.s8.s32 into .b32", "cvt.u32.u64 %x0, %a;\n cvt.sat.s8.s32 %x1, %x0;\n cvt.u64.u32 %d, %x1;", bytes,
       [](const Inputs& x) {
         const i64 v = std::clamp<i64>(sx(x.a, 32), -128, 127);
         return lo(static_cast<u64>(v), 32);
       }},
      {"cvt.rzi.s16.f32 into .b32", "cvt.u32.u64 %x0, %a;\n cvt.rn.f32.s32 %f0, %x0;\n cvt.rzi.s16.f32 %x1, %f0;\n cvt.u64.u32 %d, %x1;",
       bytes,
       [](const Inputs& x) {
         const float f = static_cast<float>(static_cast<std::int32_t>(x.a));  // cvt.rn.f32.s32: IEEE round to nearest
         const double t = std::trunc(static_cast<double>(f));
         const i64 v = t < -32768 ? -32768 : t > 32767 ? 32767 : static_cast<i64>(t);
         return lo(static_cast<u64>(v), 32);
       }},
      {"ld.s8 into .b32", "cvt.u32.u64 %x0, %a;\n st.global.b8 [%rd4], %x0;\n ld.global.s8 %x1, [%rd4];\n cvt.u64.u32 %d, %x1;", bytes,
       [](const Inputs& x) { return lo(static_cast<u64>(sx(x.a, 8)), 32); }},
      {"ld.s16 into .b64", "cvt.u32.u64 %x0, %a;\n st.global.b16 [%rd4], %x0;\n ld.global.s16 %d, [%rd4];", bytes,
       [](const Inputs& x) { return static_cast<u64>(sx(x.a, 16)); }},
      {"ld.u8 into .b64", "cvt.u32.u64 %x0, %a;\n st.global.b8 [%rd4], %x0;\n ld.global.u8 %d, [%rd4];", bytes,
       [](const Inputs& x) { return lo(x.a, 8); }},
  });
}

// ---------------------------------------------------------------------------------------------
// The carry family (PTX ISA 9.7.2): CC.CF is the carry of a binary addition; a subtraction
// computes a + ~b + carry-in, so it leaves CF = not borrow (docs/readings.md "ptx-sub-carry").

TEST(PtxConformance, SubCcLeavesCarryEqualToNotBorrow) {
  // The issue-20 silent wrong result: addc d, 0, 0 after a borrowing sub.cc reads CF = 0.
  check_rows({
      {"sub.cc.u32 then addc.u32 d, 0, 0",
       "cvt.u32.u64 %x0, %a;\n cvt.u32.u64 %x1, %b;\n sub.cc.u32 %x2, %x0, %x1;\n addc.u32 %x3, 0, 0;\n cvt.u64.u32 %d, %x3;", pairs32(),
       [](const Inputs& x) { return u64{lo(x.a, 32) >= lo(x.b, 32)}; }},
      {"sub.cc.s64 then addc.u32", "sub.cc.s64 %y0, %a, %b;\n addc.u32 %x3, 0, 0;\n cvt.u64.u32 %d, %x3;", pairs32(),
       [](const Inputs& x) { return u64{x.a >= x.b}; }},
      {"add.cc.u32 then addc.u32",
       "cvt.u32.u64 %x0, %a;\n cvt.u32.u64 %x1, %b;\n add.cc.u32 %x2, %x0, %x1;\n addc.u32 %x3, 0, 0;\n cvt.u64.u32 %d, %x3;", pairs32(),
       [](const Inputs& x) { return (lo(x.a, 32) + lo(x.b, 32)) >> 32; }},
      {"add.cc.u32 then subc.u32 d, 5, 0",
       "cvt.u32.u64 %x0, %a;\n cvt.u32.u64 %x1, %b;\n add.cc.u32 %x2, %x0, %x1;\n subc.u32 %x3, 5, 0;\n cvt.u64.u32 %d, %x3;", pairs32(),
       [](const Inputs& x) { return 5 - (1 - ((lo(x.a, 32) + lo(x.b, 32)) >> 32)); }},
  });
}

TEST(PtxConformance, MultiWordAddSubAndMadChains) {
  std::vector<Inputs> in;
  for (u64 a : {u64{0}, u64{1}, u64{0xFFFFFFFFu}, u64{0x100000000ull}, u64{0xFFFFFFFFFFFFFFFFull}, u64{0x8000000000000000ull},
                u64{0x123456789ABCDEF0ull}})
    for (u64 b : {u64{0}, u64{1}, u64{0xFFFFFFFFu}, u64{0xFFFFFFFFFFFFFFFFull}}) in.push_back({a, b, 0});
  const std::string split = "mov.b64 {%x0, %x1}, %a;\n mov.b64 {%x2, %x3}, %b;\n";
  check_rows({
      {"64-bit add from add.cc/addc.cc/addc",
       split + "add.cc.u32 %x4, %x0, %x2;\n addc.cc.u32 %x5, %x1, %x3;\n addc.u32 %x6, 0, 0;\n"
               "mov.b64 %d, {%x4, %x5};",
       in, [](const Inputs& x) { return x.a + x.b; }},
      {"carry out of the 64-bit add",
       split + "add.cc.u32 %x4, %x0, %x2;\n addc.cc.u32 %x5, %x1, %x3;\n addc.u32 %x6, 0, 0;\n cvt.u64.u32 %d, %x6;", in,
       [](const Inputs& x) { return static_cast<u64>((static_cast<unsigned __int128>(x.a) + x.b) >> 64); }},
      {"64-bit sub from sub.cc/subc", split + "sub.cc.u32 %x4, %x0, %x2;\n subc.u32 %x5, %x1, %x3;\n mov.b64 %d, {%x4, %x5};", in,
       [](const Inputs& x) { return x.a - x.b; }},
      {"borrow out of subc.cc (as not-borrow)",
       split + "sub.cc.u32 %x4, %x0, %x2;\n subc.cc.u32 %x5, %x1, %x3;\n addc.u32 %x6, 0, 0;\n cvt.u64.u32 %d, %x6;", in,
       [](const Inputs& x) { return u64{x.a >= x.b}; }},
      // 32x32 -> 64 by limbs: lo word mad.lo, hi word madc.hi over a carry from mad.lo.cc.
      {"mad.lo.cc / madc.hi", split + "mad.lo.cc.u32 %x4, %x0, %x2, %x1;\n madc.hi.u32 %x5, %x0, %x2, %x3;\n mov.b64 %d, {%x4, %x5};", in,
       [](const Inputs& x) {
         const u64 a0 = lo(x.a, 32), b0 = lo(x.b, 32), c0 = x.a >> 32, c1 = x.b >> 32;
         const u64 p = a0 * b0;
         const u64 s = lo(p, 32) + c0;
         const u64 hi = lo((p >> 32) + c1 + (s >> 32), 32);
         return (hi << 32) | lo(s, 32);
       }},
      {"madc.lo.cc.u64 carry", "mad.lo.cc.u64 %y0, %a, %b, %c;\n madc.hi.cc.u64 %y1, %a, %b, %a;\n addc.u64 %d, 0, 0;", in,
       [](const Inputs& x) {
         const unsigned __int128 p = static_cast<unsigned __int128>(x.a) * x.b;
         const unsigned __int128 s0 = static_cast<unsigned __int128>(static_cast<u64>(p)) + x.c;
         const unsigned __int128 s1 = static_cast<unsigned __int128>(static_cast<u64>(p >> 64)) + x.a + static_cast<u64>(s0 >> 64);
         return static_cast<u64>(s1 >> 64);
       }},
      {"mad.hi.cc.s32 signed product",
       "cvt.u32.u64 %x0, %a;\n cvt.u32.u64 %x1, %b;\n mad.hi.cc.s32 %x2, %x0, %x1, %x0;\n addc.u32 %x3, 0, 0;\n"
       "mov.b64 %d, {%x2, %x3};",
       in,
       [](const Inputs& x) {
         const u64 hi = lo(static_cast<u64>((sx(x.a, 32) * sx(x.b, 32)) >> 32), 32);
         const u64 s = hi + lo(x.a, 32);
         return ((s >> 32) << 32) | lo(s, 32);
       }},
  });
}

// ---------------------------------------------------------------------------------------------
// What the interpreter does not model is an error naming the line, never a dropped modifier or a
// register of the wrong size (PTX ISA 9.4, Table 26; 9.4.1, Tables 27 and 28).

TEST(PtxConformance, UnmodelledModifiersAndMisfitOperandsAreErrors) {
  struct Bad {
    const char* body;
    const char* message;
  };
  const Bad bad[] = {
      {"fma.rn.relu.f32 %f0, %f1, %f2, %f3;", "fma.rn.relu.f32"},  // .relu is modelled on f16 only (ReluAndSatOnHalfResults)
      {"add.cc.f32 %f0, %f1, %f2;", "add.cc.f32"},
      {"add.rn.cc.f32 %f0, %f1, %f2;", "add.rn.cc.f32"},
      {"max.relu.s32 %s0, %s1, %s2;", "max.relu.s32"},
      {"mul.lo.uni.u32 %x0, %x1, %x2;", ".uni"},
      {"add.u32.sync %x0, %x1, %x2;", ".sync"},
      {"add.s32 %y0, %x1, %x2;", "%y0 is declared .b64"},
      {"add.s32 %x0, %y1, %x2;", "%y1 is declared .b64"},
      {"add.f32 %f0, %s1, %f2;", "%s1 is declared .s32"},
      {"add.s32 %s0, %f1, %s2;", "%f1 is declared .f32"},
      {"cvt.u32.u64 %x0, %x1;", "%x1 is declared .b32"},
      {"cvt.rn.f32.f64 %f0, %f1;", "%f1 is declared .f32"},
      {"ld.global.u64 %x0, [%rd4];", "%x0 is declared .b32"},
      {"mul.wide.u32 %x0, %x1, %x2;", "%x0 is declared .b32"},
      {"popc.b64 %y0, %a;", "%y0 is declared .b64"},
      {"mov.b64 %d, {%x0, %h1};", "%h1 is declared .b16"},
      {"add.cc.u16 %h0, %h1, %h2;", "add.cc.u16"},
  };
  for (const Bad& b : bad) {
    const std::string e = decode_error(b.body);
    EXPECT_NE(e.find(b.message), std::string::npos) << b.body << " -> '" << e << "'";
    EXPECT_NE(e.find("conformance.ptx:"), std::string::npos) << e;
  }
}

TEST(PtxConformance, SlctFtzAndGuardedTrap) {
  // slct.ftz flushes a subnormal c to a zero of its sign: -denormal compares >= 0 (PTX ISA 9.7.8.3).
  std::vector<Inputs> in = {{0x80000001u, 0, 0}, {0x00000001u, 0, 0}, {0xBF800000u, 0, 0}, {0x7FC00000u, 0, 0}, {0x80000000u, 0, 0}};
  check_rows({
      {"slct.ftz.s32.f32", "mov.b64 {%x0, %x1}, %a;\n slct.ftz.s32.f32 %s0, 1, 2, %x0;\n cvt.s64.s32 %d, %s0;", in,
       [](const Inputs& x) {
         const u64 c = x.a;
         const bool nan = (c & 0x7F800000u) == 0x7F800000u && (c & 0x7FFFFFu);
         const bool neg_normal = (c & 0x80000000u) && (c & 0x7F800000u);
         return u64{nan || neg_normal ? 2u : 1u};
       }},
      {"slct.s32.f32 without .ftz", "mov.b64 {%x0, %x1}, %a;\n slct.s32.f32 %s0, 1, 2, %x0;\n cvt.s64.s32 %d, %s0;", in,
       [](const Inputs& x) {
         const u64 c = x.a;
         const bool nan = (c & 0x7F800000u) == 0x7F800000u && (c & 0x7FFFFFu);
         const bool neg_nonzero = (c & 0x80000000u) && (c & 0x7FFFFFFFu);
         return u64{nan || neg_nonzero ? 2u : 1u};
       }},
      // issue 18: `@%q trap` traps only where %q holds.
      {"@%q0 trap with %q0 false", "setp.ne.u64 %q0, %a, %a;\n @%q0 trap;\n mov.b64 %d, 7;", in, [](const Inputs&) { return u64{7}; }},
  });
  try {
    run_rows("setp.eq.u64 %q0, %a, 0x00000001;\n @%q0 trap;", in);
    ADD_FAILURE() << "the guarded trap did not trap";
  } catch (const PtxError& e) {
    EXPECT_NE(std::string(e.what()).find("trap"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("lane 1"), std::string::npos) << e.what();
  }
}

// testp.op.f32 / .f64 (PTX ISA 9.7.3.3) through the interpreter: each kind on zeros, subnormals,
// normals, infinities and NaNs of both widths; the expected class by std::fpclassify.
TEST(PtxConformance, TestpEveryKindF32AndF64) {
  const u64 f32s[] = {0,           0x80000000u, 1,           0x807FFFFFu, 0x00800000u, 0x3F800000u,
                      0x7F7FFFFFu, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFF800001u};
  const u64 f64s[] = {0,
                      0x8000000000000000ull,
                      1,
                      0x800FFFFFFFFFFFFFull,
                      0x0010000000000000ull,
                      0x3FF0000000000000ull,
                      0x7FF0000000000000ull,
                      0xFFF0000000000000ull,
                      0x7FF8000000000000ull,
                      0x7FF0000000000001ull};
  std::vector<Inputs> in32, in64;
  for (u64 v : f32s) in32.push_back({v, 0, 0});
  for (u64 v : f64s) in64.push_back({v, 0, 0});
  const char* kinds[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
  auto holds = [](int kind, int c) {
    switch (kind) {
      case 0: return c != FP_INFINITE && c != FP_NAN;
      case 1: return c == FP_INFINITE;
      case 2: return c != FP_NAN;
      case 3: return c == FP_NAN;
      case 4: return c == FP_NORMAL;
      default: return c == FP_SUBNORMAL;
    }
  };
  std::vector<Row> rows;
  for (int k = 0; k < 6; ++k) {
    rows.push_back(
        {kinds[k],
         std::string("mov.b64 {%x0, %x1}, %a;\n mov.b32 %f0, %x0;\n testp.") + kinds[k] + ".f32 %q0, %f0;\n selp.b64 %d, 1, 0, %q0;", in32,
         [k, holds](const Inputs& x) { return u64{holds(k, std::fpclassify(std::bit_cast<float>(static_cast<std::uint32_t>(x.a))))}; }});
    rows.push_back({kinds[k], std::string("mov.b64 %g0, %a;\n testp.") + kinds[k] + ".f64 %q0, %g0;\n selp.b64 %d, 1, 0, %q0;", in64,
                    [k, holds](const Inputs& x) { return u64{holds(k, std::fpclassify(std::bit_cast<double>(x.a)))}; }});
  }
  check_rows(rows);
}

// ---------------------------------------------------------------------------------------------
// f32 / f64 arithmetic in every rounding direction, .ftz and .sat (PTX ISA 9.7.3, 9.7.4), and the
// conversions with a rounding direction (9.7.9.21); MPFR is the oracle (tests/reference).

#if !defined(RRSWIN_HAVE_MPFR)
TEST(PtxConformance, F32F64ArithmeticInEveryRoundingDirection) {
  RRSWIN_SKIP_UNLESS_CI() << "MPFR (libmpfr-dev) not found: the f32/f64 oracle is missing";
}
#else
namespace {

using rrswin::Round;
using rrswin_test::Oracle;

const char* kRoundName[] = {"rn", "rz", "rm", "rp"};
constexpr Round kRounds[] = {Round::rn, Round::rz, Round::rm, Round::rp};

// 32 pairs/triples of f32 bit patterns: edge values against each other, then random ones.
std::vector<Inputs> f32_inputs(std::uint32_t seed) {
  const u64 edge[] = {0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x3F800000,
                      0xBF800001, 0x7F7FFFFF, 0xFF800000, 0x7FC00001, 0x3EAAAAAB, 0x4B800001};
  std::vector<Inputs> v;
  std::uint32_t x = seed;
  auto rnd = [&] {
    x = x * 1664525u + 1013904223u;
    return x;
  };
  for (int k = 0; k < 32; ++k) {
    const u64 a = k < 24 ? edge[k % 12] : rnd(), b = k < 24 ? edge[(k * 5 + 3) % 12] : rnd(), c = edge[(k * 7 + 1) % 12];
    v.push_back({a, b, c});
  }
  return v;
}
std::vector<Inputs> f64_inputs(std::uint32_t seed) {
  const u64 edge[] = {0,
                      0x8000000000000000ull,
                      1,
                      0x800FFFFFFFFFFFFFull,
                      0x0010000000000000ull,
                      0x3FF0000000000000ull,
                      0xBFF0000000000001ull,
                      0x7FEFFFFFFFFFFFFFull,
                      0xFFF0000000000000ull,
                      0x7FF8000000000001ull,
                      0x3FD5555555555555ull,
                      0x4340000000000001ull};
  std::vector<Inputs> v;
  u64 x = seed;
  auto rnd = [&] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
  };
  for (int k = 0; k < 32; ++k) {
    const u64 a = k < 24 ? edge[k % 12] : rnd(), b = k < 24 ? edge[(k * 5 + 3) % 12] : rnd(), c = edge[(k * 7 + 1) % 12];
    v.push_back({a, b, c});
  }
  return v;
}

float F(u64 bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits)); }
double D(u64 bits) { return std::bit_cast<double>(bits); }
u64 B(float f) { return std::bit_cast<std::uint32_t>(f); }
u64 B(double d) { return std::bit_cast<u64>(d); }
// .ftz (PTX ISA 9.7.3): a subnormal input or result is the zero of its sign.
float flush(float f) { return (B(f) & 0x7F800000u) == 0 ? std::bit_cast<float>(static_cast<std::uint32_t>(B(f) & 0x80000000u)) : f; }

const std::string kF32In =
    "cvt.u32.u64 %x0, %a;\n mov.b32 %f0, %x0;\n cvt.u32.u64 %x1, %b;\n mov.b32 %f1, %x1;\n"
    "cvt.u32.u64 %x2, %c;\n mov.b32 %f2, %x2;\n";
const std::string kF32Out = "\n mov.b32 %x3, %f3;\n cvt.u64.u32 %d, %x3;";
const std::string kF64In = "mov.b64 %g0, %a;\n mov.b64 %g1, %b;\n mov.b64 %g2, %c;\n";
const std::string kF64Out = "\n mov.b64 %d, %g3;";

}  // namespace

TEST(PtxConformance, F32F64ArithmeticInEveryRoundingDirection) {
  std::vector<Row> rows;
  const char* ops[] = {"add", "sub", "mul", "div"};
  for (int k = 0; k < 4; ++k) {
    const Round r = kRounds[k];
    const std::string rn = kRoundName[k];
    for (int op = 0; op < 4; ++op) {
      rows.push_back({"f32 binary", kF32In + ops[op] + "." + rn + ".f32 %f3, %f0, %f1;" + kF32Out, f32_inputs(11u + op),
                      [op, r](const Inputs& x) { return B(Oracle<float>().bin(op, F(x.a), F(x.b), r)); }});
      rows.push_back({"f64 binary", kF64In + ops[op] + "." + rn + ".f64 %g3, %g0, %g1;" + kF64Out, f64_inputs(21u + op),
                      [op, r](const Inputs& x) { return B(Oracle<double>().bin(op, D(x.a), D(x.b), r)); }});
    }
    rows.push_back({"fma.f32", kF32In + "fma." + rn + ".f32 %f3, %f0, %f1, %f2;" + kF32Out, f32_inputs(31),
                    [r](const Inputs& x) { return B(Oracle<float>().fma(F(x.a), F(x.b), F(x.c), r)); }});
    rows.push_back({"fma.f64", kF64In + "fma." + rn + ".f64 %g3, %g0, %g1, %g2;" + kF64Out, f64_inputs(32),
                    [r](const Inputs& x) { return B(Oracle<double>().fma(D(x.a), D(x.b), D(x.c), r)); }});
    rows.push_back({"sqrt.f32", kF32In + "sqrt." + rn + ".f32 %f3, %f0;" + kF32Out, f32_inputs(33),
                    [r](const Inputs& x) { return B(Oracle<float>().sqrt(F(x.a), r)); }});
    rows.push_back({"rcp.f64", kF64In + "rcp." + rn + ".f64 %g3, %g0;" + kF64Out, f64_inputs(34),
                    [r](const Inputs& x) { return B(Oracle<double>().bin(3, 1.0, D(x.a), r)); }});
    // .ftz on inputs and result (the RR layers' fma.rn.ftz.f32 is the .rn row).
    rows.push_back({"fma.ftz.f32", kF32In + "fma." + rn + ".ftz.f32 %f3, %f0, %f1, %f2;" + kF32Out, f32_inputs(35),
                    [r](const Inputs& x) { return B(flush(Oracle<float>().fma(flush(F(x.a)), flush(F(x.b)), flush(F(x.c)), r))); }});
    rows.push_back({"mul.ftz.f32", kF32In + "mul." + rn + ".ftz.f32 %f3, %f0, %f1;" + kF32Out, f32_inputs(36),
                    [r](const Inputs& x) { return B(flush(Oracle<float>().bin(2, flush(F(x.a)), flush(F(x.b)), r))); }});
    // .sat: clamp to [+0, 1], NaN -> +0 (PTX ISA 9.7.3 "Saturation").
    rows.push_back({"add.sat.f32", kF32In + "add." + rn + ".sat.f32 %f3, %f0, %f1;" + kF32Out, f32_inputs(37), [r](const Inputs& x) {
                      const float v = Oracle<float>().bin(0, F(x.a), F(x.b), r);
                      return B(std::isnan(v) || v <= 0.0f ? 0.0f : v > 1.0f ? 1.0f : v);
                    }});
    // Conversions with a rounding direction.
    rows.push_back({"cvt.f32.s32", "cvt.u32.u64 %x0, %a;\n cvt." + rn + ".f32.s32 %f3, %x0;" + kF32Out, f32_inputs(38),
                    [r](const Inputs& x) { return B(Oracle<float>().from_int(static_cast<std::int32_t>(x.a), true, r)); }});
    rows.push_back({"cvt.f32.u64", "cvt." + rn + ".f32.u64 %f3, %a;" + kF32Out, f64_inputs(39),
                    [r](const Inputs& x) { return B(Oracle<float>().from_int(static_cast<i64>(x.a), false, r)); }});
    rows.push_back({"cvt.f64.s64", "cvt." + rn + ".f64.s64 %g3, %a;" + kF64Out, f64_inputs(40),
                    [r](const Inputs& x) { return B(Oracle<double>().from_int(static_cast<i64>(x.a), true, r)); }});
    rows.push_back({"cvt.f32.f64", kF64In + "cvt." + rn + ".f32.f64 %f3, %g0;" + kF32Out, f64_inputs(41),
                    [r](const Inputs& x) { return B(Oracle<float>().from_f64(D(x.a), r)); }});
  }
  check_rows(rows);
}

TEST(PtxConformance, F32F64MinMaxWithSignedZerosAndNaN) {
  // MPFR's min/max give -0 for (+0, -0) and the other operand for one NaN, as PTX (9.7.3.10/11);
  // two NaNs, and any NaN under .NaN, give the canonical NaN.
  auto oracle = [](bool is_max, bool nan_mode, auto a, auto b) {
    using T = decltype(a);
    Oracle<T> o;
    o.range();
    o.set(o.x, a);
    o.set(o.y, b);
    if (nan_mode && (std::isnan(a) || std::isnan(b)))
      mpfr_set_nan(o.z);
    else if (is_max)
      mpfr_max(o.z, o.x, o.y, MPFR_RNDN);
    else
      mpfr_min(o.z, o.x, o.y, MPFR_RNDN);
    return B(o.get(0, Round::rn));
  };
  std::vector<Inputs> f32 = f32_inputs(51), f64 = f64_inputs(52);
  f32[0] = {0x00000000, 0x80000000, 0};
  f32[1] = {0x80000000, 0x00000000, 0};
  f32[2] = {0x7FC00001, 0xFFC00002, 0};
  f64[0] = {0, 0x8000000000000000ull, 0};
  f64[1] = {0x8000000000000000ull, 0, 0};
  std::vector<Row> rows;
  for (bool is_max : {false, true}) {
    for (bool nan_mode : {false, true}) {
      const std::string op = std::string(is_max ? "max" : "min") + (nan_mode ? ".NaN" : "");
      rows.push_back({"min/max f32", kF32In + op + ".f32 %f3, %f0, %f1;" + kF32Out, f32,
                      [=](const Inputs& x) { return oracle(is_max, nan_mode, F(x.a), F(x.b)); }});
      rows.push_back({"min/max f64", kF64In + op + ".f64 %g3, %g0, %g1;" + kF64Out, f64,
                      [=](const Inputs& x) { return oracle(is_max, nan_mode, D(x.a), D(x.b)); }});
    }
  }
  rows.push_back({"max.ftz.f32", kF32In + "max.ftz.f32 %f3, %f0, %f1;" + kF32Out, f32,
                  [=](const Inputs& x) { return oracle(true, false, flush(F(x.a)), flush(F(x.b))); }});
  check_rows(rows);
}
#endif

// ---------------------------------------------------------------------------------------------
// Issue 18: sizes from declarations are checked products bounded by documented limits before
// anything is allocated; a hostile kernel ends within the work bound; each message names its limit.

namespace {
std::string module_error(const std::string& text) {
  try {
    parse_module(text, "hostile.ptx");
  } catch (const PtxError& e) {
    return e.what();
  }
  return "";
}
const std::string kHead = ".version 8.0\n.target sm_89\n.address_size 64\n";
}  // namespace

TEST(PtxLimits, DeclarationSizesAreCheckedBeforeAllocating) {
  struct Case {
    std::string text, message;
  };
  const Case cases[] = {
      {".global .b8 g[65536][65536];", "limit of 1073741824 bytes"},
      {".global .b64 g[4294967296];", "limit of 1073741824 bytes"},
      {".global .b8 g[4294967296][4294967296];", "limit of 1073741824 bytes"},  // used to wrap to 0 bytes
      {".global .b8 g[0x10000000000000000];", "literal"},                       // not a 64-bit number
      {".shared .b8 s[4294967296];", "limit of 16777216 bytes"},
      {".shared .b8 s[65536][65536][65536][65536];", "limit of 16777216 bytes"},  // wraps to 0 in 64 bits
      {".const .b32 c[8388608];", "limit of 16777216 bytes"},
      {".global .b8 a[805306368];\n.global .b8 b[805306368];", ".global variables up to b need more than"},
      {".visible .entry k(.param .b8 p[65536][65536]) { ret; }", "more than 65536 elements"},
      {".visible .entry k() { .local .b8 l[2097152]; ret; }", "limit of 1048576 bytes"},
      {".visible .entry k() { .reg .b32 %r<4194304>; ret; }", "at most 65536 register slots"},
      {".visible .entry k() { .reg .b32 %r<40000>; .reg .b64 %rd<40000>; ret; }", "at most 65536 register slots"},
      {".visible .entry k() { .reg .pred %p<70000>; ret; }", "at most 65536 register slots"},
  };
  for (const Case& c : cases) {
    const std::string e = module_error(kHead + c.text + "\n");
    EXPECT_NE(e.find(c.message), std::string::npos) << c.text << " -> '" << e << "'";
    EXPECT_NE(e.find("hostile.ptx:"), std::string::npos) << e;
  }
  // Within the limits: a declared but uninitialised .global is not allocated until a launch.
  EXPECT_EQ(module_error(kHead + ".global .b8 g[1073741824];\n"), "");
}

TEST(PtxLimits, InitialisersWithVariableAddresses) {
  // .global/.const initialisers may name variables declared before (PTX ISA 5.4.4): the address in
  // the variable's space, or generic(sym).
  const std::string text = kHead +
                           ".global .u32 tbl[4] = {10, 20, 30, 40};\n"
                           ".global .u64 ptrs[2] = {tbl, tbl+8};\n"
                           ".const .u32 cv[2] = {7, 8};\n"
                           ".global .u64 gp = generic(cv);\n"
                           ".visible .entry k(.param .u64 pout)\n{\n  .reg .b64 %rd<8>;\n  .reg .b32 %r<4>;\n"
                           "  ld.param.u64 %rd1, [pout];\n  ld.global.u64 %rd2, [ptrs+8];\n  ld.u32 %r1, [%rd2];\n"
                           "  ld.global.u64 %rd3, [gp];\n  ld.u32 %r2, [%rd3+4];\n"
                           "  st.global.u32 [%rd1], %r1;\n  st.global.u32 [%rd1+4], %r2;\n  ret;\n}\n";
  auto m = parse_module(text, "init.ptx");
  std::vector<std::uint32_t> out(2, 0);
  Device dev;
  const u64 a = dev.add_global("out", {reinterpret_cast<std::uint8_t*>(out.data()), 8});
  RunOptions opt;
  opt.threads = 1;
  run(*m, "k", {1, 1, 1}, {1, 1, 1}, {reinterpret_cast<const std::uint8_t*>(&a), 8}, dev, opt);
  EXPECT_EQ(out[0], 30u);  // tbl[2]
  EXPECT_EQ(out[1], 8u);   // cv[1] through its generic address
  EXPECT_NE(module_error(kHead + ".global .u64 p = nosuch;\n").find("not a variable declared before it"), std::string::npos);
}

TEST(PtxLimits, WorkBoundEndsAHostileLoopNamingTheOption) {
  const std::string loop = kHead + ".visible .entry k()\n{\n  .reg .b32 %r<2>;\n$L: add.s32 %r1, %r1, 1;\n  bra $L;\n}\n";
  auto m = parse_module(loop, "loop.ptx");
  Device dev;
  RunOptions opt;
  opt.threads = 1;
  opt.max_warp_instructions = 100000;
  try {
    run(*m, "k", {1, 1, 1}, {32, 1, 1}, {}, dev, opt);
    ADD_FAILURE() << "the endless loop ran to completion";
  } catch (const PtxError& e) {
    EXPECT_NE(std::string(e.what()).find("--max-instructions"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("100000"), std::string::npos) << e.what();
  }
  // Per launch: 8 CTAs of one warp, 60001 instructions each (20000 x add, setp, bra; ret), each
  // under its own bound, together over the launch's; the check is exact for every thread count.
  // Each CTA's set-up counts too (issue 38 F3): its warp clears 24 special registers and %r1 (read
  // before written), 25 x 32 lanes x 8 bytes, and the predicate %p, 4 bytes: 6404 bytes, two units
  // of kSetupBytesPerWork (4096). 8 x (60001 + 2) = 480024.
  opt.max_warp_instructions = 1'000'000;
  const std::string bounded = kHead +
                              ".visible .entry k()\n{\n  .reg .b32 %r<2>;\n  .reg .pred %p;\n"
                              "$L: add.s32 %r1, %r1, 1;\n  setp.lt.u32 %p, %r1, 20000;\n  @%p bra $L;\n  ret;\n}\n";
  auto m2 = parse_module(bounded, "many.ptx");
  for (int threads : {1, 2}) {
    opt.threads = threads;
    opt.max_launch_instructions = 8 * 60003 - 1;
    try {
      run(*m2, "k", {8, 1, 1}, {32, 1, 1}, {}, dev, opt);
      ADD_FAILURE() << "the launch bound did not stop the launch";
    } catch (const PtxError& e) {
      EXPECT_NE(std::string(e.what()).find("--max-launch-instructions"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("480023"), std::string::npos) << e.what();
    }
    opt.max_launch_instructions = 8 * 60003;
    RunStats st;
    EXPECT_NO_THROW(st = run(*m2, "k", {8, 1, 1}, {32, 1, 1}, {}, dev, opt));
    EXPECT_EQ(st.work, 8u * 60003);
    EXPECT_EQ(st.warp_instructions, 8u * 60001);  // the set-up is work, not instructions
  }
  // The defaults are the documented ones.
  EXPECT_EQ(RunOptions{}.max_warp_instructions, 40'000'000u);
  EXPECT_EQ(RunOptions{}.max_launch_instructions, 60'000'000u);
}

// ---------------------------------------------------------------------------------------------
// The RR layers' extra forms (issue 20 §2): tex.base.2d.v4.f16.f32 through the launch's sampler
// (point and linear, CUDA Programming Guide "Texture Fetching": x_B = x - 0.5, 9-bit weights with
// 8 fractional bits), sust.p.2d.v4.b32.zero, fma.rn.ftz.f32 (above), cvt.rn.f32.s32,
// cvt.rn.f16.s32, st.global.v4.u16. The f16 oracle is tests/reference/f16_oracle.hpp.

namespace {

// One f32 coordinate pair per lane in `in` (x at 2l, y at 2l+1); four f16 results per lane in out.
std::vector<std::uint16_t> run_tex(const rrswin::Texture& tex, TextureSampler smp, const std::vector<float>& coords) {
  const std::string text =
      kHead +
      ".visible .entry k(.param .u64 pout, .param .u64 pin, .param .u64 ptex)\n{\n"
      "  .reg .b64 %rd<8>;\n  .reg .b32 %r<4>;\n  .reg .f32 %f<4>;\n  .reg .b16 %h<4>;\n"
      "  ld.param.u64 %rd1, [pout];\n  ld.param.u64 %rd2, [pin];\n  ld.param.u64 %rd3, [ptex];\n"
      "  mov.u32 %r0, %tid.x;\n  mul.wide.u32 %rd4, %r0, 8;\n  add.s64 %rd5, %rd1, %rd4;\n  add.s64 %rd6, %rd2, %rd4;\n"
      "  ld.global.v2.f32 {%f0, %f1}, [%rd6];\n"
      "  tex.base.2d.v4.f16.f32 {%h0, %h1, %h2, %h3}, [%rd3, {%f0, %f1}];\n"
      "  st.global.v4.u16 [%rd5], {%h0, %h1, %h2, %h3};\n  ret;\n}\n";
  auto m = parse_module(text, "tex.ptx");
  std::vector<std::uint16_t> out(32 * 4, 0xDEAD);
  std::vector<float> in = coords;
  in.resize(64, 0.0f);
  Device dev;
  const u64 a_out = dev.add_global("out", {reinterpret_cast<std::uint8_t*>(out.data()), out.size() * 2});
  const u64 a_in = dev.add_global_readonly("in", {reinterpret_cast<const std::uint8_t*>(in.data()), in.size() * 4});
  const u64 h = dev.bind_texture(&tex, smp);
  std::uint8_t params[24];
  std::memcpy(params, &a_out, 8);
  std::memcpy(params + 8, &a_in, 8);
  std::memcpy(params + 16, &h, 8);
  RunOptions opt;
  opt.threads = 1;
  run(*m, "k", {1, 1, 1}, {32, 1, 1}, params, dev, opt);
  return out;
}

// The reading's definition, written out independently: the four texels around x_B, y_B with
// clamped integer coordinates, weights rounded to 1/256, the exact sum rounded once to f16.
std::uint16_t linear_oracle(const rrswin::Texture& t, int c, double x, double y) {
  const double xb = x - 0.5, yb = y - 0.5;
  const int i = static_cast<int>(std::floor(xb)), j = static_cast<int>(std::floor(yb));
  const long a = std::lround((xb - std::floor(xb)) * 256.0), b = std::lround((yb - std::floor(yb)) * 256.0);
  auto texel = [&](int u, int v) {
    u = std::clamp(u, 0, t.width - 1);
    v = std::clamp(v, 0, t.height - 1);
    return t.rgba[static_cast<std::size_t>((v * t.width + u) * 4 + c)];
  };
  const std::uint16_t q[4] = {texel(i, j), texel(i + 1, j), texel(i, j + 1), texel(i + 1, j + 1)};
  const long wts[4] = {(256 - a) * (256 - b), a * (256 - b), (256 - a) * b, a * b};
  __int128 sum = 0;  // in units of 2^-48: f16 units48 (2^-48) x weights (2^-16) x 2^16
  for (int k = 0; k < 4; ++k) {
    const __int128 u = static_cast<__int128>(rrswin::oracle::f16_units48()[q[k] & 0x7FFF]);
    sum += ((q[k] & 0x8000) ? -u : u) * wts[k];
  }
  // units48 are multiples of 2^24 (f16 values are multiples of 2^-24), so the 2^-16 of the
  // weights divides exactly: the sum in units of 2^-48 is sum / 2^16.
  if (sum == 0) {  // IEEE: an exact zero sum is -0 only when every weighted term is -0
    bool all_neg = true;
    for (int k = 0; k < 4; ++k)
      if (wts[k] != 0 && !(q[k] & 0x8000)) all_neg = false;
    return all_neg ? 0x8000 : 0;
  }
  const bool neg = sum < 0;
  const unsigned __int128 mag = static_cast<unsigned __int128>(neg ? -sum : sum);
  EXPECT_EQ(mag & 0xFFFF, 0u);
  return rrswin::oracle::round_units48(neg, mag >> 16);
}

}  // namespace

TEST(PtxRrForms, TexFloatCoordinatesPointAndLinear) {
  rrswin::Texture tex;
  tex.width = 5;
  tex.height = 3;
  tex.mode = rrswin::AddressMode::clamp;
  std::uint32_t seed = 12345;
  for (int k = 0; k < tex.width * tex.height * 4; ++k) {
    seed = seed * 1664525u + 1013904223u;
    std::uint16_t h = static_cast<std::uint16_t>(seed >> 16);
    if ((h & 0x7C00) == 0x7C00) h &= 0xBFFF;                                      // finite texels
    tex.rgba.push_back(k % 7 == 0 ? static_cast<std::uint16_t>(h & 0x83FF) : h);  // some subnormals
  }
  std::vector<float> coords;
  for (int l = 0; l < 32; ++l) {
    coords.push_back(-0.7f + 0.213f * static_cast<float>(l));
    coords.push_back(-0.4f + 0.117f * static_cast<float>((l * 7) % 32));
  }
  const auto point = run_tex(tex, {TextureFilter::point, false}, coords);
  const auto linear = run_tex(tex, {TextureFilter::linear, false}, coords);
  for (int l = 0; l < 32; ++l) {
    const double x = coords[2 * l], y = coords[2 * l + 1];
    const int px = std::clamp(static_cast<int>(std::floor(x)), 0, tex.width - 1),
              py = std::clamp(static_cast<int>(std::floor(y)), 0, tex.height - 1);
    for (int c = 0; c < 4; ++c) {
      EXPECT_EQ(point[4 * l + c], tex.rgba[static_cast<std::size_t>((py * tex.width + px) * 4 + c)]) << "lane " << l << " channel " << c;
      EXPECT_EQ(linear[4 * l + c], linear_oracle(tex, c, x, y)) << "lane " << l << " channel " << c << " x " << x << " y " << y;
    }
  }
  // Normalised coordinates scale by the extent.
  std::vector<float> ncoords;
  for (int l = 0; l < 32; ++l) {
    ncoords.push_back(coords[2 * l] / static_cast<float>(tex.width));
    ncoords.push_back(coords[2 * l + 1] / static_cast<float>(tex.height));
  }
  const auto npoint = run_tex(tex, {TextureFilter::point, true}, ncoords);
  for (int l = 0; l < 32; ++l) {
    const double x = static_cast<double>(ncoords[2 * l] * static_cast<float>(tex.width));
    const double y = static_cast<double>(ncoords[2 * l + 1] * static_cast<float>(tex.height));
    const int px = std::clamp(static_cast<int>(std::floor(x)), 0, tex.width - 1),
              py = std::clamp(static_cast<int>(std::floor(y)), 0, tex.height - 1);
    EXPECT_EQ(npoint[4 * l], tex.rgba[static_cast<std::size_t>((py * tex.width + px) * 4)]) << l;
  }
}

TEST(PtxRrForms, FormattedSurfaceStoreAndIntegerToHalf) {
  const std::string text = kHead +
                           ".visible .entry k(.param .u64 psurf, .param .u64 pout)\n{\n"
                           "  .reg .b64 %rd<4>;\n  .reg .b32 %r<8>;\n  .reg .f32 %f<4>;\n  .reg .b16 %h<4>;\n"
                           "  ld.param.u64 %rd1, [psurf];\n  ld.param.u64 %rd2, [pout];\n  mov.u32 %r0, %tid.x;\n"
                           "  sub.s32 %r1, %r0, 3;\n  cvt.rn.f32.s32 %f0, %r1;\n  mul.rn.f32 %f1, %f0, 0f3DCCCCCD;\n"
                           "  mov.b32 %f2, 0x7FC00001;\n  mov.b32 %f3, 0x47800000;\n"  // NaN payload, 65536 (overflows f16)
                           "  sust.p.2d.v4.b32.zero [%rd1, {%r1, %r0}], {%f0, %f1, %f2, %f3};\n"
                           "  mul.lo.s32 %r2, %r1, 9000;\n  cvt.rn.f16.s32 %h0, %r2;\n"
                           "  mul.wide.u32 %rd3, %r0, 2;\n  add.s64 %rd3, %rd2, %rd3;\n  st.global.b16 [%rd3], %h0;\n  ret;\n}\n";
  auto m = parse_module(text, "sust.ptx");
  rrswin::Surface surf = rrswin::Surface::make(8, 32);
  std::vector<std::uint16_t> out(32, 0);
  Device dev;
  const u64 hs = dev.bind_surface(&surf);
  const u64 a_out = dev.add_global("out", {reinterpret_cast<std::uint8_t*>(out.data()), out.size() * 2});
  std::uint8_t params[16];
  std::memcpy(params, &hs, 8);
  std::memcpy(params + 8, &a_out, 8);
  RunOptions opt;
  opt.threads = 1;
  run(*m, "k", {1, 1, 1}, {32, 1, 1}, params, dev, opt);
  for (int l = 0; l < 32; ++l) {
    const int x = l - 3;
    const float f0 = static_cast<float>(x), f1 = f0 * std::bit_cast<float>(0x3DCCCCCDu);
    const std::uint8_t* p = surf.bytes.data() + static_cast<std::size_t>(l) * surf.pitch + static_cast<std::size_t>(x < 0 ? 0 : x) * 8;
    auto at = [&](int c) { return static_cast<std::uint16_t>(p[2 * c] | (p[2 * c + 1] << 8)); };
    // cvt.rn.f16.s32: the exact integer rounded once.
    EXPECT_EQ(out[l], rrswin::oracle::round_double(static_cast<double>(x * 9000))) << l;
    if (x < 0 || x >= 8) continue;  // .zero: dropped (the row's bytes stay 0, checked below)
    EXPECT_EQ(at(0), rrswin::oracle::round_double(f0)) << l;
    EXPECT_EQ(at(1), rrswin::oracle::round_double(f1)) << l;
    EXPECT_EQ(at(2), 0x7FFF) << l;  // NaN -> canonical f16 NaN (cvt.rn.f16.f32)
    EXPECT_EQ(at(3), 0x7C00) << l;  // 65536 -> +Inf
  }
  for (int l = 0; l < 3; ++l)
    for (std::size_t b = 0; b < surf.pitch; ++b) EXPECT_EQ(surf.bytes[static_cast<std::size_t>(l) * surf.pitch + b], 0) << l;
}

// The single-warp layers' data movement (issue 35; DOC-e1 §3/E30..E32, DOC-e0 §3/E20..E22, readings
// §10): the register merge's 8-lane shfl.sync.down/up pairs (delta 4, segment mask 0x18), its
// bfi.b32-built store indices with mixed st.global.v2.u16 / st.global.u32 stores, and the final's
// row gather of two passes (selp of the pass's register, then shfl.sync.idx). The oracle is the PTX
// ISA's shfl definition (9.7.8.6: maxLane / minLane from c's segment mask) and bfi's (9.7.1.20)
// written out here per lane.
TEST(PtxRrForms, SingleWarpMergeStoresAndRowGather) {
  const std::string text =
      kHead +
      ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
      "  .reg .b64 %rd<8>;\n  .reg .b32 %r<16>;\n  .reg .b16 %h<2>;\n  .reg .pred %p<6>;\n"
      "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n  mov.u32 %r0, %tid.x;\n"
      "  mul.wide.u32 %rd3, %r0, 4;\n  add.s64 %rd3, %rd1, %rd3;\n  ld.global.u32 %r1, [%rd3];\n"
      // E30: within each 8-lane segment, down 4 (clamped at the segment's last lane) and up 4.
      "  shfl.sync.down.b32 %r2|%p1, %r1, 4, 0x181f, 0xffffffff;\n"
      "  shfl.sync.up.b32 %r3|%p2, %r1, 4, 0x1800, 0xffffffff;\n"
      "  and.b32 %r4, %r0, 4;\n  setp.ne.u32 %p3, %r4, 0;\n  selp.b32 %r5, %r3, %r2, %p3;\n"
      // Both shuffles as they came (the clamped lanes included), at words 192 + lane and 224 + lane.
      "  mul.wide.u32 %rd4, %r0, 4;\n  add.s64 %rd4, %rd2, %rd4;\n  st.global.u32 [%rd4+768], %r2;\n  st.global.u32 [%rd4+896], %r3;\n"
      // E31: index = lane bits 0..2 inserted at bit 2 of a base of 0x40 | (lane >> 3): word index in
      // a 128-word table; the merged word as two u16 halves, the lane's own word as one u32.
      "  shr.u32 %r6, %r0, 3;\n  or.b32 %r6, %r6, 0x40;\n  bfi.b32 %r7, %r0, %r6, 2, 3;\n"
      "  mul.wide.u32 %rd4, %r7, 4;\n  add.s64 %rd5, %rd2, %rd4;\n"
      "  mov.b32 {%h0, %h1}, %r5;\n  st.global.v2.u16 [%rd5], {%h0, %h1};\n"
      "  xor.b32 %r8, %r7, 0x20;\n  mul.wide.u32 %rd6, %r8, 4;\n  add.s64 %rd6, %rd2, %rd6;\n  st.global.u32 [%rd6], %r1;\n"
      // E32: two passes; pass q's value is selp(q == 0 ? merged : own), read from lane (5 lane + 3q) & 31.
      "  mov.u32 %r9, 0;\n"
      "PASS:\n"
      "  setp.eq.u32 %p4, %r9, 0;\n  selp.b32 %r10, %r5, %r1, %p4;\n"
      "  mad.lo.u32 %r11, %r0, 5, %r9;\n  mad.lo.u32 %r11, %r9, 2, %r11;\n  and.b32 %r11, %r11, 31;\n"
      "  shfl.sync.idx.b32 %r12, %r10, %r11, 0x1f, 0xffffffff;\n"
      "  mad.lo.u32 %r13, %r9, 32, %r0;\n  mul.wide.u32 %rd7, %r13, 4;\n  add.s64 %rd7, %rd2, %rd7;\n"
      "  st.global.u32 [%rd7+512], %r12;\n"
      "  add.u32 %r9, %r9, 1;\n  setp.lt.u32 %p5, %r9, 2;\n  @%p5 bra PASS;\n  ret;\n}\n";
  auto m = parse_module(text, "single_warp.ptx");
  std::vector<std::uint32_t> in(32), out(128 + 64 + 64, 0xDEADBEEFu);
  std::uint32_t seed = 2024;
  for (auto& v : in) v = seed = seed * 1664525u + 1013904223u;
  Device dev;
  const u64 a_in = dev.add_global_readonly("in", {reinterpret_cast<const std::uint8_t*>(in.data()), in.size() * 4});
  const u64 a_out = dev.add_global("out", {reinterpret_cast<std::uint8_t*>(out.data()), out.size() * 4});
  std::uint8_t params[16];
  std::memcpy(params, &a_in, 8);
  std::memcpy(params + 8, &a_out, 8);
  RunOptions opt;
  opt.threads = 1;
  run(*m, "k", {1, 1, 1}, {32, 1, 1}, params, dev, opt);
  std::vector<std::uint32_t> want(out.size(), 0xDEADBEEFu), merged(32);
  for (int l = 0; l < 32; ++l) {
    const int seg = l & ~7, down = l + 4 <= seg + 7 ? l + 4 : l, up = l - 4 >= seg ? l - 4 : l;
    merged[l] = (l & 4) ? in[up] : in[down];
    want[192 + l] = in[down];
    want[224 + l] = in[up];
    const std::uint32_t base = 0x40u | static_cast<std::uint32_t>(l >> 3);
    const std::uint32_t idx = (base & ~(7u << 2)) | ((static_cast<std::uint32_t>(l) & 7u) << 2);
    want[idx] = merged[l];
    want[idx ^ 0x20u] = in[l];
  }
  for (int q = 0; q < 2; ++q)
    for (int l = 0; l < 32; ++l) {
      const int src = (5 * l + 3 * q) & 31;
      want[128 + 32 * q + l] = q == 0 ? merged[src] : in[src];
    }
  for (std::size_t k = 0; k < out.size(); ++k) EXPECT_EQ(out[k], want[k]) << "word " << k;
}

// sust.p.2d.v4.b32.zero on a surface bound as RGBA32F (16 bytes a texel: dec0's +144, a replay
// capture's kFmtFloat): the four b32 values are stored unchanged at texel x (NaN payloads and values
// beyond f16's range kept), out-of-bounds texels dropped.
TEST(PtxRrForms, FormattedSurfaceStoreToRgba32fKeepsTheF32) {
  const std::string text = kHead +
                           ".visible .entry k(.param .u64 psurf)\n{\n"
                           "  .reg .b64 %rd<4>;\n  .reg .b32 %r<8>;\n  .reg .f32 %f<4>;\n"
                           "  ld.param.u64 %rd1, [psurf];\n  mov.u32 %r0, %tid.x;\n"
                           "  sub.s32 %r1, %r0, 3;\n  cvt.rn.f32.s32 %f0, %r1;\n  mul.rn.f32 %f1, %f0, 0f3DCCCCCD;\n"
                           "  mov.b32 %f2, 0x7FC00001;\n  mov.b32 %f3, 0x47800000;\n"
                           "  sust.p.2d.v4.b32.zero [%rd1, {%r1, %r0}], {%f0, %f1, %f2, %f3};\n  ret;\n}\n";
  auto m = parse_module(text, "sust_f32.ptx");
  rrswin::Surface surf;
  surf.width = 8;
  surf.height = 32;
  surf.pitch = 16 * 8;
  surf.bytes.assign(surf.pitch * 32, 0);
  Device dev;
  // A surface whose rows hold 8-byte texels, or fewer bytes than pitch x height, is refused for
  // RGBA32F (sust would write past its rows).
  rrswin::Surface narrow = rrswin::Surface::make(8, 32), short_rows = surf;
  short_rows.bytes.resize(surf.pitch * 31);
  EXPECT_THROW(dev.bind_surface(&narrow, Device::SurfaceFormat::rgba32f), PtxError);
  EXPECT_THROW(dev.bind_surface(&short_rows, Device::SurfaceFormat::rgba32f), PtxError);
  EXPECT_NO_THROW(dev.bind_surface(&narrow));
  const u64 hs = dev.bind_surface(&surf, Device::SurfaceFormat::rgba32f);
  std::uint8_t params[8];
  std::memcpy(params, &hs, 8);
  RunOptions opt;
  opt.threads = 1;
  run(*m, "k", {1, 1, 1}, {32, 1, 1}, params, dev, opt);
  for (int l = 0; l < 32; ++l) {
    const int x = l - 3;
    const std::uint8_t* row = surf.bytes.data() + static_cast<std::size_t>(l) * surf.pitch;
    if (x < 0 || x >= 8) {  // .zero: dropped, the row stays 0
      for (std::size_t b = 0; b < surf.pitch; ++b) EXPECT_EQ(row[b], 0) << l;
      continue;
    }
    const float f0 = static_cast<float>(x), f1 = f0 * std::bit_cast<float>(0x3DCCCCCDu);
    std::uint32_t v[4];
    std::memcpy(v, row + 16 * x, 16);
    EXPECT_EQ(v[0], std::bit_cast<std::uint32_t>(f0)) << l;
    EXPECT_EQ(v[1], std::bit_cast<std::uint32_t>(f1)) << l;
    EXPECT_EQ(v[2], 0x7FC00001u) << l;  // the NaN's payload as stored
    EXPECT_EQ(v[3], 0x47800000u) << l;  // 65536: no f16 conversion
    for (int b = 0; b < 16 * 8; ++b) {
      if (b / 16 != x) {
        EXPECT_EQ(row[b], 0) << l << " byte " << b;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Integer forms of issue 20 §2 (PTX ISA 9.7.1, 9.7.8, 9.7.9.22); the oracles are the ISA's
// semantics written in plain C++ here.

TEST(PtxConformance, IntegerMul24ShfBmskSzextDpCvtPack) {
  std::vector<Inputs> in;
  const u64 vals[] = {0, 1, 5, 31, 32, 33, 0x7FFFFF, 0x800000, 0xFFFFFF, 0x12345678, 0x80000000u, 0xFFFFFFFFu, 0xDEADBEEFu, 0x7FFF8001u};
  for (int k = 0; k < 32; ++k) in.push_back({vals[k % 14], vals[(k * 5 + 3) % 14], vals[(k * 11 + 7) % 14]});
  const std::string abc = "cvt.u32.u64 %x0, %a;\n cvt.u32.u64 %x1, %b;\n cvt.u32.u64 %x2, %c;\n";
  const std::string out = "\n cvt.u64.u32 %d, %x3;";
  auto s24 = [](u64 x) { return sx(x, 24); };
  std::vector<Row> rows = {
      {"mul24.hi.u32", abc + "mul24.hi.u32 %x3, %x0, %x1;" + out, in,
       [](const Inputs& x) { return lo((lo(x.a, 24) * lo(x.b, 24)) >> 16, 32); }},
      {"mul24.hi.s32", abc + "mul24.hi.s32 %x3, %x0, %x1;" + out, in,
       [&](const Inputs& x) { return lo(static_cast<u64>((s24(x.a) * s24(x.b)) >> 16), 32); }},
      {"mad24.hi.u32", abc + "mad24.hi.u32 %x3, %x0, %x1, %x2;" + out, in,
       [](const Inputs& x) { return lo(((lo(x.a, 24) * lo(x.b, 24)) >> 16) + x.c, 32); }},
      {"mad24.lo.s32", abc + "mad24.lo.s32 %x3, %x0, %x1, %x2;" + out, in,
       [&](const Inputs& x) { return lo(static_cast<u64>(s24(x.a) * s24(x.b)) + x.c, 32); }},
  };
  for (const char* dir : {"l", "r"})
    for (const char* mode : {"clamp", "wrap"})
      rows.push_back({"shf", abc + "shf." + dir + "." + mode + ".b32 %x3, %x0, %x1, %x2;" + out, in, [dir, mode](const Inputs& x) {
                        const u64 c = lo(x.c, 32), n = std::string(mode) == "clamp" ? std::min<u64>(c, 32) : c & 31;
                        const unsigned __int128 v = (static_cast<unsigned __int128>(lo(x.b, 32)) << 32) | lo(x.a, 32);
                        return std::string(dir) == "l" ? lo(static_cast<u64>((v << n) >> 32), 32) : lo(static_cast<u64>(v >> n), 32);
                      }});
  for (const char* mode : {"clamp", "wrap"}) {
    const bool clamp = std::string(mode) == "clamp";
    // bmsk: bits [a, a + b) set; .wrap takes a, b mod 32; .clamp: a >= 32 -> 0, b >= 32 -> to bit 31.
    rows.push_back({"bmsk", abc + "bmsk." + std::string(mode) + ".b32 %x3, %x0, %x1;" + out, in, [clamp](const Inputs& x) {
                      u64 a = lo(x.a, 32), b = lo(x.b, 32);
                      if (clamp) {
                        if (a >= 32) return u64{0};
                        b = std::min<u64>(b, 32);
                      } else {
                        a &= 31;
                        b &= 31;
                      }
                      u64 r = 0;
                      for (u64 i = a; i < a + b && i < 32; ++i) r |= 1ull << i;
                      return r;
                    }});
    for (const char* t : {"u32", "s32"})
      rows.push_back({"szext", abc + "szext." + std::string(mode) + "." + t + " %x3, %x0, %x1;" + out, in, [clamp, t](const Inputs& x) {
                        const u64 a = lo(x.a, 32), b = lo(x.b, 32);
                        if (clamp && b >= 32) return a;
                        const int n = static_cast<int>(b & 31);
                        if (n == 0) return u64{0};
                        return std::string(t) == "s32" ? lo(static_cast<u64>(sx(a, n)), 32) : lo(a, n);
                      }});
  }
  for (const char* ta : {"u32", "s32"})
    for (const char* tb : {"u32", "s32"}) {
      const bool sa = ta[0] == 's', sb = tb[0] == 's';
      rows.push_back({"dp4a", abc + "dp4a." + std::string(ta) + "." + tb + " %x3, %x0, %x1, %x2;" + out, in, [sa, sb](const Inputs& x) {
                        i64 acc = sa || sb ? sx(x.c, 32) : static_cast<i64>(lo(x.c, 32));
                        for (int k = 0; k < 4; ++k) {
                          const u64 p = (x.a >> (8 * k)) & 0xFF, q = (x.b >> (8 * k)) & 0xFF;
                          acc += (sa ? sx(p, 8) : static_cast<i64>(p)) * (sb ? sx(q, 8) : static_cast<i64>(q));
                        }
                        return lo(static_cast<u64>(acc), 32);
                      }});
      for (const char* half : {"lo", "hi"})
        rows.push_back({"dp2a", abc + "dp2a." + std::string(half) + "." + ta + "." + tb + " %x3, %x0, %x1, %x2;" + out, in,
                        [sa, sb, half](const Inputs& x) {
                          i64 acc = sa || sb ? sx(x.c, 32) : static_cast<i64>(lo(x.c, 32));
                          const int sel = std::string(half) == "hi" ? 2 : 0;
                          for (int k = 0; k < 2; ++k) {
                            const u64 p = (x.a >> (16 * k)) & 0xFFFF, q = (x.b >> (8 * (sel + k))) & 0xFF;
                            acc += (sa ? sx(p, 16) : static_cast<i64>(p)) * (sb ? sx(q, 8) : static_cast<i64>(q));
                          }
                          return lo(static_cast<u64>(acc), 32);
                        }});
    }
  struct Pack {
    const char* form;
    int n;
    bool sg;
    bool c;
  };
  for (const Pack& p : {Pack{"u16.s32", 16, false, false}, Pack{"s16.s32", 16, true, false}, Pack{"u8.s32.b32", 8, false, true},
                        Pack{"s8.s32.b32", 8, true, true}, Pack{"u4.s32.b32", 4, false, true}, Pack{"s2.s32.b32", 2, true, true}}) {
    rows.push_back({"cvt.pack.sat", abc + "cvt.pack.sat." + std::string(p.form) + " %x3, %x0, %x1" + (p.c ? ", %x2;" : ";") + out, in,
                    [p](const Inputs& x) {
                      const i64 mn = p.sg ? -(1ll << (p.n - 1)) : 0, mx = p.sg ? (1ll << (p.n - 1)) - 1 : (1ll << p.n) - 1;
                      const u64 ta = lo(static_cast<u64>(std::clamp(sx(x.a, 32), mn, mx)), p.n);
                      const u64 tb = lo(static_cast<u64>(std::clamp(sx(x.b, 32), mn, mx)), p.n);
                      u64 r = tb | (ta << p.n);
                      if (p.c) r |= lo(x.c << (2 * p.n), 32);
                      return lo(r, 32);
                    }});
  }
  check_rows(rows);
}

// Warp collectives without divergence: every lane of the warp is in the membermask.
TEST(PtxConformance, WarpVoteMatchReduxAndSyncwarp) {
  std::vector<Inputs> in;
  for (int l = 0; l < 32; ++l) in.push_back({static_cast<u64>((l * 7) % 5), static_cast<u64>(l % 3 == 0 ? 0x80000000u - l : l * 1000u), 0});
  auto lanes = [&](auto f) {
    std::vector<u64> v;
    for (const Inputs& x : in) v.push_back(f(x));
    return v;
  };
  const std::vector<u64> va = lanes([](const Inputs&x) { return x.a; }), vb = lanes([](const Inputs&x) { return lo(x.b, 32); });
  std::vector<Row> rows;
  auto eq_mask = [&](u64 v) {
    u64 m = 0;
    for (int l = 0; l < 32; ++l)
      if (va[l] == v) m |= 1ull << l;
    return m;
  };
  rows.push_back({"match.any.sync.b32", "cvt.u32.u64 %x0, %a;\n match.any.sync.b32 %x3, %x0, 0xFFFFFFFF;\n cvt.u64.u32 %d, %x3;", in,
                  [&](const Inputs& x) { return eq_mask(x.a); }});
  rows.push_back({"match.all.sync.b64 with |p",
                  "match.all.sync.b64 %x3|%q0, %a, 0xFFFFFFFF;\n selp.u32 %x4, 1, 0, %q0;\n mov.b64 %d, {%x3, %x4};", in,
                  [&](const Inputs&) { return u64{0}; }});  // the lanes hold different values: 0 and false
  rows.push_back({"match.all.sync.b32 on equal values",
                  "mov.u32 %x0, 9;\n match.all.sync.b32 %x3|%q0, %x0, 0xFFFFFFFF;\n selp.u32 %x4, 1, 0, %q0;\n"
                  " mov.b64 %d, {%x3, %x4};",
                  in, [&](const Inputs&) { return 0x1FFFFFFFFull; }});
  struct R {
    const char* op;
    const char* t;
  };
  for (const R& r : {R{"add", "u32"}, R{"min", "s32"}, R{"max", "s32"}, R{"min", "u32"}, R{"max", "u32"}, R{"and", "b32"}, R{"or", "b32"},
                     R{"xor", "b32"}}) {
    rows.push_back({"redux.sync",
                    "cvt.u32.u64 %x1, %b;\n redux.sync." + std::string(r.op) + "." + r.t + " %x3, %x1, 0xFFFFFFFF;\n cvt.u64.u32 %d, %x3;",
                    in, [&, r](const Inputs&) {
                      const std::string op = r.op;
                      const bool sg = std::string(r.t) == "s32";
                      i64 acc = op == "and" ? -1 : 0;
                      for (int l = 0; l < 32; ++l) {
                        const i64 x = sg ? sx(vb[l], 32) : static_cast<i64>(vb[l]);
                        if (op == "add")
                          acc += x;
                        else if (op == "min")
                          acc = l == 0 ? x : std::min(acc, x);
                        else if (op == "max")
                          acc = l == 0 ? x : std::max(acc, x);
                        else if (op == "and")
                          acc &= x;
                        else if (op == "or")
                          acc |= x;
                        else
                          acc ^= x;
                      }
                      return lo(static_cast<u64>(acc), 32);
                    }});
  }
  rows.push_back(
      {"vote.ballot.b32 (no .sync)", "setp.ne.u64 %q0, %a, 0;\n vote.ballot.b32 %x3, %q0;\n cvt.u64.u32 %d, %x3;", in, [&](const Inputs&) {
         u64 m = 0;
         for (int l = 0; l < 32; ++l)
           if (va[l] != 0) m |= 1ull << l;
         return m;
       }});
  rows.push_back({"vote.any/all.pred (no .sync), bar.warp.sync",
                  "setp.ne.u64 %q0, %a, 0;\n bar.warp.sync 0xFFFFFFFF;\n vote.any.pred %q1, %q0;\n vote.all.pred %q2, !%q0;\n"
                  " selp.u32 %x3, 1, 0, %q1;\n selp.u32 %x4, 1, 0, %q2;\n mov.b64 %d, {%x3, %x4};",
                  in, [&](const Inputs&) { return u64{1}; }});
  check_rows(rows);
  // A membermask that names lanes not executing the instruction is an error naming it.
  const std::string e = [&] {
    try {
      run_rows("setp.lt.u32 %q0, %tid, 16;\n @%q0 bra $SKIP;\n bar.warp.sync 0xFFFFFFFF;\n$SKIP:\n mov.b64 %d, 1;", in);
    } catch (const PtxError& x) {
      return std::string(x.what());
    }
    return std::string();
  }();
  EXPECT_NE(e.find("bar.warp.sync"), std::string::npos) << e;
  EXPECT_NE(e.find("0xffff0000"), std::string::npos) << e;
}

// ---------------------------------------------------------------------------------------------
// Atomics and reductions (PTX ISA 9.7.13.5/6): each operation on a per-lane location (old value
// and new value), then many lanes and CTAs on one location, on one thread and on two.

TEST(PtxConformance, AtomEveryOperationAndType) {
  std::vector<Inputs> in;
  const u64 vals[] = {0, 1, 7, 0x7FFFFFFF, 0x80000000u, 0xFFFFFFFFu, 0x12345678, 0x00000001FFFFFFFFull, 0x8000000000000000ull, 5};
  for (int k = 0; k < 32; ++k) in.push_back({vals[k % 10], vals[(k * 3 + 1) % 10], vals[(k * 7 + 2) % 10]});
  struct A {
    const char* op;
    const char* t;
  };
  std::vector<Row> rows;
  auto oracle = [](const std::string& op, const std::string& t, u64 old, u64 b, u64 c) -> u64 {
    const int w = t.substr(1) == "64" ? 64 : 32;
    old = lo(old, w);
    b = lo(b, w);
    c = lo(c, w);
    const bool sg = t[0] == 's';
    if (op == "add") return lo(old + b, w);
    if (op == "min") return sg ? (sx(old, w) <= sx(b, w) ? old : b) : std::min(old, b);
    if (op == "max") return sg ? (sx(old, w) >= sx(b, w) ? old : b) : std::max(old, b);
    if (op == "inc") return old >= b ? 0 : old + 1;
    if (op == "dec") return (old == 0 || old > b) ? b : old - 1;
    if (op == "and") return old & b;
    if (op == "or") return old | b;
    if (op == "xor") return old ^ b;
    if (op == "exch") return b;
    return old == b ? c : old;  // cas
  };
  for (const A& a : {A{"add", "u32"}, A{"add", "s32"}, A{"min", "s32"}, A{"min", "u32"}, A{"max", "s32"}, A{"max", "u32"}, A{"inc", "u32"},
                     A{"dec", "u32"}, A{"and", "b32"}, A{"or", "b32"}, A{"xor", "b32"}, A{"exch", "b32"}, A{"cas", "b32"}}) {
    const std::string op = a.op, t = a.t;
    const std::string body =
        "cvt.u32.u64 %x0, %a;\n cvt.u32.u64 %x1, %b;\n cvt.u32.u64 %x2, %c;\n st.global.u32 [%rd4], %x0;\n"
        "atom.global." +
        op + "." + t + " %x3, [%rd4], %x1" + (op == "cas" ? ", %x2;" : ";") + "\n ld.global.u32 %x4, [%rd4];\n mov.b64 %d, {%x3, %x4};";
    rows.push_back({"atom 32-bit", body, in, [=](const Inputs& x) { return (oracle(op, t, x.a, x.b, x.c) << 32) | lo(x.a, 32); }});
  }
  for (const A& a : {A{"add", "u64"}, A{"min", "s64"}, A{"max", "u64"}, A{"and", "b64"}, A{"exch", "b64"}, A{"cas", "b64"}}) {
    const std::string op = a.op, t = a.t;
    rows.push_back({"atom 64-bit old",
                    "st.global.u64 [%rd4], %a;\n atom.global." + op + "." + t + " %d, [%rd4], %b" + (op == "cas" ? ", %c;" : ";"), in,
                    [](const Inputs& x) { return x.a; }});
    rows.push_back({"atom 64-bit new",
                    "st.global.u64 [%rd4], %a;\n atom.global." + op + "." + t + " %y0, [%rd4], %b" + (op == "cas" ? ", %c;" : ";") +
                        "\n ld.global.u64 %d, [%rd4];",
                    in, [=](const Inputs& x) { return oracle(op, t, x.a, x.b, x.c); }});
  }
  // red and generic addressing; atom.add.f32 flushes subnormal inputs and results (9.7.13.5).
  rows.push_back({"red.global.add.u32",
                  "cvt.u32.u64 %x0, %a;\n cvt.u32.u64 %x1, %b;\n st.global.u32 [%rd4], %x0;\n red.global.add.u32 [%rd4], %x1;\n"
                  " ld.global.u32 %x4, [%rd4];\n cvt.u64.u32 %d, %x4;",
                  in, [](const Inputs& x) { return lo(x.a + x.b, 32); }});
  rows.push_back({"atom.add.f32 (generic address)",
                  "cvt.u32.u64 %x0, %a;\n cvt.u32.u64 %x1, %b;\n st.global.u32 [%rd4], %x0;\n"
                  " atom.add.f32 %f0, [%rd4], %x1;\n ld.global.u32 %x4, [%rd4];\n cvt.u64.u32 %d, %x4;",
                  [] {
                    std::vector<Inputs> v;
                    const u64 e[] = {0x00000001, 0x80000001, 0x3F800000, 0x00800000, 0x7F7FFFFF, 0xFF800000, 0x7FC00001, 0x33800000};
                    for (int k = 0; k < 32; ++k) v.push_back({e[k % 8], e[(k * 3 + 5) % 8], 0});
                    return v;
                  }(),
                  [](const Inputs& x) {
                    auto fl = [](float f) { return (std::bit_cast<std::uint32_t>(f) & 0x7F800000u) == 0 ? std::copysign(0.0f, f) : f; };
                    const float r = fl(fl(std::bit_cast<float>(static_cast<std::uint32_t>(x.a))) +
                                       fl(std::bit_cast<float>(static_cast<std::uint32_t>(x.b))));
                    return u64{std::isnan(r) ? 0x7FFFFFFFu : std::bit_cast<std::uint32_t>(r)};
                  }});
  check_rows(rows);
}

TEST(PtxConformance, GlobalAtomicsAcrossCtasOnThreads) {
  // 16 CTAs of 64 threads increment one counter and add into one sum; the final values do not
  // depend on the order (the old values do: as a multiset they are 0..1023).
  const std::string text =
      kHead +
      ".visible .entry k(.param .u64 pout)\n{\n  .reg .b64 %rd<8>;\n  .reg .b32 %r<8>;\n"
      "  ld.param.u64 %rd1, [pout];\n  mov.u32 %r0, %tid.x;\n  mov.u32 %r1, %ctaid.x;\n  mad.lo.u32 %r2, %r1, 64, %r0;\n"
      "  atom.global.add.u32 %r3, [%rd1], 1;\n  red.global.add.u64 [%rd1+8], 3;\n"
      "  mul.wide.u32 %rd2, %r2, 4;\n  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3+16], %r3;\n  ret;\n}\n";
  auto m = parse_module(text, "atomics.ptx");
  for (int threads : {1, 2}) {
    std::vector<std::uint32_t> out(4 + 1024, 0);
    Device dev;
    const u64 a = dev.add_global("out", {reinterpret_cast<std::uint8_t*>(out.data()), out.size() * 4});
    RunOptions opt;
    opt.threads = threads;
    run(*m, "k", {16, 1, 1}, {64, 1, 1}, {reinterpret_cast<const std::uint8_t*>(&a), 8}, dev, opt);
    EXPECT_EQ(out[0], 1024u);
    EXPECT_EQ(out[2] | (static_cast<u64>(out[3]) << 32), 3u * 1024u);
    std::vector<std::uint32_t> olds(out.begin() + 4, out.end());
    std::sort(olds.begin(), olds.end());
    for (std::uint32_t k = 0; k < 1024; ++k) ASSERT_EQ(olds[k], k) << threads;
  }
}

// Every run reports the model-dependent instructions it executed (issue 20 §2).
TEST(PtxConformance, RunsReportModelDependentInstructions) {
  const std::string text = kHead +
                           ".visible .entry k()\n{\n  .reg .f32 %f<4>;\n  .reg .pred %p;\n  mov.f32 %f0, 0f3F000000;\n"
                           "  sin.approx.f32 %f1, %f0;\n  lg2.approx.ftz.f32 %f2, %f1;\n  setp.lt.f32 %p, %f2, 0f00000000;\n"
                           "  @%p tanh.approx.f32 %f3, %f2;\n  add.rn.f32 %f3, %f3, %f1;\n  ret;\n}\n";
  auto m = parse_module(text, "approx.ptx");
  Device dev;
  RunOptions opt;
  opt.threads = 2;
  const RunStats st = run(*m, "k", {3, 1, 1}, {64, 1, 1}, {}, dev, opt);
  const std::map<std::string, std::uint64_t> want = {{"sin.approx.f32", 6}, {"lg2.approx.ftz.f32", 6}, {"tanh.approx.f32", 6}};
  EXPECT_EQ(st.model_dependent, want);
}

// cp.async completes at issue (src-size bytes, the rest of cp-size zero-filled); its groups, the
// cache hints and prefetch change nothing (PTX ISA 9.7.9.25, 9.7.9.15/16, 9.7.9.17).
TEST(PtxConformance, CpAsyncPrefetchAndCacheHints) {
  const std::string text =
      kHead +
      ".visible .entry k(.param .u64 pout, .param .u64 pin)\n{\n  .reg .b64 %rd<12>;\n  .reg .b32 %r<12>;\n"
      "  .shared .align 16 .b8 buf[1024];\n"
      "  ld.param.u64 %rd1, [pout];\n  ld.param.u64 %rd2, [pin];\n  mov.u32 %r0, %tid.x;\n"
      "  mul.wide.u32 %rd3, %r0, 16;\n  add.s64 %rd4, %rd2, %rd3;\n  mov.u32 %r1, buf;\n  mad.lo.u32 %r2, %r0, 16, %r1;\n"
      "  and.b32 %r3, %r0, 15;\n  prefetch.global.L2 [%rd4];\n  createpolicy.fractional.L2::evict_last.b64 %rd5, 1.0;\n"
      "  cp.async.cg.shared.global [%r2], [%rd4], 16, %r3;\n  cp.async.commit_group;\n  cp.async.wait_group 0;\n"
      "  ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r2];\n  add.s64 %rd6, %rd1, %rd3;\n"
      "  st.global.L2::cache_hint.v4.u32 [%rd6], {%r4, %r5, %r6, %r7}, %rd5;\n  cp.async.wait_all;\n  ret;\n}\n";
  auto m = parse_module(text, "cpasync.ptx");
  std::vector<std::uint8_t> in(32 * 16), out(32 * 16, 0xEE);
  for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<std::uint8_t>(k * 7 + 1);
  Device dev;
  const u64 a = dev.add_global("out", out), b = dev.add_global_readonly("in", in);
  std::uint8_t params[16];
  std::memcpy(params, &a, 8);
  std::memcpy(params + 8, &b, 8);
  RunOptions opt;
  opt.threads = 1;
  run(*m, "k", {1, 1, 1}, {32, 1, 1}, params, dev, opt);
  for (int l = 0; l < 32; ++l)
    for (int k = 0; k < 16; ++k) EXPECT_EQ(out[16 * l + k], k < (l & 15) ? in[16 * l + k] : 0) << l << " " << k;
}

// A few conformance rows through `rrswin ptx launch` (the user's way in): the two silent wrong
// results of issue 20 and a directed-rounding conversion, and the model-dependent report.
TEST(PtxConformance, ThroughEnc5PtxLaunch) {
  test_util::TempDir t;
  {
    std::FILE* f = std::fopen(t.file("k.ptx").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs((kHead + ".visible .entry k(.param .u64 out, .param .u32 a, .param .u32 b)\n{\n  .reg .b64 %rd<4>;\n  .reg .b32 %r<8>;\n"
                        "  .reg .f32 %f<2>;\n  ld.param.u64 %rd1, [out];\n  ld.param.u32 %r1, [a];\n  ld.param.u32 %r2, [b];\n"
                        "  cvt.s16.s8 %r3, %r1;\n  sub.cc.u32 %r4, %r2, %r1;\n  addc.u32 %r5, 0, 0;\n"
                        "  cvt.rz.f32.u32 %f0, %r2;\n  mov.b32 %r6, %f0;\n  sin.approx.f32 %f1, %f0;\n"
                        "  st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r6};\n  ret;\n}\n")
                   .c_str(),
               f);
    std::fclose(f);
  }
  const test_util::Result r = t.rrswin(
      "ptx launch k.ptx --entry k --grid 1,1,1 --block 1,1,1 --buffer out:16 --param ptr:out --param u32:0x80 --param u32:16777217 -o res");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("model-dependent: sin.approx.f32"), std::string::npos) << r.out;
  std::vector<std::uint32_t> got(4, 0);
  std::FILE* f = std::fopen(t.file("res/out.bin").c_str(), "rb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fread(got.data(), 4, 4, f), 4u);
  std::fclose(f);
  EXPECT_EQ(got[0], 0xFFFFFF80u);  // cvt.s16.s8 of 0x80, sign-extended into the .b32
  EXPECT_EQ(got[1], 16777217u - 0x80u);
  EXPECT_EQ(got[2], 1u);           // no borrow: CF = 1 (carry = not borrow)
  EXPECT_EQ(got[3], 0x4B800000u);  // 16777217 rounded toward zero: 2^24
}

// ---------------------------------------------------------------------------------------------
// setp and set on f16, f16x2, bf16, bf16x2, and set on integers and f32 (PTX ISA "setp", "set",
// "Half Precision Comparison Instructions"): the comparison per half, the .BoolOp with c, set's
// 1.0 / 0.0 (float destinations) or all ones / 0 (integer destinations, per 16-bit half for the x2
// forms). Expected values from the ISA's definition on values decoded independently of src/
// (f16: tests/reference/f16_oracle.hpp; bf16: the upper half of a binary32).
namespace {

double bf16_value(u64 h) { return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(h & 0xFFFF) << 16)); }

bool cmp_ref(const std::string& c, double x, double y) {
  const bool un = std::isnan(x) || std::isnan(y);
  if (c == "eq") return !un && x == y;
  if (c == "ne") return !un && x != y;
  if (c == "lt") return !un && x < y;
  if (c == "le") return !un && x <= y;
  if (c == "gt") return !un && x > y;
  if (c == "ge") return !un && x >= y;
  if (c == "equ") return un || x == y;
  if (c == "neu") return un || x != y;
  if (c == "ltu") return un || x < y;
  if (c == "leu") return un || x <= y;
  if (c == "gtu") return un || x > y;
  if (c == "geu") return un || x >= y;
  if (c == "num") return !un;
  return un;  // nan
}

// 32 lanes of half pairs drawn from the edge values (both halves differ per lane).
std::vector<Inputs> half_pair_inputs(const std::vector<u64>& vals) {
  std::vector<Inputs> v;
  for (std::size_t l = 0; l < 32; ++l) {
    const u64 a = vals[l % vals.size()] | (vals[(l * 5 + 3) % vals.size()] << 16);
    const u64 b = vals[(l * 7 + 1) % vals.size()] | (vals[(l / 3) % vals.size()] << 16);
    v.push_back({a, b, l % 3 == 0 ? 1u : 0u});
  }
  return v;
}

}  // namespace

TEST(PtxConformance, SetAndSetpOnHalvesAndBf16) {
  const std::vector<u64> f16s = {0x0000, 0x8000, 0x3C00, 0xBC00, 0x0001, 0x8001, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x3C01, 0x3555, 0xFFFF};
  const std::vector<u64> bf16s = {0x0000, 0x8000, 0x3F80, 0xBF80, 0x0001, 0x7F80, 0xFF80, 0x7FC0, 0x7F7F, 0x3F81, 0xC000};
  const char* cmps[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  const std::string load = "  cvt.u32.u64 %x0, %a;\n  cvt.u32.u64 %x1, %b;\n  setp.ne.u64 %q3, %c, 0;\n";
  std::vector<Row> rows;
  for (const char* cs : cmps) {
    const std::string c = cs;
    for (int bf = 0; bf < 2; ++bf) {
      const std::string x2 = bf ? "bf16x2" : "f16x2", one = bf ? "bf16" : "f16";
      const auto val = [bf](u64 h) { return bf ? bf16_value(h) : rrswin::oracle::f16_value(static_cast<std::uint16_t>(h)); };
      const auto lo_r = [=](const Inputs& x) { return cmp_ref(c, val(x.a & 0xFFFF), val(x.b & 0xFFFF)); };
      const auto hi_r = [=](const Inputs& x) { return cmp_ref(c, val((x.a >> 16) & 0xFFFF), val((x.b >> 16) & 0xFFFF)); };
      const std::vector<Inputs> in = half_pair_inputs(bf ? bf16s : f16s);
      rows.push_back({"setp.x2 p|q",
                      load + "  setp." + c + "." + x2 +
                          " %q1|%q2, %x0, %x1;\n  selp.u64 %y1, 1, 0, %q1;\n  selp.u64 %y2, 2, 0, %q2;\n  or.b64 %d, %y1, %y2;",
                      in, [=](const Inputs& x) -> u64 { return (lo_r(x) ? 1 : 0) | (hi_r(x) ? 2 : 0); }});
      rows.push_back({"setp.and.x2 with !c",
                      load + "  setp." + c + ".and." + x2 +
                          " %q1|%q2, %x0, %x1, !%q3;\n  selp.u64 %y1, 1, 0, %q1;\n  selp.u64 %y2, 2, 0, %q2;\n  or.b64 %d, %y1, %y2;",
                      in, [=](const Inputs& x) -> u64 {
                        const bool nc = x.c == 0;
                        return (lo_r(x) && nc ? 1 : 0) | (hi_r(x) && nc ? 2 : 0);
                      }});
      rows.push_back({"setp.xor scalar half",
                      "  cvt.u16.u64 %h0, %a;\n  cvt.u16.u64 %h1, %b;\n  setp.ne.u64 %q3, %c, 0;\n  setp." + c + ".xor." + one +
                          " %q1|%q2, %h0, %h1, %q3;\n  selp.u64 %y1, 1, 0, %q1;\n  selp.u64 %y2, 2, 0, %q2;\n  or.b64 %d, %y1, %y2;",
                      in, [=](const Inputs& x) -> u64 {
                        const bool r = lo_r(x), cc = x.c != 0;
                        return ((r != cc) ? 1 : 0) | ((!r) != cc ? 2 : 0);
                      }});
      const u64 onev = bf ? 0x3F80 : 0x3C00;
      rows.push_back({"set.x2.x2", load + "  set." + c + "." + x2 + "." + x2 + " %x2, %x0, %x1;\n  cvt.u64.u32 %d, %x2;", in,
                      [=](const Inputs& x) -> u64 { return (lo_r(x) ? onev : 0) | (hi_r(x) ? onev << 16 : 0); }});
      rows.push_back({"set.or.u32.x2", load + "  set." + c + ".or.u32." + x2 + " %x2, %x0, %x1, %q3;\n  cvt.u64.u32 %d, %x2;", in,
                      [=](const Inputs& x) -> u64 {
                        const bool cc = x.c != 0;
                        return (lo_r(x) || cc ? 0xFFFFu : 0) | (hi_r(x) || cc ? 0xFFFF0000u : 0);
                      }});
      rows.push_back(
          {"set.half.half",
           "  cvt.u16.u64 %h0, %a;\n  cvt.u16.u64 %h1, %b;\n  set." + c + "." + one + "." + one + " %h2, %h0, %h1;\n  cvt.u64.u16 %d, %h2;",
           in, [=](const Inputs& x) -> u64 { return lo_r(x) ? onev : 0; }});
      if (!bf) {
        // .ftz: a subnormal f16 input compares as a zero of its sign.
        const auto fz = [](u64 h) { return rrswin::oracle::f16_value(static_cast<std::uint16_t>((h & 0x7C00) == 0 ? h & 0x8000 : h)); };
        rows.push_back({"setp.ftz.f16x2",
                        load + "  setp." + c +
                            ".ftz.f16x2 %q1|%q2, %x0, %x1;\n  selp.u64 %y1, 1, 0, %q1;\n  selp.u64 %y2, 2, 0, %q2;\n  or.b64 %d, %y1, %y2;",
                        in, [=](const Inputs& x) -> u64 {
                          return (cmp_ref(c, fz(x.a & 0xFFFF), fz(x.b & 0xFFFF)) ? 1 : 0) |
                                 (cmp_ref(c, fz((x.a >> 16) & 0xFFFF), fz((x.b >> 16) & 0xFFFF)) ? 2 : 0);
                        }});
        rows.push_back(
            {"set.ftz.f16.f16",
             "  cvt.u16.u64 %h0, %a;\n  cvt.u16.u64 %h1, %b;\n  set." + c + ".ftz.f16.f16 %h2, %h0, %h1;\n  cvt.u64.u16 %d, %h2;", in,
             [=](const Inputs& x) -> u64 { return cmp_ref(c, fz(x.a & 0xFFFF), fz(x.b & 0xFFFF)) ? 0x3C00 : 0; }});
      }
      rows.push_back(
          {"set.s16.half",
           "  cvt.u16.u64 %h0, %a;\n  cvt.u16.u64 %h1, %b;\n  set." + c + ".s16." + one + " %h2, %h0, %h1;\n  cvt.u64.u16 %d, %h2;", in,
           [=](const Inputs& x) -> u64 { return lo_r(x) ? 0xFFFF : 0; }});
    }
    // set.dtype.f32: 1.0f or all ones.
    std::vector<Inputs> fin;
    const std::uint32_t f32s[] = {0, 0x80000000u, 0x3F800000u, 0xBF800000u, 0x00000001u, 0x7F800000u, 0x7FC00000u, 0x7F7FFFFFu};
    for (int l = 0; l < 32; ++l) fin.push_back({f32s[l % 8], f32s[(l * 3 + 1) % 8], 0});
    const auto fv = [](u64 x) { return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(x))); };
    rows.push_back({"set.f32.f32",
                    load + "  mov.b32 %f0, %x0;\n  mov.b32 %f1, %x1;\n  set." + c +
                        ".f32.f32 %f2, %f0, %f1;\n  mov.b32 %x2, %f2;\n  cvt.u64.u32 %d, %x2;",
                    fin, [=](const Inputs& x) -> u64 { return cmp_ref(c, fv(x.a), fv(x.b)) ? 0x3F800000u : 0; }});
    rows.push_back({"set.f16.f32",
                    load + "  mov.b32 %f0, %x0;\n  mov.b32 %f1, %x1;\n  set." + c + ".f16.f32 %h2, %f0, %f1;\n  cvt.u64.u16 %d, %h2;", fin,
                    [=](const Inputs& x) -> u64 { return cmp_ref(c, fv(x.a), fv(x.b)) ? 0x3C00u : 0; }});
  }
  // Integer set: signed and unsigned orderings.
  for (const char* cs : {"lt", "ge", "lo", "hs", "eq"}) {
    const std::string c = cs;
    rows.push_back({"set.u32.s32",
                    "  cvt.u32.u64 %x0, %a;\n  cvt.u32.u64 %x1, %b;\n  set." + c + ".u32.s32 %x2, %x0, %x1;\n  cvt.u64.u32 %d, %x2;",
                    pairs32(), [=](const Inputs& x) -> u64 {
                      const i64 sa = sx(x.a, 32), sb = sx(x.b, 32);
                      const u64 ua = lo(x.a, 32), ub = lo(x.b, 32);
                      const bool r = c == "lt" ? sa < sb : c == "ge" ? sa >= sb : c == "lo" ? ua < ub : c == "hs" ? ua >= ub : ua == ub;
                      return r ? 0xFFFFFFFFu : 0;
                    }});
  }
  check_rows(rows);
  // set.nan.f16.f16 (issue 20's example): 1.0 exactly where an operand is NaN.
  const std::vector<u64> got =
      run_rows("  cvt.u16.u64 %h0, %a;\n  cvt.u16.u64 %h1, %b;\n  set.nan.f16.f16 %h2, %h0, %h1;\n  cvt.u64.u16 %d, %h2;",
               {{0x7E00, 0x3C00, 0}, {0x3C00, 0xFC01, 0}, {0x7C00, 0xFC00, 0}, {0x0000, 0x8000, 0}});
  EXPECT_EQ(got, (std::vector<u64>{0x3C00, 0x3C00, 0, 0}));
  // What set/setp do not take: a clear error naming the line.
  EXPECT_NE(decode_error("  setp.eq.f16x2 %q1, %x0, %x1;").find("p|q"), std::string::npos);
  EXPECT_NE(decode_error("  set.lo.f32.f32 %f0, %f1, %f2;").find("compare integers"), std::string::npos);
  EXPECT_NE(decode_error("  set.eq.f16.f16x2 %h0, %x1, %x2;").find("not one set allows"), std::string::npos);
  EXPECT_NE(decode_error("  setp.ltu.s32 %q1, %s0, %s1;").find("unordered"), std::string::npos);
  EXPECT_NE(decode_error("  setp.eq.ftz.bf16 %q1, %h1, %h2;").find(".ftz"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// .relu and .sat on half results (PTX ISA cvt, half fma/min/max): .relu turns a negative result
// (-0 too) into +0 and a NaN into the canonical NaN (cuda_fp16.hpp's pre-sm_80 __hfma_relu is
// max.NaN(result, +0)); cvt .sat clamps to [0, 1] with NaN -> +0. Expected: the f16 oracle's
// rounding, an independent bf16 rounding (the nearer of the two truncations, ties to even), the
// f16 oracle's fma, and the ISA's max/min rule written here.
namespace {

u64 relu16(u64 h, bool bf) {
  const bool nan = bf ? ((h & 0x7F80) == 0x7F80 && (h & 0x7F)) : rrswin::oracle::is_nan(static_cast<std::uint16_t>(h));
  if (nan) return 0x7FFF;
  return (h & 0x8000) ? 0 : h;
}
u64 bf16_round_ref(std::uint32_t fb) {
  const float f = std::bit_cast<float>(fb);
  if (std::isnan(f)) return 0x7FFF;
  const std::uint32_t t = fb & 0xFFFF0000u;
  const double lo = std::bit_cast<float>(t), x = f;
  if (lo == x) return t >> 16;
  const std::uint32_t up = t + 0x10000u;  // the next bf16 away from zero (may be Inf)
  const double hi =
      (up & 0x7FFFFFFFu) == 0x7F800000u ? std::copysign(std::ldexp(1.0, 128), x) : static_cast<double>(std::bit_cast<float>(up));
  const double dl = std::fabs(x - lo), dh = std::fabs(hi - x);  // exact in binary64
  if (dl < dh || (dl == dh && ((t >> 16) & 1) == 0)) return t >> 16;
  return up >> 16;
}
u64 max_ref(u64 a, u64 b, bool is_max, bool nan_mode) {
  const auto fa = static_cast<std::uint16_t>(a), fb = static_cast<std::uint16_t>(b);
  const bool na = rrswin::oracle::is_nan(fa), nb = rrswin::oracle::is_nan(fb);
  if (na && nb) return 0x7FFF;
  if (nan_mode && (na || nb)) return 0x7FFF;
  if (na) return b;
  if (nb) return a;
  const double x = rrswin::oracle::f16_value(fa), y = rrswin::oracle::f16_value(fb);
  if (x == y && x == 0) return is_max ? ((a & b & 0x8000) ? a : 0) : (((a | b) & 0x8000) ? 0x8000 : a);
  return is_max ? (x >= y ? a : b) : (x <= y ? a : b);
}

}  // namespace

TEST(PtxConformance, ReluAndSatOnHalfResults) {
  const std::uint32_t f32s[] = {0x00000000u, 0x80000000u, 0x3F800000u, 0xBF800000u, 0x3F800001u, 0x477FF000u, 0xC77FF000u, 0x7F800000u,
                                0xFF800000u, 0x7FC00001u, 0xFFC00000u, 0x33800000u, 0xB3800001u, 0x3F000000u, 0x3F7FF000u, 0x3F7FFFFFu,
                                0x387FC000u, 0x40490FDBu, 0xC0490FDBu, 0x3F808000u, 0x3F818000u, 0x00000001u, 0x7F7FFFFFu, 0xBF7FF000u};
  std::vector<Inputs> in;
  for (int l = 0; l < 32; ++l) in.push_back({f32s[l % 24], f32s[(l * 7 + 5) % 24], 0});
  const auto r16 = [](u64 x) {
    return static_cast<u64>(rrswin::oracle::round_double(static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(x)))));
  };
  const std::string load = "  cvt.u32.u64 %x0, %a;\n  cvt.u32.u64 %x1, %b;\n  mov.b32 %f0, %x0;\n  mov.b32 %f1, %x1;\n";
  std::vector<Row> rows = {
      {"cvt.rn.relu.f16.f32", load + "  cvt.rn.relu.f16.f32 %h0, %f0;\n  cvt.u64.u16 %d, %h0;", in,
       [&](const Inputs& x) { return relu16(r16(x.a), false); }},
      {"cvt.rn.sat.f16.f32", load + "  cvt.rn.sat.f16.f32 %h0, %f0;\n  cvt.u64.u16 %d, %h0;", in,
       [&](const Inputs& x) -> u64 {
         const u64 h = r16(x.a);
         if (rrswin::oracle::is_nan(static_cast<std::uint16_t>(h)) || (h & 0x8000)) return 0;
         return h > 0x3C00 ? 0x3C00 : h;
       }},
      {"cvt.rn.relu.f16x2.f32 (a -> upper half)", load + "  cvt.rn.relu.f16x2.f32 %x2, %f0, %f1;\n  cvt.u64.u32 %d, %x2;", in,
       [&](const Inputs& x) { return relu16(r16(x.b), false) | (relu16(r16(x.a), false) << 16); }},
      {"cvt.rn.relu.bf16.f32", load + "  cvt.rn.relu.bf16.f32 %h0, %f0;\n  cvt.u64.u16 %d, %h0;", in,
       [&](const Inputs& x) { return relu16(bf16_round_ref(static_cast<std::uint32_t>(x.a)), true); }},
      {"cvt.rn.relu.bf16x2.f32", load + "  cvt.rn.relu.bf16x2.f32 %x2, %f0, %f1;\n  cvt.u64.u32 %d, %x2;", in,
       [&](const Inputs& x) {
         return relu16(bf16_round_ref(static_cast<std::uint32_t>(x.b)), true) |
                (relu16(bf16_round_ref(static_cast<std::uint32_t>(x.a)), true) << 16);
       }},
  };
  // The f16 instructions: operands are half pairs.
  const std::vector<u64> f16s = {0x0000, 0x8000, 0x3C00, 0xBC00, 0x0001, 0x8001, 0x7BFF,
                                 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE01, 0x3555, 0xB555};
  std::vector<Inputs> hin;
  for (std::size_t l = 0; l < 32; ++l)
    hin.push_back({f16s[l % 14] | (f16s[(l * 3 + 2) % 14] << 16), f16s[(l * 5 + 1) % 14] | (f16s[(l / 2) % 14] << 16),
                   f16s[(l * 11 + 7) % 14] | (f16s[(l * 13) % 14] << 16)});
  const std::string hload =
      "  cvt.u32.u64 %x0, %a;\n  cvt.u32.u64 %x1, %b;\n  cvt.u32.u64 %x2, %c;\n  cvt.u16.u32 %h0, %x0;\n  cvt.u16.u32 %h1, %x1;\n  cvt.u16.u32 %h2, %x2;\n";
  const auto half = [](u64 x, int k) { return (x >> (16 * k)) & 0xFFFF; };
  const auto fma_ref = [&](const Inputs& x, int k) {
    return static_cast<u64>(rrswin::oracle::fma(static_cast<std::uint16_t>(half(x.a, k)), static_cast<std::uint16_t>(half(x.b, k)),
                                                static_cast<std::uint16_t>(half(x.c, k))));
  };
  rows.push_back({"fma.rn.relu.f16", hload + "  fma.rn.relu.f16 %h3, %h0, %h1, %h2;\n  cvt.u64.u16 %d, %h3;", hin,
                  [&](const Inputs& x) { return relu16(fma_ref(x, 0), false); }});
  rows.push_back({"fma.rn.relu.f16x2", hload + "  fma.rn.relu.f16x2 %x3, %x0, %x1, %x2;\n  cvt.u64.u32 %d, %x3;", hin,
                  [&](const Inputs& x) { return relu16(fma_ref(x, 0), false) | (relu16(fma_ref(x, 1), false) << 16); }});
  for (int is_max = 0; is_max < 2; ++is_max)
    for (int nan_mode = 0; nan_mode < 2; ++nan_mode)
      for (int relu = 0; relu < 2; ++relu) {
        const std::string op = std::string(is_max ? "max" : "min") + (nan_mode ? ".NaN" : "") + (relu ? ".relu" : "");
        const auto one = [=](u64 a, u64 b) {
          const u64 r = max_ref(a, b, is_max, nan_mode);
          return relu ? relu16(r, false) : r;
        };
        rows.push_back({"half min/max", hload + "  " + op + ".f16x2 %x3, %x0, %x1;\n  cvt.u64.u32 %d, %x3;", hin,
                        [=](const Inputs& x) { return one(half(x.a, 0), half(x.b, 0)) | (one(half(x.a, 1), half(x.b, 1)) << 16); }});
        rows.push_back({"half min/max scalar", hload + "  " + op + ".f16 %h3, %h0, %h1;\n  cvt.u64.u16 %d, %h3;", hin,
                        [=](const Inputs& x) { return one(half(x.a, 0), half(x.b, 0)); }});
      }
  check_rows(rows);
  EXPECT_NE(decode_error("  cvt.rn.relu.f32.f16 %f0, %h0;").find("not supported"), std::string::npos);
  EXPECT_NE(decode_error("  cvt.rn.relu.f16.f64 %h0, %g0;").find("not supported"), std::string::npos);
  EXPECT_NE(decode_error("  fma.rn.relu.f32 %f0, %f1, %f2, %f3;").find("unsupported"), std::string::npos);
  EXPECT_NE(decode_error("  cvt.sat.f16.s32 %h0, %s0;").find(".sat"), std::string::npos);
}

// docs/readings.md "ptx-relu-negative-zero": a -0 result of .relu is +0 by default and stays -0
// with --reading ptx-relu-negative-zero=keep; every other value is the same under both readings.
// Expected values by definition: -0 * 1 + -0 = -0 exactly (IEEE 754 6.3), min(-0, +0) = -0 (PTX
// min orders -0 below +0), -0.0f rounds to the -0 of f16 and bf16.
TEST(PtxConformance, ReluNegativeZeroReading) {
  const std::string h = "  cvt.u16.u64 %h0, %a;\n  cvt.u16.u64 %h1, %b;\n  cvt.u16.u64 %h2, %c;\n";
  const std::string f = "  cvt.u32.u64 %x0, %a;\n  mov.b32 %f0, %x0;\n  cvt.u32.u64 %x1, %b;\n  mov.b32 %f1, %x1;\n";
  struct Case {
    std::string body;
    Inputs in;
    u64 plus_zero, keep;
  };
  const Case cases[] = {
      {h + "  fma.rn.relu.f16 %h3, %h0, %h1, %h2;\n  cvt.u64.u16 %d, %h3;", {0x8000, 0x3C00, 0x8000}, 0x0000, 0x8000},
      {h + "  fma.rn.relu.f16 %h3, %h0, %h1, %h2;\n  cvt.u64.u16 %d, %h3;", {0xBC00, 0x3C00, 0x0000}, 0x0000, 0x0000},  // -1: +0 both
      {h + "  fma.rn.relu.f16 %h3, %h0, %h1, %h2;\n  cvt.u64.u16 %d, %h3;", {0x7E01, 0x3C00, 0x0000}, 0x7FFF, 0x7FFF},  // NaN
      {h + "  min.relu.f16 %h3, %h0, %h1;\n  cvt.u64.u16 %d, %h3;", {0x8000, 0x0000, 0}, 0x0000, 0x8000},
      {h + "  mov.b32 %x3, {%h0, %h1};\n  mov.b32 %x4, {%h2, %h2};\n  fma.rn.relu.f16x2 %x5, %x3, %x4, %x3;\n  cvt.u64.u32 %d, %x5;",
       {0x8000, 0x3C00, 0x3C00},
       0x40000000,
       0x40008000},  // lo: -0*1 + -0 = -0; hi: 1*1 + 1 = 2
      {f + "  cvt.rn.relu.f16.f32 %h3, %f0;\n  cvt.u64.u16 %d, %h3;", {0x80000000u, 0, 0}, 0x0000, 0x8000},
      {f + "  cvt.rn.relu.bf16.f32 %h3, %f0;\n  cvt.u64.u16 %d, %h3;", {0x80000000u, 0, 0}, 0x0000, 0x8000},
      {f + "  cvt.rn.relu.bf16x2.f32 %x3, %f0, %f1;\n  cvt.u64.u32 %d, %x3;", {0x80000000u, 0xBF800000u, 0}, 0x00000000, 0x80000000},
      {f + "  cvt.rn.relu.f16x2.f32 %x3, %f0, %f1;\n  cvt.u64.u32 %d, %x3;", {0x3F800000u, 0x80000000u, 0}, 0x3C000000, 0x3C008000},
      // e4m3 pairs (enc0's embedding): -0 -> e4m3 -0 (0x80); -2^-12 rounds to e4m3 -0 (|x| <= 2^-10).
      {h + "  mov.b32 %x3, {%h0, %h1};\n  cvt.rn.satfinite.relu.e4m3x2.f16x2 %h3, %x3;\n  cvt.u64.u16 %d, %h3;",
       {0x8000, 0x8C00, 0},
       0x0000,
       0x8080},
  };
  RunOptions keep;
  set_reading(keep, "ptx-relu-negative-zero=keep");
  RunOptions plus;
  set_reading(plus, "ptx-relu-negative-zero=plus-zero");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body);
    EXPECT_EQ(run_rows(c.body, {c.in})[0], c.plus_zero);  // the default
    EXPECT_EQ(run_rows(c.body, {c.in}, plus)[0], c.plus_zero);
    EXPECT_EQ(run_rows(c.body, {c.in}, keep)[0], c.keep);
  }
  RunOptions o;
  EXPECT_THROW(set_reading(o, "ptx-relu-negative-zero=minus"), PtxError);
  EXPECT_THROW(set_reading(o, "e61-border=clamp"), PtxError);
}

// cvt.rn.satfinite.relu.e4m3x2.f16x2 (PTX ISA cvt: .relu clamps a negative result to 0 and makes a
// NaN result the canonical NaN; .satfinite: |x| > 448 and Inf -> 448 with the sign). The codes from
// the E4M3 format (bias 7, 0x7E = 448, 0x7F NaN): 1.0 = 0x38, 0.5 = 0x30, -1.0 -> 0, 500 -> 0x7E,
// +Inf -> 0x7E, -Inf -> 0, a NaN of either sign -> 0x7F on every profile (zluda keeps the sign
// without .relu).
TEST(PtxConformance, CvtReluE4m3x2F16x2) {
  const std::string body =
      "  cvt.u16.u64 %h0, %a;\n  cvt.u16.u64 %h1, %b;\n  mov.b32 %x3, {%h0, %h1};\n"
      "  cvt.rn.satfinite.relu.e4m3x2.f16x2 %h3, %x3;\n  cvt.u64.u16 %d, %h3;";
  struct Case {
    u64 lo, hi, want;
  };
  const Case cases[] = {{0x3C00, 0x3800, 0x3038}, {0xBC00, 0x3C00, 0x3800}, {0x5FD0, 0x7C00, 0x7E7E},
                        {0xFC00, 0x7E00, 0x7F00}, {0xFE00, 0xFFFF, 0x7F7F}, {0x0000, 0xB800, 0x0000}};
  for (const char* profile : {"ada", "zluda"}) {
    RunOptions o;
    o.profile = rrswin::find_profile(profile);
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(profile) + " " + std::to_string(c.lo) + " " + std::to_string(c.hi));
      EXPECT_EQ(run_rows(body, {{c.lo, c.hi, 0}}, o)[0], c.want);
    }
  }
  // Without .relu, zluda keeps a NaN's sign: the relu form is not the plain one.
  RunOptions z;
  z.profile = rrswin::find_profile("zluda");
  EXPECT_EQ(
      run_rows("  cvt.u16.u64 %h0, %a;\n  mov.b32 %x3, {%h0, %h0};\n  cvt.rn.satfinite.e4m3x2.f16x2 %h3, %x3;\n  cvt.u64.u16 %d, %h3;",
               {{0xFE00, 0, 0}}, z)[0],
      0xFFFFu);
}

// ---------------------------------------------------------------------------------------------
// ldmatrix / stmatrix (PTX ISA "ldmatrix", "stmatrix"): shared memory holds 64 rows of 8 b16
// (element value = 1000 + 8 * row + column, as u16); lane 8j + i addresses row perm(8j + i) as
// row i of matrix j. Expected, from the ISA's fragment definition written here: register j of
// lane l holds (l/4, 2(l%4)) and (l/4, 2(l%4)+1) of matrix j (transposed with .trans).
namespace {

std::vector<std::uint32_t> run_matrix_kernel(const std::string& insn, bool store) {
  const std::string ptx =
      ".version 8.0\n.target sm_90\n.address_size 64\n.shared .align 16 .b8 sm[1024];\n"
      ".visible .entry k(.param .u64 pout, .param .u64 pin)\n{\n"
      "  .reg .b32 %r<16>;\n  .reg .b64 %rd<8>;\n  .reg .pred %p<2>;\n"
      "  ld.param.u64 %rd1, [pout];\n  ld.param.u64 %rd2, [pin];\n  mov.u32 %r0, %tid.x;\n"
      // fill: lane l writes rows 2l, 2l+1 (32 bytes) from in[8l .. 8l+7]
      "  mul.wide.u32 %rd3, %r0, 32;\n  add.s64 %rd4, %rd2, %rd3;\n  cvt.u32.u64 %r1, %rd3;\n"
      "  ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd4];\n  st.shared.v4.u32 [%r1], {%r4, %r5, %r6, %r7};\n"
      "  ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd4+16];\n  st.shared.v4.u32 [%r1+16], {%r4, %r5, %r6, %r7};\n"
      // the row address: perm(l) = (l * 37 + 11) mod 64 (a permutation: 37 is odd)
      "  mad.lo.u32 %r2, %r0, 37, 11;\n  and.b32 %r2, %r2, 63;\n  shl.b32 %r2, %r2, 4;\n"
      // the registers stmatrix stores: in[256 + 4l + j]
      "  mul.wide.u32 %rd5, %r0, 16;\n  add.s64 %rd6, %rd2, %rd5;\n  ld.global.v4.u32 {%r8, %r9, %r10, %r11}, [%rd6+1024];\n" +
      insn +
      // out[4l + j] = the registers (ldmatrix), then out[128 + ...] = shared memory (stmatrix)
      "\n  add.s64 %rd7, %rd1, %rd5;\n  st.global.v4.u32 [%rd7], {%r8, %r9, %r10, %r11};\n"
      "  ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r1];\n  add.s64 %rd7, %rd1, %rd3;\n  st.global.v4.u32 [%rd7+512], {%r4, %r5, %r6, %r7};\n"
      "  ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r1+16];\n  st.global.v4.u32 [%rd7+528], {%r4, %r5, %r6, %r7};\n  ret;\n}\n";
  (void)store;
  std::vector<std::uint32_t> in(256 + 128), out(128 + 256, 0);
  for (int row = 0; row < 64; ++row)
    for (int c = 0; c < 8; c += 2) in[row * 4 + c / 2] = (1000u + 8 * row + c) | ((1000u + 8 * row + c + 1) << 16);
  for (int i = 0; i < 128; ++i) in[256 + i] = 0x70000000u + static_cast<std::uint32_t>(i) * 0x00010003u;
  auto m = parse_module(ptx, "matrix.ptx");
  test::run_out_in(*m, out, in);
  return out;
}

}  // namespace

TEST(PtxConformance, LdmatrixAndStmatrix) {
  const auto perm = [](int l) { return (l * 37 + 11) % 64; };
  for (int num : {1, 2, 4})
    for (int trans = 0; trans < 2; ++trans) {
      SCOPED_TRACE(std::to_string(num) + (trans ? " trans" : ""));
      const std::string regs = num == 1 ? "%r8" : num == 2 ? "{%r8, %r9}" : "{%r8, %r9, %r10, %r11}";
      const std::string shape = ".sync.aligned.m8n8.x" + std::to_string(num) + (trans ? ".trans" : "") + ".shared.b16";
      // ldmatrix
      const std::vector<std::uint32_t> got = run_matrix_kernel("  ldmatrix" + shape + " " + regs + ", [%r2];", false);
      for (int l = 0; l < 32; ++l)
        for (int j = 0; j < num; ++j) {
          std::uint32_t want = 0;
          for (int h = 0; h < 2; ++h) {
            const int r = l / 4, c = 2 * (l % 4) + h;
            const int row = perm(8 * j + (trans ? c : r)), col = trans ? r : c;
            want |= (1000u + 8 * row + col) << (16 * h);
          }
          EXPECT_EQ(got[4 * l + j], want) << "lane " << l << " reg " << j;
        }
      // stmatrix: the registers in[256 + 4l + j] land at the rows, the other rows keep their values
      const std::vector<std::uint32_t> st = run_matrix_kernel("  stmatrix" + shape + " [%r2], " + regs + ";", true);
      std::vector<std::uint16_t> mem(512);
      for (int row = 0; row < 64; ++row)
        for (int c = 0; c < 8; ++c) mem[row * 8 + c] = static_cast<std::uint16_t>(1000 + 8 * row + c);
      for (int l = 0; l < 32; ++l)
        for (int j = 0; j < num; ++j) {
          const std::uint32_t x = 0x70000000u + static_cast<std::uint32_t>(4 * l + j) * 0x00010003u;
          for (int h = 0; h < 2; ++h) {
            const int r = l / 4, c = 2 * (l % 4) + h;
            const int row = perm(8 * j + (trans ? c : r)), col = trans ? r : c;
            mem[row * 8 + col] = static_cast<std::uint16_t>(x >> (16 * h));
          }
        }
      for (int i = 0; i < 256; ++i) EXPECT_EQ(st[128 + i], mem[2 * i] | (static_cast<std::uint32_t>(mem[2 * i + 1]) << 16)) << "word " << i;
    }
  EXPECT_NE(decode_error("  ldmatrix.sync.aligned.m8n8.x3.shared.b16 {%x0, %x1, %x2}, [%x3];").find("unsupported modifier .x3"),
            std::string::npos);
  EXPECT_NE(decode_error("  ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%x0}, [%x3];").find("takes 2 registers"), std::string::npos);
  EXPECT_NE(decode_error("  stmatrix.sync.aligned.m16n8.x1.shared.b16 [%x3], %x0;").find("unsupported modifier"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// bf16 / bf16x2 arithmetic (PTX ISA half arithmetic: add/sub/mul.rn, min/max, neg/abs). Expected:
// MPFR at bf16's precision (8 bits) and exponent range (subnormals down to 2^-133), NaN results
// the canonical 0x7FFF; min/max, neg and abs by the ISA's rules written here.
#if defined(RRSWIN_HAVE_MPFR)
namespace {

u64 bf16_mpfr(int op, u64 a, u64 b, u64 c = 0) {
  const auto val = [](u64 h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h & 0xFFFF) << 16); };
  const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(-132);
  mpfr_set_emax(128);
  mpfr_t x, y, w, z;
  mpfr_inits2(8, x, y, w, z, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_flt(x, val(a), MPFR_RNDN);  // exact: a bf16 is an 8-bit binary32
  mpfr_set_flt(y, val(b), MPFR_RNDN);
  mpfr_set_flt(w, val(c), MPFR_RNDN);
  int t = op == 0   ? mpfr_add(z, x, y, MPFR_RNDN)
          : op == 1 ? mpfr_sub(z, x, y, MPFR_RNDN)
          : op == 2 ? mpfr_mul(z, x, y, MPFR_RNDN)
                    : mpfr_fma(z, x, y, w, MPFR_RNDN);  // op 3: a*b + c, one rounding
  t = mpfr_subnormalize(z, t, MPFR_RNDN);
  (void)t;
  u64 r = 0x7FFF;
  if (!mpfr_nan_p(z)) r = std::bit_cast<std::uint32_t>(mpfr_get_flt(z, MPFR_RNDN)) >> 16;
  mpfr_clears(x, y, w, z, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  return r;
}

u64 bf16_minmax_ref(u64 a, u64 b, bool is_max) {
  const auto nan = [](u64 h) { return (h & 0x7F80) == 0x7F80 && (h & 0x7F); };
  const auto val = [](u64 h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h & 0xFFFF) << 16); };
  if (nan(a) && nan(b)) return 0x7FFF;
  if (nan(a)) return b;
  if (nan(b)) return a;
  const float x = val(a), y = val(b);
  if (x == 0 && y == 0) return is_max ? ((a & b & 0x8000) ? a : 0) : (((a | b) & 0x8000) ? 0x8000 : a);
  return is_max ? (x >= y ? a : b) : (x <= y ? a : b);
}

}  // namespace

TEST(PtxConformance, Bf16ArithmeticAgainstMpfr) {
  const std::vector<u64> vals = {0x0000, 0x8000, 0x3F80, 0xBF80, 0x0001, 0x8001, 0x007F, 0x0080, 0x7F7F, 0xFF7F, 0x7F80,
                                 0xFF80, 0x7FC0, 0xFFC1, 0x3F81, 0x4049, 0xC049, 0x1F80, 0x2000, 0x5F00, 0x3FFF, 0x00FF};
  std::vector<std::vector<Inputs>> sets;
  for (int s = 0; s < 8; ++s) {
    std::vector<Inputs> in;
    for (std::size_t l = 0; l < 32; ++l) {
      const std::size_t i = (l + 32 * s) % vals.size(), j = (l * 7 + 3 * s + 1) % vals.size(), k = (l * 5 + s) % vals.size(),
                        q = (l / 2 + 11 * s) % vals.size();
      in.push_back({vals[i] | (vals[k] << 16), vals[j] | (vals[q] << 16),
                    vals[(l * 3 + 5 * s + 2) % vals.size()] | (vals[(l + 7) % vals.size()] << 16)});
    }
    sets.push_back(in);
  }
  // Random patterns too (most of them finite, many near each other for cancellation).
  std::mt19937_64 rng(20261201);
  for (int s = 0; s < 8; ++s) {
    std::vector<Inputs> in;
    for (int l = 0; l < 32; ++l) {
      const u64 a = rng() & 0xFFFFFFFFu, b = s % 2 ? (a ^ (rng() & 0x00070007u)) : rng() & 0xFFFFFFFFu;
      // c near -a*b for some lanes (cancellation, the hard case of one rounding), else random.
      const auto neg_prod = [](u64 x, u64 y) {
        const auto v = [](u64 h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h & 0xFFFF) << 16); };
        return static_cast<u64>(std::bit_cast<std::uint32_t>(-(v(x) * v(y))) >> 16);
      };
      const u64 c = l % 3 == 0 ? (neg_prod(a, b) | (neg_prod(a >> 16, b >> 16) << 16)) ^ (rng() & 0x00030003u) : rng() & 0xFFFFFFFFu;
      in.push_back({a, b, c});
    }
    sets.push_back(in);
  }
  const std::string load =
      "  cvt.u32.u64 %x0, %a;\n  cvt.u32.u64 %x1, %b;\n  cvt.u32.u64 %x3, %c;\n  cvt.u16.u32 %h0, %x0;\n  cvt.u16.u32 %h1, %x1;\n"
      "  cvt.u16.u32 %h3, %x3;\n";
  const auto half = [](u64 x, int k) { return (x >> (16 * k)) & 0xFFFF; };
  std::vector<Row> rows;
  const char* ops[] = {"add.rn", "sub.rn", "mul.rn"};
  for (const std::vector<Inputs>& in : sets) {
    for (int op = 0; op < 3; ++op) {
      rows.push_back(
          {"bf16x2 arithmetic", load + "  " + std::string(ops[op]) + ".bf16x2 %x2, %x0, %x1;\n  cvt.u64.u32 %d, %x2;", in,
           [=](const Inputs& x) { return bf16_mpfr(op, half(x.a, 0), half(x.b, 0)) | (bf16_mpfr(op, half(x.a, 1), half(x.b, 1)) << 16); }});
      rows.push_back({"bf16 arithmetic", load + "  " + std::string(ops[op]) + ".bf16 %h2, %h0, %h1;\n  cvt.u64.u16 %d, %h2;", in,
                      [=](const Inputs& x) { return bf16_mpfr(op, half(x.a, 0), half(x.b, 0)); }});
    }
    rows.push_back({"fma.rn.bf16x2", load + "  fma.rn.bf16x2 %x2, %x0, %x1, %x3;\n  cvt.u64.u32 %d, %x2;", in, [=](const Inputs& x) {
                      return bf16_mpfr(3, half(x.a, 0), half(x.b, 0), half(x.c, 0)) |
                             (bf16_mpfr(3, half(x.a, 1), half(x.b, 1), half(x.c, 1)) << 16);
                    }});
    rows.push_back({"fma.rn.bf16", load + "  fma.rn.bf16 %h2, %h0, %h1, %h3;\n  cvt.u64.u16 %d, %h2;", in,
                    [=](const Inputs& x) { return bf16_mpfr(3, half(x.a, 0), half(x.b, 0), half(x.c, 0)); }});
    rows.push_back({"fma.rn.relu.bf16", load + "  fma.rn.relu.bf16 %h2, %h0, %h1, %h3;\n  cvt.u64.u16 %d, %h2;", in,
                    [=](const Inputs& x) { return relu16(bf16_mpfr(3, half(x.a, 0), half(x.b, 0), half(x.c, 0)), true); }});
    rows.push_back({"max.bf16x2", load + "  max.bf16x2 %x2, %x0, %x1;\n  cvt.u64.u32 %d, %x2;", in, [=](const Inputs& x) {
                      return bf16_minmax_ref(half(x.a, 0), half(x.b, 0), true) | (bf16_minmax_ref(half(x.a, 1), half(x.b, 1), true) << 16);
                    }});
    rows.push_back({"min.bf16", load + "  min.bf16 %h2, %h0, %h1;\n  cvt.u64.u16 %d, %h2;", in,
                    [=](const Inputs& x) { return bf16_minmax_ref(half(x.a, 0), half(x.b, 0), false); }});
    rows.push_back({"neg.bf16x2", load + "  neg.bf16x2 %x2, %x0;\n  cvt.u64.u32 %d, %x2;", in,
                    [=](const Inputs& x) { return (x.a & 0xFFFFFFFFu) ^ 0x80008000u; }});
    rows.push_back({"abs.bf16", load + "  abs.bf16 %h2, %h0;\n  cvt.u64.u16 %d, %h2;", in, [=](const Inputs& x) { return x.a & 0x7FFF; }});
  }
  check_rows(rows);
  EXPECT_NE(decode_error("  fma.rz.bf16 %h0, %h1, %h2, %h3;").find("rounding modifier"), std::string::npos);
  EXPECT_NE(decode_error("  sub.rn.relu.bf16 %h0, %h1, %h2;").find("unsupported"), std::string::npos);
  EXPECT_NE(decode_error("  add.rz.bf16 %h0, %h1, %h2;").find("rounding modifier"), std::string::npos);
  EXPECT_NE(decode_error("  max.NaN.bf16 %h0, %h1, %h2;").find(".NaN"), std::string::npos);
}
#endif

// ---------------------------------------------------------------------------------------------
// Integer mma (PTX ISA "mma", integer operations: .s32 accumulators, .satfinite limits an
// overflowing result to [MIN_INT32, MAX_INT32], otherwise it wraps). Expected: the matrix product
// computed here in 64-bit integers, the fragments packed by the ISA's layout formulas written out
// below (9.7.14.5.x "Matrix Fragments for mma.m8n8k16 / mma.m16n8k16 with integer type /
// mma.m16n8k32").
namespace {

struct IntMmaCase {
  const char* shape;
  int m, k, na, nb, nc;
};

// The ISA's row / column of element i of a lane's fragment (g = lane >> 2, t = lane % 4).
int isa_a_row(const IntMmaCase& s, int g, int i) { return s.m == 8 ? g : ((i / 4) % 2 ? g + 8 : g); }
int isa_a_col(const IntMmaCase& s, int t, int i) { return s.k == 32 ? t * 4 + (i & 3) + (i >= 8 ? 16 : 0) : t * 4 + (i & 3); }
int isa_b_row(int t, int i) { return t * 4 + (i & 3) + (i >= 4 ? 16 : 0); }
int isa_c_row(int g, int i) { return i < 2 ? g : g + 8; }
int isa_c_col(int t, int i) { return t * 2 + (i & 1); }

std::vector<u64> run_int_mma(const std::string& op, const IntMmaCase& s, const std::vector<std::uint32_t>& regs) {
  std::string vec_d, vec_a, vec_b, vec_c, loads;
  int r = 0;
  const auto take = [&](int n, std::string& vec) {
    vec = "{";
    for (int i = 0; i < n; ++i, ++r) {
      vec += (i ? ", %v" : "%v") + std::to_string(r);
      loads += "  ld.global.b32 %v" + std::to_string(r) + ", [%rd5+" + std::to_string(4 * r) + "];\n";
    }
    vec += "}";
  };
  take(s.na, vec_a);
  take(s.nb, vec_b);
  take(s.nc, vec_c);
  vec_d = "{%o0, %o1" + std::string(s.nc == 4 ? ", %o2, %o3}" : "}");
  std::string stores;
  for (int i = 0; i < s.nc; ++i) stores += "  st.global.b32 [%rd4+" + std::to_string(4 * i) + "], %o" + std::to_string(i) + ";\n";
  const std::string text =
      ".version 8.0\n.target sm_89\n.address_size 64\n.visible .entry k(.param .u64 pout, .param .u64 pin)\n{\n"
      "  .reg .b64 %rd<8>;\n  .reg .b32 %tid, %v<16>;\n  .reg .s32 %o<4>;\n"
      "  ld.param.u64 %rd1, [pout];\n  ld.param.u64 %rd2, [pin];\n  mov.u32 %tid, %tid.x;\n"
      "  mul.wide.u32 %rd3, %tid, 16;\n  add.s64 %rd4, %rd1, %rd3;\n  mul.wide.u32 %rd3, %tid, 40;\n  add.s64 %rd5, %rd2, %rd3;\n" +
      loads + "  " + op + " " + vec_d + ", " + vec_a + ", " + vec_b + ", " + vec_c + ";\n" + stores + "  ret;\n}\n";
  auto m = parse_module(text, "int_mma.ptx");
  std::vector<std::uint32_t> in = regs, out(32 * 4, 0xDEADBEEFu);
  test::run_out_in(*m, out, in);
  return std::vector<u64>(out.begin(), out.end());
}

}  // namespace

TEST(PtxConformance, IntegerMma) {
  const IntMmaCase shapes[] = {{"m8n8k16", 8, 16, 1, 1, 2}, {"m16n8k16", 16, 16, 2, 1, 4}, {"m16n8k32", 16, 32, 4, 2, 4}};
  std::mt19937 rng(20261202);
  const std::int64_t edges8[] = {-128, 127, 0, -1, 1, 255, 128};
  const std::int32_t edges32[] = {INT32_MAX, INT32_MIN, 0, -1, INT32_MAX - 100, INT32_MIN + 100};
  for (const IntMmaCase& s : shapes)
    for (int types = 0; types < 4; ++types)
      for (int sat = 0; sat < 2; ++sat) {
        const bool as = types & 1, bs = types & 2;
        const std::string op = std::string("mma.sync.aligned.") + s.shape + ".row.col" + (sat ? ".satfinite" : "") + ".s32" +
                               (as ? ".s8" : ".u8") + (bs ? ".s8" : ".u8") + ".s32";
        SCOPED_TRACE(op);
        // Matrices: random bytes with the edge values, C with the 32-bit edges (overflow both ways).
        std::int64_t A[16][32], B[32][8], C[16][8];
        const auto byte = [&](bool sg) {
          const std::int64_t e = edges8[rng() % 7];
          const std::int64_t v = rng() % 3 == 0 ? e : static_cast<std::int64_t>(rng() % 256);
          const std::int64_t b8 = v & 0xFF;
          return sg ? (b8 >= 128 ? b8 - 256 : b8) : b8;
        };
        for (int i = 0; i < s.m; ++i)
          for (int k = 0; k < s.k; ++k) A[i][k] = byte(as);
        for (int k = 0; k < s.k; ++k)
          for (int j = 0; j < 8; ++j) B[k][j] = byte(bs);
        for (int i = 0; i < s.m; ++i)
          for (int j = 0; j < 8; ++j) C[i][j] = rng() % 2 ? edges32[rng() % 6] : static_cast<std::int32_t>(rng());
        // The lanes' registers (na a, nb b, nc c; 10 words per lane).
        std::vector<std::uint32_t> regs(32 * 10, 0);
        for (int lane = 0; lane < 32; ++lane) {
          const int g = lane >> 2, t = lane & 3;
          for (int i = 0; i < 4 * s.na; ++i)
            regs[lane * 10 + i / 4] |= static_cast<std::uint32_t>(A[isa_a_row(s, g, i)][isa_a_col(s, t, i)] & 0xFF) << (8 * (i % 4));
          for (int i = 0; i < 4 * s.nb; ++i)
            regs[lane * 10 + s.na + i / 4] |= static_cast<std::uint32_t>(B[isa_b_row(t, i)][g] & 0xFF) << (8 * (i % 4));
          for (int i = 0; i < s.nc; ++i)
            regs[lane * 10 + s.na + s.nb + i] = static_cast<std::uint32_t>(C[isa_c_row(g, i) % s.m][isa_c_col(t, i)]);
        }
        const std::vector<u64> got = run_int_mma(op, s, regs);
        int overflowed = 0;
        for (int lane = 0; lane < 32; ++lane)
          for (int i = 0; i < s.nc; ++i) {
            const int row = s.m == 8 ? lane >> 2 : isa_c_row(lane >> 2, i), col = isa_c_col(lane & 3, i);
            std::int64_t sum = C[row][col];
            for (int k = 0; k < s.k; ++k) sum += A[row][k] * B[k][col];
            overflowed += sum > INT32_MAX || sum < INT32_MIN;
            const std::int64_t want = sat ? std::clamp<std::int64_t>(sum, INT32_MIN, INT32_MAX) : sum;
            EXPECT_EQ(got[lane * 4 + i], static_cast<std::uint32_t>(static_cast<std::uint64_t>(want)))
                << "lane " << lane << " d" << i << " (row " << row << ", col " << col << ")";
          }
        EXPECT_GT(overflowed, 0);  // the edges of C reach both the clamp and the wrap
      }
  // Forms without a model stay errors.
  EXPECT_NE(decode_error("  mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%x0, %x1, %x2, %x3}, {%x4, %x5}, {%x6}, {%x0, %x1, %x2, %x3};")
                .find("m16n8k64"),
            std::string::npos);
  EXPECT_NE(
      decode_error("  mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%x0, %x1, %x2, %x3}, {%x4, %x5}, {%x6, %x7}, {%x0, %x1, %x2, %x3};")
          .find("needs {4 registers}"),
      std::string::npos);
}

// min/max.xorsign.abs (PTX ISA 9.7.3.11/12 semantics; 9.7.4.7/8 for f16/bf16): the min/max of the
// magnitudes (one NaN: the other; both, or .NaN and either: the canonical NaN), then the sign bit
// of a result that is not NaN set to the XOR of the inputs' sign bits. Expected: written here on
// the bit patterns (a magnitude's order is its pattern's order).
TEST(PtxConformance, MinMaxXorsignAbs) {
  struct Fmt {
    const char* type;
    int bits;
    u64 sign, exp_mask, canonical;
  };
  const Fmt fmts[] = {
      {"f16", 16, 0x8000, 0x7C00, 0x7FFF}, {"bf16", 16, 0x8000, 0x7F80, 0x7FFF}, {"f32", 32, 0x80000000u, 0x7F800000u, 0x7FFFFFFFu}};
  for (const Fmt& f : fmts)
    for (int is_max = 0; is_max < 2; ++is_max)
      for (int nan_mode = 0; nan_mode < (f.bits == 32 || std::string(f.type) == "f16" ? 2 : 1); ++nan_mode)
        for (int x2 = 0; x2 < (f.bits == 16 ? 2 : 1); ++x2) {
          const u64 mag = f.sign - 1;
          const auto is_nan = [&](u64 v) { return (v & f.exp_mask) == f.exp_mask && (v & mag & ~f.exp_mask) != 0; };
          const auto one = [&](u64 a, u64 b) -> u64 {
            const bool na = is_nan(a), nb = is_nan(b);
            if ((na && nb) || (nan_mode && (na || nb))) return f.canonical;
            const u64 ma = a & mag, mb = b & mag;
            const u64 m = na ? mb : nb ? ma : is_max ? std::max(ma, mb) : std::min(ma, mb);
            return m | ((a ^ b) & f.sign);
          };
          std::vector<Inputs> in;
          const u64 vals16[] = {0x0000, 0x8000, 0x3C00, 0xBC00, 0x0001, 0x8001, 0x7C00,
                                0xFC00, 0x7E00, 0xFE01, 0x3555, 0xC000, 0x7F81, 0xBF80};
          const u64 vals32[] = {0,           0x80000000u, 0x3F800000u, 0xBF800000u, 1,           0x80000001u, 0x7F800000u,
                                0xFF800000u, 0x7FC00000u, 0xFFC00001u, 0x40490FDBu, 0xC0000000u, 0x7F7FFFFFu, 0x00800000u};
          for (int l = 0; l < 32; ++l) {
            const u64* v = f.bits == 16 ? vals16 : vals32;
            const u64 a = v[l % 14], b = v[(l * 5 + 3) % 14], a2 = v[(l / 2) % 14], b2 = v[(l * 3 + 1) % 14];
            in.push_back({x2 ? a | (a2 << 16) : a, x2 ? b | (b2 << 16) : b, 0});
          }
          const std::string op =
              std::string(is_max ? "max" : "min") + (nan_mode ? ".NaN" : "") + ".xorsign.abs." + f.type + (x2 ? "x2" : "");
          std::string body;
          if (f.bits == 32 || x2)
            body = "  cvt.u32.u64 %x0, %a;\n  cvt.u32.u64 %x1, %b;\n  " + op + " %x2, %x0, %x1;\n  cvt.u64.u32 %d, %x2;";
          else
            body = "  cvt.u16.u64 %h0, %a;\n  cvt.u16.u64 %h1, %b;\n  " + op + " %h2, %h0, %h1;\n  cvt.u64.u16 %d, %h2;";
          if (f.bits == 32)
            body = "  cvt.u32.u64 %x0, %a;\n  cvt.u32.u64 %x1, %b;\n  mov.b32 %f0, %x0;\n  mov.b32 %f1, %x1;\n  " + op +
                   " %f2, %f0, %f1;\n  mov.b32 %x2, %f2;\n  cvt.u64.u32 %d, %x2;";
          check_rows({{"min/max.xorsign.abs", body, in, [&](const Inputs& x) -> u64 {
                         if (!x2) return one(x.a, x.b);
                         return one(x.a & 0xFFFF, x.b & 0xFFFF) | (one(x.a >> 16, x.b >> 16) << 16);
                       }}});
        }
  EXPECT_NE(decode_error("  min.xorsign.f32 %f0, %f1, %f2;").find("not supported"), std::string::npos);
  EXPECT_NE(decode_error("  min.xorsign.abs.f64 %g0, %g1, %g2;").find("not supported"), std::string::npos);
  EXPECT_NE(decode_error("  max.xorsign.abs.relu.f16 %h0, %h1, %h2;").find("unsupported"), std::string::npos);
}
