// The golden model of enc5 (facts C0..C14): one block of the kernel, written phase by phase in the
// kernel's order and with its rounding at every step. Matrices hold the LOGICAL channel order,
// which is the kernel's "pair order" (facts §0.4): column c of a D tile is column c of the next
// A operand after the universal repack, so no layout appears in the arithmetic except where the
// `ada` accumulation needs the ISA's k order (mma_step below) and where bytes meet memory (the
// weight image, the plane arenas, the shared E61 records).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "model/constants.hpp"
#include "model/index_maps.hpp"
#include "model/layer_program.hpp"
#include "model/layer_spec.hpp"
#include "model/phase_program.hpp"
#include "model/q8_stats.hpp"
#include "model/readings.hpp"
#include "model/text.hpp"
#include "model/texture_surface.hpp"
#include "model/trace.hpp"
#include "model/weight_image.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/profile.hpp"
#include "numerics/types.hpp"

namespace rrswin::golden {

// enc5's sizes (facts C0). The golden parts take another layer's from BlockContext::layer() (the
// template, model/layer_spec.hpp: enc4's are these, enc3's C = 128, 4 heads, 16 chunks).
inline constexpr int kChannels = 160;  // C (facts C0)
inline constexpr int kTokens = 96;     // 64 window + 32 halo rows (facts B6)
inline constexpr int kWindow = 64;     // 8x8 window
inline constexpr int kHeads = 8;       // = warps of phases 1..12 (facts A7)
inline constexpr int kHeadDim = 32;
inline constexpr int kChunks = 20;  // MLP chunks (facts C9)
inline constexpr int kLogits = 16;  // phase 61's N

// How often each nonlinear branch fired (the stress assets must drive every one, test plan 6).
struct LayerStats {
  std::uint64_t e11_clamp_low = 0, e11_clamp_high = 0;       // E11 step 2 clamp of m, each side
  std::uint64_t p_quantised_zero = 0;                        // E11 probability p != 0 with q8(p) == 0
  std::uint64_t act_clamp_low = 0, act_clamp_high = 0;       // E21 clamp at -2 / +2 (y0 beyond it)
  std::uint64_t e4m3_saturated = 0;                          // any requantisation with |x| > 448
  std::uint64_t f16_subnormal = 0;                           // subnormal f16 values entering a requantisation
  std::uint64_t arena_stores = 0, arena_stores_dropped = 0;  // E60 guard
  std::uint64_t pixels_written = 0;                          // E61 surface stores issued in frame
  void add(const LayerStats& o);
};

// Row-major f16 / e4m3 matrices in logical column order.
struct F16Mat {
  int rows = 0, cols = 0;
  std::vector<f16_t> v;
  F16Mat() = default;
  F16Mat(int r, int c, f16_t fill = 0) : rows(r), cols(c), v(static_cast<std::size_t>(r) * c, fill) {}
  f16_t& at(int r, int c) { return v[static_cast<std::size_t>(r) * cols + c]; }
  f16_t at(int r, int c) const { return v[static_cast<std::size_t>(r) * cols + c]; }
};
struct E4Mat {
  int rows = 0, cols = 0;
  std::vector<e4m3_t> v;
  E4Mat() = default;
  E4Mat(int r, int c) : rows(r), cols(c), v(static_cast<std::size_t>(r) * c, 0) {}
  e4m3_t& at(int r, int c) { return v[static_cast<std::size_t>(r) * cols + c]; }
  e4m3_t at(int r, int c) const { return v[static_cast<std::size_t>(r) * cols + c]; }
};

struct BTile;
struct NormSpec;

// A stage being filled: an index into Trace::stages (a vector, so no pointers are kept).
class StageRef {
 public:
  StageRef() = default;
  StageRef(Trace* t, std::size_t i) : trace_(t), index_(i) {}
  explicit operator bool() const { return trace_ != nullptr; }
  TraceStage& operator*() const { return trace_->stages[index_]; }
  TraceStage* operator->() const { return &trace_->stages[index_]; }

