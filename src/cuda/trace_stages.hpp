// The phase-boundary stages the trace build of the CUDA kernel records (RRSWIN_CUDA_TRACE, the PTX
// src/cuda/generated/enc5_kernel_trace.sm_89.ptx): a subset of the golden model's trace stages
// (model/trace.hpp, docs/formats.md "Traces") with the same names, warps, registers and register
// order, so that a test compares them value for value. The trace build reads a u32 buffer
// pointer at param+16 and the traced CTA at param+24/+28 (bytes the original does not read);
// the production kernel has none of this.
#pragma once
#include <cstddef>

#include "base/hd.hpp"
#include "model/trace.hpp"

namespace rrswin::cuda {

struct TraceStageInfo {
  const char* name;
  int warps, regs;
};

enum TraceStageId : int {
  kTraceW1,
  kTraceW2,
  kTraceW9,
  kTraceW10,
  kTraceW11,
  kTraceE11e,
  kTraceE11p,
  kTraceW12,
  kTraceP13c,
  kTraceP13d,
  kTraceP20d,
  kTraceE20n,
  kTraceP21d,
  kTraceE21act,
  kTraceP22c,
  kTraceP22d,
  kTraceP60d,
  kTraceE60words,
  kTraceP61d,
  kTraceStageCount
};

// Stage `id`'s name and shape (a switch, not a table, so that device code folds it to constants);
// the shapes are the golden model's (model/trace.hpp stage_shape at enc5's C = 160, H = 8).
RRSWIN_HD constexpr TraceStageInfo trace_stage(int id) {
  auto at = [](const char* name, StageKind k) {
    const StageShape s = stage_shape(k, 160, 8);
    return TraceStageInfo{name, s.warps, s.regs};
  };
  switch (id) {
    case kTraceW1: return at("w1", StageKind::stem_d);
    case kTraceW2: return at("w2", StageKind::stem_d);
    case kTraceW9: return at("w9", StageKind::stem_d);
    case kTraceW10: return at("w10", StageKind::stem_d);
    case kTraceW11: return at("w11", StageKind::score_d);
    case kTraceE11e: return at("e11.e", StageKind::score_d);
    case kTraceE11p: return at("e11.p", StageKind::score_d);
    case kTraceW12: return at("w12", StageKind::pv_d);
    case kTraceP13c: return at("p13c", StageKind::row_tile);
    case kTraceP13d: return at("p13d", StageKind::row_tile);
    case kTraceP20d: return at("p20d", StageKind::row_tile);
    case kTraceE20n: return at("e20.n", StageKind::row_tile);
    case kTraceP21d: return at("p21d", StageKind::up_d);
    case kTraceE21act: return at("e21.act", StageKind::up_d);
    case kTraceP22c: return at("p22c", StageKind::row_tile);
    case kTraceP22d: return at("p22d", StageKind::row_tile);
    case kTraceP60d: return at("p60d", StageKind::row_tile);
    case kTraceE60words: return at("e60.words", StageKind::arena_words);
    case kTraceP61d: return at("p61d", StageKind::final_d);
    default: return {"", 0, 0};
  }
}

// First u32 of stage `id` in the trace buffer; values are [warp][lane][reg] as TraceStage::at.
RRSWIN_HD constexpr int trace_stage_offset(int id) {
  int off = 0;
  for (int i = 0; i < id; ++i) off += trace_stage(i).warps * 32 * trace_stage(i).regs;
  return off;
}
inline constexpr int kTraceWords = trace_stage_offset(kTraceStageCount);

// Parameter-block bytes of the trace build (unread by the original kernel, facts A4).
inline constexpr std::size_t kTraceBufferParamOffset = 16;  // u64 pointer to kTraceWords u32
inline constexpr std::size_t kTraceBlockParamOffset = 24;   // u32 ctaid.x, u32 ctaid.y

}  // namespace rrswin::cuda
