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

// --- 3. Scalar video instructions with a secondary operation or a merge ------------------------

namespace {

// d[l] of `insn` (d = %r6; a, b, c = %r2, %r3, %r4) for lane l's a[l], b[l], c[l].
std::vector<std::uint32_t> run_video(const std::string& insn, const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                                     const std::vector<std::uint32_t>& c) {
  std::vector<std::uint8_t> in(32 * 16, 0);
  for (std::size_t l = 0; l < 32; ++l) {
    const std::uint32_t w[4] = {l < a.size() ? a[l] : 0u, l < b.size() ? b[l] : 0u, l < c.size() ? c[l] : 0u, 0u};
    std::memcpy(in.data() + 16 * l, w, 16);
  }
  const std::string body =
      "  mul.wide.u32 %rd3, %r1, 16;\n  add.u64 %rd4, %rd2, %rd3;\n  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];\n  " + insn +
      "\n  mul.wide.u32 %rd5, %r1, 4;\n  add.u64 %rd6, %rd1, %rd5;\n  st.global.u32 [%rd6], %r6;";
  const auto out = run_bytes(kernel(body), 128, in);
  std::vector<std::uint32_t> d(32);
  for (int l = 0; l < 32; ++l) d[l] = word(out, l);
  return d;
}

// The PTX ISA's pseudocode ("Scalar Video Instructions"), written out for the test. sel: 0 none,
// 1..4 = .b0...b3, 5..6 = .h0 .h1. op2: 0 none, 1 .add, 2 .min, 3 .max. mode: 0 .clamp, 1 .wrap.
struct VideoRef {
  std::string vop;  // vadd vsub vabsdiff vmin vmax vshl vshr vset
  bool dsigned, asigned, bsigned;
  int dsel, asel, bsel, op2;
  bool sat;
  int mode;         // shifts
  std::string cmp;  // vset
};

std::int64_t part_select_sign_extend(std::uint32_t x, bool sgn, int sel) {
  std::uint32_t field = x;
  int bits = 32;
  if (sel >= 1 && sel <= 4) field = (x >> (8 * (sel - 1))) & 0xFFu, bits = 8;
  if (sel >= 5) field = (x >> (16 * (sel - 5))) & 0xFFFFu, bits = 16;
  std::int64_t v = field;
  if (sgn && (field >> (bits - 1)) & 1) v -= std::int64_t{1} << bits;  // two's complement of the field
  return v;
}

std::uint32_t video_ref(const VideoRef& r, std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  const std::int64_t ta = part_select_sign_extend(a, r.asigned, r.asel);
  std::int64_t tb = part_select_sign_extend(b, r.bsigned, r.bsel);
  std::int64_t tmp;
  if (r.vop == "vadd")
    tmp = ta + tb;
  else if (r.vop == "vsub")
    tmp = ta - tb;
  else if (r.vop == "vabsdiff")
    tmp = ta - tb < 0 ? tb - ta : ta - tb;
  else if (r.vop == "vmin")
    tmp = ta < tb ? ta : tb;
  else if (r.vop == "vmax")
    tmp = ta > tb ? ta : tb;
  else if (r.vop == "vshl" || r.vop == "vshr") {
    if (r.mode == 0 && tb > 32) tb = 32;
    if (r.mode == 1) tb = tb & 0x1f;
    // .s34: vshl's value modulo 2^34 (only the low 33 bits reach d in the forms tested).
    tmp = r.vop == "vshl" ? static_cast<std::int64_t>((static_cast<__int128>(ta) << tb) % (static_cast<__int128>(1) << 34))
                          : (ta >= 0 ? ta >> tb : -((-ta - 1) >> tb) - 1);
  } else {
    const bool t = r.cmp == "eq"   ? ta == tb
                   : r.cmp == "ne" ? ta != tb
                   : r.cmp == "lt" ? ta < tb
                   : r.cmp == "le" ? ta <= tb
                   : r.cmp == "gt" ? ta > tb
                                   : ta >= tb;
    tmp = t ? 1 : 0;
  }
  // optSaturate: the destination's range (the selected part's with a merge), by dtype's sign.
  if (r.sat) {
    const int w = r.dsel == 0 ? 32 : r.dsel <= 4 ? 8 : 16;
    const std::int64_t lo = r.dsigned ? -(std::int64_t{1} << (w - 1)) : 0;
    const std::int64_t hi = r.dsigned ? (std::int64_t{1} << (w - 1)) - 1 : (std::int64_t{1} << w) - 1;
    tmp = tmp < lo ? lo : tmp > hi ? hi : tmp;
  }
  // optSaturate returns an .s33: the value modulo 2^33 in [-2^32, 2^32).
  tmp = ((tmp % (std::int64_t{1} << 33)) + (std::int64_t{1} << 33)) % (std::int64_t{1} << 33);
  if (tmp >= (std::int64_t{1} << 32)) tmp -= std::int64_t{1} << 33;
  const std::int64_t tc = r.dsigned ? static_cast<std::int64_t>(static_cast<std::int32_t>(c)) : static_cast<std::int64_t>(c);
  std::int64_t d = tmp;
  if (r.op2 == 1) d = tmp + tc;
  if (r.op2 == 2) d = tmp < tc ? tmp : tc;
  if (r.op2 == 3) d = tmp > tc ? tmp : tc;
  std::uint32_t out = static_cast<std::uint32_t>(d);
  switch (r.dsel) {  // optMerge
    case 5: out = (static_cast<std::uint32_t>(tmp) & 0xffffu) | (0xffff0000u & c); break;
    case 6: out = ((static_cast<std::uint32_t>(tmp) & 0xffffu) << 16) | (0x0000ffffu & c); break;
    case 1: out = (static_cast<std::uint32_t>(tmp) & 0xffu) | (0xffffff00u & c); break;
    case 2: out = ((static_cast<std::uint32_t>(tmp) & 0xffu) << 8) | (0xffff00ffu & c); break;
    case 3: out = ((static_cast<std::uint32_t>(tmp) & 0xffu) << 16) | (0xff00ffffu & c); break;
    case 4: out = ((static_cast<std::uint32_t>(tmp) & 0xffu) << 24) | (0x00ffffffu & c); break;
    default: break;
  }
  return out;
}

}  // namespace

