// The fast engine for the merge layers (issue 21), bit-identical to run_layer_frame_golden for every
// profile, reading, SIMD path and thread count (tests/layer_engine_diff_test.cpp):
//  * enc4: phases 1..60 and E60 are enc5's engine (run_block_through_e60: enc4's phases 1..60 are
//    enc5's); the merge phase and the final phase are the same GEMM family (e4m3 x e4m3 + f16
//    chained k-steps) through engine::gemm with B operands prepared once from the layer's weight
//    map (model/layer_program.hpp);
//  * enc3 (C = 128, which enc5's engine parts do not take): the golden parts themselves, with every
//    k-step of every phase through engine::gemm (BlockContext::gemm_step); the epilogues are the
//    golden functions (their cost, not the GEMMs', is what remains).
// The merge's gather and store, the final epilogue and the merge layers' readings are the golden
// functions (model/layer_golden.hpp) for both.
#pragma once
#include "engine/gemm.hpp"
#include "engine/simd.hpp"
#include "model/layer_golden.hpp"

namespace rrswin::engine {

struct LayerEngine {
  SimdPath simd = SimdPath::scalar;
  int threads = 1;  // blocks run on this many threads (the bytes do not depend on it)
};
// A whole frame of a merge layer with the fast engine (same contract as run_layer_frame_golden); the
// traced block, if any, runs the golden model (the engine records no stages).
void run_layer_frame_fast(LayerFrame& f, const Profile& profile, const Readings& r, const LayerReadings& lr, const LayerEngine& how,
                          golden::LayerStats* stats = nullptr, const TraceRequest* trace = nullptr, Trace* trace_out = nullptr);

}  // namespace rrswin::engine
