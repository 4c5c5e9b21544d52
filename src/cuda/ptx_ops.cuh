// Every arithmetic and warp instruction of the kernel, as the exact PTX instruction the golden
// model models (src/numerics: one function per instruction, numerics.md). Inline PTX rather than
// CUDA intrinsics or C operators, so that nvcc can neither contract (mul + add -> fma), reorder,
// nor pick another rounding or a non-ftz form: the PTX the interpreter runs, and the SASS a GPU
// runs, are these instructions. Registers carry bit patterns: f16 in uint16_t (.b16), f16x2 in
// uint32_t (.b32, low half = element 0), f32 in float.
#pragma once
#include <cstdint>

namespace rrswin::cuda::ptx {

using u16 = std::uint16_t;
using u32 = std::uint32_t;

// ---- the FP8 tensor-core step (numerics/mma.hpp: mma_dot; profile decides the accumulation) ----
// d = a b + c for one m16n8k32 tile: a = 4 A registers (16x32 e4m3), b = 2 B registers (32x8),
// c, d = 2 f16x2 registers (16x8).
__device__ __forceinline__ void mma_e4m3(u32 (&d)[2], const u32 (&a)[4], const u32 (&b)[2], const u32 (&c)[2]) {
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
               : "=r"(d[0]), "=r"(d[1])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
}

// ---- conversions (numerics/e4m3.hpp, f16.hpp) ----
// cvt.rn.satfinite.e4m3x2.f16x2: byte 0 = q8 of the low half, byte 1 = q8 of the high half.
__device__ __forceinline__ u16 cvt_e4m3x2(u32 v) {
  u16 d;
  asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(d) : "r"(v));
  return d;
}
// cvt.rn.satfinite.relu.e4m3x2.f16x2 (enc0's P2 A, HIP-e0 relu_pair): as cvt_e4m3x2 with a negative
// half (-0 too) made +0 and a NaN the canonical NaN (golden quantise_relu).
__device__ __forceinline__ u16 cvt_relu_e4m3x2(u32 v) {
  u16 d;
  asm("cvt.rn.satfinite.relu.e4m3x2.f16x2 %0, %1;" : "=h"(d) : "r"(v));
  return d;
}
// cvt.rn.f16x2.e4m3x2 (exact): low byte -> low half.
__device__ __forceinline__ u32 cvt_f16x2_e4m3x2(u16 v) {
  u32 d;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(d) : "h"(v));
  return d;
}
__device__ __forceinline__ float cvt_f32_f16(u16 h) {
  float d;
  asm("cvt.f32.f16 %0, %1;" : "=f"(d) : "h"(h));
  return d;
}
__device__ __forceinline__ u16 cvt_rn_f16_f32(float x) {
  u16 d;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(d) : "f"(x));
  return d;
}

