// The memory operations: ld/st in every state space, tex/sust, cp.async, atom/red, and the address
// checks every access goes through (resolve: alignment, bounds, read-only; docs/ptx.md "Addresses").
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <sstream>

#include "model/texture_surface.hpp"
#include "numerics/approx.hpp"
#include "numerics/f16.hpp"
#include "numerics/f32.hpp"
#include "numerics/texcoord.hpp"
#include "ptx/exec.hpp"

namespace rrswin::ptx::detail {

namespace {

// tex with float coordinates through the launch's sampler (CUDA Programming Guide, "Texture
// Fetching"; docs/readings.md "ptx-tex-sampler"). Point: texel floor(x), floor(y). Linear:
// x_B = x - 0.5, i = floor(x_B), alpha = frac(x_B) in 9-bit fixed point with 8 fractional bits
// (rounded to nearest; numerics/texcoord), the four texels around blended by numerics' f16_bilinear. Out-of-range
// texels follow the texture's address mode (Texture::fetch); a NaN coordinate reads as 0.
std::array<f16_t, 4> sample(const Texture& t, const Device::Sampler& smp, float x, float y) {
  if (smp.normalized) {
    x = tex_unnormalize(x, static_cast<std::uint32_t>(t.width));
    y = tex_unnormalize(y, static_cast<std::uint32_t>(t.height));
  }
  if (smp.filter == Device::Filter::point) return t.fetch(tex_point_texel(x), tex_point_texel(y));
  const TexLinearTexel u = tex_linear_texel(x), v = tex_linear_texel(y);
  const auto t00 = t.fetch(u.i, v.i), t10 = t.fetch(u.i + 1, v.i), t01 = t.fetch(u.i, v.i + 1), t11 = t.fetch(u.i + 1, v.i + 1);
  std::array<f16_t, 4> r{};
  for (int c = 0; c < 4; ++c) r[c] = f16_bilinear(t00[c], t10[c], t01[c], t11[c], u.alpha, v.alpha);
  return r;
}

// The new value of an atomic operation (PTX ISA 9.7.13.5): old is the location's value.
// atom.add.f32 rounds to nearest even and flushes subnormal inputs and results (9.7.13.5).
template <class U>
U atomic_new(U old, AtomOp op, Type t, U b, U c) {
  const bool sg = type_is_signed(t);
  const int wd = static_cast<int>(sizeof(U) * 8);
  switch (op) {
    case AtomOp::add:
      if (t == Type::f32)
        return static_cast<U>(std::bit_cast<std::uint32_t>(f32_flush(f32_add(f32_flush(f32(old)), f32_flush(f32(b)), Round::rn))));
      if (t == Type::f64) return static_cast<U>(std::bit_cast<std::uint64_t>(f64_add(f64(old), f64(b), Round::rn)));
      return static_cast<U>(old + b);
    case AtomOp::min: return sg ? (sext(old, wd) <= sext(b, wd) ? old : b) : std::min(old, b);
    case AtomOp::max: return sg ? (sext(old, wd) >= sext(b, wd) ? old : b) : std::max(old, b);
    case AtomOp::inc: return old >= b ? U{0} : static_cast<U>(old + 1);
    case AtomOp::dec: return (old == 0 || old > b) ? b : static_cast<U>(old - 1);
    case AtomOp::and_: return old & b;
    case AtomOp::or_: return old | b;
    case AtomOp::xor_: return old ^ b;
    case AtomOp::exch: return b;
    case AtomOp::cas: return old == b ? c : old;
  }
  return old;
}
template <class U>
std::uint64_t atomic_rmw(std::uint8_t* p, AtomOp op, Type t, std::uint64_t b, std::uint64_t c) {
  std::atomic_ref<U> ref(*reinterpret_cast<U*>(p));  // aligned: resolve() checked it
  U old = ref.load(std::memory_order_relaxed);
  while (!ref.compare_exchange_weak(old, atomic_new<U>(old, op, t, static_cast<U>(b), static_cast<U>(c)), std::memory_order_acq_rel)) {}
  return old;
}

}  // namespace

// A global address: allocation i of the Device spans [(i+1) << kGlobalShift, ...), the module's own
// .global variables follow from kModuleGlobalFirst (docs/ptx.md "Addresses").
std::uint8_t* Cta::resolve_global(std::uint64_t addr, std::uint32_t size, bool write, int lane) {
  const std::uint64_t idx = (addr >> kGlobalShift);
  const std::uint64_t off = addr & ((1ull << kGlobalShift) - 1);
  std::uint8_t* data = nullptr;
  std::uint64_t n = 0;
  const std::string* name = nullptr;  // for the messages only (no copy per access)
  bool writable = true;
  if (idx >= 1 && idx - 1 < s_.dev.allocs.size()) {
    const auto& a = s_.dev.allocs[idx - 1];
    data = a.data;
    n = a.size;
    name = &a.name;
    writable = a.writable;
  } else if (idx >= kModuleGlobalFirst + 1 && idx - 1 - kModuleGlobalFirst < s_.module_globals.size()) {
    auto& g = s_.module_globals[idx - 1 - kModuleGlobalFirst];
    data = g.data();
    n = g.size();
    name = &s_.m.variables[idx - 1 - kModuleGlobalFirst].name;
  } else {
    std::ostringstream o;
    o << "global " << (write ? "store" : "load") << " of " << size << " bytes at 0x" << std::hex << addr << std::dec
      << ": no allocation there";
    fail(o.str(), lane);
  }
  if (off > n || n - off < size) {
    std::ostringstream o;
    o << "out-of-bounds global " << (write ? "store" : "load") << " of " << size << " bytes at offset " << off << " of allocation '"
      << *name << "' (" << n << " bytes)";
    fail(o.str(), lane);
  }
  if (write && !writable) fail("store to the read-only allocation '" + *name + "'", lane);
  return data + off;
}

std::uint8_t* Cta::resolve(Space sp, std::uint64_t addr, std::uint32_t size, bool write, int lane) {
  if (addr % size != 0) {
    std::ostringstream o;
    o << "misaligned " << size << "-byte access at 0x" << std::hex << addr;
    fail(o.str(), lane);
  }
  if (sp == Space::generic) {
    switch (addr & kWindowMask) {
      case kSharedWindow:
        sp = Space::shared;
        addr -= kSharedWindow;
        break;
      case kLocalWindow:
        sp = Space::local;
        addr -= kLocalWindow;
        break;
      case kParamWindow: sp = Space::param; break;
      case kConstWindow:
        sp = Space::constant;
        addr -= kConstWindow;
        break;
      default: sp = Space::global; break;
    }
  }
  auto oob = [&](const char* space, std::uint64_t limit, const std::string& what) {
    std::ostringstream o;
    o << "out-of-bounds " << space << (write ? " store" : " load") << " of " << size << " bytes at 0x" << std::hex << addr << std::dec
      << " (" << what << " holds " << limit << " bytes)";
    fail(o.str(), lane);
  };
  switch (sp) {
    case Space::shared:
      if (addr > shared_.size() || shared_.size() - addr < size) oob("shared", shared_.size(), "the CTA's shared memory");
      return shared_.data() + addr;
    case Space::local: {
      Warp& w = warps_[wi_];
      const std::uint64_t n = s_.f.local_bytes;
      if (addr > n || n - addr < size) oob("local", n, "the thread's local memory");
      return w.local.data() + static_cast<std::size_t>(lane) * n + addr;
    }
    case Space::param: {
      const std::uint64_t off = addr - kParamWindow;
      if (write) fail("store to the kernel parameter space", lane);
      if ((addr & kWindowMask) != kParamWindow || off > s_.params.size() || s_.params.size() - off < size)
        oob("param", s_.params.size(), "the parameter block");
      return const_cast<std::uint8_t*>(s_.params.data()) + off;
    }
    case Space::constant:
      if (write) fail("store to the constant space", lane);
      if (addr > s_.const_bank.size() || s_.const_bank.size() - addr < size) oob("const", s_.const_bank.size(), "the constant bank");
      return const_cast<std::uint8_t*>(s_.const_bank.data()) + addr;
    case Space::global:
    case Space::generic: return resolve_global(addr, size, write, lane);
  }
  fail("bad state space", lane);
}

// ld (.v2/.v4): each active lane's access, in lane order.
void Cta::exec_ld(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const Space sp = static_cast<Space>(in.sub);
  const std::uint32_t es = static_cast<std::uint32_t>(type_bits(in.t) / 8);
  const std::uint32_t n = in.nd;
  const std::uint64_t* base = R(w, s[0]);
  const bool sg = type_is_signed(in.t);
  for (std::uint32_t m = am; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const std::uint64_t addr = base[l] + static_cast<std::uint64_t>(in.imm);
    const std::uint8_t* p = resolve(sp, addr, es * n, false, l);
    for (std::uint32_t k = 0; k < n; ++k) {
      std::uint64_t x = 0;
      switch (es) {  // fixed sizes: an inline load, not a library call
        case 1: std::memcpy(&x, p + k, 1); break;
        case 2: std::memcpy(&x, p + k * 2, 2); break;
        case 4: std::memcpy(&x, p + k * 4, 4); break;
        default: std::memcpy(&x, p + k * 8, 8); break;
      }
      // Sign- or zero-extended to the destination register's width (PTX ISA 9.4.1).
      R(w, d[k])[l] = sg ? trunc(static_cast<std::uint64_t>(sext(x, 8 * static_cast<int>(es))), in.dbits) : x;
    }
  }
}

// st (.v2/.v4): each active lane's access, in lane order.
void Cta::exec_st(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const Space sp = static_cast<Space>(in.sub);
  const std::uint32_t es = static_cast<std::uint32_t>(type_bits(in.t) / 8);
  const std::uint32_t n = in.ns - 1u;
  const std::uint64_t* base = R(w, s[0]);
  for (std::uint32_t m = am; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const std::uint64_t addr = base[l] + static_cast<std::uint64_t>(in.imm);
    std::uint8_t* p = resolve(sp, addr, es * n, true, l);
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint64_t x = R(w, s[1 + k])[l];
      switch (es) {
        case 1: std::memcpy(p + k, &x, 1); break;
        case 2: std::memcpy(p + k * 2, &x, 2); break;
        case 4: std::memcpy(p + k * 4, &x, 4); break;
        default: std::memcpy(p + k * 8, &x, 8); break;
      }
    }
  }
}

