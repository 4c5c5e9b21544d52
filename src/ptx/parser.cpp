// PTX text -> decoded Module (ir.hpp): the module parser. One pass per function: declarations
// fill the register maps (scoped by braces), each instruction is decoded at once (decode.cpp) into
// an Inst whose operands are register indices; labels are resolved when their scope closes;
// reconvergence points are computed at the end (cfg.cpp). Every error names the file and line.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

#include "ptx/cfg.hpp"
#include "ptx/parser.hpp"

namespace rrswin::ptx {

int type_bits(Type t) {
  switch (t) {
    case Type::b8:
    case Type::u8:
    case Type::s8: return 8;
    case Type::b16:
    case Type::u16:
    case Type::s16:
    case Type::f16:
    case Type::bf16:
    case Type::e4m3x2:
    case Type::e5m2x2: return 16;
    case Type::b32:
    case Type::u32:
    case Type::s32:
    case Type::f32:
    case Type::f16x2:
    case Type::bf16x2: return 32;
    case Type::b64:
    case Type::u64:
    case Type::s64:
    case Type::f64: return 64;
    case Type::pred: return 1;
    case Type::none: return 0;
  }
  return 0;
}
bool type_is_signed(Type t) { return t == Type::s8 || t == Type::s16 || t == Type::s32 || t == Type::s64; }
bool type_is_float(Type t) {
  return t == Type::f16 || t == Type::f16x2 || t == Type::f32 || t == Type::f64 || t == Type::bf16 || t == Type::bf16x2;
}
const char* type_name(Type t) {
  static const char* names[] = {"",     ".b8",  ".b16", ".b32",   ".b64", ".u8",  ".u16",  ".u32",    ".u64",    ".s8",   ".s16",
                                ".s32", ".s64", ".f16", ".f16x2", ".f32", ".f64", ".pred", ".e4m3x2", ".e5m2x2", ".bf16", ".bf16x2"};
  return names[static_cast<int>(t)];
}

Type parse_type(std::string_view s) {
  static const std::pair<const char*, Type> table[] = {
      {"b8", Type::b8},        {"b16", Type::b16},   {"b32", Type::b32},       {"b64", Type::b64},       {"u8", Type::u8},
      {"u16", Type::u16},      {"u32", Type::u32},   {"u64", Type::u64},       {"s8", Type::s8},         {"s16", Type::s16},
      {"s32", Type::s32},      {"s64", Type::s64},   {"f16", Type::f16},       {"f16x2", Type::f16x2},   {"f32", Type::f32},
      {"f64", Type::f64},      {"pred", Type::pred}, {"e4m3x2", Type::e4m3x2}, {"e5m2x2", Type::e5m2x2}, {"bf16", Type::bf16},
      {"bf16x2", Type::bf16x2}};
  for (const auto& [n, t] : table)
    if (s == n) return t;
  return Type::none;
}

Type bit_type(int bits) { return bits == 8 ? Type::b8 : bits == 16 ? Type::b16 : bits == 32 ? Type::b32 : Type::b64; }
Type wide_type(Type t) {
  switch (t) {
    case Type::u16: return Type::u32;
    case Type::s16: return Type::s32;
    case Type::u32: return Type::u64;
    case Type::s32: return Type::s64;
    default: return Type::none;
  }
}

Module Parser::run() {
  bool is_extern = false;
  while (cur().kind != Tok::end) {
    const Tok& t = cur();
    if (t.is(".version") || t.is(".target") || t.is(".address_size") || t.is(".file") || t.is(".loc")) {
      skip_line();
      continue;
    }
    if (t.is(".pragma")) {
      skip_past(';');
      continue;
    }
    if (t.is(".section")) {
      skip_section();
      continue;
    }
    if (t.is(".visible") || t.is(".weak") || t.is(".common")) {
      ++i_;
      continue;
    }
    if (t.is(".extern")) {
      is_extern = true;
      ++i_;
      continue;
    }
    if (t.is(".entry") || t.is(".func")) {
      function(is_extern);
      is_extern = false;
      continue;
    }
    if (t.is(".global") || t.is(".shared") || t.is(".const")) {
      variable(is_extern, nullptr);
      is_extern = false;
      continue;
    }
    fail(t, "unexpected '" + std::string(t.text) + "' at module level");
  }
  resolve_calls();
  // Reconvergence points (immediate post-dominators) of every function's branches; each
  // instruction's weight in the work bound (its callees' copies included).
  for (Function& f : mod_.functions) {
    for (Inst& in : f.code) in.work = work_weight(in);
    compute_reconvergence(f);
    if (f.is_entry) compute_zero_init(f);
  }
  return std::move(mod_);
}

const Tok& Parser::next() {
  const Tok& t = toks_[i_];
  if (t.kind != Tok::end) ++i_;
  return t;
}

void Parser::expect(char c) {
  if (!cur().is(c)) fail(cur(), std::string("expected '") + c + "', found '" + std::string(cur().text) + "'");
  ++i_;
}

bool Parser::accept(char c) {
  if (cur().is(c)) {
    ++i_;
    return true;
  }
  return false;
}

void Parser::skip_line() {
  const std::uint32_t l = cur().line;
  while (cur().kind != Tok::end && cur().line == l) ++i_;
}

void Parser::skip_past(char c) {
  while (cur().kind != Tok::end && !cur().is(c)) ++i_;
  expect(c);
}

void Parser::skip_section() {
  while (cur().kind != Tok::end && !cur().is('{')) ++i_;
  int depth = 0;
  do {
    if (cur().kind == Tok::end) fail(cur(), "unterminated .section");
    if (cur().is('{')) ++depth;
    if (cur().is('}')) --depth;
    ++i_;
  } while (depth > 0);
}

std::uint64_t Parser::number(const Tok& t) {
  if (t.kind != Tok::num) fail(t, "expected a number, found '" + std::string(t.text) + "'");
  Literal l = literal(t.text, t.line);
  if (l.is_float) fail(t, "expected an integer");
  return l.i;
}

Literal Parser::literal(std::string_view s, std::uint32_t line) const {
  Literal l;
  std::string str(s);
  auto hexval = [&](std::string_view h, int maxdigits) {
    if (h.empty() || static_cast<int>(h.size()) > maxdigits) fail(line, "malformed literal '" + str + "'");
    std::uint64_t v = 0;
    for (char c : h) {
      if (!std::isxdigit(static_cast<unsigned char>(c))) fail(line, "malformed literal '" + str + "'");
      v = v * 16 + static_cast<std::uint64_t>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (std::tolower(c) - 'a' + 10));
    }
    return v;
  };
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
    l.is_float = true;
    l.bits32 = true;
    l.i = hexval(s.substr(2), 8);
    if (s.size() != 10) fail(line, "0f literal needs 8 hex digits: '" + str + "'");
    return l;
  }
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
    l.is_float = true;
    l.bits64 = true;
    l.i = hexval(s.substr(2), 16);
    if (s.size() != 18) fail(line, "0d literal needs 16 hex digits: '" + str + "'");
    return l;
  }
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    std::string_view h = s.substr(2);
    if (!h.empty() && (h.back() == 'U' || h.back() == 'u')) h.remove_suffix(1);
    l.i = hexval(h, 16);
    return l;
  }
  if (s.find_first_of(".eE") != std::string_view::npos) {
    char* end = nullptr;
    l.f = std::strtod(str.c_str(), &end);
    if (end != str.c_str() + str.size()) fail(line, "malformed literal '" + str + "'");
    l.is_float = true;
    return l;
  }
  std::string_view d = s;
  if (!d.empty() && (d.back() == 'U' || d.back() == 'u')) d.remove_suffix(1);
  const bool octal = d.size() > 1 && d[0] == '0';
  std::uint64_t v = 0;
  for (char c : d) {
    const int base = octal ? 8 : 10;
    if (c < '0' || c - '0' >= base) fail(line, "malformed literal '" + str + "'");
    const std::uint64_t nv = v * base + static_cast<std::uint64_t>(c - '0');
    if (nv / base != v) fail(line, "literal out of range '" + str + "'");
    v = nv;
  }
  l.i = v;
  return l;
}