TEST(PtxForms2, VideoInstructionsHandWorked) {
  // Lane 0's result, each worked by hand from the ISA's pseudocode.
  struct Case {
    const char* insn;
    std::uint32_t a, b, c, want;
  };
  const Case cases[] = {
      // The form: b = 40 clamps to 32, 0x80000000 >> 32 = 0, + c.
      {"vshr.u32.u32.u32.clamp.add %r6, %r2, %r3, %r4;", 0x80000000u, 40, 5, 5},
      {"vshr.u32.u32.u32.clamp.add %r6, %r2, %r3, %r4;", 0x80000000u, 4, 5, 0x08000005u},
      // .wrap: 33 & 31 = 1.
      {"vshl.u32.u32.u32.wrap %r6, %r2, %r3;", 1, 33, 0, 2},
      // Signed right shift fills with the sign: -256 >> 4 = -16.
      {"vshr.s32.s32.u32.wrap %r6, %r2, %r3;", 0xFFFFFF00u, 4, 0, 0xFFFFFFF0u},
      // a.b0 = 255 (unsigned), b.h0 = 0x8000 = -32768 (signed): -32513, within s32.
      {"vadd.s32.u32.s32.sat %r6, %r2.b0, %r3.h0;", 0x000000FFu, 0x00008000u, 0, 0xFFFF80FFu},
      // |127 - (-128)| = 255, an s16 fits, merged into c's low half.
      {"vabsdiff.s32.s32.s32.sat %r6.h0, %r2.b0, %r3.b2, %r4;", 0x7Fu, 0x00800000u, 0xABCD1234u, 0xABCD00FFu},
      // min(MAX, MAX) + 1 wraps in the low 32 bits (.sat clamps the primary result only).
      {"vmin.s32.s32.s32.sat.add %r6, %r2, %r3, %r4;", 0x7FFFFFFFu, 0x7FFFFFFFu, 1, 0x80000000u},
      // 200 + 100 = 300 saturates to the byte's 255, merged into byte 1 of c.
      {"vadd.u32.u32.u32.sat %r6.b1, %r2, %r3, %r4;", 200, 100, 0x11223344u, 0x1122FF44u},
      // -1 < 0 (a signed, b unsigned): 1.
      {"vset.s32.u32.lt %r6, %r2, %r3;", 0xFFFFFFFFu, 0, 0, 1},
      // (3 != 0x0102) = 1, + 41.
      {"vset.u32.u32.ne.add %r6, %r2, %r3.h1, %r4;", 3, 0x01020000u, 41, 42},
      // max(5, c = -3 as dtype .s32) = 5; as .u32 c = 0xFFFFFFFD is the larger.
      {"vmax.s32.s32.s32.max %r6, %r2, %r3, %r4;", 5, 2, 0xFFFFFFFDu, 5},
      {"vmax.u32.s32.s32.max %r6, %r2, %r3, %r4;", 5, 2, 0xFFFFFFFDu, 0xFFFFFFFDu},
      // The .s33 reading (docs/ptx.md): 0xFFFFFFFF + 0xFFFFFFFF = 0x1FFFFFFFE, as an .s33 -2; max(-2, 7) = 7.
      {"vadd.u32.u32.u32.max %r6, %r2, %r3, %r4;", 0xFFFFFFFFu, 0xFFFFFFFFu, 7, 7},
  };
  for (const Case& k : cases) {
    const auto d = run_video(k.insn, {k.a}, {k.b}, {k.c});
    EXPECT_EQ(d[0], k.want) << k.insn << std::hex << " a 0x" << k.a << " b 0x" << k.b << " c 0x" << k.c;
  }
}

