#include "io/weight_file.hpp"

#include "io/files.hpp"

namespace rrswin {

WeightImage load_weight_image(const std::string& path) { return WeightImage(read_file_bytes(path), path); }
WeightImage load_weight_image(const std::string& path, LayerId layer) { return WeightImage(read_file_bytes(path), layer, path); }

}  // namespace rrswin
