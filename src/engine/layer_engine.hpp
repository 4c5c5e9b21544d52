// The fast engine for the merge layers (issue 21): enc4 with the engine's kernels. Phases 1..60 and
// E60 are enc5's engine (run_block_through_e60); the merge phase and the final phase are the same
// GEMM family (e4m3 x e4m3 + f16 chained k-steps) through engine::gemm with B operands prepared
// from the layer's weight map (model/layer_program.hpp); the merge's gather and store, E62 and the
// merge layers' readings are the golden functions themselves (model/layer_golden.hpp). Bit-identical
// to run_enc4_frame_golden for every profile and reading: tests/layer_engine_diff_test.cpp.
#pragma once
#include "engine/gemm.hpp"
#include "engine/simd.hpp"
#include "model/layer_golden.hpp"

namespace enc5::engine {

struct Enc4Engine {
  SimdPath simd = SimdPath::scalar;
};
// A whole enc4 frame with the fast engine (same contract as run_enc4_frame_golden); the traced
// block, if any, runs the golden model (the engine records no stages).
void run_enc4_frame_fast(Enc4Frame& f, const Profile& profile, const Readings& r, const LayerReadings& lr, const Enc4Engine& how,
                         golden::LayerStats* stats = nullptr, const TraceRequest* trace = nullptr, Trace* trace_out = nullptr);

}  // namespace enc5::engine