TEST(PtxForms2, VideoInstructionsAgainstTheIsaPseudocode) {
  std::vector<std::uint32_t> a(32), b(32), c(32);
  const std::uint32_t special[] = {0, 1, 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 0x00008000u, 0x0000007Fu, 0x00000080u};
  std::uint32_t x = 12345;
  auto next = [&] { return x = x * 1664525u + 1013904223u; };
  for (int l = 0; l < 32; ++l) {
    a[l] = l < 8 ? special[l] : next();
    // b: small shift amounts in the word and in byte 0 for half the lanes, anything for the rest.
    b[l] = l < 8 ? static_cast<std::uint32_t>(l * 5) : l < 24 ? (next() & 0xFFFFFF00u) | static_cast<std::uint32_t>(l * 3 % 40) : next();
    c[l] = l % 4 == 0 ? special[(l / 4) % 8] : next();
  }
  struct Form {
    std::string insn;
    VideoRef ref;
  };
  const Form forms[] = {
      {"vadd.u32.u32.u32 %r6, %r2, %r3;", {"vadd", false, false, false, 0, 0, 0, 0, false, 0, ""}},
      {"vadd.s32.u32.s32.sat %r6, %r2.b0, %r3.h0;", {"vadd", true, false, true, 0, 1, 5, 0, true, 0, ""}},
      {"vadd.u32.s32.s32.sat.min %r6, %r2, %r3, %r4;", {"vadd", false, true, true, 0, 0, 0, 2, true, 0, ""}},
      {"vsub.s32.s32.u32.sat %r6, %r2.h1, %r3.h1;", {"vsub", true, true, false, 0, 6, 6, 0, true, 0, ""}},
      {"vsub.u32.u32.u32.max %r6, %r2, %r3.b3, %r4;", {"vsub", false, false, false, 0, 0, 4, 3, false, 0, ""}},
      {"vabsdiff.s32.s32.s32.sat %r6.h0, %r2.b0, %r3.b2, %r4;", {"vabsdiff", true, true, true, 5, 1, 3, 0, true, 0, ""}},
      {"vabsdiff.u32.s32.u32.add %r6, %r2.h1, %r3, %r4;", {"vabsdiff", false, true, false, 0, 6, 0, 1, false, 0, ""}},
      {"vmin.s32.s32.s32.sat.add %r6, %r2, %r3, %r4;", {"vmin", true, true, true, 0, 0, 0, 1, true, 0, ""}},
      {"vmin.u32.u32.s32.min %r6, %r2.b2, %r3.h0, %r4;", {"vmin", false, false, true, 0, 3, 5, 2, false, 0, ""}},
      {"vmax.u32.s32.u32.max %r6, %r2.b3, %r3, %r4;", {"vmax", false, true, false, 0, 4, 0, 3, false, 0, ""}},
      {"vmax.s32.u32.s32.sat %r6.b3, %r2, %r3.b1, %r4;", {"vmax", true, false, true, 4, 0, 2, 0, true, 0, ""}},
      {"vshr.u32.u32.u32.clamp.add %r6, %r2, %r3, %r4;", {"vshr", false, false, false, 0, 0, 0, 1, false, 0, ""}},
      {"vshr.s32.s32.u32.wrap %r6, %r2, %r3.b0;", {"vshr", true, true, false, 0, 0, 1, 0, false, 1, ""}},
      {"vshr.u32.s32.u32.clamp.sat %r6.b1, %r2.h0, %r3.b0, %r4;", {"vshr", false, true, false, 2, 5, 1, 0, true, 0, ""}},
      {"vshr.s32.s32.u32.clamp.sat.max %r6, %r2, %r3, %r4;", {"vshr", true, true, false, 0, 0, 0, 3, true, 0, ""}},
      {"vshl.u32.u32.u32.clamp %r6, %r2, %r3.b0;", {"vshl", false, false, false, 0, 0, 1, 0, false, 0, ""}},
      {"vshl.s32.u32.u32.wrap.add %r6, %r2, %r3, %r4;", {"vshl", true, false, false, 0, 0, 0, 1, false, 1, ""}},
      {"vshl.s32.s32.u32.wrap.min %r6, %r2.h1, %r3, %r4;", {"vshl", true, true, false, 0, 6, 0, 2, false, 1, ""}},
      {"vshl.u32.s32.u32.clamp %r6.h1, %r2.b0, %r3.b0, %r4;", {"vshl", false, true, false, 6, 1, 1, 0, false, 0, ""}},
      {"vset.s32.u32.lt %r6, %r2, %r3;", {"vset", false, true, false, 0, 0, 0, 0, false, 0, "lt"}},
      {"vset.u32.u32.ne.add %r6, %r2, %r3.h1, %r4;", {"vset", false, false, false, 0, 0, 6, 1, false, 0, "ne"}},
      {"vset.s32.s32.ge %r6.b2, %r2.b3, %r3.b1, %r4;", {"vset", false, true, true, 3, 4, 2, 0, false, 0, "ge"}},
      {"vset.u32.s32.le.max %r6, %r2.h0, %r3, %r4;", {"vset", false, false, true, 0, 5, 0, 3, false, 0, "le"}},
      {"vset.s32.s32.eq.min %r6, %r2.b1, %r3.b1, %r4;", {"vset", false, true, true, 0, 2, 2, 2, false, 0, "eq"}},
      {"vset.u32.u32.gt %r6, %r2, %r3;", {"vset", false, false, false, 0, 0, 0, 0, false, 0, "gt"}},
  };
  for (const Form& f : forms) {
    const auto d = run_video(f.insn, a, b, c);
    for (int l = 0; l < 32; ++l)
      EXPECT_EQ(d[l], video_ref(f.ref, a[l], b[l], c[l]))
          << f.insn << " lane " << l << std::hex << " a 0x" << a[l] << " b 0x" << b[l] << " c 0x" << c[l];
  }
}

