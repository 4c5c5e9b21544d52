// The instruction decoder: an instruction's opcode, split into base, types and modifiers, and
// its raw operands -> one Inst (ir.hpp). The instruction set is the table Parser::families: one row per
// opcode family with the modifiers the interpreter reads for it (instructions.def). Every error
// names the file and line.
#include "ptx/inline.hpp"
#include "ptx/parser.hpp"

namespace rrswin::ptx {

// The instruction set (parser.hpp, Parser::Family): the FAMILY rows of instructions.def, each with
// the Ops of the OP rows below it. The decoders check the combinations of modifiers and types; the
// operand rules (operand_fits) check the registers. `fma.rn.relu.f16`, `slct.ftz`, `add.cc.f32`
// used to decode with the modifier dropped (issue 20): no longer possible.
const std::vector<Parser::Family>& Parser::families() {
  static const std::vector<Family> table = [] {
    std::vector<Family> t;
    auto also = [&t](std::initializer_list<Op> ops) {
      for (const Op op : ops) t.back().yields.set(static_cast<std::size_t>(op));
    };
#define RRSWIN_PTX_FAMILY(mnemonic, modifiers, decoder, ...) \
  t.push_back({mnemonic, modifiers, &Parser::decoder, {}});  \
  also({__VA_ARGS__});
#define RRSWIN_PTX_OP(op, execute, preds) also({Op::op});
#include "ptx/instructions.def"
#undef RRSWIN_PTX_FAMILY
#undef RRSWIN_PTX_OP
    return t;
  }();
  return table;
}

const char* op_name(Op op) {
  static constexpr const char* kNames[] = {
#define RRSWIN_PTX_FAMILY(mnemonic, modifiers, decoder, ...)
#define RRSWIN_PTX_OP(op, execute, preds) #op,
#include "ptx/instructions.def"
#undef RRSWIN_PTX_FAMILY
#undef RRSWIN_PTX_OP
  };
  static_assert(std::size(kNames) == kOpCount, "one name per Op (instructions.def)");
  return kNames[static_cast<std::size_t>(op)];
}

bool is_cache_word(std::string_view w) {
  static const char* ok[] = {"weak", "relaxed", "acquire", "release", "volatile", "ca",  "cg",  "cs",  "lu",
                             "cv",   "nc",      "wb",      "wt",      "cta",      "gpu", "sys", "mmio"};
  for (const char* o : ok)
    if (w == o) return true;
  return w.substr(0, 4) == "L1::" || w.substr(0, 4) == "L2::";
}

const Parser::Family* Parser::find_family(std::string_view base) {
  for (const Family& f : families())
    if (base == f.name) return &f;
  return nullptr;
}

namespace {

constexpr const char* kSpaces = "global shared shared::cta local param param::entry param::func const ";

bool in_list(std::string_view list, std::string_view w) {
  while (!list.empty()) {
    const std::size_t sp = list.find(' ');
    if (list.substr(0, sp) == w) return true;
    if (sp == std::string_view::npos) break;
    list.remove_prefix(sp + 1);
  }
  return false;
}

// ld/st: the state spaces, vector widths and the cache/ordering words (no-ops: one thread per lane,
// warps of a CTA one at a time, CTAs without communication; docs/ptx.md).
bool ld_modifier(std::string_view w) { return in_list(kSpaces, w) || w == "v2" || w == "v4" || w == "v8" || is_cache_word(w); }

}  // namespace

namespace {

// The dotted words of an opcode that set a field of Mods (the rest are kept in Mods::words).
struct FlagWord {
  const char* word;
  bool Mods::*flag;
};
constexpr FlagWord kFlagWords[] = {
    {"ftz", &Mods::ftz},     {"sat", &Mods::sat}, {"approx", &Mods::approx},   {"full", &Mods::full}, {"satfinite", &Mods::satfinite},
    {"relu", &Mods::relu},   {"uni", &Mods::uni}, {"aligned", &Mods::aligned}, {"sync", &Mods::sync}, {"wide", &Mods::wide},
    {"lo", &Mods::lo},       {"hi", &Mods::hi},   {"cc", &Mods::cc},           {"to", &Mods::to},     {"shiftamt", &Mods::shiftamt},
    {"trans", &Mods::trans},
};
constexpr std::pair<const char*, Rnd> kRoundWords[] = {{"rn", Rnd::rn},   {"rz", Rnd::rz},   {"rm", Rnd::rm},   {"rp", Rnd::rp},
                                                       {"rni", Rnd::rni}, {"rzi", Rnd::rzi}, {"rmi", Rnd::rmi}, {"rpi", Rnd::rpi}};
constexpr std::pair<const char*, Space> kSpaceWords[] = {
    {"global", Space::global}, {"shared", Space::shared},      {"shared::cta", Space::shared}, {"local", Space::local},
    {"param", Space::param},   {"param::entry", Space::param}, {"param::func", Space::param},  {"const", Space::constant}};
constexpr std::pair<const char*, int> kVectorWords[] = {{"v2", 2}, {"v4", 4}, {"v8", 8}};

// Sets the field of m that modifier w names; false when w names none.
bool set_modifier(Mods& m, std::string_view w) {
  for (const FlagWord& f : kFlagWords)
    if (w == f.word) return m.*f.flag = true;
  for (const auto& [word, r] : kRoundWords)
    if (w == word) {
      m.rnd = r;
      return true;
    }
  for (const auto& [word, sp] : kSpaceWords)
    if (w == word) {
      m.space = sp;
      return m.space_set = true;
    }
  for (const auto& [word, n] : kVectorWords)
    if (w == word) {
      m.vec = n;
      return true;
    }
  return false;
}

}  // namespace

Mods split_opcode(std::string_view op) {
  Mods m;
  m.name = op;
  std::size_t p = op.find('.');
  m.base = op.substr(0, p);
  while (p != std::string_view::npos) {
    const std::size_t q = op.find('.', p + 1);
    const std::string_view w = op.substr(p + 1, q == std::string_view::npos ? std::string_view::npos : q - p - 1);
    p = q;
    if (Type t = parse_type(w); t != Type::none) {
      m.types.push_back(t);
      continue;
    }
    m.all.push_back(w);
    if (!set_modifier(m, w)) m.words.push_back(w);
  }
  return m;
}

void Parser::instruction() {
  Inst in;
  in.line = cur().line;
  if (accept('@')) {
    ROp g;
    g.line = cur().line;
    if (accept('!')) g.neg = true;
    const Tok& p = next();
    if (p.kind != Tok::word) fail(p, "expected a guard predicate");
    g.name = p.text;
    g.kind = ROp::reg;
    const std::uint32_t idx = psrc(g);
    in.guard = idx & ~kPredNeg;
    in.guard_neg = g.neg;
  }
  const Tok& opt = next();
  if (opt.kind != Tok::word || opt.text[0] == '.' || opt.text[0] == '%')
    fail(opt, "expected an instruction, found '" + std::string(opt.text) + "'");
  std::vector<ROp> ops;
  if (!cur().is(';')) {
    do ops.push_back(operand());
    while (accept(','));
  }
  if (!cur().is(';'))
    fail(cur(), "expected ';' after the operands of " + std::string(opt.text) + ", found '" + std::string(cur().text) + "'");
  ++i_;
  in.name = opcode_id(opt.text);
  decode(in, opt.text, ops);
}

void Parser::emit(Inst& in, const std::vector<std::uint32_t>& d, const std::vector<std::uint32_t>& s) {
  in.opnd = static_cast<std::uint32_t>(fn_->operands.size());
  in.nd = static_cast<std::uint8_t>(d.size());
  in.ns = static_cast<std::uint8_t>(s.size());
  fn_->operands.insert(fn_->operands.end(), d.begin(), d.end());
  fn_->operands.insert(fn_->operands.end(), s.begin(), s.end());
  fn_->code.push_back(in);
}

void Parser::need(const std::vector<ROp>& ops, std::size_t n, std::string_view op, std::uint32_t line) {
  if (ops.size() != n) fail(line, std::string(op) + " takes " + std::to_string(n) + " operands, found " + std::to_string(ops.size()));
}

Type Parser::one_type(const Mods& m, std::string_view op, std::uint32_t line) {
  if (m.types.size() != 1) fail(line, "expected one type on " + std::string(op));
  return m.types[0];
}

void Parser::no_words(const Mods& m, std::string_view op, std::uint32_t line, std::initializer_list<std::string_view> allowed) {
  for (std::string_view w : m.words) {
    bool ok = false;
    for (std::string_view a : allowed) ok |= a == w;
    if (!ok) fail(line, "unsupported modifier ." + std::string(w) + " in " + std::string(op));
  }
}

void Parser::float_mods(const Mods& m, Type t, std::string_view op, std::uint32_t line, bool bf16_ok) {
  // f32/f64 take every IEEE direction (numerics/f32); f16 instructions only .rn.
  const bool directed = m.rnd == Rnd::rz || m.rnd == Rnd::rm || m.rnd == Rnd::rp;
  if (m.rnd != Rnd::none && m.rnd != Rnd::rn && !(directed && (t == Type::f32 || t == Type::f64)))
    fail(line, "rounding modifier in " + std::string(op) + " is not supported (no model in src/numerics)");
  const bool bf = t == Type::bf16 || t == Type::bf16x2;
  if (m.sat && (t == Type::f16 || t == Type::f16x2 || bf)) fail(line, ".sat on f16/bf16 is not supported: " + std::string(op));
  if (m.ftz && t != Type::f32 && !(m.approx && t == Type::f64)) fail(line, ".ftz is only supported on .f32: " + std::string(op));
  // bf16: add/sub/mul/fma.rn, min/max, neg/abs (numerics/minifloat); the rest have no model.
  if (bf && !bf16_ok) fail(line, "bf16 arithmetic other than add/sub/mul/fma.rn, min/max, neg/abs is not supported: " + std::string(op));
}

void Parser::decode(Inst& in, std::string_view opname, std::vector<ROp>& ops) {
  const Mods m = split_opcode(opname);
  const std::string_view b = m.base;
  const std::uint32_t L = in.line;
  const Family* fam = find_family(b);
  if (!fam) unsupported(L, opname);
  for (std::string_view w : m.all) {
    const std::string_view allowed = fam->modifiers;
    const bool ok = allowed == "*" || (allowed == "*ld" ? ld_modifier(w) : in_list(allowed, w));
    if (!ok) fail(L, "unsupported modifier ." + std::string(w) + " in " + std::string(opname) + " (docs/ptx.md lists the accepted forms)");
  }
  // Whole vector registers are operands of ld, ldu, st, mov.v2/.v4 and tex only (PTX ISA "Vector
  // Operands"); elsewhere they are an error naming the line (a component %v.x is a scalar).
  const bool vectors_ok = b == "ld" || b == "ldu" || b == "st" || b == "tex" || (b == "mov" && m.vec > 1);
  if (!vectors_ok)
    for (const ROp& o : ops) {
      if (o.whole_vector) not_a_vector_operand(o);
      for (const ROp& e : o.elems)
        if (e.whole_vector) not_a_vector_operand(e);
    }
  // ld, st and cvt may name registers wider than the instruction type (PTX ISA 9.4.1).
  relaxed_ = b == "ld" || b == "ldu" || b == "st" || b == "cvt";
  in.rnd = m.rnd;
  in.flags = static_cast<std::uint8_t>((m.ftz ? kFtz : 0) | (m.sat ? kSat : 0) | (m.approx ? kApprox : 0));
  const std::size_t first = fn_->code.size();
  (this->*fam->decode)(in, m, ops);
  // The table names every Op a family yields (instructions.def); call's are the inlined callee's.
  if (fam->decode != &Parser::dec_call)
    for (std::size_t k = first; k < fn_->code.size(); ++k)
      if (!fam->yields.test(static_cast<std::size_t>(fn_->code[k].op)))
        fail(L, std::string("internal error: the decoder of ") + fam->name + " yielded Op " + op_name(fn_->code[k].op) +
                    ", which its rows in instructions.def do not name");
}

void Parser::unsupported(std::uint32_t line, std::string_view opname) const {
  fail(line, "unsupported instruction " + std::string(opname) + " (docs/ptx.md lists the accepted forms)");
}

// ----- control and no-ops

void Parser::dec_membar(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  // Warps of a CTA run one at a time and CTAs do not communicate: ordering is implied.
  in.op = Op::membar;
  emit(in, {}, {});
  return;
}

void Parser::dec_bra(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  need(ops, 1, opname, L);
  no_words(m, opname, L);
  if (ops[0].kind != ROp::reg) fail(L, "bra needs a label");
  in.op = Op::bra;
  emit(in, {}, {});
  scopes_.back().pending.emplace_back(static_cast<std::uint32_t>(fn_->code.size() - 1), std::string(ops[0].name), L);
  return;
}

void Parser::dec_exit(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base;
  const std::uint32_t L = in.line;
  if (!ops.empty()) fail(L, std::string(b) + " takes no operands");
  in.op = Op::exit;
  emit(in, {}, {});
  return;
}

void Parser::dec_trap(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  in.op = Op::trap;
  emit(in, {}, {});
  return;
}

void Parser::dec_prefetch(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  // A cache hint: nothing to do (the address is not even checked, as on a GPU).
  need(ops, 1, opname, L);
  if (ops[0].kind != ROp::addr) fail(L, std::string(opname) + " needs an address [..]");
  in.op = Op::nop;
  emit(in, {}, {});
  return;
}

void Parser::dec_createpolicy(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  // createpolicy.*.b64 d, ...: an opaque cache policy for .L2::cache_hint operands, which the
  // interpreter ignores: d = 0.
  if (ops.empty() || one_type(m, opname, L) != Type::b64) unsupported(L, opname);
  in.op = Op::mov;
  in.t = Type::b64;
  emit(in, {dst(ops[0], Type::b64)}, {constant(0)});
  return;
}

void Parser::dec_nop(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  in.op = Op::nop;
  emit(in, {}, {});
  return;
}

// call[.uni] [(ret, ...),] func[, (arg, ...)]: the call site is resolved here, the callee's body
// inlined by the inlining pass (inline.cpp).
void Parser::dec_call(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::uint32_t L = in.line;
  if (in.guard != kNoIndex) fail(L, "a predicated call is not supported");
  std::size_t i = 0;
  std::vector<const ROp*> rets, args;
  if (i < ops.size() && ops[i].kind == ROp::paren) {
    for (const ROp& e : ops[i].elems) rets.push_back(&e);
    ++i;
  }
  if (i >= ops.size() || ops[i].kind != ROp::reg) fail(L, "call needs a function name");
  const std::string_view callee_name = ops[i].name;
  ++i;
  if (i < ops.size() && ops[i].kind == ROp::paren) {
    for (const ROp& e : ops[i].elems) args.push_back(&e);
    ++i;
  }
  if (i != ops.size()) fail(L, "call: unexpected operands (indirect calls are not supported)");
  for (std::string_view w : m.words) fail(L, "unsupported modifier ." + std::string(w) + " in call");
  const Function* callee = nullptr;
  for (const Function& f : mod_.functions)
    if (f.name == callee_name && &f != fn_) callee = &f;
  if (!callee) fail(L, "call of " + std::string(callee_name) + ": no such function declared before the call (recursion is not supported)");
  if (callee->is_entry) fail(L, "call of an entry");
  // A callee declared by a prototype whose body follows (or one with such calls of its own) is
  // inlined at the end of the module (resolve_calls); its .local variables are checked there.
  const bool deferred = !callee->has_body || has_pending_calls(callee->name);
  if (!deferred && callee->has_local_vars) fail(L, "call of " + callee->name + ", which has .local variables, is not supported");
  if (args.size() != callee->params.size() || rets.size() > callee->ret_params.size())
    fail(L, "call of " + callee->name + " with " + std::to_string(args.size()) + " arguments and " + std::to_string(rets.size()) +
                " return values; it takes " + std::to_string(callee->params.size()) + " and " + std::to_string(callee->ret_params.size()));
  auto local_of = [&](const ROp* o) {
    const std::string_view n = o->name;
    auto it = param_locals_.find(n);
    if (o->kind != ROp::reg || it == param_locals_.end())
      fail(L, "call argument " + std::string(n) + " is not a .param variable of this body");
    return local_vars_.find(n)->second;
  };
  // A .reg parameter takes a register or a literal of the caller, a .reg return value a register
  // (PTX ISA "call": arguments passed by value); the inlining copies them with a mov.
  auto reg_arg = [&](const ROp* o, Type t, bool is_ret) {
    if (o->kind == ROp::reg && param_locals_.count(o->name))
      fail(L, "call of " + callee->name + ": the .param variable " + std::string(o->name) + " for a .reg " +
                  (is_ret ? "return value" : "parameter"));
    if (t == Type::pred) return is_ret ? pdst(*o) : psrc(*o);
    return is_ret ? dst(*o, t) : src(*o, t);
  };
  CallSite cs;
  cs.file = &file_;
  cs.line = L;
  cs.mov_name = opcode_id("mov");
  for (std::size_t q = 0; q < args.size(); ++q) {
    const bool r = callee->params[q].is_reg;
    cs.arg_offsets.push_back(r ? 0 : local_of(args[q]));
    cs.arg_regs.push_back(r ? reg_arg(args[q], callee->param_types[q], false) : kNoIndex);
  }
  for (std::size_t q = 0; q < rets.size(); ++q) {
    const bool r = callee->ret_params[q].is_reg;
    cs.ret_offsets.push_back(r ? 0 : local_of(rets[q]));
    cs.ret_regs.push_back(r ? reg_arg(rets[q], callee->ret_types[q], true) : kNoIndex);
  }
  if (deferred) {
    in.op = Op::bra;  // to the copy appended by resolve_calls; it branches back after the call
    in.target = kNoIndex;
    in.name = opcode_id("bra");
    emit(in, {}, {});
    pending_calls_.push_back({fn_->name, callee->name, static_cast<std::uint32_t>(fn_->code.size() - 1), cs});
    return;
  }
  inline_call(*fn_, *callee, cs);
}

bool Parser::has_pending_calls(const std::string& name) const {
  for (const PendingCall& p : pending_calls_)
    if (p.caller == name) return true;
  return false;
}

// The deferred calls, each function's after those of its callees (a cycle is recursion, an
// error): the callee's body (its own calls inlined) is appended to the caller's code, after its
// final exit; the call's branch jumps to it and a branch after its return point jumps back to the
// instruction after the call. The copy carries the call's statement number, and the statement's
// last instruction becomes that branch back (a trace records after the call, as for a call
// inlined in place).
void Parser::resolve_calls() {
  std::vector<std::string> active;
  while (!pending_calls_.empty()) resolve_calls_of(pending_calls_.front().caller, active);
}

void Parser::resolve_calls_of(std::string name, std::vector<std::string>& active) {
  auto find = [&](const std::string& n) -> Function& {
    for (Function& f : mod_.functions)
      if (f.name == n) return f;
    throw PtxError(file_ + ": internal: function " + n + " not found");
  };
  active.push_back(name);
  for (std::size_t k = 0; k < pending_calls_.size();) {
    if (pending_calls_[k].caller != name) {
      ++k;
      continue;
    }
    const PendingCall p = pending_calls_[k];
    pending_calls_.erase(pending_calls_.begin() + static_cast<std::ptrdiff_t>(k));
    const std::string where = file_ + ":" + std::to_string(p.site.line) + ": call of " + p.callee;
    if (std::find(active.begin(), active.end(), p.callee) != active.end())
      throw PtxError(where + ": recursion (the callee calls " + name + " again) is not supported");
    if (has_pending_calls(p.callee)) resolve_calls_of(p.callee, active);
    const Function& callee = find(p.callee);
    if (!callee.has_body) throw PtxError(where + ": it is declared but has no body (external functions are not supported)");
    if (callee.has_local_vars) throw PtxError(where + ", which has .local variables, is not supported");
    Function& fn = find(name);
    const std::uint32_t stmt = fn.code[p.at].stmt;
    const auto first = static_cast<std::uint32_t>(fn.code.size());
    fn.code[p.at].target = first;
    inline_call(fn, callee, p.site);
    Inst back = fn.code[p.at];
    back.target = p.at + 1;
    fn.code.push_back(back);
    for (std::size_t j = first; j < fn.code.size(); ++j) fn.code[j].stmt = stmt;
    if (stmt != 0 && stmt <= fn.statement_last_inst.size() && fn.statement_last_inst[stmt - 1] == p.at)
      fn.statement_last_inst[stmt - 1] = static_cast<std::uint32_t>(fn.code.size() - 1);
    k = 0;  // the list changed
  }
  active.pop_back();
}

}  // namespace rrswin::ptx
