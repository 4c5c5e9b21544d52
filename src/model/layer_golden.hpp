// The golden model of enc4 (issue 21): enc5's golden parts for phases 1..60 (DOC4 §2: enc4's
// phases 1..60 are enc5's, statement for statement and offset for offset;
// LayerTemplate.Enc4Phases1To60AreEnc5s), then the patch merge (E60's staging, phase 61 in 32-column
// passes, E61's store of the merged tokens into param+56) and phase 62. E62, the final epilogue
// (3x3 texture stencil, the (acc - sigmoid(acc))*0.25 term, three surfaces), is NOT modelled: DOC4
// §3/E62 does not give its arithmetic completely (docs/readings.md §7 "e62"). enc3 (C = 128) needs
// enc5's parts parameterised by C: not written yet.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/layer.hpp"
#include "model/layer_spec.hpp"

namespace enc5 {

// The readings of the merge layers (docs/readings.md §7), apart from enc5's Readings: they change
// nothing enc5 computes, so enc5's settle never searches them.
// Which token of a 2x2 patch fills which quarter of the merge's K = 4C (merge-gather-order).
enum class MergeGatherOrder {
  swin,    // quarter 0..3 = (dx, dy) (0,0), (0,1), (1,0), (1,1): Swin's PatchMerging x0..x3
  raster,  // quarter 0..3 = (0,0), (1,0), (0,1), (1,1): x fastest
};
// How E61 places a merged token's q8 channels in param+56 (merge-output-layout).
enum class MergeOutputLayout {
  e60_words,    // the words E60 stores for a tile, in the reading arena-order's map, at E61's bases
  token_words,  // the same words, each merged token its own (arena-order = natural's map)
};
struct LayerReadings {
  MergeGatherOrder merge_gather_order = MergeGatherOrder::swin;
  MergeOutputLayout merge_output_layout = MergeOutputLayout::e60_words;
};
struct LayerReadingInfo {
  std::string name;
  std::vector<std::string> values;  // the default first
  std::string question, where, settle;
};
const std::vector<LayerReadingInfo>& layer_reading_registry();
// "NAME=VALUE"; false and *error on an unknown name or value.
bool set_layer_reading(LayerReadings& r, std::string_view assignment, std::string* error);

namespace golden {

// E60(c)/(d): the 16 merged tokens of the block (row m = merged token (m&3, m>>2)) as the merge's
// A, 16 x 4C, from q8 of the last down-projection's D (64 x C, row = window token 8y + x).
E4Mat merge_gather(const LayerReadings& lr, const E4Mat& a_last);
// The merge phase, every pass: D (16 x merge_out), seeded with the merge bias (merge-bias-pass).
F16Mat merge_phase(const BlockContext& ctx, const LayerSpec& s, const E4Mat& merged);
// E61: q8(D) of the merge stored into the merged output (param+56, a plane arena at the halved
// extents (ex>>1, ey>>1)) at merged token ((x0>>1) + (m&3), (y0>>1) + (m>>2)), guarded by the
// halved extents (DOC4 §3/E61, DOC3 §3/E47).
void merge_store(const BlockContext& ctx, const LayerReadings& lr, const F16Mat& dm, std::span<std::uint8_t> merged_out);

struct MergeBlockIo {
  std::span<const std::uint8_t> input_arena;  // param+8
  std::span<std::uint8_t> output_arena;       // param+48
  std::span<std::uint8_t> merged_output;      // param+56
};
// One block of enc4 through phase 62 (ctx.weights: an enc4 image). Returns phase 62's D (64 x 16,
// what E62 would consume). ctx.last_phase is not supported (0).
F16Mat run_enc4_block(const BlockContext& ctx, const LayerReadings& lr, const MergeBlockIo& io);

}  // namespace golden

// A whole enc4 frame with the golden model, block by block (grid and block of layer_spec(enc4):
// (ex+7)/8 x (ey+7)/8 blocks with origin offsets ox, oy at param+80). Outputs: the plane arena
// (5 x ey x ex x 32 bytes) and the merged output (5 x (ey>>1) x (ex>>1) x 32 bytes), both
// zero-filled first; `final_d` (when given) gets each block's phase-62 D in grid order.
struct Enc4Frame {
  int ex = 0, ey = 0;
  int ox = 0, oy = 0;
  std::span<const std::uint8_t> input_arena;
  const WeightImage* weights = nullptr;
  std::vector<std::uint8_t> output_arena, merged_output;
};
// `trace` (when given) records its stages of block (trace->block_x, trace->block_y) into *trace_out.
void run_enc4_frame_golden(Enc4Frame& f, const Profile& profile, const Readings& r, const LayerReadings& lr,
                           golden::LayerStats* stats = nullptr, const TraceRequest* trace = nullptr,
                           Trace* trace_out = nullptr);

}  // namespace enc5