TEST(PtxForms2, VideoFormsStillRefusedAreNamed) {
  EXPECT_NE(parse_error(kernel("  vshl.u32.u32.u32.clamp.sat %r6, %r2, %r3;")).find("vshl with .sat"), std::string::npos);
  EXPECT_NE(parse_error(kernel("  vmad.u32.u32.u32 %r6, %r2, %r3, %r4;")).find("unsupported instruction vmad.u32.u32.u32"),
            std::string::npos);
  EXPECT_NE(parse_error(kernel("  vadd2.u32.u32.u32 %r6, %r2, %r3, %r4;")).find("unsupported instruction vadd2.u32.u32.u32"),
            std::string::npos);
  EXPECT_NE(parse_error(kernel("  vadd4.u32.u32.u32.add %r6, %r2, %r3, %r4;")).find("unsupported instruction vadd4"), std::string::npos);
  EXPECT_NE(parse_error(kernel("  vadd.u32.u32.u32.add %r6, %r2, %r3;")).find("needs c"), std::string::npos);
  EXPECT_NE(parse_error(kernel("  vadd.u32.u32.u32.add %r6.h0, %r2, %r3, %r4;")).find("a destination selector and a secondary operation"),
            std::string::npos);
  EXPECT_NE(parse_error(kernel("  vadd.u32.u32.u32 %r6, %r2, %r3, %r4;")).find("c needs a secondary operation"), std::string::npos);
  EXPECT_NE(parse_error(kernel("  vshr.u32.u32.u32 %r6, %r2, %r3;")).find("needs a mode"), std::string::npos);
  EXPECT_NE(parse_error(kernel("  vshr.u32.u32.s32.wrap %r6, %r2, %r3;")).find("the shift amount's type is .u32"), std::string::npos);
  EXPECT_NE(parse_error(kernel("  vadd.u64.u32.u32 %r6, %r2, %r3;")).find("types are .u32 and .s32"), std::string::npos);
  EXPECT_NE(parse_error(kernel("  vset.u32.u32.lt.sat %r6, %r2, %r3;")).find("unsupported modifier .sat"), std::string::npos);
  EXPECT_NE(parse_error(kernel("  vadd.u32.u32.u32 %r6, %r2.b4, %r3;")).find("%r2.b4"), std::string::npos);
}

