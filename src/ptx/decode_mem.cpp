// The decoders of the conversion and memory families (instructions.def, decode.cpp).
#include "ptx/parser.hpp"

namespace rrswin::ptx {

void Parser::dec_cvt_pack(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
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
      unsupported(L, opname);
  }
  const bool with_c = bits <= 8;
  if (!m.sat || bits == 0 || m.types.size() != ti + (with_c ? 2 : 1) || m.types[ti] != Type::s32 ||
      (with_c && m.types[ti + 1] != Type::b32) || m.rnd != Rnd::none || m.ftz || m.relu || m.satfinite)
    unsupported(L, opname);
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

// The packed and minifloat forms of cvt (e4m3x2, e5m2x2, bf16, bf16x2, f16x2): true when the
// instruction is one of them (emitted), false for the other conversions.
bool Parser::dec_cvt_minifloat(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  const Type dt = in.t, st = in.t2;
  const bool packed = dt == Type::e4m3x2 || dt == Type::f16x2;
  if (packed && (m.sat || m.ftz)) unsupported(L, opname);
  if (dt == Type::e4m3x2 && st == Type::f16x2) {
    if (m.rnd != Rnd::rn || !m.satfinite) fail(L, "only cvt.rn.satfinite.e4m3x2.f16x2 is supported");
    need(ops, 2, opname, L);
    in.op = Op::cvt_e4m3x2_f16x2;
    emit(in, {dst(ops[0], dt)}, {src(ops[1], st)});
    return true;
  }
  if (dt == Type::f16x2 && st == Type::e4m3x2) {
    if (m.rnd != Rnd::rn) fail(L, "cvt.f16x2.e4m3x2 needs .rn");
    need(ops, 2, opname, L);
    in.op = Op::cvt_f16x2_e4m3x2;
    emit(in, {dst(ops[0], dt)}, {src(ops[1], st)});
    return true;
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
      return true;
    }
  }
  if (dt == Type::f16x2 && st == Type::f32) {
    if (m.rnd != Rnd::rn || m.satfinite) unsupported(L, opname);
    need(ops, 3, opname, L);
    in.op = Op::cvt_pack_f16x2_f32;
    emit(in, {dst(ops[0], dt)}, {src(ops[1], st), src(ops[2], st)});
    return true;
  }
  return false;
}

void Parser::dec_cvt(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  if (m.has("pack")) return dec_cvt_pack(in, m, ops);
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  if (m.types.size() != 2) fail(L, "cvt needs a destination and a source type");
  const Type dt = m.types[0], st = m.types[1];
  in.t = dt;
  in.t2 = st;
  // cvt.rn.relu.{f16,f16x2,bf16,bf16x2}.f32 (PTX ISA cvt): numerics' f16_relu / bf16_relu of
  // each result half.
  // cvt.rn.satfinite.relu.e4m3x2.f16x2 (enc0's embedding, HIP-e0 relu_pair): numerics'
  // cvt_e4m3x2_f16x2_relu.
  if (m.relu) {
    const bool e4m3_relu = dt == Type::e4m3x2 && st == Type::f16x2 && m.rnd == Rnd::rn && m.satfinite && !m.sat && !m.ftz;
    if (!e4m3_relu && (st != Type::f32 || (dt != Type::f16 && dt != Type::f16x2 && dt != Type::bf16 && dt != Type::bf16x2) ||
                       m.rnd != Rnd::rn || m.sat || m.ftz || m.satfinite))
      fail(L,
           std::string(opname) + " is not supported (.relu: cvt.rn.relu.{f16,f16x2,bf16,bf16x2}.f32, cvt.rn.satfinite.relu.e4m3x2.f16x2)");
    in.sub2 = kRelu;
  }
  if (dec_cvt_minifloat(in, m, ops)) return;
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
    if (!narrowing && dt != st && m.rnd != Rnd::none) unsupported(L, opname);
    if (dt == st && m.rnd != Rnd::rni && m.rnd != Rnd::rzi && m.rnd != Rnd::rmi && m.rnd != Rnd::rpi && m.rnd != Rnd::none)
      unsupported(L, opname);
  } else if (df && !sf) {
    const bool directed = m.rnd == Rnd::rz || m.rnd == Rnd::rm || m.rnd == Rnd::rp;
    if (m.rnd != Rnd::rn && !(directed && dt != Type::f16))
      fail(L, std::string(opname) + ": integer -> float needs .rn, .rz, .rm or .rp (f16: .rn)");
  } else if (!df && sf) {
    if (m.rnd != Rnd::rni && m.rnd != Rnd::rzi && m.rnd != Rnd::rmi && m.rnd != Rnd::rpi)
      fail(L, std::string(opname) + ": float -> integer needs .rni/.rzi/.rmi/.rpi");
  } else if (m.rnd != Rnd::none) {
    unsupported(L, opname);
  }
  if (m.ftz && st != Type::f32 && dt != Type::f32) unsupported(L, opname);
  if (m.sat && dt == Type::f16 && st != Type::f32 && st != Type::f64)
    fail(L, std::string(opname) + ": .sat with an f16 destination needs an f32 or f64 source");
  need(ops, 2, opname, L);
  in.op = Op::cvt;
  in.dbits = dst_bits(ops[0]);  // the result is sign- or zero-extended to it (PTX ISA 9.4.1)
  emit(in, {dst(ops[0], dt)}, {src(ops[1], st)});
}

