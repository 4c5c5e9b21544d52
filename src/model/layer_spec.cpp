// The eleven layer descriptions, in network order. Every number is cited where it is stated;
// docs/readings.md "Layer sources" names the short labels (spec/facts for enc5; d4r's
// kernels/rr/ files for the others: DOC-x = rrswin_<x>_epilogues.md, DESC-x = descriptor_<x>.py,
// REC-x = swin_<x>_recipe.py, HIP-x = rrswin_<x>.hip's header; DOC4/DOC3/DESC4/DESC3 as before),
// and the readings taken where they are open or disagree. "[inf]" marks arithmetic on the docs'
// numbers, never a statement of theirs.
#include "model/layer_spec.hpp"

#include <stdexcept>
#include <string>

#include "model/launch_abi.hpp"

namespace rrswin {
namespace {

// The docs' epilogue statement counts, E1..E<last> ("stmts" of each doc's epilogue summary; -1
// where a doc states none). The template's roles (EpilogueStatements) describe enc3..enc5 only.
// DOC-e0 §2 (E5..E22; the doc does not cover E1..E4)
constexpr std::array<int, 22> kEnc0Epi{-1, -1, -1, -1, 3843, 160, 7, 7, 171, 3838, 55, 887, 709, 64, 600, 64, 600, 64, 600, 414, 157, 608};
// DOC-e1 §2.4
constexpr std::array<int, 32> kEnc1Epi{7,   7,   7,   171, 3843, 264, 7,   7,   7,   7,   171, 3838, 59,  1647, 813, 116,
                                       604, 116, 604, 116, 604,  116, 604, 116, 604, 116, 604, 116,  604, 699,  204, 680};
// DOC-e2 §2.1
constexpr std::array<int, 38> kEnc2Epi{7,  7,   7,  7,   7,  171, 3843, 169, 19, 19,  19, 636, 257, 60,  164, 60,  164, 60,  164,
                                       60, 164, 60, 164, 60, 164, 60,   164, 60, 164, 60, 164, 60,  164, 60,  164, 870, 124, 323};
// DOC-d4 §3
constexpr std::array<int, 62> kDec4Epi{10783, 7,   7,  7,   7,    7,   7,  7,   7,  7,   171, 3844, 274, 27,  27, 27,
                                       27,    27,  27, 27,  1029, 321, 92, 172, 92, 172, 92,  172,  92,  172, 92, 172,
                                       92,    172, 92, 172, 92,   172, 92, 172, 92, 172, 92,  172,  92,  172, 92, 172,
                                       92,    172, 92, 172, 92,   172, 92, 172, 92, 172, 92,  172,  298, 282};
// DOC-d3 §3
constexpr std::array<int, 48> kDec3Epi{8357, 7,   7,  7,   7,  7,   7,  7,   171, 3843, 199, 23,  23, 23,  832, 289,
                                       76,   168, 76, 168, 76, 168, 76, 168, 76,  168,  76,  168, 76, 168, 76,  168,
                                       76,   168, 76, 168, 76, 168, 76, 168, 76,  168,  76,  168, 76, 168, 258, 281};
// DOC-d2 §2
constexpr std::array<int, 38> kDec2Epi{6493, 7,  7,   7,  7,   7,  171, 3843, 169, 19, 19,  19, 636, 257, 60,  164, 60,  164, 60,
                                       164,  60, 164, 60, 164, 60, 164, 60,   164, 60, 164, 60, 164, 60,  164, 60,  164, 208, 286};
// DOC-d1 §2
constexpr std::array<int, 26> kDec1Epi{6549, 7,  7,   7,  171, 3843, 183, 16, 843, 421, 68,  308, 68,
                                       308,  68, 308, 68, 308, 68,   308, 68, 308, 68,  308, 275, 316};
// DOC-d0 §2.1 (the table's epi column)
constexpr std::array<int, 19> kDec0Epi{5515, 7, 171, 3843, 160, 7, 7, 171, 3838, 55, 887, 709, 64, 600, 64, 600, 64, 600, 929};

// The decoders' launch (DOC-d1 §1.1/§4, DOC-d4 §1.1): +8 the lower-resolution input, +24 the skip
// input, +88 the float-coordinate texture, +96/+104 the integer-coordinate textures, +136 the
// v2.f32 coordinate scale, +112 the one surface. No merge.
constexpr LaunchAbi decoder_abi(int shared, std::array<int, 3> grid, std::array<int, 3> block, std::string_view source, int ex, int ey) {
  return LaunchAbi{.skip = 24,
                   .int_textures = {96, 104},
                   .scale = 136,
                   .surfaces = {112, -1, -1},
                   .surface_count = 1,
                   .shared_bytes = shared,
                   .grid = grid,
                   .block = block,
                   .geometry_source = source,
                   .ex = ex,
                   .ey = ey};
}

// The merge layers' launch (DOC4 §1.1/§3, DOC3 §1.1, DOC-e2 §4): +56 the merged output, the
// surfaces +112/+120 at the token grid and +128 at the halved grid.
constexpr LaunchAbi merge_abi(int shared, std::array<int, 3> grid, std::array<int, 3> block, std::string_view source, int ex, int ey) {
  return LaunchAbi{.merged_output = 56,
                   .surfaces = {112, 120, 128},
                   .surface_count = 3,
                   .shared_bytes = shared,
                   .grid = grid,
                   .block = block,
                   .geometry_source = source,
                   .ex = ex,
                   .ey = ey};
}

constexpr LayerSpec enc0_row{
    .id = LayerId::enc0,
    .name = "enc0",
    .entry = "cuda_dldn_engine_swin_enc0_kernel",
    .corpus = "0013-PREPASS_ENTRYPOINT_NAME.ptx",
    .doc = "DOC-e0 (no phase table; DESC-e0 phases())",
    .runnable = true,
    .channels = 32,
    .heads = 2,
    .head_form = HeadForm::serial,  // HIP-e0 header: one warp per 8x8 patch
    .rows_per_warp = 64,
    .chunks = 4,
    // DESC-e0 WEIGHTS: [0, 4096) read by no mma, P1 [4096, 5120) + bias [5120, 5184), P2 [5184,
    // 6208) + bias [6208, 6272); g1 at 6272 (HIP-e0 "activation gains at 6272..6336").
    .front = {.kind = FrontKind::embedding, .k = 32, .n_per_warp = 32, .warps = 1, .unread_bytes = 4096},
    .merge_kind = MergeKind::register_lanes,
    .merge_out = 64,  // P21 16x64x128 (DESC-e0, HIP-e0 band21)
    .final_epilogue = FinalEpilogueKind::kpn_filter_sigmoid_shared_taps,
    .first_mma_statement = 3935,  // DOC-e0 §3/E5 "48 mma (s3935-s3982)": phase 5
    .statement_anchor_phase = 5,
    .epi_column = kEnc0Epi,
    // DESC-e0 GRID/BLOCK, LAYER_PARAMS (1032 bytes); HIP-e0 +304 (the network input, RGBA16F);
    // DOC-e0 §1.1 +40/+48, §3/E21 +56, §3/E22 +112/+120/+128; shared: input_tensor 3200 (HIP-e0) +
    // input_noise 800 (DOC-e0 §3/E22(d)), the total not stated [inf].
    .abi = LaunchAbi{.param_block_bytes = 1032,
                     .input = -1,
                     .merged_output = 56,
                     .texture = -1,
                     .network_input = 304,
                     // rrswin's stand-ins for what the undecoded prologue builds (docs/readings.md §10
                     // "The CUDA port"; cuda/enc0_params.hpp, CudaLayerDims.* checks they are its offsets).
                     .standin_input = 8,
                     .standin_texture = 88,
                     .surfaces = {112, 120, 128},
                     .surface_count = 3,
                     .shared_bytes = 4000,
                     .grid = {161, 93, 1},
                     .block = {32, 1, 1},
                     .geometry_source = "DESC-e0 GRID/BLOCK, HIP-e0 header",
                     .ex = 1280,
                     .ey = 736},
};

constexpr LayerSpec enc1_row{
    .id = LayerId::enc1,
    .name = "enc1",
    .entry = "cuda_dldn_engine_swin_enc1_kernel",
    .corpus = "0014-PREPASS_ENTRYPOINT_NAME.ptx",
    .doc = "DOC-e1 §2.1",
    .runnable = true,
    .channels = 64,
    .heads = 2,
    .head_form = HeadForm::serial,
    .rows_per_warp = 64,
    .chunks = 8,
    .merge_kind = MergeKind::register_lanes,
    .merge_out = 96,  // P31 16x96x256 (DOC-e1 §2.1)
    .final_epilogue = FinalEpilogueKind::kpn_filter_sigmoid_one_warp,
    .first_mma_statement = 8270,  // DOC-e1 §2.1 row 1
    .epi_column = kEnc1Epi,
    // HIP-e1 header: grid (81,47,1), block (32,1,1), 144 bytes, no .shared (REC-e1); DOC-e1 §1.1
    // +8/+40/+48/+56/+80/+88/+112, §3/E32(f) +120/+128.
    .abi = merge_abi(0, {81, 47, 1}, {32, 1, 1}, "HIP-e1 header", 640, 368),
};

constexpr LayerSpec enc2_row{
    .id = LayerId::enc2,
    .name = "enc2",
    .entry = "cuda_dldn_engine_swin_enc2_kernel",
    .corpus = "0015-PREPASS_ENTRYPOINT_NAME.ptx",
    .doc = "DOC-e2 §2.2",
    .runnable = true,
    .channels = 96,
    .heads = 4,
    .chunks = 12,
    .merge_kind = MergeKind::shared_passes,
    .merge_out = 128,  // DOC-e2 §3/E36(e): one 32-column pass per warp, r0 = 32 z, loop bound 128
    .final_epilogue = FinalEpilogueKind::kpn_filter_sigmoid,
    .first_mma_statement = 4621,  // REC-e2 docstring, HIP-e2 header "s4621-s13876"
    .epi_column = kEnc2Epi,
    // DESC-e2 _LAUNCH (measured: "launch 41 24 1 32 1 4 0", 9600 bytes of shared memory, 320x184).
    .abi = merge_abi(9600, {41, 24, 1}, {32, 1, 4},
                     "DESC-e2 _LAUNCH, measured (REC-e2's docstring and HIP-e2's header say grid (161,93,1): the reading "
                     "enc2-grid)",
                     320, 184),
};

constexpr LayerSpec enc3_row{
    .id = LayerId::enc3,
    .name = "enc3",
    .entry = "cuda_dldn_engine_swin_enc3_kernel",
    .corpus = "0016-PREPASS_ENTRYPOINT_NAME.ptx",
    .doc = "DOC3 §2",
    .runnable = true,
    .channels = 128,
    .heads = 4,
    .chunks = 16,
    .merge_kind = MergeKind::shared_passes,
    .merge_out = 160,
    .final_epilogue = FinalEpilogueKind::kpn_filter_sigmoid,
    .first_mma_statement = 6124,  // DOC3 §2 phase 1
    // DOC3 §2 "epi" column: E8 171, E9 3843, E10 199, E11..E13 23, E14 832, E15 289, odd 168,
    // even 76, E46 564, E47 125, E48 323.
    .epi = EpilogueStatements{7, 171, 3843, 199, 23, 832, 289, 168, 76, 564, 125, 323},
    // DESC3 layer(): grid (21,13,1) x (32,1,4) measured from a replay capture, 12800 bytes of
    // shared memory, params 0/8/40/48/56/80/88/112/120/128, texture 160x92.
    .abi = merge_abi(12800, {21, 13, 1}, {32, 1, 4}, "DESC3 layer(): measured from a replay capture", 160, 92),
};

constexpr LayerSpec enc4_row{
    .id = LayerId::enc4,
    .name = "enc4",
    .entry = "cuda_dldn_engine_swin_enc4_kernel",
    .corpus = "0017-PREPASS_ENTRYPOINT_NAME.ptx",
    .doc = "DOC4 §2",
    .runnable = true,
    .channels = 160,
    .heads = 8,
    .chunks = 20,
    .merge_kind = MergeKind::shared_passes,
    .merge_out = 160,
    .final_epilogue = FinalEpilogueKind::kpn_filter_sigmoid,
    .first_mma_statement = 7554,  // DOC4 §2 phase 1
    // DOC4 §2 "epi" column (E60 1381, E61 117, E62 323; phases 1..59 as enc5's).
    .epi = EpilogueStatements{7, 171, 3844, 274, 27, 1029, 321, 172, 92, 1381, 117, 323},
    // DOC4 §1.1/§3 (param+8, +40, +48, +56, +80, +88 via %rd943+8, surfaces at %rd943+32/+40/+48 =
    // +112/+120/+128), DOC4 §1.4 (16384 bytes), DESC4 layer() (grid 11x7x1, token grid 80x46;
    // block: the reading layer-launch-geometry, docs/readings.md §7).
    .abi = merge_abi(16384, {11, 7, 1}, {32, 1, 8},
                     "DESC4 layer(): grid from the recipe, 'not re-measured'; block (32,1,8) is the reading "
                     "layer-launch-geometry (DESC4 says (32,1,4))",
                     80, 46),
};

constexpr LayerSpec enc5_row{
    .id = LayerId::enc5,
    .name = "enc5",
    .entry = abi::kKernelName,
    .corpus = "0018-PREPASS_ENTRYPOINT_NAME.ptx",
    .doc = "spec §2.1",
    .runnable = true,
    .channels = 160,
    .heads = 8,
    .chunks = 20,
    .final_epilogue = FinalEpilogueKind::kpn_filter,
    .first_mma_statement = 7554,  // spec §2.1 phase 1, facts A1
    // spec §2.1 "epi" column and §3.
    .epi = EpilogueStatements{7, 171, 3844, 274, 27, 1029, 321, 172, 92, 299, 0, 234},
    // facts A2 (grid, block), A3 (40 x 23), A4 (offsets: model/launch_abi.hpp, enc5's one place),
    // A8 (16384 bytes of shared memory).
    .abi = LaunchAbi{.param_block_bytes = abi::kParamBlockBytes,
                     .extents = abi::kParamEx,
                     .input = abi::kParamInput,
                     .weights = abi::kParamWeights,
                     .arena = abi::kParamOutput,
                     .origin = abi::kParamOx,
                     .texture = abi::kParamTexture,
                     .surfaces = {abi::kParamSurface, -1, -1},
                     .surface_count = 1,
                     .shared_bytes = 16384,
                     .grid = {5, 3, 1},
                     .block = {abi::kBlockX, abi::kBlockY, abi::kBlockZ},
                     .geometry_source = "facts A2 (HIP5 header, REC5); 8 warps required by the 8 head slots (facts A7)",
                     .ex = 40,
                     .ey = 23},
};

constexpr LayerSpec dec4_row{
    .id = LayerId::dec4,
    .name = "dec4",
    .entry = "cuda_dldn_engine_swin_dec4_kernel",
    .corpus = "0019-PREPASS_ENTRYPOINT_NAME.ptx",
    .doc = "DOC-d4 §2-§4 (rows rebuilt from its epilogue ranges)",
    .runnable = true,
    .channels = 160,
    .heads = 8,
    .chunks = 20,
    // DOC-d4 §2/§4/E11, HIP-d4: P1 48x160x160 per warp, W + 25600 z, 20 seeds at 102400 + 320 z;
    // four warps (the expand's 4C = 640 columns).
    .front = {.kind = FrontKind::patch_expand, .k = 160, .n_per_warp = 160, .warps = 4},
    .final_epilogue = FinalEpilogueKind::decoder_blend,
    .first_mma_statement = 571,  // REC-d4 "cut s571-s24164"
    .epi_column = kDec4Epi,
    // DOC-d4 §0 16384 bytes; HIP-d4/REC-d4 eight waves, z <= 3 after the heads; grid not stated: the
    // enc4 level's (11,7,1) at 80x46 [inf].
    .abi = decoder_abi(16384, {11, 7, 1}, {32, 1, 8}, "block: HIP-d4/REC-d4 (eight waves); grid not stated, enc4's level [inf]", 80, 46),
};

constexpr LayerSpec dec3_row{
    .id = LayerId::dec3,
    .name = "dec3",
    .entry = "cuda_dldn_engine_swin_dec3_kernel",
    .corpus = "0020-PREPASS_ENTRYPOINT_NAME.ptx",
    .doc = "DOC-d3 §2-§4 (rows rebuilt from its epilogue ranges)",
    .runnable = true,
    .channels = 128,
    .heads = 4,
    .chunks = 16,
    // HIP-d3 phase 1: 240 mma, B W + 20480 z, seeds 81920 + 256 z (K = 160, 128 columns per warp).
    .front = {.kind = FrontKind::patch_expand, .k = 160, .n_per_warp = 128, .warps = 4},
    .final_epilogue = FinalEpilogueKind::decoder_blend,
    .first_mma_statement = 543,  // REC-d3: the first mma.sync is s543
    .epi_column = kDec3Epi,
    // DOC-d3 §0 12800 bytes; HIP-d3/REC-d3 blockDim (32,1,4); grid not stated: enc3's level [inf].
    .abi = decoder_abi(12800, {21, 13, 1}, {32, 1, 4}, "block: HIP-d3/REC-d3; grid not stated, enc3's level [inf]", 160, 92),
};

constexpr LayerSpec dec2_row{
    .id = LayerId::dec2,
    .name = "dec2",
    .entry = "cuda_dldn_engine_swin_dec2_kernel",
    .corpus = "0021-PREPASS_ENTRYPOINT_NAME.ptx",
    .doc = "DOC-d2 §5",
    .runnable = true,
    .channels = 96,
    .heads = 4,
    .chunks = 12,
    // DOC-d2 §5 row 1 (W 0..11788 + 12288 z, seeds 49152..49328 + 192 z), REC-d2/HIP-d2 48x96x128.
    .front = {.kind = FrontKind::patch_expand, .k = 128, .n_per_warp = 96, .warps = 4},
    .final_epilogue = FinalEpilogueKind::decoder_blend,
    .first_mma_statement = 452,  // DOC-d2 §5 row 1
    .epi_column = kDec2Epi,
    // HIP-d2 header grid (41,24,1), block (32,1,4); DOC-d2 §1.1 9600 bytes.
    .abi = decoder_abi(9600, {41, 24, 1}, {32, 1, 4}, "HIP-d2 header (DOC-d2 §5 gates E38 to tid.z <= 1)", 320, 184),
};

constexpr LayerSpec dec1_row{
    .id = LayerId::dec1,
    .name = "dec1",
    .entry = "cuda_dldn_engine_swin_dec1_kernel",
    .corpus = "0022-PREPASS_ENTRYPOINT_NAME.ptx",
    .doc = "DOC-d1 §5",
    .runnable = true,
    .channels = 64,
    .heads = 2,
    .rows_per_warp = 32,  // two warps after the heads: 32 rows (2 m-tiles) each (DOC-d1 §5 P8 M = 32)
    .chunks = 8,
    // DOC-d1 §5 row 1 (W 0..11788 + 12288 z, seeds 24576..24816 + 256 z; K = 96 by the k-division,
    // 128 columns per warp: the reading patch-expand-shape).
    .front = {.kind = FrontKind::patch_expand, .k = 96, .n_per_warp = 128, .warps = 2},
    .final_epilogue = FinalEpilogueKind::decoder_blend,
    .first_mma_statement = 403,  // DOC-d1 §5 row 1
    .epi_column = kDec1Epi,
    // DESC-d1 layer(): grid (81,47,1), block (32,1,2); DOC-d1 §1.1 6400 bytes; 640x368 (REC-d1).
    .abi = decoder_abi(6400, {81, 47, 1}, {32, 1, 2}, "DESC-d1 layer(), HIP-d1 header", 640, 368),
};

constexpr LayerSpec dec0_row{
    .id = LayerId::dec0,
    .name = "dec0",
    .entry = "cuda_dldn_engine_swin_dec0_kernel",
    .corpus = "0023-PREPASS_ENTRYPOINT_NAME.ptx",
    .doc = "DOC-d0 §2.1",
    .runnable = true,
    .channels = 32,
    .heads = 2,
    .head_form = HeadForm::serial,
    .rows_per_warp = 64,
    .chunks = 4,
    // DOC-d0 §2.1 row 1: W 0..7692, seeds 8192..8432, no tid.z (48x128x64).
    .front = {.kind = FrontKind::patch_expand, .k = 64, .n_per_warp = 128, .warps = 1},
    .final_epilogue = FinalEpilogueKind::dec0_output,
    .final_gemm = false,         // DOC-d0 §2.1: 19 phases, E19 reads phase 19 (the 4th down-projection)
    .first_mma_statement = 326,  // DOC-d0 §2.1 row 1
    .epi_column = kDec0Epi,
    // DESC-d0 layer(), HIP-d0: grid (161,93,1), block (32,1,1), 152 bytes; DOC-d0 §4: +48 the e4m3
    // output (st.global.v4.u16), +112 sust.b, +144 sust.p; 3200 bytes of shared memory (DOC-d0 §0).
    .abi = LaunchAbi{.param_block_bytes = 152,
                     .skip = 24,
                     .int_textures = {96, 104},
                     .scale = 136,
                     .surfaces = {112, 144, -1},
                     .surface_count = 2,
                     .shared_bytes = 3200,
                     .grid = {161, 93, 1},
                     .block = {32, 1, 1},
                     .geometry_source = "DESC-d0 layer(), HIP-d0 header",
                     .ex = 1280,
                     .ey = 736},
};

// One row per layer in model/layers.def's order: kRows[i] is LayerId i.
constexpr std::array<const LayerSpec*, kLayerCount> kRows{
#define RRSWIN_LAYER(name, corpus) &name##_row,
#include "model/layers.def"
#undef RRSWIN_LAYER
};

// The rows are data, checked where they are compiled: each at its own index, the MLP's 4C / 32
// chunks, a merge's channel count, the docs' epilogue column one entry per phase.
constexpr bool rows_consistent() {
  for (int i = 0; i < kLayerCount; ++i) {
    const LayerSpec& s = *kRows[static_cast<std::size_t>(i)];
    if (static_cast<int>(s.id) != i || s.chunks != 4 * s.channels / 32 || s.merge() != (s.merge_out > 0)) return false;
    if (!s.epi_column.empty() && static_cast<int>(s.epi_column.size()) != s.phase_count()) return false;
    if (s.window_tokens % s.rows_per_warp != 0 || (s.serial_heads() && s.rows_per_warp != s.window_tokens)) return false;
  }
  return true;
}
static_assert(rows_consistent(), "a layer row contradicts itself (model/layer_spec.cpp)");

constexpr std::array<int, kLayerCount> kCorpus{
#define RRSWIN_LAYER(name, corpus) corpus,
#include "model/layers.def"
#undef RRSWIN_LAYER
};

std::string join_names(bool runnable_only) {
  std::string s;
  for (const LayerSpec* r : kRows)
    if (!runnable_only || r->runnable) s += (s.empty() ? "" : ", ") + std::string(r->name);
  return s;
}

}  // namespace

const LayerSpec& layer_spec(LayerId id) {
  const auto i = static_cast<std::size_t>(id);
  if (i >= kRows.size()) throw std::out_of_range("layer_spec: no layer " + std::to_string(i));
  return *kRows[i];
}

const std::array<LayerId, kLayerCount>& layer_ids() {
  static constexpr std::array<LayerId, kLayerCount> ids{
#define RRSWIN_LAYER(name, corpus) LayerId::name,
#include "model/layers.def"
#undef RRSWIN_LAYER
  };
  return ids;
}

bool parse_layer(std::string_view name, LayerId* id) {
  for (LayerId l : layer_ids())
    if (name == to_string(l)) {
      *id = l;
      return true;
    }
  return false;
}

std::string_view to_string(LayerId id) { return layer_spec(id).name; }

int corpus_number(LayerId id) { return kCorpus.at(static_cast<std::size_t>(id)); }

std::string_view layer_names() {
  static const std::string s = join_names(false);
  return s;
}

std::string_view runnable_layer_names() {
  static const std::string s = join_names(true);
  return s;
}

std::string_view to_string(FinalEpilogueKind k) {
  switch (k) {
    case FinalEpilogueKind::kpn_filter: return "kpn_filter";
    case FinalEpilogueKind::kpn_filter_sigmoid: return "kpn_filter_sigmoid";
    case FinalEpilogueKind::kpn_filter_sigmoid_one_warp: return "kpn_filter_sigmoid_one_warp";
    case FinalEpilogueKind::kpn_filter_sigmoid_shared_taps: return "kpn_filter_sigmoid_shared_taps";
    case FinalEpilogueKind::decoder_blend: return "decoder_blend";
    case FinalEpilogueKind::dec0_output: return "dec0_output";
  }
  return "?";
}

void require_runnable(LayerId id) {
  const LayerSpec& s = layer_spec(id);
  if (s.runnable) return;
  throw std::invalid_argument(std::string(s.name) + " does not run yet: rrswin runs " + std::string(runnable_layer_names()) +
                              " (rrswin inspect --layer " + std::string(s.name) + " prints its phase table and weight map)");
}

std::string launch_parameters_text(const LaunchAbi& a) {
  std::string t;
  auto add = [&t](int off, const char* role) {
    if (off >= 0) t += (t.empty() ? "+" : ", +") + std::to_string(off) + " " + role;
  };
  add(a.extents, "extents");
  add(a.input, "input");
  add(a.skip, "skip input");
  add(a.weights, "W");
  add(a.arena, "output arena");
  add(a.merged_output, "merged output");
  add(a.origin, "origin");
  add(a.texture, "texture");
  add(a.int_textures[0], "texture");
  add(a.int_textures[1], "texture");
  add(a.scale, "coordinate scale");
  add(a.network_input, "network input");
  add(a.standin_input, "staged input tensor (rrswin's stand-in)");
  add(a.standin_texture, "input_noise texture (rrswin's stand-in)");
  for (int i = 0; i < a.surface_count; ++i) add(a.surfaces[static_cast<std::size_t>(i)], "surface");
  return t;
}

std::string_view to_string(HeadForm f) { return f == HeadForm::serial ? "serial" : "warp_per_head"; }

std::string_view to_string(FrontKind k) {
  switch (k) {
    case FrontKind::none: return "none";
    case FrontKind::embedding: return "embedding";
    case FrontKind::patch_expand: return "patch_expand";
  }
  return "?";
}

std::string_view to_string(MergeKind k) {
  switch (k) {
    case MergeKind::none: return "none";
    case MergeKind::shared_passes: return "shared_passes";
    case MergeKind::register_lanes: return "register_lanes";
  }
  return "?";
}

}  // namespace rrswin