void Cta::exec_tex(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const std::uint64_t* h = R(w, s[0]);
  const std::uint64_t* x = R(w, s[1]);
  const std::uint64_t* y = R(w, s[2]);
  for (std::uint32_t m = am; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const std::uint64_t hv = h[l];
    if ((hv & (0xFFull << 56)) != kTextureHandle || (hv & 0xFFFFFFFFu) >= s_.dev.textures.size() || !s_.dev.textures[hv & 0xFFFFFFFFu])
      fail("tex with a handle that is no bound texture object", l);
    const Texture& t = *s_.dev.textures[hv & 0xFFFFFFFFu];
    const std::array<f16_t, 4> texel = in.t2 == Type::f32 ? sample(t, s_.dev.samplers[hv & 0xFFFFFFFFu], f32(x[l]), f32(y[l]))
                                                          : t.fetch(static_cast<int>(sext(x[l], 32)), static_cast<int>(sext(y[l], 32)));
    for (int k = 0; k < 4; ++k) R(w, d[k])[l] = texel[k];
  }
}

void Cta::exec_sust(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const std::uint64_t* h = R(w, s[0]);
  const std::uint64_t* x = R(w, s[1]);
  const std::uint64_t* y = R(w, s[2]);
  for (std::uint32_t m = am; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const std::uint64_t hv = h[l];
    if ((hv & (0xFFull << 56)) != kSurfaceHandle || (hv & 0xFFFFFFFFu) >= s_.dev.surfaces.size() || !s_.dev.surfaces[hv & 0xFFFFFFFFu])
      fail("sust with a handle that is no bound surface object", l);
    Surface& sf = *s_.dev.surfaces[hv & 0xFFFFFFFFu];
    std::int64_t xb = sext(x[l], 32);
    const std::int64_t yv = sext(y[l], 32);
    if (s_.dev.surface_formats[hv & 0xFFFFFFFFu] == Device::SurfaceFormat::rgba32f) {
      // An RGBA32F surface (16 bytes a texel): sust.p's four f32 are stored unchanged at texel x;
      // sust.b's four b16 at byte x. Out-of-bounds stores are dropped (.zero).
      const bool p = in.t == Type::b32;
      const std::int64_t at = p ? 16 * xb : xb, n = p ? 16 : 8;
      if (at < 0 || yv < 0 || yv >= sf.height || at + n > 16 * static_cast<std::int64_t>(sf.width)) continue;
      std::uint8_t* dst = sf.bytes.data() + static_cast<std::size_t>(yv) * sf.pitch + static_cast<std::size_t>(at);
      for (int k = 0; k < 4; ++k) {
        const std::uint64_t v = R(w, s[3 + k])[l];
        for (int i = 0; i < n / 4; ++i) dst[k * (n / 4) + i] = static_cast<std::uint8_t>(v >> (8 * i));
      }
      continue;
    }
    std::array<f16_t, 4> val;
    if (in.t == Type::b32) {
      // sust.p: x is a sample index; the f32 values are converted to the surface's RGBA16F
      // format as cvt.rn.f16.f32 does (docs/readings.md "ptx-tex-sampler").
      for (int k = 0; k < 4; ++k) val[k] = f32_to_f16(f32(R(w, s[3 + k])[l]));
      xb *= 8;
    } else {
      for (int k = 0; k < 4; ++k) val[k] = static_cast<f16_t>(R(w, s[3 + k])[l]);
    }
    if (xb < INT32_MIN || xb > INT32_MAX) continue;  // outside every surface: dropped (.zero)
    sf.store_b16x4(static_cast<int>(xb), static_cast<int>(yv), val);
  }
}

