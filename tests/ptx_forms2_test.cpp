// The PTX interpreter's third pass, continued (issue 39): cp.async's ignore-src, ldmatrix's symbol
// addresses, the video instructions, .v8 and vector parameters, module-scope shared arrays used from
// functions, WARP_SZ in addresses, generic ld/st of local symbols. Every kernel is written for its
// test; every expected value is computed here from the PTX ISA's definition (plain integer C++),
// not taken from the interpreter.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ptx/ptx.hpp"
#include "ptx_test_util.hpp"

using namespace rrswin::ptx;

namespace {

const char* kHead = ".version 8.0\n.target sm_90\n.address_size 64\n";

std::string parse_error(const std::string& text) {
  try {
    parse_module(text, "forms2.ptx");
  } catch (const PtxError& e) {
    return e.what();
  }
  return "";
}

std::string run_error(const std::string& text, std::vector<std::uint8_t> out, const std::vector<std::uint8_t>& in) {
  try {
    auto m = parse_module(text, "forms2.ptx");
    test::run_out_in(*m, out, in);
  } catch (const PtxError& e) {
    return e.what();
  }
  return "";
}

// One CTA of 32 threads of `k(.param .u64 pout, .param .u64 pin)`: `body` runs with %rd1 = out,
// %rd2 = in, %r1 = %tid.x; registers %r<32> .u32, %rd<16> .u64, %p<8> .pred. Returns out.
std::string kernel(const std::string& body, const std::string& before = "", const std::string& decls = "") {
  return std::string(kHead) + before +
         ".visible .entry k(.param .u64 pout, .param .u64 pin)\n{\n"
         "  .reg .u32 %r<32>;\n  .reg .u64 %rd<16>;\n  .reg .pred %p<8>;\n" +
         decls + "  ld.param.u64 %rd1, [pout];\n  ld.param.u64 %rd2, [pin];\n  mov.u32 %r1, %tid.x;\n" + body + "\n  ret;\n}\n";
}

std::vector<std::uint8_t> run_bytes(const std::string& text, std::size_t out_bytes, const std::vector<std::uint8_t>& in,
                                    Dim3 block = {32, 1, 1}) {
  auto m = parse_module(text, "forms2.ptx");
  std::vector<std::uint8_t> out(out_bytes, 0xEE);
  test::run_out_in(*m, out, in, test::one_thread(), nullptr, {1, 1, 1}, block);
  return out;
}

std::vector<std::uint8_t> pattern(std::size_t n, std::uint32_t seed) {
  std::vector<std::uint8_t> v(n);
  std::uint32_t x = seed;
  for (auto& b : v) {
    x = x * 1103515245u + 12345u;
    b = static_cast<std::uint8_t>(x >> 16);
  }
  return v;
}

std::uint32_t word(const std::vector<std::uint8_t>& v, std::size_t i) {
  std::uint32_t x;
  std::memcpy(&x, v.data() + 4 * i, 4);
  return x;
}

}  // namespace

// --- 1. cp.async: src-size below cp-size, ignore-src -----------------------------------------

