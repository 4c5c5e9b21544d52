// Fixture of tests/tier_check/run.cmake: includes the tier order allows (own folder, below).
#include "io/reader.hpp"

#include "base/errors.hpp"
#include "model/weight_image.hpp"
#include "numerics/types.hpp"
#include "same_folder.hpp"
// #include "api/frame.hpp" in a comment is not an include
