// Traces: any phase's D registers and C seeds, and the epilogue intermediates, per warp and lane,
// in register order (docs/formats.md "trace"). The golden model fills a Trace for one block when
// asked; io/trace_io writes it as binary and as text.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/hd.hpp"

namespace rrswin {

struct LayerSpec;

// The shapes of the trace stages (warps recorded x b32 registers per lane), one row per kind of
// stage, in the layer's C (channels), H (heads) and merged channels: the one place the golden model
// (model/*.cpp), the CUDA trace build (cuda/trace_stages.hpp), the debug-oracle reader
// (capture/debug_stage.cpp, facts F2) and the tests take them from. (Register orders: each stage's
// description and docs/formats.md "Traces".)
enum class StageKind {
  prologue_a,   // prologue.a: 4 regs per A fragment of 6 m-tiles x C/32 k-slices, 1 warp
  stem_d,       // w1..w<stem> (Q/V chains): 6 m-tiles x 4 n-tiles x 2 halves, a warp per head
  score_d,      // w<score>, e<score>.e, e<score>.p: 4 m-tiles x 12 n-tiles x 2, a warp per head
  score_row,    // e<score>.sum, .rcp: 4 m-tiles x 2 halves, a warp per head
  pv_d,         // w<pv> (P V): 4 m-tiles x 4 n-tiles x 2, a warp per head
  row_tile,     // a 16 x C tile per warp (C seeds and D of the projections and down-projections,
                // the norm's N): C/8 n-tiles x 2, warps 0..3 (the row stages' "warp" is the 16-row
                // m-tile: dec1's warp z holds two, m-tiles 2z and 2z+1)
  norm_row,     // e<norm>.sum, .inv: 2 halves, warps 0..3
  up_d,         // p<up>d, e<up>.act: 4 n-tiles x 2, warps 0..3
  arena_words,  // e<last down>.words: C/32 planes x 4 A registers, warps 0..3
  merge_d,      // p<merge>d: merged_out/8 n-tiles x 2, merged rows g and g+8: 1 warp
  final_d,      // p<final>d: 2 n-tiles x 2, warps 0..3
  final_words,  // e61.logits, e61.w: 5 words per thread T = 32 warp + lane < 64 (2 warps)
  final_pair,   // e61.sum, e61.out, e62.gate/.quad/.sum: 2 words per thread T < 64
  expand_d,     // p1d (the decoders' patch expand): 3 m-tiles x N/8 n-tiles x 2, the front's warps
                // (N = its columns per warp: C, or 2C for dec1's 2 warps; stage_shape(k, LayerSpec))
};
struct StageShape {
  int warps, regs;
};
RRSWIN_HD constexpr StageShape stage_shape(StageKind k, int channels, int heads, int merged_out = 0) {
  switch (k) {
    case StageKind::prologue_a: return {1, 4 * 6 * (channels / 32)};
    case StageKind::stem_d: return {heads, 6 * 4 * 2};
    case StageKind::score_d: return {heads, 4 * 12 * 2};
    case StageKind::score_row: return {heads, 4 * 2};
    case StageKind::pv_d: return {heads, 4 * 4 * 2};
    case StageKind::row_tile: return {4, channels / 8 * 2};
    case StageKind::norm_row: return {4, 2};
    case StageKind::up_d: return {4, 4 * 2};
    case StageKind::arena_words: return {4, channels / 32 * 4};
    case StageKind::merge_d: return {1, merged_out / 8 * 2};
    case StageKind::final_d: return {4, 2 * 2};
    case StageKind::final_words: return {2, 5};
    case StageKind::final_pair: return {2, 2};
    case StageKind::expand_d: return {4, 3 * (channels / 8) * 2};
  }
  return {0, 0};
}

// The shape of a stage of layer l: stage_shape above at l's C, H and merged channels, the patch
// expand's at its own columns and warps (model/trace.cpp).
StageShape stage_shape(StageKind k, const LayerSpec& l);

// One row of a layer's stage table: a stage's name and kind, in the kernel's order.
struct StageRow {
  std::string name;
  StageKind kind;
  StageShape shape;
};
// Every stage the golden model records for the layer (`--trace all`), in the order it records them
// (model/trace.cpp): enc5's w1..w12, e11.*, p13c, p13d..p20d, e20.*, p21d.., p22c, .., e60.words,
// p61d, e61.*; the merge layers' the same at their phase numbers, then p<merge>d, p<final>d, e<final>.*;
// the decoders' p1d (the patch expand) first, then the template's at their phase numbers and
// p<final>d (the decoder final records no stage).
std::vector<StageRow> trace_stage_table(const LayerSpec& layer);

struct TraceStage {
  // How the text form (io/trace_io) decodes a register besides its hex: the D registers and C
  // seeds of every phase are f16x2, hence the default; operands staged for an mma are e4m3x4.
  enum class Kind : std::uint8_t { f16x2, e4m3x4, f32, u32 };

  std::string name;         // "w1".."w12", "p13c", "p13d", "p21d", "e11.p", "e20.inv", ...
  std::string description;  // one line: what the registers hold and in which order
  int warps = 0;            // warps recorded (warp index 0..warps-1 = %tid.z)
  int lanes = 32;
  int regs = 0;                       // b32 registers per lane
  std::vector<std::uint32_t> values;  // [warp][lane][reg], size warps*lanes*regs
  Kind kind = Kind::f16x2;            // last, so positional aggregate initialisers stay valid
  std::uint32_t& at(int warp, int lane, int reg) { return values[(static_cast<std::size_t>(warp) * lanes + lane) * regs + reg]; }
  std::uint32_t at(int warp, int lane, int reg) const { return values[(static_cast<std::size_t>(warp) * lanes + lane) * regs + reg]; }
};

struct TraceRequest {
  std::vector<std::string> stages;  // names to record; {"all"} records every stage
  int block_x = 0, block_y = 0;     // ctaid of the block to record
  bool wants(const std::string& name) const {
    for (const auto& s : stages)
      if (s == "all" || s == name) return true;
    return false;
  }
};

struct Trace {
  int block_x = 0, block_y = 0;
  std::vector<TraceStage> stages;  // in the kernel's order
};

}  // namespace rrswin
