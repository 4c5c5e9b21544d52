// Fixture of tests/layer_check/run.cmake.
#pragma once
#include "layout/tables.hpp"
