// The decoders of the integer, logic, float-arithmetic, compare and select families (instructions.def,
// decode.cpp).
#include "ptx/parser.hpp"

namespace rrswin::ptx {

// mov.v2/.v4.TYPE d, a (PTX ISA "mov", "Vector Operands"): d and a vector registers or brace lists
// of as many components; every component moved at once (a swap {a, b} <- {b, a} reads both first).
void Parser::dec_mov_vector(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  no_words(m, opname, L);
  need(ops, 2, opname, L);
  const Type t = one_type(m, opname, L);
  if (t == Type::pred) fail(L, std::string(opname) + ": a vector of predicates is not a PTX type");
  in.t = t;
  for (const ROp& o : ops)
    if (o.kind != ROp::vec || o.elems.size() != static_cast<std::size_t>(m.vec))
      fail(L, std::string(opname) + " takes " + std::to_string(m.vec) + "-component vectors (a vector register or {a, b, ...})");
  std::vector<std::uint32_t> d, s;
  for (const ROp& e : ops[0].elems) d.push_back(dst(e, t));
  for (const ROp& e : ops[1].elems) s.push_back(src(e, t));
  for (std::size_t i = 0; i < d.size(); ++i)
    for (std::size_t j = i + 1; j < d.size(); ++j)
      if (d[i] == d[j]) fail(L, std::string(opname) + ": a destination component appears twice (undefined in PTX)");
  in.op = Op::vmov;
  emit(in, d, s);
}

void Parser::dec_mov(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  if (m.vec > 1) return dec_mov_vector(in, m, ops);
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
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

void Parser::dec_pred_logic(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base, opname = m.name;
  const std::uint32_t L = in.line;
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
void Parser::dec_binary(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base, opname = m.name;
  const std::uint32_t L = in.line;
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
      if (bi.fop == Op::nop) unsupported(L, opname);
      float_mods(m, t, opname, L, bi.fop == Op::fadd || bi.fop == Op::fsub || bi.fop == Op::fmin || bi.fop == Op::fmax);
      const bool minmax = bi.fop == Op::fmin || bi.fop == Op::fmax;
      const bool half = t == Type::f16 || t == Type::f16x2;
      // .NaN on f32/f64/f16/f16x2; .xorsign.abs (always together) on f32/f16/f16x2/bf16/bf16x2 (PTX ISA
      // 9.7.3.11/12, 9.7.4.7/8; numerics' *_xorsign_abs).
      const bool nan_mode = minmax && m.has("NaN") && (t == Type::f32 || t == Type::f64 || half);
      const bool xorsign = minmax && m.has("xorsign") && m.has("abs") && t != Type::f64;
      if (m.words.size() != (nan_mode ? 1u : 0u) + (xorsign ? 2u : 0u))
        fail(L, std::string(opname) + ": ." + std::string(m.words[0]) + " is not supported");
      if (nan_mode) in.sub2 = kMinMaxNaN;
      if (xorsign) in.sub2 |= kXorsignAbs;
      if (xorsign && m.relu) unsupported(L, opname);
      // min/max.relu on f16 (PTX ISA half min/max): numerics' f16_relu of the result.
      if (m.relu && minmax && half)
        in.sub2 |= kRelu;
      else if (m.relu)
        unsupported(L, opname);
      if (m.cc || (m.sat && t != Type::f32)) unsupported(L, opname);
      if (m.sat && (bi.fop != Op::fadd && bi.fop != Op::fsub)) unsupported(L, opname);
      if (bi.fop == Op::fdiv) {
        if (t == Type::f32 && m.approx && m.rnd == Rnd::none && !m.sat)
          in.flags = static_cast<std::uint8_t>(kApprox | (m.ftz ? kFtz : 0));  // div.approx{.ftz}.f32
        else if (m.approx || m.full)
          fail(L, std::string(opname) + " is not supported (no model in src/numerics; div.approx{.ftz}.f32 and div.rnd are)");
        else if (m.rnd == Rnd::none)
          fail(L, std::string(opname) + " needs a rounding modifier (.rn, .rz, .rm, .rp)");
      }
      if (m.approx && bi.fop != Op::fdiv) unsupported(L, opname);
      if ((bi.fop == Op::fmin || bi.fop == Op::fmax || bi.fop == Op::fcopysign) && m.rnd != Rnd::none) unsupported(L, opname);
      if (bi.fop == Op::fcopysign && m.ftz) unsupported(L, opname);
      in.op = bi.fop;
      emit(in, {dst(ops[0], t)}, {src(ops[1], t), src(ops[2], t)});
      return;
    }
    if (bi.iop == Op::nop || t == Type::pred) unsupported(L, opname);
    if (m.rnd != Rnd::none || m.ftz || m.approx || m.full || m.relu || !m.words.empty()) unsupported(L, opname);
    in.op = bi.iop;
    if (b == "add" || b == "sub") {
      if (m.cc) {
        // The carry family (PTX ISA 9.7.2): 32- and 64-bit types, no .sat.
        if (m.sat || type_bits(t) < 32) unsupported(L, opname);
        in.op = b == "add" ? Op::add_cc : Op::sub_cc;
      }
      if (m.sat && t != Type::s32) unsupported(L, opname);
    } else if (m.sat || m.cc) {
      unsupported(L, opname);
    }
    const Type st = (b == "shl" || b == "shr") ? Type::u32 : t;
    emit(in, {dst(ops[0], t)}, {src(ops[1], t), src(ops[2], st)});
    return;
  }
  unsupported(L, opname);
}

void Parser::dec_addc(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base, opname = m.name;
  const std::uint32_t L = in.line;
  need(ops, 3, opname, L);
  in.t = one_type(m, opname, L);
  if (type_bits(in.t) < 32 || type_is_float(in.t)) unsupported(L, opname);
  in.op = b == "addc" ? Op::addc : Op::subc;
  in.sub = m.cc ? 1 : 0;  // also writes CC.CF
  emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t), src(ops[2], in.t)});
  return;
}

