// Internal to src/ptx: the PTX parser's state and its three parts: the module parser (parser.cpp:
// module- and function-level declarations, registers, operands), the instruction decoder
// (decode.cpp: the decoder's half of the instruction table instructions.def, and one decode
// function per family) and call
// inlining (inline.cpp). The tokens come from lexer.hpp.
#pragma once
#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ptx/inline.hpp"
#include "ptx/ir.hpp"
#include "ptx/lexer.hpp"

namespace rrswin::ptx {

Type parse_type(std::string_view s);  // "u32" -> Type::u32; Type::none when s is no type
Type bit_type(int bits);              // b8, b16, b32 or b64

// The double-width type of mul.wide / mad.wide (PTX ISA 9.7.1.3).
Type wide_type(Type t);

// ---------------------------------------------------------------------------------------------
// Raw operands (before decoding)

struct ROp {
  enum Kind { reg, imm, vec, addr, pair, paren, sink } kind = reg;
  std::string_view name;      // register/symbol name, or the literal's text
  bool neg = false;           // !%p, or a '-' before a literal
  std::int64_t off = 0;       // addr / symbol offset
  bool has_base = false;      // addr: a register or symbol before the offset
  std::vector<ROp> elems;     // vec / paren / pair, or addr's coordinate vector
  bool has_vec = false;       // addr with {x, y} (tex, sust)
  bool whole_vector = false;  // vec: a vector register's name (its components), not a brace list
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
  std::string_view name;  // the whole opcode (messages)
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

// An opcode split into its base, its types and its modifiers (decode.cpp).
Mods split_opcode(std::string_view op);
// ld/st's cache and ordering words (no-ops, docs/ptx.md "Execution").
bool is_cache_word(std::string_view w);

class Parser {
 public:
  static constexpr std::size_t kMaxDepth = 64;  // braces: hostile nesting ends in an error, not a stack overflow
  Parser(std::string_view text, std::string file) : file_(std::move(file)), toks_(lex(text, file_)) { mod_.filename = file_; }
  Module run();

 private:
  std::string file_;
  std::vector<Tok> toks_;
  std::size_t i_ = 0;
  Module mod_;
  // Per-function state
  Function* fn_ = nullptr;
  // A vector register (.reg .v2/.v4 .TYPE %v): its components are ordinary registers named
  // %v.x, %v.y, %v.z, %v.w (PTX ISA "Vectors"); the vector itself is only a name for them.
  struct VectorReg {
    std::uint8_t count = 0;
    std::array<std::string, 4> components;
  };
  struct Scope {
    std::map<std::string, RegInfo, std::less<>> regs;
    std::map<std::string, VectorReg, std::less<>> vectors;
    std::map<std::string, std::uint32_t, std::less<>> labels;
    std::vector<std::tuple<std::uint32_t, std::string, std::uint32_t>> pending;  // inst, label, line
  };
  std::vector<Scope> scopes_;
  std::map<std::string, std::uint32_t, std::less<>> local_vars_;    // name -> local offset
  std::map<std::string, std::uint32_t, std::less<>> param_locals_;  // body .param variables -> size
  std::map<std::uint64_t, std::uint32_t> const_regs_;
  std::uint32_t sink_ = kNoIndex;
  // Calls of a function whose body follows the call (declared by a prototype), or of one that has
  // such calls itself: a branch at `at` of the caller, inlined at the end of the module
  // (resolve_calls; docs/ptx.md "Device-function calls").
  struct PendingCall {
    std::string caller, callee;
    std::uint32_t at = 0;
    CallSite site;
  };
  std::vector<PendingCall> pending_calls_;
  void resolve_calls();
  void resolve_calls_of(std::string name, std::vector<std::string>& active);
  bool has_pending_calls(const std::string& name) const;
  bool relaxed_ = false;            // the instruction being decoded is ld/st/cvt (operand_fits)
  std::uint64_t global_bytes_ = 0;  // the module's .global variables so far (kMaxGlobalBytes)
  [[noreturn]] void fail(std::uint32_t line, const std::string& m) const { throw PtxError(file_ + ":" + std::to_string(line) + ": " + m); }
  [[noreturn]] void fail(const Tok& t, const std::string& m) const { fail(t.line, m); }
  const Tok& cur() const { return toks_[i_]; }
  const Tok& next();
  void expect(char c);
  bool accept(char c);
  void skip_line();
  void skip_past(char c);
  void skip_section();
  std::uint64_t number(const Tok& t);
  Literal literal(std::string_view s, std::uint32_t line) const;

  // ----- module-level variables (also .shared/.local/.const inside functions)

  void variable(bool is_extern, Function* in_fn);
  Type variable_type(Variable& v, int& vec);
  void variable_initialiser(Variable& v, Type t, bool unsized, const Tok& name, std::string_view space);
  void place_variable(Variable v, bool is_extern, bool unsized, Function* in_fn, const Tok& name, std::uint64_t limit);
  static std::uint64_t space_limit(Space sp);
  // An initialiser element naming a variable (PTX ISA 5.4.4): `sym` or `sym+off` is its address in
  // its own state space, `generic(sym)` its generic address. Only variables declared before.
  Literal symbol_initialiser();
  std::uint64_t literal_bits(const Literal& l, Type t, std::uint32_t line) const;

  // ----- functions