TEST(PtxForms2, CpAsyncSrcSizeAndIgnoreSrc) {
  // PTX ISA "cp.async": src-size bytes are copied and the rest of cp-size is zero-filled; where
  // the predicate ignore-src holds, the source is ignored and cp-size zeros are written. Lane l's
  // 32 bytes of shared memory start as 0xFF: [0,16) cp-size 16, ignore-src = (l % 3 == 0);
  // [16,24) cp-size 8, src-size 3 (a literal); [24,28) cp-size 4, src-size l % 5 (a register);
  // [28,32) cp-size 4 whole (.shared::cta). Source: in[32l + the same offsets].
  const std::string body =
      "  mul.wide.u32 %rd3, %r1, 32;\n  add.u64 %rd4, %rd2, %rd3;\n  mov.u64 %rd5, buf;\n  add.u64 %rd5, %rd5, %rd3;\n"
      "  mov.u32 %r2, -1;\n  st.shared.v4.u32 [%rd5], {%r2, %r2, %r2, %r2};\n  st.shared.v4.u32 [%rd5+16], {%r2, %r2, %r2, %r2};\n"
      "  rem.u32 %r3, %r1, 3;\n  setp.eq.u32 %p1, %r3, 0;\n  rem.u32 %r4, %r1, 5;\n"
      "  cp.async.ca.shared.global [%rd5], [%rd4], 16, %p1;\n"
      "  cp.async.ca.shared.global [%rd5+16], [%rd4+16], 8, 3;\n"
      "  cp.async.ca.shared.global [%rd5+24], [%rd4+24], 4, %r4;\n"
      "  cp.async.ca.shared::cta.global [%rd5+28], [%rd4+28], 4;\n"
      "  cp.async.commit_group;\n  cp.async.wait_group 0;\n"
      "  add.u64 %rd6, %rd1, %rd3;\n"
      "  ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [%rd5];\n  st.global.v4.u32 [%rd6], {%r5, %r6, %r7, %r8};\n"
      "  ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [%rd5+16];\n  st.global.v4.u32 [%rd6+16], {%r5, %r6, %r7, %r8};";
  const std::vector<std::uint8_t> in = pattern(32 * 32, 7);
  const auto out = run_bytes(kernel(body, ".shared .align 16 .b8 buf[1024];\n"), 32 * 32, in);
  for (int l = 0; l < 32; ++l)
    for (int k = 0; k < 32; ++k) {
      std::uint8_t want;
      if (k < 16)
        want = l % 3 == 0 ? 0 : in[32 * l + k];
      else if (k < 24)
        want = k - 16 < 3 ? in[32 * l + k] : 0;
      else if (k < 28)
        want = k - 24 < l % 5 ? in[32 * l + k] : 0;
      else
        want = in[32 * l + k];
      EXPECT_EQ(out[32 * l + k], want) << "lane " << l << " byte " << k;
    }
  // A negated ignore-src (!%p) reads the source where %p is false.
  const std::string neg =
      "  mul.wide.u32 %rd3, %r1, 4;\n  add.u64 %rd4, %rd2, %rd3;\n  cvt.u32.u64 %r2, %rd3;\n  setp.lt.u32 %p1, %r1, 10;\n"
      "  cp.async.ca.shared.global [%r2], [%rd4], 4, !%p1;\n  cp.async.wait_all;\n"
      "  ld.shared.u32 %r3, [%r2];\n  add.u64 %rd6, %rd1, %rd3;\n  st.global.u32 [%rd6], %r3;";
  const auto out2 = run_bytes(kernel(neg, ".shared .align 16 .b8 buf[128];\n"), 128, in);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(word(out2, l), l < 10 ? word(in, l) : 0u) << "lane " << l;
}

TEST(PtxForms2, CpAsyncSizesStayChecked) {
  const std::string decl = ".shared .align 16 .b8 buf[1024];\n";
  EXPECT_NE(parse_error(kernel("  cp.async.ca.shared.global [buf], [%rd2], 8, 9;", decl)).find("src-size 9 exceeds cp-size 8"),
            std::string::npos);
  EXPECT_NE(parse_error(kernel("  cp.async.ca.shared.global [buf], [%rd2], 12;", decl)).find("cp-size must be 4, 8 or 16"),
            std::string::npos);
  EXPECT_NE(parse_error(kernel("  cp.async.cg.shared.global [buf], [%rd2], 8, %p1;", decl)).find("cp.async.cg needs cp-size 16"),
            std::string::npos);
  // A src-size register above cp-size is undefined in the ISA: an error naming it when it runs.
  const std::string e = run_error(kernel("  mov.u32 %r2, 17;\n  cp.async.ca.shared.global [buf], [%rd2], 16, %r2;", decl),
                                  std::vector<std::uint8_t>(16), std::vector<std::uint8_t>(16));
  EXPECT_NE(e.find("src-size 17 exceeds cp-size 16"), std::string::npos) << e;
}

// --- 2. ldmatrix / stmatrix addressed by a variable or a literal -------------------------------