void Parser::dec_mul(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base, opname = m.name;
  const std::uint32_t L = in.line;
  const Type t = one_type(m, opname, L);
  in.t = t;
  const bool is_mad = b == "mad" || b == "madc" || b == "mad24" || b == "fma";
  need(ops, is_mad ? 4 : 3, opname, L);
  if (type_is_float(t)) {
    float_mods(m, t, opname, L, b == "mul" || b == "fma");
    if (m.approx || m.cc || m.lo || m.hi || m.wide || b == "madc" || b == "mul24" || b == "mad24") unsupported(L, opname);
    // fma.rn.relu on f16 / f16x2 (PTX ISA half fma): numerics' f16_relu of the result.
    const bool bf = t == Type::bf16 || t == Type::bf16x2;
    if (m.relu && !(b == "fma" && (t == Type::f16 || t == Type::f16x2 || bf))) unsupported(L, opname);
    if (b == "fma" && bf && m.rnd != Rnd::rn) unsupported(L, opname);
    if (m.relu) in.sub2 = kRelu;
    if (m.sat && t != Type::f32) unsupported(L, opname);
    if (b == "fma" && m.rnd == Rnd::none) fail(L, "fma needs a rounding modifier");
    if (b == "mad" && t != Type::f64 && t != Type::f32) unsupported(L, opname);
    if (b == "mad" && m.rnd == Rnd::none) fail(L, "mad.f32/f64 without a rounding modifier is not supported");
    in.op = is_mad ? Op::ffma : Op::fmul;
    std::vector<std::uint32_t> s{src(ops[1], t), src(ops[2], t)};
    if (is_mad) s.push_back(src(ops[3], t));
    emit(in, {dst(ops[0], t)}, s);
    return;
  }
  if (b == "fma" || t == Type::pred) unsupported(L, opname);
  if (m.rnd != Rnd::none || m.ftz) unsupported(L, opname);
  Type dt = t, ct = t;
  if (b == "mul24" || b == "mad24") {
    if (!m.lo || m.sat || (t != Type::u32 && t != Type::s32)) unsupported(L, opname);
    in.op = b == "mul24" ? Op::mul24_lo : Op::mad24_lo;
  } else if (b == "madc" || m.cc) {
    // mad{.lo,.hi}.cc and madc{.lo,.hi}{.cc} (PTX ISA 9.7.2.5/6): 32- and 64-bit types.
    if (m.lo == m.hi || m.wide || m.sat || type_bits(t) < 32) unsupported(L, opname);
    in.op = Op::mad_cc;
    in.sub = static_cast<std::uint8_t>((b == "madc" ? kCarryIn : 0) | (b == "mad" || m.cc ? kCarryOut : 0));
    if (m.hi) in.flags |= kHi;
  } else if (m.wide) {
    if (type_bits(t) > 32 || type_bits(t) < 16 || m.sat) fail(L, ".wide needs a 16- or 32-bit type");
    in.op = b == "mul" ? Op::mul_wide : Op::mad_wide;
    dt = ct = wide_type(t);
  } else if (m.hi) {
    if (m.sat) unsupported(L, opname);
    in.op = b == "mul" ? Op::mul_hi : Op::mad_hi;
  } else if (m.lo) {
    if (m.sat) unsupported(L, opname);
    in.op = b == "mul" ? Op::mul_lo : Op::mad_lo;
  } else {
    fail(L, std::string(opname) + " needs .lo, .hi or .wide");
  }
  std::vector<std::uint32_t> s{src(ops[1], t), src(ops[2], t)};
  if (is_mad) s.push_back(src(ops[3], ct));
  emit(in, {dst(ops[0], dt)}, s);
  return;
}

