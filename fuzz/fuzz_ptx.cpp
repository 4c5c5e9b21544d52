// The PTX parser, decoder and executor (src/ptx/, issues 10, 18, 20): any text as a module, then
// every entry's statistics, then the first entry run on one CTA of one warp with a zero parameter
// block, no device memory and a small work bound (every access out of what exists is an error).
// Seeds: tests/ptx/kernels.ptx split into its entries, and the forms of issue 20 (fuzz/ptx_seeds).
#include <algorithm>
#include <string>
#include <vector>

#include "fuzz_util.hpp"
#include "ptx/ir.hpp"
#include "ptx/ptx.hpp"

#ifndef RRSWIN_SOURCE_DIR
#define RRSWIN_SOURCE_DIR "."
#endif

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::maybe_write_seeds([](const fuzz::fs::path& d) {
    const auto b = fuzz::read(fuzz::fs::path(RRSWIN_SOURCE_DIR) / "tests/ptx/kernels.ptx");
    const std::string text(b.begin(), b.end());
    // The whole module, and each entry with the module's header (smaller inputs mutate faster).
    fuzz::write(d / "kernels.ptx", text);
    const auto first = text.find(".visible .entry");
    const std::string header = text.substr(0, first == std::string::npos ? 0 : first);
    std::size_t at = first, i = 0;
    while (at != std::string::npos && i < 32) {
      const auto next = text.find(".visible .entry", at + 1);
      fuzz::write(d / ("entry-" + std::to_string(i++) + ".ptx"),
                  header + text.substr(at, next == std::string::npos ? std::string::npos : next - at));
      at = next;
    }
    // The forms of issue 20 and the declarations of issue 18.
    fuzz::write(
        d / "carry-cvt.ptx",
        header +
            ".global .u32 t[2] = {1, 2};\n.global .u64 p = generic(t);\n"
            ".visible .entry k(.param .u64 a)\n{\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n  .reg .f32 %f<4>;\n  .reg .pred %p<2>;\n"
            "  sub.cc.u32 %r1, %r2, %r3;\n  subc.cc.u32 %r4, %r2, %r3;\n  addc.u32 %r5, 0, 0;\n  mad.lo.cc.u32 %r6, %r1, %r2, %r3;\n"
            "  madc.hi.u32 %r7, %r1, %r2, %r3;\n  cvt.s16.s8 %r1, %r2;\n  cvt.rz.f32.s32 %f1, %r1;\n  add.rm.ftz.sat.f32 %f2, %f1, %f1;\n"
            "  min.NaN.f32 %f3, %f1, %f2;\n  slct.ftz.s32.f32 %r2, %r3, %r4, %f3;\n  setp.eq.u32 %p1, %r2, 7;\n  @%p1 trap;\n"
            "  ld.global.u64 %rd1, [p];\n  ld.s8 %r3, [%rd1];\n  ret;\n}\n");
    // This session's forms: set / setp on halves and bf16, .relu and .sat on half results, bf16
    // arithmetic, bar.red, a loop
    // that reads a register before writing it (the per-CTA zeroing analysis, cfg.cpp).
    fuzz::write(
        d / "half-set-relu.ptx",
        header +
            ".visible .entry k(.param .u64 a)\n{\n  .reg .b32 %r<8>;\n  .reg .b16 %h<4>;\n  .reg .f32 %f<4>;\n  .reg .pred %p<4>;\n"
            "  mov.b32 %r1, 0x3C00BC00;\n  mov.b32 %r2, 0x7E000001;\n  setp.ltu.and.f16x2 %p1|%p2, %r1, %r2, !%p3;\n"
            "  set.nan.f16.f16 %h1, %h2, %h3;\n  set.ge.or.u32.bf16x2 %r3, %r1, %r2, %p1;\n  set.lt.f32.s32 %f1, %r1, %r2;\n"
            "  fma.rn.relu.f16x2 %r4, %r1, %r2, %r3;\n  max.NaN.relu.f16 %h1, %h2, %h3;\n  cvt.rn.relu.bf16x2.f32 %r5, %f1, %f2;\n"
            "  cvt.rn.sat.f16.f32 %h2, %f1;\n  bar.arrive 1, 32;\n  add.rn.bf16x2 %r4, %r4, %r5;\n  max.bf16 %h1, %h2, %h3;\n  bar.red.popc.u32 %r7, 0, %p1;\n  bar.red.or.pred %p2, 0, !%p1;\nLOOP:\n  add.u32 %r6, %r6, 1;\n  setp.lt.u32 %p2, %r6, 4;\n  @%p2 bra LOOP;\n  ret;\n}\n");
    // Integer mma (every shape, .satfinite) and .relu of a -0 result (docs/readings.md).
    fuzz::write(
        d / "int-mma.ptx",
        header +
            ".visible .entry k(.param .u64 a)\n{\n  .reg .b32 %r<12>;\n  .reg .s32 %s<4>;\n  .reg .b16 %h<4>;\n"
            "  mov.b32 %r1, 0x80FF7F01;\n  mov.b32 %r2, 0x7FFFFFFF;\n"
            "  mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%s0, %s1, %s2, %s3}, {%r1, %r2, %r1, %r2}, {%r1, "
            "%r2}, {%s0, %s1, %s2, %s3};\n"
            "  mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%s0, %s1, %s2, %s3}, {%r1, %r2}, {%r1}, {%s0, %s1, %s2, %s3};\n"
            "  mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%s0, %s1}, {%r1}, {%r2}, {%s2, %s3};\n"
            "  mov.b16 %h1, 0x8000;\n  mov.b16 %h2, 0x3C00;\n  fma.rn.relu.f16 %h3, %h1, %h2, %h1;\n"
            "  fma.rn.relu.bf16x2 %r3, %r1, %r2, %r1;\n  fma.rn.bf16 %h3, %h1, %h2, %h1;\n  max.NaN.xorsign.abs.f16x2 %r4, %r1, %r2;\n"
            "  min.xorsign.abs.bf16 %h3, %h1, %h2;\n  ret;\n}\n");
    // Vector registers: declarations, components (.x .. .w, .r .. .a), whole vectors in ld, st,
    // mov.v2/.v4 and tex (PTX ISA "Vectors").
    fuzz::write(d / "vector-registers.ptx",
                header +
                    ".visible .entry k(.param .u64 a)\n{\n  .reg .v4 .u32 %v<2>;\n  .reg .v2 .f32 %w;\n  .reg .v4 .b16 %h;\n"
                    "  .reg .v2 .s32 %c;\n  .reg .b64 %rd<4>;\n  ld.param.u64 %rd1, [a];\n  ld.global.v4.u32 %v0, [%rd1];\n"
                    "  mov.v4.u32 %v1, {%v0.w, %v0.z, %v0.y, %v0.x};\n  add.u32 %v1.r, %v1.g, %v0.a;\n  mov.v2.f32 %w, {%w.y, %w.x};\n"
                    "  st.global.v4.u32 [%rd1+16], %v1;\n  st.global.v2.f32 [%rd1+32], %w;\n"
                    "  tex.base.2d.v4.f16.s32 %h, [%rd1, %c];\n  ret;\n}\n");
    // Issue 39's forms (tests/ptx_forms2_test.cpp): cp.async with src-size and ignore-src.
    fuzz::write(d / "cp-async-src-size.ptx",
                header +
                    ".shared .align 16 .b8 buf[256];\n.visible .entry k(.param .u64 a)\n{\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"
                    "  .reg .pred %p<2>;\n  ld.param.u64 %rd1, [a];\n  mov.u32 %r1, %tid.x;\n  setp.lt.u32 %p1, %r1, 7;\n"
                    "  and.b32 %r2, %r1, 3;\n  cp.async.ca.shared.global [buf], [%rd1], 16, 8;\n"
                    "  cp.async.ca.shared.global [buf+16], [%rd1+8], 8, %p1;\n  cp.async.cg.shared.global [buf+32], [%rd1], 16, !%p1;\n"
                    "  cp.async.ca.shared::cta.global [buf+48], [%rd1+4], 4, %r2;\n  cp.async.commit_group;\n  cp.async.wait_group 0;\n"
                    "  ret;\n}\n");
    fuzz::write(d / "ldmatrix-symbol.ptx",
                header +
                    ".shared .align 16 .b8 sm[256];\n.visible .entry k(.param .u64 a)\n{\n  .reg .b32 %r<8>;\n"
                    "  ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1, %r2, %r3, %r4}, [sm+16];\n"
                    "  ldmatrix.sync.aligned.m8n8.x2.b16 {%r1, %r2}, [sm];\n  ldmatrix.sync.aligned.m8n8.x1.shared::cta.b16 %r5, [32];\n"
                    "  stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [sm+64], {%r1, %r2};\n  ret;\n}\n");
    fuzz::write(d / "video.ptx",
                header +
                    ".visible .entry k(.param .u64 a)\n{\n  .reg .b32 %r<8>;\n  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, 0x80FF7F01;\n"
                    "  vshr.u32.u32.u32.clamp.add %r3, %r2, %r1, %r2;\n  vadd.s32.u32.s32.sat %r4, %r2.b0, %r3.h0;\n"
                    "  vabsdiff.s32.s32.s32.sat %r5.h0, %r2.b0, %r3.b2, %r4;\n  vmin.s32.s32.s32.sat.add %r6, %r2, %r3, %r5;\n"
                    "  vshl.s32.u32.u32.wrap.max %r7, %r6.h1, %r1.b0, %r2;\n  vset.u32.s32.le.min %r1, %r7, %r2.b3, %r6;\n  ret;\n}\n");
    fuzz::write(d / "v8-params-shared.ptx",
                ".version 8.8\n.target sm_100\n.address_size 64\n.shared .align 8 .b32 sh[64];\n.extern .shared .align 16 .b8 dyn[];\n"
                ".func f(.reg .u32 t)\n{\n  .reg .b64 %y;\n  mov.u64 %y, sh;\n  st.shared.u32 [%y+WARP_SZ], t;\n  st.shared.u32 [dyn], t;\n"
                "  ret;\n}\n.visible .entry k(.param .u64 a, .param .v2 .u32 pv, .param .align 16 .v4 .f32 pf)\n{\n  .reg .b32 %r<9>;\n"
                "  .reg .b64 %rd<4>;\n  .local .align 8 .b32 lv[4];\n  ld.param.u64 %rd1, [a];\n  ld.param.v2.u32 {%r1, %r2}, [pv];\n"
                "  call f, (%r1);\n  st.u32 [lv+4], %r2;\n  ld.u32 %r3, [lv];\n  ld.u32 %r4, [sh+WARP_SZ];\n"
                "  ld.global.v8.b32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];\n"
                "  st.global.v8.b32 [%rd1+32], {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8};\n  ret;\n}\n");
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::guarded([&] {
    const auto m = rrswin::ptx::parse_module(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.ptx");
    const auto names = rrswin::ptx::entry_names(*m);
    for (const std::string& e : names) (void)rrswin::ptx::entry_stats(*m, e);
    if (names.empty()) return;
    // A launch allocates the module's .global variables (up to the 1 GiB limit): keep runs small.
    for (const auto& v : m->variables)
      if (v.size > (1u << 20)) return;
    const rrswin::ptx::EntryStats st = rrswin::ptx::entry_stats(*m, names[0]);
    std::uint32_t bytes = 0;
    for (const auto& p : st.params) bytes = std::max(bytes, p.offset + p.size);
    std::vector<std::uint8_t> params(bytes, 0);
    rrswin::ptx::Device dev;
    rrswin::ptx::RunOptions opt;
    opt.threads = 1;
    opt.max_warp_instructions = 20000;
    opt.max_launch_instructions = 20000;
    (void)rrswin::ptx::run(*m, names[0], {1, 1, 1}, {32, 1, 1}, params, dev, opt);
  });
  return 0;
}