// --- 4. Operands: .v8, vector parameters, shared arrays from functions, WARP_SZ in addresses,
// generic ld/st of variables -----------------------------------------------------------------

TEST(PtxForms2, V8LoadsAndStoresOfThirtyTwoBitTypes) {
  // ld/st.global.v8 (PTX ISA 8.8, sm_100+): eight 32-bit elements from 32 consecutive bytes, the
  // address aligned to 32. Lane l loads in[8l .. 8l+7] (words) and stores them reversed to out.
  const std::string body =
      "  .reg .b32 %x<8>;\n  .reg .f32 %f<8>;\n  mul.wide.u32 %rd3, %r1, 32;\n  add.u64 %rd4, %rd2, %rd3;\n  add.u64 %rd5, %rd1, %rd3;\n"
      "  ld.global.v8.b32 {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, [%rd4];\n"
      "  st.global.v8.u32 [%rd5], {%x7, %x6, %x5, %x4, %x3, %x2, %x1, %x0};\n"
      "  ld.global.nc.v8.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd4+1024];\n"
      "  st.global.v8.f32 [%rd5+1024], {%f1, %f0, %f3, %f2, %f5, %f4, %f7, %f6};";
  const std::vector<std::uint8_t> in = pattern(2048, 3);
  const auto out = run_bytes(std::string(".version 8.8\n.target sm_100\n.address_size 64\n") +
                                 ".visible .entry k(.param .u64 pout, .param .u64 pin)\n{\n  .reg .u32 %r<8>;\n  .reg .u64 %rd<8>;\n"
                                 "  ld.param.u64 %rd1, [pout];\n  ld.param.u64 %rd2, [pin];\n  mov.u32 %r1, %tid.x;\n" +
                                 body + "\n  ret;\n}\n",
                             2048, in);
  for (int l = 0; l < 32; ++l)
    for (int k = 0; k < 8; ++k) {
      EXPECT_EQ(word(out, 8 * l + k), word(in, 8 * l + 7 - k)) << "lane " << l << " element " << k;
      EXPECT_EQ(word(out, 256 + 8 * l + k), word(in, 256 + 8 * l + (k ^ 1))) << "lane " << l << " f32 element " << k;
    }
  // Where the ISA has no .v8: other state spaces, 64-bit or narrower types, ldu; a misaligned one.
  EXPECT_NE(parse_error(kernel("  ld.shared.v8.b32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1];")).find(".v8 is ld/st.global.v8"),
            std::string::npos);
  EXPECT_NE(parse_error(kernel("  ld.v8.b32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1];")).find(".v8 is ld/st.global.v8"),
            std::string::npos);
  EXPECT_NE(parse_error(kernel("  st.global.v8.b16 [%rd1], {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7};")).find(".v8 is ld/st.global.v8"),
            std::string::npos);
  EXPECT_NE(parse_error(kernel("  ldu.global.v8.b32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1];")).find(".v8 is ld/st.global.v8"),
            std::string::npos);
  EXPECT_NE(parse_error(kernel("  ld.global.v8.b32 {%r0, %r1, %r2, %r3}, [%rd1];")).find("vector width"), std::string::npos);
  const std::string e = run_error(kernel("  ld.global.v8.b32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd2+16];"),
                                  std::vector<std::uint8_t>(64), std::vector<std::uint8_t>(64));
  EXPECT_NE(e.find("misaligned 32-byte access"), std::string::npos) << e;
}

