// Deterministic synthetic weight images (docs/readings.md §4 "synthetic weights"): assets for the
// demo, the tests and the benches, not part of the model (the model takes any valid image).
#pragma once
#include <cstdint>

#include "model/weight_image.hpp"

namespace rrswin {

struct SyntheticOptions {
  std::uint64_t seed = 1;
  bool stress = false;  // drive every nonlinear branch (see synth docs)
};
// Deterministic on every platform (integer PRNG, no libm, exact rounding): see
// docs/readings.md §4 "synthetic weights" for the value ranges and the stress design.
// No NaN code (e4m3 0x7F/0xFF) and no f16 NaN/Inf ever appears.
WeightImage make_synthetic_weights(const SyntheticOptions& opt);
// The embedded default image used by the demo and the tests (seed 1, not stress).
const WeightImage& default_weights();
// The same design for any layer of the template (sigmas scaled by the layer's fan-ins; the merge's
// weights and bias like the MLP's): for enc5 exactly make_synthetic_weights(opt). The stress
// overlay exists for enc5 only: opt.stress with another layer throws std::invalid_argument.
WeightImage make_layer_synthetic_weights(LayerId layer, const SyntheticOptions& opt);
// The embedded default image of a layer (seed 1, not stress); default_weights() for enc5.
const WeightImage& default_layer_weights(LayerId layer);

}  // namespace rrswin
