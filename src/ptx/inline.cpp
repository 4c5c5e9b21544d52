// Call inlining, a pass over decoded code (inline.hpp; docs/ptx.md "Device-function calls").
// Recursion cannot occur: a callee must be defined before its call, and it was decoded (its own
// calls inlined) before.
#include "ptx/inline.hpp"

#include <algorithm>

namespace rrswin::ptx {

namespace {

// A callee's ld.param of its parameter or st.param of its return value (c, an address in the param
// or return window) -> the call site's .param variable in local memory; an ignored return value's
// store becomes a nop. False when c addresses none of them.
bool redirect_param(Inst& c, const Function& callee, const CallSite& site) {
  const std::uint64_t a = static_cast<std::uint64_t>(c.imm);
  bool done = false;
  if (a >= kRetWindow) {
    const std::uint64_t r = a - kRetWindow;
    for (std::size_t q = 0; q < callee.ret_params.size(); ++q) {
      const ParamInfo& p = callee.ret_params[q];
      if (r >= p.offset && r < p.offset + p.size) {
        if (q >= site.ret_offsets.size()) {
          c.op = Op::nop;
          done = true;
          break;
        }  // an ignored return value
        c.imm = static_cast<std::int64_t>(site.ret_offsets[q] + (r - p.offset));
        done = true;
      }
    }
  } else if (a >= kParamWindow) {
    const std::uint64_t r = a - kParamWindow;
    for (std::size_t q = 0; q < callee.params.size(); ++q) {
      const ParamInfo& p = callee.params[q];
      if (r >= p.offset && r < p.offset + p.size) {
        c.imm = static_cast<std::int64_t>(site.arg_offsets[q] + (r - p.offset));
        done = true;
      }
    }
  }
  return done;
}

}  // namespace

void inline_call(Function& fn, const Function& callee, const CallSite& site) {
  auto fail = [&](const std::string& m) { throw PtxError(*site.file + ":" + std::to_string(site.line) + ": " + m); };
  // Checked before anything is copied: nested calls multiply a callee's size (f(n) calling f(n-1)
  // twice is 2^n copies of f(0)), so the limits bound the size the copy would reach.
  if (callee.call_depth + 1 > kMaxCallDepth)
    fail("call of " + callee.name + ": calls nested " + std::to_string(callee.call_depth + 1) + " deep, above the interpreter's limit of " +
         std::to_string(kMaxCallDepth) + " (docs/ptx.md \"Limits\")");
  // The copy adds a mov per .reg argument and return value (two operands each) and, after deferred
  // calls' copies, a return-point nop.
  std::uint64_t reg_copies = 0;
  for (std::uint32_t r : callee.param_regs) reg_copies += r != kNoIndex;
  for (std::size_t q = 0; q < site.ret_regs.size() && q < callee.ret_regs.size(); ++q) reg_copies += callee.ret_regs[q] != kNoIndex;
  const bool tail_end = callee.body_end == kNoIndex || callee.body_end + 1 == callee.code.size();
  const std::uint64_t code_after = static_cast<std::uint64_t>(fn.code.size()) + callee.code.size() + reg_copies + (tail_end ? 0 : 1);
  const std::uint64_t operands_after = static_cast<std::uint64_t>(fn.operands.size()) + callee.operands.size() + 2 * reg_copies;
  if (code_after > kMaxFunctionInstructions || operands_after > kMaxFunctionOperands)
    fail("call of " + callee.name + ": inlining its " + std::to_string(callee.code.size()) +
         " decoded instructions (its calls inlined) makes " + fn.name + " " + std::to_string(code_after) + " instructions and " +
         std::to_string(operands_after) + " operands, above the interpreter's limit of " + std::to_string(kMaxFunctionInstructions) +
         " instructions and " + std::to_string(kMaxFunctionOperands) + " operands per function, callees inlined (docs/ptx.md \"Limits\")");
  fn.call_depth = std::max(fn.call_depth, callee.call_depth + 1);
  // The module's .shared variables are one array per CTA, the same for every function: the caller
  // now uses the ones its callee names too (EntryStats::shared_bytes, the launch's checks).
  fn.shared_used = std::max(fn.shared_used, callee.shared_used);
  // The callee's own call-site .param variables (from calls it inlined) move behind the caller's.
  const std::uint32_t local_shift = (fn.local_bytes + 15) / 16 * 16;
  fn.local_bytes = local_shift + callee.local_bytes;
  if (fn.local_bytes > kMaxLocalBytes)
    fail("local memory exceeds the interpreter's limit of " + std::to_string(kMaxLocalBytes) + " bytes after inlining " + callee.name);
  const std::uint32_t reg_off = fn.nregs - kSpecialCount, pred_off = fn.npreds;
  fn.nregs += callee.nregs - kSpecialCount;
  fn.npreds += callee.npreds;
  if (fn.nregs > kMaxRegisters || fn.npreds > kMaxRegisters)
    fail("too many registers at inlining " + callee.name + ": a function may have at most " + std::to_string(kMaxRegisters) +
         " register slots and as many predicates (the interpreter's limit, docs/ptx.md \"Limits\")");
  auto map_reg = [&](std::uint32_t r) { return r < kSpecialCount ? r : r + reg_off; };
  auto map_pred = [&](std::uint32_t p) {
    const std::uint32_t idx = p & ~kPredNeg, neg = p & kPredNeg;
    auto lit = [&](std::uint32_t& mine) {
      if (mine == kNoIndex) mine = fn.npreds++;
      return mine;
    };
    if (idx == callee.pred_true) return lit(fn.pred_true) | neg;
    if (idx == callee.pred_false) return lit(fn.pred_false) | neg;
    return (idx + pred_off) | neg;
  };
  for (const auto& [r, v] : callee.constants) fn.constants.emplace_back(map_reg(r), v);
  // .reg parameters and return values: a mov (pmov for .pred) of the caller's operand into the
  // callee's renamed register before the body, and of its return register after the return point.
  auto copy = [&](std::uint32_t d, std::uint32_t s, Type t) {
    Inst mv;
    mv.op = t == Type::pred ? Op::pmov : Op::mov;
    mv.t = t;
    mv.nd = 1;
    mv.ns = 1;
    mv.line = site.line;
    mv.name = site.mov_name;
    mv.opnd = static_cast<std::uint32_t>(fn.operands.size());
    fn.operands.push_back(d);
    fn.operands.push_back(s);
    fn.code.push_back(mv);
  };
  for (std::size_t q = 0; q < callee.params.size(); ++q)
    if (callee.param_regs[q] != kNoIndex) {
      const Type t = callee.param_types[q];
      copy(t == Type::pred ? map_pred(callee.param_regs[q]) : map_reg(callee.param_regs[q]), site.arg_regs[q], t);
    }
  const auto base = static_cast<std::uint32_t>(fn.code.size());
  // The return point: the callee's final implicit exit, made a nop, where it is its last
  // instruction; after copies of deferred calls (appended after it, Parser::resolve_calls), a nop
  // appended after the whole copy.
  const bool tail = tail_end;
  const auto ret_point = base + static_cast<std::uint32_t>(callee.code.size()) - (tail ? 1 : 0);
  for (std::size_t k = 0; k < callee.code.size(); ++k) {
    Inst c = callee.code[k];
    const std::uint32_t first = static_cast<std::uint32_t>(fn.operands.size());
    for (unsigned j = 0; j < static_cast<unsigned>(c.nd + c.ns); ++j) {
      const std::uint32_t o = callee.operands[c.opnd + j];
      fn.operands.push_back(is_pred_operand(c, j) ? map_pred(o) : map_reg(o));
    }
    c.opnd = first;
    if (c.guard != kNoIndex) c.guard = map_pred(c.guard);
    if (c.op == Op::bra) c.target += base;
    if (c.op == Op::exit) {
      if (tail && k + 1 == callee.code.size()) {
        c.op = Op::nop;  // the return point
      } else {
        c.op = Op::bra;
        c.target = ret_point;
      }
    }
    if ((c.op == Op::ld || c.op == Op::st) && static_cast<Space>(c.sub) == Space::param) {
      if (fn.operands[c.opnd + (c.op == Op::ld ? c.nd : 0)] != kZero)
        fail("call of " + callee.name + ": it addresses its parameters through a register (not supported)");
      if (!redirect_param(c, callee, site)) fail("call of " + callee.name + ": a parameter access outside its parameters");
      c.sub = static_cast<std::uint8_t>(Space::local);
    } else if ((c.op == Op::ld || c.op == Op::st) && static_cast<Space>(c.sub) == Space::local) {
      // Only the callee's .param variables live there (no .local variables): [symbol] accesses.
      if (fn.operands[c.opnd + (c.op == Op::ld ? c.nd : 0)] != kZero)
        fail("call of " + callee.name + ": local memory through a register (not supported)");
      c.imm += local_shift;
    }
    fn.code.push_back(c);
  }
  if (!tail) {
    Inst r = callee.code[callee.body_end];
    r.op = Op::nop;
    r.nd = r.ns = 0;
    r.guard = kNoIndex;
    r.opnd = static_cast<std::uint32_t>(fn.operands.size());
    fn.code.push_back(r);
  }
  for (std::size_t q = 0; q < site.ret_regs.size(); ++q)
    if (callee.ret_regs[q] != kNoIndex) {
      const Type t = callee.ret_types[q];
      copy(site.ret_regs[q], t == Type::pred ? map_pred(callee.ret_regs[q]) : map_reg(callee.ret_regs[q]), t);
    }
}

}  // namespace rrswin::ptx
