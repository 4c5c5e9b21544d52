// Fixture of tests/tier_check/run.cmake.
#pragma once
#include "layout/tables.hpp"
