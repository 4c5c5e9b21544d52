// The merge layers with the fast engine (engine/layer_engine.hpp).
#include "engine/layer_engine.hpp"

#include <functional>
#include <memory>
#include <stdexcept>

#include "engine/engine.hpp"
#include "engine/workers.hpp"
#include "layout/tables.hpp"
#include "layout/weight_tile.hpp"
#include "model/layer_program.hpp"

namespace rrswin::engine {
namespace {

// The merge phase's and the final phase's B operands and C seeds, from the same weight-map
// addresses golden::merge_phase and golden::logits_phase read (DOC4 §3/E60(e), E61).
struct MergeLayerWeights {
  BOperand merge, final_b;  // K = 4C x merge_out, K = C x 16 ([n][k] sources)
  std::vector<f16_t> merge_bias, final_bias;
  int merge_steps = 0, final_steps = 0;
};

// The final phase's B operand and bias of image w of layer s (enc5's phase 61 = dec4's 62).
void prepare_final_phase(const WeightImage& w, const LayerSpec& s, BOperand& b, std::vector<f16_t>& bias, int& steps) {
  const Phase& pf = layer_program(s.id).phase(s.final_phase());
  steps = pf.k_steps;
  const int kf = 32 * pf.k_steps;
  std::vector<e4m3_t> nk(static_cast<std::size_t>(s.logits) * kf);
  for (int n = 0; n < s.logits; ++n)
    for (int step = 0; step < pf.k_steps; ++step)
      for (int k = 0; k < 32; ++k)
        nk[static_cast<std::size_t>(n) * kf + 32 * step + k] =
            w.byte(pf.weight_begin + 512u * static_cast<std::uint32_t>(step) + layout::waddr_in_tile(k, n));
  b.assign_nk(nk.data(), s.logits, kf, kf);
  for (int n = 0; n < s.logits; ++n) bias.push_back(w.f16_at(layout::record_bias_offset(pf.bias_begin, n)));
}

MergeLayerWeights prepare_merge_layer(const WeightImage& w, const LayerSpec& s) {
  MergeLayerWeights m;
  const LayerProgram& prog = layer_program(s.id);
  const Phase& pm = prog.phase(s.merge_phase());
  m.merge_steps = pm.k_steps;
  const int km = 32 * pm.k_steps;
  std::vector<e4m3_t> nk(static_cast<std::size_t>(s.merge_out) * km);
  for (int n = 0; n < s.merge_out; ++n)
    for (int step = 0; step < pm.k_steps; ++step)
      for (int k = 0; k < 32; ++k)
        nk[static_cast<std::size_t>(n) * km + 32 * step + k] =
            w.byte(pm.weight_begin + 512u * static_cast<std::uint32_t>(pm.k_steps * (n >> 4) + step) + layout::waddr_in_tile(k, n));
  m.merge.assign_nk(nk.data(), s.merge_out, km, km);
  for (int n = 0; n < s.merge_out; ++n) m.merge_bias.push_back(w.f16_at(layout::record_bias_offset(pm.bias_begin, n)));
  prepare_final_phase(w, s, m.final_b, m.final_bias, m.final_steps);
  return m;
}

// rows x N, every row seeded with `bias`, then the chained k-steps of A x B.
golden::F16Mat gemm_seeded(const Profile& p, SimdPath simd, const golden::E4Mat& a, const BOperand& b, int ksteps,
                           const std::vector<f16_t>& bias) {
  AOperand ao;
  ao.assign(a.v.data(), a.rows, a.cols, a.cols, decode_for(p, simd), simd);
  golden::F16Mat d(a.rows, b.N);
  for (int r = 0; r < a.rows; ++r)
    for (int n = 0; n < b.N; ++n) d.at(r, n) = bias[static_cast<std::size_t>(n)];
  gemm(p, simd, ao, 0, b, 0, ksteps, a.rows, d.v.data(), b.N);
  return d;
}

// One k-step of a golden phase through engine::gemm (BlockContext::gemm_step): A's 32 columns
// from a_col0 on acc's rows, B's [n][k] codes, acc = C on entry and D on return.
void gemm_step(const Profile& p, SimdPath simd, const golden::E4Mat& a, int a_col0, const golden::BTile& b, golden::F16Mat& acc) {
  const unsigned dec = decode_for(p, simd);
  AOperand ao;
  ao.assign(a.v.data() + a_col0, acc.rows, 32, a.cols, dec, simd);
  BOperand bo;
  bo.assign_nk(b.v.data(), b.cols, 32, 32, dec, simd);
  gemm(p, simd, ao, 0, bo, 0, 1, acc.rows, acc.v.data(), acc.cols);
}

// BlockContext::gemm_step for a block: every k-step of the golden parts on engine::gemm.
using GemmStep = std::function<void(const golden::E4Mat&, int, const golden::BTile&, golden::F16Mat&)>;
GemmStep engine_steps(const golden::BlockContext& ctx, const LayerEngine& how) {
  return [&ctx, &how](const golden::E4Mat& a, int a_col0, const golden::BTile& b, golden::F16Mat& acc) {
    gemm_step(*ctx.profile, how.simd, a, a_col0, b, acc);
  };
}

LayerBlockLoop block_loop(int threads) {
  if (threads <= 1) return {};
  return [threads](int blocks, const std::function<void(int)>& body) { parallel_for(blocks, threads, [&](int t, int) { body(t); }); };
}

}  // namespace

void run_layer_frame_fast(LayerFrame& f, const Profile& profile, const Readings& r, const LayerReadings& lr, const LayerEngine& how,
                          golden::LayerStats* stats, const TraceRequest* trace, Trace* trace_out) {
  if (f.weights) require_runnable(f.weights->layer());
  if (!f.weights || f.weights->layer() == LayerId::enc5)
    throw std::invalid_argument(
        "run_layer_frame_fast: the weights are not an image of a layer other than enc5 (enc5 runs through run_frame)");
  const LayerSpec& s = layer_spec(f.weights->layer());
  // dec4 (enc5's dimensions after its front): the front on the golden parts with engine GEMM
  // k-steps, then enc5's fused engine on the image after B0 (dec4's phases 2..61 are enc5's 1..60
  // offset for offset, DecoderFront.AfterTheFrontDec4IsEnc5), its final phase (enc5's 61) on the
  // engine and the decoder final (golden: per pixel, small).
  if (s.front.kind == FrontKind::patch_expand && s.channels == 160 && s.heads == 8) {
    const std::uint32_t b0 = weight_map(s).g1();
    const WeightImage tail(std::vector<std::uint8_t>(f.weights->bytes().begin() + b0, f.weights->bytes().end()),
                           std::string(s.name) + " after B0");
    const std::shared_ptr<const PreparedWeights> prepared = prepare_weights(tail);
    BOperand final_b;
    std::vector<f16_t> final_bias;
    int final_steps = 0;
    prepare_final_phase(tail, layer_spec(LayerId::enc5), final_b, final_bias, final_steps);
    run_layer_frame_with(
        f, profile, r, lr, stats, trace, trace_out,
        [&](const golden::BlockContext& ctx, const golden::LayerBlockIo& io) {
          const GemmStep step = engine_steps(ctx, how);
          golden::BlockContext front = ctx;
          front.gemm_step = &step;
          const golden::PrologueOut staged = golden::decoder_front(front, lr.decoder_front, io.input_arena, io.skip_arena);
          golden::BlockContext body = ctx;
          body.weights = &tail;
          const golden::E4Mat a61 = run_block_through_e60(*prepared, how.simd, body, {{}, io.output_arena, nullptr, nullptr}, 1, &staged);
          const golden::F16Mat d = gemm_seeded(*ctx.profile, how.simd, a61, final_b, final_steps, final_bias);
          if (io.texture && io.surfaces.s112)
            golden::decoder_final(ctx, lr.decoder_final, d, {io.texture, io.texture96, io.texture104, io.scale[0], io.scale[1]},
                                  *io.surfaces.s112);
        },
        block_loop(how.threads));
    return;
  }
  // The engine's fused kernels are written for enc5's dimensions (C = 160, 8 heads: issue 33 takes
  // the others on) and enc5's prologue; another layer (a decoder's front too) runs the golden parts
  // with every k-step on engine::gemm.
  if (s.channels != 160 || s.heads != 8 || s.front.kind != FrontKind::none || !s.merge()) {
    run_layer_frame_with(
        f, profile, r, lr, stats, trace, trace_out,
        [&](const golden::BlockContext& ctx, const golden::LayerBlockIo& io) {
          const GemmStep step = engine_steps(ctx, how);
          golden::BlockContext fast = ctx;
          fast.gemm_step = &step;
          golden::run_layer_block(fast, lr, io);
        },
        block_loop(how.threads));
    return;
  }
  const std::shared_ptr<const PreparedWeights> prepared = prepare_weights(*f.weights);  // phases 1..60: enc5's
  const MergeLayerWeights mw = prepare_merge_layer(*f.weights, s);
  run_layer_frame_with(
      f, profile, r, lr, stats, trace, trace_out,
      [&](const golden::BlockContext& ctx, const golden::LayerBlockIo& io) {
        const golden::E4Mat a60 = run_block_through_e60(*prepared, how.simd, ctx, {io.input_arena, io.output_arena, nullptr, nullptr});
        const golden::E4Mat merged = golden::merge_gather(lr, a60);
        const golden::F16Mat d61 = gemm_seeded(*ctx.profile, how.simd, merged, mw.merge, mw.merge_steps, mw.merge_bias);
        golden::merge_store(ctx, lr, d61, io.merged_output);
        const golden::F16Mat d62 = gemm_seeded(*ctx.profile, how.simd, a60, mw.final_b, mw.final_steps, mw.final_bias);
        if (io.texture && io.surfaces.s112 && io.surfaces.s120 && io.surfaces.s128) golden::e62(ctx, lr, d62, *io.texture, io.surfaces);
      },
      block_loop(how.threads));
}

}  // namespace rrswin::engine