// A variable declaration's modifiers after the state space: .align, .v2/.v4 and the type.
Type Parser::variable_type(Variable& v, int& vec) {
  Type t = Type::none;
  vec = 1;
  while (cur().kind == Tok::word && cur().text[0] == '.') {
    const Tok& w = next();
    if (w.is(".align")) {
      v.align = static_cast<std::uint32_t>(number(next()));
      continue;
    }
    if (w.is(".v2")) {
      vec = 2;
      continue;
    }
    if (w.is(".v4")) {
      vec = 4;
      continue;
    }
    if (w.is(".texref") || w.is(".surfref") || w.is(".samplerref"))
      fail(w, std::string(w.text) + " variables are not supported (the interpreter binds texture/surface objects by handle)");
    Type tt = parse_type(w.text.substr(1));
    if (tt == Type::none || tt == Type::pred) fail(w, "unknown variable type " + std::string(w.text));
    t = tt;
  }
  return t;
}

// `= value` or `= { ... }` of a .global or .const variable (numbers and variables' addresses).
void Parser::variable_initialiser(Variable& v, Type t, bool unsized, const Tok& name, std::string_view space) {
  std::vector<Literal> vals;
  int depth = 0;
  std::function<void()> elems = [&]() {
    if (accept('{')) {
      if (++depth > static_cast<int>(kMaxDepth)) fail(cur(), "initialiser nested deeper than the limit of " + std::to_string(kMaxDepth));
      if (!cur().is('}')) {
        do elems();
        while (accept(','));
      }
      expect('}');
      --depth;
      return;
    }
    bool neg = accept('-');
    if (!neg && cur().kind == Tok::word) {  // a variable's address: sym, sym+off, generic(sym)
      vals.push_back(symbol_initialiser());
      return;
    }
    const Tok& n = next();
    if (n.kind != Tok::num) fail(n, "expected a number or a variable's name in the initialiser, found '" + std::string(n.text) + "'");
    Literal l = literal(n.text, n.line);
    if (neg) {
      if (l.is_float && !l.bits32 && !l.bits64)
        l.f = -l.f;
      else if (!l.is_float)
        l.i = ~l.i + 1;
      else
        fail(n, "negated hex float");
    }
    vals.push_back(l);
  };
  elems();
  const std::uint32_t esz = static_cast<std::uint32_t>(type_bits(t) / 8);
  if (unsized) v.size = vals.size() * esz;
  if (vals.size() * esz > v.size) fail(name, "more initialisers than elements");
  if (v.space == Space::shared || v.space == Space::local) fail(name, "a " + std::string(space) + " variable cannot be initialised");
  v.init.assign(static_cast<std::size_t>(v.size), 0);  // bounded by space_limit above
  for (std::size_t k = 0; k < vals.size(); ++k) {
    const std::uint64_t bits = literal_bits(vals[k], t, name.line);
    std::memcpy(v.init.data() + k * esz, &bits, esz);
  }
}

// The variable's place in its state space (local: the function's; shared, const, global: the
// module's), then its entry in the module's variables.
void Parser::place_variable(Variable v, bool is_extern, bool unsized, Function* in_fn, const Tok& name, std::uint64_t limit) {
  // The running total of the space, aligned, stays within the same limit.
  auto place = [&](std::uint64_t used, const char* what) {
    const std::uint64_t at = (used + v.align - 1) / v.align * v.align;
    if (at > limit || limit - at < v.size)
      fail(name, std::string("the ") + what + " variables up to " + v.name + " need more than the interpreter's limit of " +
                     std::to_string(limit) + " bytes (docs/ptx.md \"Limits\")");
    return at;
  };
  if (v.space == Space::local) {
    if (!in_fn) fail(name, ".local variable outside a function");
    fn_->has_local_vars = true;
    const std::uint64_t at = place(fn_->local_bytes, ".local");
    fn_->local_bytes = static_cast<std::uint32_t>(at);
    local_vars_[v.name] = fn_->local_bytes;
    fn_->local_bytes += static_cast<std::uint32_t>(v.size);
    return;
  }
  if (v.space == Space::shared) {
    if (unsized || (is_extern && v.size == 0)) {
      mod_.has_extern_shared = true;
      mod_.shared_align = std::max(mod_.shared_align, v.align);
      v.address = kNoIndex;  // placed after the static shared variables at launch
    } else {
      if (mod_.extern_shared_base != kNoIndex) fail(name, "a static .shared variable after the extern .shared array was used");
      mod_.shared_bytes = static_cast<std::uint32_t>(place(mod_.shared_bytes, ".shared"));
      v.address = mod_.shared_bytes;
      mod_.shared_bytes += static_cast<std::uint32_t>(v.size);
    }
  } else if (v.space == Space::constant) {
    mod_.const_bytes = static_cast<std::uint32_t>(place(mod_.const_bytes, ".const"));
    v.address = mod_.const_bytes;
    mod_.const_bytes += static_cast<std::uint32_t>(v.size);
  } else {
    v.address = 0;  // allocation index assigned by the executor (module globals)
    global_bytes_ = place(global_bytes_, ".global") + v.size;
  }
  for (const Variable& o : mod_.variables)
    if (o.name == v.name) fail(name, "variable " + v.name + " declared twice");
  mod_.variables.push_back(std::move(v));
}