// mul24.hi / mad24.hi (PTX ISA 9.7.1.5/6): bits 47..16 of the 48-bit product of the low 24 bits.
void Parser::dec_mul24_hi(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base, opname = m.name;
  const std::uint32_t L = in.line;
  const Type t = one_type(m, opname, L);
  in.t = t;
  if ((t != Type::u32 && t != Type::s32) || m.lo || m.sat || !m.words.empty()) unsupported(L, opname);
  const bool mad = b == "mad24";
  need(ops, mad ? 4 : 3, opname, L);
  in.op = mad ? Op::mad24_hi : Op::mul24_hi;
  std::vector<std::uint32_t> s{src(ops[1], t), src(ops[2], t)};
  if (mad) s.push_back(src(ops[3], t));
  emit(in, {dst(ops[0], t)}, s);
  return;
}

void Parser::dec_unary(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base, opname = m.name;
  const std::uint32_t L = in.line;
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
    if ((in.op == Op::fabs || in.op == Op::fneg) && m.rnd != Rnd::none) unsupported(L, opname);
    emit(in, {dst(ops[0], t)}, {src(ops[1], t)});
    return;
  }
  if (m.rnd != Rnd::none || m.ftz || m.approx || m.sat) unsupported(L, opname);
  if (b == "bfind" ? (type_bits(t) < 32 || t == Type::b32 || t == Type::b64)
                   : (b == "popc" || b == "clz" || b == "brev") && type_bits(t) < 32)
    unsupported(L, opname);
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
    unsupported(L, opname);
  if (m.shiftamt && in.op != Op::bfind) unsupported(L, opname);
  // popc, clz and bfind write a .u32 whatever the source type (PTX ISA 9.7.1.13-16).
  const Type dt = (b == "popc" || b == "clz" || b == "bfind") ? Type::u32 : t;
  emit(in, {dst(ops[0], dt)}, {src(ops[1], t)});
  return;
}

// shf.{l,r}.{clamp,wrap}.b32 d, a, b, c (9.7.8.7): a funnel shift of {b:a} by c.
void Parser::dec_shf(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  need(ops, 4, opname, L);
  in.t = one_type(m, opname, L);
  if (in.t != Type::b32 || m.words.size() != 2 || (m.has("l") == m.has("r")) || (m.has("clamp") == m.has("wrap"))) unsupported(L, opname);
  in.op = Op::shf;
  in.sub = static_cast<std::uint8_t>((m.has("r") ? 1 : 0) | (m.has("clamp") ? 2 : 0));
  emit(in, {dst(ops[0], Type::b32)}, {src(ops[1], Type::b32), src(ops[2], Type::b32), src(ops[3], Type::u32)});
  return;
}

