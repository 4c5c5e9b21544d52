// The integer, bit, logic, compare and select operations (exact by definition: the PTX ISA's
// semantics), one function per family; exec.cpp's kExec table routes each Op here.
#include <algorithm>
#include <bit>
#include <cmath>

#include "numerics/f16.hpp"
#include "numerics/fp_class.hpp"
#include "numerics/minifloat.hpp"
#include "ptx/exec.hpp"

namespace rrswin::ptx::detail {

namespace {

// The comparisons of setp / set: the ordered ones are false and the unordered ones true when either
// float operand is NaN; integers compare signed for signed types except .lo/.ls/.hi/.hs (PTX ISA
// "setp").
// The relations a float comparison accepts (numerics/fp_class), per Cmp (ir.hpp); 0 for the
// integer-only .lo/.ls/.hi/.hs, which the decoder rejects on float types.
std::uint8_t float_compare_mask(Cmp cmp) {
  switch (cmp) {
    case Cmp::eq: return fp_compare_mask(FpCompare::eq);
    case Cmp::ne: return fp_compare_mask(FpCompare::ne);
    case Cmp::lt: return fp_compare_mask(FpCompare::lt);
    case Cmp::le: return fp_compare_mask(FpCompare::le);
    case Cmp::gt: return fp_compare_mask(FpCompare::gt);
    case Cmp::ge: return fp_compare_mask(FpCompare::ge);
    case Cmp::equ: return fp_compare_mask(FpCompare::equ);
    case Cmp::neu: return fp_compare_mask(FpCompare::neu);
    case Cmp::ltu: return fp_compare_mask(FpCompare::ltu);
    case Cmp::leu: return fp_compare_mask(FpCompare::leu);
    case Cmp::gtu: return fp_compare_mask(FpCompare::gtu);
    case Cmp::geu: return fp_compare_mask(FpCompare::geu);
    case Cmp::num: return fp_compare_mask(FpCompare::num);
    case Cmp::nan: return fp_compare_mask(FpCompare::nan);
    default: return 0;
  }
}

// The relation of two float operands of type t (numerics/fp_class; .ftz flushes subnormal inputs).
std::uint8_t float_relation(Type t, std::uint64_t a, std::uint64_t b, bool ftz_on) {
  switch (t) {
    case Type::f16: return f16_relation(static_cast<std::uint16_t>(a), static_cast<std::uint16_t>(b), ftz_on);
    case Type::bf16: return bf16_relation(static_cast<std::uint16_t>(a), static_cast<std::uint16_t>(b), ftz_on);
    case Type::f32: return f32_relation(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b), ftz_on);
    default: return f64_relation(a, b);
  }
}

// An integer comparison (exact by definition); .lo/.ls/.hi/.hs compare unsigned whatever the type.
bool int_compare(Cmp cmp, std::uint64_t a, std::uint64_t b, int wd, bool sg) {
  const bool use_signed = sg && cmp != Cmp::lo && cmp != Cmp::ls && cmp != Cmp::hi && cmp != Cmp::hs;
  const std::int64_t xs = sext(a, wd), ys = sext(b, wd);
  const std::uint64_t xu = trunc(a, wd), yu = trunc(b, wd);
  switch (cmp) {
    case Cmp::eq: return xu == yu;
    case Cmp::ne: return xu != yu;
    case Cmp::lt:
    case Cmp::lo: return use_signed ? xs < ys : xu < yu;
    case Cmp::le:
    case Cmp::ls: return use_signed ? xs <= ys : xu <= yu;
    case Cmp::gt:
    case Cmp::hi: return use_signed ? xs > ys : xu > yu;
    case Cmp::ge:
    case Cmp::hs: return use_signed ? xs >= ys : xu >= yu;
    default: return false;  // unordered comparisons on an integer type: rejected by the decoder
  }
}

}  // namespace

