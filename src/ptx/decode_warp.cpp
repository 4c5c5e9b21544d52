// The decoders of the warp, tensor-core and barrier families (instructions.def, decode.cpp).
#include "numerics/mma_int.hpp"
#include "ptx/parser.hpp"

namespace rrswin::ptx {

// mma.sync.aligned.{m8n8k16,m16n8k16,m16n8k32}.row.col{.satfinite}.s32.{s8,u8}.{s8,u8}.s32 (PTX ISA
// "mma", integer): Inst::sub = shape | a signed << 2 | b signed << 3 | satfinite << 4.
void Parser::dec_mma_int(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  const auto is8 = [](Type t) { return t == Type::s8 || t == Type::u8; };
  const bool shape16 = m.has("m16n8k16"), shape8 = m.has("m8n8k16"), shape32 = m.has("m16n8k32");
  const bool ok = m.sync && m.aligned && m.words.size() == 3 && (shape16 + shape8 + shape32) == 1 && m.has("row") && m.has("col") &&
                  m.types.size() == 4 && m.types[0] == Type::s32 && is8(m.types[1]) && is8(m.types[2]) && m.types[3] == Type::s32 &&
                  m.rnd == Rnd::none && !m.sat;
  if (!ok)
    fail(L,
         std::string(opname) +
             " is not supported (integer mma: mma.sync.aligned.{m8n8k16,m16n8k16,m16n8k32}.row.col{.satfinite}.s32.{s8,u8}.{s8,u8}.s32)");
  const MmaIntShape shape = shape8 ? MmaIntShape::m8n8k16 : shape16 ? MmaIntShape::m16n8k16 : MmaIntShape::m16n8k32;
  need(ops, 4, opname, L);
  const int want[4] = {mma_int_cd_regs(shape), mma_int_a_regs(shape), mma_int_b_regs(shape), mma_int_cd_regs(shape)};
  for (int k = 0; k < 4; ++k)
    if (ops[k].kind != ROp::vec || ops[k].elems.size() != static_cast<std::size_t>(want[k]))
      fail(L, "mma operand " + std::to_string(k) + " needs {" + std::to_string(want[k]) + " registers}");
  in.op = Op::mma_int;
  in.sub = static_cast<std::uint8_t>(static_cast<int>(shape) | (m.types[1] == Type::s8 ? 4 : 0) | (m.types[2] == Type::s8 ? 8 : 0) |
                                     (m.satfinite ? 16 : 0));
  std::vector<std::uint32_t> d, s;
  for (const ROp& e : ops[0].elems) d.push_back(dst(e, Type::s32));
  for (const ROp& e : ops[1].elems) s.push_back(src(e, Type::b32));
  for (const ROp& e : ops[2].elems) s.push_back(src(e, Type::b32));
  for (const ROp& e : ops[3].elems) s.push_back(src(e, Type::s32));
  emit(in, d, s);
}

void Parser::dec_mma(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  if (!m.types.empty() && m.types[0] == Type::s32) return dec_mma_int(in, m, ops);
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  // mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16: the scalar .e4m3 names land in `words`.
  const bool ok = m.sync && m.aligned && m.words.size() == 5 && m.has("m16n8k32") && m.has("row") && m.has("col") &&
                  std::count(m.words.begin(), m.words.end(), std::string_view("e4m3")) == 2 && m.types.size() == 2 &&
                  m.types[0] == Type::f16 && m.types[1] == Type::f16 && m.rnd == Rnd::none && !m.satfinite && !m.sat;
  // The half-precision tensor-core forms (f16/bf16 inputs, f16 or f32 accumulators: m16n8k8,
  // m16n8k16) have no bit-level model in src/numerics yet: refused by name (docs/ptx.md).
  const bool half_inputs = std::any_of(m.types.begin(), m.types.end(), [](Type t) { return t == Type::bf16; }) ||
                           (m.types.size() == 4 && m.types[1] == Type::f16 && m.types[2] == Type::f16);
  if (!ok && half_inputs)
    fail(L, std::string(opname) +
                " is not supported (mma with f16/bf16 inputs: no bit-level model of these tensor-core forms yet; the floating mma form "
                "accepted is mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16, docs/ptx.md)");
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

void Parser::dec_movmatrix(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  if (!(m.sync && m.aligned && m.trans && m.has("m8n8") && m.words.size() == 1 && m.types.size() == 1 && m.types[0] == Type::b16))
    fail(L, std::string(opname) + " is not supported (only movmatrix.sync.aligned.m8n8.trans.b16)");
  need(ops, 2, opname, L);
  in.op = Op::movmatrix;
  emit(in, {dst(ops[0], Type::b32)}, {src(ops[1], Type::b32)});
  return;
}

void Parser::dec_ldmatrix(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base, opname = m.name;
  const std::uint32_t L = in.line;
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
    fail(L,
         std::string(opname) + " is not supported (the forms: " + std::string(b) + ".sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared}.b16)");
  need(ops, 2, opname, L);
  const ROp& a = st ? ops[0] : ops[1];
  const ROp& v = st ? ops[1] : ops[0];
  if (a.kind != ROp::addr || a.has_vec) fail(L, std::string(opname) + " needs an address [reg+offset], [var+offset] or [imm]");
  // The address (PTX ISA "Addresses as Operands"): a register, a .shared variable (its shared
  // address; its generic address when the instruction names no state space) or a literal, each
  // plus an offset; every lane then reads the same rows unless a register varies.
  std::uint32_t base = kZero;
  in.imm = a.off;
  if (a.has_base) {
    if (const RegInfo* r = find_reg(a.name)) {
      if (r->type == Type::pred) fail(L, std::string(opname) + ": a predicate as an address");
      base = r->index;
    } else {
      std::uint64_t sa;
      Space ss;
      if (!symbol_address(a.name, sa, &ss)) fail(L, "undeclared register or symbol " + std::string(a.name));
      if (ss != Space::shared) fail(L, std::string(opname) + ": " + std::string(a.name) + " is not a .shared variable");
      in.imm += static_cast<std::int64_t>(m.space_set && m.space == Space::shared ? sa : generic_address(ss, sa));
    }
  }
  in.op = st ? Op::stmatrix : Op::ldmatrix;
  in.t = Type::b16;
  in.sub = static_cast<std::uint8_t>(num | (m.trans ? 0x10 : 0));
  in.sub2 = static_cast<std::uint8_t>(m.space_set ? m.space : Space::generic);
  std::vector<std::uint32_t> regs;
  if (v.kind == ROp::vec) {
    for (const ROp& e : v.elems) regs.push_back(st ? src(e, Type::b32) : dst(e, Type::b32));
  } else {
    regs.push_back(st ? src(v, Type::b32) : dst(v, Type::b32));
  }
  if (static_cast<int>(regs.size()) != num) fail(L, std::string(opname) + " takes " + std::to_string(num) + " registers");
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

void Parser::dec_shfl(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  if (!m.sync) fail(L, "shfl without .sync is not supported");
  if (m.types.size() != 1 || m.types[0] != Type::b32) unsupported(L, opname);
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

// vote's mode: .all, .any, .ballot (Mods::words) or .uni, which the opcode splitter reads as the
// .uni flag (bra.uni's): `vote.sync.uni.pred` was refused as an unknown form before (issue 39).
std::string_view Parser::vote_mode(const Mods& m, std::string_view opname, std::uint32_t L) {
  if (m.uni && m.words.empty()) return "uni";
  if (m.uni || m.words.size() != 1) unsupported(L, opname);
  return m.words[0];
}

void Parser::dec_vote_legacy(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  // vote.{all,any,uni}.pred d, {!}a and vote.ballot.b32 d, {!}a (deprecated, pre-sm_70): the
  // warp's active lanes vote (the membermask is the active mask).
  need(ops, 2, opname, L);
  in.op = Op::vote;
  const std::string_view w = vote_mode(m, opname, L);
  if (w != "all" && w != "any" && w != "uni" && w != "ballot") unsupported(L, opname);
  in.sub = static_cast<std::uint8_t>(w == "all"   ? VoteMode::all
                                     : w == "any" ? VoteMode::any
                                     : w == "uni" ? VoteMode::uni
                                                  : VoteMode::ballot);
  in.sub2 = 1;  // no membermask operand
  in.t = one_type(m, opname, L);
  if ((in.t == Type::pred) == (w == "ballot")) unsupported(L, opname);
  emit(in, {in.t == Type::pred ? pdst(ops[0]) : dst(ops[0], Type::b32)}, {psrc(ops[1])});
  return;
}

void Parser::dec_vote(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  if (!m.sync) return dec_vote_legacy(in, m, ops);
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  if (!m.sync) fail(L, "vote without .sync is not supported");
  need(ops, 3, opname, L);
  in.op = Op::vote;
  const std::string_view w = vote_mode(m, opname, L);
  in.sub = static_cast<std::uint8_t>(w == "all"   ? VoteMode::all
                                     : w == "any" ? VoteMode::any
                                     : w == "uni" ? VoteMode::uni
                                                  : VoteMode::ballot);
  if (w != "all" && w != "any" && w != "uni" && w != "ballot") unsupported(L, opname);
  in.t = one_type(m, opname, L);
  if ((in.t == Type::pred) == (w == "ballot")) unsupported(L, opname);
  emit(in, {in.t == Type::pred ? pdst(ops[0]) : dst(ops[0], Type::b32)}, {psrc(ops[1]), src(ops[2], Type::b32)});
  return;
}

void Parser::dec_match(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  // match.any.sync.b32/b64 d, a, membermask; match.all.sync.b32/b64 d{|p}, a, membermask (9.7.13.7).
  if (!m.sync || m.words.size() != 1 || (!m.has("any") && !m.has("all"))) unsupported(L, opname);
  need(ops, 3, opname, L);
  in.t = one_type(m, opname, L);
  if (in.t != Type::b32 && in.t != Type::b64) unsupported(L, opname);
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

void Parser::dec_redux(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  // redux.sync.{add,min,max}.{u32,s32} and redux.sync.{and,or,xor}.b32 d, a, membermask (9.7.13.10).
  if (!m.sync || m.words.size() != 1) unsupported(L, opname);
  need(ops, 3, opname, L);
  in.t = one_type(m, opname, L);
  static const char* kOps[] = {"add", "min", "max", "and", "or", "xor"};
  int k = -1;
  for (int q = 0; q < 6; ++q)
    if (m.words[0] == kOps[q]) k = q;
  if (k < 0) unsupported(L, opname);
  if (k < 3 ? (in.t != Type::u32 && in.t != Type::s32) : in.t != Type::b32) unsupported(L, opname);
  in.op = Op::redux;
  in.sub = static_cast<std::uint8_t>(k);
  emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t), src(ops[2], Type::b32)});
  return;
}

void Parser::dec_activemask(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  need(ops, 1, opname, L);
  in.op = Op::activemask;
  in.t = Type::b32;
  emit(in, {dst(ops[0], Type::b32)}, {});
  return;
}

void Parser::dec_bar_warp(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  // bar.warp.sync membermask (9.7.13.3, what __syncwarp() compiles to).
  if (!m.sync || m.words.size() != 1) unsupported(L, opname);
  need(ops, 1, opname, L);
  in.op = Op::warpsync;
  emit(in, {}, {src(ops[0], Type::b32)});
  return;
}

void Parser::dec_bar_red(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base, opname = m.name;
  const std::uint32_t L = in.line;
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

void Parser::dec_bar(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  if (m.base == "bar" && m.has("warp")) return dec_bar_warp(in, m, ops);
  if (m.has("red")) return dec_bar_red(in, m, ops);
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  // bar.sync / barrier.sync[.aligned] a{, b}: every warp of the CTA waits (docs/ptx.md).
  // bar{.cta}.arrive / barrier{.cta}.arrive a, b: counts the warp at barrier a without waiting.
  const bool arrive = m.has("arrive");
  if (!m.sync && !arrive && !m.has("cta")) fail(L, std::string(opname) + " is not supported (bar.sync, bar.arrive, barrier.sync, bar.red)");
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
}  // namespace rrswin::ptx