// bmsk.{clamp,wrap}.b32 d, a, b (9.7.1.22); szext.{clamp,wrap}.{u32,s32} d, a, b (9.7.1.21).
void Parser::dec_bmsk(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base, opname = m.name;
  const std::uint32_t L = in.line;
  need(ops, 3, opname, L);
  in.t = one_type(m, opname, L);
  const bool ok_t = b == "bmsk" ? in.t == Type::b32 : (in.t == Type::u32 || in.t == Type::s32);
  if (!ok_t || m.words.size() != 1) unsupported(L, opname);
  in.op = b == "bmsk" ? Op::bmsk : Op::szext;
  in.sub = m.has("clamp") ? 1 : 0;
  emit(in, {dst(ops[0], in.t)}, {src(ops[1], b == "bmsk" ? Type::u32 : in.t), src(ops[2], Type::u32)});
  return;
}

// dp4a.atype.btype d, a, b, c; dp2a.{lo,hi}.atype.btype (9.7.1.23/24): c is .u32 when both
// types are .u32, else .s32.
void Parser::dec_dp(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base, opname = m.name;
  const std::uint32_t L = in.line;
  need(ops, 4, opname, L);
  if (m.types.size() != 2) unsupported(L, opname);
  const Type ta = m.types[0], tb = m.types[1];
  if ((ta != Type::u32 && ta != Type::s32) || (tb != Type::u32 && tb != Type::s32)) unsupported(L, opname);
  if (b == "dp2a" && m.lo == m.hi) unsupported(L, opname);
  const Type ct = ta == Type::u32 && tb == Type::u32 ? Type::u32 : Type::s32;
  in.op = b == "dp4a" ? Op::dp4a : Op::dp2a;
  in.t = ta;
  in.t2 = tb;
  if (m.hi) in.flags |= kHi;
  emit(in, {dst(ops[0], ct)}, {src(ops[1], ta), src(ops[2], tb), src(ops[3], ct)});
  return;
}

void Parser::dec_testp(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  need(ops, 2, opname, L);
  in.t = one_type(m, opname, L);
  if (in.t != Type::f32 && in.t != Type::f64) unsupported(L, opname);
  in.op = Op::testp;
  // testp kinds: 0 finite, 1 infinite, 2 number, 3 notanumber, 4 normal, 5 subnormal.
  static const char* kinds[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
  int kind = -1;
  for (std::string_view w : m.words)
    for (int k = 0; k < 6; ++k)
      if (w == kinds[k]) kind = k;
  if (kind < 0 || m.words.size() != 1) unsupported(L, opname);
  in.sub = static_cast<std::uint8_t>(kind);
  emit(in, {pdst(ops[0])}, {src(ops[1], in.t)});
  return;
}

void Parser::dec_lop3(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  need(ops, 5, opname, L);
  in.t = one_type(m, opname, L);
  no_words(m, opname, L);
  if (in.t != Type::b32) unsupported(L, opname);
  in.op = Op::lop3;
  if (ops[4].kind != ROp::imm) fail(L, "lop3's table must be a literal");
  in.imm = static_cast<std::int64_t>(literal(ops[4].name, L).i & 0xFF);
  emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t), src(ops[2], in.t), src(ops[3], in.t)});
  return;
}

void Parser::dec_prmt(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  need(ops, 4, opname, L);
  in.t = one_type(m, opname, L);
  if (in.t != Type::b32) unsupported(L, opname);
  in.op = Op::prmt;
  if (m.words.empty())
    in.sub = 0;
  else if (m.words.size() == 1) {
    static const char* modes[] = {"", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
    in.sub = 0xFF;
    for (int k = 1; k < 7; ++k)
      if (m.words[0] == modes[k]) in.sub = static_cast<std::uint8_t>(k);
    if (in.sub == 0xFF) unsupported(L, opname);
  } else
    unsupported(L, opname);
  emit(in, {dst(ops[0], Type::b32)}, {src(ops[1], Type::b32), src(ops[2], Type::b32), src(ops[3], Type::b32)});
  return;
}

void Parser::dec_bfe(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base, opname = m.name;
  const std::uint32_t L = in.line;
  in.t = one_type(m, opname, L);
  no_words(m, opname, L);
  if (type_bits(in.t) < 32) unsupported(L, opname);
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

void Parser::dec_sad(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  need(ops, 4, opname, L);
  in.t = one_type(m, opname, L);
  in.op = Op::sad;
  if (type_is_float(in.t) || in.t == Type::pred || type_bits(in.t) < 16) unsupported(L, opname);
  emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t), src(ops[2], in.t), src(ops[3], in.t)});
  return;
}