void Parser::variable(bool is_extern, Function* in_fn) {
  const Tok& sp = next();
  Variable v;
  v.is_extern = is_extern;
  if (sp.is(".global"))
    v.space = Space::global;
  else if (sp.is(".shared"))
    v.space = Space::shared;
  else if (sp.is(".const"))
    v.space = Space::constant;
  else if (sp.is(".local"))
    v.space = Space::local;
  else
    fail(sp, "unknown state space " + std::string(sp.text));
  int vec = 1;
  const Type t = variable_type(v, vec);
  if (t == Type::none) fail(cur(), "variable without a type");
  const Tok& name = next();
  if (name.kind != Tok::word) fail(name, "expected a variable name");
  v.name = std::string(name.text);
  // The size is a checked product of the dimensions, bounded by the state space's documented
  // limit (docs/ptx.md "Limits") before anything is allocated (issue 18).
  const std::uint64_t limit = space_limit(v.space);
  const std::uint64_t elem = static_cast<std::uint64_t>(type_bits(t) / 8 * vec);
  std::uint64_t count = 1;
  bool unsized = false;
  while (accept('[')) {
    if (accept(']')) {
      unsized = true;
      continue;
    }
    const Tok& nt = next();
    const std::uint64_t n = number(nt);
    if (n != 0 && count > limit / elem / n)
      fail(name, std::string(sp.text) + " variable " + v.name + " is larger than the interpreter's limit of " + std::to_string(limit) +
                     " bytes for " + std::string(sp.text) + " (docs/ptx.md \"Limits\")");
    count *= n;
    expect(']');
  }
  v.size = count * elem;
  if (v.align == 0 || (v.align & (v.align - 1))) fail(name, "alignment must be a power of two");
  if (accept('=')) variable_initialiser(v, t, unsized, name, sp.text);
  expect(';');
  if (v.size > limit)
    fail(name, std::string(sp.text) + " variable " + v.name + " is larger than the interpreter's limit of " + std::to_string(limit) +
                   " bytes (docs/ptx.md \"Limits\")");
  place_variable(std::move(v), is_extern, unsized, in_fn, name, limit);
}

std::uint64_t Parser::space_limit(Space sp) {
  switch (sp) {
    case Space::shared: return kMaxSharedBytes;
    case Space::constant: return kMaxConstBytes;
    case Space::local: return kMaxLocalBytes;
    default: return kMaxGlobalBytes;
  }
}

Literal Parser::symbol_initialiser() {
  const Tok& w = next();
  bool generic = false;
  std::string_view nm = w.text;
  if (w.is("generic")) {
    expect('(');
    const Tok& n = next();
    if (n.kind != Tok::word) fail(n, "expected a variable name in generic(...)");
    nm = n.text;
    expect(')');
    generic = true;
  }
  std::int64_t off = 0;
  while (cur().is('+') || cur().is('-')) {
    const bool neg = next().is('-');
    const std::uint64_t n = number(next());
    if (n > (1ull << 40)) fail(w, "initialiser offset out of range");
    off += neg ? -static_cast<std::int64_t>(n) : static_cast<std::int64_t>(n);
  }
  for (std::size_t k = 0; k < mod_.variables.size(); ++k) {
    const Variable& v = mod_.variables[k];
    if (v.name != nm) continue;
    std::uint64_t a = 0;
    if (v.space == Space::global)
      a = (static_cast<std::uint64_t>(kModuleGlobalFirst + k) + 1) << kGlobalShift;
    else if (v.space == Space::constant)
      a = v.address + (generic ? kConstWindow : 0);
    else if (v.space == Space::shared && v.address != kNoIndex)
      a = v.address + (generic ? kSharedWindow : 0);
    else
      fail(w, "the address of " + v.name + " cannot initialise a variable");
    Literal l;
    l.i = a + static_cast<std::uint64_t>(off);
    return l;
  }
  fail(w, "initialiser names " + std::string(nm) + ", which is not a variable declared before it");
}

std::uint64_t Parser::literal_bits(const Literal& l, Type t, std::uint32_t line) const {
  if (type_is_float(t) || t == Type::f16) {
    double d;
    if (l.bits32) {
      float f;
      std::uint32_t b = static_cast<std::uint32_t>(l.i);
      std::memcpy(&f, &b, 4);
      d = f;
      if (t == Type::f32) return b;
    } else if (l.bits64) {
      std::memcpy(&d, &l.i, 8);
      if (t == Type::f64) return l.i;
    } else if (l.is_float)
      d = l.f;
    else
      return l.i;  // integer bits into a float register (mov.b16 style)
    if (t == Type::f32) {
      float f = static_cast<float>(d);
      std::uint32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    }
    if (t == Type::f64) {
      std::uint64_t b;
      std::memcpy(&b, &d, 8);
      return b;
    }
    fail(line, "floating literal for a " + std::string(type_name(t)) + " operand is not supported");
  }
  if (l.is_float) {
    if (l.bits32 || l.bits64) return l.i;  // PTX allows hex floats as bit patterns of b32/b64
    fail(line, "floating literal for an integer operand");
  }
  return l.i;
}