 private:
  Trace* trace_ = nullptr;
  std::size_t index_ = 0;
};

// Everything a block's computation reads besides its data: the semantics profile, the readings,
// the weight image, and where statistics and trace stages go.
struct BlockContext {
  const Profile* profile = nullptr;
  const Readings* readings = nullptr;
  const WeightImage* weights = nullptr;
  LayerStats* stats = nullptr;                  // may be null
  const TraceRequest* trace_request = nullptr;  // non-null only for the traced block
  Trace* trace = nullptr;
  int ex = 0, ey = 0;  // token-grid extents (param+0)
  int x0 = 0, y0 = 0;  // block origin (facts A5)
  // When set, computes every phase_step in place of the golden element loop, with the same values
  // (the fast engine's GEMM kernels for the layers the engine has no part of its own for: enc3,
  // engine/layer_engine.hpp). Arguments as phase_step's.
  const std::function<void(const E4Mat& a, int a_col0, const BTile& b, F16Mat& acc)>* gemm_step = nullptr;
  // When set, computes stage_input's rms_norm_rows(spec, x, out, rows) with the same values (the
  // fast engine's RMS norm kernels for the front the engine runs on the golden parts: the decoders'
  // E1 norm, engine/layer_engine.cpp). Arguments as rms_norm_rows'.
  const std::function<void(const NormSpec& spec, const f16_t* x, f16_t* out, int rows)>* norm_rows = nullptr;
  // When set, computes a front's GEMM phase with the same values (the fast engine's GEMM on B
  // operands gathered once per frame, engine/layer_engine.cpp): (a, i) is a decoder's
  // expand_phase(ctx, a, i) (phase 1's D of warp i: its seeds and chained k-slices), or enc0's
  // embedding phase i = 1, 2 (its bias records and one k-step).
  const std::function<F16Mat(const E4Mat& a, int i)>* front_gemm = nullptr;
  // When set, f16_to_e4m3(h, *profile) at index h: quantise reads it (the fast engine's q8 table of
  // the profile's NaN rule, engine/tables.cpp).
  const e4m3_t* q8_table = nullptr;
  // When set, computes out[i] = f16_add(a[i], b[i]) for i < n (n a multiple of 8) with the same
  // values (the fast engine's f16 add kernel: the decoders' E1 readback).
  const std::function<void(const f16_t* a, const f16_t* b, f16_t* out, int n)>* add_f16 = nullptr;
  // When set, computes prologue_gather(ctx', arena, x) with the same values, for the context ctx'
  // it is given (the fast engine's table-driven loads, engine::prologue_loads: the decoders' skip
  // readback in E1).
  const std::function<void(const BlockContext& at, std::span<const std::uint8_t> arena, F16Mat& x)>* gather = nullptr;
  // When set, computes a decoder's expand_a(ctx, its front readings, input) with the same values (the
  // fast engine's table-driven loads, engine::expand_loads).
  const std::function<E4Mat(std::span<const std::uint8_t> input)>* expand_gather = nullptr;
  // > 0: run only through this phase (1..13), and of the per-head phases only head 0 = warp 0:
  // exactly what one of d4r's debug-oracle stages holds (facts F1/F2: w1..w12, p13c, p13d are
  // stored by %tid.z == 0 only). The block then writes no output. 0: the whole block.
  int last_phase = 0;

  // Returns the stage to fill when the trace asks for it (zero-filled, appended), else empty.
  StageRef stage(const std::string& name, const std::string& description, int warps, int regs) const;
  // The same with the stage's shape from the stage table (model/trace.hpp) at the layer's sizes.
  StageRef stage(const std::string& name, const std::string& description, StageKind kind) const;

