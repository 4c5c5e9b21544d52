// Internal to src/ptx: the decoded form. A function's code is a flat array of Inst; every operand
// is an index into the warp's register file (registers, the special registers and the decoded
// immediates all live there, so an instruction reads its sources the same way whatever they are)
// or into the predicate file (one 32-bit lane mask per predicate register).
#pragma once
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "ptx/ptx.hpp"

namespace rrswin::ptx {

enum class Type : std::uint8_t {
  none,
  b8,
  b16,
  b32,
  b64,
  u8,
  u16,
  u32,
  u64,
  s8,
  s16,
  s32,
  s64,
  f16,
  f16x2,
  f32,
  f64,
  pred,
  e4m3x2,
  e5m2x2,
  bf16,
  bf16x2,
};
int type_bits(Type t);
bool type_is_signed(Type t);
bool type_is_float(Type t);
const char* type_name(Type t);

// The decoded operations: one per RRSWIN_PTX_OP row of the instruction table (instructions.def),
// in its order.
enum class Op : std::uint8_t {
#define RRSWIN_PTX_FAMILY(mnemonic, modifiers, decoder, ...)
#define RRSWIN_PTX_OP(op, execute, preds) op,
#include "ptx/instructions.def"
#undef RRSWIN_PTX_FAMILY
#undef RRSWIN_PTX_OP
};

inline constexpr std::size_t kOpCount = 0
#define RRSWIN_PTX_FAMILY(mnemonic, modifiers, decoder, ...)
#define RRSWIN_PTX_OP(op, execute, preds) +1
#include "ptx/instructions.def"
#undef RRSWIN_PTX_FAMILY
#undef RRSWIN_PTX_OP
    ;
static_assert(kOpCount <= 256, "Op is a byte");

// An Op's name, as its row spells it (internal messages).
const char* op_name(Op op);

// Rounding of floating-point instructions and cvt.
enum class Rnd : std::uint8_t { none, rn, rz, rm, rp, rni, rzi, rmi, rpi };
enum class Space : std::uint8_t { generic, global, shared, local, param, constant };
enum class Cmp : std::uint8_t { eq, ne, lt, le, gt, ge, lo, ls, hi, hs, equ, neu, ltu, leu, gtu, geu, num, nan };
enum class BoolOp : std::uint8_t { none, and_, or_, xor_ };
enum class ShflMode : std::uint8_t { up, down, bfly, idx };
enum class VoteMode : std::uint8_t { all, any, uni, ballot };
enum class AtomOp : std::uint8_t { add, min, max, inc, dec, and_, or_, xor_, exch, cas };

inline constexpr std::uint8_t kFtz = 1, kSat = 2, kApprox = 4, kHi = 8, kTestFinite = 16, kTestInf = 32, kTestNan = 64, kTestNormal = 128;
// Inst::sub of the carry family (mad_cc; addc/subc use bit 0 for .cc).
inline constexpr std::uint8_t kCarryIn = 1, kCarryOut = 2;
// Inst::sub2 of min/max: the .NaN modifier (a NaN operand gives the canonical NaN).
inline constexpr std::uint8_t kMinMaxNaN = 1;
// Inst::sub2 of f16/bf16 fma/min/max and of cvt to f16/f16x2/bf16/bf16x2: .relu.
inline constexpr std::uint8_t kRelu = 2;
// Inst::sub2 of min/max: .xorsign.abs.
inline constexpr std::uint8_t kXorsignAbs = 4;
// The scalar video instructions (Op::video; PTX ISA "Scalar Video Instructions"): Inst::sub is the
// operation, Inst::sub2 the secondary operation (bits 0-1: none, add, min, max), the destination
// selector (bits 2-4: none, b0..b3, h0, h1) and the shift mode (bit 5: .wrap); Inst::imm the source
// selectors (bits 0-2: a's, 3-5: b's, same codes), b's signedness (bit 6) and vset's comparison
// (bits 8-10, Cmp eq..ge). Inst::t is the destination type, Inst::t2 a's type.
enum class VideoOp : std::uint8_t { add, sub, absdiff, min, max, shl, shr, set };
inline constexpr std::uint32_t kPredNeg = 0x80000000u;  // on a predicate operand: use !p
inline constexpr std::uint32_t kNoIndex = 0xFFFFFFFFu;

struct Inst {
  Op op = Op::nop;
  Type t = Type::none;   // the instruction's type (destination type of cvt)
  Type t2 = Type::none;  // cvt's source type; mul.wide's source type
  Rnd rnd = Rnd::none;
  std::uint8_t flags = 0;
  std::uint8_t sub = 0;         // Cmp, Space, ShflMode, VoteMode, AtomOp, cvta direction, ...
  std::uint8_t sub2 = 0;        // BoolOp (setp), space of cvta, ...
  std::uint8_t nd = 0, ns = 0;  // destination and source operand counts
  std::uint8_t dbits = 64;      // ld/cvt: the destination register's declared width (PTX ISA 9.4.1)
  bool guard_neg = false;
  bool trace = false;               // the last instruction of a traced statement
  std::uint32_t guard = kNoIndex;   // predicate register guarding it (@%p / @!%p)
  std::uint32_t opnd = 0;           // first operand in Function::operands (destinations first)
  std::int64_t imm = 0;             // address offset; lop3 table; bar id
  std::uint32_t target = kNoIndex;  // branch target (instruction index); called function
  std::uint32_t ipdom = kNoIndex;   // reconvergence point of a branch (kNoIndex = exit)
  std::uint32_t line = 0;
  std::uint32_t stmt = 0;  // seed statement number (0 outside the entry's statements)
  std::uint16_t name = 0;  // index into Module::opcode_names (stats, messages)
  std::uint16_t work = 1;  // its weight in the work bound (work_weight, set when the module is decoded)
};
static_assert(sizeof(Inst) <= 56, "Inst fits in 56 bytes (the work weight lives in the padding after name)");

// Whether an instruction's result is model-dependent: every .approx form (NVIDIA publishes bounds,
// not bits; numerics/approx models each as the correctly rounded result). One criterion for the
// run's RunStats::model_dependent and `rrswin ptx stats` (EntryStats::model_dependent).
inline bool is_model_dependent(const Inst& in) { return (in.flags & kApprox) != 0; }

// The work bound (RunOptions::max_warp_instructions, max_launch_instructions; docs/ptx.md
// "Bound"): an executed instruction counts its weight in work units. A unit is at most about
// 0.5 µs of one core for every instruction, each weighed by its worst case over inputs (the
// interpreter computes all 32 lanes of a warp instruction; numerics/approx's binary128 path in
// every lane): measured per warp instruction on a 2-core Xeon, ex2.approx 123 µs, tanh.approx 53,
// sin/cos.approx 43, lg2.approx 30, rsqrt.approx.f32 (no .ftz) 25, rsqrt.approx.f64 9.1, an
// integer mma 4.5, an FP8 mma 2.2, match 1.1, every other instruction at most ~0.55 (an add.u32
// 0.025). The weights round those up to powers of two.
inline constexpr std::uint16_t kWorkEx2Approx = 256, kWorkSinCosTanhApprox = 128, kWorkLg2Approx = 64, kWorkRsqrtApproxF32 = 64,
                               kWorkRsqrtApproxF64 = 32, kWorkMatch = 4;
inline std::uint16_t work_weight(const Inst& in) {
  switch (in.op) {
    case Op::mma:
    case Op::mma_int: return static_cast<std::uint16_t>(kMmaWork);
    case Op::fex2: return kWorkEx2Approx;
    case Op::fsin:
    case Op::fcos:
    case Op::ftanh: return kWorkSinCosTanhApprox;
    case Op::flg2: return kWorkLg2Approx;
    // rsqrt.approx.ftz.f32 is exact integer arithmetic (~0.5 µs); the others go through binary128.
    case Op::frsqrt: return in.t == Type::f64 ? kWorkRsqrtApproxF64 : (in.flags & kFtz) ? 1 : kWorkRsqrtApproxF32;
    case Op::match: return kWorkMatch;
    default: return 1;
  }
}

// Which operands of a decoded instruction (destinations first, then sources; k counts both) are
// predicates, i.e. indices into the predicate file: the third column of the instruction table's
// OP rows (instructions.def) names one of these.
namespace pred_operands {
inline bool no_preds(const Inst&, unsigned) { return false; }
inline bool all_preds(const Inst&, unsigned) { return true; }  // pmov, pnot, pand, por, pxor
// setp d{|q}, a, b{, c}: the destinations and the combining predicate c.
inline bool setp_preds(const Inst& in, unsigned k) { return k < in.nd || k == in.nd + 2u; }
// selp d, a, b, c / set d, a, b, c: the third source.
inline bool third_source_pred(const Inst& in, unsigned k) { return k == in.nd + 2u; }
inline bool testp_preds(const Inst&, unsigned k) { return k == 0; }  // testp p, a
// shfl / match d|p, ...: the second destination, when there is one.
inline bool second_destination_pred(const Inst& in, unsigned k) { return k == 1 && in.nd > 1; }
// vote d, {!}a, mask: the source predicate, and the destination of vote.{all,any,uni}.pred.
inline bool vote_preds(const Inst& in, unsigned k) { return k == in.nd || (k == 0 && in.t == Type::pred); }
// cp.async [d], [s], cp-size, ignore-src (Inst::sub2 = 1): its third source.
inline bool cp_async_preds(const Inst& in, unsigned k) { return in.sub2 == 1 && k == in.nd + 2u; }
// bar.red (Inst::sub != 0): its predicate c (the last source) and and/or's destination p.
inline bool bar_preds(const Inst& in, unsigned k) { return in.sub != 0 && (k + 1 == in.nd + in.ns || (k == 0 && in.sub >= 2)); }
}  // namespace pred_operands

inline bool is_pred_operand(const Inst& in, unsigned k) {
  using Rule = bool (*)(const Inst&, unsigned);
  static constexpr Rule kRules[] = {
#define RRSWIN_PTX_FAMILY(mnemonic, modifiers, decoder, ...)
#define RRSWIN_PTX_OP(op, execute, preds) &pred_operands::preds,
#include "ptx/instructions.def"
#undef RRSWIN_PTX_FAMILY
#undef RRSWIN_PTX_OP
  };
  static_assert(std::size(kRules) == kOpCount, "one predicate rule per Op (instructions.def)");
  return kRules[static_cast<std::size_t>(in.op)](in, k);
}

struct RegInfo {
  std::string name;
  Type type = Type::b32;
  std::uint32_t index = 0;  // into the register or the predicate file
};

// Fixed register-file slots: the zero register and the special registers, set per warp.
enum Special : std::uint32_t {
  kZero = 0,
  kTidX,
  kTidY,
  kTidZ,
  kNtidX,
  kNtidY,
  kNtidZ,
  kCtaidX,
  kCtaidY,
  kCtaidZ,
  kNctaidX,
  kNctaidY,
  kNctaidZ,
  kLaneid,
  kWarpid,
  kNwarpid,
  kLanemaskEq,
  kLanemaskLt,
  kLanemaskLe,
  kLanemaskGt,
  kLanemaskGe,
  kSmid,
  kNsmid,
  kClock,
  kSpecialCount,
};

struct Function {
  std::string name;
  bool is_entry = false;
  std::vector<Inst> code;
  std::vector<std::uint32_t> operands;
  std::uint32_t nregs = kSpecialCount, npreds = 0;
  std::uint32_t pred_true = kNoIndex, pred_false = kNoIndex;       // literal predicates (all lanes 1 / 0)
  std::vector<std::pair<std::uint32_t, std::uint64_t>> constants;  // register index, value
  std::vector<RegInfo> regs;                                       // every declared register, in order
  std::map<std::string, std::uint32_t> reg_by_name;                // outermost scope only (trace --reg)
  std::vector<ParamInfo> params;
  std::uint32_t param_bytes = 0;
  std::vector<ParamInfo> ret_params;         // a .func's return values (func_retval0, ...)
  std::vector<Type> param_types, ret_types;  // the declared type of each (.b8 for an aggregate)
  // The register of each .reg parameter / return value (kNoIndex for a .param one), an index into
  // the register file, or the predicate file for a .pred one.
  std::vector<std::uint32_t> param_regs, ret_regs;
  // The body's final (implicit) exit: the last instruction, unless deferred calls appended their
  // callees' copies after it (Parser::resolve_calls).
  std::uint32_t body_end = kNoIndex;
  std::uint32_t ret_bytes = 0;
  bool has_body = false;
  bool has_local_vars = false;  // declares .local variables (calls into it are not inlined)
  std::uint32_t local_bytes = 0;
  std::uint64_t shared_used = 0;  // end of the last static .shared variable the function names
  std::uint32_t call_depth = 0;   // calls nested in its body after inlining (0: it calls nothing; kMaxCallDepth)
  // The register slots a CTA must zero before its warps run (cfg.hpp: compute_zero_init): the
  // others are written on every path before they are read. Unset: zero them all.
  std::vector<std::uint32_t> zero_init;
  bool has_zero_init = false;
  std::vector<std::uint32_t> statement_lines;      // seed numbering: s -> line at [s-1]
  std::vector<std::uint32_t> statement_last_inst;  // s -> its last decoded instruction
  std::uint32_t first_line = 0, last_line = 0;
};

struct Variable {
  std::string name;
  Space space = Space::global;
  std::uint32_t align = 1;
  std::uint64_t size = 0;
  std::vector<std::uint8_t> init;  // size bytes (zeros when not initialised)
  std::uint64_t address = 0;       // state-space offset (shared/const) or allocation index (global)
  bool is_extern = false;
};

struct Module {
  std::string filename;
  std::vector<Function> functions;
  std::vector<Variable> variables;
  std::vector<std::string> opcode_names;
  std::uint32_t shared_bytes = 0;  // every .shared variable of the module, laid out in order
  std::uint32_t shared_align = 16;
  bool has_extern_shared = false;
  std::uint32_t extern_shared_base = kNoIndex;  // shared offset of the extern array, once used
  std::uint32_t const_bytes = 0;
  const Function* find(std::string_view name) const {
    for (const auto& f : functions)
      if (f.name == name) return &f;
    return nullptr;
  }
};

// The generic address space: each state space has a window (docs/ptx.md "Addresses").
inline constexpr std::uint64_t kSharedWindow = 0xE0ull << 40;
inline constexpr std::uint64_t kLocalWindow = 0xE1ull << 40;
inline constexpr std::uint64_t kParamWindow = 0xE2ull << 40;
inline constexpr std::uint64_t kConstWindow = 0xE3ull << 40;
// A .func's return parameters, in the decoder only (calls are inlined, inline.cpp).
inline constexpr std::uint64_t kRetWindow = kParamWindow + 0x10000;
inline constexpr std::uint64_t kWindowMask = 0xFFull << 40;
// The generic address of a state-space address (cvta's direction "to generic"): shared, local and
// const offsets move into their windows; param-space and global addresses are generic already.
inline std::uint64_t generic_address(Space sp, std::uint64_t a) {
  switch (sp) {
    case Space::shared: return kSharedWindow + a;
    case Space::local: return kLocalWindow + a;
    case Space::constant: return kConstWindow + a;
    default: return a;
  }
}
inline constexpr int kGlobalShift = 36;                     // global allocation i spans [(i+1) << 36, ...)
inline constexpr std::uint64_t kModuleGlobalFirst = 0x800;  // allocation index of the module's first .global
inline constexpr std::uint64_t kMaxAllocations = 0xDFF;     // below the state-space windows
// The interpreter's limits (docs/ptx.md "Limits"), checked before anything is allocated: a PTX
// declaration is hostile input (issue 18).
inline constexpr std::uint64_t kMaxGlobalBytes = 1ull << 30;  // a module's .global variables together
inline constexpr std::uint64_t kMaxSharedBytes = 1ull << 24;  // a CTA's shared memory (static + dynamic)
inline constexpr std::uint64_t kMaxConstBytes = 1ull << 24;   // the module's .const bank
inline constexpr std::uint64_t kMaxLocalBytes = 1ull << 20;   // a thread's local memory
inline constexpr std::uint32_t kMaxRegisters = 1u << 16;      // a function's register slots (and predicates)
inline constexpr std::uint64_t kMaxCtas = 1ull << 24;         // CTAs of one launch
// Call inlining (inline.cpp): nested calls multiply a callee's size by its call sites, so a few
// lines of PTX could ask for gigabytes. Checked before each copy is allocated.
inline constexpr std::uint64_t kMaxFunctionInstructions = 1ull << 20;  // decoded instructions of a function, callees inlined
inline constexpr std::uint64_t kMaxFunctionOperands = 1ull << 23;      // their operand slots
inline constexpr std::uint32_t kMaxCallDepth = 64;                     // calls nested in calls
inline constexpr std::uint64_t kTextureHandle = 0xC0ull << 56, kSurfaceHandle = 0xC1ull << 56;

}  // namespace rrswin::ptx