// mov (also pack/unpack), predicate logic, cvta.
void Cta::exec_move(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const int wd = type_bits(in.t);
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  switch (in.op) {
    case Op::mov: LANES v[l] = trunc(a[l], wd); break;
    case Op::pack: {
      const int pw = in.sub;
      LANES {
        std::uint64_t x = 0;
        for (int k = 0; k < in.ns; ++k) x |= trunc(R(w, s[k])[l], pw) << (k * pw);
        v[l] = x;
      }
      put(R(w, d[0]), v, am);
      return;
    }
    case Op::unpack: {
      const int pw = in.sub;
      for (int k = 0; k < in.nd; ++k) {
        LANES v[l] = trunc(a[l] >> (k * pw), pw);
        put(R(w, d[k]), v, am);
      }
      return;
    }
    case Op::vmov: {
      // mov.v2/.v4: every source read before any destination is written.
      std::uint64_t t[4][32];
      for (int k = 0; k < in.ns; ++k) LANES t[k][l] = trunc(R(w, s[k])[l], wd);
      for (int k = 0; k < in.nd; ++k) put(R(w, d[k]), t[k], am);
      return;
    }
    case Op::pmov: put_pred(w, d[0], pred_value(w, s[0]), am); return;
    case Op::pnot: put_pred(w, d[0], ~pred_value(w, s[0]), am); return;
    case Op::pand: put_pred(w, d[0], pred_value(w, s[0]) & pred_value(w, s[1]), am); return;
    case Op::por: put_pred(w, d[0], pred_value(w, s[0]) | pred_value(w, s[1]), am); return;
    case Op::pxor: put_pred(w, d[0], pred_value(w, s[0]) ^ pred_value(w, s[1]), am); return;
    case Op::cvta: {
      const Space sp = static_cast<Space>(in.sub);
      std::uint64_t win = 0;
      if (sp == Space::shared)
        win = kSharedWindow;
      else if (sp == Space::local)
        win = kLocalWindow;
      else if (sp == Space::constant)
        win = kConstWindow;
      if (in.sub2) {
        LANES v[l] = trunc(win && (a[l] & kWindowMask) == win ? a[l] - win : a[l], wd);
      } else {
        LANES v[l] = trunc(a[l] + win, wd);
      }
      break;
    }
    default: fail("instruction not implemented by the executor");
  }
  put(R(w, d[0]), v, am);
}

// add/sub (.sat), mul/mad (.lo/.hi/.wide), mul24/mad24.
void Cta::exec_add_mul(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const int wd = type_bits(in.t);
  const bool sg = type_is_signed(in.t);
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  const std::uint64_t* c = in.ns > 2 ? R(w, s[2]) : nullptr;
  switch (in.op) {
    case Op::add:
      if (in.flags & kSat) {
        LANES {
          const std::int64_t x = sext(a[l], 32) + sext(b[l], 32);
          v[l] = trunc(static_cast<std::uint64_t>(std::clamp<std::int64_t>(x, INT32_MIN, INT32_MAX)), 32);
        }
      } else {
        LANES v[l] = trunc(a[l] + b[l], wd);
      }
      break;
    case Op::sub:
      if (in.flags & kSat) {
        LANES {
          const std::int64_t x = sext(a[l], 32) - sext(b[l], 32);
          v[l] = trunc(static_cast<std::uint64_t>(std::clamp<std::int64_t>(x, INT32_MIN, INT32_MAX)), 32);
        }
      } else {
        LANES v[l] = trunc(a[l] - b[l], wd);
      }
      break;
    case Op::mul_lo: LANES v[l] = trunc(a[l] * b[l], wd); break;
    case Op::mul_hi:
      LANES {
        __int128 p = sg ? static_cast<__int128>(sext(a[l], wd)) * sext(b[l], wd)
                        : static_cast<__int128>(static_cast<unsigned __int128>(trunc(a[l], wd)) * trunc(b[l], wd));
        v[l] = trunc(static_cast<std::uint64_t>(static_cast<unsigned __int128>(p) >> wd), wd);
      }
      break;
    case Op::mul_wide:
      LANES v[l] = trunc(sg ? static_cast<std::uint64_t>(sext(a[l], wd) * sext(b[l], wd)) : trunc(a[l], wd) * trunc(b[l], wd), 2 * wd);
      break;
    case Op::mad_lo: LANES v[l] = trunc(a[l] * b[l] + c[l], wd); break;
    case Op::mad_hi:
      LANES {
        __int128 p = sg ? static_cast<__int128>(sext(a[l], wd)) * sext(b[l], wd)
                        : static_cast<__int128>(static_cast<unsigned __int128>(trunc(a[l], wd)) * trunc(b[l], wd));
        v[l] = trunc((static_cast<std::uint64_t>(static_cast<unsigned __int128>(p) >> wd)) + c[l], wd);
      }
      break;
    case Op::mad_wide:
      LANES v[l] =
          trunc((sg ? static_cast<std::uint64_t>(sext(a[l], wd) * sext(b[l], wd)) : trunc(a[l], wd) * trunc(b[l], wd)) + c[l], 2 * wd);
      break;
    case Op::mul24_lo:
    case Op::mad24_lo:
      LANES {
        const std::uint64_t x = sg ? static_cast<std::uint64_t>(sext(a[l], 24)) : trunc(a[l], 24);
        const std::uint64_t y = sg ? static_cast<std::uint64_t>(sext(b[l], 24)) : trunc(b[l], 24);
        v[l] = trunc(x * y + (in.op == Op::mad24_lo ? c[l] : 0), 32);
      }
      break;
    case Op::mul24_hi:
    case Op::mad24_hi:
      LANES {
        const std::int64_t x = sg ? sext(a[l], 24) : static_cast<std::int64_t>(trunc(a[l], 24));
        const std::int64_t y = sg ? sext(b[l], 24) : static_cast<std::int64_t>(trunc(b[l], 24));
        v[l] = trunc(static_cast<std::uint64_t>((x * y) >> 16) + (in.op == Op::mad24_hi ? c[l] : 0), 32);
      }
      break;
    default: fail("instruction not implemented by the executor");
  }
  put(R(w, d[0]), v, am);
}