  // The layer of the template the block computes: the weight image's (model/layer_spec.hpp). Its
  // C, heads, chunks, phase program and weight map are what every golden part reads (enc5's
  // program equals phase_program() field by field, LayerTemplate.Enc5IsTheExisting*).
  const LayerSpec& layer() const { return layer_spec(weights ? weights->layer() : LayerId::enc5); }
  const LayerProgram& program() const { return layer_program(layer().id); }
  const Phase& phase(int number) const { return program().phase(number); }
  WeightMap weight_map() const { return rrswin::weight_map(layer()); }
};

// ---- shared pieces (layer_common.cpp) ----
// Concatenates text and integers (stage names and descriptions): model/text.hpp.
using rrswin::cat;

// One k-step of one output element: D = mma(C + sum_k a[k] b[k]) with a, b in LOGICAL (pair)
// k order; they are permuted into the ISA's k order (layout::isa_k_from_pair_k) before the
// numerics core sees them, since the `ada` accumulation adds the ISA's two k halves in order.
f16_t mma_step(const Profile& p, const e4m3_t a_logical[32], const e4m3_t b_logical[32], f16_t c);
// q8 as the kernel's cvt.rn.satfinite.e4m3x2.f16x2 does it, counting saturation and subnormals
// (model/q8_stats.hpp says which inputs count). `static inline`: called per element by the parts
// (and the engine's translation units include this header with their own target flags:
// engine/kernel_args.hpp, no inline code shared across ISAs).
static inline e4m3_t quantise(const BlockContext& ctx, f16_t h) {
  if (ctx.stats) {
    ctx.stats->f16_subnormal += q8_counts_subnormal(h);
    ctx.stats->e4m3_saturated += q8_counts_saturated(h);
  }
  return ctx.q8_table ? ctx.q8_table[h] : f16_to_e4m3(h, *ctx.profile);
}
// A weight-image B operand of one k-step: column n's 32 logical-k bytes, gathered by waddr.
struct BTile {
  int cols = 0;
  std::vector<e4m3_t> v;  // [n][k]
  const e4m3_t* col(int n) const { return &v[static_cast<std::size_t>(n) * 32]; }
};
BTile load_b_waddr(const WeightImage& w, std::uint32_t base, int cols);                              // facts E2
BTile load_b_banded(const WeightImage& w, std::uint32_t base, int slice, int cols, int slices = 5);  // facts C9; slices = C/32
// One k-step of a phase over a tile: acc[r][n] = mma_step(A[r][a_col0 .. a_col0+31], B col n,
// acc[r][n]) for every element (acc holds C on entry, D on return).
void phase_step(const BlockContext& ctx, const E4Mat& a, int a_col0, const BTile& b, F16Mat& acc);
// A C-column f16 table (g1, T1, g2, T3; C = `channels`) read with a chunk order (facts E3, C6).
std::vector<f16_t> load_column_table(const WeightImage& w, std::uint32_t table, TableChunkOrder order, int channels = kChannels);
// Stage writer for a 16-row tile held as D registers: reg = 2*nt + rh, value = f16x2 of
// (row 16*mtile_row0 + g + 8rh, cols 8nt + 2t, +1).
void record_tile(TraceStage& st, int warp, const F16Mat& m, int row0, int reg_base, int nt_count, int col0 = 0);

// ---- prologue (prologue.cpp), facts B1..B6 ----
struct PrologueOut {
  F16Mat x;  // 96 x 160: the decoded input registers (the "residual vector", facts B2)
  E4Mat h1;  // 96 x 160: the staged A = q8(RMSnorm(x) * g1) (facts B4/B5)
};
// The pixel of token row r (0..95): window rows by facts A6, halo rows by the reading.
std::array<int, 2> token_pixel(const BlockContext& ctx, int row);
// The arena map the prologue's loads use (reading prologue-load-order: E60's map or natural).
ArenaOrder prologue_arena_order(const Readings& r);
// The prologue's loads (facts B1/B5): x = the decoded A fragments of the 96 token rows.
// `e4m3_f16_table`, when given, holds e4m3_to_f16(code) at index code and replaces the call.
void prologue_gather(const BlockContext& ctx, std::span<const std::uint8_t> input_arena, F16Mat& x, const f16_t* e4m3_f16_table = nullptr);
// An RMS norm as the kernel applies it (facts B4, C8): out = f16(x * f16(inv * gain)),
// inv = rms_inverse(sum of squares in `tree`, eps). What differs between the prologue's and E20's.
struct NormSpec {
  SumTree tree;
  f16_t eps;
  std::vector<f16_t> gain;  // C entries: the row length
};
// The prologue's norm (readings prologue-norm, -eps, -sum-tree; gain g1): empty when the reading
// prologue-norm = identity stages x as is.
std::optional<NormSpec> prologue_norm_spec(const BlockContext& ctx);
// E20's (facts C8: reading mlp-norm-sum-tree, kE20Eps, gain g2 in the reading g2-chunk-order).
NormSpec e20_norm_spec(const BlockContext& ctx);
// The norm of `rows` rows of C = spec.gain.size() (row-major) by the spec, the golden way.
void rms_norm_rows(const NormSpec& spec, const f16_t* x, f16_t* out, int rows);
PrologueOut prologue(const BlockContext& ctx, std::span<const std::uint8_t> input_arena);
// The prologue's second half for 96 rows of x gathered by any front (enc5's gather, the decoders'
// E1): the norm (none when empty), q8, the trace stage prologue.a.
PrologueOut stage_input(const BlockContext& ctx, F16Mat x, const std::optional<NormSpec>& norm);
// enc0's front (model/embedding_front.cpp): the staged input tensor (32 e4m3 channels a token, a
// one-plane arena at the token grid: what enc0's undecoded prologue builds from the network's
// input) gathered as the prologue gathers +8, the input embedding P1 -> relu-q8 -> P2, then the input
// norm over all 96 rows (stage_input); x = P2's D (the projections' residual).
PrologueOut embedding_front(const BlockContext& ctx, std::span<const std::uint8_t> input_tensor);
// cvt.rn.satfinite.relu.e4m3x2.f16x2 of one half: a negative value (-0 too) becomes +0, a NaN the
// canonical NaN's code, anything else q8 (HIP-e0 relu_pair; the PTX ISA's cvt .relu).
// It is quantise of the half the relu leaves (relu_half): the canonical NaN (kF16CanonicalNaN) for a
// NaN, +0 for -0 and every negative value (q8(+0) = 0x00, counted by neither statistic), else h; written
// without a branch on the sign, which is data (a branch on it mispredicts half the time): the mask
// (h >> 15) - 1 is all ones for a non-negative half, 0 for a negative one. `static inline` as
// quantise: per element, on the fast engine's q8 table when it is set.
static inline f16_t relu_half(f16_t h) {
  const f16_t kept = static_cast<f16_t>(h & ((static_cast<unsigned>(h) >> 15) - 1u));
  return (h & 0x7FFFu) > 0x7C00u ? f16_t{0x7FFF} : kept;  // a NaN: the canonical NaN
}
static inline e4m3_t quantise_relu(const BlockContext& ctx, f16_t h) { return quantise(ctx, relu_half(h)); }
// enc0's P1 A code of an input-tensor half (embedding_front): q8 of the exactly decoded code, but a
// NaN the NaN code of its own sign whatever the profile (the input's own code: 0xFF / 0x7F).
static inline e4m3_t embedding_input_code(const BlockContext& ctx, f16_t h) {
  if ((h & 0x7FFFu) > 0x7C00u) return static_cast<e4m3_t>(h & 0x8000u ? 0xFF : 0x7F);
  return ctx.q8_table ? ctx.q8_table[h] : f16_to_e4m3(h, *ctx.profile);
}

// ---- RMS norm pieces (rms_norm.cpp), facts B4, C8 ----
// The per-row f16 sum of squares exactly as the kernel forms it: the lane with thread-in-group t
// holds the f16x2 squares of columns (8nt+2t, 8nt+2t+1), nt = 0..C/8-1; in-lane tree (20 terms
// for C = 160, 16 for C = 128: the reading enc3-sum-trees, model/sum_tree.hpp); butterflies xor 1
// then xor 2; then lo + hi.
f16_t rms_sum_of_squares(const f16_t* row, SumTree tree, int channels = kChannels);

// The prologue norm's epsilon as f16 (reading prologue-eps, facts B4 / Errata 4).
f16_t prologue_eps(const Readings& r);
// Whether E60 drops lane `lane`'s stores by DOC5's "laneid > 15" term (reading arena-lane-guard).
bool e60_lane_dropped(const Readings& r, int lane);

// One u32 word of the input plane arena at pixel (x, y), plane q, word d, or the out-of-frame fill
// (reading prologue-fill, facts B6); shared by the prologue and the fast engine.
std::uint32_t input_word(const BlockContext& ctx, std::span<const std::uint8_t> arena, int q, int x, int y, int d);
// inv = f16(rsqrt.approx(f32(f16(sum + eps)))).
f16_t rms_inverse(f16_t sum, f16_t eps);
// E20 (facts C8): N = f16(D20 * f16(inv * g2)), per row.
struct E20Out {
  F16Mat n;
  std::vector<f16_t> sum, inv;
};
E20Out e20_norm(const BlockContext& ctx, const F16Mat& d20);
// E20's trace stages e20.sum, e20.inv, e20.n (the norm after the last projection phase: enc3's E14).
void record_norm_stages(const BlockContext& ctx, const E20Out& norm);

// ---- attention (attention.cpp): phases 1..12, E10, E11, E12 ----
// E11 step 1..5 for one score (facts C4): the cubic exponent.
f16_t e11_expval(f16_t score, LayerStats* stats = nullptr);
// E11 steps 6..9 for one row of 96 exponents: the row sum (with its tree and butterflies), the
// reciprocal and the probabilities.
struct E11Row {
  f16_t sum, rcp;
  std::array<f16_t, 96> p;
};
E11Row e11_row(const std::array<f16_t, 96>& e);
struct HeadOut {
  F16Mat q, v;                          // D9, D10: 96 x 32
  F16Mat s;                             // D11: 64 x 96
  F16Mat e, p;                          // E11 exponents and probabilities, 64 x 96
  std::vector<f16_t> row_sum, row_rcp;  // 64
  F16Mat o;                             // D12: 64 x 32
};
// Phase 11 alone (for tests): S = bias + q8(Q[0..63]) q8(Q)^T of head h.
F16Mat score_phase(const BlockContext& ctx, const F16Mat& q, int head);
// One HeadOut per head of the layer (warp z = head z).
std::vector<HeadOut> attention(const BlockContext& ctx, const E4Mat& h1);

// ---- output projection (out_projection.cpp): E12, phases 13..20 ----
struct OutProjOut {
  F16Mat c13, d20;
};  // 64 x 160 (warp z owns rows 16z..16z+15)
// T1, the table of phase 13's C seed, in the reading t1-chunk-order (facts C6).
std::vector<f16_t> c13_table(const BlockContext& ctx);
// The residual x of phase 13's C seed f16(T1 + x), rows 0..63 (reading projection-residual): the raw
// decoded input (a reference to in_x) or the decode of the staged bytes (written to `staged`).
const F16Mat& c13_residual(const BlockContext& ctx, const F16Mat& in_x, const E4Mat& h1, F16Mat& staged);
OutProjOut out_projection(const BlockContext& ctx, const PrologueOut& in, const std::vector<HeadOut>& heads);

// ---- MLP (mlp.cpp): phases 21..60, E21..E59 ----
// E21's clamped cubic activation for one f16 (facts C10).
f16_t activation(f16_t y0, LayerStats* stats = nullptr);
struct MlpOut {
  F16Mat c22, d60;
};
// T3, the table of phase 22's C seed, in the reading t3-chunk-order (facts C10).
std::vector<f16_t> c22_table(const BlockContext& ctx);
// The residual of phase 22's C seed f16(T3 + residual) (reading mlp-residual): D20 or N.
const F16Mat& e21_residual(const BlockContext& ctx, const F16Mat& d20, const F16Mat& n);
MlpOut mlp(const BlockContext& ctx, const F16Mat& d20, const E20Out& norm);

// ---- E60 (arena_scatter.cpp) ----
// (The arena placement of a fragment register is arena_slot, model/index_maps.hpp.)
// Requantises D60 and scatters it; returns q8(D60) (phase 61's A).
// The arena map E60's stores use (reading arena-order; facts C13.2): the one place the engine and
// the merge's store (merge-output-layout = arena-words) ask it.
ArenaOrder e60_arena_order(const Readings& r);
E4Mat e60_scatter(const BlockContext& ctx, const F16Mat& d60, std::span<std::uint8_t> output_arena);
// E60(b) alone: the guarded stores of q8(D60) (64 x 160) with their statistics.
void e60_store(const BlockContext& ctx, const E4Mat& a61, std::span<std::uint8_t> output_arena);

// ---- phase 61 and E61 (kpn_filter.cpp) ----
F16Mat phase61(const BlockContext& ctx, const E4Mat& a61);  // 64 x 16
// The same GEMM for any layer's final phase `ph` (enc4's 62: model/layer_program.hpp), traced as `stage`.
F16Mat logits_phase(const BlockContext& ctx, const E4Mat& a, const Phase& ph, const std::string& stage);
// E61 steps 4..6 for one pixel: the softmax weights from the 10 logits, the 3x3 gather and the
// weighted sum. Returns {r, g, b, 0}.
struct E61Pixel {
  std::array<f16_t, 10> w{};
  float sum = 0, rinv = 0;
  std::array<f16_t, 4> out{};
};
// e_i of E61's softmax from d_i = f16(l_i - max): ex2.approx.ftz(f32(d_i) * log2 e) (facts C14.4).
// A function of one f16, so a caller may tabulate it (the fast engine does): `exp_table`, when
// given, holds e61_exp(h) at index h and replaces the call.
float e61_exp(f16_t d);
E61Pixel e61_pixel(const Readings& r, const std::array<f16_t, 10>& logits, const Texture& tex, int X, int Y, int ex, int ey,
                   const float* exp_table = nullptr);
// What E61's steps 4..6 read for one pixel: its 10 logits and the channels r, g, b of its 9 taps
// (tap i the texel weight i multiplies: e61_taps, Texture::fetch).
struct E61Inputs {
  std::array<f16_t, 10> l{};
  std::array<std::array<f16_t, 3>, 9> tv{};
};
E61Inputs e61_inputs(const Readings& r, const std::array<f16_t, 10>& logits, const Texture& tex, int X, int Y, int ex, int ey);
E61Pixel e61_pixel(const Readings& r, const E61Inputs& in, const float* exp_table = nullptr);
// Steps 4..6 of n pixels at once (out[i] = e61_pixel(r, in[i], exp_table)): the engine passes
// its vector form of the one definition (model/e61_pixel_impl.hpp).
using E61PixelsFn = void (*)(const Readings& r, const E61Inputs* in, int n, const float* exp_table, E61Pixel* out);
// The decoders' final epilogue's steps (d) and E6' of one pixel (e61_pixel_impl.hpp
// decoder_softmax_stencil): w_0..w_8, sum, rinv, and out[0..2] the three filtered channels before
// the blend; the engine passes its vector form of the same definition as an E61PixelsFn.
E61Pixel decoder_stencil_pixel(const Readings& r, const E61Inputs& in, const float* exp_table = nullptr);
// The 9 tap coordinates, tap i in the order weight i multiplies it (facts C14.5/.6).
std::array<std::array<int, 2>, 9> e61_taps(const Readings& r, int X, int Y, int ex, int ey);
// E61(a)'s shared records of a logits phase's D (64 x 16): kE61Threads records of kE61RecordWords
// words (+ 8 words the unguarded stores may reach), word e61_record_word(r, t, nt); enc4's E62 and
// enc3's E48 stage the same way (DOC4 §3/E62(a), DOC3 §3/E48(a): 4*(6*index + t), guard > 5).
std::vector<std::uint32_t> e61_records(const BlockContext& ctx, const F16Mat& d);
void e61(const BlockContext& ctx, const F16Mat& d61, const Texture& tex, Surface& surf, const float* exp_table = nullptr,
         E61PixelsFn pixels = nullptr);

// ---- the whole block (block.cpp) ----
struct BlockIo {
  std::span<const std::uint8_t> input_arena;
  std::span<std::uint8_t> output_arena;
  const Texture* texture = nullptr;
  Surface* surface = nullptr;
};
// With ctx.last_phase > 0 the block stops after that phase (see BlockContext) and writes nothing.
void run_block(const BlockContext& ctx, const BlockIo& io);

}  // namespace rrswin::golden
