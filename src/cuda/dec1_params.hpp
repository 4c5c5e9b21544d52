// dec1's parameter block: the decoders' (cuda/decoder_params.hpp). Its dimensions and weight
// offsets are cuda/layer_dims.hpp's Dec1 (the layer's row, model/layer_spec.cpp).
#pragma once
#include "cuda/decoder_params.hpp"

namespace rrswin::cuda {

using Dec1Params = DecoderLayerParams;

}  // namespace rrswin::cuda
