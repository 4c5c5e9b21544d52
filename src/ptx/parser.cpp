// PTX text -> decoded Module (ir.hpp). One pass per function: declarations fill the register maps
// (scoped by braces), each instruction is decoded at once into an Inst whose operands are register
// indices; labels are resolved when their scope closes; reconvergence points are computed at the
// end (cfg.cpp). Every error names the file and line.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

#include "ptx/cfg.hpp"
#include "ptx/ir.hpp"

namespace enc5::ptx {

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

namespace {

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
// The double-width type of mul.wide / mad.wide (PTX ISA 9.7.1.3).
Type wide_type(Type t) {
  switch (t) {
    case Type::u16: return Type::u32;
    case Type::s16: return Type::s32;
    case Type::u32: return Type::u64;
    case Type::s32: return Type::s64;
    default: return Type::none;
  }
}

// ---------------------------------------------------------------------------------------------
// Lexer

struct Tok {
  enum Kind { word, num, str, punct, end } kind = end;
  std::string_view text;
  std::uint32_t line = 0;
  bool is(char c) const { return kind == punct && text.size() == 1 && text[0] == c; }
  bool is(std::string_view w) const { return kind == word && text == w; }
};

bool word_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.'; }
bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; }

std::vector<Tok> lex(std::string_view s, const std::string& file) {
  std::vector<Tok> out;
  std::uint32_t line = 1;
  std::size_t i = 0;
  auto fail = [&](const std::string& m) { throw PtxError(file + ":" + std::to_string(line) + ": " + m); };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const std::uint32_t start = line;
      i += 2;
      while (i + 1 < s.size() && !(s[i] == '*' && s[i + 1] == '/')) {
        if (s[i] == '\n') ++line;
        ++i;
      }
      if (i + 1 >= s.size()) {
        line = start;
        fail("unterminated /* comment");
      }
      i += 2;
      continue;
    }
    Tok t;
    t.line = line;
    const std::size_t b = i;
    if (c == '"') {
      ++i;
      while (i < s.size() && s[i] != '"' && s[i] != '\n') ++i;
      if (i >= s.size() || s[i] != '"') fail("unterminated string");
      ++i;
      t.kind = Tok::str;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      const bool hexlike = c == '0' && i + 1 < s.size() && std::strchr("xXfFdD", s[i + 1]) != nullptr;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == '_' ||
                              (!hexlike && (s[i] == '+' || s[i] == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E'))))
        ++i;
      t.kind = Tok::num;
    } else if (word_start(c)) {
      ++i;
      while (i < s.size()) {
        if (word_char(s[i])) {
          ++i;
          continue;
        }
        if (s[i] == ':' && i + 2 < s.size() && s[i + 1] == ':' && word_char(s[i + 2])) {
          i += 2;
          continue;
        }
        break;
      }
      t.kind = Tok::word;
    } else if (std::strchr(",;:{}[]()+-@!|<>=", c)) {
      ++i;
      t.kind = Tok::punct;
    } else {
      fail(std::string("unexpected character '") + c + "'");
    }
    t.text = s.substr(b, i - b);
    out.push_back(t);
  }
  Tok e;
  e.kind = Tok::end;
  e.line = line;
  out.push_back(e);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Raw operands (before decoding)

struct ROp {
  enum Kind { reg, imm, vec, addr, pair, paren, sink } kind = reg;
  std::string_view name;   // register/symbol name, or the literal's text
  bool neg = false;        // !%p, or a '-' before a literal
  std::int64_t off = 0;    // addr / symbol offset
  bool has_base = false;   // addr: a register or symbol before the offset
  std::vector<ROp> elems;  // vec / paren / pair, or addr's coordinate vector
  bool has_vec = false;    // addr with {x, y} (tex, sust)
  std::uint32_t line = 0;
};

struct Literal {
  bool is_float = false;                // value is a double in f; else an integer in i
  bool bits32 = false, bits64 = false;  // 0f / 0d literals carry exact bits
  std::uint64_t i = 0;
  double f = 0;
};

// ---------------------------------------------------------------------------------------------

struct Mods {
  std::string_view base;
  std::vector<Type> types;
  Rnd rnd = Rnd::none;
  bool ftz = false, sat = false, approx = false, full = false, satfinite = false, relu = false, uni = false, aligned = false, sync = false,
       wide = false, lo = false, hi = false, cc = false, to = false, shiftamt = false, trans = false;
  int vec = 1;
  Space space = Space::generic;
  bool space_set = false;
  std::vector<std::string_view> words;  // every other modifier, checked by the decoders
  std::vector<std::string_view> all;    // every modifier that is not a type, in order (check_modifiers)
  bool has(std::string_view w) const { return std::find(words.begin(), words.end(), w) != words.end(); }
};

Mods split_opcode(std::string_view op) {
  Mods m;
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
    if (w == "rn")
      m.rnd = Rnd::rn;
    else if (w == "rz")
      m.rnd = Rnd::rz;
    else if (w == "rm")
      m.rnd = Rnd::rm;
    else if (w == "rp")
      m.rnd = Rnd::rp;
    else if (w == "rni")
      m.rnd = Rnd::rni;
    else if (w == "rzi")
      m.rnd = Rnd::rzi;
    else if (w == "rmi")
      m.rnd = Rnd::rmi;
    else if (w == "rpi")
      m.rnd = Rnd::rpi;
    else if (w == "ftz")
      m.ftz = true;
    else if (w == "sat")
      m.sat = true;
    else if (w == "approx")
      m.approx = true;
    else if (w == "full")
      m.full = true;
    else if (w == "satfinite")
      m.satfinite = true;
    else if (w == "relu")
      m.relu = true;
    else if (w == "uni")
      m.uni = true;
    else if (w == "aligned")
      m.aligned = true;
    else if (w == "sync")
      m.sync = true;
    else if (w == "wide")
      m.wide = true;
    else if (w == "lo")
      m.lo = true;
    else if (w == "hi")
      m.hi = true;
    else if (w == "cc")
      m.cc = true;
    else if (w == "to")
      m.to = true;
    else if (w == "shiftamt")
      m.shiftamt = true;
    else if (w == "trans")
      m.trans = true;
    else if (w == "v2")
      m.vec = 2;
    else if (w == "v4")
      m.vec = 4;
    else if (w == "v8")
      m.vec = 8;
    else if (w == "global") {
      m.space = Space::global;
      m.space_set = true;
    } else if (w == "shared" || w == "shared::cta") {
      m.space = Space::shared;
      m.space_set = true;
    } else if (w == "local") {
      m.space = Space::local;
      m.space_set = true;
    } else if (w == "param" || w == "param::entry" || w == "param::func") {
      m.space = Space::param;
      m.space_set = true;
    } else if (w == "const") {
      m.space = Space::constant;
      m.space_set = true;
    } else
      m.words.push_back(w);
  }
  return m;
}

bool is_cache_word(std::string_view w) {
  static const char* ok[] = {"weak", "relaxed", "acquire", "release", "volatile", "ca",  "cg",  "cs",  "lu",
                             "cv",   "nc",      "wb",      "wt",      "cta",      "gpu", "sys", "mmio"};
  for (const char* o : ok)
    if (w == o) return true;
  return w.substr(0, 4) == "L1::" || w.substr(0, 4) == "L2::";
}

// The instruction set, one row per opcode family: the modifiers (every dotted word that is not a
// type) the interpreter reads for it. A modifier outside its row is an error before decoding, so
// that no modifier is ever silently ignored (issue 20: `fma.rn.relu.f16`, `slct.ftz`, `add.cc.f32`
// used to decode with the modifier dropped). The decode arms then check the combinations; the
// types are checked there and by the operand rules (operand_fits).
struct Family {
  const char* name;
  const char* modifiers;  // space-separated; "*" = any (no-op instructions)
};
constexpr const char* kSpaces = "global shared shared::cta local param param::entry param::func const ";
const Family kFamilies[] = {
    {"mov", ""},
    {"add", "sat cc ftz rn rz rm rp"},
    {"sub", "sat cc ftz rn rz rm rp"},
    {"addc", "cc"},
    {"subc", "cc"},
    {"mul", "lo hi wide sat ftz rn rz rm rp"},
    {"mad", "lo hi wide sat cc ftz rn rz rm rp"},
    {"madc", "lo hi cc"},
    {"mul24", "lo hi"},
    {"mad24", "lo hi sat"},
    {"fma", "sat ftz relu rn rz rm rp"},
    {"div", "approx full ftz rn rz rm rp"},
    {"rem", ""},
    {"min", "ftz NaN xorsign abs relu"},
    {"max", "ftz NaN xorsign abs relu"},
    {"abs", "ftz"},
    {"neg", "ftz"},
    {"and", ""},
    {"or", ""},
    {"xor", ""},
    {"not", ""},
    {"cnot", ""},
    {"shl", ""},
    {"shr", ""},
    {"copysign", ""},
    {"popc", ""},
    {"clz", ""},
    {"brev", ""},
    {"bfind", "shiftamt"},
    {"sqrt", "approx ftz rn rz rm rp"},
    {"rcp", "approx ftz rn rz rm rp"},
    {"rsqrt", "approx ftz"},
    {"ex2", "approx ftz"},
    {"lg2", "approx ftz"},
    {"sin", "approx ftz"},
    {"cos", "approx ftz"},
    {"tanh", "approx"},
    {"testp", "finite infinite number notanumber normal subnormal"},
    {"lop3", ""},
    {"prmt", "f4e b4e rc8 ecl ecr rc16"},
    {"bfe", ""},
    {"bfi", ""},
    {"sad", ""},
    {"setp", "eq ne lt le gt ge lo ls hi hs equ neu ltu leu gtu geu num nan and or xor ftz"},
    {"set", "eq ne lt le gt ge lo ls hi hs equ neu ltu leu gtu geu num nan and or xor ftz"},
    {"selp", ""},
    {"slct", "ftz"},
    {"cvt", "rn rz rm rp rni rzi rmi rpi ftz sat satfinite relu pack u4 s4 u2 s2"},
    {"shf", "l r clamp wrap"},
    {"bmsk", "clamp wrap"},
    {"szext", "clamp wrap"},
    {"dp4a", ""},
    {"dp2a", "lo hi"},
    {"match", "sync any all"},
    {"atom", "global shared shared::cta relaxed acquire release acq_rel cta gpu sys add min max inc dec and or xor exch cas"},
    {"red", "global shared shared::cta relaxed release cta gpu sys add min max inc dec and or xor"},
    {"redux", "sync add min max and or xor"},
    {"cvta", "to global shared shared::cta local param param::entry const"},
    {"ld", "*ld"},
    {"ldu", "*ld"},
    {"st", "*ld"},
    {"tex", "base 2d v4"},
    {"sust", "b p 2d v4 zero"},
    {"mma", "sync aligned m16n8k32 row col e4m3"},
    {"movmatrix", "sync aligned m8n8 trans"},
    {"ldmatrix", "sync aligned m8n8 x1 x2 x4 trans shared shared::cta"},
    {"stmatrix", "sync aligned m8n8 x1 x2 x4 trans shared shared::cta"},
    {"shfl", "sync up down bfly idx"},
    {"vote", "sync all any uni ballot"},
    {"activemask", ""},
    {"bar", "sync arrive cta aligned warp red popc and or"},
    {"barrier", "sync arrive cta aligned red popc and or"},
    {"membar", "*"},
    {"fence", "*"},  // ordering is implied (docs/ptx.md "Execution")
    {"bra", "uni"},
    {"ret", "uni"},
    {"exit", ""},
    {"trap", ""},
    {"call", "uni"},
    {"nanosleep", ""},
    {"pmevent", "mask"},
    {"prefetch", "*"},
    {"prefetchu", "*"},
    {"createpolicy", "*"},  // cache hints: no-ops (docs/ptx.md)
    {"cp", "async ca cg shared shared::cta global L2::cache_hint L2::64B L2::128B L2::256B commit_group wait_group wait_all"},
};

const Family* find_family(std::string_view base) {
  for (const Family& f : kFamilies)
    if (base == f.name) return &f;
  return nullptr;
}

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
bool ld_modifier(std::string_view w) { return in_list(kSpaces, w) || w == "v2" || w == "v4" || is_cache_word(w); }

class Parser {
 public:
  static constexpr std::size_t kMaxDepth = 64;  // braces: hostile nesting ends in an error, not a stack overflow
  Parser(std::string_view text, std::string file) : file_(std::move(file)), toks_(lex(text, file_)) { mod_.filename = file_; }

