// The warp collectives: mma (through the engine's SIMD kernels, engine/mma_tile), movmatrix,
// ldmatrix/stmatrix, shfl, vote, match, redux, bar.warp.sync. A warp's lanes run in lockstep here.
#include <algorithm>
#include <bit>
#include <cstring>
#include <sstream>

#include "engine/mma_tile.hpp"
#include "engine/simd.hpp"
#include "numerics/mma.hpp"
#include "numerics/mma_int.hpp"
#include "numerics/warp.hpp"
#include "ptx/exec.hpp"

namespace rrswin::ptx::detail {

namespace {

std::string hex(std::uint32_t x) {
  std::ostringstream o;
  o << "0x" << std::hex << x;
  return o.str();
}

}  // namespace

void Cta::exec_mma(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  if (am != kFull) fail("mma.sync.aligned on a warp whose 32 lanes are not all active (active " + hex(am) + ")");
  MmaFragA fa;
  MmaFragB fb;
  MmaFragC fc;
  for (int l = 0; l < 32; ++l) {
    for (int k = 0; k < 4; ++k) fa.reg[l][k] = static_cast<std::uint32_t>(R(w, s[k])[l]);
    for (int k = 0; k < 2; ++k) fb.reg[l][k] = static_cast<std::uint32_t>(R(w, s[4 + k])[l]);
    for (int k = 0; k < 2; ++k) fc.reg[l][k] = static_cast<std::uint32_t>(R(w, s[6 + k])[l]);
  }
  // The 128 outputs at once through the engine's SIMD GEMM kernels (engine/mma_tile.hpp: equal
  // to mma_dot per element; NaN codes and non-default corners take numerics' exact path).
  static const engine::SimdPath mma_path = engine::default_simd_path();
  const MmaFragC fd = engine::mma_fragment(s_.profile, mma_path, fa, fb, fc);
  for (int l = 0; l < 32; ++l)
    for (int k = 0; k < 2; ++k) R(w, d[k])[l] = fd.reg[l][k];
  st_->mma++;
}

// Integer mma (numerics/mma_int: exact, .satfinite clamps, else wraps): all 32 lanes.
void Cta::exec_mma_int(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  if (am != kFull) fail("mma.sync.aligned on a warp whose 32 lanes are not all active (active " + hex(am) + ")");
  MmaIntForm f;
  f.shape = static_cast<MmaIntShape>(in.sub & 3);
  f.a_signed = in.sub & 4;
  f.b_signed = in.sub & 8;
  f.satfinite = in.sub & 16;
  const int na = mma_int_a_regs(f.shape), nb = mma_int_b_regs(f.shape), nc = mma_int_cd_regs(f.shape);
  MmaIntRegs a, b, c;
  for (int l = 0; l < 32; ++l) {
    for (int k = 0; k < na; ++k) a.r[l][k] = static_cast<std::uint32_t>(R(w, s[k])[l]);
    for (int k = 0; k < nb; ++k) b.r[l][k] = static_cast<std::uint32_t>(R(w, s[na + k])[l]);
    for (int k = 0; k < nc; ++k) c.r[l][k] = static_cast<std::uint32_t>(R(w, s[na + nb + k])[l]);
  }
  const MmaIntRegs r = mma_int(f, a, b, c);
  for (int l = 0; l < 32; ++l)
    for (int k = 0; k < nc; ++k) R(w, d[k])[l] = r.r[l][k];
  st_->mma++;
}

void Cta::exec_movmatrix(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  if (am != kFull) fail("movmatrix.sync.aligned on a warp whose 32 lanes are not all active (active " + hex(am) + ")");
  WarpReg a;
  for (int l = 0; l < 32; ++l) a[l] = static_cast<std::uint32_t>(R(w, s[0])[l]);
  const WarpReg r = movmatrix_trans(a);
  for (int l = 0; l < 32; ++l) R(w, d[0])[l] = r[l];
}

void Cta::exec_ldmatrix(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  // Matrix j's row i is 16 bytes at the address of lane 8j + i; register j of lane l holds
  // elements (l/4, 2(l%4)) and (l/4, 2(l%4)+1) of matrix j, low half first; .trans swaps row
  // and column (PTX ISA ldmatrix / stmatrix).
  if (am != kFull)
    fail(std::string(in.op == Op::ldmatrix ? "ldmatrix" : "stmatrix") +
         ".sync.aligned on a warp whose 32 lanes are not all active (active " + hex(am) + ")");
  const int num = in.sub & 0xF;
  const bool trans = (in.sub & 0x10) != 0;
  const Space sp = static_cast<Space>(in.sub2);
  const std::uint64_t* base = R(w, s[0]);
  std::uint16_t mat[4][8][8];
  auto element = [&](int j, int l, int half) -> std::uint16_t& {
    const int r = l / 4, c = 2 * (l % 4) + half;
    return trans ? mat[j][c][r] : mat[j][r][c];
  };
  if (in.op == Op::stmatrix)
    for (int j = 0; j < num; ++j)
      for (int l = 0; l < 32; ++l) {
        const std::uint64_t x = R(w, s[1 + j])[l];
        element(j, l, 0) = static_cast<std::uint16_t>(x);
        element(j, l, 1) = static_cast<std::uint16_t>(x >> 16);
      }
  for (int j = 0; j < num; ++j)
    for (int i = 0; i < 8; ++i) {
      const int lane = 8 * j + i;
      std::uint8_t* p = resolve(sp, base[lane] + static_cast<std::uint64_t>(in.imm), 16, in.op == Op::stmatrix, lane);
      if (in.op == Op::ldmatrix)
        std::memcpy(mat[j][i], p, 16);
      else
        std::memcpy(p, mat[j][i], 16);
    }
  if (in.op == Op::ldmatrix)
    for (int j = 0; j < num; ++j)
      for (int l = 0; l < 32; ++l) R(w, d[j])[l] = element(j, l, 0) | (static_cast<std::uint64_t>(element(j, l, 1)) << 16);
}

// shfl, vote, match, redux, bar.warp.sync: the membermask operand (vote without .sync: the active
// lanes) must name exactly the active lanes.
void Cta::exec_collective(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  // The membermask operand (vote without .sync: the active lanes). A warp's lanes run in
  // lockstep here, so every lane of the membermask must execute the instruction together;
  // a membermask naming lanes on another path (or exited) is an error, not a hang.
  std::uint32_t member = am;
  if (!(in.op == Op::vote && in.sub2 == 1)) {
    const std::uint32_t mm_reg = in.op == Op::shfl ? s[3] : in.op == Op::warpsync ? s[0] : s[in.ns - 1];
    member = static_cast<std::uint32_t>(R(w, mm_reg)[std::countr_zero(am)]);
    for (std::uint32_t m = am; m; m &= m - 1)
      if (static_cast<std::uint32_t>(R(w, mm_reg)[std::countr_zero(m)]) != member) fail("membermask differs between lanes");
  }
  // vote.sync reduces "across all non-exited threads in membermask" and waits for the
  // non-exited ones only (PTX ISA "vote.sync"): a lane of the membermask that has exited (or does
  // not exist) takes no part (its ballot bit is 0), so the live members must be the active lanes.
  if (in.op == Op::vote && (member & ~w.exited) == am) member = am;
  if (member != am)
    fail(s_.m.opcode_names[in.name] + ": the active lanes " + hex(am) + " are not the membermask " + hex(member) +
         (in.op == Op::vote ? " (less its exited lanes " + hex(w.exited & member) + ")" : std::string()));
  switch (in.op) {
    case Op::match: exec_match(w, in, d, s, am); return;
    case Op::redux: exec_redux(w, in, d, s, am); return;
    case Op::vote: exec_vote(w, in, d, s, am); return;
    case Op::shfl: exec_shfl(w, in, d, s, am); return;
    default: return;  // bar.warp.sync
  }
}

void Cta::exec_match(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  std::uint64_t v[32];
  std::uint32_t all_eq = 0;
  const std::uint64_t* a = R(w, s[0]);
  const int wd = type_bits(in.t);
  LANES {
    std::uint32_t same = 0;
    for (std::uint32_t m = am; m; m &= m - 1) {
      const int k = std::countr_zero(m);
      if (trunc(a[k], wd) == trunc(a[l], wd)) same |= 1u << k;
    }
    v[l] = same;
    if (l == std::countr_zero(am)) all_eq = same == am ? 1 : 0;
  }
  if (in.sub) LANES v[l] = all_eq ? am : 0;  // match.all: the mask when all agree, else 0
  put(R(w, d[0]), v, am);
  if (in.nd > 1) put_pred(w, d[1], all_eq ? kFull : 0, am);
}

void Cta::exec_redux(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const std::uint64_t* a = R(w, s[0]);
  const bool sg = in.t == Type::s32;
  std::int64_t acc = 0;
  bool first = true;
  for (std::uint32_t m = am; m; m &= m - 1) {
    const int k = std::countr_zero(m);
    const std::int64_t x = sg ? sext(a[k], 32) : static_cast<std::int64_t>(trunc(a[k], 32));
    switch (in.sub) {
      case 0: acc += x; break;
      case 1: acc = first ? x : std::min(acc, x); break;
      case 2: acc = first ? x : std::max(acc, x); break;
      case 3: acc = first ? x : (acc & x); break;
      case 4: acc |= x; break;
      case 5: acc ^= x; break;
    }
    first = false;
  }
  std::uint64_t v[32];
  LANES v[l] = trunc(static_cast<std::uint64_t>(acc), 32);
  put(R(w, d[0]), v, am);
}

void Cta::exec_vote(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const std::uint32_t p = pred_value(w, s[0]) & am;
  switch (static_cast<VoteMode>(in.sub)) {
    case VoteMode::ballot: {
      std::uint64_t v[32];
      LANES v[l] = p;
      put(R(w, d[0]), v, am);
      return;
    }
    case VoteMode::all: put_pred(w, d[0], p == am ? kFull : 0, am); return;
    case VoteMode::any: put_pred(w, d[0], p != 0 ? kFull : 0, am); return;
    case VoteMode::uni: put_pred(w, d[0], (p == am || p == 0) ? kFull : 0, am); return;
  }
}

void Cta::exec_shfl(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = R(w, s[1]);
  const std::uint64_t* c = R(w, s[2]);
  std::uint64_t v[32];
  std::uint32_t pv = 0;
  const ShflKind kind = static_cast<ShflKind>(in.sub);
  LANES {
    const ShflSource src = shfl_source(kind, static_cast<unsigned>(l), static_cast<std::uint32_t>(b[l]), static_cast<std::uint32_t>(c[l]));
    v[l] = trunc(a[src.lane], 32);
    pv |= static_cast<std::uint32_t>(src.in_range) << l;
  }
  put(R(w, d[0]), v, am);
  if (in.nd > 1) put_pred(w, d[1], pv, am);
}

}  // namespace rrswin::ptx::detail
