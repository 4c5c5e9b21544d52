// The phase-boundary stages the trace build of the CUDA kernel records (ENC5_CUDA_TRACE, the PTX
// src/cuda/generated/enc5_kernel_trace.sm_89.ptx): a subset of the golden model's trace stages
// (model/trace.hpp, docs/formats.md "Traces") with the same names, warps, registers and register
// order, so that a test compares them value for value. The trace build reads a u32 buffer
// pointer at param+16 and the traced CTA at param+24/+28 (bytes the original does not read);
// the production kernel has none of this.
#pragma once
#include <cstddef>

#include "base/hd.hpp"

namespace enc5::cuda {

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

// Stage `id`'s name and shape (a switch, not a table, so that device code folds it to constants).
ENC5_HD constexpr TraceStageInfo trace_stage(int id) {
  switch (id) {
    case kTraceW1: return {"w1", 8, 48};
    case kTraceW2: return {"w2", 8, 48};
    case kTraceW9: return {"w9", 8, 48};
    case kTraceW10: return {"w10", 8, 48};
    case kTraceW11: return {"w11", 8, 96};
    case kTraceE11e: return {"e11.e", 8, 96};
    case kTraceE11p: return {"e11.p", 8, 96};
    case kTraceW12: return {"w12", 8, 32};
    case kTraceP13c: return {"p13c", 4, 40};
    case kTraceP13d: return {"p13d", 4, 40};
    case kTraceP20d: return {"p20d", 4, 40};
    case kTraceE20n: return {"e20.n", 4, 40};
    case kTraceP21d: return {"p21d", 4, 8};
    case kTraceE21act: return {"e21.act", 4, 8};
    case kTraceP22c: return {"p22c", 4, 40};
    case kTraceP22d: return {"p22d", 4, 40};
    case kTraceP60d: return {"p60d", 4, 40};
    case kTraceE60words: return {"e60.words", 4, 20};
    case kTraceP61d: return {"p61d", 4, 4};
    default: return {"", 0, 0};
  }
}

// First u32 of stage `id` in the trace buffer; values are [warp][lane][reg] as TraceStage::at.
ENC5_HD constexpr int trace_stage_offset(int id) {
  int off = 0;
  for (int i = 0; i < id; ++i) off += trace_stage(i).warps * 32 * trace_stage(i).regs;
  return off;
}
inline constexpr int kTraceWords = trace_stage_offset(kTraceStageCount);

// Parameter-block bytes of the trace build (unread by the original kernel, facts A4).
inline constexpr std::size_t kTraceBufferParamOffset = 16;  // u64 pointer to kTraceWords u32
inline constexpr std::size_t kTraceBlockParamOffset = 24;   // u32 ctaid.x, u32 ctaid.y

}  // namespace enc5::cuda
