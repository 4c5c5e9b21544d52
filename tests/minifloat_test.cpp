// numerics/minifloat (e5m2, e4m3 from f32, bf16) against NVIDIA's host code from the CUDA
// toolkit's cuda_fp8.hpp / cuda_bf16.hpp (the independent reference), exhaustively over f16 and
// over every f32 exponent with edge and random mantissas; and through the PTX interpreter's cvt.
#include <gtest/gtest.h>

#include "ci_skip.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "numerics/minifloat.hpp"
#include "numerics/profile.hpp"
#include "ptx/ptx.hpp"
#include "ptx_test_util.hpp"
#if defined(RRSWIN_HAVE_CUDA_FP8_REF)
#include "reference/cuda_fp8_ref.hpp"
#endif

namespace {
std::vector<std::uint32_t> f32_patterns() {
  std::vector<std::uint32_t> v;
  std::mt19937 g(17);
  for (std::uint32_t e = 0; e < 256; ++e)
    for (std::uint32_t m : {0u, 1u, 0x7FFFFFu, 0x400000u, 0x100000u, 0x0FFFFFu, 0x080000u, 0x180000u, 0x17FFFFu, 0x180001u}) {
      v.push_back((e << 23) | m);
      v.push_back(0x80000000u | (e << 23) | m);
      v.push_back((e << 23) | (g() & 0x7FFFFFu));
    }
  return v;
}
}  // namespace

TEST(Minifloat, Fp8AndBf16MatchNvidiaHostCode) {
#if !defined(RRSWIN_HAVE_CUDA_FP8_REF)
  RRSWIN_SKIP_UNLESS_CI() << "cuda_fp8.hpp not found: the fp8/bf16 reference is missing";
#else
  // NVIDIA's host code gives 0x7F for every NaN; the ada profile follows it (numerics/e4m3).
  const rrswin::Profile& ada = rrswin::profile_ada();
  std::uint64_t n = 0;
  for (std::uint32_t b : f32_patterns()) {
    const float x = std::bit_cast<float>(b);
    ASSERT_EQ(rrswin::f32_to_e4m3(x, ada), rrswin::ref::nv_cvt_float_to_e4m3_satfinite(x)) << std::hex << b;
    ASSERT_EQ(rrswin::f32_to_e5m2(x, ada), rrswin::ref::nv_cvt_float_to_e5m2_satfinite(x)) << std::hex << b;
    if (!std::isnan(x)) {
      ASSERT_EQ(rrswin::f32_to_bf16(x), rrswin::ref::nv_float2bfloat16_rn(x)) << std::hex << b;
    } else {
      ASSERT_EQ(rrswin::f32_to_bf16(x), 0x7FFF) << std::hex << b;  // the canonical bf16 NaN
    }
    ++n;
  }
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    ASSERT_EQ(rrswin::f16_to_e5m2(static_cast<std::uint16_t>(h), ada),
              rrswin::ref::nv_cvt_half_to_e5m2_satfinite(static_cast<std::uint16_t>(h)))
        << std::hex << h;
    const float f = rrswin::bf16_to_f32(static_cast<std::uint16_t>(h)), r = rrswin::ref::nv_bfloat162float(static_cast<std::uint16_t>(h));
    if (!std::isnan(r)) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(f), std::bit_cast<std::uint32_t>(r)) << std::hex << h;
    }
  }
  for (std::uint32_t c = 0; c < 256; ++c) {
    const std::uint16_t want = rrswin::ref::nv_cvt_e5m2_to_half(static_cast<std::uint8_t>(c));
    const bool nan = (want & 0x7C00) == 0x7C00 && (want & 0x3FF);
    EXPECT_EQ(rrswin::e5m2_to_f16(static_cast<std::uint8_t>(c)), nan ? 0x7FFF : want) << c;
  }
  EXPECT_GT(n, 7000u);
#endif
}

TEST(Minifloat, PtxCvtRoutesToTheConversions) {
  using namespace rrswin::ptx;
  const std::string text =
      ".version 8.0\n.target sm_89\n.address_size 64\n.visible .entry k(.param .u64 pout, .param .u64 pin)\n{\n"
      "  .reg .b64 %rd<8>;\n  .reg .b32 %r<8>;\n  .reg .f32 %f<4>;\n  .reg .b16 %h<8>;\n"
      "  ld.param.u64 %rd1, [pout];\n  ld.param.u64 %rd2, [pin];\n  mov.u32 %r0, %tid.x;\n  mul.wide.u32 %rd3, %r0, 8;\n"
      "  add.s64 %rd4, %rd1, %rd3;\n  add.s64 %rd5, %rd2, %rd3;\n  ld.global.v2.f32 {%f0, %f1}, [%rd5];\n"
      "  cvt.rn.satfinite.e5m2x2.f32 %h0, %f0, %f1;\n  cvt.rn.satfinite.e4m3x2.f32 %h1, %f0, %f1;\n"
      "  cvt.rn.bf16.f32 %h2, %f0;\n  cvt.f32.bf16 %f2, %h2;\n  mov.b32 %r1, %f2;\n  cvt.rn.bf16x2.f32 %r2, %f0, %f1;\n"
      "  cvt.rn.f16x2.e5m2x2 %r3, %h0;\n  mov.b32 %r4, {%h0, %h1};\n"
      "  st.global.v2.u32 [%rd4], {%r4, %r2};\n  st.global.v2.u32 [%rd4+256], {%r1, %r3};\n  ret;\n}\n";
  auto m = parse_module(text, "cvt.ptx");
  std::vector<float> in(64);
  std::mt19937 g(3);
  for (auto& x : in) x = std::ldexp(static_cast<float>(static_cast<int>(g() % 20001) - 10000) / 997.0f, static_cast<int>(g() % 40) - 20);
  in[0] = 60000.0f;
  in[1] = -1e-9f;
  std::vector<std::uint32_t> out(128, 0);
  rrswin::ptx::test::run_out_in(*m, out, in);
  const rrswin::Profile& ada = rrswin::profile_ada();
  for (int l = 0; l < 32; ++l) {
    const float x = in[2 * l], y = in[2 * l + 1];
    const std::uint32_t e5 = rrswin::f32_to_e5m2(y, ada) | (rrswin::f32_to_e5m2(x, ada) << 8);
    const std::uint32_t e4 = rrswin::f32_to_e4m3(y, ada) | (rrswin::f32_to_e4m3(x, ada) << 8);
    EXPECT_EQ(out[2 * l], e5 | (e4 << 16)) << l;
    EXPECT_EQ(out[2 * l + 1],
              static_cast<std::uint32_t>(rrswin::f32_to_bf16(y)) | (static_cast<std::uint32_t>(rrswin::f32_to_bf16(x)) << 16))
        << l;
    EXPECT_EQ(out[64 + 2 * l], std::bit_cast<std::uint32_t>(rrswin::bf16_to_f32(rrswin::f32_to_bf16(x)))) << l;
    EXPECT_EQ(out[64 + 2 * l + 1], static_cast<std::uint32_t>(rrswin::e5m2_to_f16(static_cast<std::uint8_t>(e5))) |
                                       (static_cast<std::uint32_t>(rrswin::e5m2_to_f16(static_cast<std::uint8_t>(e5 >> 8))) << 16))
        << l;
  }
}