std::vector<ParamInfo> Parser::param_list(std::uint32_t& bytes, std::vector<Type>& types) {
  std::vector<ParamInfo> ps;
  expect('(');
  if (accept(')')) return ps;
  do {
    const Tok& p = next();
    if (!p.is(".param") && !p.is(".reg")) fail(p, "expected .param or .reg in the parameter list");
    ParamInfo pi;
    pi.is_reg = p.is(".reg");
    Type t = Type::none;
    std::uint32_t vec = 1;  // .param .v2/.v4 .TYPE p: a vector parameter (PTX ISA "Parameter State Space")
    while (cur().kind == Tok::word && cur().text[0] == '.') {
      const Tok& w = next();
      if (w.is(".align")) {
        pi.align = static_cast<std::uint32_t>(number(next()));
        continue;
      }
      if (w.is(".v2") || w.is(".v4")) {
        if (vec != 1) fail(w, "two vector widths in a parameter declaration");
        vec = w.is(".v2") ? 2 : 4;
        continue;
      }
      if (w.is(".ptr") || w.is(".global") || w.is(".shared") || w.is(".const") || w.is(".local")) continue;
      if (w.is(".texref") || w.is(".surfref") || w.is(".samplerref")) {
        t = Type::b64;
        continue;
      }
      Type tt = parse_type(w.text.substr(1));
      if (tt == Type::none) fail(w, "unknown parameter type " + std::string(w.text));
      t = tt;
    }
    const Tok& name = next();
    if (name.kind != Tok::word) fail(name, "expected a parameter name");
    std::uint64_t count = 1;
    while (accept('[')) {  // checked product (issue 18): a wrapping product is not 0 elements
      const std::uint64_t n = number(next());
      if (n == 0 || count > 65536 / n)
        fail(name, "parameter " + std::string(name.text) + " has more than 65536 elements (docs/ptx.md \"Limits\")");
      count *= n;
      expect(']');
    }
    pi.name = std::string(name.text);
    if (pi.is_reg) {
      // A .reg parameter (PTX ISA "Kernel and Function Directives: .func"): a scalar register of
      // the body, passed by value; no bytes of the parameter block.
      if (t == Type::none) fail(name, ".reg parameter " + pi.name + " without a type");
      if (vec != 1) fail(name, ".reg parameter " + pi.name + " of a vector type is not supported (a .param vector is)");
      if (count != 1 || pi.align != 1) fail(name, ".reg parameter " + pi.name + ": arrays and .align are .param forms");
      pi.align = 1;
      types.push_back(t);
      ps.push_back(pi);
      continue;
    }
    if (vec != 1 && (t == Type::none || t == Type::pred || type_bits(t) * vec > 128))
      fail(name, "parameter " + pi.name + ": a vector of at most 128 bits of a fundamental type other than .pred");
    types.push_back(t == Type::none ? Type::b8 : t);
    // A vector is vec elements, aligned to its whole size.
    const std::uint32_t esz = static_cast<std::uint32_t>(std::max(1, type_bits(t) / 8)) * vec;
    pi.size = static_cast<std::uint32_t>(count * esz);
    pi.align = std::max(pi.align, esz);
    if (pi.align == 0 || (pi.align & (pi.align - 1))) fail(name, "alignment must be a power of two");
    bytes = (bytes + pi.align - 1) / pi.align * pi.align;
    pi.offset = bytes;
    bytes += pi.size;
    if (bytes > 65536) fail(name, "parameter block too large");
    ps.push_back(pi);
  } while (accept(','));
  expect(')');
  return ps;
}

void Parser::function(bool is_extern) {
  const Tok& kw = next();
  Function f;
  f.is_entry = kw.is(".entry");
  if (!f.is_entry && cur().is('(')) f.ret_params = param_list(f.ret_bytes, f.ret_types);  // return values
  const Tok& name = next();
  if (name.kind != Tok::word) fail(name, "expected a function name");
  f.name = std::string(name.text);
  if (cur().is('(')) f.params = param_list(f.param_bytes, f.param_types);
  f.param_regs.assign(f.params.size(), kNoIndex);
  f.ret_regs.assign(f.ret_params.size(), kNoIndex);
  if (f.is_entry)
    for (const ParamInfo& pi : f.params)
      if (pi.is_reg) fail(name, "entry " + f.name + ": .reg parameter " + pi.name + " (an .entry's parameters are .param)");
  while (cur().kind == Tok::word && cur().text[0] == '.') {
    // .maxntid, .reqntid, .minnctapersm, .maxnreg, .noreturn, .pragma: performance hints only.
    const Tok& w = next();
    if (w.is(".pragma")) {
      skip_past(';');
      continue;
    }
    while (cur().kind == Tok::num || cur().is(',')) ++i_;
  }
  if (accept(';')) {  // a prototype (or an .extern declaration)
    bool known = false;
    for (const Function& o : mod_.functions) known |= o.name == f.name;
    if (!known) mod_.functions.push_back(std::move(f));
    return;
  }
  if (is_extern) fail(name, ".extern function with a body");
  f.has_body = true;
  // A body after a prototype replaces the prototype, whose parameters and return values it must
  // declare alike: the same kinds (.param or .reg), types, sizes and alignments (names may differ).
  for (std::size_t k = 0; k < mod_.functions.size(); ++k)
    if (mod_.functions[k].name == f.name && !mod_.functions[k].has_body) {
      const Function& proto = mod_.functions[k];
      auto same = [](const std::vector<ParamInfo>& a, const std::vector<Type>& at, const std::vector<ParamInfo>& b,
                     const std::vector<Type>& bt) {
        if (a.size() != b.size() || at != bt) return false;
        for (std::size_t q = 0; q < a.size(); ++q)
          if (a[q].is_reg != b[q].is_reg || a[q].size != b[q].size || a[q].align != b[q].align) return false;
        return true;
      };
      if (!same(proto.params, proto.param_types, f.params, f.param_types) ||
          !same(proto.ret_params, proto.ret_types, f.ret_params, f.ret_types))
        fail(name, "the definition of " + f.name + " does not match its prototype (parameters and return values must be declared alike)");
      mod_.functions.erase(mod_.functions.begin() + static_cast<std::ptrdiff_t>(k));
      break;
    }
  for (const Function& o : mod_.functions)
    if (o.name == f.name) fail(name, "function " + f.name + " defined twice");
  mod_.functions.push_back(std::move(f));
  fn_ = &mod_.functions.back();
  scopes_.clear();
  local_vars_.clear();
  param_locals_.clear();
  const_regs_.clear();
  sink_ = kNoIndex;
  body();
  fn_ = nullptr;
}

