// The Swin encoder layer template as data (issue 21): one description per layer kernel of the same
// template at another size, enc5 (the kernel this project implements) its first instance, enc4 and
// enc3 the next. Sources: for enc5 the spec (rrswin_enc5_epilogues.md, facts); for enc4/enc3 d4r's
// public docs, facts only (docs/readings.md §7 cites each one: "DOC4", "DOC3", "DESC4", "DESC3").
//
// What is here is what the docs state or what follows from their numbers by the layout formulas
// (WeightMap); what they leave open or state inconsistently is a named reading of §7, never a
// silent choice. The phase program built from a description is model/layer_program.hpp.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>

namespace rrswin {

enum class LayerId { enc3, enc4, enc5 };

// The final epilogue after the last GEMM phase.
enum class FinalEpilogueKind {
  kpn_filter,          // enc5's E61: 3x3 texture stencil, f32 softmax, one surface (+112)
  kpn_filter_sigmoid,  // enc4's E62 / enc3's E48: the same core, one more texel, the
                       // (acc - sigmoid(acc))*0.25 term, shfl.sync.down, surfaces +112/+120/+128
};

// The launch as the kernel sees it: parameter block offsets (bytes from param_0, facts A4 for
// enc5; DOC4 §1.1, DOC3 §1.1, DESC3 layer() for enc4/enc3), shared memory, launch geometry.
struct LaunchAbi {
  int param_block_bytes;        // 144 for all three (facts A4, DESC3, DESC4)
  int extents;                  // u32 (ex, ey)
  int input;                    // the previous layer's plane arena (read)
  int weights;                  // the prepared weight image W
  int arena;                    // the output plane arena (E60 / E46 scatter)
  int merged_output;            // the patch merge's output (param+56), -1 without a merge
  int origin;                   // u16 (ox, oy) block-origin offsets
  int texture;                  // tex.base.2d texture object
  std::array<int, 3> surfaces;  // sust.b.2d surface objects, `surface_count` of them
  int surface_count;
  int shared_bytes;         // the one __shared__ array ("_ZZ...E4smem")
  std::array<int, 3> grid;  // at the layer's real token grid
  std::array<int, 3> block;
  std::string_view geometry_source;  // where grid/block come from (a reading where unverified)
  int ex, ey;                        // the real token grid (the extents at param+0)
};

// Statement counts of the epilogues ("epi" column of the phase tables; an epilogue is everything
// between one phase's last mma and the next phase's first, spec §0 / DOC4 §0 / DOC3 §0). They are
// per-layer facts of the PTX, not derivable from C or H.
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
  int channels;             // C
  int heads;                // H (one warp per head in the attention phases)
  int head_dim;             // 32
  int window_tokens;        // 64 (8x8)
  int tokens;               // 96 (window + halo rows)
  int chunks;               // MLP chunks of 32 hidden channels: 4C / 32
  bool merge;               // a patch merge (2x2 tokens -> one, 4C -> merge_out channels)
  int merge_out;            // the merged channel count (0 without a merge)
  FinalEpilogueKind final_epilogue;
  int logits;               // the final phase's N (16)
  int first_mma_statement;  // the statement index of phase 1's first mma
  EpilogueStatements epi;
  LaunchAbi abi;

  // The phase numbering of the template (1-based).
  constexpr int k_slices() const { return channels / 32; }      // stem k-steps
  constexpr int stem_phases() const { return 2 * k_slices(); }  // Q/V chains
  constexpr int score_phase() const { return stem_phases() + 1; }
  constexpr int pv_phase() const { return stem_phases() + 2; }
  constexpr int first_projection() const { return pv_phase() + 1; }
  constexpr int last_projection() const { return pv_phase() + heads; }
  constexpr int first_mlp() const { return last_projection() + 1; }
  constexpr int last_mlp() const { return last_projection() + 2 * chunks; }
  constexpr int merge_phase() const { return merge ? last_mlp() + 1 : 0; }
  constexpr int final_phase() const { return last_mlp() + (merge ? 2 : 1); }
  constexpr int phase_count() const { return final_phase(); }
};

