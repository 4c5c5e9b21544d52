// The merge layers' golden model past enc5's phases (model/layer_golden.hpp): the merge staging, the
// merge phase, its store, the final phase. Sources: DOC4 §3/E60(c)-(e), E61, the phase table (§2);
// DOC3 §3/E46(c)-(e), E47, §2 for enc3; the readings
// of docs/readings.md §7 (merge-loop, merge-bias-pass, merge-gather-order, merge-output-layout,
// final-phase-a).
#include "model/layer_golden.hpp"

#include <cstring>
#include <initializer_list>
#include <mutex>
#include <stdexcept>

#include "layout/arena.hpp"
#include "layout/fragment.hpp"
#include "layout/tables.hpp"
#include "layout/weight_tile.hpp"
#include "model/launch_abi.hpp"
#include "model/layer_program.hpp"

namespace rrswin {

const std::vector<LayerReadingInfo>& layer_reading_registry() {
  static const std::vector<LayerReadingInfo> r = {
      {"merge-gather-order",
       {"swin", "raster"},
       "which token of a 2x2 patch fills which quarter of the merge's K = 4C",
       "DOC4 §3/E60(c,d), §5/U4; DOC3 §3/E46(c,d), U4 (the store/load permutation is unproven)",
       "an arg056 dump (the merged output) of an enc4 launch with a synthetic input"},
      {"merge-output-layout",
       {"arena-words", "token-words"},
       "where E61 puts a merged token's q8 channels in param+56",
       "DOC4 §3/E61 (4 guarded stores per pass, bases from (x0>>1)+((laneid>>2)&3), (y0>>1)+(laneid>>4)); DOC3 §3/E47",
       "an arg056 dump of an enc4 launch"},
      {"merge-register-k-order",
       {"raster-token", "raster-plane", "swin-token", "swin-plane"},
       "which token of the 2x2 patch and which of its planes fill each k-slice of the register merge's K = 4C (enc1's P31)",
       "DOC-e0 §3/E20(c) (enc0's full pair list: quarters in raster order, x fastest); DOC-e1 §3/E30(c) prints only enc1's first "
       "pair, whose second destination sits 40 registers above the first (enc0's fragment bases are 20 apart: token-major)",
       "P31's A register lists (DOC-e1 s25824..s25919) in the corpus PTX, or an arg056 dump of an enc1 launch with a synthetic input"},
      {"sigmoid-gate",
       {"logit10", "logit11", "acc", "logit9"},
       "which value the gate g = sigmoid(v) of E62's three mul.f16 products takes",
       "DOC1 E32(c)/(e) (the gate is the sigmoid of a D value outside the softmax's set, %rs9234, times the filtered value; read "
       "with its max over nine values, %rs96 is the other half of the word holding the ninth: logit 9); DOC3 E48(d) two sigmoids; "
       "DOC4/DOC3 U8 'acc - sigmoid(acc)'",
       "the +120 surface of an enc4 or enc1 launch with a synthetic input (or the corpus PTX's E62 s21591..s21648, E32 s26141..s26324)"},
      {"sigmoid-difference",
       {"gated", "sigmoid"},
       "what E62's three sub.f16 subtract from the filtered value",
       "DOC0 s17156/s17162 and DOC1 s26488/s26493: mul.f16 p = g * acc, sub.f16 acc - p; U8's literal formula",
       "the +112 surface of an enc4 launch"},
      {"sigmoid-quad-value",
       {"difference", "product"},
       "which three values E62 scales by 0.25 and sums over the 2x2 quad",
       "DOC0 E22(e), DOC1 E32(e), DOC3 E48(d): 'differences scaled by 0.25'; the mul.f16x2's operand is not printed",
       "the +128 surface of an enc4 launch"},
      {"sigmoid-quad-writer",
       {"even", "odd"},
       "which lanes store the quad sum to +128",
       "DOC0 E22(f) 'even %r355 = %r315|%r354', DOC1 E32(f) '(%r452 & 1) != 1'; DOC3 E48(e) 'taken only for odd' (conflict)",
       "the +128 surface of an enc4 launch"},
      {"sigmoid-inactive-lane",
       {"zero", "own"},
       "what shfl.sync.down returns from a lane whose pixel is out of frame (it skipped E62)",
       "DOC0 E22(b), DOC1 E32(b): out-of-range lanes branch past the shfl; the PTX ISA leaves the value undefined",
       "an enc4 launch with odd extents or origin offsets, its +128 surface"},
      {"sigmoid-alpha",
       {"sigmoids", "zero"},
       "the fourth channel of surfaces +112 / +120",
       "DOC4 s21649/s21650 (%rs6840, %rs6841: two distinct registers, not printed), DOC3 E48(d) two sigmoids, one consumed by the products",
       "the +112 / +120 surfaces of an enc4 launch"},
      {"expand-load-order",
       {"natural", "fragment"},
       "which input-arena word each of phase 1's A registers loads: each token's own words, or the enc5 prologue's straight register map",
       "HIP-d4/DOC-d4: the prologue's gather (file lines 1063-1468) is not decoded; DOC-d2 §6: 60 loads for 48 A registers",
       "d4r's debug stage p1a (phase 1's A registers) of a dec4 launch with a known +8 input"},
      {"expand-fill",
       {"clamp", "zero"},
       "what phase 1's A holds for a low-resolution token outside the input's frame",
       "HIP-d4 (the prologue's 'clamped halo gather', file lines 1063-1468, rule not decoded); no decoder doc reduces it",
       "d4r's debug stage p1a (phase 1's A registers) of a border block of a dec4 launch, or its arg048 dump"},
      {"expand-subpixel",
       {"dy-dx", "dx-dy"},
       "which warp z computes which sub-pixel (dy, dx) of the 2x2 expansion (z = 2dy+dx or 2dx+dy)",
       "DOC-d4 §6/U1 (the E1 scatter map is not reduced); DESC-d1 e1_patch_grid (dec1: warp 0 writes odd tile rows, warp 1 even)",
       "a shared-memory dump after E1's first bar.sync (s2295), or the arg048 dump of a dec4 launch with distinct expand slabs"},
      {"expand-column-split",
       {"block", "interleaved"},
       "which of a dec1 warp's 2C expand columns belong to which of its two sub-pixels and channels (n / C and n % C, or n-tile parity); "
       "dec0's one warp of 4C columns: n / C and n % C, or s = (n >> 4) & 3 (pairs of n-tiles, DESC-d0 _e1's (n, n + 8) pack word)",
       "DESC-d1 e1_patch_grid (a pack word pairs columns n, n + 16; each warp writes one tile-row parity; the pack -> sub-array map is not printed); DOC-d1 §7/U4",
       "a shared-memory dump after E1's first bar.sync (s1369), or the arg048 dump of a dec1 launch whose expand weights differ between columns n and n ^ 8"},
      {"decoder-sampler",
       {"linear", "point"},
       "the filter mode of the decoders' texture +88, sampled at f32 coordinates u = sx (x + 0.5) (tex.base.2d.v4.f16.f32)",
       "not in the PTX (the launch's sampler state); DOC-d4 §4/E62, DOC-d3 §4/E48 'u = sx*(i+0.5)'; linear: the reading ptx-tex-sampler's model",
       "the +112 surface of a dec4 launch whose +88 texture has distinct texels and sx = 0.5"},
      {"decoder-gate-logit",
       {"raw", "centred"},
       "whether the blend's sigmoid takes the tenth logit itself or f16(l9 - max)",
       "DOC-d4 §4/E62: 9 x log2e and 1 x -log2e, 3 max.f16x2 + 2 max.f16 reduce 9 values; the register converted before s24415 is not printed",
       "the +112 surface of a dec4 launch whose logits have a nonzero maximum"},
      {"dec0-output-columns",
       {"column-order", "contiguous", "tanh-first"},
       "which D19 columns of a pixel's row dec0's E19 packs into the 8 e4m3 bytes of +48 and feeds to the 4 tanh values of +144 "
       "(the logits are columns 0..9)",
       "DOC-d0 §3/E19(c) (the packs read %r373, %r376, %r377, %r378; no tanh input register printed), E19(a)'s gather "
       "(%r368.. = columns 0..; HIP-d0's cut: 24 chain values, n-tiles 0..2); dec0.md §4.2/§4.3, U1",
       "the corpus PTX s18232..s18503, or the +48 and +144 outputs of a dec0 launch whose W2(3) / D17 make each D19 column distinct"},
  };
  return r;
}

namespace {

// One reading's values in the registry's order, as enumerators (the registry's first = the default).
template <typename E>
bool set_enum(E* field, std::string_view name, std::string_view value, std::initializer_list<E> values, std::string* error) {
  const LayerReadingInfo* info = nullptr;
  for (const LayerReadingInfo& i : layer_reading_registry())
    if (i.name == name) info = &i;
  std::size_t k = 0;
  for (E e : values) {
    if (info && k < info->values.size() && info->values[k] == value) {
      *field = e;
      return true;
    }
    ++k;
  }
  if (error) {
    std::string all;
    if (info)
      for (const std::string& v : info->values) all += (all.empty() ? "" : ", ") + v;
    *error = golden::cat(name, ": value '", value, "' is not one of ", all);
  }
  return false;
}

}  // namespace

bool set_layer_reading(LayerReadings& r, std::string_view assignment, std::string* error) {
  const auto eq = assignment.find('=');
  const std::string_view name = canonical_reading_name(assignment.substr(0, eq)),
                         value = canonical_reading_value(name, eq == std::string_view::npos ? "" : assignment.substr(eq + 1));
  using G = MergeGatherOrder;
  using O = MergeOutputLayout;
  if (name == "merge-gather-order") return set_enum(&r.merge_gather_order, name, value, {G::swin, G::raster}, error);
  if (name == "merge-output-layout") return set_enum(&r.merge_output_layout, name, value, {O::e60_words, O::token_words}, error);
  if (name == "merge-register-k-order") {
    using K = MergeRegisterK;
    return set_enum(&r.merge_register_k, name, value, {K::raster_token, K::raster_plane, K::swin_token, K::swin_plane}, error);
  }
  if (name == "sigmoid-gate")
    return set_enum(&r.e62_gate, name, value, {E62Gate::logit10, E62Gate::logit11, E62Gate::acc, E62Gate::logit9}, error);
  if (name == "sigmoid-difference") return set_enum(&r.e62_difference, name, value, {E62Difference::gated, E62Difference::sigmoid}, error);
  if (name == "sigmoid-quad-value")
    return set_enum(&r.e62_quad_value, name, value, {E62QuadValue::difference, E62QuadValue::product}, error);
  if (name == "sigmoid-quad-writer") return set_enum(&r.e62_quad_writer, name, value, {E62QuadWriter::even, E62QuadWriter::odd}, error);
  if (name == "sigmoid-inactive-lane")
    return set_enum(&r.e62_inactive_lane, name, value, {E62InactiveLane::zero, E62InactiveLane::own}, error);
  if (name == "sigmoid-alpha") return set_enum(&r.e62_alpha, name, value, {E62Alpha::sigmoids, E62Alpha::zero}, error);
  if (name == "expand-load-order")
    return set_enum(&r.decoder_front.load_order, name, value, {ExpandLoadOrder::natural, ExpandLoadOrder::fragment}, error);
  if (name == "expand-fill") return set_enum(&r.decoder_front.fill, name, value, {ExpandFill::clamp, ExpandFill::zero}, error);
  if (name == "decoder-sampler")
    return set_enum(&r.decoder_final.sampler, name, value, {golden::DecoderSampler::linear, golden::DecoderSampler::point}, error);
  if (name == "decoder-gate-logit")
    return set_enum(&r.decoder_final.gate_logit, name, value, {golden::DecoderGateLogit::raw, golden::DecoderGateLogit::centred}, error);
  if (name == "expand-column-split")
    return set_enum(&r.decoder_front.column_split, name, value, {ExpandColumnSplit::block, ExpandColumnSplit::interleaved}, error);
  if (name == "dec0-output-columns") {
    using D = golden::Dec0Columns;
    return set_enum(&r.decoder_final.dec0_columns, name, value, {D::column_order, D::contiguous, D::tanh_first}, error);
  }
  if (name == "expand-subpixel")
    return set_enum(&r.decoder_front.subpixel, name, value, {ExpandSubpixel::dy_dx, ExpandSubpixel::dx_dy}, error);
  std::string all;
  for (const LayerReadingInfo& i : layer_reading_registry()) all += (all.empty() ? "" : ", ") + i.name;
  if (error) *error = golden::cat("unknown layer reading '", name, "' (", all, ")");
  return false;
}

std::vector<LayerId> reading_layers(std::string_view name) {
  name = canonical_reading_name(name);
  bool layer_reading = false, known = false;
  for (const LayerReadingInfo& i : layer_reading_registry()) layer_reading |= i.name == name;
  for (const ReadingInfo& i : reading_registry()) known |= i.name == name;
  std::vector<LayerId> v;
  if (!layer_reading && !known) return v;
  // The template's readings the decoders' front and final fix or do not consult: E1's skip is
  // always mirrored and always normalised with eps 2^-13 (docs/readings.md §9); the decoder final
  // softmax is over nine logits and sums its taps by a scalar chain (no pairing).
  const bool not_decoder =
      name == "prologue-fill" || name == "prologue-norm" || name == "prologue-eps" || name == "filter-logits" || name == "filter-pairing";
  const bool gated_final = name.rfind("sigmoid-", 0) == 0;
  for (LayerId id : layer_ids()) {
    const LayerSpec& s = layer_spec(id);
    if (!s.runnable) continue;
    if (!layer_reading) {
      // enc1's E32 gathers its logits from registers: no shared records to guard.
      if (name == "filter-record-guard" && (s.final_epilogue == FinalEpilogueKind::kpn_filter_sigmoid_one_warp ||
                                            s.final_epilogue == FinalEpilogueKind::kpn_filter_sigmoid_shared_taps))
        continue;
      if (!(not_decoder && s.front.kind == FrontKind::patch_expand)) v.push_back(id);
    } else if (name == "expand-column-split") {
      if (s.front.kind == FrontKind::patch_expand && s.front.n_per_warp != s.channels) v.push_back(id);  // dec1: two sub-pixels a warp
    } else if (name.rfind("dec0-", 0) == 0) {
      if (s.final_epilogue == FinalEpilogueKind::dec0_output) v.push_back(id);
    } else if (name == "merge-register-k-order") {
      if (s.merge_kind == MergeKind::register_lanes) v.push_back(id);
    } else if (name.rfind("merge-", 0) == 0 ? s.merge_kind == MergeKind::shared_passes  // the register merge stores token words
               : name.rfind("expand-", 0) == 0 || name.rfind("decoder-", 0) == 0 ? s.front.kind == FrontKind::patch_expand
                                                                                 : gated_final && s.gated_final())
      v.push_back(id);
  }
  return v;
}

namespace golden {
namespace {

// Quarter q of a merged token's K: the window offset (dx, dy) of the token it takes.
PixelXY quarter_offset(MergeGatherOrder o, int q) {
  if (o == MergeGatherOrder::swin) return {q >> 1, q & 1};  // x0 = (0,0), x1 = (0,1) (next row), x2 = (1,0), x3
  return {q & 1, q >> 1};
}

}  // namespace

PixelXY merged_token_of_row(MergeKind k, int m) {
  if (k == MergeKind::register_lanes) return {(m & 7) >> 1, 2 * (m >> 3) + (m & 1)};
  return {m & 3, m >> 2};
}

E4Mat register_merge_gather(const BlockContext& ctx, const LayerReadings& lr, const E4Mat& a_last) {
  // The shuffles move the registers E30 (enc0: E20) stores, so the merge's A is made of the words
  // the arena scatter writes, wherever they are (DOC-e0 §3/E20(c)'s pair list: A register 0 of
  // k-slice s of merged row m is the word t that E20 stores at pixel P_s of m's token, register 2
  // word t|4; registers 1 and 3 the same for row m+8): whole tokens under arena-order = natural,
  // k-lo/k-hi halves of two tokens under fragment. Out-of-frame pixels count too (registers, not
  // memory). Which quarter and plane is k-slice s is the reading merge-register-k-order.
  const int c = a_last.cols, planes = c / 32;
  const ArenaOrder order = e60_arena_order(*ctx.readings);
  const layout::APairTable& am = layout::a_element_pair_table();
  // E30's words of the whole window as it would store them: [plane][y][x][word].
  std::vector<std::uint32_t> words(static_cast<std::size_t>(planes) * 64 * 8, 0u);
  auto word_at = [&](int p, int x, int y, int w) -> std::uint32_t& {
    return words[((static_cast<std::size_t>(p) * 8 + static_cast<std::size_t>(y)) * 8 + static_cast<std::size_t>(x)) * 8 +
                 static_cast<std::size_t>(w)];
  };
  for (int z = 0; z < 4; ++z)
    for (int lane = 0; lane < 32; ++lane)
      for (int p = 0; p < planes; ++p)
        for (int o = 0; o < 4; ++o) {
          std::uint32_t w = 0;
          for (int j = 0; j < 4; ++j) {
            const layout::RowK e = am[lane][o][j];
            w |= static_cast<std::uint32_t>(a_last.at(16 * z + e.row, 32 * p + e.k)) << (8 * j);
          }
          const ArenaSlot slot = arena_slot(order, o, lane & 3);
          word_at(p, lane >> 2, 2 * z + slot.row_half, slot.word) = w;
        }
  const MergeRegisterK ko = lr.merge_register_k;
  const bool raster = ko == MergeRegisterK::raster_token || ko == MergeRegisterK::raster_plane;
  const bool token_major = ko == MergeRegisterK::raster_token || ko == MergeRegisterK::swin_token;
  E4Mat m(16, 4 * c);
  for (int s = 0; s < 4 * planes; ++s) {
    const int q = token_major ? s / planes : s % 4, p = token_major ? s % planes : s / 4;
    const int dx = raster ? (q & 1) : (q >> 1), dy = raster ? (q >> 1) : (q & 1);
    for (int lane = 0; lane < 32; ++lane)
      for (int o = 0; o < 4; ++o)
        for (int j = 0; j < 4; ++j) {
          const layout::RowK e = am[lane][o][j];  // row g + 8 (o & 1), k half o >> 1
          const PixelXY mt = merged_token_of_row(MergeKind::register_lanes, e.row);
          const std::uint32_t w = word_at(p, 2 * mt.x + dx, 2 * mt.y + dy, (lane & 3) | (4 * (o >> 1)));
          m.at(e.row, 32 * s + e.k) = static_cast<e4m3_t>(w >> (8 * j));
        }
  }
  return m;
}

E4Mat merge_gather(const LayerReadings& lr, const E4Mat& a_last) {
  const int c = a_last.cols;
  E4Mat m(16, 4 * c);
  for (int row = 0; row < 16; ++row)
    for (int q = 0; q < 4; ++q) {
      const PixelXY d = quarter_offset(lr.merge_gather_order, q);
      const int token = 8 * (2 * (row >> 2) + d.y) + 2 * (row & 3) + d.x;  // window row 8y + x (facts A6)
      for (int k = 0; k < c; ++k) m.at(row, q * c + k) = a_last.at(token, k);
    }
  return m;
}

F16Mat merge_phase(const BlockContext& ctx, const LayerSpec& s, const E4Mat& merged) {
  // Passes of 32 columns r = 32z (+128): DOC4 §3/E60(e) B at W + merge + 640*r + 512*j, j < 20 the
  // k-steps of n-tiles 0/1, j >= 20 those of n-tiles 2/3: element (k, column n) of k-step s at
  // merge + 512*(K/32 * (n>>4) + s) + waddr_in_tile(k, n) (the banded layout of facts C9 with K/32
  // slices). C = the bias of the pass's columns (merge-bias-pass: bias + 2n).
  const Phase& ph = layer_program(s.id).phase(s.merge_phase());
  const int ks = ph.k_steps;
  F16Mat d(16, s.merge_out);
  for (int r = 0; r < 16; ++r)
    for (int n = 0; n < s.merge_out; ++n) d.at(r, n) = ctx.weights->f16_at(layout::record_bias_offset(ph.bias_begin, n));
  BTile b;
  b.cols = s.merge_out;
  b.v.resize(static_cast<std::size_t>(s.merge_out) * 32);
  for (int step = 0; step < ks; ++step) {
    for (int n = 0; n < s.merge_out; ++n)
      for (int k = 0; k < 32; ++k)
        b.v[static_cast<std::size_t>(n) * 32 + k] =
            ctx.weights->byte(ph.weight_begin + 512u * static_cast<std::uint32_t>(ks * (n >> 4) + step) + layout::waddr_in_tile(k, n));
    phase_step(ctx, merged, 32 * step, b, d);
  }
  if (StageRef st = ctx.stage(
          cat("p", ph.number, "d"),
          cat("D of phase ", ph.number, " (the merge), merged rows m = g, g+8: reg 2nt+rh = f16x2 (row g+8rh, cols 8nt+2t, +1), nt 0..",
              s.merge_out / 8 - 1),
          StageKind::merge_d))
    record_tile(*st, 0, d, 0, 0, s.merge_out / 8);
  return d;
}

void merge_store(const BlockContext& ctx, const LayerReadings& lr, const F16Mat& dm, std::span<std::uint8_t> merged_out) {
  const layout::PlaneArena pa{ctx.ex >> 1, ctx.ey >> 1};
  E4Mat q(dm.rows, dm.cols);
  for (int r = 0; r < dm.rows; ++r)
    for (int c = 0; c < dm.cols; ++c) q.at(r, c) = quantise(ctx, dm.at(r, c));
  const int X0 = ctx.x0 >> 1, Y0 = ctx.y0 >> 1;  // DOC4 E61: %r536 = %r1>>1, %r535 = %r3>>1
  // The pass of plane p stores, per lane, the 4 A-fragment words E60 stores per plane (E60(b)'s
  // register -> (row half, word) map: the reading arena-order for arena-words, its `natural` map for
  // token-words), at E61's bases: row g's merged token ((x0>>1) + (g&3), (y0>>1) + (g>>2)), row g+8's
  // (the register merge's E31: merged_token_of_row; its 12 stores per lane, 3 planes x (row g: t,
  // t|4; row g+8: t, t|4), DOC-e1 §3/E31's table with the plane stride %r415 = (ey>>1) 8 (ex>>1)).
  // The register merge's E21/E31 stores each merged token its own words (DOC-e0 §3/E21: the word at
  // row g's base, word t|4, carries n-tile 3 of row g, s16453/s16455; the fragment map puts a row g+8
  // register there): token-words, whatever merge-output-layout says.
  const bool token_words = lr.merge_output_layout == MergeOutputLayout::token_words || ctx.layer().merge_kind == MergeKind::register_lanes;
  const ArenaOrder order = token_words ? ArenaOrder::natural : e60_arena_order(*ctx.readings);
  const layout::APairTable& am = layout::a_element_pair_table();
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, t = lane & 3;
    for (int plane = 0; plane < dm.cols / 32; ++plane)
      for (int o = 0; o < 4; ++o) {
        std::uint32_t w = 0;
        for (int j = 0; j < 4; ++j) {
          const layout::RowK e = am[lane][o][j];
          w |= static_cast<std::uint32_t>(q.at(e.row, 32 * plane + e.k)) << (8 * j);
        }
        const ArenaSlot slot = arena_slot(order, o, t);
        const PixelXY mt = merged_token_of_row(ctx.layer().merge_kind, g + 8 * slot.row_half);
        const int x = X0 + mt.x, y = Y0 + mt.y;
        if (!pa.in_frame(x, y)) continue;
        std::memcpy(merged_out.data() + 4 * pa.word_index(plane, x, y, slot.word), &w, 4);  // little endian
      }
  }
}

F16Mat run_layer_block(const BlockContext& ctx, const LayerReadings& lr, const LayerBlockIo& io) {
  const LayerSpec& s = ctx.layer();
  require_runnable(s.id);
  // The template's parts at the layer's C, heads and chunks (enc5: facts C0; enc4: the same
  // statements and offsets as enc5's, DOC4 §2; enc3 DOC3 §2; enc2 DOC-e2 §2).
  // facts B (the encoders' prologue) or the decoders' front (phase 1 and E1).
  const PrologueOut pro = s.front.kind == FrontKind::patch_expand ? decoder_front(ctx, lr.decoder_front, io.input_arena, io.skip_arena)
                          : s.front.kind == FrontKind::embedding  ? embedding_front(ctx, io.input_arena)
                                                                  : prologue(ctx, io.input_arena);
  const std::vector<HeadOut> heads = attention(ctx, pro.h1);               // stem, score, P V and their epilogues
  if (ctx.last_phase && ctx.last_phase < s.first_projection()) return {};  // a debug stage (facts F2)
  const OutProjOut proj = out_projection(ctx, pro, heads);
  if (ctx.last_phase) return {};
  const E20Out norm = e20_norm(ctx, proj.d20);
  record_norm_stages(ctx, norm);
  const MlpOut m = mlp(ctx, proj.d20, norm);
  const E62Surfaces& out = io.surfaces;
  if (s.final_epilogue == FinalEpilogueKind::dec0_output) {
    // dec0: no arena scatter and no final GEMM (DOC-d0 §4.2/§5: the only global writes are +48, +112
    // and +144, all in E19); E19 reads D19, the last down-projection's D, itself (dec0.md §4).
    const DecoderTextures t =
        io.texture ? DecoderTextures{io.texture, io.texture96, io.texture104, io.scale[0], io.scale[1]} : DecoderTextures{};
    dec0_output(ctx, lr.decoder_final, m.d60, t, out.s112, out.s144, io.output_arena);
    return m.d60;
  }
  const E4Mat a_last = e60_scatter(ctx, m.d60, io.output_arena);  // q8(D): the arena (and the merge's input)
  if (s.merge()) {
    // The staging (E60(c)/(d), E46(c)/(d), E36), the merge phase, its store (E61, E47, E37).
    const E4Mat merged = s.merge_kind == MergeKind::register_lanes ? register_merge_gather(ctx, lr, a_last) : merge_gather(lr, a_last);
    const F16Mat dm = merge_phase(ctx, s, merged);
    merge_store(ctx, lr, dm, io.merged_output);
  }
  // The final phase: A = q8 of the last down-projection's D (final-phase-a); then its epilogue.
  F16Mat d = logits_phase(ctx, a_last, ctx.phase(s.final_phase()), cat("p", s.final_phase(), "d"));
  switch (s.final_epilogue) {
    case FinalEpilogueKind::kpn_filter:
      if (io.texture && out.s112) e61(ctx, d, *io.texture, *out.s112);
      break;
    case FinalEpilogueKind::kpn_filter_sigmoid:
    case FinalEpilogueKind::kpn_filter_sigmoid_one_warp:
    case FinalEpilogueKind::kpn_filter_sigmoid_shared_taps:
      if (io.texture && out.s112 && out.s120 && out.s128) e62(ctx, lr, d, *io.texture, out);
      break;
    case FinalEpilogueKind::decoder_blend:
      if (io.texture && out.s112)
        decoder_final(ctx, lr.decoder_final, d, {io.texture, io.texture96, io.texture104, io.scale[0], io.scale[1]}, *out.s112);
      break;
    default: throw std::logic_error(cat("run_layer_block: ", s.name, "'s final epilogue is not modelled"));
  }
  return d;
}

}  // namespace golden