TEST(PtxForms2, VectorKernelParameters) {
  // .param .v2 .u32 and .param .v4 .f32 (PTX ISA "Parameter State Space"): each vector is its
  // elements, aligned to its whole size, so pv sits at 16 and pf at 32.
  const std::string text = std::string(kHead) +
                           ".visible .entry k(.param .u64 pout, .param .u32 pn, .param .v2 .u32 pv, .param .align 16 .v4 .f32 pf)\n{\n"
                           "  .reg .u32 %r<8>;\n  .reg .f32 %f<4>;\n  .reg .u64 %rd<4>;\n  ld.param.u64 %rd1, [pout];\n"
                           "  ld.param.v2.u32 {%r1, %r2}, [pv];\n  ld.param.v4.f32 {%f0, %f1, %f2, %f3}, [pf];\n  ld.param.u32 %r3, [pn];\n"
                           "  mov.b32 %r4, %f0;\n  mov.b32 %r5, %f3;\n  ld.param.u32 %r6, [pv+4];\n"
                           "  st.global.v4.u32 [%rd1], {%r1, %r2, %r4, %r5};\n  st.global.v2.u32 [%rd1+16], {%r3, %r6};\n  ret;\n}\n";
  auto m = parse_module(text, "forms2.ptx");
  const EntryStats es = entry_stats(*m, "k");
  ASSERT_EQ(es.params.size(), 4u);
  EXPECT_EQ(es.params[2].offset, 16u);
  EXPECT_EQ(es.params[2].size, 8u);
  EXPECT_EQ(es.params[3].offset, 32u);
  EXPECT_EQ(es.params[3].size, 16u);
  EXPECT_EQ(es.params[3].align, 16u);
  std::vector<std::uint8_t> out(24, 0);
  Device dev;
  const std::uint64_t a = dev.add_global("out", out);
  std::uint8_t params[48] = {};
  const std::uint32_t words[] = {0x11111111u, 0xA0000001u, 0xB0000002u, 0x3F800000u, 0x40000000u, 0x40400000u, 0xC0800000u};
  std::memcpy(params, &a, 8);
  std::memcpy(params + 8, &words[0], 4);
  std::memcpy(params + 16, &words[1], 8);
  std::memcpy(params + 32, &words[3], 16);
  run(*m, "k", {1, 1, 1}, {1, 1, 1}, params, dev, test::one_thread());
  const std::uint32_t want[] = {0xA0000001u, 0xB0000002u, 0x3F800000u, 0xC0800000u, 0x11111111u, 0xB0000002u};
  for (int k = 0; k < 6; ++k) EXPECT_EQ(word(out, k), want[k]) << "word " << k;
  EXPECT_NE(parse_error(std::string(kHead) + ".visible .entry k(.param .v4 .f64 p)\n{\n  ret;\n}\n").find("at most 128 bits"),
            std::string::npos);
  EXPECT_NE(parse_error(std::string(kHead) + ".func f(.reg .v2 .u32 p)\n{\n  ret;\n}\n").find("of a vector type is not supported"),
            std::string::npos);
}

