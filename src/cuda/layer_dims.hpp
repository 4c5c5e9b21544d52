// The layers the CUDA parts are instantiated for, as compile-time descriptions (issue 37): the facts
// of a layer row of model/layer_spec.cpp that the parts depend on (C, heads, MLP chunks, the merge,
// the final epilogue, shared memory, warps), and everything that follows from them by the model's
// own constexpr code: the phase numbers by LayerSpec's numbering, the weight offsets by WeightMap
// (model/layer_spec.hpp; its functions are RRSWIN_HD so that the device code calls them). The rows
// themselves are compiled in layer_spec.cpp, out of reach of a constant expression here, so each
// instance below is checked field for field against layer_spec(id), its phase program and its
// LaunchAbi by tests/cuda_layer_dims_test.cpp (CudaLayerDims.*): a row that changes without its
// instance here fails that test.
#pragma once
#include <cstdint>

#include "model/layer_spec.hpp"

namespace rrswin::cuda {

struct LayerDims {
  LayerId id;
  int channels;        // C
  int heads;           // H
  HeadForm head_form;  // warp_per_head: warp z = head z; serial: the heads in turn in one warp (enc1)
  int rows_per_warp;   // token rows a warp takes from the output projection on: 16, 32 (dec1), or 64 (serial)
  int chunks;          // MLP chunks of 32 hidden channels (4C / 32)
  MergeKind merge_kind;
  int merge_out;  // the merged channels (0 without a merge)
  FinalEpilogueKind final_epilogue;
  int shared_bytes;        // the original's one __shared__ array (LaunchAbi::shared_bytes)
  int warps;               // blockDim.z (LaunchAbi::block[2])
  Front front{};           // the decoders' patch expand (LayerSpec::front); the encoders have none
  bool final_gemm = true;  // a final phase (the logits) after the MLP; dec0 has none (LayerSpec::final_gemm)