TEST(PtxForms2, LdmatrixOfAVariableOrLiteralAddress) {
  // PTX ISA "ldmatrix": register j of lane l holds elements (l/4, 2(l%4)) and (l/4, 2(l%4)+1) of
  // matrix j (.trans: (2(l%4), l/4) and (2(l%4)+1, l/4)), row i of matrix j being the 16 bytes at
  // lane 8j+i's address. A variable or literal address is the same for every lane, so every row of
  // every matrix is the 8 b16 at that address: element (r, c) = e[a/2 + c]. Shared memory holds
  // e[i] = 0x1000 + 3i (i < 128), written by the lanes from in.
  std::vector<std::uint8_t> in(256);
  for (int i = 0; i < 128; ++i) {
    const std::uint16_t e = static_cast<std::uint16_t>(0x1000 + 3 * i);
    std::memcpy(in.data() + 2 * i, &e, 2);
  }
  struct Case {
    std::string insn;
    int num;
    bool trans;
    int byte;  // the address's shared offset
  };
  const Case cases[] = {
      {"ldmatrix.sync.aligned.m8n8.x1.shared.b16 %r10, [sm];", 1, false, 0},
      {"ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r10, %r11}, [sm+32];", 2, true, 32},
      {"ldmatrix.sync.aligned.m8n8.x4.trans.b16 {%r10, %r11, %r12, %r13}, [sm+64];", 4, true, 64},  // generic: sm's generic address
      {"ldmatrix.sync.aligned.m8n8.x4.shared::cta.b16 {%r10, %r11, %r12, %r13}, [sm+16];", 4, false, 16},
      {"ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r10, %r11}, [48];", 2, false, 48},  // a literal shared address (sm is at 0)
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.insn);
    const std::string body =
        "  mul.wide.u32 %rd3, %r1, 4;\n  add.u64 %rd4, %rd2, %rd3;\n  cvt.u32.u64 %r2, %rd3;\n"
        "  ld.global.u32 %r3, [%rd4];\n  st.shared.u32 [%r2], %r3;\n  ld.global.u32 %r3, [%rd4+128];\n  st.shared.u32 [%r2+128], %r3;\n"
        "  bar.sync 0;\n  mov.u32 %r10, 0;\n  mov.u32 %r11, 0;\n  mov.u32 %r12, 0;\n  mov.u32 %r13, 0;\n  " +
        c.insn + "\n  mul.wide.u32 %rd5, %r1, 16;\n  add.u64 %rd6, %rd1, %rd5;\n  st.global.v4.u32 [%rd6], {%r10, %r11, %r12, %r13};";
    const auto out = run_bytes(kernel(body, ".shared .align 16 .b8 sm[256];\n"), 32 * 16, in);
    for (int l = 0; l < 32; ++l)
      for (int j = 0; j < 4; ++j) {
        std::uint32_t want = 0;
        if (j < c.num)
          for (int h = 0; h < 2; ++h) {
            const int r = l / 4, col = 2 * (l % 4) + h;
            const int mc = c.trans ? r : col;  // the element's column in memory (its row is any: all equal)
            want |= static_cast<std::uint32_t>(0x1000 + 3 * (c.byte / 2 + mc)) << (16 * h);
          }
        EXPECT_EQ(word(out, 4 * l + j), want) << "lane " << l << " reg " << j;
      }
  }
  // stmatrix takes the same addresses; an address of another state space stays an error.
  EXPECT_EQ(parse_error(kernel("  stmatrix.sync.aligned.m8n8.x1.shared.b16 [sm+16], %r1;", ".shared .align 16 .b8 sm[256];\n")), "");
  EXPECT_NE(parse_error(kernel("  ldmatrix.sync.aligned.m8n8.x1.shared.b16 %r2, [g];", ".global .align 16 .b8 g[256];\n"))
                .find("g is not a .shared variable"),
            std::string::npos);
  EXPECT_NE(
      parse_error(kernel("  ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r2, %r3}, [%rd3];")).find("unsupported modifier .m16n16"),
      std::string::npos);
}