void Parser::body() {
  if (!cur().is('{')) fail(cur(), "expected '{' to open the function body");
  fn_->first_line = cur().line;
  ++i_;
  scopes_.emplace_back();
  // A .func's .reg parameters and return values are registers of its outermost scope.
  auto declare_params = [&](const std::vector<ParamInfo>& ps, const std::vector<Type>& ts, std::vector<std::uint32_t>& regs) {
    for (std::size_t q = 0; q < ps.size(); ++q)
      if (ps[q].is_reg) {
        declare(ps[q].name, ts[q], fn_->first_line);
        regs[q] = find_reg(ps[q].name)->index;
      }
  };
  declare_params(fn_->params, fn_->param_types, fn_->param_regs);
  declare_params(fn_->ret_params, fn_->ret_types, fn_->ret_regs);
  std::vector<BodyItem> items;
  std::vector<std::uint32_t> item_last_inst;  // per statement item: index of its last instruction
  while (!cur().is('}')) {
    if (cur().kind == Tok::end) fail(cur(), "unterminated function body");
    const std::uint32_t line = cur().line;
    const std::size_t before = fn_->code.size();
    const BodyItem::Kind k = element();
    items.push_back({k, line});
    if (k == BodyItem::instruction || k == BodyItem::block) {
      const std::uint32_t s = static_cast<std::uint32_t>(fn_->statement_lines.size() + 1);
      for (std::size_t j = before; j < fn_->code.size(); ++j) fn_->code[j].stmt = s;
      fn_->statement_lines.push_back(line);
      fn_->statement_last_inst.push_back(fn_->code.size() > before ? static_cast<std::uint32_t>(fn_->code.size() - 1) : kNoIndex);
    }
  }
  fn_->last_line = cur().line;
  ++i_;
  close_scope();
  // The numbering function is the definition; the parser's own count must agree with it.
  if (number_statements(items) != fn_->statement_lines) fail(fn_->first_line, "internal: statement numbering mismatch");
  // Keep a final exit so that running off the end of the body ends the thread.
  Inst e;
  e.op = Op::exit;
  e.line = fn_->last_line;
  e.name = opcode_id("exit");
  fn_->code.push_back(e);
  fn_->body_end = static_cast<std::uint32_t>(fn_->code.size() - 1);
}

void Parser::close_scope() {
  Scope& s = scopes_.back();
  std::vector<std::tuple<std::uint32_t, std::string, std::uint32_t>> rest;
  for (auto& [inst, label, line] : s.pending) {
    auto it = s.labels.find(label);
    if (it != s.labels.end())
      fn_->code[inst].target = it->second;
    else
      rest.emplace_back(inst, label, line);
  }
  if (scopes_.size() == 1) {
    if (!rest.empty()) fail(std::get<2>(rest.front()), "undefined label " + std::get<1>(rest.front()));
    fn_->reg_by_name.clear();
    for (std::uint32_t k = 0; k < fn_->regs.size(); ++k) fn_->reg_by_name.emplace(fn_->regs[k].name, k);
    scopes_.pop_back();
    return;
  }
  scopes_.pop_back();
  for (auto& p : rest) scopes_.back().pending.push_back(std::move(p));
}

BodyItem::Kind Parser::element() {
  const Tok& t = cur();
  if (t.is('{')) {
    ++i_;
    if (scopes_.size() > kMaxDepth) fail(t, "braced blocks nested deeper than the limit of " + std::to_string(kMaxDepth));
    scopes_.emplace_back();
    while (!cur().is('}')) {
      if (cur().kind == Tok::end) fail(t, "unterminated { block");
      element();
    }
    ++i_;
    close_scope();
    return BodyItem::block;
  }
  if (t.is(".reg")) {
    reg_decl();
    return BodyItem::declaration;
  }
  if (t.is(".local") || t.is(".shared") || t.is(".const") || t.is(".global")) {
    variable(false, fn_);
    return BodyItem::declaration;
  }
  if (t.is(".param")) {
    param_local();
    return BodyItem::declaration;
  }
  if (t.is(".pragma")) {
    skip_past(';');
    return BodyItem::declaration;
  }
  if (t.is(".loc") || t.is(".file")) {
    skip_line();
    return BodyItem::declaration;
  }
  if (t.kind == Tok::word && toks_[i_ + 1].is(':') && t.text[0] != '.' && t.text[0] != '%') {
    Scope& s = scopes_.back();
    if (!s.labels.emplace(std::string(t.text), static_cast<std::uint32_t>(fn_->code.size())).second)
      fail(t, "label " + std::string(t.text) + " defined twice");
    i_ += 2;
    return BodyItem::label;
  }
  instruction();
  return BodyItem::instruction;
}

void Parser::param_local() {
  const Tok& kw = next();
  std::uint32_t align = 1;
  Type t = Type::none;
  while (cur().kind == Tok::word && cur().text[0] == '.') {
    const Tok& w = next();
    if (w.is(".align")) {
      align = static_cast<std::uint32_t>(number(next()));
      continue;
    }
    const Type tt = parse_type(w.text.substr(1));
    if (tt == Type::none || tt == Type::pred) fail(w, "unknown .param type " + std::string(w.text));
    t = tt;
  }
  if (t == Type::none) fail(kw, ".param without a type");
  const Tok& name = next();
  if (name.kind != Tok::word) fail(name, "expected a .param name");
  std::uint64_t count = 1;
  while (accept('[')) {
    const std::uint64_t n = number(next());
    if (n == 0 || count > 65536 / n)
      fail(name, ".param " + std::string(name.text) + " has more than 65536 elements (docs/ptx.md \"Limits\")");
    count *= n;
    expect(']');
  }
  expect(';');
  const std::uint32_t size = static_cast<std::uint32_t>(count * static_cast<std::uint64_t>(type_bits(t) / 8));
  align = std::max<std::uint32_t>(align, static_cast<std::uint32_t>(type_bits(t) / 8));
  if (align == 0 || (align & (align - 1))) fail(name, "alignment must be a power of two");
  fn_->local_bytes = (fn_->local_bytes + align - 1) / align * align;
  local_vars_[std::string(name.text)] = fn_->local_bytes;
  param_locals_[std::string(name.text)] = size;
  fn_->local_bytes += size;
  if (fn_->local_bytes > kMaxLocalBytes)
    fail(name, "local memory of " + fn_->name + " exceeds the interpreter's limit of " + std::to_string(kMaxLocalBytes) +
                   " bytes (docs/ptx.md \"Limits\")");
}