// ---- f16 scalar arithmetic (numerics/f16.hpp: one IEEE RNE rounding, subnormals kept) ----
__device__ __forceinline__ u16 add_f16(u16 a, u16 b) {
  u16 d;
  asm("add.rn.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b));
  return d;
}
__device__ __forceinline__ u16 sub_f16(u16 a, u16 b) {
  u16 d;
  asm("sub.rn.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b));
  return d;
}
__device__ __forceinline__ u16 mul_f16(u16 a, u16 b) {
  u16 d;
  asm("mul.rn.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b));
  return d;
}
__device__ __forceinline__ u16 fma_f16(u16 a, u16 b, u16 c) {
  u16 d;
  asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(d) : "h"(a), "h"(b), "h"(c));
  return d;
}
__device__ __forceinline__ u16 max_f16(u16 a, u16 b) {
  u16 d;
  asm("max.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b));
  return d;
}

// ---- f16x2 packed arithmetic (numerics/f16.hpp: the scalar operation on each half) ----
__device__ __forceinline__ u32 add_f16x2(u32 a, u32 b) {
  u32 d;
  asm("add.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
__device__ __forceinline__ u32 sub_f16x2(u32 a, u32 b) {
  u32 d;
  asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
__device__ __forceinline__ u32 mul_f16x2(u32 a, u32 b) {
  u32 d;
  asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
__device__ __forceinline__ u32 fma_f16x2(u32 a, u32 b, u32 c) {
  u32 d;
  asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
__device__ __forceinline__ u32 max_f16x2(u32 a, u32 b) {
  u32 d;
  asm("max.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
__device__ __forceinline__ u32 min_f16x2(u32 a, u32 b) {
  u32 d;
  asm("min.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
__device__ __forceinline__ u32 neg_f16x2(u32 a) {
  u32 d;
  asm("neg.f16x2 %0, %1;" : "=r"(d) : "r"(a));
  return d;
}
__device__ __forceinline__ u32 abs_f16x2(u32 a) {
  u32 d;
  asm("abs.f16x2 %0, %1;" : "=r"(d) : "r"(a));
  return d;
}

// ---- f32 instructions (numerics/approx.hpp: .ftz on inputs and outputs; .approx modelled as the
// correctly rounded result, exact once wrapped through f16 for rcp and rsqrt; ex2 and div are
// the model-dependent pair of docs/readings.md "approx-model") ----
__device__ __forceinline__ float rcp_approx_ftz(float x) {
  float d;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(x));
  return d;
}
__device__ __forceinline__ float rsqrt_approx_ftz(float x) {
  float d;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(x));
  return d;
}
__device__ __forceinline__ float ex2_approx_ftz(float x) {
  float d;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(x));
  return d;
}
__device__ __forceinline__ float div_approx_ftz(float a, float b) {
  float d;
  asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}
__device__ __forceinline__ float mul_ftz(float a, float b) {
  float d;
  asm("mul.rn.ftz.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}
__device__ __forceinline__ float add_ftz(float a, float b) {
  float d;
  asm("add.rn.ftz.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}
__device__ __forceinline__ float fma_ftz(float a, float b, float c) {
  float d;
  asm("fma.rn.ftz.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
  return d;
}
// abs.ftz.f32: |x| with a subnormal flushed to +0 (dec0's tanh, golden dec0_tanh).
__device__ __forceinline__ float abs_ftz(float x) {
  float d;
  asm("abs.ftz.f32 %0, %1;" : "=f"(d) : "f"(x));
  return d;
}
// cvt.rn.f32.s32 (exact for |i| < 2^24).
__device__ __forceinline__ float cvt_rn_f32_s32(int i) {
  float d;
  asm("cvt.rn.f32.s32 %0, %1;" : "=f"(d) : "r"(i));
  return d;
}

// ---- warp-level data movement (numerics/warp.hpp) ----
// shfl.sync.bfly.b32 d, a, b, 0x1f, -1: lane L receives a from lane L ^ b.
__device__ __forceinline__ u32 shfl_bfly(u32 a, int lane_mask) {
  u32 d;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, -1;" : "=r"(d) : "r"(a), "r"(lane_mask));
  return d;
}
// shfl.sync.down.b32 d, a, b, 0x1f, -1: lane L receives a from lane L + b, its own a past lane 31
// (PTX ISA shfl.sync: the source lane is out of range).
__device__ __forceinline__ u32 shfl_down(u32 a, int delta) {
  u32 d;
  asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, -1;" : "=r"(d) : "r"(a), "r"(delta));
  return d;
}
// shfl.sync.idx.b32 d, a, b, 0x1f, -1: lane L receives a from lane b (enc1's register merge and
// one-warp final gather rows across lanes, DOC-e1 §3/E30, E32(a)).
__device__ __forceinline__ u32 shfl_idx(u32 a, int src_lane) {
  u32 d;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, -1;" : "=r"(d) : "r"(a), "r"(src_lane));
  return d;
}
// movmatrix.sync.aligned.m8n8.trans.b16: the 8x8 b16 tile held one f16x2 per lane, transposed.
__device__ __forceinline__ u32 movmatrix_trans(u32 a) {
  u32 d;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(d) : "r"(a));
  return d;
}

// ---- texture and surface (numerics.md "Texture and surface") ----
struct F16x4 {
  u16 v[4];
};
// tex.base.2d.v4.f16.s32: unfiltered fetch of texel (x, y) at level 0.
__device__ __forceinline__ F16x4 tex_fetch(unsigned long long tex, int x, int y) {
  F16x4 r;
  asm volatile("tex.base.2d.v4.f16.s32 {%0,%1,%2,%3}, [%4, {%5,%6}];"
               : "=h"(r.v[0]), "=h"(r.v[1]), "=h"(r.v[2]), "=h"(r.v[3])
               : "l"(tex), "r"(x), "r"(y));
  return r;
}
// tex.base.2d.v4.f16.f32: a fetch at unnormalised texel coordinates (u, v) through the launch's
// sampler (the decoders' +88; numerics/texcoord.hpp models the linear filter).
__device__ __forceinline__ F16x4 tex_sample(unsigned long long tex, float u, float v) {
  F16x4 r;
  asm volatile("tex.base.2d.v4.f16.f32 {%0,%1,%2,%3}, [%4, {%5,%6}];"
               : "=h"(r.v[0]), "=h"(r.v[1]), "=h"(r.v[2]), "=h"(r.v[3])
               : "l"(tex), "f"(u), "f"(v));
  return r;
}
// sust.b.2d.v4.b16.zero: x is a byte offset in the row; out-of-bounds stores are dropped.
__device__ __forceinline__ void surf_store(unsigned long long surf, int x_bytes, int y, u16 r, u16 g, u16 b, u16 a) {
  asm volatile("sust.b.2d.v4.b16.zero [%0, {%1,%2}], {%3,%4,%5,%6};"
               :
               : "l"(surf), "r"(x_bytes), "r"(y), "h"(r), "h"(g), "h"(b), "h"(a)
               : "memory");
}
// sust.p.2d.v4.b32.zero: x is a texel (element) index; the four f32 values go through the bound
// surface's format (dec0's +144, DOC-d0 §4.2 s18603); out-of-bounds stores are dropped.
__device__ __forceinline__ void surf_store_p(unsigned long long surf, int x, int y, float r, float g, float b, float a) {
  asm volatile("sust.p.2d.v4.b32.zero [%0, {%1,%2}], {%3,%4,%5,%6};"
               :
               : "l"(surf), "r"(x), "r"(y), "r"(__float_as_uint(r)), "r"(__float_as_uint(g)), "r"(__float_as_uint(b)),
                 "r"(__float_as_uint(a))
               : "memory");
}

}  // namespace rrswin::cuda::ptx
