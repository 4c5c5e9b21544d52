// The golden model of the merge layers enc4 and enc3 (issue 21): enc5's golden parts, which take
// the layer's C, heads and chunks from the template (BlockContext::layer()), for the layer's phases
// up to the last down-projection and its arena scatter (DOC4 §2: enc4's phases 1..60 are enc5's,
// statement for statement and offset for offset, LayerTemplate.Enc4Phases1To60AreEnc5s; DOC3 §2:
// enc3's 1..46 the same template at C = 128, 4 heads, 16 chunks), then the patch merge (the last
// down-projection's staging, the merge phase in 32-column passes, its store of the merged tokens
// into param+56), the final phase and its epilogue (enc4's E62, enc3's E48: enc5's 3x3 texture
// stencil and f32 softmax core, the gate and (acc - g acc) * 0.25 term, the 2x2 shfl.sync.down sum,
// three surfaces): what DOC4 §3/E62 and DOC3 §3/E48 do not connect is the readings sigmoid-* and
// enc3-* (docs/readings.md §7).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/decoder_final.hpp"
#include "model/decoder_front.hpp"
#include "model/layer.hpp"
#include "model/layer_spec.hpp"

namespace rrswin {

// The readings of the merge layers (docs/readings.md §7), apart from rrswin's Readings: they change
// nothing rrswin computes, so enc5's settle never searches them.
// Which token of a 2x2 patch fills which quarter of the merge's K = 4C (merge-gather-order).
enum class MergeGatherOrder {
  swin,    // quarter 0..3 = (dx, dy) (0,0), (0,1), (1,0), (1,1): Swin's PatchMerging x0..x3
  raster,  // quarter 0..3 = (0,0), (1,0), (0,1), (1,1): x fastest
};
// The register merge of enc1/enc0 (E30(c)/E20(c)): which token of the 2x2 patch and which of its
// C/32 planes fill k-slice s of the merge's K = 4C (merge-register-k-order). The quarter q is the
// token at window offset (dx, dy): raster = (q&1, q>>1), swin = (q>>1, q&1); token-major puts a
// token's planes together (s = (C/32) q + p), plane-major a plane's four tokens (s = q + 4p).
enum class MergeRegisterK { raster_token, raster_plane, swin_token, swin_plane };
// How E61 places a merged token's q8 channels in param+56 (merge-output-layout).
enum class MergeOutputLayout {
  e60_words,    // the words E60 stores for a tile, in the reading arena-order's map, at E61's bases
  token_words,  // the same words, each merged token its own (arena-order = natural's map)
};
// The final epilogue of the merge layers (enc4's E62, enc3's E48; docs/readings.md §7 "sigmoid-*"):
// what DOC4/DOC3 list but do not connect. The sigmoid's input of the gate g (sigmoid-gate).
enum class E62Gate {
  logit9,   // g = sigmoid(logit 9): the other half of the word whose low half is the ninth value of the
            // softmax's max (DOC-e1 §3/E32(c): max over l0..l8, the gate from the fifth register)
  logit10,  // g = sigmoid(logit 10): record word 5's low half, the first value past the softmax's ten
  logit11,  // g = sigmoid(logit 11): word 5's high half
  acc,      // g_ch = sigmoid(acc_ch), per channel (DOC4/DOC3 U8's written formula)
};
// What the three sub.f16 compute (sigmoid-difference).
enum class E62Difference {
  gated,    // diff = acc - f16(g * acc): the mul.f16 product's second operand is the sub's minuend
  sigmoid,  // diff = acc - g (U8's literal "acc - sigmoid(acc)")
};
// Which three values are scaled by 0.25 and summed over the 2x2 quad (sigmoid-quad-value).
enum class E62QuadValue { difference, product };
// Which lanes store the quad sum to the half-resolution surface +128 (sigmoid-quad-writer).
enum class E62QuadWriter {
  even,  // (X | Y) & 1 == 0: the quad's top-left pixel (DOC0 E22(f), DOC1 E32(f))
  odd,   // (X | Y) & 1 == 1 (DOC3 E48(e) "taken only for odd"): three writers, the last in thread order wins
};
// What shfl.sync.down returns from a lane that skipped E62 (pixel out of frame, sigmoid-inactive-lane).
enum class E62InactiveLane { zero, own };
// The fourth channel of surfaces +112 / +120 (sigmoid-alpha).
enum class E62Alpha {
  sigmoids,  // +112: the second sigmoid (the logit the gate does not take), +120: the gate g
  zero,      // both 0 (as enc5's E61 and the third store)
};
struct LayerReadings {
  MergeGatherOrder merge_gather_order = MergeGatherOrder::swin;
  MergeOutputLayout merge_output_layout = MergeOutputLayout::e60_words;
  MergeRegisterK merge_register_k = MergeRegisterK::raster_token;
  E62Gate e62_gate = E62Gate::logit10;
  E62Difference e62_difference = E62Difference::gated;
  E62QuadValue e62_quad_value = E62QuadValue::difference;
  E62QuadWriter e62_quad_writer = E62QuadWriter::even;
  E62InactiveLane e62_inactive_lane = E62InactiveLane::zero;
  E62Alpha e62_alpha = E62Alpha::sigmoids;
  DecoderFrontReadings decoder_front;          // expand-* (the decoders' front, model/decoder_front.hpp)
  golden::DecoderFinalReadings decoder_final;  // decoder-* (the decoders' final epilogue, model/decoder_final.hpp)
};
struct LayerReadingInfo {
  std::string name;
  std::vector<std::string> values;  // the default first
  std::string question, where, settle;
};
const std::vector<LayerReadingInfo>& layer_reading_registry();
// The one view of both registries (issue 32, "one readings registry"): the runnable layers whose
// model consults the reading `name` (enc5's registry or the one above), in network order; empty for
// an unknown name. enc5's readings live in the template's parts, which every runnable layer runs
// (the merge layers' E62 calls enc5's E61 core, so the filter-* readings apply to them too); merge-*
// in the shared-pass merge; sigmoid-* in the gated final epilogue.
std::vector<LayerId> reading_layers(std::string_view name);
// "NAME=VALUE"; false and *error on an unknown name or value.
bool set_layer_reading(LayerReadings& r, std::string_view assignment, std::string* error);

namespace golden {

// E60(c)/(d): the 16 merged tokens of the block (row m = merged token (m&3, m>>2)) as the merge's
// A, 16 x 4C, from q8 of the last down-projection's D (64 x C, row = window token 8y + x).
E4Mat merge_gather(const LayerReadings& lr, const E4Mat& a_last);
// The merge phase, every pass: D (16 x merge_out), seeded with the merge bias (merge-bias-pass).
F16Mat merge_phase(const BlockContext& ctx, const LayerSpec& s, const E4Mat& merged);
// The register merge (enc1's E30(c), enc0's E20(c)): the 16 merged tokens as the merge's A from the
// D registers of the last down-projection's q8 (64 x C) moved by the 8-lane shfl.down/up pairs
// (delta 4): merged row m = token merged_token_of_row(m) of the block's 4x4 merged grid, each
// k-slice one pixel's words as the arena scatter stores them (the reading arena-order), the pixel
// and plane of each k-slice by the reading merge-register-k-order.
E4Mat register_merge_gather(const BlockContext& ctx, const LayerReadings& lr, const E4Mat& a_last);
// Merged row m's token (X, Y) in the block's 4x4 merged grid: the shared-pass merge's E61 bases
// (m&3, m>>2) (DOC4 §3/E61), the register merge's ((m&7)>>1, 2(m>>3) + (m&1)) (DOC-e1 §3/E30(c)'s
// pair (%r317, %r325) joins columns g, g+1 of window rows 0, 1 on lane g and rows 2, 3 on lane g+4;
// E31(b)'s bases %r421 = (X0 + (g>>1), Y0 + (g&1)) and %r424 = (.., Y0 + 2 + (g&1)) by bfi.b32).
PixelXY merged_token_of_row(MergeKind k, int m);
// E61: q8(D) of the merge stored into the merged output (param+56, a plane arena at the halved
// extents (ex>>1, ey>>1)) at merged token ((x0>>1) + (m&3), (y0>>1) + (m>>2)), guarded by the
// halved extents (DOC4 §3/E61, DOC3 §3/E47).
void merge_store(const BlockContext& ctx, const LayerReadings& lr, const F16Mat& dm, std::span<std::uint8_t> merged_out);

// The sigmoid of the final epilogue: f16(1 / (1 + 2^(f32(v) * -log2 e))), each step one f32 op
// (mul.ftz, ex2.approx.ftz, add.ftz, div.approx.ftz; DOC1 E32(c) s26311..s26316, DOC0 E22(c)).
f16_t e62_sigmoid(f16_t v);

// One pixel's values before the cross-lane sum (for traces and tests).
struct E62Pixel {
  E61Pixel core;  // enc5's E61 core: softmax weights, acc = out[0..2]
  std::array<f16_t, 3> gate{}, prod{}, diff{}, quarter{};
  f16_t second_sigmoid = 0;  // the sigmoid of the logit the gate does not take
  std::array<f16_t, 4> s112{}, s120{};
};
// `exp_table` and `sigmoid_table`, when given, hold e61_exp(h) and e62_sigmoid(h) at index h and
// replace the calls (functions of one f16: the fast engine tabulates them, engine/tables.cpp).
E62Pixel e62_pixel(const Readings& r, const LayerReadings& lr, const std::array<f16_t, 12>& logits, const Texture& tex, int X, int Y,
                   int ex, int ey, const float* exp_table = nullptr, const f16_t* sigmoid_table = nullptr);

// The merge layers' final epilogue (enc4's E62, enc3's E48), from the final phase's D (64 x 16):
// (a) enc5's E61 records, (b)/(c) enc5's E61 core (row maximum, f32 softmax of logits 0..9, the
// 3x3 texture stencil; its readings filter-*), (d) the gate and the 0.25-scaled quad value, the
// shfl.sync.down sum over lanes +1 and +8, (e) sust to +112 / +120 at (X, Y) and to +128 at
// (X>>1, Y>>1) (docs/readings.md §7 sigmoid-*). Threads T < 64, pixel (x0 + (T&7), y0 + (T>>3)).
struct E62Surfaces {
  Surface* s112 = nullptr;     // ex x ey
  Surface* s120 = nullptr;     // ex x ey
  Surface* s128 = nullptr;     // (ex>>1) x (ey>>1)
  SurfaceF32* s144 = nullptr;  // dec0's +144 (E19's tanh values), ex x ey
};
// `pixels`, when given, computes the enc5 cores ((b)/(c): e61_pixel of each active pixel) of the
// block at once (the engine's vector form, KernelSet::e61_pixels).
void e62(const BlockContext& ctx, const LayerReadings& lr, const F16Mat& d, const Texture& tex, const E62Surfaces& out,
         const float* exp_table = nullptr, const f16_t* sigmoid_table = nullptr, E61PixelsFn pixels = nullptr);

// One block of any runnable layer (the one golden block runner, issue 32): the outputs by parameter
// offset; a layer writes those its row has (the merged output only with a merge, +120/+128 only
// with the gated final epilogue). The final epilogue runs when the texture and its surfaces are given.
struct LayerBlockIo {
  std::span<const std::uint8_t> input_arena;  // param+8
  std::span<std::uint8_t> output_arena;       // param+48
  std::span<std::uint8_t> merged_output;      // param+56
  const Texture* texture = nullptr;           // param+88
  E62Surfaces surfaces;                       // param+112 (every layer's), +120, +128
  // The decoders' (layer_spec's LaunchAbi skip, int_textures, scale):
  std::span<const std::uint8_t> skip_arena;  // param+24: the encoder of the same level's arena
  const Texture* texture96 = nullptr;        // param+96
  const Texture* texture104 = nullptr;       // param+104
  std::array<float, 2> scale{};              // param+136: (sx, sy)
};
// The layer's parts in order (model/layer_spec.hpp): the prologue, the attention, the projections,
// the norm, the MLP and the arena scatter, then [the merge], the final phase and the final
// epilogue of the layer's kind. ctx.last_phase > 0 stops after that phase (an attention phase or a
// projection: facts F2's debug stages) and writes nothing more. Returns the final phase's D (empty
// when stopped early; dec0, which has no final phase: D19, the D its E19 reads).
F16Mat run_layer_block(const BlockContext& ctx, const LayerReadings& lr, const LayerBlockIo& io);

}  // namespace golden

// A whole frame of a merge layer with the golden model, block by block ((ex+ox+7)/8 x (ey+oy+7)/8
// blocks with origin offsets ox, oy at param+80). The layer is the weight image's (enc4 or enc3).
// Input: the previous layer's plane arena, C/32 planes (enc4 5, enc3 4) x ey x ex x 32 bytes.
// Outputs: the plane arena (C/32 planes) and the merged output (merge_out/32 = 5 planes x (ey>>1)
// x (ex>>1) x 32 bytes: the next layer's input), both zero-filled first.
// A decoder (dec4): the input at half the extents ((ex >> 1) x (ey >> 1), the previous decoder's or
// enc5's arena), the skip (the encoder of the same level's arena, ex x ey), the textures +88 (any
// size: sampled at f32 coordinates scaled by `scale`), +96 and +104 (ex x ey); outputs the arena and
// surface112; no merged output.
struct LayerFrame {
  int ex = 0, ey = 0;
  int ox = 0, oy = 0;
  std::span<const std::uint8_t> input_arena;
  const WeightImage* weights = nullptr;
  const Texture* texture = nullptr;                           // param+88, ex x ey; null: the final epilogue is not run (no surfaces)
  std::span<const std::uint8_t> skip_arena;                   // param+24 (the decoders)
  const Texture *texture96 = nullptr, *texture104 = nullptr;  // param+96, +104 (the decoders)
  std::array<float, 2> scale{};                               // param+136 (the decoders)
  std::vector<std::uint8_t> output_arena, merged_output;
  Surface surface112, surface120, surface128;  // made by the driver: ex x ey, ex x ey, (ex>>1) x (ey>>1)
  // dec0 (DOC-d0 §4.2): output_arena is +48, 8 e4m3 bytes per pixel at byte 8 (ex y + x) (ex x ey x 8
  // bytes), and surface144 its f32 tanh surface (ex x ey, made whether or not the textures are given).
  SurfaceF32 surface144;
  // When set, called after each block with the blocks done so far and the frame's blocks (from the
  // thread that ran it, one call at a time, the counts increasing): a progress display.
  std::function<void(std::int64_t done, std::int64_t total)> progress;
};
// `trace` (when given) records its stages of block (trace->block_x, trace->block_y) into *trace_out.
void run_layer_frame_golden(LayerFrame& f, const Profile& profile, const Readings& r, const LayerReadings& lr,
                            golden::LayerStats* stats = nullptr, const TraceRequest* trace = nullptr, Trace* trace_out = nullptr);
// The same frame driver (checks, outputs, grid, block order) with another block runner for every
// block but the traced one (the fast engine, engine/layer_engine.hpp); ctx.profile has the readings.
// `loop` (when given) runs the frame's blocks: loop(n, body) must call body(i) once for every i < n,
// in any order and on any threads (engine/layer_engine.hpp: a worker pool). Each block writes only
// its own pixels, tokens and statistics, so the bytes are those of the serial order; the driver
// runs the blocks serially itself where two blocks can write one texel (the reading
// sigmoid-quad-writer = odd with an odd origin offset: a +128 texel's quad then spans two blocks).
using LayerBlockRunner = std::function<void(const golden::BlockContext&, const golden::LayerBlockIo&)>;
using LayerBlockLoop = std::function<void(int blocks, const std::function<void(int block)>& body)>;
void run_layer_frame_with(LayerFrame& f, const Profile& profile, const Readings& r, const LayerReadings& lr, golden::LayerStats* stats,
                          const TraceRequest* trace, Trace* trace_out, const LayerBlockRunner& run, const LayerBlockLoop& loop = {});

}  // namespace rrswin