// The scalar video instructions (PTX ISA "Scalar Video Instructions", vadd/vsub/vabsdiff/vmin/vmax,
// vshl/vshr, vset): vop.dtype.atype.btype{.sat}{.op2} d, a{.asel}, b{.bsel}{, c} and the merge form
// vop.dtype.atype.btype{.sat} d.dsel, a{.asel}, b{.bsel}, c; vshl/vshr take .u32 as btype and a
// mode (.clamp/.wrap); vset.atype.btype.cmp has no dtype (unsigned) and no .sat. A selector is a
// suffix of the register's name (%r2.b0, %r3.h1).
void Parser::dec_video(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base, opname = m.name;
  const std::uint32_t L = in.line;
  static const std::pair<const char*, VideoOp> kOps[] = {{"vadd", VideoOp::add}, {"vsub", VideoOp::sub}, {"vabsdiff", VideoOp::absdiff},
                                                         {"vmin", VideoOp::min}, {"vmax", VideoOp::max}, {"vshl", VideoOp::shl},
                                                         {"vshr", VideoOp::shr}, {"vset", VideoOp::set}};
  VideoOp op = VideoOp::add;
  for (const auto& [n, o] : kOps)
    if (b == n) op = o;
  const bool is_set = op == VideoOp::set, is_shift = op == VideoOp::shl || op == VideoOp::shr;
  const std::size_t ntypes = is_set ? 2 : 3;
  if (m.types.size() != ntypes)
    fail(L, std::string(opname) + " needs " + (is_set ? "two types (.atype.btype)" : "three types (.dtype.atype.btype)"));
  for (Type t : m.types)
    if (t != Type::u32 && t != Type::s32) fail(L, std::string(opname) + ": the video instructions' types are .u32 and .s32");
  const Type dt = is_set ? Type::u32 : m.types[0], at = m.types[ntypes - 2], bt = m.types[ntypes - 1];
  if (is_shift && bt != Type::u32) fail(L, std::string(opname) + ": the shift amount's type is .u32");
  int op2 = 0, mode = -1, cmp = -1;
  static const char* kOp2[] = {"add", "min", "max"};
  static const char* kCmp[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  for (std::string_view w : m.words) {
    for (int k = 0; k < 3; ++k)
      if (w == kOp2[k]) op2 = op2 ? -1 : k + 1;
    if (w == "clamp" || w == "wrap") mode = mode == -1 ? (w == "wrap") : -2;
    for (int k = 0; k < 6; ++k)
      if (w == kCmp[k]) cmp = cmp == -1 ? k : -2;
  }
  if (op2 < 0 || mode == -2 || cmp == -2) fail(L, std::string(opname) + ": one secondary operation, mode and comparison at most");
  if (is_shift != (mode >= 0))
    fail(L, std::string(opname) + (is_shift ? " needs a mode (.clamp or .wrap)" : ": .clamp/.wrap are vshl/vshr's"));
  if (is_set != (cmp >= 0)) fail(L, std::string(opname) + (is_set ? " needs a comparison (.eq .ne .lt .le .gt .ge)" : ": no comparison"));
  if (is_set && m.sat) fail(L, std::string(opname) + ": vset has no .sat");
  // vshl's intermediate is .s34 (PTX ISA), which a left shift by up to 32 leaves: what .sat clamps
  // is not defined by the manual, so the form is refused rather than guessed.
  if (op == VideoOp::shl && m.sat)
    fail(L, std::string(opname) + " is not supported (vshl with .sat: the ISA's .s34 intermediate of a left shift is not defined)");
  // A selector: the register's name ends in .b0 .. .b3, .h0 or .h1.
  auto selector = [&](ROp& o) -> int {
    if (o.kind != ROp::reg) return 0;
    static const char* kSel[] = {"b0", "b1", "b2", "b3", "h0", "h1"};
    const std::size_t dot = o.name.rfind('.');
    if (dot == std::string_view::npos || find_reg(o.name)) return 0;
    for (int k = 0; k < 6; ++k)
      if (o.name.substr(dot + 1) == kSel[k]) {
        o.name = o.name.substr(0, dot);
        return k + 1;
      }
    return 0;
  };
  if (ops.size() != 3 && ops.size() != 4) fail(L, std::string(opname) + " takes d, a, b or d, a, b, c");
  const int dsel = selector(ops[0]), asel = selector(ops[1]), bsel = selector(ops[2]);
  if (ops.size() == 3 && (dsel || op2)) fail(L, std::string(opname) + ": a secondary operation or a destination selector needs c");
  if (ops.size() == 4 && !dsel && !op2)
    fail(L, std::string(opname) + ": c needs a secondary operation (.add .min .max) or a destination selector (d.b0 .. d.h1)");
  if (dsel && op2) fail(L, std::string(opname) + ": a destination selector and a secondary operation together");
  in.op = Op::video;
  in.t = dt;
  in.t2 = at;
  in.sub = static_cast<std::uint8_t>(op);
  in.sub2 = static_cast<std::uint8_t>(op2 | (dsel << 2) | (mode == 1 ? 32 : 0));
  in.imm = asel | (bsel << 3) | (type_is_signed(bt) ? 64 : 0) | ((cmp < 0 ? 0 : cmp) << 8);
  std::vector<std::uint32_t> sv{src(ops[1], at), src(ops[2], bt)};
  if (ops.size() == 4) sv.push_back(src(ops[3], dt));
  emit(in, {dst(ops[0], dt)}, sv);
}

void Parser::dec_setp(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base, opname = m.name;
  const std::uint32_t L = in.line;
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
  if (t == Type::pred || t == Type::e4m3x2 || t == Type::e5m2x2) unsupported(L, opname);
  if (!type_is_float(t) && cmp >= 10) fail(L, std::string(opname) + ": an unordered comparison on an integer type");
  if (type_is_float(t) && cmp >= 6 && cmp <= 9) fail(L, std::string(opname) + ": .lo/.ls/.hi/.hs compare integers");
  const bool x2 = t == Type::f16x2 || t == Type::bf16x2;
  in.sub = static_cast<std::uint8_t>(cmp);
  in.sub2 = static_cast<std::uint8_t>(bop);
  std::vector<std::uint32_t> d;
  if (ops.empty()) unsupported(L, opname);
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

void Parser::dec_selp(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  need(ops, 4, opname, L);
  in.t = one_type(m, opname, L);
  no_words(m, opname, L);
  in.op = Op::selp;
  if (in.t == Type::pred || in.t == Type::f16 || in.t == Type::f16x2 || in.t == Type::bf16 || in.t == Type::bf16x2) unsupported(L, opname);
  emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t), src(ops[2], in.t), psrc(ops[3])});
  return;
}

void Parser::dec_slct(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  need(ops, 4, opname, L);
  if (m.types.size() != 2) unsupported(L, opname);
  in.t = m.types[0];
  in.t2 = m.types[1];
  in.op = Op::slct;
  if (in.t2 != Type::s32 && in.t2 != Type::f32) unsupported(L, opname);
  if (m.ftz && in.t2 != Type::f32) unsupported(L, opname);
  emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t), src(ops[2], in.t), src(ops[3], in.t2)});
  return;
}

// and/or/xor/not: on predicates, or the bitwise forms (binary, unary).
void Parser::dec_logic(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  if (m.types.size() == 1 && m.types[0] == Type::pred) return dec_pred_logic(in, m, ops);
  if (m.base == "not") return dec_unary(in, m, ops);
  dec_binary(in, m, ops);
}

void Parser::dec_mul24(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  if (m.hi) return dec_mul24_hi(in, m, ops);
  dec_mul(in, m, ops);
}
}  // namespace rrswin::ptx
