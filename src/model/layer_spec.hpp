// The network's layers as data (issue 21, issue 32): one description per Swin layer kernel, enc0..enc5
// and dec4..dec0 (model/layers.def, network order). enc5 (the first spec) is the first instance of
// the template, enc4 and enc3 the next; the other eight rows are d4r's public docs of those kernels
// (../shared/spec/rr_network_layers.md maps them; the rows cite d4r's files themselves). Sources:
// for enc5 the spec (rrswin_enc5_epilogues.md, facts); for the others d4r's kernels/rr/ files,
// facts only (docs/readings.md "Layer sources" names each short label: DOC4, DOC3, DESC4, ...).
//
// What is here is what the docs state or what follows from their numbers by the layout formulas
// (WeightMap); what they leave open or state inconsistently is a named reading, never a silent
// choice. The phase program built from a description is model/layer_program.hpp.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/hd.hpp"

namespace rrswin {

enum class LayerId {
#define RRSWIN_LAYER(name, corpus) name,
#include "model/layers.def"
#undef RRSWIN_LAYER
};
inline constexpr int kLayerCount = 0
#define RRSWIN_LAYER(name, corpus) +1
#include "model/layers.def"
#undef RRSWIN_LAYER
    ;

// How the attention runs (rr_network_layers.md §2): one warp per head (block (32,1,H): enc2..enc5,
// dec1..dec4), or both heads one after the other in a single warp over all 64 rows (block (32,1,1):
// enc0, enc1, dec0), head 1's output projection accumulating on head 0's.
enum class HeadForm { warp_per_head, serial };

// What runs before the attention's stem phases.
enum class FrontKind {
  none,          // the prologue gathers the input arena (+8) and normalises it (g1 at W+0)
  embedding,     // enc0: two 96x32x32 GEMMs with biases, relu requantisation between them
  patch_expand,  // the decoders: phase 1 expands the lower-resolution input (+8), E1 adds the skip (+24)
};

// The front's GEMMs and where the template's weights start (B0: g1 sits at [B0, B0 + 2C)).
struct Front {
  FrontKind kind = FrontKind::none;
  int k = 0;             // patch expand: the input's channels (the GEMM's K); embedding: 32
  int n_per_warp = 0;    // patch expand: output columns per warp (4C / warps); embedding: 32
  int warps = 0;         // warps that run the front GEMM
  int unread_bytes = 0;  // bytes before the front's weights that no mma reads (enc0: 4096)
  constexpr int phases() const { return kind == FrontKind::embedding ? 2 : kind == FrontKind::patch_expand ? 1 : 0; }
  // Bytes of the front's weights and seeds: patch expand K x N + N f16 seeds per warp; embedding
  // two 32x32 tiles, each followed by its 32 f16 biases.
  constexpr std::uint32_t bytes() const {
    if (kind == FrontKind::patch_expand) return static_cast<std::uint32_t>(warps * (k * n_per_warp + 2 * n_per_warp));
    if (kind == FrontKind::embedding) return static_cast<std::uint32_t>(unread_bytes + 2 * (32 * 32 + 64));
    return 0;
  }
};

// The patch merge after the MLP (2x2 tokens -> one, K = 4C -> merge_out channels at halved extents).
enum class MergeKind {
  none,            // the decoders, enc5
  shared_passes,   // enc2..enc4: the merged tokens staged in shared memory, 32-column passes per warp
  register_lanes,  // enc0, enc1: the A operand built in registers by 8-lane shfl pairs
};

// The final epilogue after the last GEMM phase.
enum class FinalEpilogueKind {
  kpn_filter,                      // enc5's E61: 3x3 texture stencil, f32 softmax, one surface (+112)
  kpn_filter_sigmoid,              // enc4's E62 / enc3's E48 / enc2's E38: the same core, one more texel, the
                                   // (acc - sigmoid(acc))*0.25 term, shfl.sync.down, surfaces +112/+120/+128
  kpn_filter_sigmoid_one_warp,     // enc1's E32: the same mathematics, rows gathered by selp + shfl.idx
  kpn_filter_sigmoid_shared_taps,  // enc0's E22: as enc1's, the taps read from shared input_noise
  decoder_blend,                   // dec1..dec4: the softmax core, float-coordinate taps at +88 scaled by +136, taps
                                   // at +96/+104, a sigmoid blend, a NaN guard, one surface (+112)
  dec0_output,                     // dec0's E19: e4m3 output to +48, a tanh-like f32 function to +144, the blend
};

// The launch as the kernel sees it: parameter block offsets (bytes from param_0; -1 where the kernel
// has no such parameter), shared memory, launch geometry.
struct LaunchAbi {
  int param_block_bytes = 144;              // 144; 152 (dec0); 1032 (enc0)
  int extents = 0;                          // u32 (ex, ey)
  int input = 8;                            // the previous layer's output (read)
  int skip = -1;                            // the decoders: the encoder of the same level's arena (read)
  int weights = 40;                         // the prepared weight image W
  int arena = 48;                           // the output plane arena (the encoders' scatter; the decoders' output)
  int merged_output = -1;                   // the patch merge's output (param+56), -1 without a merge
  int origin = 80;                          // u16 (ox, oy) block-origin offsets
  int texture = 88;                         // tex.base.2d texture object (the final epilogue's taps)
  std::array<int, 2> int_textures{-1, -1};  // the decoders' integer-coordinate textures (+96, +104)
  int scale = -1;                           // the decoders' v2.f32 coordinate scale (+136)
  int network_input = -1;                   // enc0: the network's input (+304)
  // rrswin's stand-ins, not the original's ABI: where rrswin's captures and CUDA port of a layer whose
  // prologue no source decodes (enc0: +304 -> input_tensor, input_noise; docs/readings.md §10 "The CUDA
  // port") hold what that prologue builds, at offsets the original's block leaves unused (input and
  // texture are -1 there). Read through capture_input / capture_texture below; -1: none.
  int standin_input = -1;                   // enc0: +8, the staged input tensor (a one-plane arena at the token grid)
  int standin_texture = -1;                 // enc0: +88, a texture at the token grid standing for input_noise
  std::array<int, 3> surfaces{-1, -1, -1};  // sust surface objects, `surface_count` of them
  int surface_count = 0;
  int shared_bytes = 0;     // the one __shared__ array ("_ZZ...E4smem")
  std::array<int, 3> grid;  // at the layer's real token grid
  std::array<int, 3> block;
  std::string_view geometry_source;  // where grid/block come from (a reading where unverified)
  int ex, ey;                        // the real token grid (the extents at param+0) at a 1280x720 render
};

// The offsets at which a capture of the layer (rrswin capture / replay / settle --layer, the network
// capture) holds its input and its grid texture: the ABI's own, else rrswin's stand-ins (enc0's +8,
// +88), else -1. has_standins: the layer's captures use rrswin's stand-ins (enc0).
constexpr int capture_input(const LaunchAbi& a) { return a.input >= 0 ? a.input : a.standin_input; }
constexpr int capture_texture(const LaunchAbi& a) { return a.texture >= 0 ? a.texture : a.standin_texture; }
constexpr bool has_standins(const LaunchAbi& a) { return a.input < 0 && a.standin_input >= 0; }

// Statement counts of the epilogues ("epi" column of the phase tables; an epilogue is everything
// between one phase's last mma and the next phase's first, spec §0 / DOC4 §0 / DOC3 §0). They are
// per-layer facts of the PTX, not derivable from C or H. The template's roles (enc3..enc5); a layer
// whose epilogues do not follow these roles gives the docs' column itself (LayerSpec::epi_column).
struct EpilogueStatements {
  int next_b;      // stem epilogues (E1..E9 of enc5): next-B loads only
  int score_prep;  // after the last stem phase: the score phase's C seeds and packs
  int softmax;     // after the score phase
  int pv;          // after P V: shared staging, T1 + residual
  int proj_next;   // after each projection phase but the last
  int norm;        // after the last projection phase: the RMS norm
  int first_act;   // after the first up-projection: activation + T3 table add
  int up_act;      // after every later up-projection: activation
  int down_next;   // after every down-projection but the last
  int last_down;   // after the last down-projection: the arena scatter (and the merge's staging)
  int merge;       // after the merge phase (0 without a merge)
  int final_epi;   // the final epilogue
};

struct LayerSpec {
  LayerId id;
  std::string_view name;    // "enc5"
  std::string_view entry;   // the PTX entry
  std::string_view corpus;  // the corpus file that holds it (d4r's numbering)
  std::string_view doc;     // the document whose phase table the program reproduces
  bool runnable = false;    // the golden model and the engine run it (else a clear error)
  int channels;             // C
  int heads;                // H
  HeadForm head_form = HeadForm::warp_per_head;
  int rows_per_warp = 16;  // rows of the projection / MLP / final phases per warp: 16, 32 (dec1), 64 (serial)
  int head_dim = 32;
  int window_tokens = 64;  // 8x8
  int tokens = 96;         // window + halo rows
  int chunks;              // MLP chunks of 32 hidden channels: 4C / 32
  Front front{};
  MergeKind merge_kind = MergeKind::none;
  int merge_out = 0;  // the merged channel count (0 without a merge)
  FinalEpilogueKind final_epilogue;
  bool final_gemm = true;          // a final phase (the logits) after the MLP / merge; dec0 has none
  int logits = 16;                 // the final phase's N
  int first_mma_statement;         // the statement index of the anchor phase's first mma (0: not stated)
  int statement_anchor_phase = 1;  // the first phase whose statements a doc states (enc0: 5)
  EpilogueStatements epi{};
  std::span<const int> epi_column{};  // the docs' per-phase epilogue counts, where the roles do not fit
  LaunchAbi abi;