// .reg {.v2|.v4} .TYPE names; vectors (PTX ISA "Vectors"): .v2/.v4 of a fundamental type other
// than .pred, at most 128 bits in all (so no .v4 of 64-bit types).
void Parser::reg_decl() {
  const Tok& kw = next();
  Type t = Type::none;
  int vec = 1;
  while (cur().kind == Tok::word && cur().text[0] == '.') {
    const Tok& w = next();
    if (w.is(".v2") || w.is(".v4")) {
      if (vec != 1 || t != Type::none) fail(w, "expected one .v2 or .v4 before the register type");
      vec = w.is(".v2") ? 2 : 4;
      continue;
    }
    Type tt = parse_type(w.text.substr(1));
    if (tt == Type::none || tt == Type::e4m3x2 || tt == Type::e5m2x2) fail(w, "unknown register type " + std::string(w.text));
    t = tt;
  }
  if (t == Type::none) fail(kw, ".reg without a type");
  if (vec > 1 && t == Type::pred) fail(kw, "a vector of predicates is not a PTX type (.v2/.v4 take a fundamental type other than .pred)");
  if (vec * type_bits(t) > 128) fail(kw, ".v" + std::to_string(vec) + " ." + type_name(t) + " exceeds the 128 bits a PTX vector may hold");
  do {
    const Tok& n = next();
    if (n.kind != Tok::word || n.text[0] == '.') fail(n, "expected a register name");
    if (n.text.find('.') != std::string_view::npos) fail(n, "a register name may not contain '.'");
    if (accept('<')) {
      const std::uint64_t count = number(next());
      expect('>');
      const std::uint64_t have = t == Type::pred ? fn_->npreds : fn_->nregs;
      if (count > kMaxRegisters || have + count * static_cast<std::uint64_t>(vec) > kMaxRegisters)
        too_many_registers(n.line, std::string(n.text) + "<" + std::to_string(count) + ">");
      for (std::uint64_t k = 0; k < count; ++k) declare_vector(std::string(n.text) + std::to_string(k), t, vec, n.line);
    } else {
      declare_vector(std::string(n.text), t, vec, n.line);
    }
  } while (accept(','));
  expect(';');
}

// A scalar register (vec 1) or a vector of `vec` components name.x, .y, .z, .w.
void Parser::declare_vector(std::string name, Type t, int vec, std::uint32_t line) {
  if (vec == 1) return declare(std::move(name), t, line);
  static constexpr const char* kComponents[] = {".x", ".y", ".z", ".w"};
  VectorReg v;
  v.count = static_cast<std::uint8_t>(vec);
  for (int k = 0; k < vec; ++k) {
    v.components[static_cast<std::size_t>(k)] = name + kComponents[k];
    declare(v.components[static_cast<std::size_t>(k)], t, line);
  }
  if (scopes_.back().regs.count(name) || !scopes_.back().vectors.emplace(name, std::move(v)).second)
    fail(line, "register " + name + " declared twice");
}

void Parser::too_many_registers(std::uint32_t line, const std::string& what) const {
  fail(line, "too many registers at " + what + ": a function may have at most " + std::to_string(kMaxRegisters) +
                 " register slots and as many predicates (the interpreter's limit, docs/ptx.md \"Limits\")");
}

void Parser::declare(std::string name, Type t, std::uint32_t line) {
  RegInfo r;
  r.name = name;
  r.type = t;
  if (t == Type::pred)
    r.index = fn_->npreds++;
  else
    r.index = fn_->nregs++;
  if (fn_->nregs > kMaxRegisters || fn_->npreds > kMaxRegisters) too_many_registers(line, name);
  if (scopes_.back().vectors.count(name) || !scopes_.back().regs.emplace(name, r).second)
    fail(line, "register " + name + " declared twice");
  fn_->regs.push_back(r);
}

const RegInfo* Parser::find_reg(std::string_view name) const {
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    auto it = s->regs.find(name);
    if (it != s->regs.end()) return &it->second;
  }
  // A vector's components also answer to the colour names .r .g .b .a (PTX ISA "Vectors").
  if (name.size() > 2 && name[name.size() - 2] == '.') {
    static constexpr char kColour[] = "rgba", kXyzw[] = "xyzw";
    for (int k = 0; k < 4; ++k)
      if (name.back() == kColour[k]) return find_reg(std::string(name.substr(0, name.size() - 1)) + kXyzw[k]);
  }
  return nullptr;
}

// Asked for every word operand: the vector maps first (empty in most kernels, so this costs
// nothing there); the register maps only when a vector of that name exists.
const Parser::VectorReg* Parser::find_vector(std::string_view name) const {
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    auto it = s->vectors.find(name);
    if (it == s->vectors.end()) continue;
    for (auto inner = scopes_.rbegin(); inner != s; ++inner)
      if (inner->regs.find(name) != inner->regs.end()) return nullptr;  // a scalar of an inner scope hides it
    return &it->second;
  }
  return nullptr;
}

// The operand after its '[': [name], [name+off], [off], and tex's [name, {coordinates}].
ROp Parser::address_operand(ROp o, int depth) {
  o.kind = ROp::addr;
  // WARP_SZ, the predefined constant 32, may stand for a number anywhere in the address: as the
  // address itself ([WARP_SZ]) or as an offset ([%r1+WARP_SZ], [buf-WARP_SZ]).
  if (cur().kind == Tok::word && cur().text == "WARP_SZ") {
    next();
    o.off = 32;
  } else if (cur().kind == Tok::word) {
    o.name = next().text;
    o.has_base = true;
  }
  while (cur().is('+') || cur().is('-')) {
    bool neg = next().is('-');
    if (accept('-')) neg = !neg;
    const Tok& n = next();
    const bool warp_sz = n.kind == Tok::word && n.text == "WARP_SZ";
    if (n.kind != Tok::num && !warp_sz) fail(n, "expected an offset in the address");
    const std::uint64_t v = warp_sz ? 32 : number(n);
    if (v > (1ull << 40)) fail(n, "address offset out of range");
    o.off += neg ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
  }
  if (!o.has_base && cur().kind == Tok::num) {
    o.off = static_cast<std::int64_t>(number(next()));
  }
  if (accept(',')) {
    o.has_vec = true;
    o.elems.push_back(operand(depth + 1));
  }
  expect(']');
  return o;
}

