// The parts of enc0 (FrontKind::embedding, HeadForm::serial, FinalEpilogueKind::
// kpn_filter_sigmoid_shared_taps; docs/readings.md §10 "enc0") that the other ports do not have, in
// the golden model's order and names (model/embedding_front.cpp):
//
//   embedding_phase   P1, P2       96x32x32, one k-step, C = the 32 bias records (HIP-e0 phases 1/2;
//                                  DESC-e0 WEIGHTS: B at 4096 / 5184, bias at 5120 / 6208)
//   repack_a_relu     P2's A       cvt.rn.satfinite.relu.e4m3x2.f16x2 of D1 (HIP-e0 relu_pair)
//   embedding_front   the front    the staged input tensor gathered as the template's prologue gathers
//                                  +8 (prologue_word) into the original's shared array, then per
//                                  m-tile P1 -> relu-q8 -> P2 -> the input norm over the 96 rows
//                                  (prologue_norm_a: g1 at 6272, HIP-e0 norm_as), x = D2 the
//                                  projections' residual (HIP-e0 stage e6: P7's C = T1 + D2)
//   enc0_layer        the kernel   that front, then enc1's one-warp body at C = 32
//                                  (cuda/one_warp_parts.cuh one_warp_body: the serial heads, the MLP,
//                                  E20's scatter to +48, the register merge to +56, E22 = enc1's E32
//                                  with its taps in the texture slot +88)
//
// No source decodes the original's prologue (the network input at +304 -> input_tensor and
// input_noise): the port starts at the staged input tensor (+8), as the golden model does
// (cuda/enc0_params.hpp). Included by src/cuda/enc0_kernel.cu only.
#pragma once
#include "cuda/enc0_params.hpp"
#include "cuda/one_warp_parts.cuh"

namespace rrswin::cuda {
namespace {

// One embedding phase on one m-tile (golden embedding_phase): C = the bias record of each column
// pair (the same word seeds both row halves), one k-step of A against the 32 x 32 waddr tile at W
// (two 512-byte B tiles, n-tiles 0..3).
template <std::uint32_t W, std::uint32_t Bias>
__device__ __forceinline__ void embedding_phase(const Args& p, const Block& b, const u32 (&a)[4], u32 (&d)[4][2]) {
#pragma unroll
  for (int nt = 0; nt < 4; ++nt) d[nt][0] = d[nt][1] = ld_u32(p.weights, seed_word_offset(Bias, nt, b.t));
#pragma unroll
  for (int tile = 0; tile < 2; ++tile) {
    const BPair bp = load_b_pair(p.weights + W + 512u * tile, b.lane);
    mma_acc(d[2 * tile], a, bp.lo);
    mma_acc(d[2 * tile + 1], a, bp.hi);
  }
}

// P2's A from D1 (golden quantise_relu): repack_a with cvt.rn.satfinite.relu.e4m3x2.f16x2.
__device__ __forceinline__ void repack_a_relu(const u32 (&d)[4][2], u32 (&a)[4]) {
#pragma unroll
  for (int o = 0; o < 4; ++o)
    a[o] = static_cast<u32>(ptx::cvt_relu_e4m3x2(d[repack_nt(o >> 1, 0)][o & 1])) |
           (static_cast<u32>(ptx::cvt_relu_e4m3x2(d[repack_nt(o >> 1, 1)][o & 1])) << 16);
}

// The front (golden embedding_front): P1's A of the six m-tiles is the staged tensor's words as the
// prologue loads them (prologue_word; the gather decodes a code exactly and q8 gives it back, the NaN
// codes by their sign: the word itself), staged in the original's shared array (6 x 512 bytes of its
// 4000) so that all 24 loads are issued before the first mma; each lane reads back its own 16 bytes.
// Per m-tile: D1 = P1, P2's A = relu-q8(D1), x = D2 = P2, the stem's A = q8 of the input norm of x
// (staged, registers), and m-tiles 0..3 seed the first projection's C = f16(T1 + x).
template <class Ly>
__device__ __forceinline__ void embedding_front(const Args& p, const Block& b, std::uint8_t* smem, u32 (&staged)[6][Ly::kSlices][4],
                                                u32 (&D)[4][Ly::kNTiles][2]) {
  static_assert(Ly::kEmbedding && Ly::kSlices == 1 && Ly::kNTiles == 4, "enc0: one 32-channel plane");
#pragma unroll
  for (int mi = 0; mi < 6; ++mi) {
    u32 w[4];
#pragma unroll
    for (int o = 0; o < 4; ++o) w[o] = prologue_word(p, b, mi, 0, o);
    *reinterpret_cast<uint4*>(smem + 512 * mi + 16 * b.lane) = make_uint4(w[0], w[1], w[2], w[3]);
  }
#pragma unroll
  for (int mi = 0; mi < 6; ++mi) {
    const uint4 v = *reinterpret_cast<const uint4*>(smem + 512 * mi + 16 * b.lane);
    const u32 a[4] = {v.x, v.y, v.z, v.w};
    u32 d1[4][2], a2[4], x[4][2];
    embedding_phase<Ly::kP1Weights, Ly::kP1Bias>(p, b, a, d1);
    repack_a_relu(d1, a2);
    embedding_phase<Ly::kP2Weights, Ly::kP2Bias>(p, b, a2, x);
    prologue_norm_a<Ly>(p, b, x, [&](int q, const u32(&s)[4]) {
#pragma unroll
      for (int o = 0; o < 4; ++o) staged[mi][q][o] = s[o];
    });
    if (mi < 4) c13_seed<Ly>(p, b, x, D[mi]);
  }
}

// enc0's kernel: the front, then enc1's one-warp body (phases 3..22, E20's scatter, the register
// merge E20(c)/P21/E21, E22).
template <class Ly>
__device__ __forceinline__ void enc0_layer(const Enc0Params& params, std::uint8_t* smem) {
  constexpr int KS = Ly::kSlices;
  one_warp_body<Ly>(params.merge, [smem](const Args& a, const Block& b, u32(&staged)[6][KS][4], u32(&D)[4][Ly::kNTiles][2]) {
    embedding_front<Ly>(a, b, smem, staged, D);
  });
}

}  // namespace
}  // namespace rrswin::cuda
