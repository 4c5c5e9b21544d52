// Fixture of tests/tier_check/run.cmake: a folder of src/ that cmake/tiers.cmake does not name.
#pragma once