TEST(PtxForms2, ModuleSharedArraysAreOnePerCtaAcrossFunctions) {
  // A module-scope .shared array and two .extern .shared arrays (the one dynamic array, PTX ISA
  // "Shared State Space") named only by device functions: f writes them, g (defined after the
  // entry) reads them back from other lanes after bar.sync.
  const std::string text =
      std::string(kHead) +
      ".shared .align 4 .b32 sh[32];\n.extern .shared .align 16 .b8 dyn_a[];\n.extern .shared .align 8 .b8 dyn_b[];\n"
      ".func f(.reg .u32 t)\n{\n  .reg .u32 %x<4>;\n  .reg .u64 %y<4>;\n"
      "  mul.lo.u32 %x1, t, 3;\n  mul.wide.u32 %y1, t, 4;\n  mov.u64 %y2, sh;\n  add.u64 %y2, %y2, %y1;\n"
      "  st.shared.u32 [%y2], %x1;\n  add.u32 %x2, t, 100;\n  mov.u64 %y3, dyn_a;\n  add.u64 %y3, %y3, %y1;\n"
      "  st.shared.u32 [%y3], %x2;\n  ret;\n}\n"
      ".func (.reg .u32 r) g(.reg .u32 t);\n"
      ".visible .entry k(.param .u64 pout, .param .u64 pin)\n{\n  .reg .u32 %r<4>;\n  .reg .u64 %rd<4>;\n"
      "  ld.param.u64 %rd1, [pout];\n  mov.u32 %r1, %tid.x;\n  call f, (%r1);\n  bar.sync 0;\n"
      "  call (%r2), g, (%r1);\n  mul.wide.u32 %rd2, %r1, 4;\n  add.u64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r2;\n"
      "  ret;\n}\n"
      ".func (.reg .u32 r) g(.reg .u32 t)\n{\n  .reg .u32 %x<4>;\n  .reg .u64 %y<4>;\n"
      "  sub.u32 %x1, 31, t;\n  mul.wide.u32 %y1, %x1, 4;\n  mov.u64 %y2, sh;\n  add.u64 %y2, %y2, %y1;\n"
      "  ld.shared.u32 %x2, [%y2];\n  mov.u64 %y3, dyn_b;\n  add.u64 %y3, %y3, %y1;\n  ld.shared.u32 %x3, [%y3];\n"
      "  mad.lo.u32 r, %x3, 1000, %x2;\n  ret;\n}\n";
  auto m = parse_module(text, "forms2.ptx");
  // The entry names no shared variable itself; it uses sh's 128 bytes through f and g.
  EXPECT_EQ(entry_stats(*m, "k").shared_bytes, 128u);
  std::vector<std::uint32_t> out(32, 0), in(1, 0);
  RunOptions o = test::one_thread();
  o.dynamic_shared_bytes = 128;
  test::run_out_in(*m, out, in, o, nullptr, {2, 1, 1});
  for (std::uint32_t l = 0; l < 32; ++l) EXPECT_EQ(out[l], (31 - l + 100) * 1000 + (31 - l) * 3) << "lane " << l;
}