void Cta::exec_carry(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const int wd = type_bits(in.t);
  const bool sg = type_is_signed(in.t);
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  const std::uint64_t* c = in.ns > 2 ? R(w, s[2]) : nullptr;
  switch (in.op) {
    case Op::add_cc:
    case Op::addc:
    case Op::sub_cc:
    case Op::subc:
    case Op::mad_cc: {
      // The carry family (PTX ISA 9.7.2). CC.CF is the carry out of a binary addition; a
      // subtraction is a + ~b + carry-in (carry-in 1 for sub.cc, CC.CF for subc), so after a
      // borrow CC.CF = 0: carry = not borrow, as NVIDIA GPUs do and as multi-word subtraction
      // chains need (docs/readings.md "ptx-sub-carry"). mad.cc/madc add c (+ CC.CF) to the .lo or
      // .hi half of a*b.
      const bool is_sub = in.op == Op::sub_cc || in.op == Op::subc;
      const bool use_carry = in.op == Op::addc || in.op == Op::subc || (in.op == Op::mad_cc && (in.sub & kCarryIn));
      const bool set_carry = in.op == Op::add_cc || in.op == Op::sub_cc || (in.op == Op::mad_cc ? (in.sub & kCarryOut) != 0 : in.sub != 0);
      const std::uint64_t mask = wd >= 64 ? ~0ull : (1ull << wd) - 1;
      std::uint32_t carry = 0;
      LANES {
        std::uint64_t x = trunc(a[l], wd), y = trunc(b[l], wd);
        if (in.op == Op::mad_cc) {
          const unsigned __int128 p = sg ? static_cast<unsigned __int128>(static_cast<__int128>(sext(a[l], wd)) * sext(b[l], wd))
                                         : static_cast<unsigned __int128>(x) * y;
          x = static_cast<std::uint64_t>((in.flags & kHi) ? p >> wd : p) & mask;
          y = trunc(c[l], wd);
        } else if (is_sub) {
          y = ~y & mask;
        }
        const std::uint64_t ci = use_carry ? ((w.carry >> l) & 1) : (is_sub ? 1 : 0);
        const unsigned __int128 r = static_cast<unsigned __int128>(x) + y + ci;
        v[l] = static_cast<std::uint64_t>(r) & mask;
        carry |= static_cast<std::uint32_t>(static_cast<std::uint64_t>(r >> wd) & 1) << l;
      }
      if (set_carry) w.carry = (w.carry & ~am) | (carry & am);
      break;
    }
    default: fail("instruction not implemented by the executor");
  }
  put(R(w, d[0]), v, am);
}