void run_layer_frame_golden(LayerFrame& f, const Profile& profile, const Readings& r, const LayerReadings& lr, golden::LayerStats* stats,
                            const TraceRequest* trace, Trace* trace_out) {
  run_layer_frame_with(f, profile, r, lr, stats, trace, trace_out,
                       [&lr](const golden::BlockContext& ctx, const golden::LayerBlockIo& io) { golden::run_layer_block(ctx, lr, io); });
}

namespace {

// The frame's checks and outputs: the layer, the input arenas' and the textures' sizes.
const LayerSpec& prepare_layer_frame(LayerFrame& f, golden::E62Surfaces& surfaces) {
  if (f.weights) require_runnable(f.weights->layer());
  if (!f.weights || f.weights->layer() == LayerId::enc5)
    throw std::invalid_argument(golden::cat("run_layer_frame: the weights are not an image of one of ", runnable_layer_names(),
                                            " other than enc5 (enc5 runs through run_frame)"));
  const LayerSpec& s = layer_spec(f.weights->layer());
  const bool decoder = s.front.kind == FrontKind::patch_expand;
  if (f.ex < 1 || f.ey < 1 || (decoder && (f.ex < 2 || f.ey < 2)))
    throw std::invalid_argument(golden::cat("run_layer_frame: the token grid ", f.ex, " x ", f.ey, " is empty",
                                            decoder ? " or has no half-resolution input (the decoders need at least 2 x 2)" : ""));
  const layout::PlaneArena out{f.ex, f.ey, s.k_slices()}, half{f.ex >> 1, f.ey >> 1, s.merge_out / 32};
  // A decoder's input is the lower level's arena at half the extents, K/32 planes (the expand's K).
  const layout::PlaneArena in = decoder ? layout::PlaneArena{f.ex >> 1, f.ey >> 1, s.front.k / 32} : out;
  if (f.input_arena.size() != in.total_bytes())
    throw std::invalid_argument(golden::cat("run_layer_frame: the ", s.name, " input arena has ", f.input_arena.size(), " bytes, not ",
                                            in.total_bytes(), " (", in.planes, " planes at ", in.ex, " x ", in.ey, ")"));
  if (decoder && f.skip_arena.size() != out.total_bytes())
    throw std::invalid_argument(golden::cat("run_layer_frame: the ", s.name, " skip arena (+24) has ", f.skip_arena.size(), " bytes, not ",
                                            out.total_bytes(), " (", out.planes, " planes at ", f.ex, " x ", f.ey, ")"));
  // dec0's +48 is its E19 output, 8 e4m3 bytes a pixel (DOC-d0 §4.2), not a plane arena.
  const bool dec0 = s.final_epilogue == FinalEpilogueKind::dec0_output;
  f.output_arena.assign(dec0 ? static_cast<std::size_t>(f.ex) * static_cast<std::size_t>(f.ey) * 8 : out.total_bytes(), 0);
  // dec0's +144 (sust.p of the tanh values, E19(e)) does not need the textures.
  f.surface144 = dec0 ? SurfaceF32::make(f.ex, f.ey) : SurfaceF32{};
  surfaces.s144 = dec0 ? &f.surface144 : nullptr;
  f.merged_output.assign(s.merge() ? half.total_bytes() : 0, 0);
  auto check_grid_texture = [&](const Texture* t, const char* what) {
    if (t->width != f.ex || t->height != f.ey || t->rgba.size() != static_cast<std::size_t>(f.ex) * static_cast<std::size_t>(f.ey) * 4)
      throw std::invalid_argument(golden::cat("run_layer_frame: the texture ", what, " is ", t->width, " x ", t->height,
                                              ", not the token grid ", f.ex, " x ", f.ey));
  };
  if (f.texture) {
    if (decoder) {
      // +88 is sampled at f32 coordinates scaled by +136: any size (at least one texel).
      if (f.texture->width < 1 || f.texture->height < 1 ||
          f.texture->rgba.size() != static_cast<std::size_t>(f.texture->width) * static_cast<std::size_t>(f.texture->height) * 4)
        throw std::invalid_argument(golden::cat("run_layer_frame: the texture +88 is ", f.texture->width, " x ", f.texture->height,
                                                " with ", f.texture->rgba.size(), " values"));
      if (!f.texture96 || !f.texture104)
        throw std::invalid_argument("run_layer_frame: a decoder's final epilogue needs the textures +96 and +104");
      check_grid_texture(f.texture96, "+96");
      check_grid_texture(f.texture104, "+104");
    } else {
      check_grid_texture(f.texture, "+88");
    }
    // DESC4/DESC3 layer(): the surfaces at the token grid, the third at the halved grid; the
    // decoders write +112 only (DOC-d4 §1.1).
    f.surface112 = Surface::make(f.ex, f.ey);
    surfaces.s112 = &f.surface112;
    if (s.gated_final()) {
      f.surface120 = Surface::make(f.ex, f.ey);
      f.surface128 = Surface::make(f.ex >> 1, f.ey >> 1);
      surfaces = {&f.surface112, &f.surface120, &f.surface128};
    }
  }
  return s;
}

}  // namespace

