// enc3's parameter block: the merge layers' (cuda/merge_params.hpp; DOC3 §1.1, DESC3 layer(): params
// 0/8/40/48/56/80/88/112/120/128). Its dimensions and weight offsets are cuda/layer_dims.hpp's Enc3
// (the layer's row, model/layer_spec.cpp).
#pragma once
#include "cuda/merge_params.hpp"

namespace rrswin::cuda {

using Enc3Params = MergeLayerParams;

}  // namespace rrswin::cuda