void Cta::exec_cp_async(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const std::uint32_t n = in.sub;
  const std::uint64_t* db = R(w, s[0]);
  const std::uint64_t* sb = R(w, s[1]);
  const std::uint64_t* ssz = in.sub2 ? nullptr : R(w, s[2]);
  for (std::uint32_t m = am; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const std::uint64_t dst = db[l] + static_cast<std::uint64_t>(in.imm), srca = sb[l] + in.target;
    // ignore-src (Inst::sub2 = 1): a predicate; where it holds, nothing is read (cp-size zeros).
    const std::uint64_t take = in.sub2 ? (((pred_value(w, s[2]) >> l) & 1) ? 0 : n) : trunc(ssz[l], 32);
    if (take > n) fail("cp.async: src-size " + std::to_string(take) + " exceeds cp-size " + std::to_string(n), l);
    std::uint8_t* d8 = resolve(Space::shared, dst, n, true, l);
    std::uint8_t tmp[16] = {};
    if (take == n) {
      std::memcpy(tmp, resolve(Space::global, srca, n, false, l), n);
    } else {
      if (srca % n != 0) resolve(Space::global, srca, n, false, l);  // the alignment error
      for (std::uint64_t k = 0; k < take; ++k) tmp[k] = *resolve(Space::global, srca + k, 1, false, l);
    }
    std::memcpy(d8, tmp, n);
  }
}

void Cta::exec_atom(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  // Lanes in lane order; each lane's read-modify-write is one atomic operation on the
  // location (std::atomic_ref), so CTAs on other threads see atomics, not torn updates.
  const Space sp = static_cast<Space>(in.sub2);
  const std::uint32_t es = static_cast<std::uint32_t>(type_bits(in.t) / 8);
  const std::uint64_t* base = R(w, s[0]);
  const AtomOp op = static_cast<AtomOp>(in.sub);
  for (std::uint32_t m = am; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const std::uint64_t addr = base[l] + static_cast<std::uint64_t>(in.imm);
    std::uint8_t* p = resolve(sp, addr, es, true, l);
    if (sp == Space::generic && !in_global_or_shared(addr)) fail("atomic operation outside global and shared memory", l);
    const std::uint64_t bv = R(w, s[1])[l], cv = in.ns > 2 ? R(w, s[2])[l] : 0;
    const std::uint64_t old = es == 4 ? atomic_rmw<std::uint32_t>(p, op, in.t, bv, cv) : atomic_rmw<std::uint64_t>(p, op, in.t, bv, cv);
    if (in.nd) R(w, d[0])[l] = old;
  }
}

}  // namespace rrswin::ptx::detail
