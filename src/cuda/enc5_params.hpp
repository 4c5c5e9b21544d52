// The kernel's 144-byte parameter block (facts A4), shared by the kernel and its host launcher.
// It mirrors the frame API's LaunchParams (src/api/frame.hpp) field for field; the bytes the
// original does not read stay in the block so that the offsets are the original's.
#pragma once
#include <cstddef>
#include <cstdint>

#include "model/launch_abi.hpp"
#include "model/readings.hpp"

namespace rrswin::cuda {

struct alignas(8) Enc5Params {
  std::uint32_t ex, ey;             // +0: token-grid extents
  const std::uint8_t* input_arena;  // +8: previous layer's plane arena (e4m3, read-only)
  std::uint8_t unread_16[24];       // +16..+39: not read (facts A4)
  const std::uint8_t* weights;      // +40: prepared weight image W
  std::uint8_t* output_arena;       // +48: this layer's plane arena (E60)
  std::uint8_t unread_56[24];       // +56..+79
  std::uint16_t block_offset_x;     // +80: ox (x0 = 8 ctaid.x - ox, facts A5)
  std::uint16_t block_offset_y;     // +82: oy
  std::uint8_t unread_84[4];
  unsigned long long texture;  // +88: cudaTextureObject_t, tex.base.2d.v4.f16.s32 (E61)
  std::uint8_t unread_96[16];
  unsigned long long surface;  // +112: cudaSurfaceObject_t, sust.b.2d.v4.b16.zero (E61)
  std::uint8_t unread_120[24];
};
// The offsets are model/launch_abi.hpp's (facts A4).
static_assert(sizeof(Enc5Params) == abi::kParamBlockBytes, "facts A4: 144-byte parameter block");
static_assert(offsetof(Enc5Params, ex) == abi::kParamEx && offsetof(Enc5Params, ey) == abi::kParamEy &&
                  offsetof(Enc5Params, input_arena) == abi::kParamInput && offsetof(Enc5Params, weights) == abi::kParamWeights &&
                  offsetof(Enc5Params, output_arena) == abi::kParamOutput && offsetof(Enc5Params, block_offset_x) == abi::kParamOx &&
                  offsetof(Enc5Params, block_offset_y) == abi::kParamOy && offsetof(Enc5Params, texture) == abi::kParamTexture &&
                  offsetof(Enc5Params, surface) == abi::kParamSurface,
              "facts A4 offsets");

// The readings the kernel implements: the defaults (docs/readings.md). The index maps it shares
// with the golden model (model/index_maps.hpp) follow any value set here at compile time; the
// arithmetic readings are static_asserted to their defaults in the kernel. The host launcher
// refuses a run with any other reading and names it.
inline constexpr Readings kKernelReadings{};

// Block geometry of the original launch (facts A2/A7): one warp per head.
inline constexpr int kBlockX = abi::kBlockX, kBlockY = abi::kBlockY, kBlockZ = abi::kBlockZ;
inline constexpr int kSharedBytes = 16384;  // facts A8: the original's one shared array

}  // namespace rrswin::cuda