  Module run() {
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
    // Reconvergence points (immediate post-dominators) of every function's branches.
    for (Function& f : mod_.functions) {
      compute_reconvergence(f);
      if (f.is_entry) compute_zero_init(f);
    }
    return std::move(mod_);
  }

 private:
  std::string file_;
  std::vector<Tok> toks_;
  std::size_t i_ = 0;
  Module mod_;

  // Per-function state
  Function* fn_ = nullptr;
  struct Scope {
    std::map<std::string, RegInfo, std::less<>> regs;
    std::map<std::string, std::uint32_t, std::less<>> labels;
    std::vector<std::tuple<std::uint32_t, std::string, std::uint32_t>> pending;  // inst, label, line
  };
  std::vector<Scope> scopes_;
  std::map<std::string, std::uint32_t, std::less<>> local_vars_;    // name -> local offset
  std::map<std::string, std::uint32_t, std::less<>> param_locals_;  // body .param variables -> size
  std::map<std::uint64_t, std::uint32_t> const_regs_;
  std::uint32_t sink_ = kNoIndex;
  bool relaxed_ = false;            // the instruction being decoded is ld/st/cvt (operand_fits)
  std::uint64_t global_bytes_ = 0;  // the module's .global variables so far (kMaxGlobalBytes)

  [[noreturn]] void fail(std::uint32_t line, const std::string& m) const { throw PtxError(file_ + ":" + std::to_string(line) + ": " + m); }
  [[noreturn]] void fail(const Tok& t, const std::string& m) const { fail(t.line, m); }
  const Tok& cur() const { return toks_[i_]; }
  const Tok& next() {
    const Tok& t = toks_[i_];
    if (t.kind != Tok::end) ++i_;
    return t;
  }
  void expect(char c) {
    if (!cur().is(c)) fail(cur(), std::string("expected '") + c + "', found '" + std::string(cur().text) + "'");
    ++i_;
  }
  bool accept(char c) {
    if (cur().is(c)) {
      ++i_;
      return true;
    }
    return false;
  }
  void skip_line() {
    const std::uint32_t l = cur().line;
    while (cur().kind != Tok::end && cur().line == l) ++i_;
  }
  void skip_past(char c) {
    while (cur().kind != Tok::end && !cur().is(c)) ++i_;
    expect(c);
  }
  void skip_section() {
    while (cur().kind != Tok::end && !cur().is('{')) ++i_;
    int depth = 0;
    do {
      if (cur().kind == Tok::end) fail(cur(), "unterminated .section");
      if (cur().is('{')) ++depth;
      if (cur().is('}')) --depth;
      ++i_;
    } while (depth > 0);
  }
  std::uint64_t number(const Tok& t) {
    if (t.kind != Tok::num) fail(t, "expected a number, found '" + std::string(t.text) + "'");
    Literal l = literal(t.text, t.line);
    if (l.is_float) fail(t, "expected an integer");
    return l.i;
  }