ROp Parser::whole_vector_operand(ROp o, const Tok& t, const VectorReg& vr) {
  // A whole vector register: the list of its components, as if written {%v.x, %v.y, ...}.
  if (o.neg) fail(t, "'!' or '-' on the vector register " + std::string(t.text));
  o.kind = ROp::vec;
  o.name = t.text;
  o.whole_vector = true;
  for (int k = 0; k < vr.count; ++k) {
    ROp e;
    e.kind = ROp::reg;
    e.line = o.line;
    e.name = vr.components[static_cast<std::size_t>(k)];
    o.elems.push_back(e);
  }
  return o;
}

ROp Parser::operand(int depth) {
  ROp o;
  o.line = cur().line;
  if (depth > 4) fail(cur(), "operand nested deeper than the limit of 4");
  if (accept('{')) {
    o.kind = ROp::vec;
    do o.elems.push_back(operand(depth + 1));
    while (accept(','));
    expect('}');
    return o;
  }
  if (accept('(')) {
    o.kind = ROp::paren;
    if (!cur().is(')')) {
      do o.elems.push_back(operand(depth + 1));
      while (accept(','));
    }
    expect(')');
    return o;
  }
  if (accept('[')) return address_operand(o, depth);
  if (cur().is('!')) {
    ++i_;
    o.neg = true;
  }
  if (cur().is('-')) {
    ++i_;
    if (cur().kind != Tok::num) fail(cur(), "expected a number after '-'");
    o.neg = true;
  }
  const Tok& t = next();
  if (t.kind == Tok::num) {
    o.kind = ROp::imm;
    o.name = t.text;
    return o;
  }
  if (t.kind != Tok::word) fail(t, "expected an operand, found '" + std::string(t.text) + "'");
  if (t.text == "_") {
    o.kind = ROp::sink;
    return o;
  }
  if (const VectorReg* v = find_vector(t.text)) return whole_vector_operand(o, t, *v);
  o.kind = ROp::reg;
  o.name = t.text;
  if (cur().is('+') && toks_[i_ + 1].kind == Tok::num) {  // symbol+offset
    ++i_;
    o.off = static_cast<std::int64_t>(number(next()));
  }
  if (accept('|')) {
    ROp second = operand(depth + 1);
    ROp p;
    p.kind = ROp::pair;
    p.line = o.line;
    p.elems.push_back(o);
    p.elems.push_back(second);
    return p;
  }
  return o;
}

std::uint32_t Parser::constant(std::uint64_t v) {
  auto it = const_regs_.find(v);
  if (it != const_regs_.end()) return it->second;
  const std::uint32_t idx = fn_->nregs++;
  if (fn_->nregs > kMaxRegisters) too_many_registers(cur().line, "a literal operand");
  fn_->constants.emplace_back(idx, v);
  const_regs_.emplace(v, idx);
  return idx;
}

std::uint32_t Parser::special(std::string_view n) {
  static const std::pair<const char*, std::uint32_t> table[] = {{"%tid.x", kTidX},
                                                                {"%tid.y", kTidY},
                                                                {"%tid.z", kTidZ},
                                                                {"%ntid.x", kNtidX},
                                                                {"%ntid.y", kNtidY},
                                                                {"%ntid.z", kNtidZ},
                                                                {"%ctaid.x", kCtaidX},
                                                                {"%ctaid.y", kCtaidY},
                                                                {"%ctaid.z", kCtaidZ},
                                                                {"%nctaid.x", kNctaidX},
                                                                {"%nctaid.y", kNctaidY},
                                                                {"%nctaid.z", kNctaidZ},
                                                                {"%laneid", kLaneid},
                                                                {"%warpid", kWarpid},
                                                                {"%nwarpid", kNwarpid},
                                                                {"%lanemask_eq", kLanemaskEq},
                                                                {"%lanemask_lt", kLanemaskLt},
                                                                {"%lanemask_le", kLanemaskLe},
                                                                {"%lanemask_gt", kLanemaskGt},
                                                                {"%lanemask_ge", kLanemaskGe},
                                                                {"%smid", kSmid},
                                                                {"%nsmid", kNsmid},
                                                                {"%clock", kClock},
                                                                {"%clock64", kClock}};
  for (const auto& [name, idx] : table)
    if (n == name) return idx;
  return kNoIndex;
}

bool Parser::symbol_address(std::string_view name, std::uint64_t& addr, Space* space) {
  for (const ParamInfo& p : fn_->params)
    if (p.name == name && !p.is_reg) {
      addr = kParamWindow + p.offset;
      if (space) *space = Space::param;
      return true;
    }
  for (const ParamInfo& p : fn_->ret_params)
    if (p.name == name && !p.is_reg) {
      addr = kRetWindow + p.offset;
      if (space) *space = Space::param;
      return true;
    }
  if (auto it = local_vars_.find(name); it != local_vars_.end()) {
    addr = it->second;
    if (space) *space = Space::local;
    return true;
  }
  for (std::size_t k = 0; k < mod_.variables.size(); ++k) {
    const Variable& v = mod_.variables[k];
    if (v.name != name) continue;
    if (space) *space = v.space;
    if (v.space == Space::shared) {
      if (fn_) fn_->shared_used = std::max<std::uint64_t>(fn_->shared_used, (v.address == kNoIndex ? 0 : v.address) + v.size);
      if (v.address == kNoIndex) {
        // The extern (dynamic) .shared array sits after every static one; fixed at first use.
        if (mod_.extern_shared_base == kNoIndex)
          mod_.extern_shared_base = (mod_.shared_bytes + mod_.shared_align - 1) / mod_.shared_align * mod_.shared_align;
        addr = mod_.extern_shared_base;
      } else {
        addr = v.address;
      }
      return true;
    }
    if (v.space == Space::constant) {
      addr = v.address;
      return true;
    }
    addr = (static_cast<std::uint64_t>(kModuleGlobalFirst + k) + 1) << kGlobalShift;
    return true;
  }
  return false;
}