// The weight image's layout as formulas in C and H (issue 21; facts E4 for enc5, checked against
// every offset DOC4 §2 and DOC3 §2 print): eight (or H) head slots of 96C + 12288 bytes after the
// 2C-byte g1, the tables T1/g2 at H*slot + 2C / + 4C, the first up-projection at + 6C, MLP chunks
// of W1 (32C) + b1 (64) + W2 (32C) with T3 (2C) between chunk 0 and chunk 1, then (merge layers)
// the merge weights (merge_out columns of 4C bytes) and bias (merge_out f16), then the final
// phase's C/32 weight tiles and two bias records. Absolute byte offsets in W.
struct WeightMap {
  std::uint32_t c, h, chunks, merge_out;  // merge_out = 0: no merge
  constexpr std::uint32_t g1() const { return 0; }
  constexpr std::uint32_t slot_bytes() const { return 96 * c + 12288; }
  constexpr std::uint32_t head_base(int z) const { return 2 * c + slot_bytes() * static_cast<std::uint32_t>(z); }
  constexpr std::uint32_t wq(int z) const { return head_base(z); }  // C/32 k-steps x 1024
  constexpr std::uint32_t wv(int z) const { return head_base(z) + 32 * c; }
  constexpr std::uint32_t score_bias(int z) const { return head_base(z) + 64 * c; }  // 24 x 512
  constexpr std::uint32_t wo(int z) const { return head_base(z) + 64 * c + 12288; }  // 32 x C
  constexpr std::uint32_t t1() const { return 2 * c + h * slot_bytes(); }
  constexpr std::uint32_t g2() const { return t1() + 2 * c; }
  constexpr std::uint32_t chunk_stride() const { return 64 * c + 64; }
  constexpr std::uint32_t w1(int k) const { return t1() + 4 * c + chunk_stride() * static_cast<std::uint32_t>(k) + (k > 0 ? 2 * c : 0); }
  constexpr std::uint32_t b1(int k) const { return w1(k) + 32 * c; }  // 32 f16 records
  constexpr std::uint32_t w2(int k) const { return b1(k) + 64; }      // 32 x C
  constexpr std::uint32_t t3() const { return w2(0) + 32 * c; }
  constexpr std::uint32_t mlp_end() const { return w2(static_cast<int>(chunks) - 1) + 32 * c; }
  constexpr std::uint32_t merge_weights() const { return mlp_end(); }  // merge_out x 4C
  constexpr std::uint32_t merge_bias() const { return merge_weights() + merge_out * 4 * c; }
  constexpr std::uint32_t final_weights() const { return merge_out ? merge_bias() + 2 * merge_out : mlp_end(); }
  constexpr std::uint32_t final_bias() const { return final_weights() + 512 * (c / 32); }
  // The image ends with lane t = 3's u32 of the final phase's second bias record (the reading
  // "weight-image-size" of docs/readings.md §4, for every layer).
  constexpr std::uint32_t image_bytes() const { return final_bias() + 32; }
  // What d4r's tool reports (its largest immediate + 4, the per-lane term dropped).
  constexpr std::uint32_t tool_extent() const { return final_bias() + 16 + 4; }
};

const LayerSpec& layer_spec(LayerId id);
// The three layers in the corpus' order (enc3, enc4, enc5).
const std::array<LayerId, 3>& layer_ids();
constexpr WeightMap weight_map(const LayerSpec& s) {
  return WeightMap{static_cast<std::uint32_t>(s.channels), static_cast<std::uint32_t>(s.heads), static_cast<std::uint32_t>(s.chunks),
                   static_cast<std::uint32_t>(s.merge ? s.merge_out : 0)};
}
// "enc3" / "enc4" / "enc5" -> the id; false for another name.
bool parse_layer(std::string_view name, LayerId* id);
std::string_view to_string(LayerId id);
std::string_view to_string(FinalEpilogueKind k);

}  // namespace rrswin
