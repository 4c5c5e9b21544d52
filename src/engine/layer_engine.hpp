// The fast engine for the layers beside enc5 (issues 21, 33, 34), bit-identical to
// run_layer_frame_golden for every profile, reading, SIMD path and thread count
// (tests/layer_engine_diff_test.cpp). Per layer (layer_parts):
//  * fused: the merge layers (enc4, enc3, enc2): engine/block.cpp's fused block at the layer's
//    dimensions (its row and phase program: C, heads, chunks, phase numbers) through the last
//    down-projection and its arena scatter (run_block_through_e60); the merge phase and the final
//    phase are the same GEMM family (e4m3 x e4m3 + f16 chained k-steps) through engine::gemm with
//    B operands prepared once from the layer's weight map (model/layer_program.hpp);
//  * front_then_fused: the decoders (dec4..dec0) and enc0: the front (a decoder's phase 1 patch
//    expand and E1, enc0's embedding) on the engine's kernels (layer_engine.cpp expand_front,
//    embedding_front_fast; where statistics are counted, the golden parts with every k-step on
//    engine::gemm instead), then the fused block from the stem on; a decoder's final phase on engine::gemm (dec0 has none: its
//    E19 reads the last down-projection's D, run_block_through_mlp), enc0's merge and final as the
//    merge layers';
//  * golden_parts: a layer whose dimensions the fused block does not take (a C / 8 outside
//    kernel_args.hpp's kFusedNTiles; none of the eleven today): the golden parts themselves, with
//    every k-step of every phase through engine::gemm (BlockContext::gemm_step).
// The merge's gather and store, the final epilogues and the layers' readings are the golden
// functions (model/layer_golden.hpp) for all.
#pragma once
#include <string_view>

#include "engine/gemm.hpp"
#include "engine/simd.hpp"
#include "model/layer_golden.hpp"

namespace rrswin::engine {

// Which parts run a layer's blocks in run_layer_frame_fast (rrswin bench prints it; enc5, which runs
// through run_frame, is `fused`).
enum class LayerParts { fused, front_then_fused, golden_parts };
LayerParts layer_parts(LayerId id);
// "fused engine", "engine front; then fused engine", "golden parts + engine GEMMs".
std::string_view to_string(LayerParts p);

struct LayerEngine {
  SimdPath simd = SimdPath::scalar;
  int threads = 1;  // blocks run on this many threads (the bytes do not depend on it)
};
// A whole frame of a layer other than enc5 with the fast engine (same contract as run_layer_frame_golden); the
// traced block, if any, runs the golden model (the engine records no stages).
void run_layer_frame_fast(LayerFrame& f, const Profile& profile, const Readings& r, const LayerReadings& lr, const LayerEngine& how,
                          golden::LayerStats* stats = nullptr, const TraceRequest* trace = nullptr, Trace* trace_out = nullptr);

}  // namespace rrswin::engine
