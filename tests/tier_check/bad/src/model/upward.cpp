// Fixture of tests/tier_check/run.cmake: the model tier including io (above it), on line 5, the
// violation issue 19 found in model/weight_image.cpp.
#include "model/weight_image.hpp"

#include "io/files.hpp"