  // The row as LayerSpec's constexpr functions read it (the fields the parts do not use keep their
  // defaults: a final GEMM of 16 logits).
  constexpr LayerSpec spec() const {
    LayerSpec s{};
    s.id = id;
    s.channels = channels;
    s.heads = heads;
    s.head_form = head_form;
    s.rows_per_warp = rows_per_warp;
    s.chunks = chunks;
    s.merge_kind = merge_kind;
    s.merge_out = merge_out;
    s.final_epilogue = final_epilogue;
    s.front = front;
    s.final_gemm = final_gemm;
    return s;
  }
};

// model/layer_spec.cpp's rows enc5, enc4, enc3, enc2, enc1 (DOC4 §2, DOC3 §2, DOC-e2 §2, DOC-e1 §2.1;
// CudaLayerDims.* checks them).
inline constexpr LayerDims kEnc5Dims{.id = LayerId::enc5,
                                     .channels = 160,
                                     .heads = 8,
                                     .head_form = HeadForm::warp_per_head,
                                     .rows_per_warp = 16,
                                     .chunks = 20,
                                     .merge_kind = MergeKind::none,
                                     .merge_out = 0,
                                     .final_epilogue = FinalEpilogueKind::kpn_filter,
                                     .shared_bytes = 16384,
                                     .warps = 8};
inline constexpr LayerDims kEnc4Dims{.id = LayerId::enc4,
                                     .channels = 160,
                                     .heads = 8,
                                     .head_form = HeadForm::warp_per_head,
                                     .rows_per_warp = 16,
                                     .chunks = 20,
                                     .merge_kind = MergeKind::shared_passes,
                                     .merge_out = 160,
                                     .final_epilogue = FinalEpilogueKind::kpn_filter_sigmoid,
                                     .shared_bytes = 16384,
                                     .warps = 8};
inline constexpr LayerDims kEnc3Dims{.id = LayerId::enc3,
                                     .channels = 128,
                                     .heads = 4,
                                     .head_form = HeadForm::warp_per_head,
                                     .rows_per_warp = 16,
                                     .chunks = 16,
                                     .merge_kind = MergeKind::shared_passes,
                                     .merge_out = 160,
                                     .final_epilogue = FinalEpilogueKind::kpn_filter_sigmoid,
                                     .shared_bytes = 12800,
                                     .warps = 4};
inline constexpr LayerDims kEnc2Dims{.id = LayerId::enc2,
                                     .channels = 96,
                                     .heads = 4,
                                     .head_form = HeadForm::warp_per_head,
                                     .rows_per_warp = 16,
                                     .chunks = 12,
                                     .merge_kind = MergeKind::shared_passes,
                                     .merge_out = 128,
                                     .final_epilogue = FinalEpilogueKind::kpn_filter_sigmoid,
                                     .shared_bytes = 9600,
                                     .warps = 4};
// enc1 (DOC-e1 §2.1; HIP-e1 header): C = 64, the two heads in turn in one warp (phases 1..7 head 0's
// stem, score, P V and projection, 8..14 head 1's), all 64 rows in that warp, the register merge to
// 96 channels (E30/E31), the one-warp gated final (E32), no shared memory, block (32, 1, 1).
inline constexpr LayerDims kEnc1Dims{.id = LayerId::enc1,
                                     .channels = 64,
                                     .heads = 2,
                                     .head_form = HeadForm::serial,
                                     .rows_per_warp = 64,
                                     .chunks = 8,
                                     .merge_kind = MergeKind::register_lanes,
                                     .merge_out = 96,
                                     .final_epilogue = FinalEpilogueKind::kpn_filter_sigmoid_one_warp,
                                     .shared_bytes = 0,
                                     .warps = 1};
// enc0 (DESC-e0 WEIGHTS, HIP-e0 header, DOC-e0 §3/E20..E22; docs/readings.md §10 "enc0"): enc1's
// one-warp form at C = 32 (the two heads in turn, all 64 rows in the warp, 4 chunks, the register merge
// to 64 channels, the gated final E22) after its own front, the input embedding (two 96x32x32 GEMMs,
// P1 at 4096 and P2 at 5184 past 4096 bytes no mma reads); the original's 4000 bytes of shared memory
// (input_tensor 3200 + input_noise 800, the row's total [inf]), block (32, 1, 1).
inline constexpr LayerDims kEnc0Dims{.id = LayerId::enc0,
                                     .channels = 32,
                                     .heads = 2,
                                     .head_form = HeadForm::serial,
                                     .rows_per_warp = 64,
                                     .chunks = 4,
                                     .merge_kind = MergeKind::register_lanes,
                                     .merge_out = 64,
                                     .final_epilogue = FinalEpilogueKind::kpn_filter_sigmoid_shared_taps,
                                     .shared_bytes = 4000,
                                     .warps = 1,
                                     .front = {.kind = FrontKind::embedding, .k = 32, .n_per_warp = 32, .warps = 1, .unread_bytes = 4096}};
// model/layer_spec.cpp's rows dec4, dec3, dec2 (DOC-d4 §2-§4, HIP-d4 phase 1: 48x160x160 per warp;
// HIP-d3 phase 1: K = 160, 128 columns a warp; DOC-d2 §5 row 1: K = 128, 96 columns a warp; four warps).
inline constexpr LayerDims kDec4Dims{.id = LayerId::dec4,
                                     .channels = 160,
                                     .heads = 8,
                                     .head_form = HeadForm::warp_per_head,
                                     .rows_per_warp = 16,
                                     .chunks = 20,
                                     .merge_kind = MergeKind::none,
                                     .merge_out = 0,
                                     .final_epilogue = FinalEpilogueKind::decoder_blend,
                                     .shared_bytes = 16384,
                                     .warps = 8,
                                     .front = {.kind = FrontKind::patch_expand, .k = 160, .n_per_warp = 160, .warps = 4}};
inline constexpr LayerDims kDec3Dims{.id = LayerId::dec3,
                                     .channels = 128,
                                     .heads = 4,
                                     .head_form = HeadForm::warp_per_head,
                                     .rows_per_warp = 16,
                                     .chunks = 16,
                                     .merge_kind = MergeKind::none,
                                     .merge_out = 0,
                                     .final_epilogue = FinalEpilogueKind::decoder_blend,
                                     .shared_bytes = 12800,
                                     .warps = 4,
                                     .front = {.kind = FrontKind::patch_expand, .k = 160, .n_per_warp = 128, .warps = 4}};
inline constexpr LayerDims kDec2Dims{.id = LayerId::dec2,
                                     .channels = 96,
                                     .heads = 4,
                                     .head_form = HeadForm::warp_per_head,
                                     .rows_per_warp = 16,
                                     .chunks = 12,
                                     .merge_kind = MergeKind::none,
                                     .merge_out = 0,
                                     .final_epilogue = FinalEpilogueKind::decoder_blend,
                                     .shared_bytes = 9600,
                                     .warps = 4,
                                     .front = {.kind = FrontKind::patch_expand, .k = 128, .n_per_warp = 96, .warps = 4}};
// dec1 (DOC-d1 §5 row 1: K = 96 by the k-division, 128 columns = two sub-pixels a warp, the reading
// patch-expand-shape; DESC-d1 layer(): block (32, 1, 2), 6400 bytes): two warps, one a head, then
// 32 token rows (two m-tiles) each (DOC-d1 §5 P8 M = 32).
inline constexpr LayerDims kDec1Dims{.id = LayerId::dec1,
                                     .channels = 64,
                                     .heads = 2,
                                     .head_form = HeadForm::warp_per_head,
                                     .rows_per_warp = 32,
                                     .chunks = 8,
                                     .merge_kind = MergeKind::none,
                                     .merge_out = 0,
                                     .final_epilogue = FinalEpilogueKind::decoder_blend,
                                     .shared_bytes = 6400,
                                     .warps = 2,
                                     .front = {.kind = FrontKind::patch_expand, .k = 96, .n_per_warp = 128, .warps = 2}};

// dec0 (DOC-d0 §2.1 row 1: K = 64, 128 columns = the four sub-pixels in one warp, W 0..7692, seeds
// 8192..; DESC-d0 layer(), HIP-d0: block (32, 1, 1), 3200 bytes = E1's 10x10 tile of 32 codes):
// C = 32, the two heads in turn in one warp (enc1's serial form), all 64 rows in that warp, no final
// phase (E19 reads the fourth down-projection, DOC-d0 §2.1), the dec0 output epilogue (E19).
inline constexpr LayerDims kDec0Dims{.id = LayerId::dec0,
                                     .channels = 32,
                                     .heads = 2,
                                     .head_form = HeadForm::serial,
                                     .rows_per_warp = 64,
                                     .chunks = 4,
                                     .merge_kind = MergeKind::none,
                                     .merge_out = 0,
                                     .final_epilogue = FinalEpilogueKind::dec0_output,
                                     .shared_bytes = 3200,
                                     .warps = 1,
                                     .front = {.kind = FrontKind::patch_expand, .k = 64, .n_per_warp = 128, .warps = 1},
                                     .final_gemm = false};

// What the device code reads of a layer: scalars and a WeightMap, static constexpr members (nvcc
// lets device code read a constexpr scalar, and copy a constexpr aggregate into a local constexpr,
// but not call a host constexpr function: LayerSpec's numbering is evaluated here, on the host side).
template <LayerDims D>
struct Layer {
  static constexpr LayerDims kDims = D;
  static constexpr int C = D.channels;
  static constexpr int H = D.heads;
  static constexpr int kChunks = D.chunks;
  static constexpr int kSlices = C / 32;  // k-slices of a C-wide A operand = the arena's planes
  static constexpr int kNTiles = C / 8;   // n-tiles of a C-wide D tile (x[kNTiles][2])
  static constexpr int kBTiles = C / 16;  // 512-byte B tiles (two n-tiles each) of a C-column GEMM
  static constexpr int kWarps = D.warps;
  static constexpr int kMlpWarps = D.spec().mlp_warps();  // warps from the output projection on (rows_per_warp rows each)
  static constexpr int kRowTiles = D.rows_per_warp / 16;  // the m-tiles each of them takes (warp z: kRowTiles z + k)
  static constexpr bool kMerge = D.merge_kind != MergeKind::none;
  static constexpr bool kDecoder = D.front.kind == FrontKind::patch_expand;
  static constexpr bool kEmbedding = D.front.kind == FrontKind::embedding;  // enc0's input embedding
  // enc0's embedding phases P1, P2 (model/layer_program.cpp's regions We0/be0, We1/be1): a 32 x 32
  // waddr tile past the unread bytes, then its 32 f16 bias records (DESC-e0 WEIGHTS: 4096, 5120,
  // 5184, 6208). Scalars: device code reads a constexpr scalar, not a constexpr array.
  static constexpr std::uint32_t kP1Weights = static_cast<std::uint32_t>(D.front.unread_bytes);
  static constexpr std::uint32_t kP1Bias = kP1Weights + 1024u;
  static constexpr std::uint32_t kP2Weights = kP1Bias + 64u;
  static constexpr std::uint32_t kP2Bias = kP2Weights + 1024u;
  static constexpr int kExpandSlices = D.front.k / 32;
  static constexpr int kExpandN = D.front.n_per_warp;
  static constexpr int kExpandNTiles = kExpandN / 8;
  static constexpr int kExpandBTiles = kExpandN / 16;
  static constexpr int kExpandSubpixels = kDecoder ? kExpandN / C : 0;  // sub-pixels a warp expands
  static constexpr std::uint32_t kExpandSlabBytes = static_cast<std::uint32_t>(D.front.k * D.front.n_per_warp);
  static constexpr std::uint32_t kExpandSeeds = static_cast<std::uint32_t>(D.front.warps) * kExpandSlabBytes;
  static constexpr int kMergeKSteps = 4 * C / 32;  // the merge's K = 4C
  static constexpr int kMergePasses = D.merge_out / 32;
  static constexpr int kSharedBytes = D.shared_bytes;
  // Phase numbers (1-based, LayerSpec's numbering): enc5 13/60/61, enc4 13/60/61/62, enc3 11/46/47/48,
  // enc2 9/36/37/38, enc1 7 (head 1's 14)/30/31/32.
  static constexpr int kFirstProjection = D.spec().first_projection();
  static constexpr int kLastMlp = D.spec().last_mlp();
  static constexpr int kMergePhase = D.spec().merge_phase();
  static constexpr int kFinalPhase = D.spec().final_phase();
  // The weight image's offsets (copy into a local constexpr to call its functions in device code).
  static constexpr WeightMap kMap = weight_map(D.spec());

