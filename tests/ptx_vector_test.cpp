// Vector registers (PTX ISA "Vectors" and "Vector Operands"): `.reg .v2/.v4 .TYPE` declarations,
// components %v.x/.y/.z/.w and .r/.g/.b/.a, whole vectors as operands of ld, st, mov.v2/.v4 and
// tex, and the clear errors for everything else. Expected values are written here by hand.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "model/texture_surface.hpp"
#include "ptx/ptx.hpp"
#include "ptx_test_util.hpp"

using namespace rrswin::ptx;

namespace {

// A kernel k(out, in): %r50 = global thread index, %rd1 = out, %rd2 = in (global addresses).
std::string kernel(const std::string& body, const std::string& decls = "") {
  return ".version 8.0\n.target sm_89\n.address_size 64\n\n.visible .entry k(\n  .param .u64 pout,\n  .param .u64 pin\n)\n{\n"
         "  .reg .b32 %r<64>;\n  .reg .b64 %rd<32>;\n  .reg .b16 %rs<8>;\n" +
         decls +
         "  ld.param.u64 %rd1, [pout];\n  ld.param.u64 %rd2, [pin];\n  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, %rd2;\n"
         "  mov.u32 %r0, %tid.x;\n  mov.u32 %r51, %ctaid.x;\n  mov.u32 %r52, %ntid.x;\n  mad.lo.s32 %r50, %r51, %r52, %r0;\n" +
         body + "\n  ret;\n}\n";
}

std::vector<std::uint32_t> run_kernel(const std::string& ptx, std::vector<std::uint32_t> in, std::size_t out_words,
                                      Device* dev_in = nullptr) {
  auto m = parse_module(ptx, "vec.ptx");
  std::vector<std::uint32_t> out(out_words, 0xDEADBEEFu);
  test::run_out_in(*m, out, in, test::one_thread(), dev_in);
  return out;
}

std::string decode_error(const std::string& ptx) {
  try {
    parse_module(ptx, "vec.ptx");
  } catch (const PtxError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& n) { return s.find(n) != std::string::npos; }

TEST(PtxVector, LoadMoveComponentsAndStoreWholeVectors) {
  // Per thread t: v0 = in[4t .. 4t+3]; v1 = v0 reversed by mov.v4 of components; v1.r += 1 (the
  // colour name of .x); out[4t ..] = v1. Then a v2 swap through mov.v2 of itself.
  const std::string body =
      "  mul.wide.u32 %rd6, %r50, 16;\n  add.s64 %rd7, %rd2, %rd6;\n  add.s64 %rd8, %rd1, %rd6;\n"
      "  ld.global.v4.u32 %v0, [%rd7];\n"
      "  mov.v4.u32 %v1, {%v0.w, %v0.z, %v0.y, %v0.x};\n"
      "  add.u32 %v1.r, %v1.r, 1;\n"
      "  st.global.v4.u32 [%rd8], %v1;\n"
      "  mov.b32 %s.x, %v0.x;\n  mov.b32 %s.g, 7;\n"
      "  mov.v2.b32 %s, {%s.y, %s.x};\n"
      "  mul.wide.u32 %rd9, %r50, 8;\n  add.s64 %rd10, %rd1, %rd9;\n"
      "  st.global.v2.b32 [%rd10+512], %s;\n";
  std::vector<std::uint32_t> in(128);
  for (std::uint32_t k = 0; k < in.size(); ++k) in[k] = 0x1000u * k + 3;
  const auto out = run_kernel(kernel(body, "  .reg .v4 .u32 %v<2>;\n  .reg .v2 .b32 %s;\n"), in, 128 + 64);
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(out[4 * t + 0], in[4 * t + 3] + 1) << t;
    EXPECT_EQ(out[4 * t + 1], in[4 * t + 2]) << t;
    EXPECT_EQ(out[4 * t + 2], in[4 * t + 1]) << t;
    EXPECT_EQ(out[4 * t + 3], in[4 * t + 0]) << t;
    EXPECT_EQ(out[128 + 2 * t], 7u) << t;             // the swap: x <- old y
    EXPECT_EQ(out[128 + 2 * t + 1], in[4 * t]) << t;  // y <- old x
  }
}

TEST(PtxVector, WholeVectorsAsTexDestinationAndCoordinates) {
  rrswin::Texture tex;
  tex.width = 5;
  tex.height = 3;
  tex.mode = rrswin::AddressMode::clamp;
  for (int i = 0; i < 5 * 3 * 4; ++i) tex.rgba.push_back(static_cast<rrswin::f16_t>(0x3C00 + i));
  Device dev;
  const std::uint64_t th = dev.bind_texture(&tex);
  // Lane l fetches texel (l % 5, l / 5 clamped to 2) into a .v4 .b16 and stores it as two words.
  const std::string body =
      "  ld.global.u64 %rd10, [%rd2];\n"
      "  rem.u32 %c.x, %r0, 5;\n  div.u32 %c.y, %r0, 5;\n"
      "  tex.base.2d.v4.f16.s32 %h, [%rd10, %c];\n"
      "  mov.b32 %r3, {%h.x, %h.y};\n  mov.b32 %r4, {%h.b, %h.a};\n"
      "  mul.wide.u32 %rd12, %r0, 8;\n  add.s64 %rd13, %rd1, %rd12;\n  st.global.v2.u32 [%rd13], {%r3, %r4};\n";
  const std::vector<std::uint32_t> in = {static_cast<std::uint32_t>(th), static_cast<std::uint32_t>(th >> 32)};
  const auto out = run_kernel(kernel(body, "  .reg .v4 .b16 %h;\n  .reg .v2 .s32 %c;\n"), in, 64, &dev);
  for (int l = 0; l < 32; ++l) {
    const int x = l % 5, y = std::min(l / 5, 2);  // clamp addressing
    const std::uint32_t base = 0x3C00u + static_cast<std::uint32_t>((y * 5 + x) * 4);
    EXPECT_EQ(out[2 * l], base | ((base + 1) << 16)) << l;
    EXPECT_EQ(out[2 * l + 1], (base + 2) | ((base + 3) << 16)) << l;
  }
}

TEST(PtxVector, ClearErrorsForWhatTheIsaDoesNotAllow) {
  const std::string d = "  .reg .v4 .u32 %v;\n  .reg .v2 .f32 %w;\n";
  struct Case {
    std::string decls, body, message;
  };
  const Case cases[] = {
      {"  .reg .v4 .f64 %x;\n", "", "exceeds the 128 bits"},
      {"  .reg .v2 .pred %x;\n", "", "a vector of predicates"},
      {"  .reg .v2 .v4 .u32 %x;\n", "", "one .v2 or .v4"},
      {"  .reg .u32 %a.b;\n", "", "may not contain '.'"},
      {d, "  add.u32 %r1, %v, 1;\n", "the vector register %v where a scalar operand is expected"},
      {d, "  mov.u32 %v, %r1;\n", "the vector register %v where a scalar operand is expected"},
      {d, "  ld.global.v2.u32 %v, [%rd2];\n", "vector width"},
      {d, "  mov.v4.u32 %v, %w;\n", "takes 4-component vectors"},
      {d, "  mov.v2.f32 %w, {%w.x, %w.x};\n", ""},  // a repeated source is fine
      {d, "  mov.v2.f32 {%w.x, %w.x}, %w;\n", "appears twice"},
      {d, "  mov.b64 %rd3, %w;\n", "where a scalar operand is expected"},
      {d, "  add.u32 %v.q, %r1, 1;\n", "undeclared register %v.q"},
      {d, "  .reg .u32 %v;\n", "declared twice"},
  };
  for (const Case& c : cases) {
    const std::string e = decode_error(kernel(c.body, c.decls));
    if (c.message.empty())
      EXPECT_EQ(e, "") << c.body;
    else
      EXPECT_TRUE(has(e, c.message) && has(e, "vec.ptx:")) << c.decls << c.body << " -> " << e;
  }
}

}  // namespace
