// The decoders' 144-byte parameter block (dec4..dec1: model/layer_spec.cpp's decoder_abi, the
// LaunchAbi of their rows; DOC-d4 §1.1; dec0's first 144 bytes, cuda/dec0_params.hpp), shared by
// their kernels (cuda/decoder_parts.cuh) and the host. tests/cuda_layer_dims_test.cpp checks every offset against each row's LaunchAbi.
#pragma once
#include <cstddef>
#include <cstdint>

namespace rrswin::cuda {

struct alignas(8) DecoderLayerParams {
  std::uint32_t ex, ey;             // +0: token-grid extents
  const std::uint8_t* input_arena;  // +8: the lower level's plane arena at (ex>>1) x (ey>>1), K/32 planes (phase 1's A)
  std::uint8_t unread_16[8];        // +16..+23: not read
  const std::uint8_t* skip_arena;   // +24: the encoder of the same level's plane arena at ex x ey (E1's skip)
  std::uint8_t unread_32[8];        // +32..+39
  const std::uint8_t* weights;      // +40: the layer's weight image
  std::uint8_t* output_arena;       // +48: this layer's plane arena (the last down-projection's scatter)
  std::uint8_t unread_56[24];       // +56..+79
  std::uint16_t block_offset_x;     // +80: ox (x0 = 8 ctaid.x - ox)
  std::uint16_t block_offset_y;     // +82: oy
  std::uint8_t unread_84[4];
  unsigned long long texture;     // +88: tex.base.2d.v4.f16.f32, the final epilogue's filtered taps
  unsigned long long texture96;   // +96: tex.base.2d.v4.f16.s32 at the pixel (the blend's base)
  unsigned long long texture104;  // +104: tex.base.2d.v4.f16.s32 at the pixel (the NaN-guarded add)
  unsigned long long surface112;  // +112: ex x ey, sust.b.2d.v4.b16.zero (the output)
  std::uint8_t unread_120[16];    // +120..+135
  float scale_x, scale_y;         // +136: ld.param.v2.f32 (sx, sy), +88's texel coordinate scale
};
static_assert(sizeof(DecoderLayerParams) == 144, "DOC-d4 §1.1: the 144-byte parameter block");
static_assert(offsetof(DecoderLayerParams, input_arena) == 8 && offsetof(DecoderLayerParams, skip_arena) == 24 &&
                  offsetof(DecoderLayerParams, weights) == 40 && offsetof(DecoderLayerParams, output_arena) == 48 &&
                  offsetof(DecoderLayerParams, block_offset_x) == 80 && offsetof(DecoderLayerParams, texture) == 88 &&
                  offsetof(DecoderLayerParams, texture96) == 96 && offsetof(DecoderLayerParams, texture104) == 104 &&
                  offsetof(DecoderLayerParams, surface112) == 112 && offsetof(DecoderLayerParams, scale_x) == 136,
              "DOC-d4 §1.1 offsets (model/layer_spec.cpp's decoder_abi)");

}  // namespace rrswin::cuda