  // Shared memory, one array reused by stage: a decoder's E1 tile, the prologue's staged A (6 m-tiles x C/32 k-slices
  // of 512 bytes), the heads' q8(O) (2048 bytes a head), the merge's q8(D) of the 64 window tokens
  // (C bytes each), the final epilogue's records (64 x 6 words).
  static constexpr int kStagedInputBytes = 512 * 6 * kSlices;
  static constexpr int kHeadStageBytes = 2048 * H;
  static constexpr int kMergeStageBytes = kMerge ? 64 * C : 0;
  static constexpr int kRecordBytes = 64 * 6 * 4;
  static constexpr int kExpandTileBytes = kDecoder ? 100 * C : 0;  // E1's 10x10 tile, C codes a cell

  // What the parts assume of a layer (swin_parts.cuh, merge_parts.cuh, one_warp_parts.cuh).
  static constexpr bool kSerial = D.head_form == HeadForm::serial;
  static_assert(C % 32 == 0 && kChunks == 4 * C / 32, "C/32 k-slices, 4C/32 MLP chunks");
  static_assert(kSerial ? (kWarps == 1 && D.rows_per_warp == 64 && kMlpWarps == 1)
                        : (H == kWarps && kWarps >= kMlpWarps &&
                           ((D.rows_per_warp == 16 && kMlpWarps == 4) || (kDecoder && D.rows_per_warp == 32 && kMlpWarps == 2))),
                "one warp per head (warps 0..3 stage the input and run the rows after the heads, 16 each; dec1's two "
                "warps 32 each), or the heads in turn in one warp that takes all 64 rows");
  static_assert(D.front.kind == FrontKind::none ||
                    (kDecoder && kExpandSubpixels * C == kExpandN && kExpandSubpixels * D.front.warps == 4 && D.front.warps == kMlpWarps &&
                     D.front.k % 32 == 0) ||
                    (kEmbedding && kSerial && C == 32 && D.front.k == 32 && D.front.n_per_warp == 32 && D.front.warps == 1),
                "the encoders' prologue, the patch expand of the 4 sub-pixels (C columns each) on the warps that run the "
                "rows after the heads (dec0: the one warp), or enc0's 96x32x32 embedding in the one warp");
  static_assert(D.merge_kind == MergeKind::none || D.merge_kind == (kSerial ? MergeKind::register_lanes : MergeKind::shared_passes),
                "the shared-memory merge in the layers of one warp per head, the register merge in the one-warp layer");
  static_assert(D.merge_kind != MergeKind::shared_passes ||
                    (D.merge_out % 32 == 0 && kMergePasses >= kMlpWarps && kMergePasses <= kMlpWarps + 1),
                "the shared merge: one 32-column pass per warp, warp 0 one more");
  static_assert(D.merge_kind != MergeKind::register_lanes || D.merge_out % 32 == 0, "the register merge: 32-column planes");
  static_assert(D.final_epilogue == (kDecoder  ? (kSerial ? FinalEpilogueKind::dec0_output : FinalEpilogueKind::decoder_blend)
                                     : !kMerge ? FinalEpilogueKind::kpn_filter
                                     : kSerial ? (kEmbedding ? FinalEpilogueKind::kpn_filter_sigmoid_shared_taps
                                                             : FinalEpilogueKind::kpn_filter_sigmoid_one_warp)
                                               : FinalEpilogueKind::kpn_filter_sigmoid),
                "the final epilogues with CUDA parts: enc5's E61, the merge layers' gated E62, enc1's one-warp E32 (enc0's E22: "
                "the same, its taps in the texture slot), the decoders' blend, dec0's E19");
  static_assert(D.final_gemm == (D.final_epilogue != FinalEpilogueKind::dec0_output), "a final phase in every layer but dec0");
  static_assert(!(kDecoder && kMerge), "a decoder has no merge");
  static_assert(kSerial ? (kEmbedding ? kStagedInputBytes <= kSharedBytes : kSharedBytes == kExpandTileBytes)
                        : (kStagedInputBytes <= kSharedBytes && kHeadStageBytes <= kSharedBytes && kMergeStageBytes <= kSharedBytes &&
                           kRecordBytes <= kSharedBytes && kExpandTileBytes <= kSharedBytes),
                "every stage fits the original's shared array (the one-warp layers: registers only, dec0's E1 tile, enc0's "
                "gathered P1 A)");
};

using Enc5 = Layer<kEnc5Dims>;
using Enc4 = Layer<kEnc4Dims>;
using Enc3 = Layer<kEnc3Dims>;
using Enc2 = Layer<kEnc2Dims>;
using Enc1 = Layer<kEnc1Dims>;
using Enc0 = Layer<kEnc0Dims>;
using Dec4 = Layer<kDec4Dims>;
using Dec3 = Layer<kDec3Dims>;
using Dec2 = Layer<kDec2Dims>;
using Dec1 = Layer<kDec1Dims>;
using Dec0 = Layer<kDec0Dims>;

}  // namespace rrswin::cuda