void run_layer_frame_with(LayerFrame& f, const Profile& profile, const Readings& r, const LayerReadings& lr, golden::LayerStats* stats,
                          const TraceRequest* trace, Trace* trace_out, const LayerBlockRunner& run, const LayerBlockLoop& loop) {
  golden::E62Surfaces surfaces;
  prepare_layer_frame(f, surfaces);
  const Profile p = with_readings(profile, r);
  const abi::GridExtent grid = abi::covering_grid(static_cast<std::uint32_t>(f.ex), static_cast<std::uint32_t>(f.ey),
                                                  static_cast<std::uint32_t>(f.ox), static_cast<std::uint32_t>(f.oy));
  const int gx = static_cast<int>(grid.x), gy = static_cast<int>(grid.y), blocks = gx * gy;
  if (trace && trace_out) {
    trace_out->block_x = trace->block_x;
    trace_out->block_y = trace->block_y;
    trace_out->stages.clear();
  }
  std::vector<golden::LayerStats> block_stats(stats ? static_cast<std::size_t>(blocks) : 0u);
  std::mutex progress_mutex;
  std::int64_t blocks_done = 0;
  auto body = [&](int i) {
    const int cx = i % gx, cy = i / gx;
    golden::BlockContext ctx;
    ctx.profile = &p;
    ctx.readings = &r;
    ctx.weights = f.weights;
    ctx.stats = stats ? &block_stats[static_cast<std::size_t>(i)] : nullptr;
    ctx.ex = f.ex;
    ctx.ey = f.ey;
    ctx.x0 = 8 * cx - f.ox;
    ctx.y0 = 8 * cy - f.oy;
    if (trace && trace_out && trace->block_x == cx && trace->block_y == cy) {
      ctx.trace_request = trace;
      ctx.trace = trace_out;
    }
    const golden::LayerBlockIo io{f.input_arena, f.output_arena, f.merged_output, f.texture, surfaces,
                                  f.skip_arena,  f.texture96,    f.texture104,    f.scale};
    if (ctx.trace)
      golden::run_layer_block(ctx, lr, io);  // the traced block: the golden model records the stages
    else
      run(ctx, io);
    if (f.progress) {
      const std::lock_guard<std::mutex> lock(progress_mutex);
      f.progress(++blocks_done, blocks);
    }
  };
  // Two blocks share a +128 texel only when its quad straddles them (odd origin offset) and more
  // than the quad's top-left pixel writes it (sigmoid-quad-writer = odd).
  const bool shared_texels = lr.e62_quad_writer == E62QuadWriter::odd && ((f.ox | f.oy) & 1);
  if (loop && !shared_texels)
    loop(blocks, body);
  else
    for (int i = 0; i < blocks; ++i) body(i);
  for (const golden::LayerStats& b : block_stats) stats->add(b);
}

}  // namespace rrswin
