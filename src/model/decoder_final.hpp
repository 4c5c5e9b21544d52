// The decoder final epilogue: dec4's E62 (s24165..s24446), dec3's E48, dec2's E38 and dec1's E26,
// which share the code (/tmp/decfacts/dec4_front_final.md §E, statements E1'..E10'; the open
// points F.17..F.20). enc5's E61 skeleton (records, 64 pixels, max / sub / exp / div / mul.f16x2
// softmax) with a 9-term softmax, a sigmoid gate of the 10th logit, 9 filtered taps of +88 at f32
// coordinates, one scalar fma.rn.f16 chain per channel, a blend with +96 and a NaN-guarded add of
// +104, stored to +112 at byte x 8X (model/decoder_final.cpp).
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>

#include "model/layer.hpp"
#include "model/texture_surface.hpp"
#include "numerics/texcoord.hpp"
#include "numerics/types.hpp"

namespace rrswin::golden {

// The decoder final's readings (to be wired into LayerReadings later; a plain struct for now).
enum class DecoderSampler { linear, point };   // +88's filter mode (not in the PTX: the launch's sampler; F.18)
enum class DecoderGateLogit { raw, centred };  // sigma of l9 or of f16(l9 - max) (E7', F.17)
// dec0's E19 (dec0.md §4, U1): which D19 columns of a pixel's row feed the eight e4m3 bytes of
// +48 and the four tanh values of +144 (dec0-output-columns). The logits are columns 0..9 (the
// gathered words %r368..%r372); DOC-d0 E19(c) packs %r373, %r376, %r377, %r378 and prints no tanh
// input registers.
enum class Dec0Columns {
  column_order,  // the gathered words in column order: +48 = {10, 11, 16..21}, tanh = {12..15}
  contiguous,    // +48 = 10..17, tanh = 18..21
  tanh_first,    // tanh = 10..13, +48 = 14..21
};
struct DecoderFinalReadings {
  DecoderSampler sampler = DecoderSampler::linear;
  DecoderGateLogit gate_logit = DecoderGateLogit::raw;
  Dec0Columns dec0_columns = Dec0Columns::column_order;
};

// What E62 reads besides its logits: +88 (the filtered taps, f32 coordinates), +96 and +104
// (integer-coordinate fetches at the pixel), and (sx, sy) from ld.param.v2.f32 (s24328).
// All three textures must be set.
struct DecoderTextures {
  const Texture* tex88 = nullptr;
  const Texture* tex96 = nullptr;
  const Texture* tex104 = nullptr;
  float sx = 0, sy = 0;
};

// One pixel's values (for traces and tests): the 9 softmax weights, the f32 sum and its
// reciprocal, the three filtered channels before the blend, the gate, and the stored texel.
struct DecoderPixel {
  std::array<f16_t, 9> w{};
  float sum = 0, rinv = 0;
  std::array<f16_t, 3> acc{};
  f16_t sigma = 0;
  std::array<f16_t, 4> out{};
};
// What steps (c)..(h) read for one pixel: its 10 logits and 9 taps' r, g, b (E61Inputs), and the
// r, g, b of +96 and +104 at the pixel (E8'; their alpha channels are not used).
struct DecoderPixelInputs {
  E61Inputs in;
  std::array<f16_t, 3> t96{}, t104{};
};
struct DecoderTables;
// decoder_pixel of n pixels (out[i] = decoder_pixel(r, dr, in[i], tab)): the engine passes its
// vector form of the one definition (model/e61_pixel_impl.hpp).
using DecoderPixelsFn = void (*)(const Readings& r, const DecoderFinalReadings& dr, const DecoderPixelInputs* in, int n,
                                 const DecoderTables& tab, DecoderPixel* out);

// Functions of one f16 a caller may tabulate (the fast engine does, engine/tables.cpp), each the
// golden function's value at index h when set; null: the function itself.
struct DecoderTables {
  const float* exp = nullptr;      // e61_exp (the softmax's exponentials)
  const f16_t* sigmoid = nullptr;  // e62_sigmoid (the gate)
  const float* tanh = nullptr;     // dec0_tanh(f16_to_f32(h)) (dec0's +144)
  // decoder_pixel of many pixels (the engine's vector form); null: golden's per pixel.
  DecoderPixelsFn pixels = nullptr;
};
// Steps (c)..(h) of one pixel from its inputs (model/e61_pixel_impl.hpp decoder_softmax_stencil and
// decoder_gate_blend on src/numerics' functions, with tab.exp and tab.sigmoid when set).
DecoderPixel decoder_pixel(const Readings& r, const DecoderFinalReadings& dr, const DecoderPixelInputs& in, const DecoderTables& tab = {});

// tex.base.2d.v4.f16.f32 at unnormalised texel coordinates (u, v) through the texture's address
// mode: point = texel (floor u, floor v); linear = CUDA's bilinear filter with 9-bit fixed-point
// weights (8 fractional bits, rounded to nearest), the four texels blended exactly and rounded once
// to f16 per channel: the project's reading ptx-tex-sampler, the same functions the PTX
// interpreter's tex uses (numerics/texcoord.hpp, f16_bilinear). A model: the blend's hardware
// precision is not documented.
std::array<f16_t, 4> sample_f32(const Texture& t, float u, float v, DecoderSampler s);
// sample_f32 in two steps: each coordinate's texel and weight (a function of that coordinate
// alone, so a block's taps resolve each of their columns and rows once), then the fetch and blend.
struct SampleAxis {
  TexLinearTexel linear;
  std::int32_t point;
};
SampleAxis sample_axis(float x);
std::array<f16_t, 4> sample_at(const Texture& t, const SampleAxis& u, const SampleAxis& v, DecoderSampler s);

// Steps (c)..(h) for pixel (X, Y) of an ex x ey frame from its 10 logits (E3'..E8'). Readings used
// from `r`: filter-exp-rounding, filter-sum-order, filter-weight-product (as enc5's E61 applies
// them, for 9 terms), filter-border and filter-tap-map (the tap coordinates, e61_taps).
// `tab`: functions of one f16 the caller tabulated (the fast engine's tables).
DecoderPixel decoder_final_pixel(const Readings& r, const DecoderFinalReadings& dr, const std::array<f16_t, 10>& logits,
                                 const DecoderTextures& t, int X, int Y, int ex, int ey, const DecoderTables& tab = {});

// The whole epilogue of a block: enc5's E61 records (e61_records), thread T < 64 finishes pixel
// (x0 + (T&7), y0 + (T>>3)) unless it lies outside the frame, its 10 logits from record T, and
// stores {r, g, b, 0} to s112 at (8X, Y) (E1'..E9').
void decoder_final(const BlockContext& ctx, const DecoderFinalReadings& dr, const F16Mat& d, const DecoderTextures& t, Surface& s112,
                   const DecoderTables& tab = {});

// dec0's E19 (DOC-d0 §3/E19, s18232..s19160; dec0.md §4): no final GEMM, the logits and both
// extra outputs come from D19 (the fourth down-projection's D, the residual stream) row T.
struct Dec0ColumnMap {
  std::array<int, 8> e4m3{};  // byte i of the pixel's 8 bytes at +48 = q8(D19 column e4m3[i])
  std::array<int, 4> tanh{};  // channel i of the +144 texel = dec0_tanh(f32(D19 column tanh[i]))
};
// dec0.md §4.2/§4.3: the gather's words %r368..%r372 are columns 0..9 (the logits, E19(f)'s
// max.f16x2 / sub.f16x2 read %r368 first); E19(c)'s four packs take %r373, %r376, %r377, %r378,
// low half -> low byte (cvt.rn.satfinite.e4m3x2.f16x2). If the gathered words are columns in order,
// %r373 = (10, 11), %r374/%r375 = 12..15 (the four tanh inputs), %r376..%r378 = 16..21.
// constexpr: the CUDA port (cuda/dec0_parts.cuh) takes its columns from it at compile time.
constexpr Dec0ColumnMap dec0_output_columns(Dec0Columns c) {
  switch (c) {
    case Dec0Columns::column_order: return {{10, 11, 16, 17, 18, 19, 20, 21}, {12, 13, 14, 15}};
    case Dec0Columns::contiguous: return {{10, 11, 12, 13, 14, 15, 16, 17}, {18, 19, 20, 21}};
    case Dec0Columns::tanh_first: return {{14, 15, 16, 17, 18, 19, 20, 21}, {10, 11, 12, 13}};
  }
  throw std::logic_error("dec0_output_columns: unknown value");
}
// E19(d): CUDA's tanhf as the PTX computes it, all f32 with .ftz (DOC-d0 E19(d) s18503..s18601,
// the instruction shape and the constants 0x4038AA3B, 0x41102CB4, 0x3F19999A; the odd polynomial's
// coefficients 0x3C80F082, 0xBD563CAE, 0x3E085941, 0xBEAAA9ED, 0 are NVIDIA libdevice's __nv_tanhf,
// CUDA 13.0 nvvm/libdevice/libdevice.10.bc read with llvm-dis, not printed by d4r: dec0.md U6).
// a = |v|; |v| >= 0.6: copysign(a >= 9.010913848876953 ? 1 : fma(rcp(ex2(a 2 log2 e) + 1), -2, 1), v);
// else fma(p(v^2), v, v) with p by four fma.rn.ftz in v^2.
float dec0_tanh(float v);
// The polynomial's terms (for tests): the coefficients from the highest, and the threshold constants.
inline constexpr std::array<std::uint32_t, 5> kDec0TanhPoly = {0x3C80F082u, 0xBD563CAEu, 0x3E085941u, 0xBEAAA9EDu, 0x00000000u};
inline constexpr std::uint32_t kDec0Tanh2Log2e = 0x4038AA3Bu, kDec0TanhSaturate = 0x41102CB4u, kDec0TanhSmall = 0x3F19999Au;
// The whole E19 of a block: thread T = laneid + 32 pass < 64 finishes pixel (x0 + (T&7), y0 + (T>>3))
// from D19 row T unless it lies outside the frame (E19(b): that pass writes nothing), storing
// (c) 8 bytes at byte 8 (ex y + x) of out48 (st.global.v4.u16), (e) sust.p to s144 at texel (x, y),
// (f)..(g) the decoder final's blend to s112 at (8x, y) (when the textures are given: `t.tex88`).
// s144 may be null (not stored).
void dec0_output(const BlockContext& ctx, const DecoderFinalReadings& dr, const F16Mat& d19, const DecoderTextures& t, Surface* s112,
                 SurfaceF32* s144, std::span<std::uint8_t> out48, const DecoderTables& tab = {});

}  // namespace rrswin::golden
