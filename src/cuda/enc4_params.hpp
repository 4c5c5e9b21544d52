// enc4's 144-byte parameter block and the weight offsets its port reads beyond enc5's (issue 21;
// DOC4 §1.1, §2, §3; model/layer_spec.cpp's enc4 row), shared by the kernel (cuda/enc4_kernel.cu)
// and the host. tests/cuda_kernel_test.cpp checks every number against the layer template
// (model/layer_program.hpp), where the formulas live.
#pragma once
#include <cstddef>
#include <cstdint>

namespace rrswin::cuda {

struct alignas(8) Enc4Params {
  std::uint32_t ex, ey;             // +0: token-grid extents
  const std::uint8_t* input_arena;  // +8: enc3's merged output, a plane arena (read-only)
  std::uint8_t unread_16[24];       // +16..+39: not read
  const std::uint8_t* weights;      // +40: enc4's weight image (533856 bytes)
  std::uint8_t* output_arena;       // +48: this layer's plane arena (E60)
  std::uint8_t* merged_output;      // +56: the patch merge's output at (ex>>1) x (ey>>1) (E61)
  std::uint8_t unread_64[16];       // +64..+79
  std::uint16_t block_offset_x;     // +80: ox (x0 = 8 ctaid.x - ox)
  std::uint16_t block_offset_y;     // +82: oy
  std::uint8_t unread_84[4];
  unsigned long long texture;     // +88: tex.base.2d texture object (E62's stencil)
  std::uint8_t unread_96[16];     // +96..+111
  unsigned long long surface112;  // +112: ex x ey (the differences)
  unsigned long long surface120;  // +120: ex x ey (the products)
  unsigned long long surface128;  // +128: (ex>>1) x (ey>>1) (the 2x2 quad sums)
  std::uint8_t unread_136[8];
};
static_assert(sizeof(Enc4Params) == 144, "DOC4 §1.1: the 144-byte parameter block");
static_assert(offsetof(Enc4Params, input_arena) == 8 && offsetof(Enc4Params, weights) == 40 && offsetof(Enc4Params, output_arena) == 48 &&
                  offsetof(Enc4Params, merged_output) == 56 && offsetof(Enc4Params, block_offset_x) == 80 &&
                  offsetof(Enc4Params, texture) == 88 && offsetof(Enc4Params, surface112) == 112 &&
                  offsetof(Enc4Params, surface120) == 120 && offsetof(Enc4Params, surface128) == 128,
              "DOC4 §1.1 offsets (model/layer_spec.cpp's enc4 LaunchAbi)");

// Phase 61, the merge (DOC4 §3/E60(e): W + 428544 + 640 r + 512 j; bias 530944 + 16 i): B of
// k-step s for columns 16j..16j+15 at kEnc4Merge + 512 (kEnc4MergeKSteps j + s), C = the bias records.
inline constexpr std::uint32_t kEnc4Merge = 428544, kEnc4MergeBias = 530944;
inline constexpr int kEnc4MergeKSteps = 20;  // K = 4C = 640
// Phase 62 (enc5's phase-61 shape, DOC4 §2): 5 tiles and 2 records.
inline constexpr std::uint32_t kEnc4W62 = 531264, kEnc4B62 = 533824;
inline constexpr int kEnc4SharedBytes = 16384;  // DOC4 §1.4

}  // namespace rrswin::cuda
