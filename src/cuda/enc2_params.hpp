// enc2's parameter block: the merge layers' (cuda/merge_params.hpp; DOC-e2 §1.1/§4, DESC-e2 _LAUNCH).
// Its dimensions and weight offsets are cuda/layer_dims.hpp's Enc2 (the layer's row,
// model/layer_spec.cpp).
#pragma once
#include "cuda/merge_params.hpp"

namespace rrswin::cuda {

using Enc2Params = MergeLayerParams;

}  // namespace rrswin::cuda