  std::vector<ParamInfo> param_list(std::uint32_t& bytes, std::vector<Type>& types);
  void function(bool is_extern);
  void body();
  void close_scope();
  // One body element; returns its kind for the statement numbering.
  BodyItem::Kind element();
  // `.param .b32 param0;` in a body (a call's argument or return value): a per-thread variable
  // that st.param/ld.param address like local memory (calls are inlined, inline.cpp).
  void param_local();
  void reg_decl();
  [[noreturn]] void too_many_registers(std::uint32_t line, const std::string& what) const;
  void declare(std::string name, Type t, std::uint32_t line);
  const RegInfo* find_reg(std::string_view name) const;
  const VectorReg* find_vector(std::string_view name) const;
  void declare_vector(std::string name, Type t, int vec, std::uint32_t line);
  [[noreturn]] void not_a_vector_operand(const ROp& o) const;

  // ----- operands

  ROp operand(int depth = 0);
  ROp address_operand(ROp o, int depth);                               // after its [
  ROp whole_vector_operand(ROp o, const Tok& t, const VectorReg& vr);  // %v as {%v.x, ...}
  std::uint32_t constant(std::uint64_t v);
  static std::uint32_t special(std::string_view n);
  // Address of a symbol in its own state space (PTX: mov of a variable name gives that address).
  bool symbol_address(std::string_view name, std::uint64_t& addr, Space* space = nullptr);
  // PTX ISA 9.4 (Table 26) and 9.4.1 (Tables 27, 28): may a register declared `r` be an operand of
  // an instruction (or operand) type `t`? Bit-size types agree with any type of their size; integer
  // types with bit-size and integer ones; floating types with bit-size and the same float type. ld,
  // st and cvt (relaxed) also take registers wider than the type, except a float register, whose
  // size must match a float type exactly.
  static bool operand_fits(Type t, Type r, bool relaxed);
  void check_fits(const ROp& o, const RegInfo& r, Type t, bool is_dst) const;
  // A source data operand (register, special register, literal, symbol address) -> register index.
  std::uint32_t src(const ROp& o, Type t);
  // A destination data register of operand type t (Type::none: not checked).
  std::uint32_t dst(const ROp& o, Type t);
  // The declared width of a destination register (64 for the sink `_`): ld and cvt extend their
  // result to it (PTX ISA 9.4.1, Table 28).
  std::uint8_t dst_bits(const ROp& o);
  const RegInfo& reg_info(const ROp& o);
  std::uint32_t psrc(const ROp& o);
  std::uint32_t pdst(const ROp& o);
  bool is_pred(const ROp& o);
  std::uint16_t opcode_id(std::string_view s);

  // ----- instructions

  void instruction();
  void emit(Inst& in, const std::vector<std::uint32_t>& d, const std::vector<std::uint32_t>& s);
  void need(const std::vector<ROp>& ops, std::size_t n, std::string_view op, std::uint32_t line);
  Type one_type(const Mods& m, std::string_view op, std::uint32_t line);
  void no_words(const Mods& m, std::string_view op, std::uint32_t line, std::initializer_list<std::string_view> allowed = {});
  // Float arithmetic modifiers the interpreter models exactly: .rn (or none), .ftz on f32,
  // .approx where src/numerics has the operation.
  void float_mods(const Mods& m, Type t, std::string_view op, std::uint32_t line, bool bf16_ok = false);
  // One instruction: its family's row of kFamilies checks the modifiers, then the row's decoder
  // turns it into an Inst (decode.cpp).
  void decode(Inst& in, std::string_view opname, std::vector<ROp>& ops);
  [[noreturn]] void unsupported(std::uint32_t line, std::string_view opname) const;

  // The instruction set, one row per opcode family: the FAMILY rows of instructions.def (the one
  // table of the instruction set; Parser::families builds this half of it, decode.cpp). The
  // modifiers (every dotted word that is not a type) the interpreter reads for it, the family's
  // decoder, and the Ops the decoder may yield. A modifier outside its row is an error before
  // decoding, so that no modifier is ever silently ignored (issue 20).
  using Decoder = void (Parser::*)(Inst& in, const Mods& m, std::vector<ROp>& ops);
  struct Family {
    const char* name;
    const char* modifiers;  // space-separated; "*" = any (no-op instructions), "*ld" = ld/st's words
    Decoder decode;
    std::bitset<kOpCount> yields;  // its own OP rows and the earlier Ops its row names
  };
  static const std::vector<Family>& families();
  static const Family* find_family(std::string_view base);

  // The family decoders: decode_alu.cpp (integer, logic, float arithmetic, compare, select),
  // decode_mem.cpp (conversions, memory), decode_warp.cpp (warp collectives, mma, barriers),
  // decode.cpp (control). Each decodes every form of its family or fails naming the line.
  void dec_mov(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_mov_vector(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_pred_logic(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_binary(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_addc(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_mul(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_mul24_hi(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_unary(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_shf(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_bmsk(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_dp(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_testp(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_lop3(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_prmt(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_bfe(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_sad(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_video(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_setp(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_selp(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_slct(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_logic(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_mul24(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_cvt_pack(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_cvt(Inst& in, const Mods& m, std::vector<ROp>& ops);
  bool dec_cvt_minifloat(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_cvta(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_ldst(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_atom(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_tex(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_sust(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_cp(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_mma(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_mma_int(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_movmatrix(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_ldmatrix(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_shfl(Inst& in, const Mods& m, std::vector<ROp>& ops);
  std::string_view vote_mode(const Mods& m, std::string_view opname, std::uint32_t L);
  void dec_vote_legacy(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_vote(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_match(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_redux(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_activemask(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_bar_warp(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_bar_red(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_bar(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_membar(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_bra(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_exit(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_trap(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_prefetch(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_createpolicy(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_nop(Inst& in, const Mods& m, std::vector<ROp>& ops);
  void dec_call(Inst& in, const Mods& m, std::vector<ROp>& ops);
};

}  // namespace rrswin::ptx