// sad, div, rem, abs, neg, min, max on integers.
void Cta::exec_int_misc(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const int wd = type_bits(in.t);
  const bool sg = type_is_signed(in.t);
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  const std::uint64_t* c = in.ns > 2 ? R(w, s[2]) : nullptr;
  switch (in.op) {
    case Op::sad:
      LANES {
        const std::uint64_t diff =
            sg ? static_cast<std::uint64_t>(sext(a[l], wd) > sext(b[l], wd) ? sext(a[l], wd) - sext(b[l], wd)
                                                                            : sext(b[l], wd) - sext(a[l], wd))
               : (trunc(a[l], wd) > trunc(b[l], wd) ? trunc(a[l], wd) - trunc(b[l], wd) : trunc(b[l], wd) - trunc(a[l], wd));
        v[l] = trunc(c[l] + diff, wd);
      }
      break;
    case Op::div:
    case Op::rem:
      // Division by zero is unspecified in PTX: rrswin gives all ones (quotient) and the dividend
      // (remainder); the most negative value / -1 gives itself (remainder 0). docs/ptx.md.
      LANES {
        if (sg) {
          const std::int64_t x = sext(a[l], wd), y = sext(b[l], wd);
          std::int64_t q, r;
          if (y == 0) {
            q = -1;
            r = x;
          } else if (y == -1) {
            q = static_cast<std::int64_t>(0ull - static_cast<std::uint64_t>(x));
            r = 0;
          } else {
            q = x / y;
            r = x % y;
          }
          v[l] = trunc(static_cast<std::uint64_t>(in.op == Op::div ? q : r), wd);
        } else {
          const std::uint64_t x = trunc(a[l], wd), y = trunc(b[l], wd);
          v[l] = trunc(y == 0 ? (in.op == Op::div ? ~0ull : x) : (in.op == Op::div ? x / y : x % y), wd);
        }
      }
      break;
    case Op::abs:
      LANES {
        const std::int64_t x = sext(a[l], wd);
        v[l] = trunc(x < 0 ? 0ull - static_cast<std::uint64_t>(x) : static_cast<std::uint64_t>(x), wd);
      }
      break;
    case Op::neg: LANES v[l] = trunc(0ull - a[l], wd); break;
    case Op::min:
      if (sg) {
        LANES v[l] = trunc(static_cast<std::uint64_t>(std::min(sext(a[l], wd), sext(b[l], wd))), wd);
      } else {
        LANES v[l] = std::min(trunc(a[l], wd), trunc(b[l], wd));
      }
      break;
    case Op::max:
      if (sg) {
        LANES v[l] = trunc(static_cast<std::uint64_t>(std::max(sext(a[l], wd), sext(b[l], wd))), wd);
      } else {
        LANES v[l] = std::max(trunc(a[l], wd), trunc(b[l], wd));
      }
      break;
    default: fail("instruction not implemented by the executor");
  }
  put(R(w, d[0]), v, am);
}

// and/or/xor/not/cnot, shifts, funnel shifts, lop3.
void Cta::exec_logic(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const int wd = type_bits(in.t);
  const bool sg = type_is_signed(in.t);
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  const std::uint64_t* c = in.ns > 2 ? R(w, s[2]) : nullptr;
  switch (in.op) {
    case Op::and_: LANES v[l] = trunc(a[l] & b[l], wd); break;
    case Op::or_: LANES v[l] = trunc(a[l] | b[l], wd); break;
    case Op::xor_: LANES v[l] = trunc(a[l] ^ b[l], wd); break;
    case Op::not_: LANES v[l] = trunc(~a[l], wd); break;
    case Op::cnot: LANES v[l] = trunc(a[l], wd) == 0 ? 1 : 0; break;
    case Op::shl:
      LANES {
        const std::uint64_t n = trunc(b[l], 32);
        v[l] = n >= static_cast<std::uint64_t>(wd) ? 0 : trunc(a[l] << n, wd);
      }
      break;
    case Op::shr:
      LANES {
        const std::uint64_t n = std::min<std::uint64_t>(trunc(b[l], 32), static_cast<std::uint64_t>(wd));
        if (sg)
          v[l] = trunc(static_cast<std::uint64_t>(sext(a[l], wd) >> std::min<std::uint64_t>(n, 63)), wd);
        else
          v[l] = n >= static_cast<std::uint64_t>(wd) ? 0 : trunc(a[l], wd) >> n;
      }
      break;
    case Op::shf:
      // shf.l: the upper 32 bits of {b:a} << n; shf.r: the lower 32 bits of {b:a} >> n;
      // n = min(c, 32) (.clamp) or c & 31 (.wrap).
      LANES {
        const std::uint64_t cc = trunc(c[l], 32), n = (in.sub & 2) ? std::min<std::uint64_t>(cc, 32) : (cc & 31);
        const std::uint64_t x = (trunc(b[l], 32) << 32) | trunc(a[l], 32);
        v[l] = (in.sub & 1) ? trunc(x >> n, 32) : trunc((x << n) >> 32, 32);
      }
      break;
    case Op::lop3: {
      const unsigned lut = static_cast<unsigned>(in.imm);
      LANES {
        const std::uint32_t x = static_cast<std::uint32_t>(a[l]), y = static_cast<std::uint32_t>(b[l]),
                            z = static_cast<std::uint32_t>(c[l]);
        std::uint32_t r = 0;
        for (unsigned k = 0; k < 8; ++k)
          if ((lut >> k) & 1) r |= ((k & 4) ? x : ~x) & ((k & 2) ? y : ~y) & ((k & 1) ? z : ~z);
        v[l] = r;
      }
      break;
    }
    default: fail("instruction not implemented by the executor");
  }
  put(R(w, d[0]), v, am);
}