void Parser::dec_cvta(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  need(ops, 2, opname, L);
  no_words(m, opname, L);
  in.t = one_type(m, opname, L);
  if (in.t != Type::u64 && in.t != Type::u32) unsupported(L, opname);
  if (!m.space_set || m.space == Space::generic) fail(L, "cvta needs a state space");
  in.op = Op::cvta;
  in.sub = static_cast<std::uint8_t>(m.space);
  in.sub2 = m.to ? 1 : 0;
  emit(in, {dst(ops[0], in.t)}, {src(ops[1], in.t)});
  return;
}

void Parser::dec_ldst(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base, opname = m.name;
  const std::uint32_t L = in.line;
  for (std::string_view w : m.words)
    if (!is_cache_word(w)) fail(L, "unsupported modifier ." + std::string(w) + " in " + std::string(opname));
  const Type t = one_type(m, opname, L);
  if (t == Type::pred || (type_is_float(t) && t != Type::f32 && t != Type::f64 && t != Type::f16 && t != Type::f16x2))
    unsupported(L, opname);
  // .v8 (PTX ISA 8.8 "ld"/"st", sm_100+): eight 32-bit elements, 256 bits, in the .global state
  // space only; ldu has no .v8.
  if (m.vec == 8 && (b == "ldu" || type_bits(t) != 32 || !m.space_set || m.space != Space::global))
    fail(L, std::string(opname) + " is not supported (.v8 is ld/st.global.v8 of a 32-bit type: .b32 .u32 .s32 .f32)");
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
      // Generic ld/st of a variable (PTX ISA "Generic Addressing"): its generic address, the cvta
      // of its state-space address (a .local variable's window reaches each lane's own copy). A
      // parameter stays ld.param's (a body's .param variables live in local memory here).
      if (m.space == Space::generic && (ss == Space::param || param_locals_.count(a.name)))
        fail(L, std::string(opname) + ": the parameter " + std::string(a.name) + " with generic ld/st (use ld.param/st.param)");
      in.imm += static_cast<std::int64_t>(m.space == Space::generic ? generic_address(ss, sa) : sa);
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

void Parser::dec_atom(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view b = m.base, opname = m.name;
  const std::uint32_t L = in.line;
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
  if (m.space_set && m.space != Space::global && m.space != Space::shared) unsupported(L, opname);
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

void Parser::dec_tex(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
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

void Parser::dec_sust(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
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

void Parser::dec_cp(Inst& in, const Mods& m, std::vector<ROp>& ops) {
  const std::string_view opname = m.name;
  const std::uint32_t L = in.line;
  // cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | ignore-src}{, policy}
  // (9.7.9.25): the copy completes when issued (src-size bytes, the rest of cp-size zero-filled;
  // none where the predicate ignore-src holds), so
  // cp.async.commit_group / wait_group N / wait_all have nothing to wait for (docs/ptx.md).
  if (!m.has("async")) unsupported(L, opname);
  if (m.has("commit_group") || m.has("wait_group") || m.has("wait_all")) {
    need(ops, m.has("wait_group") ? 1 : 0, opname, L);
    in.op = Op::nop;
    emit(in, {}, {});
    return;
  }
  auto named = [&](std::string_view w) { return std::find(m.all.begin(), m.all.end(), w) != m.all.end(); };
  if ((!m.has("ca") && !m.has("cg")) || !(named("shared") || named("shared::cta")) || !named("global")) unsupported(L, opname);
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
  // The fourth operand: src-size (a .u32 register or literal, below cp-size: the rest is
  // zero-filled), or ignore-src, a predicate register (not a literal: the ISA's "non-immediate
  // predicate"): where it holds, the source is not read and cp-size zero bytes are written.
  const bool ignore_src = n == 4 && ops[3].kind == ROp::reg && is_pred(ops[3]);
  if (n == 4 && ops[3].kind == ROp::imm && literal(ops[3].name, L).i > size)
    fail(L, std::string(opname) + ": src-size " + std::string(ops[3].name) + " exceeds cp-size " + std::to_string(size));
  in.sub2 = ignore_src ? 1 : 0;
  std::vector<std::uint32_t> sv{db, sb, ignore_src ? psrc(ops[3]) : n == 4 ? src(ops[3], Type::u32) : constant(size)};
  emit(in, {}, sv);
  return;
}
}  // namespace rrswin::ptx
