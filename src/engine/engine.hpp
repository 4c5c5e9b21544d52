// The fast engine (Engine::fast): the same function as the golden model (src/model/), computed per
// block in one fused pass with decoded operands, exact vectorised GEMM kernels (gemm.hpp) and
// table- or hardware-float-based f16 epilogues (f16_bits.hpp). Bit-identical outputs (arena,
// surface, statistics) for every profile and every reading: tests/engine_diff_test.cpp.
// Traces are not produced here: run_frame runs the traced block with the golden model.
#pragma once
#include <memory>

#include "engine/gemm.hpp"
#include "model/decoder_front.hpp"
#include "model/layer.hpp"

namespace rrswin::engine {

// The weight image's B operands, seeds and tables in the kernels' form. Independent of the
// profile and of the readings.
struct PreparedWeights;
// Prepared once per weight image content: cached (the last kPreparedCacheEntries images, keyed by
// the bytes themselves), so repeated frames with the same weights pay nothing.
std::shared_ptr<const PreparedWeights> prepare_weights(const WeightImage& w);
// How many prepared images the cache keeps (the most recent): a network's eleven and one more.
inline constexpr std::size_t kPreparedCacheEntries = kLayerCount + 1;

// Per-phase-group timing for `rrswin bench` (single-threaded use only): when set, run_block and
// the layers' runs (run_layer_frame_fast, one block at a time) add the seconds they spend in each
// group. The tail is enc5's E60 + phase 61 + E61, a merge layer's E60 + merge + final phase + E62, a
// decoder's E60 + final phase + its final epilogue, dec0's E19; the front a layer's front (the
// decoders' E1, enc0's embedding) before the template's phases.
enum PhaseGroup {
  kGroupPrologue,
  kGroupQV,
  kGroupScore,
  kGroupE11,
  kGroupPV,
  kGroupOutProj,
  kGroupE20,
  kGroupMlp,
  kGroupTail,
  kGroupFront,
  kPhaseGroups
};
inline constexpr const char* kPhaseGroupNames[kPhaseGroups] = {"prologue",          "1-10",       "11",   "E11", "12", "E12+13-20", "E20",
                                                               "21-60 (+E21..E59)", "E60+61+E61", "front"};
struct PhaseTimes {
  double seconds[kPhaseGroups] = {};
};
void set_phase_timing(PhaseTimes* t);
// Laps of the calling thread's CPU time (robust to other processes on the core) into the timing set
// by set_phase_timing; nothing when none is set. lap(g) adds the time since the previous lap (or
// since construction or restart) to group g; restart() drops it (time another part lapped itself).
class PhaseLaps {
 public:
  PhaseLaps();
  void lap(PhaseGroup g);
  void restart();

 private:
  PhaseTimes* t_;
  double last_;
};

// One block, the fast way. ctx.trace must be null (tracing is the golden model's job).
// inner_threads > 1 runs the block's heads on that many threads (for frames with fewer blocks
// than threads); the result does not depend on it.
void run_block(const PreparedWeights& w, SimdPath simd, const golden::BlockContext& ctx, const golden::BlockIo& io, int inner_threads = 1);

// One block of any layer the fused block takes (engine/layer_engine.hpp layer_parts), the fast way,
// through its last down-projection and the arena scatter after it (enc5's phases 1..60 and E60; at
// the layer's C, heads, chunks and phase numbers, from the weight image's row and program), the
// arena written as run_block writes it; returns q8 of the last down-projection's D (64 x C), the A
// of a merge layer's merge and final phase, a decoder's final phase (engine/layer_engine.hpp).
// io.texture and io.surface are not used. `staged`, when given, replaces the prologue
// (io.input_arena is then not read): the residual x and the staged A another front made (the
// decoders' E1; their stem starts at phase 2).
golden::E4Mat run_block_through_e60(const PreparedWeights& w, SimdPath simd, const golden::BlockContext& ctx, const golden::BlockIo& io,
                                    int inner_threads = 1, const golden::PrologueOut* staged = nullptr);

// One block of dec0 the fast way after its front (`staged`: the residual x and the staged A its E1
// made): the phases through the last down-projection, whose D (64 x C) it returns, as
// golden::run_layer_block returns D19 for dec0's E19 (no arena scatter, no final phase).
golden::F16Mat run_block_through_mlp(const PreparedWeights& w, SimdPath simd, const golden::BlockContext& ctx, int inner_threads,
                                     const golden::PrologueOut& staged);

// golden::prologue_gather(ctx, arena, x)'s values by per-m-tile word loads and a slot table (the
// fused block's prologue; the decoders' skip readback through BlockContext::gather).
void prologue_loads(const golden::BlockContext& ctx, std::span<const std::uint8_t> arena, golden::F16Mat& x);
// golden::expand_a(ctx, fr, input)'s values the same way (the decoders' phase-1 A through
// BlockContext::expand_gather).
golden::E4Mat expand_loads(const golden::BlockContext& ctx, const DecoderFrontReadings& fr, std::span<const std::uint8_t> input);

}  // namespace rrswin::engine
