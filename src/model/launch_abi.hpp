// enc5's launch as the original kernel defines it (facts A1, A2, A4, A5), written once for every
// side that launches it or reads a launch: the frame API (api/frame.hpp), the CUDA port and its
// launcher (cuda/enc5_params.hpp, gpu/rrswin_gpu.cpp), the PTX interpreter's launch
// (bridge/enc5_launch.cpp), d4r's captures (capture/capture.hpp) and the layer template's enc5 row
// (model/layer_spec.cpp). Plain constexpr data and RRSWIN_HD functions, so the kernel reads it too.
#pragma once
#include <cstddef>
#include <cstdint>

#include "base/hd.hpp"

namespace rrswin::abi {

// The entry point (facts A1).
inline constexpr const char* kKernelName = "cuda_dldn_engine_swin_enc5_kernel";

// The 144-byte parameter block (facts A4): the byte offset of every field rrswin reads; every other
// byte is not read.
inline constexpr std::size_t kParamBlockBytes = 144;
inline constexpr std::size_t kParamEx = 0, kParamEy = 4;    // u32 token-grid extents
inline constexpr std::size_t kParamInput = 8;               // u64: the previous layer's plane arena
inline constexpr std::size_t kParamWeights = 40;            // u64: the prepared weight image W
inline constexpr std::size_t kParamOutput = 48;             // u64: this layer's plane arena (E60)
inline constexpr std::size_t kParamOx = 80, kParamOy = 82;  // u16 block offsets: x0 = 8 ctaid.x - ox (facts A5)
inline constexpr std::size_t kParamTexture = 88;            // u64: texture object (E61's taps)
inline constexpr std::size_t kParamSurface = 112;           // u64: surface object (E61's output)

// The block (facts A2/A7): 32 x 1 x 8 threads, one warp per head, each block an 8 x 8 pixel tile.
inline constexpr int kBlockX = 32, kBlockY = 1, kBlockZ = 8;
inline constexpr int kTilePixels = 8;

// The grid that covers the frame: ceil((ex + ox) / 8) x ceil((ey + oy) / 8) (facts A2, A5). Block
// (cx, cy) covers pixels [8cx - ox, 8cx - ox + 8) x [8cy - oy, 8cy - oy + 8).
struct GridExtent {
  std::int64_t x = 0, y = 0;
};
RRSWIN_HD constexpr GridExtent covering_grid(std::uint32_t ex, std::uint32_t ey, std::uint32_t ox, std::uint32_t oy) {
  return {(static_cast<std::int64_t>(ex) + ox + kTilePixels - 1) / kTilePixels,
          (static_cast<std::int64_t>(ey) + oy + kTilePixels - 1) / kTilePixels};
}

}  // namespace rrswin::abi
