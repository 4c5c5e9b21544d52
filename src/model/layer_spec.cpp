// The three layer descriptions. Every number is cited where it is stated; docs/readings.md §7 lists
// the sources (DOC4 = d4r kernels/rr/rrswin_enc4_epilogues.md, DOC3 = rrswin_enc3_epilogues.md,
// DESC4/DESC3 = descriptor_enc4.py / descriptor_enc3.py) and the readings taken where they are
// open or disagree.
#include "model/layer_spec.hpp"

#include "model/launch_abi.hpp"

namespace rrswin {
namespace {

constexpr LayerSpec kEnc5{
    LayerId::enc5,
    "enc5",
    abi::kKernelName,
    "0018-PREPASS_ENTRYPOINT_NAME.ptx",
    /*channels*/ 160,
    /*heads*/ 8,
    /*head_dim*/ 32,
    /*window_tokens*/ 64,
    /*tokens*/ 96,
    /*chunks*/ 20,
    /*merge*/ false,
    /*merge_out*/ 0,
    FinalEpilogueKind::kpn_filter,
    /*logits*/ 16,
    /*first_mma_statement*/ 7554,  // spec §2.1 phase 1, facts A1
    // spec §2.1 "epi" column and §3.
    EpilogueStatements{7, 171, 3844, 274, 27, 1029, 321, 172, 92, 299, 0, 234},
    // facts A2 (grid, block), A3 (40 x 23), A4 (offsets: model/launch_abi.hpp, enc5's one place),
    // A8 (16384 bytes of shared memory).
    LaunchAbi{abi::kParamBlockBytes,
              abi::kParamEx,
              abi::kParamInput,
              abi::kParamWeights,
              abi::kParamOutput,
              -1,
              abi::kParamOx,
              abi::kParamTexture,
              {abi::kParamSurface, 0, 0},
              1,
              16384,
              {5, 3, 1},
              {abi::kBlockX, abi::kBlockY, abi::kBlockZ},
              "facts A2 (HIP5 header, REC5); 8 warps required by the 8 head slots (facts A7)",
              40,
              23},
};

constexpr LayerSpec kEnc4{
    LayerId::enc4,
    "enc4",
    "cuda_dldn_engine_swin_enc4_kernel",
    "0017-PREPASS_ENTRYPOINT_NAME.ptx",
    160,
    8,
    32,
    64,
    96,
    /*chunks*/ 20,
    /*merge*/ true,
    /*merge_out*/ 160,
    FinalEpilogueKind::kpn_filter_sigmoid,
    16,
    /*first_mma_statement*/ 7554,  // DOC4 §2 phase 1
    // DOC4 §2 "epi" column (E60 1381, E61 117, E62 323; phases 1..59 as enc5's).
    EpilogueStatements{7, 171, 3844, 274, 27, 1029, 321, 172, 92, 1381, 117, 323},
    // DOC4 §1.1/§3 (param+8, +40, +48, +56, +80, +88 via %rd943+8, surfaces at %rd943+32/+40/+48 =
    // +112/+120/+128), DOC4 §1.4 (16384 bytes), DESC4 layer() (grid 11x7x1, token grid 80x46;
    // block: the reading layer-launch-geometry, docs/readings.md §7).
    LaunchAbi{144,
              0,
              8,
              40,
              48,
              56,
              80,
              88,
              {112, 120, 128},
              3,
              16384,
              {11, 7, 1},
              {32, 1, 8},
              "DESC4 layer(): grid from the recipe, 'not re-measured'; block (32,1,8) is the reading "
              "layer-launch-geometry (DESC4 says (32,1,4))",
              80,
              46},
};

constexpr LayerSpec kEnc3{
    LayerId::enc3,
    "enc3",
    "cuda_dldn_engine_swin_enc3_kernel",
    "0016-PREPASS_ENTRYPOINT_NAME.ptx",
    128,
    4,
    32,
    64,
    96,
    /*chunks*/ 16,
    /*merge*/ true,
    /*merge_out*/ 160,
    FinalEpilogueKind::kpn_filter_sigmoid,
    16,
    /*first_mma_statement*/ 6124,  // DOC3 §2 phase 1
    // DOC3 §2 "epi" column: E8 171, E9 3843, E10 199, E11..E13 23, E14 832, E15 289, odd 168,
    // even 76, E46 564, E47 125, E48 323.
    EpilogueStatements{7, 171, 3843, 199, 23, 832, 289, 168, 76, 564, 125, 323},
    // DESC3 layer(): grid (21,13,1) x (32,1,4) measured from a replay capture, 12800 bytes of
    // shared memory, params 0/8/40/48/56/80/88/112/120/128, texture 160x92.
    LaunchAbi{144,
              0,
              8,
              40,
              48,
              56,
              80,
              88,
              {112, 120, 128},
              3,
              12800,
              {21, 13, 1},
              {32, 1, 4},
              "DESC3 layer(): measured from a replay capture",
              160,
              92},
};

}  // namespace

const LayerSpec& layer_spec(LayerId id) {
  switch (id) {
    case LayerId::enc3: return kEnc3;
    case LayerId::enc4: return kEnc4;
    case LayerId::enc5: break;
  }
  return kEnc5;
}

const std::array<LayerId, 3>& layer_ids() {
  static constexpr std::array<LayerId, 3> ids{LayerId::enc3, LayerId::enc4, LayerId::enc5};
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

std::string_view to_string(FinalEpilogueKind k) {
  switch (k) {
    case FinalEpilogueKind::kpn_filter: return "kpn_filter";
    case FinalEpilogueKind::kpn_filter_sigmoid: return "kpn_filter_sigmoid";
  }
  return "?";
}

}  // namespace rrswin
