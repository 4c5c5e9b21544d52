// dec4's parameter block: the decoders' (cuda/decoder_params.hpp; DOC-d4 §1.1). Its dimensions and
// weight offsets are cuda/layer_dims.hpp's Dec4 (the layer's row, model/layer_spec.cpp).
#pragma once
#include "cuda/decoder_params.hpp"

namespace rrswin::cuda {

using Dec4Params = DecoderLayerParams;

}  // namespace rrswin::cuda
