// enc1's parameter block: the merge layers' (cuda/merge_params.hpp; DOC-e1 §1.1 +8/+40/+48/+56/+80/
// +88/+112, §3/E32(f) +120/+128; model/layer_spec.cpp's enc1 row is merge_abi at 0 bytes of shared
// memory, checked field by field by CudaLayerDims.ParameterBlocksAreTheRowsLaunchAbi). Its
// dimensions and weight offsets are cuda/layer_dims.hpp's Enc1.
#pragma once
#include "cuda/merge_params.hpp"

namespace rrswin::cuda {

using Enc1Params = MergeLayerParams;

}  // namespace rrswin::cuda