TEST(PtxForms2, WarpSzInAddressesAndGenericLdStOfVariables) {
  // WARP_SZ (32) as an address offset or the address; generic ld/st of a .local, .shared, .global
  // and .const variable: its generic address (cvta of it), each lane's own .local copy.
  const std::string decls =
      ".shared .align 8 .b32 sh[64];\n.global .align 4 .u32 gv[4] = {7, 8, 9, 10};\n.const .align 4 .u32 cv[2] = {5, 6};\n";
  const std::string body =
      "  .local .align 8 .b32 lv[4];\n"
      "  mul.lo.u32 %r2, %r1, 7;\n  st.u32 [lv], %r2;\n  st.u32 [lv+4], %r1;\n  ld.u32 %r3, [lv];\n  ld.local.u32 %r4, [lv+4];\n"
      // lane 0 writes sh[8] (byte 32 = WARP_SZ) and sh[16]; everyone reads them back three ways
      "  setp.eq.u32 %p1, %r1, 0;\n  mov.u32 %r9, 1234;\n  @%p1 st.shared.u32 [sh+WARP_SZ], %r9;\n  mov.u32 %r9, 4321;\n"
      "  @%p1 st.u32 [sh+64], %r9;\n  bar.sync 0;\n  ld.shared.u32 %r5, [WARP_SZ];\n  mov.u64 %rd3, sh;\n  ld.shared.u32 %r6, [%rd3+WARP_SZ+WARP_SZ];\n"
      "  ld.u32 %r7, [sh+32];\n  ld.u32 %r8, [gv+8];\n  ld.u32 %r10, [cv+4];\n"
      "  mul.wide.u32 %rd5, %r1, 32;\n  add.u64 %rd6, %rd1, %rd5;\n"
      "  st.global.v4.u32 [%rd6], {%r3, %r4, %r5, %r6};\n  st.global.v4.u32 [%rd6+16], {%r7, %r8, %r10, %r2};";
  const auto out = run_bytes(kernel(body, decls), 32 * 32, std::vector<std::uint8_t>(16));
  for (std::uint32_t l = 0; l < 32; ++l) {
    const std::uint32_t want[8] = {7 * l, l, 1234, 4321, 1234, 9, 6, 7 * l};
    for (int k = 0; k < 8; ++k) EXPECT_EQ(word(out, 8 * l + k), want[k]) << "lane " << l << " word " << k;
  }
  EXPECT_NE(parse_error(kernel("  ld.u64 %rd3, [pout];")).find("the parameter pout with generic ld/st"), std::string::npos);
  EXPECT_NE(parse_error(kernel("  ld.shared.u32 %r2, [sh+WARP];", decls)).find("expected an offset in the address"), std::string::npos);
}

// --- 5. The half-precision mma forms stay refused, by name ------------------------------------

TEST(PtxForms2, HalfPrecisionMmaIsAClearError) {
  const std::string regs = " {%r10, %r11, %r12, %r13}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%r10, %r11, %r12, %r13};";
  for (const char* form : {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
                           "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
                           "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32"}) {
    const std::string e = parse_error(kernel(std::string("  ") + form + regs));
    EXPECT_NE(e.find(std::string(form) + " is not supported (mma with f16/bf16 inputs"), std::string::npos) << e;
  }
}
