// enc4's parameter block: the merge layers' (cuda/merge_params.hpp; DOC4 §1.1, §3). Its dimensions
// and weight offsets are cuda/layer_dims.hpp's Enc4 (the layer's row, model/layer_spec.cpp).
#pragma once
#include "cuda/merge_params.hpp"

namespace rrswin::cuda {

using Enc4Params = MergeLayerParams;

}  // namespace rrswin::cuda
