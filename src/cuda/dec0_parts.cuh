// The parts of dec0 (FrontKind::patch_expand in one warp, HeadForm::serial, FinalEpilogueKind::
// dec0_output; DOC-d0 §2.1/§3, docs/readings.md §11) that the other ports do not have, in the golden
// model's order and names (model/decoder_front.hpp, model/decoder_final.hpp dec0_output):
//
//   dec0_tanh       E19(d)     CUDA's tanhf as the PTX computes it (golden dec0_tanh, its constants)
//   dec0_pixel      E19(b)..(g) pixel T's 8 e4m3 bytes to +48, its 4 tanh values to +144 (sust.p),
//                              the decoder final's blend of its logits to +112
//   dec0_layer      the kernel  the decoders' front with the four sub-pixels in the one warp, E1 on
//                              all six m-tiles (the stem's A kept in registers), enc1's serial heads
//                              and 64-row MLP (no arena scatter, no final phase), E19 on D19 rows
//                              gathered across lanes (one_warp_parts.cuh gather_row_pairs)
//
// Included by src/cuda/dec0_kernel.cu only.
#pragma once
#include "cuda/dec0_params.hpp"
#include "cuda/decoder_parts.cuh"
#include "cuda/one_warp_parts.cuh"

namespace rrswin::cuda {
namespace {

// E19's columns of D19 (golden dec0_output_columns at the reading dec0-output-columns), as plain
// arrays the device code indexes; `pairs`: the f16x2 column pairs a pixel's row is gathered to (the
// logits 0..9 and every column the map names).
struct Dec0Columns {
  int e4m3[8];
  int tanh[4];
  int pairs;
};
constexpr Dec0Columns dec0_columns() {
  const golden::Dec0ColumnMap m = golden::dec0_output_columns(kLR.decoder_final.dec0_columns);
  Dec0Columns c{};
  int top = 9;  // the logits, columns 0..9
  for (int i = 0; i < 8; ++i) {
    c.e4m3[i] = m.e4m3[static_cast<std::size_t>(i)];
    top = c.e4m3[i] > top ? c.e4m3[i] : top;
  }
  for (int i = 0; i < 4; ++i) {
    c.tanh[i] = m.tanh[static_cast<std::size_t>(i)];
    top = c.tanh[i] > top ? c.tanh[i] : top;
  }
  c.pairs = top / 2 + 1;
  return c;
}
constexpr Dec0Columns kDec0Columns = dec0_columns();

// Column n's f16 of a gathered row (pairs: low half the even column).
template <int Pairs>
__device__ __forceinline__ u16 row_column(const u32 (&w)[Pairs], int n) {
  return (n & 1) ? hi(w[n >> 1]) : lo(w[n >> 1]);
}

// golden's kDec0TanhPoly as a plain array (device code indexes no std::array).
struct Dec0TanhPoly {
  std::uint32_t c[5];
};
constexpr Dec0TanhPoly kDec0TanhPolyBits{
    {golden::kDec0TanhPoly[0], golden::kDec0TanhPoly[1], golden::kDec0TanhPoly[2], golden::kDec0TanhPoly[3], golden::kDec0TanhPoly[4]}};

// E19(d) (golden dec0_tanh, DOC-d0 E19(d) s18503..s18601, the constants golden's kDec0Tanh*): a = |v|
// (abs.ftz); |v| >= 0.6: copysign(a >= 9.0109 ? 1 : fma(rcp(ex2(a 2 log2 e) + 1), -2, 1), v) (the
// sign by and/or of the bits); else fma(p(v^2), v, v), p by four fma.rn.ftz from the highest term.
__device__ __forceinline__ float dec0_tanh(float v) {
  const float a = ptx::abs_ftz(v);
  const float e = ptx::ex2_approx_ftz(ptx::mul_ftz(a, __uint_as_float(golden::kDec0Tanh2Log2e)));
  const float r = ptx::rcp_approx_ftz(ptx::add_ftz(e, 1.0f));
  const float big = ptx::fma_ftz(r, -2.0f, 1.0f);
  const float sat = a >= __uint_as_float(golden::kDec0TanhSaturate) ? 1.0f : big;
  const float signed_big = __uint_as_float((__float_as_uint(sat) & 0x7FFFFFFFu) | (__float_as_uint(v) & 0x80000000u));
  const float x2 = ptx::mul_ftz(v, v);
  constexpr Dec0TanhPoly poly = kDec0TanhPolyBits;
  float p = ptx::fma_ftz(__uint_as_float(poly.c[0]), x2, __uint_as_float(poly.c[1]));
#pragma unroll
  for (int i = 2; i < 5; ++i) p = ptx::fma_ftz(p, x2, __uint_as_float(poly.c[i]));
  const float small = ptx::fma_ftz(p, v, v);
  return a >= __uint_as_float(golden::kDec0TanhSmall) ? signed_big : small;
}

// E19(b)..(g) for thread T = lane + 32 pass (golden dec0_output): pixel (x0 + (T&7), y0 + (T>>3))
// from D19 row T (w, gathered), nothing outside the frame; (c) four cvt.rn.satfinite.e4m3x2.f16x2
// and st.global.v4.u16 at byte 8 (ex y + x) of +48; (d)/(e) the four tanh values by sust.p at texel
// (x, y) of +144; (f)/(g) the decoder final of logits 0..9 to +112 (decoder_blend).
template <int Pairs>
__device__ __forceinline__ void dec0_pixel(const DecoderArgs& p, unsigned long long s144, const Block& b, int T, const u32 (&w)[Pairs]) {
  constexpr Dec0Columns cols = kDec0Columns;
  const golden::PixelXY px = golden::e61_pixel_of_thread(b.x0, b.y0, T);
  const int X = px.x, Y = px.y;
  if (X < 0 || Y < 0 || X >= b.ex || Y >= b.ey) return;
  u16 q[4];
#pragma unroll
  for (int j = 0; j < 4; ++j)
    q[j] =
        ptx::cvt_e4m3x2(static_cast<u32>(row_column(w, cols.e4m3[2 * j])) | (static_cast<u32>(row_column(w, cols.e4m3[2 * j + 1])) << 16));
  const std::size_t at = 8 * (static_cast<std::size_t>(b.ex) * static_cast<std::size_t>(Y) + static_cast<std::size_t>(X));
  *reinterpret_cast<ushort4*>(p.base.output_arena + at) = make_ushort4(q[0], q[1], q[2], q[3]);
  float th[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) th[i] = dec0_tanh(ptx::cvt_f32_f16(row_column(w, cols.tanh[i])));
  ptx::surf_store_p(s144, X, Y, th[0], th[1], th[2], th[3]);
  const u32 l[5] = {w[0], w[1], w[2], w[3], w[4]};  // columns 0..9
  decoder_blend(p, b, X, Y, l);
}

// dec0's kernel (phases 1..19 and E19; DOC-d0 §2.1), block (32, 1, 1), the 3200-byte E1 tile in
// shared memory: phase 1 (K = 64, the four sub-pixels' 128 columns) and E1's scatter on three
// m-tiles, E1's readback of the six m-tiles as the stem's A in registers (m-tiles 0..3's x the first
// projection's residual), the heads in turn with their projections chained on all 64 rows (enc1's
// one_warp_layer), E20 and the four MLP chunks per m-tile, then E19 on rows T = lane, lane + 32.
template <class Ly>
__device__ __forceinline__ void dec0_layer(const Dec0Params& params, std::uint8_t* smem) {
  static_assert(Ly::kDecoder && Ly::kSerial && !Ly::kDims.final_gemm, "dec0: the one-warp decoder without a final phase");
  constexpr int KS = Ly::kSlices;
  const DecoderArgs p = decoder_args(params.decoder);
  const Block b = block_of(params.decoder);
  expand_to_tile<Ly>(p, b, smem);
  __syncthreads();  // the tile is complete
  u32 staged[6][KS][4], D[4][Ly::kNTiles][2];
#pragma unroll
  for (int mi = 0; mi < 6; ++mi) {
    u32 x[Ly::kNTiles][2];
    e1_rows<Ly>(p, b, mi, smem, x, staged[mi]);
    if (mi < 4) c13_seed<Ly>(p.base, b, x, D[mi]);
  }
  serial_heads<Ly>(p.base, b, staged, D);
  // E20 and the MLP per m-tile; D19 stays in D (no arena scatter: DOC-d0 §2.1, E19 reads it).
#pragma unroll
  for (int mi = 0; mi < 4; ++mi) {
    u32 nq[KS][4];
    e20_norm<Ly>(p.base, b, D[mi], nq);
#pragma unroll 1
    for (int c = 0; c < Ly::kChunks; ++c) mlp_chunk<Ly>(p.base, b, c, nq, D[mi]);
  }
  constexpr int kPairs = kDec0Columns.pairs;
  {
    u32 w[kPairs];
    gather_row_pairs<0>(b, D, w);
    dec0_pixel(p, params.surface144, b, b.lane, w);
  }
  {
    u32 w[kPairs];
    gather_row_pairs<1>(b, D, w);
    dec0_pixel(p, params.surface144, b, b.lane + 32, w);
  }
}

}  // namespace
}  // namespace rrswin::cuda
