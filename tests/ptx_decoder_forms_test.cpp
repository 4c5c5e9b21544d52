// The instruction forms the decoders' E1 and decoder final add to the template (rr_network_layers.md
// §5; DOC-d4 §4/E1 s10075, §4/E62 s24428-s24441; DOC-d3 §4/E1's mirror): each run by `rrswin ptx
// launch` on PTX written for it, the expected values from the PTX ISA manual worked by hand:
//   mov.f64 0d3F20000000000000 = 2^-13, cvt.rn.f16.f64 of it = f16 0x0800 (exact, 2^-13 is normal in f16);
//   set.nan.f16.f16 d, a, b = 1.0 (f16 0x3C00) when a or b is NaN, else 0 (ISA "set": a float
//   destination receives 1.0f for true); setp.ne.s16 of that against 0;
//   abs.s32 / min.u32 / min.s32 / sub / shl: the reflect-101 coordinate min(|v|, 2n - 2 - |v|).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace {

using namespace test_util;

constexpr const char* kPtx = R"(.version 8.0
.target sm_89
.address_size 64
.visible .entry forms(.param .u64 out, .param .u32 v, .param .u32 n, .param .b16 h)
{
  .reg .b16 %rs<8>;
  .reg .b32 %r<16>;
  .reg .f64 %fd<2>;
  .reg .b64 %rd<2>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u32 %r1, [v];
  ld.param.u32 %r2, [n];
  ld.param.b16 %rs1, [h];
  mov.f64 %fd1, 0d3F20000000000000;
  cvt.rn.f16.f64 %rs2, %fd1;
  set.nan.f16.f16 %rs3, %rs1, %rs1;
  setp.ne.s16 %p1, %rs3, 0;
  selp.u32 %r3, 7, 9, %p1;
  abs.s32 %r4, %r1;
  shl.b32 %r5, %r2, 1;
  sub.s32 %r6, %r5, %r4;
  add.s32 %r6, %r6, -2;
  min.s32 %r7, %r4, %r6;
  add.s32 %r8, %r2, -1;
  min.u32 %r9, %r7, %r8;
  cvt.u32.u16 %r10, %rs2;
  cvt.u32.u16 %r11, %rs3;
  st.global.u32 [%rd1], %r10;
  st.global.u32 [%rd1+4], %r11;
  st.global.u32 [%rd1+8], %r3;
  st.global.u32 [%rd1+12], %r9;
  ret;
}
)";

std::vector<std::uint32_t> run(const TempDir& t, int v, int n, const char* h) {
  const Result r =
      t.rrswin("ptx launch forms.ptx --entry forms --grid 1 --block 1 --buffer out:16 --param ptr:out --param s32:" + std::to_string(v) +
               " --param u32:" + std::to_string(n) + " --param b16:" + h + " -o res");
  EXPECT_EQ(r.status, 0) << r.out;
  const std::vector<unsigned char> b = bytes_of(t.path / "res" / "out.bin");
  std::vector<std::uint32_t> w(4, 0xDEADBEEF);
  if (b.size() == 16) std::memcpy(w.data(), b.data(), 16);
  return w;
}

TEST(PtxDecoderForms, EpsilonNanGuardAndMirror) {
  TempDir t;
  {
    std::ofstream f(t.path / "forms.ptx");
    f << kPtx;
  }
  // A quiet NaN (0x7E00): the guard's set gives 1.0 and the branch predicate is true.
  std::vector<std::uint32_t> w = run(t, -1, 13, "0x7E00");
  EXPECT_EQ(w[0], 0x0800u);  // 2^-13
  EXPECT_EQ(w[1], 0x3C00u);
  EXPECT_EQ(w[2], 7u);
  EXPECT_EQ(w[3], 1u);  // reflect-101: -1 -> 1
  // A number (1.0 = 0x3C00): set gives 0, the predicate false.
  w = run(t, 13, 13, "0x3C00");
  EXPECT_EQ(w[1], 0u);
  EXPECT_EQ(w[2], 9u);
  EXPECT_EQ(w[3], 11u);         // n -> n - 2
  w = run(t, 5, 13, "0xFC01");  // a signalling NaN with the sign set is NaN too
  EXPECT_EQ(w[1], 0x3C00u);
  EXPECT_EQ(w[3], 5u);  // inside the frame: unchanged
  w = run(t, -20, 13, "0x0000");
  EXPECT_EQ(w[3], 4u);  // |v| = 20 past the far edge: 2*13 - 2 - 20 = 4
}

}  // namespace