// popc, clz, brev, bfind, bfe, bfi.
void Cta::exec_bitfield(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const int wd = type_bits(in.t);
  const bool sg = type_is_signed(in.t);
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  const std::uint64_t* c = in.ns > 2 ? R(w, s[2]) : nullptr;
  switch (in.op) {
    case Op::popc: LANES v[l] = static_cast<std::uint64_t>(std::popcount(trunc(a[l], wd))); break;
    case Op::clz: LANES v[l] = static_cast<std::uint64_t>(std::countl_zero(trunc(a[l], wd)) - (64 - wd)); break;
    case Op::brev:
      LANES {
        std::uint64_t x = trunc(a[l], wd), r = 0;
        for (int k = 0; k < wd; ++k) r |= ((x >> k) & 1) << (wd - 1 - k);
        v[l] = r;
      }
      break;
    case Op::bfind:
      LANES {
        std::uint64_t x = trunc(a[l], wd);
        if (sg && (x >> (wd - 1)) & 1) x = trunc(~x, wd);
        if (x == 0) {
          v[l] = 0xFFFFFFFFu;
          continue;
        }
        const int pos = 63 - std::countl_zero(x);
        v[l] = static_cast<std::uint64_t>(in.sub ? wd - 1 - pos : pos);
      }
      break;
    case Op::bfe:
      LANES {
        const std::uint64_t x = trunc(a[l], wd);
        const int pos = static_cast<int>(b[l] & 0xFF), len = static_cast<int>(c[l] & 0xFF);
        const int msb = wd - 1;
        const std::uint64_t sbit = (!sg || len == 0) ? 0 : (x >> std::min(pos + len - 1, msb)) & 1;
        std::uint64_t r = 0;
        for (int i = 0; i <= msb; ++i) {
          const std::uint64_t bit = (i < len && pos + i <= msb) ? (x >> (pos + i)) & 1 : sbit;
          r |= bit << i;
        }
        v[l] = r;
      }
      break;
    case Op::bfi: {
      const std::uint64_t* e = R(w, s[3]);
      LANES {
        const int pos = static_cast<int>(c[l] & 0xFF), len = static_cast<int>(e[l] & 0xFF);
        std::uint64_t r = trunc(b[l], wd);
        for (int i = 0; i < len && pos + i < wd; ++i) r = (r & ~(1ull << (pos + i))) | (((a[l] >> i) & 1) << (pos + i));
        v[l] = r;
      }
      break;
    }
    default: fail("instruction not implemented by the executor");
  }
  put(R(w, d[0]), v, am);
}

// bmsk, szext.
void Cta::exec_mask(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const bool sg = type_is_signed(in.t);
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  switch (in.op) {
    case Op::bmsk:
      // The ISA's semantics, 9.7.1.22.
      LANES {
        const std::uint64_t pa = trunc(a[l], 32), pb = trunc(b[l], 32);
        const std::uint64_t a1 = pa & 31, b1 = pb & 31, sum = a1 + b1;
        std::uint64_t mask0 = trunc(~0ull << a1, 32);
        bool overflow = sum >= 32;
        if (in.sub) {  // .clamp
          if (pa >= 32) {
            overflow = true;
            mask0 = 0;
          }
          if (pb >= 32) overflow = true;
        }
        const std::uint64_t mask1 = overflow ? 0 : (b1 == 0 ? 0xFFFFFFFFull : trunc(~0ull << sum, 32));
        v[l] = mask0 & ~mask1 & 0xFFFFFFFFull;
      }
      break;
    case Op::szext:
      // 9.7.1.21: keep the low N = b bits of a, sign- (.s32) or zero-extended; N >= 32 with .clamp
      // keeps a; N = 0 gives 0.
      LANES {
        const std::uint64_t x = trunc(a[l], 32), pb = trunc(b[l], 32), b1 = pb & 31;
        const bool too_large = pb >= 32 && in.sub;
        const std::uint64_t mask = too_large ? 0 : trunc(~0ull << b1, 32);
        const bool sign = !(b1 == 0 || too_large || !sg) && ((x >> ((b1 - 1) & 31)) & 1);
        v[l] = (x & ~mask & 0xFFFFFFFFull) | (sign ? mask : 0);
      }
      break;
    default: fail("instruction not implemented by the executor");
  }
  put(R(w, d[0]), v, am);
}

