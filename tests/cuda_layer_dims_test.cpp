// The CUDA ports' compile-time layer descriptions (src/cuda/layer_dims.hpp, issue 37) are the
// model's layer rows: every fact a part reads equals the row of model/layer_spec.cpp, the phase
// numbers and weight offsets the parts compute equal the layer's phase program
// (model/layer_program.hpp), and the parameter blocks are the rows' LaunchAbi (the encoders' and the
// decoders').
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "cuda/dec0_params.hpp"
#include "cuda/dec1_params.hpp"
#include "cuda/dec2_params.hpp"
#include "cuda/dec3_params.hpp"
#include "cuda/dec4_params.hpp"
#include "cuda/enc0_params.hpp"
#include "cuda/enc1_params.hpp"
#include "cuda/enc2_params.hpp"
#include "cuda/enc3_params.hpp"
#include "cuda/enc4_params.hpp"
#include "cuda/enc5_params.hpp"
#include "cuda/layer_dims.hpp"
#include "model/layer_program.hpp"

namespace rrswin {
namespace {

template <class Ly>
void expect_layer_is_its_row() {
  constexpr cuda::LayerDims d = Ly::kDims;
  const LayerSpec& s = layer_spec(d.id);
  SCOPED_TRACE(std::string(s.name));
  const LayerProgram& prog = layer_program(d.id);
  // The facts.
  EXPECT_EQ(d.channels, s.channels);
  EXPECT_EQ(d.heads, s.heads);
  EXPECT_EQ(d.head_form, s.head_form);
  EXPECT_EQ(d.rows_per_warp, s.rows_per_warp);
  EXPECT_EQ(d.chunks, s.chunks);
  EXPECT_EQ(d.merge_kind, s.merge_kind);
  EXPECT_EQ(d.merge_out, s.merge() ? s.merge_out : 0);
  EXPECT_EQ(d.final_epilogue, s.final_epilogue);
  EXPECT_EQ(d.shared_bytes, s.abi.shared_bytes);
  EXPECT_EQ(d.warps, s.abi.block[2]);
  EXPECT_EQ(d.front.kind, s.front.kind);
  EXPECT_EQ(d.front.k, s.front.k);
  EXPECT_EQ(d.front.n_per_warp, s.front.n_per_warp);
  EXPECT_EQ(d.front.warps, s.front.warps);
  EXPECT_EQ(d.front.unread_bytes, s.front.unread_bytes);
  // What the parts assume without a field of their own: the template's defaults.
  EXPECT_EQ(s.window_tokens, 64);
  EXPECT_EQ(s.tokens, 96);
  EXPECT_EQ(s.head_dim, 32);
  EXPECT_EQ(d.final_gemm, s.final_gemm);
  EXPECT_EQ(s.final_gemm, s.final_epilogue != FinalEpilogueKind::dec0_output);  // dec0 alone has no final phase
  EXPECT_EQ(s.logits, 16);
  EXPECT_EQ(s.abi.block[0], 32);
  EXPECT_EQ(s.abi.block[1], 1);
  // Derived: warps, phase numbers, the weight map.
  EXPECT_EQ(Ly::kMlpWarps, s.mlp_warps());
  EXPECT_EQ(Ly::kFirstProjection, s.first_projection());
  EXPECT_EQ(Ly::kLastMlp, s.last_mlp());
  EXPECT_EQ(Ly::kMergePhase, s.merge_phase());
  EXPECT_EQ(Ly::kFinalPhase, s.final_phase());
  const WeightMap a = Ly::kMap, b = weight_map(s);
  EXPECT_EQ(a.c, b.c);
  EXPECT_EQ(a.h, b.h);
  EXPECT_EQ(a.chunks, b.chunks);
  EXPECT_EQ(a.merge_out, b.merge_out);
  EXPECT_EQ(a.b0, b.b0);
  EXPECT_EQ(a.final_gemm, b.final_gemm);
  EXPECT_EQ(a.image_bytes(), b.image_bytes());
  // The offsets the parts read, against the phase program's (its B and C sources per phase). One
  // warp per head: the stem and score phases' offsets are warp z's slot's relative to slot 0's;
  // serial heads: head h's own phases, absolute (DOC-e1 §2.1).
  for (int h = 0; h < s.heads; ++h) {
    const std::uint32_t slot = s.serial_heads() ? 0u : a.slot_bytes() * static_cast<std::uint32_t>(h);
    const int ph = s.serial_heads() ? h : 0;
    EXPECT_EQ(prog.phase(s.first_stem(ph)).relative_to_slot, !s.serial_heads()) << "stem " << h;
    EXPECT_EQ(a.wo(h), prog.phase(s.projection_phase(h)).weight_begin) << "Wo " << h;
    EXPECT_EQ(a.wq(h), slot + prog.phase(s.first_stem(ph)).weight_begin) << "Wq " << h;
    EXPECT_EQ(a.wv(h), slot + prog.phase(s.first_stem(ph) + 1).weight_begin) << "Wv " << h;
    EXPECT_EQ(a.score_bias(h), slot + prog.phase(s.score_phase(ph)).bias_begin) << "bias " << h;
  }
  for (int c = 0; c < s.chunks; ++c) {
    const Phase& up = prog.phase(s.first_mlp() + 2 * c);
    EXPECT_EQ(a.w1(c), up.weight_begin) << "W1 " << c;
    EXPECT_EQ(a.b1(c), up.bias_begin) << "b1 " << c;
    EXPECT_EQ(a.w2(c), prog.phase(s.first_mlp() + 2 * c + 1).weight_begin) << "W2 " << c;
    EXPECT_EQ(up.k_steps, Ly::kSlices);
  }
  if (s.final_gemm) {
    const Phase& last = prog.phase(s.final_phase());
    EXPECT_EQ(a.final_weights(), last.weight_begin);
    EXPECT_EQ(a.final_bias(), last.bias_begin);
    EXPECT_EQ(last.k_steps, Ly::kSlices);
  } else {
    // dec0: the program ends with the last down-projection (E19 reads its D), the image with its weights.
    EXPECT_EQ(prog.phases.size(), static_cast<std::size_t>(s.last_mlp()));
    EXPECT_EQ(a.image_bytes(), a.mlp_end());
  }
  if (s.merge()) {
    const Phase& merge = prog.phase(s.merge_phase());
    EXPECT_EQ(a.merge_weights(), merge.weight_begin);
    EXPECT_EQ(a.merge_bias(), merge.bias_begin);
    EXPECT_EQ(Ly::kMergeKSteps, merge.k_steps);
    EXPECT_EQ(Ly::kMergePasses * 32, s.merge_out);
  }
  if (Ly::kDecoder) {
    // Phase 1 (the patch expand): warp 0's slab and seeds; warp z's are K N z and 2 N z further
    // (model/decoder_front.cpp expand_phase, from the phase's own begins).
    const Phase& expand = prog.phase(1);
    EXPECT_EQ(expand.weight_begin, 0u);
    EXPECT_EQ(Ly::kExpandSeeds, expand.bias_begin);
    EXPECT_EQ(Ly::kExpandSlabBytes, static_cast<std::uint32_t>(s.front.k * s.front.n_per_warp));
    EXPECT_EQ(Ly::kExpandSlices, expand.k_steps);
    EXPECT_EQ(Ly::kExpandN, s.front.n_per_warp);
    EXPECT_EQ(Ly::kExpandSubpixels * s.front.warps, 4);
    EXPECT_EQ(Ly::kRowTiles * 16, s.rows_per_warp);
    EXPECT_EQ(s.final_epilogue, s.serial_heads() ? FinalEpilogueKind::dec0_output : FinalEpilogueKind::decoder_blend);
  } else if (Ly::kEmbedding) {
    // enc0's P1, P2 (model/embedding_front.cpp embedding_phase, from the phases' own begins): one
    // k-step each, B and the bias records where the port reads them.
    const Phase& p1 = prog.phase(1);
    const Phase& p2 = prog.phase(2);
    EXPECT_EQ(Ly::kP1Weights, p1.weight_begin);
    EXPECT_EQ(Ly::kP1Bias, p1.bias_begin);
    EXPECT_EQ(Ly::kP2Weights, p2.weight_begin);
    EXPECT_EQ(Ly::kP2Bias, p2.bias_begin);
    EXPECT_EQ(p1.k_steps, 1);
    EXPECT_EQ(p2.k_steps, 1);
    EXPECT_EQ(a.g1(), Ly::kP2Bias + 64u);  // the input norm's gains follow P2's records (HIP-e0: 6272)
    EXPECT_EQ(s.final_epilogue, FinalEpilogueKind::kpn_filter_sigmoid_shared_taps);
  } else {
    EXPECT_EQ(s.front.kind, FrontKind::none);
  }
  // The regions the parts read by name: g1, T1, g2, T3.
  for (const Region& r : layer_weight_regions(s)) {
    const std::uint32_t at = r.role == Region::Role::g1   ? a.g1()
                             : r.role == Region::Role::t1 ? a.t1()
                             : r.role == Region::Role::g2 ? a.g2()
                             : r.role == Region::Role::t3 ? a.t3()
                             : r.role == Region::Role::we ? (r.index == 0 ? Ly::kP1Weights : Ly::kP2Weights)
                             : r.role == Region::Role::be ? (r.index == 0 ? Ly::kP1Bias : Ly::kP2Bias)
                                                          : r.begin;
    EXPECT_EQ(at, r.begin) << r.name;
  }
}

// A parameter block against the row's LaunchAbi.
template <class P>
void expect_merge_params(LayerId id) {
  const LaunchAbi& abi = layer_spec(id).abi;
  SCOPED_TRACE(std::string(to_string(id)));
  EXPECT_EQ(static_cast<int>(sizeof(P)), abi.param_block_bytes);
  EXPECT_EQ(static_cast<int>(offsetof(P, ex)), abi.extents);
  EXPECT_EQ(static_cast<int>(offsetof(P, input_arena)), abi.input);
  EXPECT_EQ(static_cast<int>(offsetof(P, weights)), abi.weights);
  EXPECT_EQ(static_cast<int>(offsetof(P, output_arena)), abi.arena);
  EXPECT_EQ(static_cast<int>(offsetof(P, merged_output)), abi.merged_output);
  EXPECT_EQ(static_cast<int>(offsetof(P, block_offset_x)), abi.origin);
  EXPECT_EQ(static_cast<int>(offsetof(P, texture)), abi.texture);
  ASSERT_EQ(abi.surface_count, 3);
  EXPECT_EQ(static_cast<int>(offsetof(P, surface112)), abi.surfaces[0]);
  EXPECT_EQ(static_cast<int>(offsetof(P, surface120)), abi.surfaces[1]);
  EXPECT_EQ(static_cast<int>(offsetof(P, surface128)), abi.surfaces[2]);
  EXPECT_EQ(abi.skip, -1);
  EXPECT_EQ(abi.scale, -1);
  EXPECT_EQ(abi.network_input, -1);
}

// A decoder's parameter block against the row's LaunchAbi.
template <class P>
void expect_decoder_params_abi(const LaunchAbi& abi, std::string_view name) {
  SCOPED_TRACE(std::string(name));
  EXPECT_EQ(static_cast<int>(sizeof(P)), abi.param_block_bytes);
  EXPECT_EQ(static_cast<int>(offsetof(P, ex)), abi.extents);
  EXPECT_EQ(static_cast<int>(offsetof(P, input_arena)), abi.input);
  EXPECT_EQ(static_cast<int>(offsetof(P, skip_arena)), abi.skip);
  EXPECT_EQ(static_cast<int>(offsetof(P, weights)), abi.weights);
  EXPECT_EQ(static_cast<int>(offsetof(P, output_arena)), abi.arena);
  EXPECT_EQ(static_cast<int>(offsetof(P, block_offset_x)), abi.origin);
  EXPECT_EQ(static_cast<int>(offsetof(P, texture)), abi.texture);
  EXPECT_EQ(static_cast<int>(offsetof(P, texture96)), abi.int_textures[0]);
  EXPECT_EQ(static_cast<int>(offsetof(P, texture104)), abi.int_textures[1]);
  EXPECT_EQ(static_cast<int>(offsetof(P, scale_x)), abi.scale);
  EXPECT_EQ(static_cast<int>(offsetof(P, scale_y)), abi.scale + 4);
  ASSERT_EQ(abi.surface_count, 1);
  EXPECT_EQ(static_cast<int>(offsetof(P, surface112)), abi.surfaces[0]);
  EXPECT_EQ(abi.merged_output, -1);
  EXPECT_EQ(abi.network_input, -1);
}
template <class P>
void expect_decoder_params(LayerId id) {
  expect_decoder_params_abi<P>(layer_spec(id).abi, to_string(id));
}

}  // namespace

TEST(CudaLayerDims, Enc5IsItsRow) { expect_layer_is_its_row<cuda::Enc5>(); }
TEST(CudaLayerDims, Enc4IsItsRow) { expect_layer_is_its_row<cuda::Enc4>(); }
TEST(CudaLayerDims, Enc3IsItsRow) { expect_layer_is_its_row<cuda::Enc3>(); }
TEST(CudaLayerDims, Enc2IsItsRow) { expect_layer_is_its_row<cuda::Enc2>(); }
TEST(CudaLayerDims, Enc1IsItsRow) { expect_layer_is_its_row<cuda::Enc1>(); }
TEST(CudaLayerDims, Enc0IsItsRow) { expect_layer_is_its_row<cuda::Enc0>(); }
TEST(CudaLayerDims, Dec4IsItsRow) { expect_layer_is_its_row<cuda::Dec4>(); }
TEST(CudaLayerDims, Dec3IsItsRow) { expect_layer_is_its_row<cuda::Dec3>(); }
TEST(CudaLayerDims, Dec2IsItsRow) { expect_layer_is_its_row<cuda::Dec2>(); }
TEST(CudaLayerDims, Dec1IsItsRow) { expect_layer_is_its_row<cuda::Dec1>(); }
TEST(CudaLayerDims, Dec0IsItsRow) { expect_layer_is_its_row<cuda::Dec0>(); }

TEST(CudaLayerDims, ParameterBlocksAreTheRowsLaunchAbi) {
  expect_merge_params<cuda::Enc4Params>(LayerId::enc4);
  expect_merge_params<cuda::Enc3Params>(LayerId::enc3);
  expect_merge_params<cuda::Enc2Params>(LayerId::enc2);
  expect_merge_params<cuda::Enc1Params>(LayerId::enc1);
  const LaunchAbi& abi = layer_spec(LayerId::enc5).abi;
  EXPECT_EQ(static_cast<int>(sizeof(cuda::Enc5Params)), abi.param_block_bytes);
  EXPECT_EQ(static_cast<int>(offsetof(cuda::Enc5Params, surface)), abi.surfaces[0]);
  EXPECT_EQ(abi.merged_output, -1);
  // enc0: the 1032-byte block; the merge layers' first 144 bytes, whose +8 and +88 (the staged input
  // tensor, the texture standing for input_noise) are slots the original leaves unused (the row's
  // input and texture are -1), and +304 the network input, which the port does not read.
  {
    const LaunchAbi& abi = layer_spec(LayerId::enc0).abi;
    using P = cuda::MergeLayerParams;
    EXPECT_EQ(static_cast<int>(sizeof(cuda::Enc0Params)), abi.param_block_bytes);
    EXPECT_EQ(offsetof(cuda::Enc0Params, merge), 0u);
    EXPECT_EQ(static_cast<int>(offsetof(cuda::Enc0Params, network_input)), abi.network_input);
    EXPECT_EQ(static_cast<int>(offsetof(P, ex)), abi.extents);
    EXPECT_EQ(static_cast<int>(offsetof(P, weights)), abi.weights);
    EXPECT_EQ(static_cast<int>(offsetof(P, output_arena)), abi.arena);
    EXPECT_EQ(static_cast<int>(offsetof(P, merged_output)), abi.merged_output);
    EXPECT_EQ(static_cast<int>(offsetof(P, block_offset_x)), abi.origin);
    ASSERT_EQ(abi.surface_count, 3);
    EXPECT_EQ(static_cast<int>(offsetof(P, surface112)), abi.surfaces[0]);
    EXPECT_EQ(static_cast<int>(offsetof(P, surface120)), abi.surfaces[1]);
    EXPECT_EQ(static_cast<int>(offsetof(P, surface128)), abi.surfaces[2]);
    EXPECT_EQ(abi.input, -1);
    EXPECT_EQ(abi.texture, -1);
    EXPECT_EQ(cuda::kEnc0StagedInputOffset, 8);
    EXPECT_EQ(cuda::kEnc0NoiseTextureOffset, 88);
    // The row's stand-ins (what enc0's captures hold: bridge/layer_capture.cpp) are the port's.
    EXPECT_TRUE(has_standins(abi));
    EXPECT_EQ(abi.standin_input, cuda::kEnc0StagedInputOffset);
    EXPECT_EQ(abi.standin_texture, cuda::kEnc0NoiseTextureOffset);
    EXPECT_EQ(capture_input(abi), cuda::kEnc0StagedInputOffset);
    EXPECT_EQ(capture_texture(abi), cuda::kEnc0NoiseTextureOffset);
    // The stand-ins overlap no field the original's block uses.
    for (const int used : {abi.extents, abi.weights, abi.arena, abi.merged_output, abi.origin, abi.network_input, abi.surfaces[0],
                           abi.surfaces[1], abi.surfaces[2]})
      for (const int stand_in : {cuda::kEnc0StagedInputOffset, cuda::kEnc0NoiseTextureOffset}) EXPECT_NE(used, stand_in);
  }
  expect_decoder_params<cuda::Dec4Params>(LayerId::dec4);
  expect_decoder_params<cuda::Dec3Params>(LayerId::dec3);
  expect_decoder_params<cuda::Dec2Params>(LayerId::dec2);
  expect_decoder_params<cuda::Dec1Params>(LayerId::dec1);
  // dec0: the decoders' block at +0, then the tanh surface +144 (152 bytes, two surfaces).
  {
    const LaunchAbi& abi = layer_spec(LayerId::dec0).abi;
    EXPECT_EQ(static_cast<int>(sizeof(cuda::Dec0Params)), abi.param_block_bytes);
    EXPECT_EQ(offsetof(cuda::Dec0Params, decoder), 0u);
    ASSERT_EQ(abi.surface_count, 2);
    EXPECT_EQ(static_cast<int>(offsetof(cuda::Dec0Params, surface144)), abi.surfaces[1]);
    EXPECT_EQ(static_cast<int>(offsetof(cuda::DecoderLayerParams, surface112)), abi.surfaces[0]);
    LaunchAbi decoder_part = abi;  // the first 144 bytes are the decoders' (expect_decoder_params)
    decoder_part.param_block_bytes = static_cast<int>(sizeof(cuda::DecoderLayerParams));
    decoder_part.surface_count = 1;
    expect_decoder_params_abi<cuda::DecoderLayerParams>(decoder_part, "dec0");
  }
}

}  // namespace rrswin
