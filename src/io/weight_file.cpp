#include "io/weight_file.hpp"

#include "io/files.hpp"

namespace enc5 {

WeightImage load_weight_image(const std::string& path) { return WeightImage(read_file_bytes(path), path); }

}  // namespace enc5