  Literal literal(std::string_view s, std::uint32_t line) const {
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

  // ----- module-level variables (also .shared/.local/.const inside functions)

  void variable(bool is_extern, Function* in_fn) {
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
    Type t = Type::none;
    int vec = 1;
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
    if (accept('=')) {
      std::vector<Literal> vals;
      int depth = 0;
      std::function<void()> elems = [&]() {
        if (accept('{')) {
          if (++depth > static_cast<int>(kMaxDepth))
            fail(cur(), "initialiser nested deeper than the limit of " + std::to_string(kMaxDepth));
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
      if (v.space == Space::shared || v.space == Space::local) fail(name, "a " + std::string(sp.text) + " variable cannot be initialised");
      v.init.assign(static_cast<std::size_t>(v.size), 0);  // bounded by space_limit above
      for (std::size_t k = 0; k < vals.size(); ++k) {
        const std::uint64_t bits = literal_bits(vals[k], t, name.line);
        std::memcpy(v.init.data() + k * esz, &bits, esz);
      }
    }
    expect(';');
    if (v.size > limit)
      fail(name, std::string(sp.text) + " variable " + v.name + " is larger than the interpreter's limit of " + std::to_string(limit) +
                     " bytes (docs/ptx.md \"Limits\")");
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

  static std::uint64_t space_limit(Space sp) {
    switch (sp) {
      case Space::shared: return kMaxSharedBytes;
      case Space::constant: return kMaxConstBytes;
      case Space::local: return kMaxLocalBytes;
      default: return kMaxGlobalBytes;
    }
  }

  // An initialiser element naming a variable (PTX ISA 5.4.4): `sym` or `sym+off` is its address in
  // its own state space, `generic(sym)` its generic address. Only variables declared before.
  Literal symbol_initialiser() {
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

  std::uint64_t literal_bits(const Literal& l, Type t, std::uint32_t line) const {
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

  // ----- functions

  std::vector<ParamInfo> param_list(std::uint32_t& bytes) {
    std::vector<ParamInfo> ps;
    expect('(');
    if (accept(')')) return ps;
    do {
      const Tok& p = next();
      if (!p.is(".param") && !p.is(".reg")) fail(p, "expected .param in the parameter list");
      ParamInfo pi;
      Type t = Type::none;
      while (cur().kind == Tok::word && cur().text[0] == '.') {
        const Tok& w = next();
        if (w.is(".align")) {
          pi.align = static_cast<std::uint32_t>(number(next()));
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
      const std::uint32_t esz = static_cast<std::uint32_t>(std::max(1, type_bits(t) / 8));
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

  void function(bool is_extern) {
    const Tok& kw = next();
    Function f;
    f.is_entry = kw.is(".entry");
    if (!f.is_entry && cur().is('(')) f.ret_params = param_list(f.ret_bytes);  // return values
    const Tok& name = next();
    if (name.kind != Tok::word) fail(name, "expected a function name");
    f.name = std::string(name.text);
    if (cur().is('(')) f.params = param_list(f.param_bytes);
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
    // A body after a prototype replaces the prototype.
    for (std::size_t k = 0; k < mod_.functions.size(); ++k)
      if (mod_.functions[k].name == f.name && !mod_.functions[k].has_body) {
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

  void body() {
    if (!cur().is('{')) fail(cur(), "expected '{' to open the function body");
    fn_->first_line = cur().line;
    ++i_;
    scopes_.emplace_back();
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
  }

  void close_scope() {
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

  // One body element; returns its kind for the statement numbering.
  BodyItem::Kind element() {
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

  // `.param .b32 param0;` in a body (a call's argument or return value): a per-thread variable
  // that st.param/ld.param address like local memory (calls are inlined, see call()).
  void param_local() {
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

  void reg_decl() {
    const Tok& kw = next();
    Type t = Type::none;
    while (cur().kind == Tok::word && cur().text[0] == '.') {
      const Tok& w = next();
      if (w.is(".v2") || w.is(".v4")) fail(w, "vector registers are not supported");
      Type tt = parse_type(w.text.substr(1));
      if (tt == Type::none || tt == Type::e4m3x2 || tt == Type::e5m2x2) fail(w, "unknown register type " + std::string(w.text));
      t = tt;
    }
    if (t == Type::none) fail(kw, ".reg without a type");
    do {
      const Tok& n = next();
      if (n.kind != Tok::word || n.text[0] == '.') fail(n, "expected a register name");
      if (accept('<')) {
        const std::uint64_t count = number(next());
        expect('>');
        const std::uint64_t have = t == Type::pred ? fn_->npreds : fn_->nregs;
        if (count > kMaxRegisters || have + count > kMaxRegisters)
          too_many_registers(n.line, std::string(n.text) + "<" + std::to_string(count) + ">");
        for (std::uint64_t k = 0; k < count; ++k) declare(std::string(n.text) + std::to_string(k), t, n.line);
      } else {
        declare(std::string(n.text), t, n.line);
      }
    } while (accept(','));
    expect(';');
  }

  [[noreturn]] void too_many_registers(std::uint32_t line, const std::string& what) const {
    fail(line, "too many registers at " + what + ": a function may have at most " + std::to_string(kMaxRegisters) +
                   " register slots and as many predicates (the interpreter's limit, docs/ptx.md \"Limits\")");
  }

  void declare(std::string name, Type t, std::uint32_t line) {
    RegInfo r;
    r.name = name;
    r.type = t;
    if (t == Type::pred)
      r.index = fn_->npreds++;
    else
      r.index = fn_->nregs++;
    if (fn_->nregs > kMaxRegisters || fn_->npreds > kMaxRegisters) too_many_registers(line, name);
    if (!scopes_.back().regs.emplace(name, r).second) fail(line, "register " + name + " declared twice");
    fn_->regs.push_back(r);
  }

  const RegInfo* find_reg(std::string_view name) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      auto it = s->regs.find(name);
      if (it != s->regs.end()) return &it->second;
    }
    return nullptr;
  }

  // ----- operands

  ROp operand(int depth = 0) {
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
    if (accept('[')) {
      o.kind = ROp::addr;
      if (cur().kind == Tok::word) {
        o.name = next().text;
        o.has_base = true;
      }
      while (cur().is('+') || cur().is('-')) {
        bool neg = next().is('-');
        if (accept('-')) neg = !neg;
        const Tok& n = next();
        if (n.kind != Tok::num) fail(n, "expected an offset in the address");
        const std::uint64_t v = number(n);
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

  std::uint32_t constant(std::uint64_t v) {
    auto it = const_regs_.find(v);
    if (it != const_regs_.end()) return it->second;
    const std::uint32_t idx = fn_->nregs++;
    if (fn_->nregs > kMaxRegisters) too_many_registers(cur().line, "a literal operand");
    fn_->constants.emplace_back(idx, v);
    const_regs_.emplace(v, idx);
    return idx;
  }

  static std::uint32_t special(std::string_view n) {
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

  // Address of a symbol in its own state space (PTX: mov of a variable name gives that address).
  bool symbol_address(std::string_view name, std::uint64_t& addr, Space* space = nullptr) {
    for (const ParamInfo& p : fn_->params)
      if (p.name == name) {
        addr = kParamWindow + p.offset;
        if (space) *space = Space::param;
        return true;
      }
    for (const ParamInfo& p : fn_->ret_params)
      if (p.name == name) {
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

  // PTX ISA 9.4 (Table 26) and 9.4.1 (Tables 27, 28): may a register declared `r` be an operand of
  // an instruction (or operand) type `t`? Bit-size types agree with any type of their size; integer
  // types with bit-size and integer ones; floating types with bit-size and the same float type. ld,
  // st and cvt (relaxed) also take registers wider than the type, except a float register, whose
  // size must match a float type exactly.
  static bool operand_fits(Type t, Type r, bool relaxed) {
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
  void check_fits(const ROp& o, const RegInfo& r, Type t, bool is_dst) const {
    if (operand_fits(t, r.type, relaxed_)) return;
    fail(o.line, std::string(is_dst ? "destination " : "operand ") + std::string(o.name) + " is declared " + type_name(r.type) +
                     ", which a " + type_name(t) + " operand cannot be (PTX ISA 9.4, 9.4.1: operand type and size rules)");
  }

  // A source data operand (register, special register, literal, symbol address) -> register index.
  std::uint32_t src(const ROp& o, Type t) {
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
    if (o.kind != ROp::reg) fail(o.line, "expected a register or literal operand");
    if (o.neg) fail(o.line, "'!' on a data operand");
    if (const RegInfo* r = find_reg(o.name)) {
      if (r->type == Type::pred) fail(o.line, "predicate " + std::string(o.name) + " used as a data operand");
      if (o.off) fail(o.line, "register+offset outside an address");
      check_fits(o, *r, t, false);
      return r->index;
    }
    if (std::uint32_t s = special(o.name); s != kNoIndex) return s;
    std::uint64_t a;
    if (symbol_address(o.name, a)) {
      return constant(a + static_cast<std::uint64_t>(o.off));
    }
    fail(o.line, "undeclared register or symbol " + std::string(o.name));
  }
  // A destination data register of operand type t (Type::none: not checked).
  std::uint32_t dst(const ROp& o, Type t) {
    if (o.kind == ROp::sink) {
      if (sink_ == kNoIndex) sink_ = fn_->nregs++;
      return sink_;
    }
    if (o.kind != ROp::reg || o.neg) fail(o.line, "expected a destination register");
    const RegInfo* r = find_reg(o.name);
    if (!r) fail(o.line, "undeclared register " + std::string(o.name));
    if (r->type == Type::pred) fail(o.line, "predicate " + std::string(o.name) + " as a data destination");
    check_fits(o, *r, t, true);
    return r->index;
  }
  // The declared width of a destination register (64 for the sink `_`): ld and cvt extend their
  // result to it (PTX ISA 9.4.1, Table 28).
  std::uint8_t dst_bits(const ROp& o) {
    if (o.kind != ROp::reg) return 64;
    const RegInfo* r = find_reg(o.name);
    return static_cast<std::uint8_t>(r ? type_bits(r->type) : 64);
  }
  const RegInfo& reg_info(const ROp& o) {
    const RegInfo* r = find_reg(o.name);
    if (!r) fail(o.line, "undeclared register " + std::string(o.name));
    return *r;
  }
  std::uint32_t psrc(const ROp& o) {
    if (o.kind == ROp::imm) {
      // A literal predicate (mov.pred %p, 0): one constant predicate register for each value.
      const bool v = literal(o.name, o.line).i != 0;
      std::uint32_t& idx = v ? fn_->pred_true : fn_->pred_false;
      if (idx == kNoIndex) idx = fn_->npreds++;
      return idx;
    }
    if (o.kind != ROp::reg) fail(o.line, "expected a predicate operand");
    const RegInfo* r = find_reg(o.name);
    if (!r || r->type != Type::pred) fail(o.line, "expected a predicate register, found " + std::string(o.name));
    return r->index | (o.neg ? kPredNeg : 0);
  }
  std::uint32_t pdst(const ROp& o) {
    if (o.kind == ROp::sink) fail(o.line, "'_' as a predicate destination is not supported");
    if (o.neg) fail(o.line, "'!' on a destination");
    return psrc(o);
  }
  bool is_pred(const ROp& o) {
    if (o.kind != ROp::reg) return false;
    const RegInfo* r = find_reg(o.name);
    return r && r->type == Type::pred;
  }

  std::uint16_t opcode_id(std::string_view s) {
    for (std::size_t k = 0; k < mod_.opcode_names.size(); ++k)
      if (mod_.opcode_names[k] == s) return static_cast<std::uint16_t>(k);
    mod_.opcode_names.emplace_back(s);
    if (mod_.opcode_names.size() > 60000) fail(cur(), "too many distinct opcodes");
    return static_cast<std::uint16_t>(mod_.opcode_names.size() - 1);
  }

  // ----- instructions

  void instruction() {
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

  void emit(Inst& in, const std::vector<std::uint32_t>& d, const std::vector<std::uint32_t>& s) {
    in.opnd = static_cast<std::uint32_t>(fn_->operands.size());
    in.nd = static_cast<std::uint8_t>(d.size());
    in.ns = static_cast<std::uint8_t>(s.size());
    fn_->operands.insert(fn_->operands.end(), d.begin(), d.end());
    fn_->operands.insert(fn_->operands.end(), s.begin(), s.end());
    fn_->code.push_back(in);
  }

  void need(const std::vector<ROp>& ops, std::size_t n, std::string_view op, std::uint32_t line) {
    if (ops.size() != n) fail(line, std::string(op) + " takes " + std::to_string(n) + " operands, found " + std::to_string(ops.size()));
  }
  Type one_type(const Mods& m, std::string_view op, std::uint32_t line) {
    if (m.types.size() != 1) fail(line, "expected one type on " + std::string(op));
    return m.types[0];
  }
  void no_words(const Mods& m, std::string_view op, std::uint32_t line, std::initializer_list<std::string_view> allowed = {}) {
    for (std::string_view w : m.words) {
      bool ok = false;
      for (std::string_view a : allowed) ok |= a == w;
      if (!ok) fail(line, "unsupported modifier ." + std::string(w) + " in " + std::string(op));
    }
  }
  // Float arithmetic modifiers the interpreter models exactly: .rn (or none), .ftz on f32,
  // .approx where src/numerics has the operation.
  void float_mods(const Mods& m, Type t, std::string_view op, std::uint32_t line, bool bf16_ok = false) {
    // f32/f64 take every IEEE direction (numerics/f32); f16 instructions only .rn.
    const bool directed = m.rnd == Rnd::rz || m.rnd == Rnd::rm || m.rnd == Rnd::rp;
    if (m.rnd != Rnd::none && m.rnd != Rnd::rn && !(directed && (t == Type::f32 || t == Type::f64)))
      fail(line, "rounding modifier in " + std::string(op) + " is not supported (no model in src/numerics)");
    const bool bf = t == Type::bf16 || t == Type::bf16x2;
    if (m.sat && (t == Type::f16 || t == Type::f16x2 || bf)) fail(line, ".sat on f16/bf16 is not supported: " + std::string(op));
    if (m.ftz && t != Type::f32 && !(m.approx && t == Type::f64)) fail(line, ".ftz is only supported on .f32: " + std::string(op));
    // bf16: add/sub/mul.rn, min/max, neg/abs (numerics/minifloat); fma.bf16 and the rest have no model.
    if (bf && !bf16_ok) fail(line, "bf16 arithmetic other than add/sub/mul.rn, min/max, neg/abs is not supported: " + std::string(op));
  }

  // call[.uni] [(ret, ...),] func[, (arg, ...)]: the callee's decoded body is inlined here, its
  // registers renamed into fresh ones of the caller, its parameter and return-value accesses turned
  // into the call site's .param variables (per-thread, local memory), its ret into a branch to
  // the end. Recursion cannot occur: a callee must be defined before its call.
  void call(Inst& in, const Mods& m, const std::vector<ROp>& ops) {
    const std::uint32_t L = in.line;
    if (in.guard != kNoIndex) fail(L, "a predicated call is not supported");
    std::size_t i = 0;
    std::vector<std::string_view> rets, args;
    if (i < ops.size() && ops[i].kind == ROp::paren) {
      for (const ROp& e : ops[i].elems) rets.push_back(e.name);
      ++i;
    }
    if (i >= ops.size() || ops[i].kind != ROp::reg) fail(L, "call needs a function name");
    const std::string_view callee_name = ops[i].name;
    ++i;
    if (i < ops.size() && ops[i].kind == ROp::paren) {
      for (const ROp& e : ops[i].elems) args.push_back(e.name);
      ++i;
    }
    if (i != ops.size()) fail(L, "call: unexpected operands (indirect calls are not supported)");
    for (std::string_view w : m.words) fail(L, "unsupported modifier ." + std::string(w) + " in call");
    const Function* callee = nullptr;
    for (const Function& f : mod_.functions)
      if (f.name == callee_name && &f != fn_) callee = &f;
    if (!callee || !callee->has_body)
      fail(L, "call of " + std::string(callee_name) +
                  ": no body defined before the call (external functions and recursion are not supported)");
    if (callee->is_entry) fail(L, "call of an entry");
    if (callee->has_local_vars) fail(L, "call of " + callee->name + ", which has .local variables, is not supported");
    // The callee's own call-site .param variables (from calls it inlined) move behind the caller's.
    const std::uint32_t local_shift = (fn_->local_bytes + 15) / 16 * 16;
    fn_->local_bytes = local_shift + callee->local_bytes;
    if (fn_->local_bytes > kMaxLocalBytes)
      fail(L,
           "local memory exceeds the interpreter's limit of " + std::to_string(kMaxLocalBytes) + " bytes after inlining " + callee->name);
    if (args.size() != callee->params.size() || rets.size() > callee->ret_params.size())
      fail(L, "call of " + callee->name + " with " + std::to_string(args.size()) + " arguments and " + std::to_string(rets.size()) +
                  " return values; it takes " + std::to_string(callee->params.size()) + " and " +
                  std::to_string(callee->ret_params.size()));
    auto local_of = [&](std::string_view n) {
      auto it = param_locals_.find(n);
      if (it == param_locals_.end()) fail(L, "call argument " + std::string(n) + " is not a .param variable of this body");
      return local_vars_.find(n)->second;
    };
    std::vector<std::uint32_t> arg_off, ret_off;
    for (auto a : args) arg_off.push_back(local_of(a));
    for (auto r : rets) ret_off.push_back(local_of(r));
    const std::uint32_t reg_off = fn_->nregs - kSpecialCount, pred_off = fn_->npreds;
    fn_->nregs += callee->nregs - kSpecialCount;
    fn_->npreds += callee->npreds;
    if (fn_->nregs > kMaxRegisters || fn_->npreds > kMaxRegisters) too_many_registers(L, "inlining " + callee->name);
    auto map_reg = [&](std::uint32_t r) { return r < kSpecialCount ? r : r + reg_off; };
    auto map_pred = [&](std::uint32_t p) {
      const std::uint32_t idx = p & ~kPredNeg, neg = p & kPredNeg;
      auto lit = [&](std::uint32_t& mine) {
        if (mine == kNoIndex) mine = fn_->npreds++;
        return mine;
      };
      if (idx == callee->pred_true) return lit(fn_->pred_true) | neg;
      if (idx == callee->pred_false) return lit(fn_->pred_false) | neg;
      return (idx + pred_off) | neg;
    };
    for (const auto& [r, v] : callee->constants) fn_->constants.emplace_back(map_reg(r), v);
    const auto base = static_cast<std::uint32_t>(fn_->code.size());
    const auto ret_point = base + static_cast<std::uint32_t>(callee->code.size()) - 1;  // its final implicit exit
    for (std::size_t k = 0; k < callee->code.size(); ++k) {
      Inst c = callee->code[k];
      const std::uint32_t first = static_cast<std::uint32_t>(fn_->operands.size());
      for (unsigned j = 0; j < static_cast<unsigned>(c.nd + c.ns); ++j) {
        const std::uint32_t o = callee->operands[c.opnd + j];
        fn_->operands.push_back(is_pred_operand(c, j) ? map_pred(o) : map_reg(o));
      }
      c.opnd = first;
      if (c.guard != kNoIndex) c.guard = map_pred(c.guard);
      if (c.op == Op::bra) c.target += base;
      if (c.op == Op::exit) {
        if (k + 1 == callee->code.size()) {
          c.op = Op::nop;  // the return point
        } else {
          c.op = Op::bra;
          c.target = ret_point;
        }
      }
      if ((c.op == Op::ld || c.op == Op::st) && static_cast<Space>(c.sub) == Space::param) {
        if (fn_->operands[c.opnd + (c.op == Op::ld ? c.nd : 0)] != kZero)
          fail(L, "call of " + callee->name + ": it addresses its parameters through a register (not supported)");
        const std::uint64_t a = static_cast<std::uint64_t>(c.imm);
        bool done = false;
        if (a >= kRetWindow) {
          const std::uint64_t r = a - kRetWindow;
          for (std::size_t q = 0; q < callee->ret_params.size(); ++q) {
            const ParamInfo& p = callee->ret_params[q];
            if (r >= p.offset && r < p.offset + p.size) {
              if (q >= ret_off.size()) {
                c.op = Op::nop;
                done = true;
                break;
              }  // an ignored return value
              c.imm = static_cast<std::int64_t>(ret_off[q] + (r - p.offset));
              done = true;
            }
          }
        } else if (a >= kParamWindow) {
          const std::uint64_t r = a - kParamWindow;
          for (std::size_t q = 0; q < callee->params.size(); ++q) {
            const ParamInfo& p = callee->params[q];
            if (r >= p.offset && r < p.offset + p.size) {
              c.imm = static_cast<std::int64_t>(arg_off[q] + (r - p.offset));
              done = true;
            }
          }
        }
        if (!done) fail(L, "call of " + callee->name + ": a parameter access outside its parameters");
        c.sub = static_cast<std::uint8_t>(Space::local);
      } else if ((c.op == Op::ld || c.op == Op::st) && static_cast<Space>(c.sub) == Space::local) {
        // Only the callee's .param variables live there (no .local variables): [symbol] accesses.
        if (fn_->operands[c.opnd + (c.op == Op::ld ? c.nd : 0)] != kZero)
          fail(L, "call of " + callee->name + ": local memory through a register (not supported)");
        c.imm += local_shift;
      }
      fn_->code.push_back(c);
    }
  }

  void decode(Inst& in, std::string_view opname, std::vector<ROp>& ops) {
    const Mods m = split_opcode(opname);
    const std::string_view b = m.base;
    const std::uint32_t L = in.line;
    auto unsupported = [&]() { fail(L, "unsupported instruction " + std::string(opname) + " (docs/ptx.md lists the accepted forms)"); };
    const Family* fam = find_family(b);
    if (!fam) unsupported();
    for (std::string_view w : m.all) {
      const std::string_view allowed = fam->modifiers;
      const bool ok = allowed == "*" || (allowed == "*ld" ? ld_modifier(w) : in_list(allowed, w));
      if (!ok)
        fail(L, "unsupported modifier ." + std::string(w) + " in " + std::string(opname) + " (docs/ptx.md lists the accepted forms)");
    }
    // ld, st and cvt may name registers wider than the instruction type (PTX ISA 9.4.1).
    relaxed_ = b == "ld" || b == "ldu" || b == "st" || b == "cvt";
    in.rnd = m.rnd;
    in.flags = static_cast<std::uint8_t>((m.ftz ? kFtz : 0) | (m.sat ? kSat : 0) | (m.approx ? kApprox : 0));

    if (b == "mov") {
      no_words(m, opname, L);
      need(ops, 2, opname, L);
      const Type t = one_type(m, opname, L);
      in.t = t;
      if (t == Type::pred) {
        in.op = Op::pmov;
        emit(in, {pdst(ops[0])}, {psrc(ops[1])});
        return;
      }
      if (ops[0].kind == ROp::vec) {
        in.op = Op::unpack;
        std::vector<std::uint32_t> d;
        if (ops[0].elems.size() != 2 && ops[0].elems.size() != 4) fail(L, "mov unpack needs 2 or 4 destinations");
        const Type part = bit_type(type_bits(t) / static_cast<int>(ops[0].elems.size()));
        for (const ROp& e : ops[0].elems) d.push_back(dst(e, part));
        in.sub = static_cast<std::uint8_t>(type_bits(t) / d.size());
        if (in.sub < 8) fail(L, "mov unpack into parts narrower than 8 bits");
        emit(in, d, {src(ops[1], t)});
        return;
      }
      if (ops[1].kind == ROp::vec) {
        in.op = Op::pack;
        std::vector<std::uint32_t> s;
        if (ops[1].elems.size() != 2 && ops[1].elems.size() != 4) fail(L, "mov pack needs 2 or 4 sources");
        const Type part = bit_type(type_bits(t) / static_cast<int>(ops[1].elems.size()));
        for (const ROp& e : ops[1].elems) s.push_back(src(e, part));
        in.sub = static_cast<std::uint8_t>(type_bits(t) / s.size());
        if (in.sub < 8) fail(L, "mov pack from parts narrower than 8 bits");
        emit(in, {dst(ops[0], t)}, s);
        return;
      }
      in.op = Op::mov;
      emit(in, {dst(ops[0], t)}, {src(ops[1], t)});
      return;
    }
    if ((b == "and" || b == "or" || b == "xor" || b == "not") && m.types.size() == 1 && m.types[0] == Type::pred) {
      no_words(m, opname, L);
      in.t = Type::pred;
      if (b == "not") {
        need(ops, 2, opname, L);
        in.op = Op::pnot;
        emit(in, {pdst(ops[0])}, {psrc(ops[1])});
        return;
      }
      need(ops, 3, opname, L);
      in.op = b == "and" ? Op::pand : b == "or" ? Op::por : Op::pxor;
      emit(in, {pdst(ops[0])}, {psrc(ops[1]), psrc(ops[2])});
      return;
    }
    // Integer and bit instructions, and the float forms of add/sub/mul/min/max/abs/neg/fma/div.
    {
      struct Bin {
        const char* name;
        Op iop;
        Op fop;
      };
      static const Bin bins[] = {{"add", Op::add, Op::fadd}, {"sub", Op::sub, Op::fsub}, {"min", Op::min, Op::fmin},
                                 {"max", Op::max, Op::fmax}, {"div", Op::div, Op::fdiv}, {"rem", Op::rem, Op::nop},
                                 {"and", Op::and_, Op::nop}, {"or", Op::or_, Op::nop},   {"xor", Op::xor_, Op::nop},
                                 {"shl", Op::shl, Op::nop},  {"shr", Op::shr, Op::nop},  {"copysign", Op::nop, Op::fcopysign}};
      for (const Bin& bi : bins) {
        if (b != bi.name) continue;
        const Type t = one_type(m, opname, L);
        in.t = t;
        need(ops, 3, opname, L);
        if (type_is_float(t)) {
          if (bi.fop == Op::nop) unsupported();
          float_mods(m, t, opname, L, bi.fop == Op::fadd || bi.fop == Op::fsub || bi.fop == Op::fmin || bi.fop == Op::fmax);
          const bool minmax = bi.fop == Op::fmin || bi.fop == Op::fmax;
          const bool half = t == Type::f16 || t == Type::f16x2;
          const bool nan_mode = minmax && m.has("NaN") && m.words.size() == 1 && (t == Type::f32 || t == Type::f64 || half);
          if (!m.words.empty() && !nan_mode) fail(L, std::string(opname) + ": ." + std::string(m.words[0]) + " is not supported");
          if (nan_mode) in.sub2 = kMinMaxNaN;
          // min/max.relu on f16 (PTX ISA half min/max): numerics' f16_relu of the result.
          if (m.relu && minmax && half)
            in.sub2 |= kRelu;
          else if (m.relu)
            unsupported();
          if (m.cc || (m.sat && t != Type::f32)) unsupported();
          if (m.sat && (bi.fop != Op::fadd && bi.fop != Op::fsub)) unsupported();
          if (bi.fop == Op::fdiv) {
            if (t == Type::f32 && m.approx && m.ftz)
              in.flags = kApprox | kFtz;
            else if (m.approx || m.full)
              fail(L, std::string(opname) + " is not supported (no model in src/numerics; div.approx.ftz.f32 and div.rnd are)");
            else if (m.rnd == Rnd::none)
              fail(L, std::string(opname) + " needs a rounding modifier (.rn, .rz, .rm, .rp)");
          }
          if (m.approx && bi.fop != Op::fdiv) unsupported();
          if ((bi.fop == Op::fmin || bi.fop == Op::fmax || bi.fop == Op::fcopysign) && m.rnd != Rnd::none) unsupported();
          if (bi.fop == Op::fcopysign && m.ftz) unsupported();
          in.op = bi.fop;
          emit(in, {dst(ops[0], t)}, {src(ops[1], t), src(ops[2], t)});
          return;
        }
        if (bi.iop == Op::nop || t == Type::pred) unsupported();
        if (m.rnd != Rnd::none || m.ftz || m.approx || m.full || m.relu || !m.words.empty()) unsupported();
        in.op = bi.iop;
        if (b == "add" || b == "sub") {
          if (m.cc) {
            // The carry family (PTX ISA 9.7.2): 32- and 64-bit types, no .sat.
            if (m.sat || type_bits(t) < 32) unsupported();
            in.op = b == "add" ? Op::add_cc : Op::sub_cc;
          }
          if (m.sat && t != Type::s32) unsupported();
        } else if (m.sat || m.cc) {
          unsupported();
        }
        const Type st = (b == "shl" || b == "shr") ? Type::u32 : t;
        emit(in, {dst(ops[0], t)}, {src(ops[1], t), src(ops[2], st)});
        return;
      }
    }
    if (b == "addc" || b == "subc") {
      need(ops, 3, opname, L);
      in.t = one_type(m, opname, L);
      if (type_bits(in.t) < 32 || type_is_float(in.t)) unsupported();
      in.op = b == "addc" ? Op::addc : Op::subc;
      in.sub = m.cc ? 1 : 0;  // also writes CC.CF
      emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t), src(ops[2], in.t)});
      return;
    }
    if ((b == "mul" || b == "mad" || b == "madc" || b == "mul24" || b == "mad24" || b == "fma") &&
        !((b == "mul24" || b == "mad24") && m.hi)) {
      const Type t = one_type(m, opname, L);
      in.t = t;
      const bool is_mad = b == "mad" || b == "madc" || b == "mad24" || b == "fma";
      need(ops, is_mad ? 4 : 3, opname, L);
      if (type_is_float(t)) {
        float_mods(m, t, opname, L, b == "mul");
        if (m.approx || m.cc || m.lo || m.hi || m.wide || b == "madc" || b == "mul24" || b == "mad24") unsupported();
        // fma.rn.relu on f16 / f16x2 (PTX ISA half fma): numerics' f16_relu of the result.
        if (m.relu && !(b == "fma" && (t == Type::f16 || t == Type::f16x2))) unsupported();
        if (m.relu) in.sub2 = kRelu;
        if (m.sat && t != Type::f32) unsupported();
        if (b == "fma" && m.rnd == Rnd::none) fail(L, "fma needs a rounding modifier");
        if (b == "mad" && t != Type::f64 && t != Type::f32) unsupported();
        if (b == "mad" && m.rnd == Rnd::none) fail(L, "mad.f32/f64 without a rounding modifier is not supported");
        in.op = is_mad ? Op::ffma : Op::fmul;
        std::vector<std::uint32_t> s{src(ops[1], t), src(ops[2], t)};
        if (is_mad) s.push_back(src(ops[3], t));
        emit(in, {dst(ops[0], t)}, s);
        return;
      }
      if (b == "fma" || t == Type::pred) unsupported();
      if (m.rnd != Rnd::none || m.ftz) unsupported();
      Type dt = t, ct = t;
      if (b == "mul24" || b == "mad24") {
        if (!m.lo || m.sat || (t != Type::u32 && t != Type::s32)) unsupported();
        in.op = b == "mul24" ? Op::mul24_lo : Op::mad24_lo;
      } else if (b == "madc" || m.cc) {
        // mad{.lo,.hi}.cc and madc{.lo,.hi}{.cc} (PTX ISA 9.7.2.5/6): 32- and 64-bit types.
        if (m.lo == m.hi || m.wide || m.sat || type_bits(t) < 32) unsupported();
        in.op = Op::mad_cc;
        in.sub = static_cast<std::uint8_t>((b == "madc" ? kCarryIn : 0) | (b == "mad" || m.cc ? kCarryOut : 0));
        if (m.hi) in.flags |= kHi;
      } else if (m.wide) {
        if (type_bits(t) > 32 || type_bits(t) < 16 || m.sat) fail(L, ".wide needs a 16- or 32-bit type");
        in.op = b == "mul" ? Op::mul_wide : Op::mad_wide;
        dt = ct = wide_type(t);
      } else if (m.hi) {
        if (m.sat) unsupported();
        in.op = b == "mul" ? Op::mul_hi : Op::mad_hi;
      } else if (m.lo) {
        if (m.sat) unsupported();
        in.op = b == "mul" ? Op::mul_lo : Op::mad_lo;
      } else {
        fail(L, std::string(opname) + " needs .lo, .hi or .wide");
      }
      std::vector<std::uint32_t> s{src(ops[1], t), src(ops[2], t)};
      if (is_mad) s.push_back(src(ops[3], ct));
      emit(in, {dst(ops[0], dt)}, s);
      return;
    }
    if (b == "abs" || b == "neg" || b == "not" || b == "cnot" || b == "popc" || b == "clz" || b == "brev" || b == "bfind" || b == "sqrt" ||
        b == "rcp" || b == "rsqrt" || b == "ex2" || b == "lg2" || b == "sin" || b == "cos" || b == "tanh") {
      const Type t = one_type(m, opname, L);
      in.t = t;
      need(ops, 2, opname, L);
      no_words(m, opname, L);
      if (type_is_float(t)) {
        float_mods(m, t, opname, L, b == "abs" || b == "neg");
        if (b == "abs")
          in.op = Op::fabs;
        else if (b == "neg")
          in.op = Op::fneg;
        else if (b == "sqrt" && !m.approx && m.rnd != Rnd::none && (t == Type::f32 || t == Type::f64))
          in.op = Op::fsqrt;
        else if (b == "rcp" && !m.approx && m.rnd != Rnd::none && (t == Type::f32 || t == Type::f64))
          in.op = Op::frcp;
        // .approx (numerics/approx: correctly rounded models, reported as model-dependent).
        else if (m.approx && m.rnd == Rnd::none && t == Type::f32 && b == "sqrt")
          in.op = Op::fsqrt;
        else if (m.approx && m.rnd == Rnd::none && t == Type::f32 && b == "rcp")
          in.op = Op::frcp;
        else if (m.approx && m.rnd == Rnd::none && t == Type::f32 && b == "rsqrt")
          in.op = Op::frsqrt;
        else if (m.approx && m.rnd == Rnd::none && t == Type::f32 && b == "ex2")
          in.op = Op::fex2;
        else if (m.approx && m.rnd == Rnd::none && t == Type::f32 && b == "sin")
          in.op = Op::fsin;
        else if (m.approx && m.rnd == Rnd::none && t == Type::f32 && b == "cos")
          in.op = Op::fcos;
        else if (m.approx && m.rnd == Rnd::none && t == Type::f32 && b == "lg2")
          in.op = Op::flg2;
        else if (m.approx && m.rnd == Rnd::none && t == Type::f32 && b == "tanh")
          in.op = Op::ftanh;
        else if (m.approx && m.rnd == Rnd::none && t == Type::f64 && b == "rcp" && m.ftz)
          in.op = Op::frcp;
        else if (m.approx && m.rnd == Rnd::none && t == Type::f64 && b == "rsqrt")
          in.op = Op::frsqrt;
        else
          fail(L, std::string(opname) + " is not supported (no model in src/numerics)");
        if ((in.op == Op::fabs || in.op == Op::fneg) && m.rnd != Rnd::none) unsupported();
        emit(in, {dst(ops[0], t)}, {src(ops[1], t)});
        return;
      }
      if (m.rnd != Rnd::none || m.ftz || m.approx || m.sat) unsupported();
      if (b == "bfind" ? (type_bits(t) < 32 || t == Type::b32 || t == Type::b64)
                       : (b == "popc" || b == "clz" || b == "brev") && type_bits(t) < 32)
        unsupported();
      if (b == "abs")
        in.op = Op::abs;
      else if (b == "neg")
        in.op = Op::neg;
      else if (b == "not")
        in.op = Op::not_;
      else if (b == "cnot")
        in.op = Op::cnot;
      else if (b == "popc")
        in.op = Op::popc;
      else if (b == "clz")
        in.op = Op::clz;
      else if (b == "brev")
        in.op = Op::brev;
      else if (b == "bfind") {
        in.op = Op::bfind;
        in.sub = m.shiftamt ? 1 : 0;
      } else
        unsupported();
      if (m.shiftamt && in.op != Op::bfind) unsupported();
      // popc, clz and bfind write a .u32 whatever the source type (PTX ISA 9.7.1.13-16).
      const Type dt = (b == "popc" || b == "clz" || b == "bfind") ? Type::u32 : t;
      emit(in, {dst(ops[0], dt)}, {src(ops[1], t)});
      return;
    }
    // mul24.hi / mad24.hi (PTX ISA 9.7.1.5/6): bits 47..16 of the 48-bit product of the low 24 bits.
    if ((b == "mul24" || b == "mad24") && m.hi) {
      const Type t = one_type(m, opname, L);
      in.t = t;
      if ((t != Type::u32 && t != Type::s32) || m.lo || m.sat || !m.words.empty()) unsupported();
      const bool mad = b == "mad24";
      need(ops, mad ? 4 : 3, opname, L);
      in.op = mad ? Op::mad24_hi : Op::mul24_hi;
      std::vector<std::uint32_t> s{src(ops[1], t), src(ops[2], t)};
      if (mad) s.push_back(src(ops[3], t));
      emit(in, {dst(ops[0], t)}, s);
      return;
    }
    // shf.{l,r}.{clamp,wrap}.b32 d, a, b, c (9.7.8.7): a funnel shift of {b:a} by c.
    if (b == "shf") {
      need(ops, 4, opname, L);
      in.t = one_type(m, opname, L);
      if (in.t != Type::b32 || m.words.size() != 2 || (m.has("l") == m.has("r")) || (m.has("clamp") == m.has("wrap"))) unsupported();
      in.op = Op::shf;
      in.sub = static_cast<std::uint8_t>((m.has("r") ? 1 : 0) | (m.has("clamp") ? 2 : 0));
      emit(in, {dst(ops[0], Type::b32)}, {src(ops[1], Type::b32), src(ops[2], Type::b32), src(ops[3], Type::u32)});
      return;
    }
    // bmsk.{clamp,wrap}.b32 d, a, b (9.7.1.22); szext.{clamp,wrap}.{u32,s32} d, a, b (9.7.1.21).
    if (b == "bmsk" || b == "szext") {
      need(ops, 3, opname, L);
      in.t = one_type(m, opname, L);
      const bool ok_t = b == "bmsk" ? in.t == Type::b32 : (in.t == Type::u32 || in.t == Type::s32);
      if (!ok_t || m.words.size() != 1) unsupported();
      in.op = b == "bmsk" ? Op::bmsk : Op::szext;
      in.sub = m.has("clamp") ? 1 : 0;
      emit(in, {dst(ops[0], in.t)}, {src(ops[1], b == "bmsk" ? Type::u32 : in.t), src(ops[2], Type::u32)});
      return;
    }
    // dp4a.atype.btype d, a, b, c; dp2a.{lo,hi}.atype.btype (9.7.1.23/24): c is .u32 when both
    // types are .u32, else .s32.
    if (b == "dp4a" || b == "dp2a") {
      need(ops, 4, opname, L);
      if (m.types.size() != 2) unsupported();
      const Type ta = m.types[0], tb = m.types[1];
      if ((ta != Type::u32 && ta != Type::s32) || (tb != Type::u32 && tb != Type::s32)) unsupported();
      if (b == "dp2a" && m.lo == m.hi) unsupported();
      const Type ct = ta == Type::u32 && tb == Type::u32 ? Type::u32 : Type::s32;
      in.op = b == "dp4a" ? Op::dp4a : Op::dp2a;
      in.t = ta;
      in.t2 = tb;
      if (m.hi) in.flags |= kHi;
      emit(in, {dst(ops[0], ct)}, {src(ops[1], ta), src(ops[2], tb), src(ops[3], ct)});
      return;
    }
    if (b == "testp") {
      need(ops, 2, opname, L);
      in.t = one_type(m, opname, L);
      if (in.t != Type::f32 && in.t != Type::f64) unsupported();
      in.op = Op::testp;
      // testp kinds: 0 finite, 1 infinite, 2 number, 3 notanumber, 4 normal, 5 subnormal.
      static const char* kinds[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
      int kind = -1;
      for (std::string_view w : m.words)
        for (int k = 0; k < 6; ++k)
          if (w == kinds[k]) kind = k;
      if (kind < 0 || m.words.size() != 1) unsupported();
      in.sub = static_cast<std::uint8_t>(kind);
      emit(in, {pdst(ops[0])}, {src(ops[1], in.t)});
      return;
    }
    if (b == "lop3") {
      need(ops, 5, opname, L);
      in.t = one_type(m, opname, L);
      no_words(m, opname, L);
      if (in.t != Type::b32) unsupported();
      in.op = Op::lop3;
      if (ops[4].kind != ROp::imm) fail(L, "lop3's table must be a literal");
      in.imm = static_cast<std::int64_t>(literal(ops[4].name, L).i & 0xFF);
      emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t), src(ops[2], in.t), src(ops[3], in.t)});
      return;
    }
    if (b == "prmt") {
      need(ops, 4, opname, L);
      in.t = one_type(m, opname, L);
      if (in.t != Type::b32) unsupported();
      in.op = Op::prmt;
      if (m.words.empty())
        in.sub = 0;
      else if (m.words.size() == 1) {
        static const char* modes[] = {"", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
        in.sub = 0xFF;
        for (int k = 1; k < 7; ++k)
          if (m.words[0] == modes[k]) in.sub = static_cast<std::uint8_t>(k);
        if (in.sub == 0xFF) unsupported();
      } else
        unsupported();
      emit(in, {dst(ops[0], Type::b32)}, {src(ops[1], Type::b32), src(ops[2], Type::b32), src(ops[3], Type::b32)});
      return;
    }
    if (b == "bfe" || b == "bfi") {
      in.t = one_type(m, opname, L);
      no_words(m, opname, L);
      if (type_bits(in.t) < 32) unsupported();
      if (b == "bfe") {
        need(ops, 4, opname, L);
        in.op = Op::bfe;
        emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t), src(ops[2], Type::u32), src(ops[3], Type::u32)});
      } else {
        need(ops, 5, opname, L);
        in.op = Op::bfi;
        emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t), src(ops[2], in.t), src(ops[3], Type::u32), src(ops[4], Type::u32)});
      }
      return;
    }
    if (b == "sad") {
      need(ops, 4, opname, L);
      in.t = one_type(m, opname, L);
      in.op = Op::sad;
      if (type_is_float(in.t) || in.t == Type::pred || type_bits(in.t) < 16) unsupported();
      emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t), src(ops[2], in.t), src(ops[3], in.t)});
      return;
    }
    if (b == "setp" || b == "set") {
      // setp.CmpOp{.BoolOp}.type p{|q}, a, b{, {!}c} and set.CmpOp{.BoolOp}.dtype.stype d, a, b{, {!}c}
      // (PTX ISA "setp", "set" and their half-precision forms): f16x2/bf16x2 compare each half,
      // setp writes the low half's result to p and the high half's to q.
      const bool is_set = b == "set";
      if (is_set && m.types.size() != 2) fail(L, "set needs a destination and a source type");
      const Type t = is_set ? m.types[1] : one_type(m, opname, L);
      in.t = t;
      in.op = is_set ? Op::set : Op::setp;
      static const char* cmps[] = {"eq", "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
                                   "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
      int cmp = -1;
      BoolOp bop = BoolOp::none;
      std::vector<std::string_view> words = m.words;
      if (m.lo) words.push_back("lo");
      if (m.hi) words.push_back("hi");
      for (std::string_view w : words) {
        bool found = false;
        for (int k = 0; k < 18; ++k)
          if (w == cmps[k]) {
            cmp = k;
            found = true;
          }
        if (w == "and") {
          bop = BoolOp::and_;
          found = true;
        }
        if (w == "or") {
          bop = BoolOp::or_;
          found = true;
        }
        if (w == "xor") {
          bop = BoolOp::xor_;
          found = true;
        }
        if (!found) fail(L, "unsupported modifier ." + std::string(w) + " in " + std::string(opname));
      }
      if (cmp < 0) fail(L, std::string(opname) + " without a comparison");
      if (m.ftz && t != Type::f32 && t != Type::f16 && t != Type::f16x2)
        fail(L, std::string(opname) + ": .ftz is only supported on f32, f16 and f16x2 comparisons");
      if (t == Type::pred || t == Type::e4m3x2 || t == Type::e5m2x2) unsupported();
      if (!type_is_float(t) && cmp >= 10) fail(L, std::string(opname) + ": an unordered comparison on an integer type");
      if (type_is_float(t) && cmp >= 6 && cmp <= 9) fail(L, std::string(opname) + ": .lo/.ls/.hi/.hs compare integers");
      const bool x2 = t == Type::f16x2 || t == Type::bf16x2;
      in.sub = static_cast<std::uint8_t>(cmp);
      in.sub2 = static_cast<std::uint8_t>(bop);
      std::vector<std::uint32_t> d;
      if (ops.empty()) unsupported();
      if (is_set) {
        // The destination types each source type allows (PTX ISA "set"): 1.0 / 0.0 in a float
        // destination (per half for the x2 forms), all ones / 0 in an integer one (per 16-bit half).
        const Type dt = m.types[0];
        in.t2 = dt;
        const bool ok = x2 ? (dt == t || dt == Type::u32 || dt == Type::s32)
                           : (dt == Type::u32 || dt == Type::s32 || dt == Type::f32 || dt == Type::f16 || dt == Type::bf16 ||
                              ((dt == Type::u16 || dt == Type::s16) && (t == Type::f16 || t == Type::bf16)));
        if (!ok) fail(L, std::string(opname) + ": the destination type " + type_name(dt) + " is not one set allows for " + type_name(t));
        d.push_back(dst(ops[0], dt));
      } else if (ops[0].kind == ROp::pair) {
        d.push_back(pdst(ops[0].elems[0]));
        d.push_back(pdst(ops[0].elems[1]));
      } else {
        if (x2) fail(L, std::string(opname) + " needs two destination predicates p|q (one per half)");
        d.push_back(pdst(ops[0]));
      }
      need(ops, bop == BoolOp::none ? 3 : 4, opname, L);
      std::vector<std::uint32_t> s{src(ops[1], t), src(ops[2], t)};
      if (bop != BoolOp::none) s.push_back(psrc(ops[3]));
      emit(in, d, s);
      return;
    }
    if (b == "selp") {
      need(ops, 4, opname, L);
      in.t = one_type(m, opname, L);
      no_words(m, opname, L);
      in.op = Op::selp;
      if (in.t == Type::pred || in.t == Type::f16 || in.t == Type::f16x2 || in.t == Type::bf16 || in.t == Type::bf16x2) unsupported();
      emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t), src(ops[2], in.t), psrc(ops[3])});
      return;
    }
    if (b == "slct") {
      need(ops, 4, opname, L);
      if (m.types.size() != 2) unsupported();
      in.t = m.types[0];
      in.t2 = m.types[1];
      in.op = Op::slct;
      if (in.t2 != Type::s32 && in.t2 != Type::f32) unsupported();
      if (m.ftz && in.t2 != Type::f32) unsupported();
      emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t), src(ops[2], in.t), src(ops[3], in.t2)});
      return;
    }
    if (b == "cvt" && m.has("pack")) {
      // cvt.pack.sat.{u16,s16}.s32 d, a, b and cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b, c
      // (9.7.9.22): sat(b) in the low bits, sat(a) above it, then c's low bits.
      int bits = 0;
      bool sgn = false;
      std::size_t ti = 0;
      if (!m.types.empty() && (m.types[0] == Type::u16 || m.types[0] == Type::s16 || m.types[0] == Type::u8 || m.types[0] == Type::s8)) {
        bits = type_bits(m.types[0]);
        sgn = type_is_signed(m.types[0]);
        ti = 1;
      }
      for (std::string_view w : m.words) {
        if (w == "u4" || w == "s4")
          bits = 4, sgn = w[0] == 's';
        else if (w == "u2" || w == "s2")
          bits = 2, sgn = w[0] == 's';
        else if (w != "pack")
          unsupported();
      }
      const bool with_c = bits <= 8;
      if (!m.sat || bits == 0 || m.types.size() != ti + (with_c ? 2 : 1) || m.types[ti] != Type::s32 ||
          (with_c && m.types[ti + 1] != Type::b32) || m.rnd != Rnd::none || m.ftz || m.relu || m.satfinite)
        unsupported();
      need(ops, with_c ? 4 : 3, opname, L);
      in.op = Op::cvt_pack_int;
      in.t = Type::u32;
      in.sub = static_cast<std::uint8_t>(bits);
      in.sub2 = sgn ? 1 : 0;
      std::vector<std::uint32_t> s{src(ops[1], Type::s32), src(ops[2], Type::s32)};
      if (with_c) s.push_back(src(ops[3], Type::b32));
      emit(in, {dst(ops[0], Type::u32)}, s);
      return;
    }
    if (b == "cvt") {
      if (m.types.size() != 2) fail(L, "cvt needs a destination and a source type");
      const Type dt = m.types[0], st = m.types[1];
      in.t = dt;
      in.t2 = st;
      // cvt.rn.relu.{f16,f16x2,bf16,bf16x2}.f32 (PTX ISA cvt): numerics' f16_relu / bf16_relu of
      // each result half.
      if (m.relu) {
        if (st != Type::f32 || (dt != Type::f16 && dt != Type::f16x2 && dt != Type::bf16 && dt != Type::bf16x2) || m.rnd != Rnd::rn ||
            m.sat || m.ftz || m.satfinite)
          fail(L, std::string(opname) + " is not supported (.relu: cvt.rn.relu.{f16,f16x2,bf16,bf16x2}.f32)");
        in.sub2 = kRelu;
      }
      const bool packed = dt == Type::e4m3x2 || dt == Type::f16x2;
      if (packed && (m.sat || m.ftz)) unsupported();
      if (dt == Type::e4m3x2 && st == Type::f16x2) {
        if (m.rnd != Rnd::rn || !m.satfinite) fail(L, "only cvt.rn.satfinite.e4m3x2.f16x2 is supported");
        need(ops, 2, opname, L);
        in.op = Op::cvt_e4m3x2_f16x2;
        emit(in, {dst(ops[0], dt)}, {src(ops[1], st)});
        return;
      }
      if (dt == Type::f16x2 && st == Type::e4m3x2) {
        if (m.rnd != Rnd::rn) fail(L, "cvt.f16x2.e4m3x2 needs .rn");
        need(ops, 2, opname, L);
        in.op = Op::cvt_f16x2_e4m3x2;
        emit(in, {dst(ops[0], dt)}, {src(ops[1], st)});
        return;
      }
      // The other narrow formats (numerics/minifloat): fp8 pairs from f32 (a -> upper byte) and
      // f16x2, e5m2 pairs to f16x2, bf16 from and to f32, bf16x2 from two f32 (a -> upper half).
      {
        struct Alt {
          Type d, s;
          int code, nsrc;
          bool satfinite;
        };
        static const Alt kAlt[] = {{Type::e4m3x2, Type::f32, 0, 2, true},   {Type::e5m2x2, Type::f32, 1, 2, true},
                                   {Type::e5m2x2, Type::f16x2, 2, 1, true}, {Type::f16x2, Type::e5m2x2, 3, 1, false},
                                   {Type::bf16, Type::f32, 4, 1, false},    {Type::f32, Type::bf16, 5, 1, false},
                                   {Type::bf16x2, Type::f32, 6, 2, false}};
        for (const Alt& a : kAlt) {
          if (a.d != dt || a.s != st) continue;
          const bool rn_needed = a.code != 5;
          if ((rn_needed ? m.rnd != Rnd::rn : m.rnd != Rnd::none) || m.satfinite != a.satfinite || m.sat || m.ftz)
            fail(L, std::string(opname) +
                        " is not supported (the forms: cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32, cvt.rn.satfinite.e5m2x2.f16x2, "
                        "cvt.rn.f16x2.{e4m3x2,e5m2x2}, cvt.rn.bf16.f32, cvt.f32.bf16, cvt.rn.bf16x2.f32)");
          need(ops, static_cast<std::size_t>(1 + a.nsrc), opname, L);
          in.op = Op::cvt_alt;
          in.sub = static_cast<std::uint8_t>(a.code);
          std::vector<std::uint32_t> sv{src(ops[1], st)};
          if (a.nsrc == 2) sv.push_back(src(ops[2], st));
          emit(in, {dst(ops[0], dt)}, sv);
          return;
        }
      }
      if (dt == Type::f16x2 && st == Type::f32) {
        if (m.rnd != Rnd::rn || m.satfinite) unsupported();
        need(ops, 3, opname, L);
        in.op = Op::cvt_pack_f16x2_f32;
        emit(in, {dst(ops[0], dt)}, {src(ops[1], st), src(ops[2], st)});
        return;
      }
      if (m.satfinite || dt == Type::f16x2 || st == Type::f16x2 || dt == Type::bf16 || st == Type::bf16 || dt == Type::bf16x2 ||
          st == Type::bf16x2 || dt == Type::e4m3x2 || st == Type::e4m3x2 || dt == Type::e5m2x2 || st == Type::e5m2x2 || dt == Type::pred ||
          st == Type::pred)
        fail(L, std::string(opname) + " is not supported");
      const bool df = type_is_float(dt), sf = type_is_float(st);
      if (df && sf) {
        // float -> float: .rn for narrowing; .rni etc. round to an integral value (same type).
        const bool narrowing = type_bits(dt) < type_bits(st);
        const bool directed = m.rnd == Rnd::rz || m.rnd == Rnd::rm || m.rnd == Rnd::rp;
        if (narrowing && m.rnd != Rnd::rn && !(directed && dt == Type::f32))
          fail(L, std::string(opname) + ": a narrowing conversion needs .rn (or .rz/.rm/.rp to f32)");
        if (!narrowing && dt != st && m.rnd != Rnd::none) unsupported();
        if (dt == st && m.rnd != Rnd::rni && m.rnd != Rnd::rzi && m.rnd != Rnd::rmi && m.rnd != Rnd::rpi && m.rnd != Rnd::none)
          unsupported();
      } else if (df && !sf) {
        const bool directed = m.rnd == Rnd::rz || m.rnd == Rnd::rm || m.rnd == Rnd::rp;
        if (m.rnd != Rnd::rn && !(directed && dt != Type::f16))
          fail(L, std::string(opname) + ": integer -> float needs .rn, .rz, .rm or .rp (f16: .rn)");
      } else if (!df && sf) {
        if (m.rnd != Rnd::rni && m.rnd != Rnd::rzi && m.rnd != Rnd::rmi && m.rnd != Rnd::rpi)
          fail(L, std::string(opname) + ": float -> integer needs .rni/.rzi/.rmi/.rpi");
      } else if (m.rnd != Rnd::none) {
        unsupported();
      }
      if (m.ftz && st != Type::f32 && dt != Type::f32) unsupported();
      if (m.sat && dt == Type::f16 && st != Type::f32 && st != Type::f64)
        fail(L, std::string(opname) + ": .sat with an f16 destination needs an f32 or f64 source");
      need(ops, 2, opname, L);
      in.op = Op::cvt;
      in.dbits = dst_bits(ops[0]);  // the result is sign- or zero-extended to it (PTX ISA 9.4.1)
      emit(in, {dst(ops[0], dt)}, {src(ops[1], st)});
      return;
    }
    if (b == "cvta") {
      need(ops, 2, opname, L);
      no_words(m, opname, L);
      in.t = one_type(m, opname, L);
      if (in.t != Type::u64 && in.t != Type::u32) unsupported();
      if (!m.space_set || m.space == Space::generic) fail(L, "cvta needs a state space");
      in.op = Op::cvta;
      in.sub = static_cast<std::uint8_t>(m.space);
      in.sub2 = m.to ? 1 : 0;
      emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t)});
      return;
    }
    if (b == "ld" || b == "st" || b == "ldu") {
      for (std::string_view w : m.words)
        if (!is_cache_word(w)) fail(L, "unsupported modifier ." + std::string(w) + " in " + std::string(opname));
      const Type t = one_type(m, opname, L);
      if (t == Type::pred || (type_is_float(t) && t != Type::f32 && t != Type::f64 && t != Type::f16 && t != Type::f16x2)) unsupported();
      in.t = t;
      in.op = b == "st" ? Op::st : Op::ld;
      in.sub = static_cast<std::uint8_t>(m.space);
      // .L2::cache_hint takes a cache-policy operand (createpolicy's): a hint, read and ignored.
      if (m.has("L2::cache_hint") && ops.size() == 3) {
        (void)src(ops[2], Type::b64);
        ops.pop_back();
      }
      need(ops, 2, opname, L);
      const ROp& a = b == "st" ? ops[0] : ops[1];
      const ROp& v = b == "st" ? ops[1] : ops[0];
      if (a.kind != ROp::addr || a.has_vec) fail(L, std::string(opname) + " needs an address [..]");
      std::uint32_t base = kZero;
      in.imm = a.off;
      if (a.has_base) {
        if (const RegInfo* r = find_reg(a.name)) {
          if (r->type == Type::pred) fail(L, "predicate as an address");
          base = r->index;
        } else {
          std::uint64_t sa;
          Space ss;
          if (!symbol_address(a.name, sa, &ss)) fail(L, "undeclared register or symbol " + std::string(a.name));
          if (m.space == Space::param && param_locals_.count(a.name)) in.sub = static_cast<std::uint8_t>(Space::local);
          if (m.space == Space::generic) fail(L, "a symbol address with generic ld/st (use the state space)");
          in.imm += static_cast<std::int64_t>(sa);
        }
      }
      std::vector<std::uint32_t> regs;
      if (v.kind == ROp::vec) {
        for (const ROp& e : v.elems) regs.push_back(b == "st" ? src(e, t) : dst(e, t));
      } else {
        regs.push_back(b == "st" ? src(v, t) : dst(v, t));
      }
      if (static_cast<int>(regs.size()) != m.vec) fail(L, "vector width of " + std::string(opname) + " does not match its operand");
      // A narrower load extends to the destination register (ld.s8 into .s32: PTX ISA 9.4.1).
      if (b != "st") {
        in.dbits = dst_bits(v.kind == ROp::vec ? v.elems[0] : v);
        if (v.kind == ROp::vec)
          for (const ROp& e : v.elems)
            if (dst_bits(e) != in.dbits) fail(L, std::string(opname) + ": the vector's registers differ in width");
      }
      if (b == "st")
        emit(in, {}, [&] {
          std::vector<std::uint32_t> s{base};
          s.insert(s.end(), regs.begin(), regs.end());
          return s;
        }());
      else
        emit(in, regs, {base});
      return;
    }
    if (b == "atom" || b == "red") {
      // atom{.sem}{.scope}{.space}.op.type d, [a], b{, c} and red (no d), PTX ISA 9.7.13.5/6.
      // Global atomics are real atomic operations (CTAs run on threads); within a warp the lanes
      // apply theirs in lane order (docs/ptx.md "Atomics").
      static const std::pair<const char*, AtomOp> kOps[] = {
          {"add", AtomOp::add},  {"min", AtomOp::min}, {"max", AtomOp::max},  {"inc", AtomOp::inc},   {"dec", AtomOp::dec},
          {"and", AtomOp::and_}, {"or", AtomOp::or_},  {"xor", AtomOp::xor_}, {"exch", AtomOp::exch}, {"cas", AtomOp::cas}};
      int found = 0;
      AtomOp op = AtomOp::add;
      for (const auto& [n, o] : kOps)
        if (m.has(n)) {
          op = o;
          ++found;
        }
      if (found != 1) fail(L, std::string(opname) + " needs exactly one operation");
      const Type t = one_type(m, opname, L);
      const bool ok = [&] {
        switch (op) {
          case AtomOp::add: return t == Type::u32 || t == Type::s32 || t == Type::u64 || t == Type::f32 || t == Type::f64;
          case AtomOp::min:
          case AtomOp::max: return t == Type::u32 || t == Type::s32 || t == Type::u64 || t == Type::s64;
          case AtomOp::inc:
          case AtomOp::dec: return t == Type::u32;
          case AtomOp::and_:
          case AtomOp::or_:
          case AtomOp::xor_:
          case AtomOp::exch:
          case AtomOp::cas: return t == Type::b32 || t == Type::b64;
        }
        return false;
      }();
      if (!ok) fail(L, std::string(opname) + ": this operation and type are not supported (docs/ptx.md lists the accepted forms)");
      if (m.space_set && m.space != Space::global && m.space != Space::shared) unsupported();
      const bool is_red = b == "red";
      const std::size_t want = (is_red ? 2 : 3) + (op == AtomOp::cas ? 1 : 0);
      need(ops, want, opname, L);
      const ROp& a = ops[is_red ? 0 : 1];
      if (a.kind != ROp::addr || a.has_vec) fail(L, std::string(opname) + " needs an address [..]");
      in.op = Op::atom;
      in.t = t;
      in.sub = static_cast<std::uint8_t>(op);
      in.sub2 = static_cast<std::uint8_t>(m.space);
      in.imm = a.off;
      std::uint32_t base = kZero;
      if (a.has_base) {
        if (const RegInfo* r = find_reg(a.name)) {
          if (r->type == Type::pred) fail(L, "predicate as an address");
          base = r->index;
        } else {
          std::uint64_t sa;
          if (!symbol_address(a.name, sa) || m.space == Space::generic)
            fail(L, std::string(opname) + ": a symbol address needs .global or .shared");
          in.imm += static_cast<std::int64_t>(sa);
        }
      }
      std::vector<std::uint32_t> srcs{base};
      for (std::size_t k = is_red ? 1 : 2; k < ops.size(); ++k) srcs.push_back(src(ops[k], t));
      if (is_red)
        emit(in, {}, srcs);
      else
        emit(in, {dst(ops[0], t)}, srcs);
      return;
    }
    if (b == "tex") {
      // tex.base.2d.v4.f16.{s32,f32} d, [tex, {x, y}] (numerics.md "Texture and surface"): integer
      // coordinates fetch a texel; float ones go through the launch's sampler (Device::bind_texture).
      const bool ok = m.has("base") && m.has("2d") && m.vec == 4 && m.types.size() == 2 && m.types[0] == Type::f16 &&
                      (m.types[1] == Type::s32 || m.types[1] == Type::f32) && m.words.size() == 2;
      if (!ok) fail(L, std::string(opname) + " is not supported (only tex.base.2d.v4.f16.s32 and tex.base.2d.v4.f16.f32)");
      need(ops, 2, opname, L);
      if (ops[0].kind != ROp::vec || ops[0].elems.size() != 4) fail(L, "tex needs four destinations");
      const ROp& a = ops[1];
      if (a.kind != ROp::addr || !a.has_vec || a.elems[0].kind != ROp::vec || a.elems[0].elems.size() != 2)
        fail(L, "tex needs [handle, {x, y}]");
      in.op = Op::tex2d;
      in.t = Type::f16;
      in.t2 = m.types[1];  // the coordinate type
      ROp h;
      h.kind = ROp::reg;
      h.name = a.name;
      h.line = L;
      std::vector<std::uint32_t> d;
      for (const ROp& e : ops[0].elems) d.push_back(dst(e, Type::f16));
      emit(in, d, {src(h, Type::u64), src(a.elems[0].elems[0], in.t2), src(a.elems[0].elems[1], in.t2)});
      return;
    }
    if (b == "sust") {
      // sust.b.2d.v4.b16.zero: raw bytes at a byte offset; sust.p.2d.v4.b32.zero: a formatted
      // store of four f32 values into the surface's RGBA16F sample x (PTX ISA 9.7.10.8).
      const bool raw = m.has("b") && m.types.size() == 1 && m.types[0] == Type::b16;
      const bool formatted = m.has("p") && m.types.size() == 1 && m.types[0] == Type::b32;
      if (!((raw || formatted) && m.has("2d") && m.has("zero") && m.vec == 4 && m.words.size() == 3))
        fail(L, std::string(opname) + " is not supported (only sust.b.2d.v4.b16.zero and sust.p.2d.v4.b32.zero)");
      need(ops, 2, opname, L);
      const ROp& a = ops[0];
      if (a.kind != ROp::addr || !a.has_vec || a.elems[0].kind != ROp::vec || a.elems[0].elems.size() != 2)
        fail(L, "sust needs [handle, {x, y}]");
      if (ops[1].kind != ROp::vec || ops[1].elems.size() != 4) fail(L, "sust needs four values");
      in.op = Op::sust2d;
      in.t = m.types[0];
      ROp h;
      h.kind = ROp::reg;
      h.name = a.name;
      h.line = L;
      std::vector<std::uint32_t> s{src(h, Type::u64), src(a.elems[0].elems[0], Type::s32), src(a.elems[0].elems[1], Type::s32)};
      for (const ROp& e : ops[1].elems) s.push_back(src(e, in.t));
      emit(in, {}, s);
      return;
    }
    if (b == "mma") {
      // mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16: the scalar .e4m3 names land in `words`.
      const bool ok = m.sync && m.aligned && m.words.size() == 5 && m.has("m16n8k32") && m.has("row") && m.has("col") &&
                      std::count(m.words.begin(), m.words.end(), std::string_view("e4m3")) == 2 && m.types.size() == 2 &&
                      m.types[0] == Type::f16 && m.types[1] == Type::f16 && m.rnd == Rnd::none && !m.satfinite && !m.sat;
      if (!ok) fail(L, std::string(opname) + " is not supported (only mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16)");
      need(ops, 4, opname, L);
      const std::size_t want[4] = {2, 4, 2, 2};
      for (int k = 0; k < 4; ++k)
        if (ops[k].kind != ROp::vec || ops[k].elems.size() != want[k])
          fail(L, "mma operand " + std::to_string(k) + " needs {" + std::to_string(want[k]) + " registers}");
      in.op = Op::mma;
      std::vector<std::uint32_t> d, s;
      for (const ROp& e : ops[0].elems) d.push_back(dst(e, Type::b32));
      for (int k = 1; k < 4; ++k)
        for (const ROp& e : ops[k].elems) s.push_back(src(e, Type::b32));
      emit(in, d, s);
      return;
    }
    if (b == "movmatrix") {
      if (!(m.sync && m.aligned && m.trans && m.has("m8n8") && m.words.size() == 1 && m.types.size() == 1 && m.types[0] == Type::b16))
        fail(L, std::string(opname) + " is not supported (only movmatrix.sync.aligned.m8n8.trans.b16)");
      need(ops, 2, opname, L);
      in.op = Op::movmatrix;
      emit(in, {dst(ops[0], Type::b32)}, {src(ops[1], Type::b32)});
      return;
    }
    if (b == "ldmatrix" || b == "stmatrix") {
      // ldmatrix / stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16 (PTX ISA): num
      // 8x8 matrices of b16, row i of matrix j at the address lane 8j + i gives; register j of
      // lane l holds row l/4, elements 2(l%4) and 2(l%4)+1 (transposed with .trans: column l/4).
      const bool st = b == "stmatrix";
      int num = 0;
      for (std::string_view w : m.words) {
        if (w == "x1")
          num = 1;
        else if (w == "x2")
          num = 2;
        else if (w == "x4")
          num = 4;
        else if (w != "m8n8")
          fail(L, "unsupported modifier ." + std::string(w) + " in " + std::string(opname));
      }
      if (!(m.sync && m.aligned && m.has("m8n8") && num && m.types.size() == 1 && m.types[0] == Type::b16) ||
          (m.space_set && m.space != Space::shared && m.space != Space::generic))
        fail(L, std::string(opname) + " is not supported (the forms: " + std::string(b) +
                    ".sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared}.b16)");
      need(ops, 2, opname, L);
      const ROp& a = st ? ops[0] : ops[1];
      const ROp& v = st ? ops[1] : ops[0];
      if (a.kind != ROp::addr || a.has_vec || !a.has_base) fail(L, std::string(opname) + " needs an address [reg+offset]");
      const RegInfo* r = find_reg(a.name);
      if (!r || r->type == Type::pred) fail(L, std::string(opname) + ": the address must be a register");
      in.op = st ? Op::stmatrix : Op::ldmatrix;
      in.t = Type::b16;
      in.imm = a.off;
      in.sub = static_cast<std::uint8_t>(num | (m.trans ? 0x10 : 0));
      in.sub2 = static_cast<std::uint8_t>(m.space_set ? m.space : Space::generic);
      std::vector<std::uint32_t> regs;
      if (v.kind == ROp::vec) {
        for (const ROp& e : v.elems) regs.push_back(st ? src(e, Type::b32) : dst(e, Type::b32));
      } else {
        regs.push_back(st ? src(v, Type::b32) : dst(v, Type::b32));
      }
      if (static_cast<int>(regs.size()) != num) fail(L, std::string(opname) + " takes " + std::to_string(num) + " registers");
      const std::uint32_t base = r->index;
      if (st)
        emit(in, {}, [&] {
          std::vector<std::uint32_t> s2{base};
          s2.insert(s2.end(), regs.begin(), regs.end());
          return s2;
        }());
      else
        emit(in, regs, {base});
      return;
    }
    if (b == "shfl") {
      if (!m.sync) fail(L, "shfl without .sync is not supported");
      if (m.types.size() != 1 || m.types[0] != Type::b32) unsupported();
      in.op = Op::shfl;
      ShflMode mode;
      if (m.words.size() == 1 && m.words[0] == "up")
        mode = ShflMode::up;
      else if (m.words.size() == 1 && m.words[0] == "down")
        mode = ShflMode::down;
      else if (m.words.size() == 1 && m.words[0] == "bfly")
        mode = ShflMode::bfly;
      else if (m.words.size() == 1 && m.words[0] == "idx")
        mode = ShflMode::idx;
      else
        fail(L, std::string(opname) + ": unknown shuffle mode");
      in.sub = static_cast<std::uint8_t>(mode);
      need(ops, 5, opname, L);
      std::vector<std::uint32_t> d;
      if (ops[0].kind == ROp::pair) {
        d.push_back(dst(ops[0].elems[0], Type::b32));
        d.push_back(pdst(ops[0].elems[1]));
      } else {
        d.push_back(dst(ops[0], Type::b32));
      }
      emit(in, d, {src(ops[1], Type::b32), src(ops[2], Type::b32), src(ops[3], Type::b32), src(ops[4], Type::b32)});
      return;
    }
    if (b == "vote" && !m.sync) {
      // vote.{all,any,uni}.pred d, {!}a and vote.ballot.b32 d, {!}a (deprecated, pre-sm_70): the
      // warp's active lanes vote (the membermask is the active mask).
      need(ops, 2, opname, L);
      in.op = Op::vote;
      if (m.words.size() != 1) unsupported();
      const std::string_view w = m.words[0];
      if (w != "all" && w != "any" && w != "uni" && w != "ballot") unsupported();
      in.sub = static_cast<std::uint8_t>(w == "all"   ? VoteMode::all
                                         : w == "any" ? VoteMode::any
                                         : w == "uni" ? VoteMode::uni
                                                      : VoteMode::ballot);
      in.sub2 = 1;  // no membermask operand
      in.t = one_type(m, opname, L);
      if ((in.t == Type::pred) == (w == "ballot")) unsupported();
      emit(in, {in.t == Type::pred ? pdst(ops[0]) : dst(ops[0], Type::b32)}, {psrc(ops[1])});
      return;
    }
    if (b == "match") {
      // match.any.sync.b32/b64 d, a, membermask; match.all.sync.b32/b64 d{|p}, a, membermask (9.7.13.7).
      if (!m.sync || m.words.size() != 1 || (!m.has("any") && !m.has("all"))) unsupported();
      need(ops, 3, opname, L);
      in.t = one_type(m, opname, L);
      if (in.t != Type::b32 && in.t != Type::b64) unsupported();
      in.op = Op::match;
      in.sub = m.has("all") ? 1 : 0;
      std::vector<std::uint32_t> d;
      if (ops[0].kind == ROp::pair) {
        if (!in.sub) fail(L, "match.any has no predicate destination");
        d.push_back(dst(ops[0].elems[0], Type::b32));
        d.push_back(pdst(ops[0].elems[1]));
      } else {
        d.push_back(dst(ops[0], Type::b32));
      }
      emit(in, d, {src(ops[1], in.t), src(ops[2], Type::b32)});
      return;
    }
    if (b == "redux") {
      // redux.sync.{add,min,max}.{u32,s32} and redux.sync.{and,or,xor}.b32 d, a, membermask (9.7.13.10).
      if (!m.sync || m.words.size() != 1) unsupported();
      need(ops, 3, opname, L);
      in.t = one_type(m, opname, L);
      static const char* kOps[] = {"add", "min", "max", "and", "or", "xor"};
      int k = -1;
      for (int q = 0; q < 6; ++q)
        if (m.words[0] == kOps[q]) k = q;
      if (k < 0) unsupported();
      if (k < 3 ? (in.t != Type::u32 && in.t != Type::s32) : in.t != Type::b32) unsupported();
      in.op = Op::redux;
      in.sub = static_cast<std::uint8_t>(k);
      emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t), src(ops[2], Type::b32)});
      return;
    }
    if (b == "bar" && m.has("warp")) {
      // bar.warp.sync membermask (9.7.13.3, what __syncwarp() compiles to).
      if (!m.sync || m.words.size() != 1) unsupported();
      need(ops, 1, opname, L);
      in.op = Op::warpsync;
      emit(in, {}, {src(ops[0], Type::b32)});
      return;
    }
    if (b == "vote") {
      if (!m.sync) fail(L, "vote without .sync is not supported");
      need(ops, 3, opname, L);
      in.op = Op::vote;
      if (m.words.size() != 1) unsupported();
      const std::string_view w = m.words[0];
      in.sub = static_cast<std::uint8_t>(w == "all"   ? VoteMode::all
                                         : w == "any" ? VoteMode::any
                                         : w == "uni" ? VoteMode::uni
                                                      : VoteMode::ballot);
      if (w != "all" && w != "any" && w != "uni" && w != "ballot") unsupported();
      in.t = one_type(m, opname, L);
      if ((in.t == Type::pred) == (w == "ballot")) unsupported();
      emit(in, {in.t == Type::pred ? pdst(ops[0]) : dst(ops[0], Type::b32)}, {psrc(ops[1]), src(ops[2], Type::b32)});
      return;
    }
    if (b == "activemask") {
      need(ops, 1, opname, L);
      in.op = Op::activemask;
      in.t = Type::b32;
      emit(in, {dst(ops[0], Type::b32)}, {});
      return;
    }
    if ((b == "bar" || b == "barrier") && m.has("red")) {
      // bar{.cta}.red.popc.u32 d, a{, b}, {!}c and bar{.cta}.red.{and,or}.pred p, a{, b}, {!}c
      // (PTX ISA bar.red; __syncthreads_count/_and/_or): the whole CTA waits, then every thread
      // gets the reduction of c over the CTA's threads (Inst::sub: 1 popc, 2 and, 3 or).
      int kind = 0;
      for (std::string_view w : m.words) {
        if (w == "popc")
          kind = 1;
        else if (w == "and")
          kind = 2;
        else if (w == "or")
          kind = 3;
        else if (w != "red" && w != "cta")
          fail(L, "unsupported modifier ." + std::string(w) + " in " + std::string(opname));
      }
      const Type t = m.types.size() == 1 ? m.types[0] : Type::none;
      if (kind == 0 || (kind == 1 ? t != Type::u32 : t != Type::pred) || (b == "bar" && m.sync))
        fail(L, std::string(opname) + " is not supported (the forms: bar.red.popc.u32, bar.red.{and,or}.pred)");
      if (ops.size() != 3 && ops.size() != 4)
        fail(L, std::string(opname) + " takes a destination, a barrier, an optional thread count and a predicate");
      in.op = Op::bar;
      in.t = t;
      in.sub = static_cast<std::uint8_t>(kind);
      std::vector<std::uint32_t> sv;
      for (std::size_t k = 1; k + 1 < ops.size(); ++k) sv.push_back(src(ops[k], Type::u32));
      sv.push_back(psrc(ops.back()));
      emit(in, {kind == 1 ? dst(ops[0], Type::u32) : pdst(ops[0])}, sv);
      return;
    }
    if (b == "bar" || b == "barrier") {
      // bar.sync / barrier.sync[.aligned] a{, b}: every warp of the CTA waits (docs/ptx.md).
      // bar{.cta}.arrive / barrier{.cta}.arrive a, b: counts the warp at barrier a without waiting.
      const bool arrive = m.has("arrive");
      if (!m.sync && !arrive && !m.has("cta"))
        fail(L, std::string(opname) + " is not supported (bar.sync, bar.arrive, barrier.sync, bar.red)");
      for (std::string_view w : m.words)
        if (w != "cta" && w != "arrive") fail(L, std::string(opname) + " is not supported (bar.sync, bar.arrive, barrier.sync, bar.red)");
      if (arrive && (m.sync || ops.size() != 2)) fail(L, std::string(opname) + ": bar.arrive takes a barrier and a thread count");
      if (ops.empty() || ops.size() > 2) fail(L, "bar.sync takes a barrier and an optional thread count");
      in.op = Op::bar;
      in.sub2 = arrive ? 1 : 0;
      std::vector<std::uint32_t> s;
      for (const ROp& o : ops) s.push_back(src(o, Type::u32));
      emit(in, {}, s);
      return;
    }
    if (b == "membar" || b == "fence") {
      // Warps of a CTA run one at a time and CTAs do not communicate: ordering is implied.
      in.op = Op::membar;
      emit(in, {}, {});
      return;
    }
    if (b == "bra") {
      need(ops, 1, opname, L);
      no_words(m, opname, L);
      if (ops[0].kind != ROp::reg) fail(L, "bra needs a label");
      in.op = Op::bra;
      emit(in, {}, {});
      scopes_.back().pending.emplace_back(static_cast<std::uint32_t>(fn_->code.size() - 1), std::string(ops[0].name), L);
      return;
    }
    if (b == "ret" || b == "exit") {
      if (!ops.empty()) fail(L, std::string(b) + " takes no operands");
      in.op = Op::exit;
      emit(in, {}, {});
      return;
    }
    if (b == "trap") {
      in.op = Op::trap;
      emit(in, {}, {});
      return;
    }
    if (b == "prefetch" || b == "prefetchu") {
      // A cache hint: nothing to do (the address is not even checked, as on a GPU).
      need(ops, 1, opname, L);
      if (ops[0].kind != ROp::addr) fail(L, std::string(opname) + " needs an address [..]");
      in.op = Op::nop;
      emit(in, {}, {});
      return;
    }
    if (b == "createpolicy") {
      // createpolicy.*.b64 d, ...: an opaque cache policy for .L2::cache_hint operands, which the
      // interpreter ignores: d = 0.
      if (ops.empty() || one_type(m, opname, L) != Type::b64) unsupported();
      in.op = Op::mov;
      in.t = Type::b64;
      emit(in, {dst(ops[0], Type::b64)}, {constant(0)});
      return;
    }
    if (b == "cp") {
      // cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size}{, policy} (9.7.9.25):
      // the copy completes when issued (src-size bytes, the rest of cp-size zero-filled), so
      // cp.async.commit_group / wait_group N / wait_all have nothing to wait for (docs/ptx.md).
      if (!m.has("async")) unsupported();
      if (m.has("commit_group") || m.has("wait_group") || m.has("wait_all")) {
        need(ops, m.has("wait_group") ? 1 : 0, opname, L);
        in.op = Op::nop;
        emit(in, {}, {});
        return;
      }
      auto named = [&](std::string_view w) { return std::find(m.all.begin(), m.all.end(), w) != m.all.end(); };
      if ((!m.has("ca") && !m.has("cg")) || !(named("shared") || named("shared::cta")) || !named("global")) unsupported();
      std::size_t n = ops.size();
      if (m.has("L2::cache_hint")) {
        if (n < 4) fail(L, std::string(opname) + " needs a cache policy operand");
        (void)src(ops[n - 1], Type::b64);
        --n;
      }
      if (n != 3 && n != 4) fail(L, std::string(opname) + " takes [dst], [src], cp-size{, src-size}");
      if (ops[0].kind != ROp::addr || ops[1].kind != ROp::addr || ops[0].has_vec || ops[1].has_vec || ops[2].kind != ROp::imm)
        fail(L, std::string(opname) + " takes [dst], [src] and a literal cp-size");
      const std::uint64_t size = literal(ops[2].name, L).i;
      if (size != 4 && size != 8 && size != 16) fail(L, std::string(opname) + ": cp-size must be 4, 8 or 16");
      if (m.has("cg") && size != 16) fail(L, "cp.async.cg needs cp-size 16");
      auto addr = [&](const ROp& o, std::int64_t& off) {
        off = o.off;
        if (!o.has_base) return static_cast<std::uint32_t>(kZero);
        if (const RegInfo* r = find_reg(o.name)) return r->index;
        std::uint64_t sa;
        if (!symbol_address(o.name, sa)) fail(L, "undeclared register or symbol " + std::string(o.name));
        off += static_cast<std::int64_t>(sa);
        return static_cast<std::uint32_t>(kZero);
      };
      std::int64_t doff = 0, soff = 0;
      const std::uint32_t db = addr(ops[0], doff), sb = addr(ops[1], soff);
      in.op = Op::cp_async;
      in.imm = doff;
      in.target = static_cast<std::uint32_t>(soff);  // the source offset (no branch uses it)
      if (soff < 0 || soff > 0xFFFFFFFFll) fail(L, std::string(opname) + ": source offset out of range");
      in.sub = static_cast<std::uint8_t>(size);
      std::vector<std::uint32_t> sv{db, sb, n == 4 ? src(ops[3], Type::u32) : constant(size)};
      emit(in, {}, sv);
      return;
    }
    if (b == "nanosleep" || b == "pmevent") {
      in.op = Op::nop;
      emit(in, {}, {});
      return;
    }
    if (b == "call") {
      call(in, m, ops);
      return;
    }
    unsupported();
  }
};

}  // namespace

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

}  // namespace enc5::ptx