void Cta::exec_prmt(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  const std::uint64_t* c = in.ns > 2 ? R(w, s[2]) : nullptr;
  switch (in.op) {
    case Op::prmt: {
      // PTX ISA prmt: bytes 0..3 of a, 4..7 of b; default mode selects a byte per nibble of c
      // (bit 3 of a nibble replicates the byte's sign); the other modes use c[1:0].
      static const std::uint8_t table[7][4][4] = {
          {},
          {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // f4e: d.b0..b3
          {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // b4e
          {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8
          {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // ecl
          {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // ecr
          {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // rc16
      };
      LANES {
        const std::uint64_t x = trunc(a[l], 32) | (trunc(b[l], 32) << 32);
        const std::uint32_t sel = static_cast<std::uint32_t>(c[l]);
        std::uint32_t r = 0;
        for (int k = 0; k < 4; ++k) {
          std::uint32_t byte;
          if (in.sub == 0) {
            const std::uint32_t nib = (sel >> (4 * k)) & 0xF;
            byte = static_cast<std::uint32_t>((x >> (8 * (nib & 7))) & 0xFF);
            if (nib & 8) byte = (byte & 0x80) ? 0xFF : 0;
          } else {
            byte = static_cast<std::uint32_t>((x >> (8 * table[in.sub][sel & 3][k])) & 0xFF);
          }
          r |= byte << (8 * k);
        }
        v[l] = r;
      }
      break;
    }
    default: fail("instruction not implemented by the executor");
  }
  put(R(w, d[0]), v, am);
}

// dp4a/dp2a, cvt.pack.sat.
void Cta::exec_dot(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  const std::uint64_t* c = in.ns > 2 ? R(w, s[2]) : nullptr;
  switch (in.op) {
    case Op::dp4a:
    case Op::dp2a: {
      const bool sa = type_is_signed(in.t), sb = type_is_signed(in.t2);
      LANES {
        std::int64_t acc = sa || sb ? sext(c[l], 32) : static_cast<std::int64_t>(trunc(c[l], 32));
        if (in.op == Op::dp4a) {
          for (int k = 0; k < 4; ++k) {
            const std::uint64_t xa = (a[l] >> (8 * k)) & 0xFF, xb = (b[l] >> (8 * k)) & 0xFF;
            acc += (sa ? sext(xa, 8) : static_cast<std::int64_t>(xa)) * (sb ? sext(xb, 8) : static_cast<std::int64_t>(xb));
          }
        } else {
          const int sel = (in.flags & kHi) ? 2 : 0;
          for (int k = 0; k < 2; ++k) {
            const std::uint64_t xa = (a[l] >> (16 * k)) & 0xFFFF, xb = (b[l] >> (8 * (sel + k))) & 0xFF;
            acc += (sa ? sext(xa, 16) : static_cast<std::int64_t>(xa)) * (sb ? sext(xb, 8) : static_cast<std::int64_t>(xb));
          }
        }
        v[l] = trunc(static_cast<std::uint64_t>(acc), 32);
      }
      break;
    }
    case Op::cvt_pack_int: {
      // cvt.pack.sat (9.7.9.22): sat(b) in bits [0, n), sat(a) in [n, 2n), c's low bits above.
      const int n = in.sub;
      const std::int64_t lo = in.sub2 ? -(1ll << (n - 1)) : 0, hi = in.sub2 ? (1ll << (n - 1)) - 1 : (1ll << n) - 1;
      LANES {
        const std::uint64_t ta = trunc(static_cast<std::uint64_t>(std::clamp(sext(a[l], 32), lo, hi)), n);
        const std::uint64_t tb = trunc(static_cast<std::uint64_t>(std::clamp(sext(b[l], 32), lo, hi)), n);
        std::uint64_t r = tb | (ta << n);
        if (in.ns > 2 && 2 * n < 32) r |= trunc(c[l] << (2 * n), 32);
        v[l] = trunc(r, 32);
      }
      break;
    }
    default: fail("instruction not implemented by the executor");
  }
  put(R(w, d[0]), v, am);
}

void Cta::exec_compare(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const int wd = type_bits(in.t);
  const bool sg = type_is_signed(in.t);
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  switch (in.op) {
    case Op::setp:
    case Op::set: {
      // One comparison per lane (per half for f16x2 / bf16x2), then the BoolOp with c.
      const Cmp cmp = static_cast<Cmp>(in.sub);
      const bool ftz_on = in.flags & kFtz;
      const bool x2 = in.t == Type::f16x2 || in.t == Type::bf16x2;
      const Type half = in.t == Type::f16x2 ? Type::f16 : Type::bf16;
      std::uint32_t lo = 0, hi = 0;
      if (type_is_float(in.t)) {
        const std::uint8_t mask = float_compare_mask(cmp);
        if (x2) {
          LANES {
            lo |= static_cast<std::uint32_t>((float_relation(half, a[l] & 0xFFFF, b[l] & 0xFFFF, ftz_on) & mask) != 0) << l;
            hi |= static_cast<std::uint32_t>((float_relation(half, (a[l] >> 16) & 0xFFFF, (b[l] >> 16) & 0xFFFF, ftz_on) & mask) != 0) << l;
          }
        } else {
          LANES lo |= static_cast<std::uint32_t>((float_relation(in.t, a[l], b[l], ftz_on) & mask) != 0) << l;
        }
      } else {
        LANES lo |= static_cast<std::uint32_t>(int_compare(cmp, a[l], b[l], wd, sg)) << l;
      }
      // setp's q is !p for one comparison, the high half's result for the x2 forms.
      std::uint32_t p = lo, q = x2 ? hi : ~lo;
      if (static_cast<BoolOp>(in.sub2) != BoolOp::none) {
        const std::uint32_t cpred = pred_value(w, s[2]);
        switch (static_cast<BoolOp>(in.sub2)) {
          case BoolOp::and_:
            p &= cpred;
            q &= cpred;
            break;
          case BoolOp::or_:
            p |= cpred;
            q |= cpred;
            break;
          case BoolOp::xor_:
            p ^= cpred;
            q ^= cpred;
            break;
          case BoolOp::none: break;
        }
      }
      if (in.op == Op::setp) {
        put_pred(w, d[0], p, am);
        if (in.nd > 1) put_pred(w, d[1], q, am);
        return;
      }
      // set: 1.0 in a float destination, all ones in an integer one; the x2 forms per 16-bit half.
      const Type dt = in.t2;
      const std::uint64_t one = dt == Type::f32                            ? 0x3F800000u
                                : dt == Type::f16                          ? 0x3C00u
                                : dt == Type::bf16                         ? 0x3F80u
                                : dt == Type::f16x2                        ? 0x3C00u
                                : dt == Type::bf16x2                       ? 0x3F80u
                                : x2 || dt == Type::u16 || dt == Type::s16 ? 0xFFFFu
                                                                           : 0xFFFFFFFFu;
      LANES {
        v[l] = ((p >> l) & 1) ? one : 0;
        if (x2 && ((q >> l) & 1)) v[l] |= one << 16;
      }
      break;
    }
    default: fail("instruction not implemented by the executor");
  }
  put(R(w, d[0]), v, am);
}

// selp, slct.
void Cta::exec_select(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const int wd = type_bits(in.t);
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  const std::uint64_t* c = in.ns > 2 ? R(w, s[2]) : nullptr;
  switch (in.op) {
    case Op::selp: {
      const std::uint32_t p = pred_value(w, s[2]);
      LANES v[l] = trunc(((p >> l) & 1) ? a[l] : b[l], wd);
      break;
    }
    case Op::slct:
      LANES {
        // slct: c >= 0 selects a (-0 included); a NaN c selects b; .ftz flushes a subnormal c to a
        // zero of its sign first (PTX ISA 9.7.8.3), so -denormal selects a.
        const bool ge =
            in.t2 == Type::f32 ? f32_slct_selects_a(static_cast<std::uint32_t>(c[l]), (in.flags & kFtz) != 0) : sext(c[l], 32) >= 0;
        v[l] = trunc(ge ? a[l] : b[l], wd);
      }
      break;
    default: fail("instruction not implemented by the executor");
  }
  put(R(w, d[0]), v, am);
}

// The scalar video instructions (PTX ISA "Scalar Video Instructions"), their pseudocode on exact
// integers: the selected byte, half-word or word of a and b sign- or zero-extended to .s33 (b
// unsigned for the shifts), the primary operation (.s34, exact: vshl's value is kept to its low 34
// bits, the only ones a form the decoder accepts reads), optSaturate to the destination's range
// (the selected byte or half-word with a merge) by dtype's sign, returned as .s33 (an unsaturated
// result outside .s33 wraps to 33 bits, the pseudocode's return type: docs/ptx.md), then optSecOp
// with c (.s33, signed by dtype) or optMerge into c; the low 32 bits are written.
void Cta::exec_video(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const VideoOp op = static_cast<VideoOp>(in.sub);
  const int op2 = in.sub2 & 3, dsel = (in.sub2 >> 2) & 7;
  const bool wrap = (in.sub2 & 32) != 0;
  const int asel = static_cast<int>(in.imm & 7), bsel = static_cast<int>((in.imm >> 3) & 7);
  const bool a_signed = type_is_signed(in.t2), b_signed = (in.imm & 64) != 0, d_signed = type_is_signed(in.t);
  const Cmp cmp = static_cast<Cmp>((in.imm >> 8) & 7);
  const bool sat = (in.flags & kSat) != 0;
  // partSelectSignExtend: sel 0 = the word, 1..4 = byte 0..3, 5..6 = half-word 0..1.
  auto part = [](std::uint64_t x, bool sgn, int sel) -> std::int64_t {
    const std::uint32_t v = static_cast<std::uint32_t>(x);
    if (sel == 0) return sgn ? static_cast<std::int64_t>(static_cast<std::int32_t>(v)) : static_cast<std::int64_t>(v);
    const int width = sel <= 4 ? 8 : 16, pos = sel <= 4 ? 8 * (sel - 1) : 16 * (sel - 5);
    const std::uint64_t f = (v >> pos) & ((1u << width) - 1);
    return sgn ? sext(f, width) : static_cast<std::int64_t>(f);
  };
  auto clamp = [](std::int64_t x, std::int64_t lo, std::int64_t hi) { return x < lo ? lo : x > hi ? hi : x; };
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = R(w, s[1]);
  const std::uint64_t* c = in.ns > 2 ? R(w, s[2]) : nullptr;
  std::uint64_t v[32];
  LANES {
    if (!((am >> l) & 1)) continue;
    const std::int64_t ta = part(a[l], a_signed, asel);
    std::int64_t tb = part(b[l], b_signed, bsel);
    std::int64_t tmp = 0;
    switch (op) {
      case VideoOp::add: tmp = ta + tb; break;
      case VideoOp::sub: tmp = ta - tb; break;
      case VideoOp::absdiff: tmp = ta > tb ? ta - tb : tb - ta; break;
      case VideoOp::min: tmp = std::min(ta, tb); break;
      case VideoOp::max: tmp = std::max(ta, tb); break;
      case VideoOp::shl:
      case VideoOp::shr:
        if (!wrap && tb > 32) tb = 32;
        if (wrap) tb &= 0x1f;
        // ta is within .s33 and tb at most 32: the left shift's low 34 bits are exact in 64 bits.
        tmp = op == VideoOp::shl ? sext(static_cast<std::uint64_t>(ta) << tb, 34) : ta >> tb;
        break;
      case VideoOp::set: {
        bool r = false;
        switch (cmp) {
          case Cmp::eq: r = ta == tb; break;
          case Cmp::ne: r = ta != tb; break;
          case Cmp::lt: r = ta < tb; break;
          case Cmp::le: r = ta <= tb; break;
          case Cmp::gt: r = ta > tb; break;
          default: r = ta >= tb; break;
        }
        tmp = r ? 1 : 0;
        break;
      }
    }
    if (sat) {
      const int width = dsel == 0 ? 32 : dsel <= 4 ? 8 : 16;
      tmp = d_signed ? clamp(tmp, -(std::int64_t{1} << (width - 1)), (std::int64_t{1} << (width - 1)) - 1)
                     : clamp(tmp, 0, (std::int64_t{1} << width) - 1);
    }
    tmp = sext(static_cast<std::uint64_t>(tmp), 33);  // optSaturate's .s33
    std::uint64_t r = static_cast<std::uint64_t>(tmp);
    if (c) {
      const std::uint32_t cw = static_cast<std::uint32_t>(c[l]);
      const std::int64_t tc = d_signed ? static_cast<std::int64_t>(static_cast<std::int32_t>(cw)) : static_cast<std::int64_t>(cw);
      switch (op2) {
        case 1: r = static_cast<std::uint64_t>(tmp + tc); break;
        case 2: r = static_cast<std::uint64_t>(std::min(tmp, tc)); break;
        case 3: r = static_cast<std::uint64_t>(std::max(tmp, tc)); break;
        default: break;
      }
      if (dsel) {
        const int width = dsel <= 4 ? 8 : 16, pos = dsel <= 4 ? 8 * (dsel - 1) : 16 * (dsel - 5);
        const std::uint64_t mask = ((1ull << width) - 1) << pos;
        r = ((r << pos) & mask) | (cw & ~mask);
      }
    }
    v[l] = r & 0xFFFFFFFFu;
  }
  put(R(w, d[0]), v, am);
}

}  // namespace rrswin::ptx::detail
