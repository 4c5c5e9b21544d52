// enc0's 1032-byte parameter block (model/layer_spec.cpp's enc0 row: DESC-e0 LAYER_PARAMS 1032 bytes;
// DOC-e0 §1.1 +40 weights / +48 arena, §3/E21 +56 merged output, §3/E22 +112/+120/+128 surfaces;
// HIP-e0 +304 the network input, RGBA16F), laid out as the merge layers' first 144 bytes
// (cuda/merge_params.hpp) so that enc1's one-warp body reads it unchanged.
//
// NOT a drop-in for the original's launch: no source decodes enc0's prologue (the network input at
// +304 -> a shared 10x10x32 e4m3 `input_tensor` and `input_noise`; docs/readings.md §10 "enc0"), so the
// port starts where rrswin's golden model starts (model/embedding_front.cpp) and takes two stand-ins,
// each at an offset the row's LaunchAbi leaves unused in the original's block (input = -1, texture
// = -1: DOC-e0 §1.1 names neither):
//   +8   the staged input tensor (a one-plane arena of 32 e4m3 channels a token at the token grid,
//        gathered as the template's prologue gathers +8), the stand-in for what the prologue builds;
//   +88  a texture object at the token grid, the stand-in for `input_noise` (E22's taps read it, as
//        enc1's E32 reads +88).
// +304 is kept in the block (the original's field) and not read. The row's LaunchAbi names these two
// offsets as rrswin's stand-ins (standin_input, standin_texture: what enc0's captures hold, `rrswin
// capture --layer enc0`); CudaLayerDims.ParameterBlocksAreTheRowsLaunchAbi checks they are these. Its dimensions and weight offsets
// are cuda/layer_dims.hpp's Enc0; CudaLayerDims.ParameterBlocksAreTheRowsLaunchAbi checks the offsets
// against the row.
#pragma once
#include <cstddef>

#include "cuda/merge_params.hpp"

namespace rrswin::cuda {

struct alignas(8) Enc0Params {
  MergeLayerParams merge;        // +0..+143 (+8 and +88: the stand-ins above)
  std::uint8_t unread_144[160];  // +144..+303
  const void* network_input;     // +304: the network's input (HIP-e0), not read by the port
  std::uint8_t unread_312[720];  // +312..+1031
};
static_assert(sizeof(Enc0Params) == 1032 && offsetof(Enc0Params, network_input) == 304,
              "DESC-e0 LAYER_PARAMS: the 1032-byte block, HIP-e0 +304");

// The stand-ins' offsets (the row's unused input and texture slots).
inline constexpr int kEnc0StagedInputOffset = static_cast<int>(offsetof(MergeLayerParams, input_arena));
inline constexpr int kEnc0NoiseTextureOffset = static_cast<int>(offsetof(MergeLayerParams, texture));
static_assert(kEnc0StagedInputOffset == 8 && kEnc0NoiseTextureOffset == 88, "the stand-ins at +8 and +88");

}  // namespace rrswin::cuda
