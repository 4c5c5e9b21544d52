// The executor: CTAs on threads, each CTA's warps one at a time (a warp runs until bar.sync or
// exit, then the next), each decoded instruction for the 32 lanes of a warp at once. Arithmetic
// comes from src/numerics (f16, e4m3, approx, mma, warp data movement) under the run's Profile;
// what is done here is plain integer/bit work and the IEEE binary32/binary64 operations PTX defines
// exactly (.rn add/sub/mul/fma/div/sqrt, conversions). docs/ptx.md.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <sstream>
#include <thread>

#include "engine/mma_tile.hpp"
#include "engine/simd.hpp"
#include "model/texture_surface.hpp"
#include "numerics/approx.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"
#include "numerics/f32.hpp"
#include "numerics/minifloat.hpp"
#include "numerics/mma.hpp"
#include "numerics/warp.hpp"
#include "ptx/ir.hpp"

static_assert(FLT_EVAL_METHOD == 0, "binary32 arithmetic must be evaluated in binary32");

namespace enc5::ptx {

struct Device::Impl {
  struct Alloc {
    std::string name;
    std::uint8_t* data = nullptr;
    std::uint64_t size = 0;
    bool writable = true;
  };
  std::vector<Alloc> allocs;
  std::vector<const Texture*> textures;
  std::vector<Device::Sampler> samplers;  // one per texture
  std::vector<Surface*> surfaces;
};

Device::Device() : impl_(std::make_unique<Impl>()) {}
Device::~Device() = default;

std::uint64_t Device::add_global(std::string name, std::span<std::uint8_t> bytes) {
  if (impl_->allocs.size() >= kModuleGlobalFirst) throw PtxError("too many global allocations");
  if (bytes.size() >= (1ull << kGlobalShift)) throw PtxError("global allocation " + name + " too large");
  impl_->allocs.push_back({std::move(name), bytes.data(), bytes.size(), true});
  return static_cast<std::uint64_t>(impl_->allocs.size()) << kGlobalShift;
}
std::uint64_t Device::add_global_readonly(std::string name, std::span<const std::uint8_t> bytes) {
  const std::uint64_t a = add_global(std::move(name), {const_cast<std::uint8_t*>(bytes.data()), bytes.size()});
  impl_->allocs.back().writable = false;
  return a;
}
std::uint64_t Device::bind_texture(const Texture* t, Sampler sampler) {
  impl_->textures.push_back(t);
  impl_->samplers.push_back(sampler);
  return kTextureHandle | (impl_->textures.size() - 1);
}
std::uint64_t Device::bind_surface(Surface* s) {
  impl_->surfaces.push_back(s);
  return kSurfaceHandle | (impl_->surfaces.size() - 1);
}

namespace {

constexpr std::uint32_t kFull = 0xFFFFFFFFu;

inline std::uint64_t trunc(std::uint64_t x, int w) { return w >= 64 ? x : (x & ((1ull << w) - 1)); }
inline std::int64_t sext(std::uint64_t x, int w) {
  return w >= 64 ? static_cast<std::int64_t>(x) : static_cast<std::int64_t>(x << (64 - w)) >> (64 - w);
}
inline float f32(std::uint64_t x) { return std::bit_cast<float>(static_cast<std::uint32_t>(x)); }
inline double f64(std::uint64_t x) { return std::bit_cast<double>(x); }
// Register bits of a float result; NaN results are already canonical (numerics/f32).
inline std::uint64_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
inline std::uint64_t bits(double d) { return std::bit_cast<std::uint64_t>(d); }
inline float ftz(float x, bool on) { return on ? f32_flush(x) : x; }
// The rounding direction of an f32/f64 instruction or cvt (.rni etc. round to integral values).
inline Round round_of(Rnd r) {
  switch (r) {
    case Rnd::rz:
    case Rnd::rzi: return Round::rz;
    case Rnd::rm:
    case Rnd::rmi: return Round::rm;
    case Rnd::rp:
    case Rnd::rpi: return Round::rp;
    default: return Round::rn;
  }
}

// Source value of a float type as a double (exact).
double float_value(std::uint64_t x, Type t, bool ftz_on) {
  // .ftz on f16 (setp/set): a subnormal input is a zero of its sign.
  if (t == Type::f16) return f16_to_f64(static_cast<f16_t>(ftz_on && (x & 0x7C00) == 0 ? x & 0x8000 : x));
  if (t == Type::bf16) return bf16_to_f32(static_cast<std::uint16_t>(x));
  if (t == Type::f32) return ftz(f32(x), ftz_on);
  return f64(x);
}

// One PTX comparison (setp / set) of a and b of type t: the ordered comparisons are false and the
// unordered ones true when either float operand is NaN; integers compare signed for signed types
// except .lo/.ls/.hi/.hs (PTX ISA "setp").
bool compare(Cmp cmp, Type t, std::uint64_t a, std::uint64_t b, bool ftz_on, int wd, bool sg) {
  if (type_is_float(t)) {
    const double x = float_value(a, t, ftz_on), y = float_value(b, t, ftz_on);
    const bool un = std::isnan(x) || std::isnan(y);
    switch (cmp) {
      case Cmp::eq: return !un && x == y;
      case Cmp::ne: return !un && x != y;
      case Cmp::lt: return !un && x < y;
      case Cmp::le: return !un && x <= y;
      case Cmp::gt: return !un && x > y;
      case Cmp::ge: return !un && x >= y;
      case Cmp::equ: return un || x == y;
      case Cmp::neu: return un || x != y;
      case Cmp::ltu: return un || x < y;
      case Cmp::leu: return un || x <= y;
      case Cmp::gtu: return un || x > y;
      case Cmp::geu: return un || x >= y;
      case Cmp::num: return !un;
      case Cmp::nan: return un;
      default: return false;  // .lo/.ls/.hi/.hs on a float type: rejected by the decoder
    }
  }
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

// tex with float coordinates through the launch's sampler (CUDA Programming Guide, "Texture
// Fetching"; docs/readings.md "ptx-tex-sampler"). Point: texel floor(x), floor(y). Linear:
// x_B = x - 0.5, i = floor(x_B), alpha = frac(x_B) in 9-bit fixed point with 8 fractional bits
// (rounded to nearest), the four texels around blended by numerics' f16_bilinear. Out-of-range
// texels follow the texture's address mode (Texture::fetch); a NaN coordinate reads as 0.
std::array<f16_t, 4> sample(const Texture& t, const Device::Sampler& smp, float x, float y) {
  if (smp.normalized) {
    x *= static_cast<float>(t.width);
    y *= static_cast<float>(t.height);
  }
  auto cell = [](double v) { return std::isnan(v) ? 0.0 : std::clamp(std::floor(v), -1073741824.0, 1073741824.0); };
  if (smp.filter == Device::Filter::point) return t.fetch(static_cast<int>(cell(x)), static_cast<int>(cell(y)));
  const double xb = std::isnan(x) ? 0.0 : static_cast<double>(x) - 0.5, yb = std::isnan(y) ? 0.0 : static_cast<double>(y) - 0.5;
  const double fx = cell(xb), fy = cell(yb);
  const unsigned a = static_cast<unsigned>(std::nearbyint((xb - fx) * 256.0)), b = static_cast<unsigned>(std::nearbyint((yb - fy) * 256.0));
  const int i = static_cast<int>(fx), j = static_cast<int>(fy);
  const auto t00 = t.fetch(i, j), t10 = t.fetch(i + 1, j), t01 = t.fetch(i, j + 1), t11 = t.fetch(i + 1, j + 1);
  std::array<f16_t, 4> r{};
  for (int c = 0; c < 4; ++c) r[c] = f16_bilinear(t00[c], t10[c], t01[c], t11[c], std::min(a, 256u), std::min(b, 256u));
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

struct Frame {  // one SIMT stack entry
  std::uint32_t pc, rpc, mask;
};

struct Warp {
  std::vector<std::uint64_t> r;  // [reg][lane]
  std::vector<std::uint32_t> p;  // predicate lane masks
  std::vector<Frame> stack;
  std::uint32_t exited = 0;  // lanes that ran exit (or do not exist)
  std::uint32_t carry = 0;   // .cc carry flag per lane
  // barrier: at a whole-CTA barrier; partial: at barrier wait_bar with a thread count (bar.sync a, b).
  enum State { running, barrier, partial, done } state = running;
  std::uint32_t wait_bar = 0;
  std::uint64_t executed = 0;
  // bar.red waiting at the barrier: its kind (Inst::sub), destination and active lanes.
  std::uint8_t red_kind = 0;
  std::uint32_t red_dst = 0, red_mask = 0;
  std::vector<std::uint64_t> trace_count;
  std::vector<std::uint8_t> local;  // local memory, [lane][local_bytes]
};

struct Shared {
  const Module& m;
  const Function& f;
  const Device::Impl& dev;
  std::vector<std::vector<std::uint8_t>>& module_globals;
  const std::vector<std::uint8_t>& const_bank;
  std::span<const std::uint8_t> params;
  const Profile& profile;
  const RunOptions& opt;
  Dim3 grid, block;
  std::uint32_t shared_bytes;
  std::uint32_t nwarps;
  std::vector<std::uint32_t> trace_regs;  // register (or predicate | kPredNeg marker) indices
  std::vector<std::uint32_t> trace_widths;
  std::vector<char> trace_is_pred;
  std::atomic<std::uint64_t>* launch_work = nullptr;  // work units of the launch so far (all CTAs)
};

class Cta {
 public:
  explicit Cta(Shared& s) : s_(s), warps_(s.nwarps) {
    for (Warp& w : warps_) {
      w.r.assign(static_cast<std::size_t>(s.f.nregs) * 32, 0);
      w.p.assign(s.f.npreds, 0);
      w.local.assign(static_cast<std::size_t>(s.f.local_bytes) * 32, 0);
    }
    shared_.assign(s.shared_bytes, 0);
  }

  void run(Dim3 cta, RunStats& st, TraceResult* trace) {
    cta_ = cta;
    trace_ = trace;
    std::fill(shared_.begin(), shared_.end(), 0);
    const std::uint32_t nthreads = s_.block.x * s_.block.y * s_.block.z;
    for (std::uint32_t wi = 0; wi < warps_.size(); ++wi) {
      Warp& w = warps_[wi];
      // Only the registers some path reads before writing them (Function::zero_init, cfg.cpp) are
      // zeroed: what a previous CTA left in the others is never read. A traced CTA records
      // registers at any point and in every lane: it starts from a zeroed file.
      if (trace || !s_.f.has_zero_init) {
        std::fill(w.r.begin(), w.r.end(), 0);
      } else {
        std::fill(w.r.begin(), w.r.begin() + kSpecialCount * 32, 0);
        for (const std::uint32_t reg : s_.f.zero_init) std::fill_n(w.r.begin() + static_cast<std::ptrdiff_t>(reg) * 32, 32, 0);
      }
      std::fill(w.p.begin(), w.p.end(), 0);
      std::fill(w.local.begin(), w.local.end(), 0);
      w.exited = 0;
      w.carry = 0;
      w.red_kind = 0;
      w.executed = 0;
      w.state = Warp::running;
      w.trace_count.assign(1, 0);
      for (std::uint32_t l = 0; l < 32; ++l) {
        const std::uint32_t t = wi * 32 + l;
        if (t >= nthreads) {
          w.exited |= 1u << l;
          continue;
        }
        auto set = [&](std::uint32_t reg, std::uint64_t v) { w.r[reg * 32 + l] = v; };
        set(kTidX, t % s_.block.x);
        set(kTidY, (t / s_.block.x) % s_.block.y);
        set(kTidZ, t / (s_.block.x * s_.block.y));
        set(kNtidX, s_.block.x);
        set(kNtidY, s_.block.y);
        set(kNtidZ, s_.block.z);
        set(kCtaidX, cta.x);
        set(kCtaidY, cta.y);
        set(kCtaidZ, cta.z);
        set(kNctaidX, s_.grid.x);
        set(kNctaidY, s_.grid.y);
        set(kNctaidZ, s_.grid.z);
        set(kLaneid, l);
        set(kWarpid, wi);
        set(kNwarpid, s_.nwarps);
        set(kLanemaskEq, 1ull << l);
        set(kLanemaskLt, (1ull << l) - 1);
        set(kLanemaskLe, (2ull << l) - 1);
        set(kLanemaskGt, trunc(~((2ull << l) - 1), 32));
        set(kLanemaskGe, trunc(~((1ull << l) - 1), 32));
      }
      for (const auto& [reg, v] : s_.f.constants)
        for (int l = 0; l < 32; ++l) w.r[reg * 32 + l] = v;
      if (s_.f.pred_true != kNoIndex) w.p[s_.f.pred_true] = kFull;
      w.stack.clear();
      w.stack.push_back({0, kNoIndex, kFull & ~w.exited});
      if (w.exited == kFull) w.state = Warp::done;
    }
    // Warps run until a barrier or their exit; when every live warp waits, the barrier opens.
    // A barrier with a thread count (bar.sync a, b < the CTA's; bar.arrive) opens when b threads,
    // counted per warp, have arrived; its waiting warps then run again.
    std::fill(std::begin(bar_count_), std::end(bar_count_), 0u);
    std::fill(std::begin(bar_target_), std::end(bar_target_), 0u);
    for (;;) {
      bool any_live = false, any_running = false, any_partial = false;
      for (std::uint32_t wi = 0; wi < warps_.size(); ++wi)
        if (warps_[wi].state == Warp::running) run_warp(wi, st);
      for (const Warp& w : warps_) {
        any_live |= w.state != Warp::done;
        any_running |= w.state == Warp::running;
        any_partial |= w.state == Warp::partial;
      }
      if (any_running) continue;
      if (!any_live) break;
      if (any_partial) {
        in_ = nullptr;
        fail("deadlock: warps wait at a barrier with a thread count that the other warps never reach (bar.sync a, b / bar.arrive)");
      }
      finish_barrier_reduction();
      for (Warp& w : warps_)
        if (w.state == Warp::barrier) w.state = Warp::running;
    }
    flush_work();  // the launch total is checked at the end of every CTA too: deterministic
  }

 private:
  Shared& s_;
  std::vector<Warp> warps_;
  std::vector<std::uint8_t> shared_;
  Dim3 cta_;
  TraceResult* trace_ = nullptr;
  std::uint64_t pending_work_ = 0;  // not yet added to Shared::launch_work
  std::vector<std::uint64_t> approx_counts_ = std::vector<std::uint64_t>(s_.m.opcode_names.size(), 0);  // by opcode name

 public:
  // Adds the model-dependent instructions this Cta executed (over all its CTAs) to st.
  void report_model_dependent(RunStats& st) const {
    for (std::size_t k = 0; k < approx_counts_.size(); ++k)
      if (approx_counts_[k]) st.model_dependent[s_.m.opcode_names[k]] += approx_counts_[k];
  }

 private:
  static constexpr std::uint64_t kWorkBatch = 1u << 16;

  void flush_work() {
    if (!s_.launch_work || pending_work_ == 0) return;
    const std::uint64_t total = s_.launch_work->fetch_add(pending_work_) + pending_work_;
    pending_work_ = 0;
    const std::uint64_t max = s_.opt.max_launch_instructions;
    if (total > max)
      throw PtxError(s_.m.filename + ": the launch executed more than " + std::to_string(max) +
                     " instructions in all its warps (an mma.sync counting " + std::to_string(kMmaWork) +
                     "); raise the bound with --max-launch-instructions (RunOptions::max_launch_instructions)");
  }
  std::uint32_t wi_ = 0;
  const Inst* in_ = nullptr;
  // bar.red of the barrier being waited at: the number of threads whose predicate holds, whether
  // all / any hold, and which kind the warps asked for (0: none yet).
  std::uint32_t bar_count_[16] = {}, bar_target_[16] = {};  // barriers with a thread count
  std::uint32_t red_popc_ = 0;
  bool red_all_ = true, red_any_ = false;
  std::uint8_t red_kind_ = 0;

  // The barrier opens: every warp that waits in bar.red gets the CTA's reduction (PTX ISA bar.red:
  // all threads of the barrier use the same form, else an error).
  void finish_barrier_reduction() {
    bool plain = false;
    for (const Warp& w : warps_)
      if (w.state == Warp::barrier && w.red_kind == 0) plain = true;
    if (red_kind_ != 0) {
      if (plain) {
        in_ = nullptr;
        fail("bar.red and bar.sync (or two bar.red operations) meet at one barrier");
      }
      for (std::uint32_t wi = 0; wi < warps_.size(); ++wi) {
        Warp& w = warps_[wi];
        if (w.state != Warp::barrier) continue;
        wi_ = wi;
        if (w.red_kind == 1) {
          std::uint64_t* r = R(w, w.red_dst);
          for (std::uint32_t m = w.red_mask; m; m &= m - 1) r[std::countr_zero(m)] = red_popc_;
        } else {
          put_pred(w, w.red_dst, (w.red_kind == 2 ? red_all_ : red_any_) ? kFull : 0, w.red_mask);
        }
        w.red_kind = 0;
      }
    }
    red_popc_ = 0;
    red_all_ = true;
    red_any_ = false;
    red_kind_ = 0;
  }

  [[noreturn]] void fail(const std::string& what, int lane = -1) const {
    std::ostringstream o;
    o << s_.m.filename << ":" << (in_ ? in_->line : 0) << ": ";
    if (in_) o << s_.m.opcode_names[in_->name] << ": ";
    o << what << " (CTA (" << cta_.x << "," << cta_.y << "," << cta_.z << "), warp " << wi_;
    if (lane >= 0) o << ", lane " << lane;
    o << ")";
    throw PtxError(o.str());
  }

  // ----- memory

  std::uint8_t* resolve(Space sp, std::uint64_t addr, std::uint32_t size, bool write, int lane) {
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
      case Space::generic: {
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
    }
    fail("bad state space", lane);
  }

  static bool in_global_or_shared(std::uint64_t addr) {
    const std::uint64_t win = addr & kWindowMask;
    return win == kSharedWindow || (win != kLocalWindow && win != kParamWindow && win != kConstWindow);
  }

  // ----- register helpers

  std::uint64_t* R(Warp& w, std::uint32_t idx) { return w.r.data() + static_cast<std::size_t>(idx) * 32; }
  static void put(std::uint64_t* d, const std::uint64_t* v, std::uint32_t am) {
    if (am == kFull) {
      std::memcpy(d, v, 32 * sizeof(std::uint64_t));
      return;
    }
    for (std::uint32_t m = am; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      d[l] = v[l];
    }
  }
  static std::uint32_t pred_value(const Warp& w, std::uint32_t operand) {
    const std::uint32_t v = w.p[operand & ~kPredNeg];
    return (operand & kPredNeg) ? ~v : v;
  }
  static void put_pred(Warp& w, std::uint32_t idx, std::uint32_t v, std::uint32_t am) {
    std::uint32_t& p = w.p[idx & ~kPredNeg];
    p = (p & ~am) | (v & am);
  }

  void record_trace(Warp& w, std::uint32_t am) {
    if (!trace_) return;
    TraceEvent e;
    e.warp = wi_;
    e.sequence = w.trace_count[0]++;
    e.active = am;
    for (std::size_t k = 0; k < s_.trace_regs.size(); ++k) {
      std::array<std::uint64_t, 32> v{};
      if (s_.trace_is_pred[k]) {
        const std::uint32_t p = w.p[s_.trace_regs[k]];
        for (int l = 0; l < 32; ++l) v[l] = (p >> l) & 1;
      } else {
        const std::uint64_t* r = R(w, s_.trace_regs[k]);
        for (int l = 0; l < 32; ++l) v[l] = trunc(r[l], static_cast<int>(s_.trace_widths[k]));
      }
      e.values.push_back(v);
    }
    trace_->events.push_back(std::move(e));
  }

  void run_warp(std::uint32_t wi, RunStats& st);
  void exec_alu(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_float(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_cvt(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_mem(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_warp_collective(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am, std::uint32_t live,
                            RunStats& st);
};

#define LANES for (int l = 0; l < 32; ++l)

void Cta::run_warp(std::uint32_t wi, RunStats& st) {
  wi_ = wi;
  Warp& w = warps_[wi];
  const std::vector<Inst>& code = s_.f.code;
  const std::uint32_t* ops = s_.f.operands.data();
  const std::uint64_t max_exec = s_.opt.max_warp_instructions;
  for (;;) {
    if (w.stack.empty()) {
      w.state = Warp::done;
      return;
    }
    Frame& fr = w.stack.back();
    const std::uint32_t mask = fr.mask & ~w.exited;
    if (mask == 0 || fr.pc == fr.rpc) {
      w.stack.pop_back();
      continue;
    }
    if (fr.pc >= code.size()) {
      in_ = nullptr;
      fail("control reached the end of the code");
    }
    const Inst& in = code[fr.pc];
    in_ = &in;
    // The work bound (issue 18): an instruction is one unit, an mma.sync kMmaWork (its cost in
    // the interpreter, docs/performance.md), per warp and per launch.
    const std::uint64_t cost = in.op == Op::mma ? kMmaWork : 1;
    w.executed += cost;
    if (w.executed > max_exec)
      fail("one warp executed more than " + std::to_string(max_exec) + " instructions (an mma.sync counting " + std::to_string(kMmaWork) +
           "): an endless loop? Raise the bound with --max-instructions (RunOptions::max_warp_instructions)");
    if ((pending_work_ += cost) >= kWorkBatch) flush_work();
    std::uint32_t am = mask;
    if (in.guard != kNoIndex) am &= in.guard_neg ? ~w.p[in.guard] : w.p[in.guard];
    st.warp_instructions++;
    if (in.flags & kApprox) ++approx_counts_[in.name];
    st.lane_instructions += static_cast<std::uint64_t>(std::popcount(am));
    const std::uint32_t* d = ops + in.opnd;
    const std::uint32_t* s = d + in.nd;
    const bool tr = in.trace && trace_;
    switch (in.op) {
      case Op::bra: {
        if (tr) record_trace(w, am);
        const std::uint32_t taken = am, not_taken = mask & ~am;
        if (taken == 0) {
          fr.pc++;
          continue;
        }
        if (not_taken == 0) {
          fr.pc = in.target;
          continue;
        }
        // Divergence: this frame waits at the reconvergence point; both paths run on top of it.
        const std::uint32_t rpc = in.ipdom, next = fr.pc + 1, target = in.target;
        fr.pc = rpc;
        if (rpc == kNoIndex) fr.mask = 0;  // both paths end in exit
        if (next != rpc) w.stack.push_back({next, rpc, not_taken});
        if (target != rpc) w.stack.push_back({target, rpc, taken});
        if (w.stack.size() > 100000) fail("SIMT stack overflow");
        continue;
      }
      case Op::exit:
        if (tr) record_trace(w, am);
        w.exited |= am;
        if ((mask & ~am) != 0) fr.pc++;
        continue;
      case Op::trap:
        // A guarded trap traps only where its guard holds (issue 18: `@%p trap`).
        if (am == 0) {
          fr.pc++;
          continue;
        }
        fail("trap executed (the kernel aborted)", std::countr_zero(am));
      case Op::bar: {
        if (am == 0) {
          fr.pc++;
          continue;
        }
        const std::uint32_t live = ~w.exited & kFull;
        if (am != live || w.stack.size() > 1)
          fail("bar.sync on a divergent warp (active lanes 0x" + [&] {
            std::ostringstream o;
            o << std::hex << am;
            return o.str();
          }() + ")");
        const unsigned nregs = in.sub ? in.ns - 1u : in.ns;  // bar.red's last source is its predicate
        const std::uint32_t nthreads = s_.block.x * s_.block.y * s_.block.z, full = (nthreads + 31) / 32 * 32;
        const std::uint64_t n = nregs > 1 ? trunc(R(w, s[1])[std::countr_zero(am)], 32) : full;
        if (n != full || in.sub2 == 1) {
          // A barrier with a thread count: a warp counts 32 (PTX ISA bar: per warp, all its threads).
          if (in.sub) fail("bar.red with a thread count other than the CTA's is not supported");
          const std::uint64_t id = trunc(R(w, s[0])[std::countr_zero(am)], 32);
          if (n == 0 || n % 32 != 0 || n > full)
            fail("barrier thread count " + std::to_string(n) + " is not a positive multiple of 32 up to the CTA's " + std::to_string(full));
          if (id >= 16) fail("barrier " + std::to_string(id) + " does not exist (0..15)");
          if (bar_target_[id] != 0 && bar_target_[id] != n) fail("barrier " + std::to_string(id) + " used with two thread counts at once");
          bar_target_[id] = static_cast<std::uint32_t>(n);
          bar_count_[id] += 32;
          if (tr) record_trace(w, am);
          fr.pc++;
          if (bar_count_[id] >= n) {
            for (Warp& o : warps_)
              if (o.state == Warp::partial && o.wait_bar == id) o.state = Warp::running;
            bar_count_[id] = bar_target_[id] = 0;
            continue;  // the last warp to arrive goes on
          }
          if (in.sub2 == 1) continue;  // bar.arrive does not wait
          w.state = Warp::partial;
          w.wait_bar = static_cast<std::uint32_t>(id);
          return;
        }
        if (in.sub) {
          if (red_kind_ != 0 && red_kind_ != in.sub) fail("bar.red and bar.sync (or two bar.red operations) meet at one barrier");
          red_kind_ = in.sub;
          const std::uint32_t c = pred_value(w, s[in.ns - 1]) & am;
          red_popc_ += static_cast<std::uint32_t>(std::popcount(c));
          red_all_ = red_all_ && c == am;
          red_any_ = red_any_ || c != 0;
          w.red_kind = in.sub;
          w.red_dst = d[0];
          w.red_mask = am;
        }
        if (tr) record_trace(w, am);
        fr.pc++;
        w.state = Warp::barrier;
        return;
      }
      default: break;
    }
    if (am != 0) {
      switch (in.op) {
        case Op::ld:
        case Op::st:
        case Op::tex2d:
        case Op::sust2d:
        case Op::atom:
        case Op::cp_async: exec_mem(w, in, d, s, am); break;
        case Op::mma:
        case Op::movmatrix:
        case Op::ldmatrix:
        case Op::stmatrix:
        case Op::shfl:
        case Op::vote:
        case Op::match:
        case Op::redux:
        case Op::warpsync:
          if (am != 0) exec_warp_collective(w, in, d, s, am, mask, st);
          break;
        case Op::fadd:
        case Op::fsub:
        case Op::fmul:
        case Op::ffma:
        case Op::fdiv:
        case Op::fabs:
        case Op::fneg:
        case Op::fmin:
        case Op::fmax:
        case Op::fsqrt:
        case Op::frcp:
        case Op::frsqrt:
        case Op::fex2:
        case Op::fcopysign:
        case Op::fsin:
        case Op::fcos:
        case Op::flg2:
        case Op::ftanh:
        case Op::testp: exec_float(w, in, d, s, am); break;
        case Op::cvt:
        case Op::cvt_pack_f16x2_f32:
        case Op::cvt_e4m3x2_f16x2:
        case Op::cvt_f16x2_e4m3x2:
        case Op::cvt_alt: exec_cvt(w, in, d, s, am); break;
        case Op::membar:
        case Op::nop: break;
        case Op::activemask: {
          std::uint64_t v[32];
          LANES v[l] = mask;
          put(R(w, d[0]), v, am);
          break;
        }
        default: exec_alu(w, in, d, s, am); break;
      }
    }
    if (tr) record_trace(w, am);
    fr.pc++;
  }
}

void Cta::exec_alu(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  const int wd = type_bits(in.t);
  const bool sg = type_is_signed(in.t);
  std::uint64_t v[32];
  const std::uint64_t* a = in.ns > 0 ? R(w, s[0]) : nullptr;
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  const std::uint64_t* c = in.ns > 2 ? R(w, s[2]) : nullptr;
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
    case Op::pmov: put_pred(w, d[0], pred_value(w, s[0]), am); return;
    case Op::pnot: put_pred(w, d[0], ~pred_value(w, s[0]), am); return;
    case Op::pand: put_pred(w, d[0], pred_value(w, s[0]) & pred_value(w, s[1]), am); return;
    case Op::por: put_pred(w, d[0], pred_value(w, s[0]) | pred_value(w, s[1]), am); return;
    case Op::pxor: put_pred(w, d[0], pred_value(w, s[0]) ^ pred_value(w, s[1]), am); return;
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
    case Op::shf:
      // shf.l: the upper 32 bits of {b:a} << n; shf.r: the lower 32 bits of {b:a} >> n;
      // n = min(c, 32) (.clamp) or c & 31 (.wrap).
      LANES {
        const std::uint64_t cc = trunc(c[l], 32), n = (in.sub & 2) ? std::min<std::uint64_t>(cc, 32) : (cc & 31);
        const std::uint64_t x = (trunc(b[l], 32) << 32) | trunc(a[l], 32);
        v[l] = (in.sub & 1) ? trunc(x >> n, 32) : trunc((x << n) >> 32, 32);
      }
      break;
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
      // Division by zero is unspecified in PTX: enc5 gives all ones (quotient) and the dividend
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
    case Op::setp:
    case Op::set: {
      // One comparison per lane (per half for f16x2 / bf16x2), then the BoolOp with c.
      const Cmp cmp = static_cast<Cmp>(in.sub);
      const bool ftz_on = in.flags & kFtz;
      const bool x2 = in.t == Type::f16x2 || in.t == Type::bf16x2;
      const Type half = in.t == Type::f16x2 ? Type::f16 : Type::bf16;
      std::uint32_t lo = 0, hi = 0;
      if (x2) {
        LANES {
          lo |= static_cast<std::uint32_t>(compare(cmp, half, a[l] & 0xFFFF, b[l] & 0xFFFF, ftz_on, 16, false)) << l;
          hi |= static_cast<std::uint32_t>(compare(cmp, half, (a[l] >> 16) & 0xFFFF, (b[l] >> 16) & 0xFFFF, ftz_on, 16, false)) << l;
        }
      } else {
        LANES lo |= static_cast<std::uint32_t>(compare(cmp, in.t, a[l], b[l], ftz_on, wd, sg)) << l;
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
    case Op::selp: {
      const std::uint32_t p = pred_value(w, s[2]);
      LANES v[l] = trunc(((p >> l) & 1) ? a[l] : b[l], wd);
      break;
    }
    case Op::slct:
      LANES {
        // slct: c >= 0 selects a (-0 included); a NaN c selects b; .ftz flushes a subnormal c to a
        // zero of its sign first (PTX ISA 9.7.8.3), so -denormal selects a.
        const float cf = ftz(f32(c[l]), (in.flags & kFtz) != 0);
        const bool ge = in.t2 == Type::f32 ? (!std::isnan(cf) && cf >= 0.0f) : sext(c[l], 32) >= 0;
        v[l] = trunc(ge ? a[l] : b[l], wd);
      }
      break;
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

void Cta::exec_float(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
  const std::uint64_t* c = in.ns > 2 ? R(w, s[2]) : nullptr;
  const bool fz = in.flags & kFtz, sat = in.flags & kSat;
  if (in.op == Op::testp) {
    std::uint32_t res = 0;
    LANES {
      const double x = in.t == Type::f32 ? static_cast<double>(f32(a[l])) : f64(a[l]);
      const bool sub = in.t == Type::f32 ? (x != 0 && std::fabs(x) < FLT_MIN) : (x != 0 && std::fabs(x) < DBL_MIN);
      bool r = false;
      switch (in.sub) {
        case 0: r = std::isfinite(x); break;
        case 1: r = std::isinf(x); break;
        case 2: r = !std::isnan(x); break;
        case 3: r = std::isnan(x); break;
        case 4: r = std::isfinite(x) && x != 0 && !sub; break;
        case 5: r = sub; break;
      }
      res |= static_cast<std::uint32_t>(r) << l;
    }
    put_pred(w, d[0], res, am);
    return;
  }
  switch (in.t) {
    case Type::f16:
    case Type::f16x2: {
      // The operation chosen once per instruction, then applied to the 32 lanes.
      const bool x2 = in.t == Type::f16x2;
      const auto w32 = [](std::uint64_t u) { return static_cast<std::uint32_t>(u); };
      const auto h = [](std::uint64_t u) { return static_cast<f16_t>(u); };
#define F16_UNARY(P, S)        \
  if (x2) {                    \
    LANES v[l] = P(w32(a[l])); \
  } else {                     \
    LANES v[l] = S(h(a[l]));   \
  }                            \
  break;
#define F16_BINARY(P, S)                  \
  if (x2) {                               \
    LANES v[l] = P(w32(a[l]), w32(b[l])); \
  } else {                                \
    LANES v[l] = S(h(a[l]), h(b[l]));     \
  }                                       \
  break;
      switch (in.op) {
        case Op::fadd: F16_BINARY(f16x2_add, f16_add)
        case Op::fsub: F16_BINARY(f16x2_sub, f16_sub)
        case Op::fmul: F16_BINARY(f16x2_mul, f16_mul)
        case Op::fmin: F16_BINARY(f16x2_min, f16_min)
        case Op::fmax: F16_BINARY(f16x2_max, f16_max)
        case Op::fneg: F16_UNARY(f16x2_neg, f16_neg)
        case Op::fabs: F16_UNARY(f16x2_abs, f16_abs)
        case Op::ffma:
          if (x2) {
            LANES v[l] = f16x2_fma(w32(a[l]), w32(b[l]), w32(c[l]));
          } else {
            LANES v[l] = f16_fma(h(a[l]), h(b[l]), h(c[l]));
          }
          break;
        default: fail("operation not supported on f16");
      }
#undef F16_UNARY
#undef F16_BINARY
      // min/max.NaN: a NaN operand gives the canonical NaN (per half); .relu (fma/min/max).
      if (in.sub2 & kMinMaxNaN) {
        LANES for (int hv = 0; hv < (x2 ? 2 : 1); ++hv) if (f16_is_nan(h(a[l] >> (16 * hv))) || f16_is_nan(h(b[l] >> (16 * hv)))) v[l] =
            (v[l] & ~(0xFFFFull << (16 * hv))) | (static_cast<std::uint64_t>(kF16CanonicalNaN) << (16 * hv));
      }
      if (in.sub2 & kRelu) {
        if (x2) {
          LANES v[l] = f16x2_relu(w32(v[l]));
        } else {
          LANES v[l] = f16_relu(h(v[l]));
        }
      }
      break;
    }
    case Type::bf16:
    case Type::bf16x2: {
      // bf16 arithmetic (numerics/minifloat); neg/abs flip / clear the sign bits.
      const bool x2 = in.t == Type::bf16x2;
      const auto w32 = [](std::uint64_t u) { return static_cast<std::uint32_t>(u); };
      const auto h = [](std::uint64_t u) { return static_cast<std::uint16_t>(u); };
      const std::uint32_t sign = x2 ? 0x80008000u : 0x8000u;
#define BF16_BINARY(P, S)                 \
  if (x2) {                               \
    LANES v[l] = P(w32(a[l]), w32(b[l])); \
  } else {                                \
    LANES v[l] = S(h(a[l]), h(b[l]));     \
  }                                       \
  break;
      switch (in.op) {
        case Op::fadd: BF16_BINARY(bf16x2_add, bf16_add)
        case Op::fsub: BF16_BINARY(bf16x2_sub, bf16_sub)
        case Op::fmul: BF16_BINARY(bf16x2_mul, bf16_mul)
        case Op::fmin: BF16_BINARY(bf16x2_min, bf16_min)
        case Op::fmax: BF16_BINARY(bf16x2_max, bf16_max)
        case Op::fneg: LANES v[l] = (w32(a[l]) ^ sign) & (x2 ? 0xFFFFFFFFu : 0xFFFFu); break;
        case Op::fabs: LANES v[l] = w32(a[l]) & ~sign & (x2 ? 0xFFFFFFFFu : 0xFFFFu); break;
        default: fail("operation not supported on bf16");
      }
#undef BF16_BINARY
      break;
    }
    case Type::f32: {
      const Round rd = round_of(in.rnd);
      const bool nan_wins = in.sub2 & kMinMaxNaN;
      LANES {
        const float x = ftz(f32(a[l]), fz), y = b ? ftz(f32(b[l]), fz) : 0.0f, z = c ? ftz(f32(c[l]), fz) : 0.0f;
        float r = 0;
        switch (in.op) {
          // add/mul.ftz.f32 without a rounding modifier: numerics/approx's definition (E61).
          case Op::fadd: r = fz && in.rnd == Rnd::none ? add_ftz_f32(x, y) : f32_add(x, y, rd); break;
          case Op::fsub: r = f32_sub(x, y, rd); break;
          case Op::fmul: r = fz && in.rnd == Rnd::none ? mul_ftz_f32(x, y) : f32_mul(x, y, rd); break;
          case Op::ffma: r = f32_fma(x, y, z, rd); break;
          case Op::fdiv: r = (in.flags & kApprox) ? div_approx_ftz_f32(x, y) : f32_div(x, y, rd); break;
          case Op::fmin: r = f32_min(x, y, nan_wins); break;
          case Op::fmax: r = f32_max(x, y, nan_wins); break;
          case Op::fabs: v[l] = std::bit_cast<std::uint32_t>(x) & 0x7FFFFFFFu; continue;
          case Op::fneg: v[l] = std::bit_cast<std::uint32_t>(x) ^ 0x80000000u; continue;
          case Op::fsqrt: r = (in.flags & kApprox) ? sqrt_approx_f32(x, fz) : f32_sqrt(x, rd); break;
          case Op::frcp: r = !(in.flags & kApprox) ? f32_rcp(x, rd) : fz ? rcp_approx_ftz_f32(x) : rcp_approx_f32(x); break;
          case Op::frsqrt: r = fz ? rsqrt_approx_ftz_f32(x) : rsqrt_approx_f32(x); break;
          case Op::fex2: r = fz ? ex2_approx_ftz_f32(x) : ex2_approx_f32(x); break;
          case Op::fsin: r = sin_approx_f32(x, fz); break;
          case Op::fcos: r = cos_approx_f32(x, fz); break;
          case Op::flg2: r = lg2_approx_f32(x, fz); break;
          case Op::ftanh: r = tanh_approx_f32(x); break;
          case Op::fcopysign:
            v[l] = (static_cast<std::uint32_t>(a[l]) & 0x80000000u) | (static_cast<std::uint32_t>(b[l]) & 0x7FFFFFFFu);
            continue;
          default: fail("operation not supported on f32");
        }
        r = ftz(r, fz);
        if (sat) r = f32_sat(r);
        v[l] = bits(r);
      }
      break;
    }
    case Type::f64: {
      const Round rd = round_of(in.rnd);
      const bool nan_wins = in.sub2 & kMinMaxNaN;
      LANES {
        const double x = f64(a[l]), y = b ? f64(b[l]) : 0.0, z = c ? f64(c[l]) : 0.0;
        double r = 0;
        switch (in.op) {
          case Op::fadd: r = f64_add(x, y, rd); break;
          case Op::fsub: r = f64_sub(x, y, rd); break;
          case Op::fmul: r = f64_mul(x, y, rd); break;
          case Op::ffma: r = f64_fma(x, y, z, rd); break;
          case Op::fdiv: r = f64_div(x, y, rd); break;
          case Op::fmin: r = f64_min(x, y, nan_wins); break;
          case Op::fmax: r = f64_max(x, y, nan_wins); break;
          case Op::fabs: v[l] = a[l] & 0x7FFFFFFFFFFFFFFFull; continue;
          case Op::fneg: v[l] = a[l] ^ 0x8000000000000000ull; continue;
          case Op::fsqrt: r = f64_sqrt(x, rd); break;
          case Op::frcp: r = (in.flags & kApprox) ? rcp_approx_ftz_f64(x) : f64_rcp(x, rd); break;
          case Op::frsqrt: r = rsqrt_approx_f64(x, fz); break;
          case Op::fcopysign: v[l] = (a[l] & 0x8000000000000000ull) | (b[l] & 0x7FFFFFFFFFFFFFFFull); continue;
          default: fail("operation not supported on f64");
        }
        if (sat) r = f64_sat(r);
        v[l] = bits(r);
      }
      break;
    }
    default: fail("unsupported float type");
  }
  put(R(w, d[0]), v, am);
}

void Cta::exec_cvt(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  std::uint64_t v[32];
  const std::uint64_t* a = R(w, s[0]);
  switch (in.op) {
    case Op::cvt_e4m3x2_f16x2: LANES v[l] = cvt_e4m3x2_f16x2(static_cast<f16x2_t>(a[l]), s_.profile); break;
    case Op::cvt_f16x2_e4m3x2: LANES v[l] = cvt_f16x2_e4m3x2(static_cast<std::uint16_t>(a[l])); break;
    case Op::cvt_alt: {
      const std::uint64_t* b = in.ns > 1 ? R(w, s[1]) : nullptr;
      const Profile& p = s_.profile;
      LANES {
        switch (in.sub) {
          case 0: v[l] = f32_to_e4m3(f32(b[l]), p) | (static_cast<std::uint64_t>(f32_to_e4m3(f32(a[l]), p)) << 8); break;
          case 1: v[l] = f32_to_e5m2(f32(b[l]), p) | (static_cast<std::uint64_t>(f32_to_e5m2(f32(a[l]), p)) << 8); break;
          case 2:
            v[l] = f16_to_e5m2(static_cast<f16_t>(a[l]), p) |
                   (static_cast<std::uint64_t>(f16_to_e5m2(static_cast<f16_t>(a[l] >> 16), p)) << 8);
            break;
          case 3:
            v[l] = e5m2_to_f16(static_cast<std::uint8_t>(a[l])) |
                   (static_cast<std::uint64_t>(e5m2_to_f16(static_cast<std::uint8_t>(a[l] >> 8))) << 16);
            break;
          case 4: v[l] = f32_to_bf16(f32(a[l])); break;
          case 5: v[l] = bits(bf16_to_f32(static_cast<std::uint16_t>(a[l]))); break;
          default: v[l] = f32_to_bf16(f32(b[l])) | (static_cast<std::uint64_t>(f32_to_bf16(f32(a[l]))) << 16); break;
        }
      }
      if (in.sub2 & kRelu)
        LANES v[l] = bf16_relu(static_cast<std::uint16_t>(v[l])) |
                     (static_cast<std::uint64_t>(bf16_relu(static_cast<std::uint16_t>(v[l] >> 16))) << 16);
      break;
    }
    case Op::cvt_pack_f16x2_f32: {
      const std::uint64_t* b = R(w, s[1]);
      LANES v[l] = f16x2_pack(f32_to_f16(f32(b[l])), f32_to_f16(f32(a[l])));  // a -> upper half, b -> lower
      if (in.sub2 & kRelu) LANES v[l] = f16x2_relu(static_cast<f16x2_t>(v[l]));
      break;
    }
    default: {
      const Type dt = in.t, st = in.t2;
      const bool fz = in.flags & kFtz, sat = in.flags & kSat;
      const bool df = type_is_float(dt), sf = type_is_float(st);
      const int dw = type_bits(dt), sw = type_bits(st);
      LANES {
        const std::uint64_t x = a[l];
        if (!df && !sf) {
          if (sat) {
            // Clamp the source value to the destination range.
            const bool ss = type_is_signed(st), ds = type_is_signed(dt);
            const __int128 val = ss ? static_cast<__int128>(sext(x, sw)) : static_cast<__int128>(trunc(x, sw));
            const __int128 lo = ds ? -(static_cast<__int128>(1) << (dw - 1)) : 0;
            const __int128 hi = ds ? (static_cast<__int128>(1) << (dw - 1)) - 1 : (static_cast<__int128>(1) << dw) - 1;
            v[l] = trunc(static_cast<std::uint64_t>(std::clamp(val, lo, hi)), dw);
          } else {
            v[l] = trunc(type_is_signed(st) ? static_cast<std::uint64_t>(sext(x, sw)) : trunc(x, sw), dw);
          }
        } else if (!df && sf) {
          v[l] = f64_to_int(float_value(x, st, fz), round_of(in.rnd), dw, type_is_signed(dt));
        } else if (df && !sf) {
          // Integer -> float in the instruction's rounding direction (numerics/f32).
          const bool ss = type_is_signed(st);
          const std::uint64_t xv = ss ? static_cast<std::uint64_t>(sext(x, sw)) : trunc(x, sw);
          if (dt == Type::f16) {
            // .rn only (decoder): every integer that rounds to a finite f16 is exact in a double,
            // and the larger ones round to Inf either way.
            v[l] = f64_to_f16(int_to_f64(xv, ss, Round::rn));
          } else if (dt == Type::f32) {
            const float fv = int_to_f32(xv, ss, round_of(in.rnd));
            v[l] = bits(sat ? f32_sat(fv) : fv);
          } else {
            const double dv = int_to_f64(xv, ss, round_of(in.rnd));
            v[l] = bits(sat ? f64_sat(dv) : dv);
          }
        } else if (dt == st) {
          // cvt.rni/rzi/rmi/rpi.f32.f32 (and f64): round to an integral value in the same format.
          if (dt == Type::f32) {
            const float fr = ftz(f32_round_integral(ftz(f32(x), fz), round_of(in.rnd)), fz);
            v[l] = bits(sat ? f32_sat(fr) : fr);
          } else {
            const double r = f64_round_integral(f64(x), round_of(in.rnd));
            v[l] = bits(sat ? f64_sat(r) : r);
          }
        } else if (dt == Type::f16) {
          f16_t hr = st == Type::f32 ? f32_to_f16(ftz(f32(x), fz)) : f64_to_f16(f64(x));
          if (in.sub2 & kRelu) hr = f16_relu(hr);
          v[l] = sat ? f16_sat(hr) : hr;
        } else if (dt == Type::f32) {
          float r = st == Type::f16 ? f16_to_f32(static_cast<f16_t>(x)) : f64_to_f32(f64(x), round_of(in.rnd));
          r = ftz(r, fz);
          if (std::isnan(r)) r = f32_canonical_nan();
          v[l] = bits(sat ? f32_sat(r) : r);
        } else {  // f64 from f16 or f32: exact
          double r = st == Type::f16 ? f16_to_f64(static_cast<f16_t>(x)) : static_cast<double>(ftz(f32(x), fz));
          if (std::isnan(r)) r = f64_canonical_nan();
          v[l] = bits(sat ? f64_sat(r) : r);
        }
      }
      // A signed result is sign-extended to a wider destination register, the others are
      // zero-extended (PTX ISA 9.4.1, Table 28: `cvt.s16.s8` into a .b32 register).
      if (type_is_signed(dt) && in.dbits > dw) LANES v[l] = trunc(static_cast<std::uint64_t>(sext(v[l], dw)), in.dbits);
    }
  }
  put(R(w, d[0]), v, am);
}

void Cta::exec_mem(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  switch (in.op) {
    case Op::ld:
    case Op::st: {
      const Space sp = static_cast<Space>(in.sub);
      const std::uint32_t es = static_cast<std::uint32_t>(type_bits(in.t) / 8);
      const std::uint32_t n = in.op == Op::ld ? in.nd : in.ns - 1u;
      const std::uint64_t* base = R(w, s[0]);
      const bool sg = type_is_signed(in.t);
      for (std::uint32_t m = am; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        const std::uint64_t addr = base[l] + static_cast<std::uint64_t>(in.imm);
        std::uint8_t* p = resolve(sp, addr, es * n, in.op == Op::st, l);
        for (std::uint32_t k = 0; k < n; ++k) {
          if (in.op == Op::ld) {
            std::uint64_t x = 0;
            switch (es) {  // fixed sizes: an inline load, not a library call
              case 1: std::memcpy(&x, p + k, 1); break;
              case 2: std::memcpy(&x, p + k * 2, 2); break;
              case 4: std::memcpy(&x, p + k * 4, 4); break;
              default: std::memcpy(&x, p + k * 8, 8); break;
            }
            // Sign- or zero-extended to the destination register's width (PTX ISA 9.4.1).
            R(w, d[k])[l] = sg ? trunc(static_cast<std::uint64_t>(sext(x, 8 * static_cast<int>(es))), in.dbits) : x;
          } else {
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
      return;
    }
    case Op::tex2d: {
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
      return;
    }
    case Op::sust2d: {
      const std::uint64_t* h = R(w, s[0]);
      const std::uint64_t* x = R(w, s[1]);
      const std::uint64_t* y = R(w, s[2]);
      for (std::uint32_t m = am; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        const std::uint64_t hv = h[l];
        if ((hv & (0xFFull << 56)) != kSurfaceHandle || (hv & 0xFFFFFFFFu) >= s_.dev.surfaces.size() || !s_.dev.surfaces[hv & 0xFFFFFFFFu])
          fail("sust with a handle that is no bound surface object", l);
        Surface& sf = *s_.dev.surfaces[hv & 0xFFFFFFFFu];
        std::array<f16_t, 4> val;
        std::int64_t xb = sext(x[l], 32);
        if (in.t == Type::b32) {
          // sust.p: x is a sample index; the f32 values are converted to the surface's RGBA16F
          // format as cvt.rn.f16.f32 does (docs/readings.md "ptx-tex-sampler").
          for (int k = 0; k < 4; ++k) val[k] = f32_to_f16(f32(R(w, s[3 + k])[l]));
          xb *= 8;
        } else {
          for (int k = 0; k < 4; ++k) val[k] = static_cast<f16_t>(R(w, s[3 + k])[l]);
        }
        if (xb < INT32_MIN || xb > INT32_MAX) continue;  // outside every surface: dropped (.zero)
        sf.store_b16x4(static_cast<int>(xb), static_cast<int>(sext(y[l], 32)), val);
      }
      return;
    }
    case Op::cp_async: {
      const std::uint32_t n = in.sub;
      const std::uint64_t* db = R(w, s[0]);
      const std::uint64_t* sb = R(w, s[1]);
      const std::uint64_t* ssz = R(w, s[2]);
      for (std::uint32_t m = am; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        const std::uint64_t dst = db[l] + static_cast<std::uint64_t>(in.imm), srca = sb[l] + in.target;
        const std::uint64_t take = trunc(ssz[l], 32);
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
      return;
    }
    case Op::atom: {
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
      return;
    }
    default: fail("memory instruction not implemented");
  }
}

void Cta::exec_warp_collective(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am,
                               std::uint32_t live, RunStats& st) {
  auto hex = [](std::uint32_t x) {
    std::ostringstream o;
    o << "0x" << std::hex << x;
    return o.str();
  };
  switch (in.op) {
    case Op::mma: {
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
      st.mma++;
      return;
    }
    case Op::movmatrix: {
      if (am != kFull) fail("movmatrix.sync.aligned on a warp whose 32 lanes are not all active (active " + hex(am) + ")");
      WarpReg a;
      for (int l = 0; l < 32; ++l) a[l] = static_cast<std::uint32_t>(R(w, s[0])[l]);
      const WarpReg r = movmatrix_trans(a);
      for (int l = 0; l < 32; ++l) R(w, d[0])[l] = r[l];
      return;
    }
    case Op::ldmatrix:
    case Op::stmatrix: {
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
      return;
    }
    case Op::shfl:
    case Op::vote:
    case Op::match:
    case Op::redux:
    case Op::warpsync: {
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
      if (member != am) fail(s_.m.opcode_names[in.name] + ": the active lanes " + hex(am) + " are not the membermask " + hex(member));
      (void)live;
      if (in.op == Op::warpsync) return;
      if (in.op == Op::match) {
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
        return;
      }
      if (in.op == Op::redux) {
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
        return;
      }
      if (in.op == Op::vote) {
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
        return;
      }
      const std::uint64_t* a = R(w, s[0]);
      const std::uint64_t* b = R(w, s[1]);
      const std::uint64_t* c = R(w, s[2]);
      std::uint64_t v[32];
      std::uint32_t pv = 0;
      const ShflKind kind = static_cast<ShflKind>(in.sub);
      LANES {
        const ShflSource src =
            shfl_source(kind, static_cast<unsigned>(l), static_cast<std::uint32_t>(b[l]), static_cast<std::uint32_t>(c[l]));
        v[l] = trunc(a[src.lane], 32);
        pv |= static_cast<std::uint32_t>(src.in_range) << l;
      }
      put(R(w, d[0]), v, am);
      if (in.nd > 1) put_pred(w, d[1], pv, am);
      return;
    }
    default: fail("collective not implemented");
  }
}

}  // namespace

RunStats run(const Module& m, std::string_view entry, Dim3 grid, Dim3 block, std::span<const std::uint8_t> params, Device& device,
             const RunOptions& options) {
  const Function* f = m.find(entry);
  if (!f || !f->is_entry) {
    std::string names;
    for (const Function& g : m.functions)
      if (g.is_entry) names += (names.empty() ? "" : ", ") + g.name;
    throw PtxError(m.filename + ": no entry named '" + std::string(entry) + "' (entries: " + (names.empty() ? "none" : names) + ")");
  }
  if (params.size() != f->param_bytes)
    throw PtxError(m.filename + ": entry " + f->name + " takes " + std::to_string(f->param_bytes) + " parameter bytes, got " +
                   std::to_string(params.size()));
  const std::uint64_t nthreads = static_cast<std::uint64_t>(block.x) * block.y * block.z;
  if (block.x == 0 || block.y == 0 || block.z == 0 || nthreads > 1024)
    throw PtxError("block (" + std::to_string(block.x) + "," + std::to_string(block.y) + "," + std::to_string(block.z) +
                   ") is not a valid CTA shape (1..1024 threads)");
  // x·y·z of three u32 can wrap 64 bits: a wrapped product counts as too large.
  std::uint64_t nctas = 0;
  const bool wraps = __builtin_mul_overflow(static_cast<std::uint64_t>(grid.x) * grid.y, static_cast<std::uint64_t>(grid.z), &nctas);
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || wraps || nctas > kMaxCtas)
    throw PtxError("grid (" + std::to_string(grid.x) + "," + std::to_string(grid.y) + "," + std::to_string(grid.z) + ") is " +
                   (nctas == 0 && !wraps ? std::string("empty")
                                         : "larger than the interpreter's limit of " + std::to_string(kMaxCtas) + " CTAs (" +
                                               (wraps ? std::string("more than 2^64") : std::to_string(nctas)) + ")"));
  // 16 MiB of registers per warp at most (hostile register counts; the decoder's limit).
  if (f->nregs > kMaxRegisters || f->npreds > kMaxRegisters)
    throw PtxError(m.filename + ": entry " + f->name + " has more than " + std::to_string(kMaxRegisters) + " register slots");

  const Profile& profile = options.profile ? *options.profile : profile_ada();
  std::vector<std::vector<std::uint8_t>> module_globals;
  std::vector<std::uint8_t> const_bank(m.const_bytes, 0);
  for (const Variable& v : m.variables) {
    if (v.space == Space::global) {
      module_globals.emplace_back(v.size, 0);  // v.size <= kMaxGlobalBytes (decoder)
      std::copy(v.init.begin(), v.init.end(), module_globals.back().begin());
    } else {
      module_globals.emplace_back();
    }
    if (v.space == Space::constant) std::copy(v.init.begin(), v.init.end(), const_bank.begin() + static_cast<std::ptrdiff_t>(v.address));
  }
  std::uint64_t shared_bytes = m.shared_bytes;
  if (m.extern_shared_base != kNoIndex)
    shared_bytes = std::max<std::uint64_t>(shared_bytes, m.extern_shared_base + options.dynamic_shared_bytes);
  else
    shared_bytes += options.dynamic_shared_bytes;
  if (shared_bytes > kMaxSharedBytes)
    throw PtxError("shared memory of " + std::to_string(shared_bytes) + " bytes (static + dynamic) exceeds the interpreter's limit of " +
                   std::to_string(kMaxSharedBytes));

  Shared sh{m,
            *f,
            device.impl(),
            module_globals,
            const_bank,
            params,
            profile,
            options,
            grid,
            block,
            static_cast<std::uint32_t>(shared_bytes),
            static_cast<std::uint32_t>((nthreads + 31) / 32),
            {},
            {},
            {},
            nullptr};

  // Trace point: the last decoded instruction of the statement (or of the line).
  std::vector<Inst> traced_code;
  Function traced;
  const Function* fn = f;
  if (options.trace && options.trace_out) {
    const TraceSpec& ts = *options.trace;
    traced = *f;
    bool any = false;
    std::uint32_t line = ts.line;
    if (ts.statement) {
      if (ts.statement > f->statement_lines.size())
        throw PtxError(m.filename + ": statement s" + std::to_string(ts.statement) + " does not exist (the entry has " +
                       std::to_string(f->statement_lines.size()) + ")");
      line = f->statement_lines[ts.statement - 1];
      const std::uint32_t last = f->statement_last_inst[ts.statement - 1];
      if (last != kNoIndex) {
        traced.code[last].trace = true;
        any = true;
      }
    } else {
      for (std::uint32_t k = 0; k < f->statement_lines.size(); ++k)
        if (f->statement_lines[k] == line && f->statement_last_inst[k] != kNoIndex) {
          traced.code[f->statement_last_inst[k]].trace = true;
          any = true;
        }
      if (!any)
        for (Inst& in : traced.code)
          if (in.line == line) {
            in.trace = true;
            any = true;
          }
    }
    if (!any) throw PtxError(m.filename + ": no instruction at line " + std::to_string(line) + " of entry " + f->name);
    options.trace_out->line = line;
    options.trace_out->registers = ts.registers;
    options.trace_out->widths.clear();
    options.trace_out->events.clear();
    for (const std::string& r : ts.registers) {
      auto it = f->reg_by_name.find(r);
      if (it == f->reg_by_name.end()) throw PtxError(m.filename + ": entry " + f->name + " declares no register " + r);
      const RegInfo& ri = f->regs[it->second];
      sh.trace_regs.push_back(ri.index);
      sh.trace_is_pred.push_back(ri.type == Type::pred);
      sh.trace_widths.push_back(ri.type == Type::pred ? 1 : static_cast<std::uint32_t>(type_bits(ri.type)));
      options.trace_out->widths.push_back(sh.trace_widths.back());
    }
    fn = &traced;
  }
  std::atomic<std::uint64_t> launch_work{0};
  Shared shared_run{m,    *fn,   device.impl(),   module_globals, const_bank,    params,          profile,          options,
                    grid, block, sh.shared_bytes, sh.nwarps,      sh.trace_regs, sh.trace_widths, sh.trace_is_pred, &launch_work};

  // CTAs on threads. Each CTA writes its own outputs; the first error by CTA index is reported.
  int threads = options.threads > 0 ? options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(threads), nctas));
  std::atomic<std::uint64_t> next{0};
  std::mutex mu;
  std::uint64_t err_cta = ~0ull;
  std::string err_msg;
  std::vector<RunStats> per(static_cast<std::size_t>(threads));
  auto worker = [&](int t) {
    try {
      Cta cta(shared_run);
      for (;;) {
        const std::uint64_t i = next.fetch_add(1);
        if (i >= nctas) break;
        {
          std::lock_guard<std::mutex> g(mu);
          if (i > err_cta) break;
        }
        const Dim3 id{static_cast<std::uint32_t>(i % grid.x), static_cast<std::uint32_t>((i / grid.x) % grid.y),
                      static_cast<std::uint32_t>(i / (static_cast<std::uint64_t>(grid.x) * grid.y))};
        const bool tr = options.trace && options.trace_out && id.x == options.trace->cta.x && id.y == options.trace->cta.y &&
                        id.z == options.trace->cta.z;
        try {
          cta.run(id, per[static_cast<std::size_t>(t)], tr ? options.trace_out : nullptr);
          per[static_cast<std::size_t>(t)].ctas++;
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> g(mu);
          if (i < err_cta) {
            err_cta = i;
            err_msg = e.what();
          }
        }
      }
      cta.report_model_dependent(per[static_cast<std::size_t>(t)]);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> g(mu);
      if (err_cta == ~0ull) {
        err_cta = 0;
        err_msg = e.what();
      }
    }
  };
  if (threads <= 1) {
    worker(0);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker, t);
    for (auto& th : pool) th.join();
  }
  if (err_cta != ~0ull) throw PtxError(err_msg);
  RunStats total;
  for (const RunStats& r : per) {
    total.warp_instructions += r.warp_instructions;
    total.lane_instructions += r.lane_instructions;
    total.mma += r.mma;
    total.ctas += r.ctas;
    for (const auto& [name, n] : r.model_dependent) total.model_dependent[name] += n;
  }
  if (options.trace && options.trace_out) {
    const Dim3 c = options.trace->cta;
    if (c.x >= grid.x || c.y >= grid.y || c.z >= grid.z)
      throw PtxError("trace CTA (" + std::to_string(c.x) + "," + std::to_string(c.y) + "," + std::to_string(c.z) +
                     ") is outside the grid (" + std::to_string(grid.x) + "," + std::to_string(grid.y) + "," + std::to_string(grid.z) +
                     ")");
  }
  return total;
}

}  // namespace enc5::ptx
