// The fast engine's GEMM core: chained k-steps of mma.m16n8k32 (e4m3 x e4m3 + f16 -> f16) over a
// whole matrix, bit-identical to numerics/mma.hpp's mma_dot for every profile.
//
// Operands are decoded once into binary32 values (every e4m3 value is exact in f32) together with
// the `ada` exponent e(x) = max(floor(log2|x|), -6) of numerics.md (kZeroExponent for a zero),
// and the k order inside each 32-wide k-step is the ISA's (layout::isa_k_from_pair_k), so that
// k 0..15 of a step is the first half the `ada` model accumulates. The logical (pair-order) codes
// stay alongside for the exact fallback (operands with NaN codes go through mma_dot itself).
#pragma once
#include <cstdint>
#include <vector>

#include "engine/kernel_args.hpp"
#include "numerics/profile.hpp"
#include "numerics/types.hpp"

namespace rrswin::engine {

// e(0) stands below every real exponent (>= -12 for products, -14 for f16) so that zero terms
// never raise a block maximum.
inline constexpr float kZeroExponent = -64.0f;

// Per e4m3 code: the value as f32 and f64 (NaN for 0x7F/0xFF), e(x), NaN flag.
struct CodeTable {
  float value[256];
  double value64[256];
  float ada_e[256];
  bool nan[256];
};
const CodeTable& code_table();

// Which decoded forms an operand gets (bit set): the `zluda` kernels read only the binary64
// values, the `ada` kernels only the binary32 values and exponents (kernel_args.hpp), so the
// operands decoded per block decode just what the profile's kernels read (the AVX-512 `ada`
// kernel takes the exponents as int16, see kernels_avx512.cpp). Prepared weights are
// profile-independent and decode everything.
// kDecodeHopperExponent16: the `hopper` exponents (kernel_args.hpp: DecodeRun) for the AVX2 and AVX-512
// `hopper` kernels. kDecodeInt16: the `zluda` integer form of the AVX512-VNNI and AVX2 integer kernels
// (below; kernels_avx512vnni.cpp, kernels_zluda_int16_avx2_impl.hpp).
// kDecodeAdaInt16: the `ada` integer words of the avx512vnni `ada` kernel (AOperand::aw16,
// BOperand::bw16 / beb16; with kDecodeExponent16 for A's exponents).
enum Decode : unsigned {
  kDecodeF32 = 1,
  kDecodeF64 = 2,
  kDecodeExponent = 4,
  kDecodeExponent16 = 8,
  kDecodeHopperExponent16 = 16,
  kDecodeInt16 = 32,
  kDecodeAdaInt16 = 64,
  kDecodeAll = 127
};
unsigned decode_for(const Profile& p, SimdPath path);
// Whether the SIMD kernels implement the profile's mma (accumulation and corners); gemm() runs the
// others through numerics' mma_dot element by element (exact, slow).
bool native(const Profile& p);

// The kernels of a path (the path must be supported by the CPU: see simd.hpp).
KernelSet kernels(SimdPath path);

// One k-step's 32 codes (row[0..32), pair-k order) in the ISA k order: perm[isa_k(kp)] = row[kp].
void isa_order_kstep(const e4m3_t* row, e4m3_t* perm);

// An A operand: rows x K, K a multiple of 32. `path` picks the decoder (same result on every path).
struct AOperand {
  int rows = 0, K = 0;
  std::vector<float> v, e;         // [r][K], ISA k order inside each k-step
  std::vector<double> v64;         // v as binary64, LOGICAL k order (zluda: any order is exact)
  std::vector<std::int16_t> e16;   // e as int16
  std::vector<std::int16_t> he16;  // the `hopper` exponents, int16, ISA k order
  // The `zluda` integer form (kDecodeInt16; kernels_avx512vnni.cpp has the proof that uses it).
  // An e4m3 value is M 2^(sh - 9) with M = 8 + (m & 7), sh = (m >> 3) - 1 for a normal code
  // (m = code & 0x7F, exponent field >= 1) and M = m, sh = 0 for a subnormal or zero: per row and
  // k-step, with beta = the smallest sh of its nonzero values, i16 = +-M << (sh - beta) (logical
  // k order; the value is i16 2^(beta - 9)), i16_base = beta, i16_l1 = the sum of |i16| over the
  // k-step; where the k-step's nonzero sh span more than 12 values (M << 12 would not fit int16)
  // i16_l1 = -1 and the kernel uses the binary64 values there.
  std::vector<std::int16_t> i16;
  std::vector<std::int8_t> i16_base;  // [r][K / 32]
  std::vector<std::int32_t> i16_l1;   // [r][K / 32]
  // The `ada` integer words (kDecodeAdaInt16; kernels_ada_int16_impl.hpp): x = +-m 2^(e(x) - 3)
  // (m <= 15, the mantissa with its implicit bit) as m << 3 | 0x1000 | (sign ? 0xE000 : 0), [r][K] in
  // the ISA k order like e16.
  std::vector<std::int16_t> aw16;
  std::vector<e4m3_t> codes;  // [r][K], logical (pair) k order
  bool nan = false;           // some code is 0x7F/0xFF
  // codes[r * ld + k], logical order.
  void assign(const e4m3_t* src, int rows, int K, int ld, unsigned decode = kDecodeAll, SimdPath path = SimdPath::scalar);
};

// A B operand: K x N, stored [k][N] for the kernels.
struct BOperand {
  int K = 0, N = 0;
  std::vector<float> v, e;         // [k][N], ISA k order inside each k-step
  std::vector<double> v64;         // v as binary64, [k][N] in LOGICAL k order (zluda: any order is exact)
  std::vector<std::int16_t> e16;   // e as int16
  std::vector<std::int16_t> he16;  // the `hopper` exponents, int16, [k][N], ISA k order
  // The `zluda` integer form as for AOperand, with one base per k-step over all N columns: i16 as
  // k pairs [k/2][n][2] (logical k order; vpdpwssd's operand), i16_max = max |i16| of the k-step
  // (-1: no int16 form).
  std::vector<std::int16_t> i16;
  std::vector<std::int8_t> i16_base;  // [K / 32]
  std::vector<std::int32_t> i16_max;  // [K / 32]
  // The `ada` integer words (kDecodeAdaInt16): m << 4 | (sign ? 0xE000 : 0), and e(x) (as e16),
  // both as ISA-order k pairs [k/2][n][2] (vpdpwssd's operand).
  std::vector<std::int16_t> bw16, beb16;
  std::vector<e4m3_t> codes;  // [n][K], logical k order (the BTile layout)
  bool nan = false;
  void assign_nk(const e4m3_t* src, int N, int K, int ld, unsigned decode = kDecodeAll,
                 SimdPath path = SimdPath::scalar);  // src[n * ld + k]
  void assign_kn(const e4m3_t* src, int K, int N, int ld, unsigned decode = kDecodeAll,
                 SimdPath path = SimdPath::scalar);  // src[k * ld + n]
};

// D = ksteps chained k-steps: step s multiplies A's columns a_k0 + 32s.. with B's rows
// b_k0 + 32s.., on A's first `rows` rows; d holds C on entry (row stride ldd).
void gemm(const Profile& p, SimdPath path, const AOperand& a, int a_k0, const BOperand& b, int b_k0, int ksteps, int rows, f16_t* d,
          int ldd);

// gemm()'s two steps for operands without NaN codes and a native profile: the arguments it gives
// the k-step kernel, and which kernel of a set it runs with them (the set of `path` in gemm();
// another build of the same translation unit in bench/kernel_ab, which times two against each
// other). kstep_args throws std::logic_error where the operands lack a form the kernel reads.
KStepArgs kstep_args(const Profile& p, SimdPath path, const AOperand& a, int a_k0, const BOperand& b, int b_k0, int ksteps, int rows,
                     f16_t* d, int ldd);
KStepKernel kstep_kernel(const Profile& p, SimdPath path, const KernelSet& kern, const KStepArgs& g);

}  // namespace rrswin::engine
