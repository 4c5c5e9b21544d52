// What the per-ISA kernel translation units share with the rest of the engine: plain structs and
// function pointers only (no inline library code), so that code compiled with -mavx512f can never
// be picked by the linker for a caller on a CPU without it.
#pragma once
#include <cstddef>
#include <cstdint>

#include "model/decoder_final.hpp"  // golden::DecoderPixelsFn
#include "model/layer.hpp"          // golden::E61PixelsFn
#include "numerics/types.hpp"

namespace rrswin {
struct LayerReadings;  // model/layer_golden.hpp
}

namespace rrswin::engine {

// The SIMD paths of the kernels, lowest first (selected at run time, see simd.hpp).
// avx512vnni: the avx512 path with the `zluda` kernel on AVX512-VNNI integer dot products
// (kernels_avx512vnni.cpp); RRSWIN_SIMD=avx512 turns it off.
enum class SimdPath { scalar, avx2, avx512, avx512vnni };

// `ksteps` chained k-steps on `rows` rows: d[r * ldd + n] (C on entry, D on return) for n < N (a
// multiple of 16). Step s's D (rounded to f16, as every mma.sync returns it) is step s+1's C; the
// kernels keep it in registers between the steps of one chain.
//   a, ea: row r's 32 values / ada exponents of step s at a + r * lda + 32 s (ISA k order)
//   b, eb: step s's [32][N] block at b + 32 N s (ISA k order)
// The `zluda` kernels read a64 / b64 only, the `ada` kernels a, b and ea, eb (scalar, avx2) or
// ea16, eb16 (avx512) only (gemm.hpp: Decode).
struct KStepArgs {
  const float* a;
  const double* a64;  // the same values as binary64 (the `zluda` kernels' operands)
  const float* ea;
  int lda;
  const float* b;
  const double* b64;
  const float* eb;
  int N;
  f16_t* d;
  int ldd;
  int rows;
  int ksteps;
  const std::int16_t* ea16;  // ea / eb as int16 (the AVX-512 `ada` kernel's form)
  const std::int16_t* eb16;
  // The `hopper` exponents e(x) = floor(log2|x|) of the operand as f16 (-64 for a zero), int16,
  // same layout as ea16 / eb16 (the AVX2 and AVX-512 `hopper` kernels' form; gemm.hpp: Decode).
  const std::int16_t* hea16;
  const std::int16_t* heb16;
  // The `ada` integer form (gemm.hpp: kDecodeAdaInt16; the avx512vnni `ada` kernel's, proof in
  // kernels_ada_int16_impl.hpp): A's words at aw16 + r * lda + 32 s (ISA k order, like ea16); B's
  // words and exponents of step s at bw16 / beb16 + 32 N s as ISA k pairs [k/2][n][2].
  const std::int16_t* aw16;
  const std::int16_t* bw16;
  const std::int16_t* beb16;
  // The `zluda` integer form (gemm.hpp: kDecodeInt16; the AVX512-VNNI and AVX2 `zluda` kernels'): A's int16
  // values at a16 + r * lda + 32 s (logical k order), their base shift and l1 per row and k-step at
  // a16_base / a16_l1 + r * (lda / 32) + s; B's int16 k pairs of step s at b16 + 32 N s ([k/2][n][2]),
  // its base and max |b| per k-step at b16_base / b16_max + s.
  const std::int16_t* a16;
  const std::int8_t* a16_base;
  const std::int32_t* a16_l1;
  const std::int16_t* b16;
  const std::int8_t* b16_base;
  const std::int32_t* b16_max;
  // The codes themselves (logical k order: A [r][lda] like a64, B [n][ldb_codes]) and the value of
  // every code as binary64 (gemm.hpp: CodeTable::value64): where a64 / b64 are not decoded (the
  // VNNI and AVX2 paths), their binary64 steps read the values through them.
  const e4m3_t* a_codes;
  const e4m3_t* b_codes;
  int ldb_codes;
  const double* value64;
};
using KStepKernel = void (*)(const KStepArgs&);

// Statistics the epilogues count (added to golden::LayerStats by the caller).
struct EpilogueCounts {
  std::uint64_t e11_clamp_low, e11_clamp_high, p_quantised_zero, f16_subnormal, e4m3_saturated;
};
// E11 on `rows` rows of 96 scores s (row-major) -> q8(P) in p; tables from epilogue_tables().
struct E11Args {
  const f16_t* s;
  e4m3_t* p;
  int rows;
  const f16_t* e11;
  const std::uint8_t* e11_clamp;
  const f16_t* rcp;
  const e4m3_t* q8;
  EpilogueCounts* counts;  // null: count nothing
  // Where not null (and nothing is counted), q8(p) by this function instead of the table q8:
  // q8_run_avx512 below, with the profile's e4m3_nan_keeps_sign.
  void (*q8_run)(const f16_t* h, e4m3_t* out, std::size_t n, bool nan_keeps_sign);
  bool q8_nan_keeps_sign;
  // Where not null, e = e11(s) of a row by this function instead of the table e11 (the clamp
  // statistics still come from e11_clamp): e11_expval_run_avx2 below.
  void (*expval_run)(const f16_t* s, f16_t* e, std::size_t n) = nullptr;
};
// The n-tile counts C/8 of the layers' rows the fused engine's per-ISA epilogues are instantiated
// for (issue 33), one list as tiny-cuda-nn instantiates its widths: 20 (enc5, enc4, dec4: C = 160),
// 16 (enc3, dec3: 128), 12 (enc2, dec2: 96), 8 (enc1, dec1: 64), 4 (enc0, dec0: 32); the in-lane sum
// trees of model/sum_tree.hpp exist for each. A layer whose C/8 is not listed runs the golden parts (engine/layer_engine.cpp).
inline constexpr int kFusedNTiles[] = {4, 8, 12, 16, 20};
constexpr bool fused_n_tiles(int n_tiles) {
  for (const int n : kFusedNTiles)
    if (n == n_tiles) return true;
  return false;
}

// An RMS norm on `rows` rows of `channels` = 8 x (an entry of kFusedNTiles) channels:
// out = x * (rsqrt(sum of squares + eps) * gain).
struct RmsArgs {
  const f16_t* x;
  f16_t* out;
  int rows;
  int tree;  // SumTree as an int (readings.hpp order)
  f16_t eps;
  const f16_t* gain;  // `channels` entries
  int channels;       // the row length C
};

// out[r][c] = f16_add(t[c], x[r][c]) for `rows` rows of `channels` (a multiple of 8) channels.
struct AddRowsArgs {
  const f16_t* t;
  const f16_t* x;
  f16_t* out;
  int rows;
  int channels;
};

// Decoding n e4m3 codes (n a multiple of 16) into the forms of gemm.hpp's operands: the value as
// binary64 / binary32, the `ada` exponent e(x) = max(floor(log2|x|), -6) as binary32 / int16
// and the `hopper` exponent floor(log2|x|) (an e4m3 subnormal is an f16 normal: -7..-9) as int16
// (-64 for a zero in both), each written where its pointer is not null. Returns whether a NaN code
// (0x7F / 0xFF) was seen; the values written for it are unspecified (such operands go to mma_dot).
struct DecodeRun {
  const e4m3_t* src;
  int n;
  double* v64;
  float* v;
  float* e;
  std::int16_t* e16;
  std::int16_t* he16;
};

// Built per path with designated initialisers (kernels_scalar.cpp, kernels_avx2.cpp, ...): the
// table reads as (kernel, path): the per-profile k-step kernels (zluda, ada, hopper, blackwell) beside
// the profile-independent epilogue kernels.
// The merge layers' final epilogue (golden::e62) on a block's 64 pixels, pixel T (thread T) at
// index T of every array: in, its logits and its nine taps' three channels; out, the values steps
// (b)..(e) store to +112 and +120 and the 0.25-scaled quad values. Every lane is computed; the
// caller reads the active pixels' only.
struct E62Lanes {
  alignas(64) f16_t l[12][64];
  alignas(64) f16_t tv[9][3][64];
  alignas(64) f16_t s112[4][64];
  alignas(64) f16_t s120[4][64];
  alignas(64) f16_t quarter[3][64];
};
using E62LanesFn = void (*)(const Readings& rd, const LayerReadings& lr, const float* exp_table, const f16_t* sigmoid_table, E62Lanes& px);

struct KernelSet {
  KStepKernel zluda;  // numerics.md `zluda`
  KStepKernel ada;    // numerics.md `ada`
  void (*e11_rows)(const E11Args&);
  void (*rms_rows)(const RmsArgs&);
  bool (*decode_run)(const DecodeRun&);
  void (*add_rows)(const AddRowsArgs&);
  KStepKernel hopper;                        // numerics.md `hopper` (reads a, b; hea16, heb16 on AVX2 / AVX-512)
  KStepKernel blackwell;                     // MMA-Sim's sm_120 model (kernels_blackwell_impl.hpp; reads a, b, ea, eb / ea16, eb16;
                                             // on AVX2 and AVX-512 also the `zluda` integer form: kernels_blackwell_int16_avx2_impl.hpp)
  golden::E61PixelsFn e61_pixels = nullptr;  // E61 steps 4..6 of many pixels; null: golden's per pixel
  // The decoders' final epilogue's steps (c)..(h) of many pixels (golden::decoder_pixel for each);
  // null: golden's per pixel.
  golden::DecoderPixelsFn decoder_pixels = nullptr;
  // The merge layers' final epilogue's per-pixel steps on 64 pixels (E62Lanes); null: golden::e62.
  E62LanesFn e62_lanes = nullptr;
};
KernelSet kernels_scalar();
KernelSet kernels_avx2();        // valid only where the CPU has AVX2, FMA and F16C
KernelSet kernels_avx512();      // valid only where the CPU has AVX-512 F/BW/DQ/VL
KernelSet kernels_avx512vnni();  // ... and AVX512-VNNI
// The `zluda` integer form (gemm.hpp: kDecodeInt16) decoded with AVX-512 BW (valid where the
// avx512vnni path is): A's `groups` k-steps of 32 codes at codes + 32 i into out + 32 i, base[i],
// l1[i]; B's k-step at codes[n * K + k] (k < 32, n < N) into out (k pairs [k/2][n][2]), *base, *max.
// Both return whether a NaN code (0x7F / 0xFF) was seen (such operands go to mma_dot).
bool int16_form_a_avx512(const e4m3_t* codes, int groups, std::int16_t* out, std::int8_t* base, std::int32_t* l1);
// q8 (cvt.rn.satfinite.e4m3x2.f16x2: numerics' f16_to_e4m3) of n f16 values in int16 arithmetic
// with AVX-512 BW (valid where the avx512vnni path is); `nan_keeps_sign` is the profile's
// e4m3_nan_keeps_sign, the only way the profiles' q8 differ (engine/tables.cpp: q8_ada, q8_zluda).
void q8_run_avx512(const f16_t* h, e4m3_t* out, std::size_t n, bool nan_keeps_sign);
bool int16_form_b_avx512(const e4m3_t* codes, int N, int K, std::int16_t* out, std::int8_t* base, std::int32_t* max);
// E11 steps 1..5 (golden::e11_expval) of n scores and q8 of n f16 (as q8_run_avx512) in AVX2
// vector arithmetic (valid where the avx2 path is; engine/epilogue_avx2_impl.hpp).
void e11_expval_run_avx2(const f16_t* s, f16_t* e, std::size_t n);
void q8_run_avx2(const f16_t* h, e4m3_t* out, std::size_t n, bool nan_keeps_sign);
// The same two decoders with AVX2 (valid where the avx2 path is; kernels_zluda_int16_avx2_impl.hpp).
bool int16_form_a_avx2(const e4m3_t* codes, int groups, std::int16_t* out, std::int8_t* base, std::int32_t* l1);
bool int16_form_b_avx2(const e4m3_t* codes, int N, int K, std::int16_t* out, std::int8_t* base, std::int32_t* max);
// E61 steps 4..6 of n pixels, 16 per vector (model/e61_pixel_impl.hpp on AVX-512 lanes: equal to
// golden::e61_pixel for each); valid where the avx512vnni path is. And two of its operations for
// the tests: fma.rn.f16 of 8 lanes (f16_fma) and the rounding of 8 binary64 to f16 (f64_to_f16 of
// a non-NaN; NaN -> 0x7FFF).
void e61_pixels_avx512(const Readings& rd, const golden::E61Inputs* in, int n, const float* exp_table, golden::E61Pixel* out);
void decoder_pixels_avx512(const Readings& rd, const golden::DecoderFinalReadings& dr, const golden::DecoderPixelInputs* in, int n,
                           const golden::DecoderTables& tab, golden::DecoderPixel* out);
void e62_lanes_avx512(const Readings& rd, const LayerReadings& lr, const float* exp_table, const f16_t* sigmoid_table, E62Lanes& px);
void f16_fma_x8_avx512(const f16_t* a, const f16_t* b, const f16_t* c, f16_t* r);
void f64_to_f16_x8_avx512(const double* x, f16_t* r);
void add_ftz_x16_avx512(const float* a, const float* b, float* r);  // add.ftz.f32 (add_ftz_f32) of 16 lanes
void e11_expval_x16_avx512(const f16_t* s, f16_t* e);               // E11 steps 1..5 (golden::e11_expval) of 16 scores
// The same on the avx2 path, 8 pixels per vector (engine/e61_avx2_impl.hpp; valid where the avx2
// path is), and its operations for the tests: fma.rn.f16 of 8 lanes, the rounding of 8 binary64 to
// f16 (as f64_to_f16_x8_avx512), add.ftz.f32 / mul.ftz.f32 (add_ftz_f32 / mul_ftz_f32) of 8 lanes.
void e61_pixels_avx2(const Readings& rd, const golden::E61Inputs* in, int n, const float* exp_table, golden::E61Pixel* out);
void decoder_pixels_avx2(const Readings& rd, const golden::DecoderFinalReadings& dr, const golden::DecoderPixelInputs* in, int n,
                         const golden::DecoderTables& tab, golden::DecoderPixel* out);
void e62_lanes_avx2(const Readings& rd, const LayerReadings& lr, const float* exp_table, const f16_t* sigmoid_table, E62Lanes& px);
void f16_fma_x8_avx2(const f16_t* a, const f16_t* b, const f16_t* c, f16_t* r);
void f64_to_f16_x8_avx2(const double* x, f16_t* r);
void add_ftz_x8_avx2(const float* a, const float* b, float* r);
void mul_ftz_x8_avx2(const float* a, const float* b, float* r);
// The `ada` integer words (gemm.hpp: kDecodeAdaInt16) with AVX-512 BW (valid where the avx512vnni
// path is): A's words and exponents e(x) (as decode_run's e16) of a row of K codes (K a multiple
// of 32, logical k order) in the ISA order of each k-step (ISA position i <- logical k
// isa_source[i]); B's k pair of two code rows (N a multiple of 16) into words / exps as [n][2].
// Both return whether a NaN code was seen.
bool ada_forms_a_avx512(const e4m3_t* codes, int K, const std::int16_t* isa_source, std::int16_t* words, std::int16_t* exps);
bool ada_pairs_b_avx512(const e4m3_t* even, const e4m3_t* odd, int N, std::int16_t* words, std::int16_t* exps);

}  // namespace rrswin::engine
