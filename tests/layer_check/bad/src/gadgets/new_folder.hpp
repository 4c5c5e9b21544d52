// Fixture of tests/layer_check/run.cmake: a folder of src/ that cmake/layers.cmake does not name.
#pragma once
