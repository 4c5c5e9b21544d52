// The decoder final epilogue: dec4's E62 (s24165..s24446), dec3's E48, dec2's E38 and dec1's E26,
// which share the code (/tmp/decfacts/dec4_front_final.md §E, statements E1'..E10'; the open
// points F.17..F.20). enc5's E61 skeleton (records, 64 pixels, max / sub / exp / div / mul.f16x2
// softmax) with a 9-term softmax, a sigmoid gate of the 10th logit, 9 filtered taps of +88 at f32
// coordinates, one scalar fma.rn.f16 chain per channel, a blend with +96 and a NaN-guarded add of
// +104, stored to +112 at byte x 8X (model/decoder_final.cpp).
#pragma once
#include <array>

#include "model/layer.hpp"
#include "model/texture_surface.hpp"
#include "numerics/types.hpp"

namespace rrswin::golden {

// The decoder final's readings (to be wired into LayerReadings later; a plain struct for now).
enum class DecoderSampler { linear, point };   // +88's filter mode (not in the PTX: the launch's sampler; F.18)
enum class DecoderGateLogit { raw, centred };  // sigma of l9 or of f16(l9 - max) (E7', F.17)
struct DecoderFinalReadings {
  DecoderSampler sampler = DecoderSampler::linear;
  DecoderGateLogit gate_logit = DecoderGateLogit::raw;
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

// tex.base.2d.v4.f16.f32 at unnormalised texel coordinates (u, v) through the texture's address
// mode: point = texel (floor u, floor v); linear = CUDA's bilinear filter with 9-bit fixed-point
// weights (8 fractional bits, rounded to nearest), the four texels blended exactly and rounded once
// to f16 per channel: the project's reading ptx-tex-sampler, the same functions the PTX
// interpreter's tex uses (numerics/texcoord.hpp, f16_bilinear). A model: the blend's hardware
// precision is not documented.
std::array<f16_t, 4> sample_f32(const Texture& t, float u, float v, DecoderSampler s);

// One pixel's values (for traces and tests): the 9 softmax weights, the f32 sum and its
// reciprocal, the three filtered channels before the blend, the gate, and the stored texel.
struct DecoderPixel {
  std::array<f16_t, 9> w{};
  float sum = 0, rinv = 0;
  std::array<f16_t, 3> acc{};
  f16_t sigma = 0;
  std::array<f16_t, 4> out{};
};
// Steps (c)..(h) for pixel (X, Y) of an ex x ey frame from its 10 logits (E3'..E8'). Readings used
// from `r`: filter-exp-rounding, filter-sum-order, filter-weight-product (as enc5's E61 applies
// them, for 9 terms), filter-border and filter-tap-map (the tap coordinates, e61_taps).
DecoderPixel decoder_final_pixel(const Readings& r, const DecoderFinalReadings& dr, const std::array<f16_t, 10>& logits,
                                 const DecoderTextures& t, int X, int Y, int ex, int ey);

// The whole epilogue of a block: enc5's E61 records (e61_records), thread T < 64 finishes pixel
// (x0 + (T&7), y0 + (T>>3)) unless it lies outside the frame, its 10 logits from record T, and
// stores {r, g, b, 0} to s112 at (8X, Y) (E1'..E9').
void decoder_final(const BlockContext& ctx, const DecoderFinalReadings& dr, const F16Mat& d, const DecoderTextures& t, Surface& s112);

}  // namespace rrswin::golden
