// dec0's 152-byte parameter block (model/layer_spec.cpp's dec0 row, DESC-d0 layer(), HIP-d0): the
// decoders' 144 bytes (cuda/decoder_params.hpp; its +48 is E19's e4m3 output, 8 bytes a pixel), then
// +144, the surface of E19's tanh values (sust.p.2d.v4.b32, DOC-d0 §4.2). Its dimensions and weight
// offsets are cuda/layer_dims.hpp's Dec0; CudaLayerDims.ParameterBlocksAreTheRowsLaunchAbi checks
// every offset against the row's LaunchAbi.
#pragma once
#include <cstddef>

#include "cuda/decoder_params.hpp"

namespace rrswin::cuda {

struct alignas(8) Dec0Params {
  DecoderLayerParams decoder;     // +0..+143
  unsigned long long surface144;  // +144: ex x ey, sust.p.2d.v4.b32.zero (E19's four tanh values a texel)
};
static_assert(sizeof(Dec0Params) == 152 && offsetof(Dec0Params, surface144) == 144, "HIP-d0: the 152-byte parameter block");

}  // namespace rrswin::cuda