bool Parser::operand_fits(Type t, Type r, bool relaxed) {
  if (t == Type::none) return true;
  if (t == Type::pred || r == Type::pred) return t == r;
  auto kind = [](Type x) {  // 0 bit-size, 1 integer, 2 floating
    if (type_is_float(x)) return 2;
    if (x == Type::b8 || x == Type::b16 || x == Type::b32 || x == Type::b64 || x == Type::e4m3x2 || x == Type::e5m2x2) return 0;
    return 1;
  };
  const int kt = kind(t), kr = kind(r), tb = type_bits(t), rb = type_bits(r);
  if ((kt == 1 && kr == 2) || (kt == 2 && kr == 1)) return false;
  if (!relaxed || (kt == 2 && kr == 2)) return tb == rb;
  return rb >= tb;
}

void Parser::check_fits(const ROp& o, const RegInfo& r, Type t, bool is_dst) const {
  if (operand_fits(t, r.type, relaxed_)) return;
  fail(o.line, std::string(is_dst ? "destination " : "operand ") + std::string(o.name) + " is declared " + type_name(r.type) +
                   ", which a " + type_name(t) + " operand cannot be (PTX ISA 9.4, 9.4.1: operand type and size rules)");
}

std::uint32_t Parser::src(const ROp& o, Type t) {
  if (o.kind == ROp::imm) {
    Literal l = literal(o.name, o.line);
    if (o.neg) {
      if (l.bits32 || l.bits64) fail(o.line, "negated hex float literal");
      if (l.is_float)
        l.f = -l.f;
      else
        l.i = ~l.i + 1;
    }
    return constant(literal_bits(l, t, o.line));
  }
  if (o.whole_vector) not_a_vector_operand(o);
  if (o.kind != ROp::reg) fail(o.line, "expected a register or literal operand");
  if (o.neg) fail(o.line, "'!' on a data operand");
  if (const RegInfo* r = find_reg(o.name)) {
    if (r->type == Type::pred) fail(o.line, "predicate " + std::string(o.name) + " used as a data operand");
    if (o.off) fail(o.line, "register+offset outside an address");
    check_fits(o, *r, t, false);
    return r->index;
  }
  if (o.name == "WARP_SZ") {
    // The predefined constant WARP_SZ (PTX ISA 5.4.1 / "Special Registers" %laneid: the number
    // of threads in a warp), 32, an integer immediate wherever a literal integer is accepted.
    if (o.off) fail(o.line, "WARP_SZ+offset outside an address");
    if (type_is_float(t) || t == Type::pred)
      fail(o.line, "WARP_SZ (an integer constant, 32) as a " + std::string(type_name(t)) + " operand");
    return constant(32);
  }
  if (std::uint32_t s = special(o.name); s != kNoIndex) return s;
  std::uint64_t a;
  if (symbol_address(o.name, a)) {
    return constant(a + static_cast<std::uint64_t>(o.off));
  }
  fail(o.line, "undeclared register or symbol " + std::string(o.name));
}

void Parser::not_a_vector_operand(const ROp& o) const {
  fail(o.line, "the vector register " + std::string(o.name) +
                   " where a scalar operand is expected (whole vectors are operands of ld, ldu, st, mov.v2/.v4 and tex; "
                   "a component is " +
                   std::string(o.name) + ".x, .y, .z, .w)");
}

std::uint32_t Parser::dst(const ROp& o, Type t) {
  if (o.kind == ROp::sink) {
    if (sink_ == kNoIndex) sink_ = fn_->nregs++;
    return sink_;
  }
  if (o.whole_vector) not_a_vector_operand(o);
  if (o.kind != ROp::reg || o.neg) fail(o.line, "expected a destination register");
  const RegInfo* r = find_reg(o.name);
  if (!r) fail(o.line, "undeclared register " + std::string(o.name));
  if (r->type == Type::pred) fail(o.line, "predicate " + std::string(o.name) + " as a data destination");
  check_fits(o, *r, t, true);
  return r->index;
}

std::uint8_t Parser::dst_bits(const ROp& o) {
  if (o.kind != ROp::reg) return 64;
  const RegInfo* r = find_reg(o.name);
  return static_cast<std::uint8_t>(r ? type_bits(r->type) : 64);
}

const RegInfo& Parser::reg_info(const ROp& o) {
  const RegInfo* r = find_reg(o.name);
  if (!r) fail(o.line, "undeclared register " + std::string(o.name));
  return *r;
}

std::uint32_t Parser::psrc(const ROp& o) {
  if (o.kind == ROp::imm) {
    // A literal predicate (mov.pred %p, 0): one constant predicate register for each value.
    const bool v = literal(o.name, o.line).i != 0;
    std::uint32_t& idx = v ? fn_->pred_true : fn_->pred_false;
    if (idx == kNoIndex) idx = fn_->npreds++;
    return idx;
  }
  if (o.whole_vector) not_a_vector_operand(o);
  if (o.kind != ROp::reg) fail(o.line, "expected a predicate operand");
  const RegInfo* r = find_reg(o.name);
  if (!r || r->type != Type::pred) fail(o.line, "expected a predicate register, found " + std::string(o.name));
  return r->index | (o.neg ? kPredNeg : 0);
}

std::uint32_t Parser::pdst(const ROp& o) {
  if (o.kind == ROp::sink) fail(o.line, "'_' as a predicate destination is not supported");
  if (o.neg) fail(o.line, "'!' on a destination");
  return psrc(o);
}

bool Parser::is_pred(const ROp& o) {
  if (o.kind != ROp::reg) return false;
  const RegInfo* r = find_reg(o.name);
  return r && r->type == Type::pred;
}

std::uint16_t Parser::opcode_id(std::string_view s) {
  for (std::size_t k = 0; k < mod_.opcode_names.size(); ++k)
    if (mod_.opcode_names[k] == s) return static_cast<std::uint16_t>(k);
  mod_.opcode_names.emplace_back(s);
  if (mod_.opcode_names.size() > 60000) fail(cur(), "too many distinct opcodes");
  return static_cast<std::uint16_t>(mod_.opcode_names.size() - 1);
}

std::shared_ptr<const Module> parse_module(std::string_view text, std::string filename) {
  Parser p(text, std::move(filename));
  return std::make_shared<const Module>(p.run());
}

std::shared_ptr<const Module> load_module(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw PtxError(path + ": cannot open");
  std::ostringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  if (text.find('\0') != std::string::npos) throw PtxError(path + ": not a text file (contains NUL bytes)");
  return parse_module(text, path);
}

}  // namespace rrswin::ptx