// The executor's scheduling (exec.hpp): the launch, CTAs on threads (atomic counter), a CTA's warps
// one at a time (each until bar.sync/barrier.sync or exit), the SIMT stack of each warp, barriers and
// the work bound; each other instruction goes through kExec to its operation (exec_*.cpp).
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <sstream>
#include <system_error>
#include <thread>

#include "model/texture_surface.hpp"
#include "ptx/exec.hpp"

namespace rrswin::ptx {

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
std::uint64_t Device::bind_surface(Surface* s, SurfaceFormat format) {
  // sust writes within a row of pitch bytes by the texel size of the format: a surface whose rows
  // cannot hold width texels of it, or whose bytes are fewer than pitch x height, is refused here.
  const std::size_t texel = format == SurfaceFormat::rgba32f ? 16 : 8;
  if (s && (s->width < 0 || s->height < 0 || s->pitch < texel * static_cast<std::size_t>(s->width) ||
            s->bytes.size() / (s->pitch ? s->pitch : 1) < static_cast<std::size_t>(s->height)))
    throw PtxError("surface of " + std::to_string(s->width) + "x" + std::to_string(s->height) + " texels, pitch " +
                   std::to_string(s->pitch) + " and " + std::to_string(s->bytes.size()) + " bytes cannot hold " + std::to_string(texel) +
                   "-byte texels");
  impl_->surfaces.push_back(s);
  impl_->surface_formats.push_back(format);
  return kSurfaceHandle | (impl_->surfaces.size() - 1);
}

namespace detail {

Cta::Cta(Shared& s) : s_(s), warps_(s.nwarps) {
  for (Warp& w : warps_) {
    w.r.assign(static_cast<std::size_t>(s.f.nregs) * 32, 0);
    w.p.assign(s.f.npreds, 0);
    w.local.assign(static_cast<std::size_t>(s.f.local_bytes) * 32, 0);
  }
  shared_.assign(s.shared_bytes, 0);
}

// Warp wi of CTA `cta` before its first instruction: registers (zeroed where read before written),
// special registers, literals, the lanes beyond the block marked exited.
void Cta::start_warp(std::uint32_t wi, Dim3 cta, bool traced) {
  const std::uint32_t nthreads = s_.block.x * s_.block.y * s_.block.z;
  Warp& w = warps_[wi];
  // Only the registers some path reads before writing them (Function::zero_init, cfg.cpp) are
  // zeroed: what a previous CTA left in the others is never read. A traced CTA records
  // registers at any point and in every lane: it starts from a zeroed file.
  if (traced || !s_.f.has_zero_init) {
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

void Cta::run(Dim3 cta, RunStats& st, TraceResult* trace) {
  cta_ = cta;
  trace_ = trace;
  st_ = &st;
  // The set-up is work too (issue 38 F3): counted, and checked against the launch bound, before
  // the CTA clears its memory.
  pending_work_ += trace ? s_.setup_work_traced : s_.setup_work;
  flush_work();
  std::fill(shared_.begin(), shared_.end(), 0);
  for (std::uint32_t wi = 0; wi < warps_.size(); ++wi) start_warp(wi, cta, trace != nullptr);
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

void Cta::report_model_dependent(RunStats& st) const {
  for (std::size_t k = 0; k < approx_counts_.size(); ++k)
    if (approx_counts_[k]) st.model_dependent[s_.m.opcode_names[k]] += approx_counts_[k];
}

void Cta::flush_work() {
  if (!s_.launch_work || pending_work_ == 0) return;
  const std::uint64_t total = s_.launch_work->fetch_add(pending_work_) + pending_work_;
  pending_work_ = 0;
  const std::uint64_t max = s_.opt.max_launch_instructions;
  if (total > max)
    throw PtxError(s_.m.filename + ": the launch did more than " + std::to_string(max) +
                   " units of work in all its warps (instructions weighted by their cost: an mma.sync " + std::to_string(kMmaWork) +
                   ", sin.approx " + std::to_string(kWorkSinCosTanhApprox) + ", ...; each CTA's set-up one per " +
                   std::to_string(kSetupBytesPerWork) + " bytes it clears; docs/ptx.md \"Bound\"); raise the bound with " +
                   "--max-launch-instructions (RunOptions::max_launch_instructions)");
}

// The barrier opens: every warp that waits in bar.red gets the CTA's reduction (PTX ISA bar.red:
// all threads of the barrier use the same form, else an error).
void Cta::finish_barrier_reduction() {
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

void Cta::fail(const std::string& what, int lane) const {
  std::ostringstream o;
  o << s_.m.filename << ":" << (in_ ? in_->line : 0) << ": ";
  if (in_) o << s_.m.opcode_names[in_->name] << ": ";
  o << what << " (CTA (" << cta_.x << "," << cta_.y << "," << cta_.z << "), warp " << wi_;
  if (lane >= 0) o << ", lane " << lane;
  o << ")";
  throw PtxError(o.str());
}

void Cta::record_trace(Warp& w, std::uint32_t am) {
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

// The executor's half of the instruction table (instructions.def; the decoder's half is
// Parser::families, decode.cpp): each Op's operation. bra, exit, trap and bar are the scheduler's
// (run_warp); call is inlined by the decoder and never executes.
const std::array<Cta::ExecFn, kOpCount> Cta::kExec = {
#define RRSWIN_PTX_FAMILY(mnemonic, modifiers, decoder, ...)
#define RRSWIN_PTX_OP(op, execute, preds) &Cta::execute,
#include "ptx/instructions.def"
#undef RRSWIN_PTX_FAMILY
#undef RRSWIN_PTX_OP
};
// std::array would zero-fill a short list: count the rows.
static_assert([] {
  std::size_t n = 0;
#define RRSWIN_PTX_FAMILY(mnemonic, modifiers, decoder, ...)
#define RRSWIN_PTX_OP(op, execute, preds) ++n;
#include "ptx/instructions.def"
#undef RRSWIN_PTX_FAMILY
#undef RRSWIN_PTX_OP
  return n;
}() == kOpCount);

void Cta::exec_nop(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {}

void Cta::exec_scheduled(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  fail(std::string("internal error: Op ") + op_name(in.op) + " is the scheduler's (run_warp) and reached the operations");
}

void Cta::exec_unimplemented(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  fail(std::string("internal error: Op ") + op_name(in.op) + " has no operation (call is inlined by the decoder)");
}

// activemask: the lanes of the running frame (those not exited), whatever the guard.
void Cta::exec_activemask(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am) {
  std::uint64_t v[32];
  LANES v[l] = live_;
  put(R(w, d[0]), v, am);
}

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
    // The work bound (issue 18, issue 38 F4): an instruction counts its weight (Inst::work,
    // ir.hpp work_weight: its worst-case cost), per warp and per launch.
    const std::uint64_t cost = in.work;
    w.executed += cost;
    if (w.executed > max_exec)
      fail("one warp did more than " + std::to_string(max_exec) + " units of work (instructions weighted by their cost: an mma.sync " +
           std::to_string(kMmaWork) + ", sin.approx " + std::to_string(kWorkSinCosTanhApprox) +
           ", ...; docs/ptx.md \"Bound\"): an endless loop? Raise the bound with --max-instructions (RunOptions::max_warp_instructions)");
    if ((pending_work_ += cost) >= kWorkBatch) flush_work();
    std::uint32_t am = mask;
    if (in.guard != kNoIndex) am &= in.guard_neg ? ~w.p[in.guard] : w.p[in.guard];
    st.warp_instructions++;
    if (is_model_dependent(in)) ++approx_counts_[in.name];
    st.lane_instructions += static_cast<std::uint64_t>(std::popcount(am));
    const std::uint32_t* d = ops + in.opnd;
    const std::uint32_t* s = d + in.nd;
    const bool tr = in.trace && trace_;
    switch (in.op) {
      case Op::bra:
        if (tr) record_trace(w, am);
        branch(w, fr, in, mask, am);
        continue;
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
      case Op::bar:
        if (bar(w, fr, in, d, s, am, tr)) return;
        continue;
      default: break;
    }
    if (am != 0) {
      live_ = mask;
      (this->*kExec[static_cast<std::size_t>(in.op)])(w, in, d, s, am);
    }
    if (tr) record_trace(w, am);
    fr.pc++;
  }
}

// bra of the frame fr (lanes `mask`, taken by `am`): uniform, or divergent: fr then waits at the
// reconvergence point (the branch block's immediate post-dominator, cfg.cpp) and both paths run on
// top of it.
void Cta::branch(Warp& w, Frame& fr, const Inst& in, std::uint32_t mask, std::uint32_t am) {
  const std::uint32_t taken = am, not_taken = mask & ~am;
  if (taken == 0) {
    fr.pc++;
    return;
  }
  if (not_taken == 0) {
    fr.pc = in.target;
    return;
  }
  const std::uint32_t rpc = in.ipdom, next = fr.pc + 1, target = in.target;
  fr.pc = rpc;
  if (rpc == kNoIndex) fr.mask = 0;  // both paths end in exit
  // fr is a reference into w.stack: nothing of it is used after the pushes.
  if (next != rpc) w.stack.push_back({next, rpc, not_taken});
  if (target != rpc) w.stack.push_back({target, rpc, taken});
  if (w.stack.size() > 100000) fail("SIMT stack overflow");
}

// bar.sync / barrier.sync / bar.arrive / bar.red of warp w (docs/ptx.md "Execution"): returns true
// when the warp waits at the barrier, false when it goes on.
bool Cta::bar(Warp& w, Frame& fr, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am, bool tr) {
  if (am == 0) {
    fr.pc++;
    return false;
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
      return false;  // the last warp to arrive goes on
    }
    if (in.sub2 == 1) return false;  // bar.arrive does not wait
    w.state = Warp::partial;
    w.wait_bar = static_cast<std::uint32_t>(id);
    return true;
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
  return true;
}

}  // namespace detail

using detail::Cta;
using detail::Shared;

namespace {

// The launch's entry, checked against the parameter block, the grid and the block (every number
// is hostile: a product that wraps is too large); returns the number of CTAs.
std::uint64_t check_launch(const Module& m, const Function* f, std::string_view entry, Dim3 grid, Dim3 block,
                           std::span<const std::uint8_t> params) {
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
  return nctas;
}

// The module's own memory of one launch: its .global variables (zero-filled or from their
// initialisers), the .const bank, and the CTA's shared memory size (static + dynamic).
struct ModuleMemory {
  std::vector<std::vector<std::uint8_t>> module_globals;
  std::vector<std::uint8_t> const_bank;
  std::uint64_t shared_bytes = 0;
};
ModuleMemory module_memory(const Module& m, const RunOptions& options) {
  ModuleMemory mm;
  mm.const_bank.assign(m.const_bytes, 0);
  for (const Variable& v : m.variables) {
    if (v.space == Space::global) {
      mm.module_globals.emplace_back(v.size, 0);  // v.size <= kMaxGlobalBytes (decoder)
      std::copy(v.init.begin(), v.init.end(), mm.module_globals.back().begin());
    } else {
      mm.module_globals.emplace_back();
    }
    if (v.space == Space::constant) std::copy(v.init.begin(), v.init.end(), mm.const_bank.begin() + static_cast<std::ptrdiff_t>(v.address));
  }
  std::uint64_t& shared_bytes = mm.shared_bytes;
  shared_bytes = m.shared_bytes;
  if (m.extern_shared_base != kNoIndex)
    shared_bytes = std::max<std::uint64_t>(shared_bytes, m.extern_shared_base + options.dynamic_shared_bytes);
  else
    shared_bytes += options.dynamic_shared_bytes;
  if (shared_bytes > kMaxSharedBytes)
    throw PtxError("shared memory of " + std::to_string(shared_bytes) + " bytes (static + dynamic) exceeds the interpreter's limit of " +
                   std::to_string(kMaxSharedBytes));
  return mm;
}

// Trace point: the last decoded instruction of the statement (or of the line) of options.trace is
// marked in `traced`, a copy of the entry; sh gets the traced registers.
void mark_trace_point(const Module& m, const Function* f, const RunOptions& options, Function& traced, Shared& sh) {
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
}

// What a CTA of the launch holds and clears: its memory while it runs (a Cta, one per worker
// thread) and its set-up in work units, checked before anything is allocated (issue 38 F3, F5).
struct CtaFootprint {
  std::uint64_t bytes = 0;                              // registers, predicates, local memory of every warp; shared memory
  std::uint64_t setup_work = 0, setup_work_traced = 0;  // kSetupBytesPerWork units
};
CtaFootprint cta_footprint(const Function& f, std::uint64_t nwarps, std::uint64_t shared_bytes) {
  // Every factor is bounded (kMaxRegisters, kMaxLocalBytes, 32 warps, kMaxSharedBytes): no wrap.
  const std::uint64_t regs = static_cast<std::uint64_t>(f.nregs) * 32 * sizeof(std::uint64_t);
  const std::uint64_t preds = static_cast<std::uint64_t>(f.npreds) * sizeof(std::uint32_t);
  const std::uint64_t local = static_cast<std::uint64_t>(f.local_bytes) * 32;
  CtaFootprint c;
  c.bytes = nwarps * (regs + preds + local) + shared_bytes;
  // start_warp zeroes the special registers and the registers read before written (all of them
  // when traced or not analysed), the predicates and the local memory; run() the shared memory.
  const std::uint64_t zeroed = f.has_zero_init ? (kSpecialCount + static_cast<std::uint64_t>(f.zero_init.size())) * 32 * 8 : regs;
  const auto units = [](std::uint64_t bytes) { return (bytes + kSetupBytesPerWork - 1) / kSetupBytesPerWork; };
  c.setup_work = units(nwarps * (zeroed + preds + local) + shared_bytes);
  c.setup_work_traced = units(c.bytes);
  return c;
}

// The worker threads: RunOptions::threads (0: the hardware's), at most one per CTA, and at most
// as many as kMaxRunningCtaBytes holds CTAs (issue 38 F5): fewer for the default, an error for
// an explicit count.
int worker_threads(const Module& m, const Function& f, const RunOptions& options, std::uint64_t nctas, std::uint64_t cta_bytes) {
  const auto mib = [](std::uint64_t b) { return std::to_string((b + (1u << 20) - 1) >> 20) + " MiB"; };
  const std::uint64_t limit = options.max_running_cta_bytes;
  if (cta_bytes > limit)
    throw PtxError(m.filename + ": a CTA of entry " + f.name + " would hold " + std::to_string(cta_bytes) + " bytes (" + mib(cta_bytes) +
                   ": registers, predicates and local memory of every warp, shared memory), above the interpreter's limit of " +
                   std::to_string(limit) +
                   " bytes for the CTAs running at once (RunOptions::max_running_cta_bytes, docs/ptx.md \"Limits\")");
  const std::uint64_t fit = std::max<std::uint64_t>(1, limit / std::max<std::uint64_t>(cta_bytes, 1));
  std::uint64_t threads =
      options.threads > 0 ? static_cast<std::uint64_t>(options.threads) : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, nctas);
  if (threads > fit) {
    if (options.threads > 0)
      throw PtxError(m.filename + ": " + std::to_string(threads) + " threads would run " + std::to_string(threads) + " CTAs of entry " +
                     f.name + " at once, " + mib(cta_bytes) + " each (" + std::to_string(cta_bytes) +
                     " bytes: registers, predicates and local memory of every warp, shared memory), above the interpreter's limit of " +
                     std::to_string(limit) + " bytes (RunOptions::max_running_cta_bytes, docs/ptx.md \"Limits\"); " +
                     (fit == 1 ? std::string("--threads 1 fits") : "--threads " + std::to_string(fit) + " or fewer fit") +
                     " (the outputs do not depend on the thread count)");
    threads = fit;
  }
  return static_cast<int>(threads);
}

// CTAs on threads (an atomic counter): the stats of all CTAs together; the error of the
// lowest-numbered failing CTA, so that messages do not depend on the thread count.
RunStats run_ctas(Shared& shared_run, std::uint64_t nctas, int threads, const RunOptions& options) {
  const Dim3 grid = shared_run.grid;
  // CTAs on threads. Each CTA writes its own outputs; the first error by CTA index is reported.
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
  // The workers take CTAs from one counter, so any number of them runs every CTA: a thread that
  // cannot start (a process or memory limit, issue 38 F7) leaves its CTAs to the others, and the
  // calling thread is worker 0. The bytes do not depend on the count.
  int started = 1;
  {
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(threads > 1 ? threads - 1 : 0));
    try {
      for (int t = 1; t < threads; ++t) {
        pool.emplace_back(worker, t);
        ++started;
      }
    } catch (const std::system_error&) {}
    worker(0);
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
  total.threads = started;
  return total;
}

}  // namespace

RunStats run(const Module& m, std::string_view entry, Dim3 grid, Dim3 block, std::span<const std::uint8_t> params, Device& device,
             const RunOptions& options) {
  const Function* f = m.find(entry);
  const std::uint64_t nctas = check_launch(m, f, entry, grid, block, params);
  const std::uint64_t nthreads = static_cast<std::uint64_t>(block.x) * block.y * block.z;
  const Profile& profile = options.profile ? *options.profile : profile_ada();
  ModuleMemory mm = module_memory(m, options);
  Shared sh{m,
            *f,
            device.impl(),
            mm.module_globals,
            mm.const_bank,
            params,
            profile,
            options,
            grid,
            block,
            static_cast<std::uint32_t>(mm.shared_bytes),
            static_cast<std::uint32_t>((nthreads + 31) / 32),
            {},
            {},
            {},
            nullptr};

  Function traced;
  const Function* fn = f;
  if (options.trace && options.trace_out) {
    mark_trace_point(m, f, options, traced, sh);
    fn = &traced;
  }
  std::atomic<std::uint64_t> launch_work{0};
  Shared shared_run{m,    *fn,   device.impl(),   mm.module_globals, mm.const_bank, params,          profile,          options,
                    grid, block, sh.shared_bytes, sh.nwarps,         sh.trace_regs, sh.trace_widths, sh.trace_is_pred, &launch_work};
  const CtaFootprint foot = cta_footprint(*fn, sh.nwarps, sh.shared_bytes);
  shared_run.setup_work = foot.setup_work;
  shared_run.setup_work_traced = foot.setup_work_traced;
  const int threads = worker_threads(m, *fn, options, nctas, foot.bytes);

  RunStats total = run_ctas(shared_run, nctas, threads, options);
  total.work = launch_work.load();
  if (options.trace && options.trace_out) {
    const Dim3 c = options.trace->cta;
    if (c.x >= grid.x || c.y >= grid.y || c.z >= grid.z)
      throw PtxError("trace CTA (" + std::to_string(c.x) + "," + std::to_string(c.y) + "," + std::to_string(c.z) +
                     ") is outside the grid (" + std::to_string(grid.x) + "," + std::to_string(grid.y) + "," + std::to_string(grid.z) +
                     ")");
  }
  return total;
}

}  // namespace rrswin::ptx