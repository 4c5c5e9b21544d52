// Reading a weight image (param+40) from a file: the bytes through io/files.hpp, validated by the
// model's WeightImage constructor (facts E1: kWeightImageBytes).
#pragma once
#include <string>

#include "model/weight_image.hpp"

namespace rrswin {

// Reads and validates a file; throws rrswin::InputError naming the file, offset, expected, found.
WeightImage load_weight_image(const std::string& path);
// The same for a layer of the template (its image size, model/layer_spec.hpp).
WeightImage load_weight_image(const std::string& path, LayerId layer);

}  // namespace rrswin