  constexpr bool merge() const { return merge_kind != MergeKind::none; }
  constexpr bool serial_heads() const { return head_form == HeadForm::serial; }
  // The gated final epilogues (E62's mathematics: surfaces +112/+120 and the half-resolution +128).
  constexpr bool gated_final() const {
    return final_epilogue == FinalEpilogueKind::kpn_filter_sigmoid || final_epilogue == FinalEpilogueKind::kpn_filter_sigmoid_one_warp ||
           final_epilogue == FinalEpilogueKind::kpn_filter_sigmoid_shared_taps;
  }
  // Warps after the attention (facts A7: enc5's z >= 4 exit after E12): 64 rows / rows per warp.
  constexpr int mlp_warps() const { return window_tokens / rows_per_warp; }

  // The phase numbering (1-based), from the list of parts: [front] -> attention -> projections ->
  // MLP -> [merge] -> [final]. With one warp per head the attention is stem x 2C/32, score, P V
  // (each warp its head) and then the H projections; with serial heads each head runs its stem,
  // score, P V and projection in turn.
  constexpr int k_slices() const { return channels / 32; }      // stem k-steps
  constexpr int stem_phases() const { return 2 * k_slices(); }  // Q/V chains (per head)
  constexpr int front_phases() const { return front.phases(); }
  constexpr int head_block() const { return stem_phases() + 3; }  // serial: stem, score, P V, projection
  constexpr int first_stem(int h = 0) const { return front_phases() + 1 + (serial_heads() ? h * head_block() : 0); }
  constexpr int score_phase(int h = 0) const { return first_stem(h) + stem_phases(); }
  constexpr int pv_phase(int h = 0) const { return score_phase(h) + 1; }
  constexpr int projection_phase(int h) const { return serial_heads() ? pv_phase(h) + 1 : pv_phase() + 1 + h; }
  constexpr int first_projection() const { return projection_phase(0); }
  constexpr int last_projection() const { return projection_phase(heads - 1); }
  constexpr int first_mlp() const { return last_projection() + 1; }
  constexpr int last_mlp() const { return last_projection() + 2 * chunks; }
  constexpr int merge_phase() const { return merge() ? last_mlp() + 1 : 0; }
  constexpr int final_phase() const { return final_gemm ? last_mlp() + (merge() ? 2 : 1) : 0; }
  constexpr int phase_count() const { return last_mlp() + (merge() ? 1 : 0) + (final_gemm ? 1 : 0); }
};

// The weight image's layout as formulas in C and H (issue 21; facts E4 for enc5, checked against
// every offset the layers' docs print): the front's weights (B0 bytes), then the 2C-byte g1, then
// H head slots of 96C + 12288 bytes, the tables T1/g2 at B0 + H*slot + 2C / + 4C, the first
// up-projection at + 6C, MLP chunks of W1 (32C) + b1 (64) + W2 (32C) with T3 (2C) between chunk 0
// and chunk 1, then (merge layers) the merge weights (merge_out columns of 4C bytes) and bias
// (merge_out f16), then the final phase's C/32 weight tiles and two bias records. Absolute byte
// offsets in W. RRSWIN_HD: the CUDA ports (src/cuda/layer_dims.hpp) compute their weight addresses
// with these same functions.
struct WeightMap {
  std::uint32_t c, h, chunks, merge_out;  // merge_out = 0: no merge
  std::uint32_t b0 = 0;                   // the front's bytes: where g1 starts
  bool final_gemm = true;
  RRSWIN_HD constexpr std::uint32_t g1() const { return b0; }
  RRSWIN_HD constexpr std::uint32_t slot_bytes() const { return 96 * c + 12288; }
  RRSWIN_HD constexpr std::uint32_t head_base(int z) const { return b0 + 2 * c + slot_bytes() * static_cast<std::uint32_t>(z); }
  RRSWIN_HD constexpr std::uint32_t wq(int z) const { return head_base(z); }  // C/32 k-steps x 1024
  RRSWIN_HD constexpr std::uint32_t wv(int z) const { return head_base(z) + 32 * c; }
  RRSWIN_HD constexpr std::uint32_t score_bias(int z) const { return head_base(z) + 64 * c; }  // 24 x 512
  RRSWIN_HD constexpr std::uint32_t wo(int z) const { return head_base(z) + 64 * c + 12288; }  // 32 x C
  RRSWIN_HD constexpr std::uint32_t t1() const { return b0 + 2 * c + h * slot_bytes(); }
  RRSWIN_HD constexpr std::uint32_t g2() const { return t1() + 2 * c; }
  RRSWIN_HD constexpr std::uint32_t chunk_stride() const { return 64 * c + 64; }
  RRSWIN_HD constexpr std::uint32_t w1(int k) const {
    return t1() + 4 * c + chunk_stride() * static_cast<std::uint32_t>(k) + (k > 0 ? 2 * c : 0);
  }
  RRSWIN_HD constexpr std::uint32_t b1(int k) const { return w1(k) + 32 * c; }  // 32 f16 records
  RRSWIN_HD constexpr std::uint32_t w2(int k) const { return b1(k) + 64; }      // 32 x C
  RRSWIN_HD constexpr std::uint32_t t3() const { return w2(0) + 32 * c; }
  RRSWIN_HD constexpr std::uint32_t mlp_end() const { return w2(static_cast<int>(chunks) - 1) + 32 * c; }
  RRSWIN_HD constexpr std::uint32_t merge_weights() const { return mlp_end(); }  // merge_out x 4C
  RRSWIN_HD constexpr std::uint32_t merge_bias() const { return merge_weights() + merge_out * 4 * c; }
  RRSWIN_HD constexpr std::uint32_t final_weights() const { return merge_out ? merge_bias() + 2 * merge_out : mlp_end(); }
  RRSWIN_HD constexpr std::uint32_t final_bias() const { return final_weights() + 512 * (c / 32); }
  // The image ends with lane t = 3's u32 of the final phase's second bias record (the reading
  // "weight-image-size" of docs/readings.md §4, for every layer); without a final phase (dec0) it
  // ends with the last down-projection's weights.
  RRSWIN_HD constexpr std::uint32_t image_bytes() const { return final_gemm ? final_bias() + 32 : mlp_end(); }
  // What d4r's tool reports (its largest immediate + 4, the per-lane term dropped): the second bias
  // record's load, or (no final phase) the last down-projection's last v4 load + 12.
  RRSWIN_HD constexpr std::uint32_t tool_extent() const { return final_gemm ? final_bias() + 16 + 4 : mlp_end() - 512 + 12 + 4; }
};

// One row per layer, in network order (layer_ids()). Every layer has a row: a layer the golden model
// does not run yet says so (runnable = false) and the commands refuse it with a clear error.
const LayerSpec& layer_spec(LayerId id);
// The eleven layers in network order (enc0..enc5, dec4..dec0: model/layers.def).
const std::array<LayerId, kLayerCount>& layer_ids();
constexpr WeightMap weight_map(const LayerSpec& s) {
  return WeightMap{static_cast<std::uint32_t>(s.channels),
                   static_cast<std::uint32_t>(s.heads),
                   static_cast<std::uint32_t>(s.chunks),
                   static_cast<std::uint32_t>(s.merge() ? s.merge_out : 0),
                   s.front.bytes(),
                   s.final_gemm};
}
// "enc0" .. "dec0" -> the id; false for another name.
bool parse_layer(std::string_view name, LayerId* id);
std::string_view to_string(LayerId id);
std::string_view to_string(FinalEpilogueKind k);
std::string_view to_string(HeadForm f);
std::string_view to_string(FrontKind k);
std::string_view to_string(MergeKind k);
// "enc0, enc1, ..., dec0": the names for an error message or a usage text.
std::string_view layer_names();
// The names of the layers that run, e.g. "enc3, enc4, enc5".
std::string_view runnable_layer_names();
// The corpus file number of a layer (13..23, model/layers.def).
int corpus_number(LayerId id);
// Throws std::invalid_argument naming the layer and the layers that run when `id`'s row does not
// run yet (its tables exist: rrswin inspect --layer prints them).
void require_runnable(LayerId id);
// The parameters a launch reads and writes, by role: "+0 extents, +8 input, ..., surfaces +112/+120".
std::string launch_parameters_text(const LaunchAbi& a);

}  // namespace rrswin
