// The merge layers' 144-byte parameter block (enc4: DOC4 §1.1, §3; enc3: DOC3 §1.1, DESC3 layer();
// model/layer_spec.cpp's merge_abi, the LaunchAbi of both rows), shared by their kernels
// (cuda/merge_parts.cuh) and the host. tests/cuda_layer_dims_test.cpp checks every offset against
// each row's LaunchAbi.
#pragma once
#include <cstddef>
#include <cstdint>

namespace rrswin::cuda {

struct alignas(8) MergeLayerParams {
  std::uint32_t ex, ey;             // +0: token-grid extents
  const std::uint8_t* input_arena;  // +8: the previous layer's merged output, a plane arena (read-only)
  std::uint8_t unread_16[24];       // +16..+39: not read
  const std::uint8_t* weights;      // +40: the layer's weight image (enc4 533856 bytes, enc3 315744)
  std::uint8_t* output_arena;       // +48: this layer's plane arena (E60 / E46)
  std::uint8_t* merged_output;      // +56: the patch merge's output at (ex>>1) x (ey>>1) (E61 / E47)
  std::uint8_t unread_64[16];       // +64..+79
  std::uint16_t block_offset_x;     // +80: ox (x0 = 8 ctaid.x - ox)
  std::uint16_t block_offset_y;     // +82: oy
  std::uint8_t unread_84[4];
  unsigned long long texture;     // +88: tex.base.2d texture object (the final epilogue's stencil)
  std::uint8_t unread_96[16];     // +96..+111
  unsigned long long surface112;  // +112: ex x ey (the differences)
  unsigned long long surface120;  // +120: ex x ey (the products)
  unsigned long long surface128;  // +128: (ex>>1) x (ey>>1) (the 2x2 quad sums)
  std::uint8_t unread_136[8];
};
static_assert(sizeof(MergeLayerParams) == 144, "DOC4 §1.1, DOC3 §1.1: the 144-byte parameter block");
static_assert(offsetof(MergeLayerParams, input_arena) == 8 && offsetof(MergeLayerParams, weights) == 40 &&
                  offsetof(MergeLayerParams, output_arena) == 48 && offsetof(MergeLayerParams, merged_output) == 56 &&
                  offsetof(MergeLayerParams, block_offset_x) == 80 && offsetof(MergeLayerParams, texture) == 88 &&
                  offsetof(MergeLayerParams, surface112) == 112 && offsetof(MergeLayerParams, surface120) == 120 &&
                  offsetof(MergeLayerParams, surface128) == 128,
              "DOC4 §1.1 offsets (model/layer_spec.cpp's merge_abi)");

}  // namespace rrswin::cuda
