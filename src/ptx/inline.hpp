// Internal to src/ptx: call inlining, a pass over decoded code (docs/ptx.md "Device-function
// calls"). The decoder resolves a call site (callee, argument and return-value variables); this
// pass copies the callee's decoded body into the caller.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ptx/ir.hpp"

namespace rrswin::ptx {

struct CallSite {
  const std::string* file = nullptr;  // for messages: file:line
  std::uint32_t line = 0;
  std::vector<std::uint32_t> arg_offsets;  // local-memory offset of each argument's .param variable
  std::vector<std::uint32_t> ret_offsets;  // ... of each return value's (at most the callee's count)
  // Per argument / return value: for the callee's .reg ones the caller's register (or literal
  // slot; a predicate index for a .pred one), else kNoIndex.
  std::vector<std::uint32_t> arg_regs, ret_regs;
  std::uint16_t mov_name = 0;  // the opcode name of the copies (Module::opcode_names)
};

// Appends callee's decoded body to caller.code: its registers renamed into fresh ones of the
// caller, its ld.param of its parameters and st.param of its return values redirected to the call
// site's .param variables (per-thread, local memory), its own call-site variables moved behind the
// caller's, its ret turned into a branch to the end of the copy. Throws PtxError naming the call's
// line when the callee addresses its parameters or local memory through a register, or a limit
// (kMaxLocalBytes, kMaxRegisters; kMaxFunctionInstructions, kMaxFunctionOperands and
// kMaxCallDepth, checked before anything is copied) is exceeded.
void inline_call(Function& caller, const Function& callee, const CallSite& site);

}  // namespace rrswin::ptx
