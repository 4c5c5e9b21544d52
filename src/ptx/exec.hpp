// Internal to src/ptx: the executor's state and its parts. exec.cpp schedules (CTAs on threads, a
// CTA's warps one at a time until bar.sync or exit, the SIMT stack, barriers) and routes each
// decoded instruction through the table kExec (one row per Op, from instructions.def) to its operation, one function per
// family: exec_int.cpp (integer, bit, logic, compare, select), exec_float.cpp (f16, bf16, f32, f64),
// exec_cvt.cpp (conversions), exec_mem.cpp (memory, textures, atomics), exec_warp.cpp (mma and the
// warp collectives). Every value is computed for the 32 lanes of a warp at once; the arithmetic is
// src/numerics' under the run's Profile. docs/ptx.md "Execution".
#pragma once
#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "numerics/f16.hpp"
#include "numerics/f32.hpp"
#include "numerics/minifloat.hpp"
#include "numerics/profile.hpp"
#include "ptx/ir.hpp"

namespace rrswin::ptx {

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
  std::vector<Device::SurfaceFormat> surface_formats;  // one per surface
};

namespace detail {

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
inline double float_value(std::uint64_t x, Type t, bool ftz_on) {
  // .ftz on f16 (cvt from f16): a subnormal input is a zero of its sign.
  if (t == Type::f16) return f16_to_f64(ftz_on ? f16_flush(static_cast<f16_t>(x)) : static_cast<f16_t>(x));
  if (t == Type::bf16) return bf16_to_f32(static_cast<std::uint16_t>(x));
  if (t == Type::f32) return ftz(f32(x), ftz_on);
  return f64(x);
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
  // A CTA's set-up in work units (kSetupBytesPerWork): untraced, and traced (every register zeroed).
  std::uint64_t setup_work = 0, setup_work_traced = 0;
};

class Cta {
 public:
  explicit Cta(Shared& s);
  // Runs CTA `cta` of the launch (its warps until all exited); trace: record the trace point.
  void run(Dim3 cta, RunStats& st, TraceResult* trace);
  // Adds the model-dependent instructions this Cta executed (over all its CTAs) to st.
  void report_model_dependent(RunStats& st) const;

  // One operation on the active lanes `am` of warp w: d the destination and s the source operands.
  using ExecFn = void (Cta::*)(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);

 private:
  Shared& s_;
  std::vector<Warp> warps_;
  std::vector<std::uint8_t> shared_;
  Dim3 cta_;
  TraceResult* trace_ = nullptr;
  RunStats* st_ = nullptr;
  std::uint64_t pending_work_ = 0;  // not yet added to Shared::launch_work
  std::vector<std::uint64_t> approx_counts_ = std::vector<std::uint64_t>(s_.m.opcode_names.size(), 0);  // by opcode name
  static constexpr std::uint64_t kWorkBatch = 1u << 16;
  std::uint32_t wi_ = 0;
  const Inst* in_ = nullptr;
  std::uint32_t live_ = 0;  // the running frame's lanes (activemask)
  // bar.red of the barrier being waited at: the number of threads whose predicate holds, whether
  // all / any hold, and which kind the warps asked for (0: none yet).
  std::uint32_t bar_count_[16] = {}, bar_target_[16] = {};  // barriers with a thread count
  std::uint32_t red_popc_ = 0;
  bool red_all_ = true, red_any_ = false;
  std::uint8_t red_kind_ = 0;

  // ----- scheduling (exec.cpp)
  void start_warp(std::uint32_t wi, Dim3 cta, bool traced);
  void run_warp(std::uint32_t wi, RunStats& st);
  void branch(Warp& w, Frame& fr, const Inst& in, std::uint32_t mask, std::uint32_t am);
  bool bar(Warp& w, Frame& fr, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am, bool tr);
  void flush_work();
  void finish_barrier_reduction();
  [[noreturn]] void fail(const std::string& what, int lane = -1) const;
  void record_trace(Warp& w, std::uint32_t am);
  // The executor's half of the instruction table: each Op's operation, the second column of the
  // OP rows of instructions.def (exec.cpp).
  static const std::array<ExecFn, kOpCount> kExec;

  // ----- memory (exec_mem.cpp)
  std::uint8_t* resolve(Space sp, std::uint64_t addr, std::uint32_t size, bool write, int lane);
  // Inlined into resolve (one call per lane of every access: a call of its own costs ~1% of a run).
  [[gnu::always_inline]] inline std::uint8_t* resolve_global(std::uint64_t addr, std::uint32_t size, bool write, int lane);
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

  // ----- the operations, one function per family (kExec routes each Op to one)
  void exec_nop(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_scheduled(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_unimplemented(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_activemask(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_move(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_add_mul(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_carry(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_int_misc(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_logic(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_bitfield(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_mask(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_prmt(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_dot(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_video(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_compare(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_select(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_float(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_testp(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_f16(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_bf16(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_f32(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_f64(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_cvt(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_cvt_minifloat(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_ld(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_st(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_tex(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_sust(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_cp_async(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_atom(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_mma_int(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_mma(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_movmatrix(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_ldmatrix(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_collective(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_match(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_redux(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_vote(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
  void exec_shfl(Warp& w, const Inst& in, const std::uint32_t* d, const std::uint32_t* s, std::uint32_t am);
};

#define LANES for (int l = 0; l < 32; ++l)

}  // namespace detail
}  // namespace rrswin::ptx
