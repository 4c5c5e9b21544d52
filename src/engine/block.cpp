// One block, the fast way (engine.hpp). The order of work and every rounding are those of the
// golden model (src/model/, facts C0..C14); what changes is how they are computed:
//  * GEMM phases: gemm.hpp's exact vectorised kernels on operands decoded once;
//  * functions of one f16 (E11's exponent, E21's activation, the e4m3 requantisation q8): tables
//    filled by the golden functions themselves (tables.cpp);
//  * f16 add/mul: binary32 hardware + one exact rounding (fast_f16.hpp);
//  * E61: golden::e61 itself, with its exponentials tabulated.
// The statistics counters are incremented exactly where and as often as the golden model's.
#include <algorithm>
#include <array>
#include <atomic>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "model/texture_surface.hpp"
#include "engine/engine.hpp"
#include "engine/fast_f16.hpp"
#include "engine/prepared.hpp"
#include "layout/arena.hpp"
#include "layout/fragment.hpp"
#include "model/phase_program.hpp"
#include "numerics/approx.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"

namespace enc5::engine {

namespace {

using golden::E4Mat;
using golden::F16Mat;
using golden::kChannels;
using golden::kChunks;
using golden::kHeadDim;
using golden::kHeads;
using golden::kLogits;
using golden::kTokens;
using golden::kWindow;
using golden::LayerStats;

// q8 (cvt.rn.satfinite.e4m3x2.f16x2) with golden::quantise's statistics.
struct Quantiser {
  const e4m3_t* table;
  LayerStats* stats;
  e4m3_t operator()(f16_t h) const {
    if (stats) {
      const unsigned mag = h & 0x7FFFu;
      if (mag != 0 && mag < 0x0400u) ++stats->f16_subnormal;
      if (mag > 0x5F00u && mag <= 0x7C00u) ++stats->e4m3_saturated;
    }
    return table[h];
  }
  void rows(const F16Mat& m, int nrows, E4Mat& out) const {
    out = E4Mat(nrows, m.cols);
    for (std::size_t i = 0; i < out.v.size(); ++i) out.v[i] = (*this)(m.v[i]);
  }
};

// The A fragment map in pair order (layout::a_element_pair) as a table: [lane][reg][byte].
struct APairMap {
  std::array<std::array<std::array<layout::RowK, 4>, 4>, 32> e;
};
const APairMap& a_pair_map() {
  static const APairMap m = [] {
    APairMap t{};
    for (int lane = 0; lane < 32; ++lane)
      for (int o = 0; o < 4; ++o)
        for (int j = 0; j < 4; ++j) t.e[lane][o][j] = layout::a_element_pair(lane, o, j);
    return t;
  }();
  return m;
}

// e4m3_to_f16 (exact) of every code, by the numerics function itself.
const std::array<f16_t, 256>& e4m3_f16_table() {
  static const std::array<f16_t, 256> t = [] {
    std::array<f16_t, 256> m{};
    for (int c = 0; c < 256; ++c) m[static_cast<std::size_t>(c)] = e4m3_to_f16(static_cast<e4m3_t>(c));
    return m;
  }();
  return t;
}


// Per-thread scratch, reused from block to block.
// A worker's scratch: one head's phases 1..12 (one per worker when the heads of a block run in
// parallel) and the MLP of the worker's rows.
struct HeadScratch {
  std::array<F16Mat, 11> d;  // phases 1..10
  AOperand a_q, a_p;
  BOperand b_q, b_v;
  F16Mat s;
  E4Mat qa, qb, pq, vq;
  // ... and the MLP of a worker's rows
  AOperand a_n, a_act;
  F16Mat h;
  E4Mat aq;
  golden::LayerStats stats;  // a worker's counts, added to the block's at the end
};
struct Scratch {
  F16Mat x;            // 96 x 160 decoded input (the residual)
  F16Mat xn;           // its RMS norm (before q8)
  E4Mat h1;            // 96 x 160 staged A
  AOperand a_h1, a_o, a_61;
  std::vector<HeadScratch> heads;  // one per worker
  std::array<F16Mat, kHeads> o;  // D12 per head
  F16Mat s, p, c13, chain, d20, n, c22, h, act, d60, d61;
  E4Mat oq, nq, a61;
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

PhaseTimes* g_timing = nullptr;

// The calling thread's CPU time in seconds: unlike wall-clock time it does not grow while other
// processes hold the core (the bench machine is shared).
double thread_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Adds the thread CPU time since the previous lap to a group (no-op unless timing is on).
struct Laps {
  PhaseTimes* t = g_timing;
  double last = t ? thread_seconds() : 0.0;
  void lap(PhaseGroup g) {
    if (!t) return;
    const double now = thread_seconds();
    t->seconds[g] += now - last;
    last = now;
  }
};

}  // namespace

void set_phase_timing(PhaseTimes* t) { g_timing = t; }

void run_block(const PreparedWeights& w, SimdPath simd, const golden::BlockContext& ctx, const golden::BlockIo& io,
               int inner_threads) {
  Scratch& S = scratch();
  Laps laps;
  const Profile& prof = *ctx.profile;
  const Readings& rd = *ctx.readings;
  const EpilogueTables& tab = epilogue_tables();
  const KernelSet ks = kernels(simd);
  const unsigned dec = decode_for(prof, simd);  // only the decoded forms this profile's kernels read
  const Quantiser q8{prof.e4m3_nan_keeps_sign ? tab.q8_zluda.data() : tab.q8_ada.data(), ctx.stats};
  auto gemm_ = [&](const AOperand& a, int a_k0, const BOperand& b, int b_k0, int ksteps, int rows, F16Mat& d) {
    gemm(prof, simd, a, a_k0, b, b_k0, ksteps, rows, d.v.data(), d.cols);
  };

  // ---- prologue (facts B1..B6; golden prologue.cpp) ----
  S.x = F16Mat(kTokens, kChannels);
  S.h1 = E4Mat(kTokens, kChannels);
  {
    const ArenaOrder order = rd.prologue_load_order == PrologueLoadOrder::fragment ? ArenaOrder::fragment : ArenaOrder::natural;
    const APairMap& am = a_pair_map();
    golden::ArenaSlot slots[4][4];  // [o][t]: a function of the reading only
    for (int o = 0; o < 4; ++o)
      for (int t = 0; t < 4; ++t) slots[o][t] = golden::arena_slot(order, o, t);
    const std::array<f16_t, 256>& to_f16 = e4m3_f16_table();
    for (int mi = 0; mi < kTokens / 16; ++mi) {
      std::array<std::array<int, 2>, 16> px;
      for (int i = 0; i < 16; ++i) px[i] = golden::token_pixel(ctx, 16 * mi + i);
      for (int q = 0; q < 5; ++q)
        for (int lane = 0; lane < 32; ++lane)
          for (int o = 0; o < 4; ++o) {
            const int g = lane >> 2, t = lane & 3;
            const golden::ArenaSlot slot = slots[o][t];
            const auto& pix = px[g + 8 * slot.row_half];
            const std::uint32_t word = golden::input_word(ctx, io.input_arena, q, pix[0], pix[1], slot.word);
            for (int j = 0; j < 4; ++j) {
              const layout::RowK e = am.e[lane][o][j];
              S.x.at(16 * mi + e.row, 32 * q + e.k) = to_f16[(word >> (8 * j)) & 0xFFu];
            }
          }
    }
    const f16_t eps = golden::prologue_eps(rd);
    if (rd.prologue_norm == PrologueNorm::identity) {
      q8.rows(S.x, kTokens, S.h1);
    } else {
      S.xn = F16Mat(kTokens, kChannels);
      ks.rms_rows({S.x.v.data(), S.xn.v.data(), kTokens, static_cast<int>(rd.prologue_sum_tree), eps, w.g1.data(),
                   tab.rsqrt.data()});
      q8.rows(S.xn, kTokens, S.h1);
    }
  }
  S.a_h1.assign(S.h1.v.data(), kTokens, kChannels, kChannels, dec, simd);
  laps.lap(kGroupPrologue);

  // ---- attention per head (facts C2..C5; golden attention.cpp) ----
  // The heads are independent until E12 (each reads the staged A and writes its own O), so a block
  // alone on several cores (a frame with fewer blocks than threads) runs them on `workers` threads;
  // statistics are sums, gathered per worker and added in worker order.
  const int workers = std::clamp(inner_threads, 1, kHeads);
  if (static_cast<int>(S.heads.size()) < workers) S.heads.resize(static_cast<std::size_t>(workers));
  auto run_head = [&](int h, HeadScratch& H, golden::LayerStats* stats, Laps* laps_or_null) {
    const Quantiser hq8{q8.table, stats};
    auto lap = [&](PhaseGroup g) {
      if (laps_or_null) laps_or_null->lap(g);
    };
    for (int p = 1; p <= 10; ++p) {  // chain A (odd) = Q, chain B (even) = V
      const Phase& ph = phase(p);
      if (ph.c == OperandSource::previous_d) H.d[p] = std::move(H.d[ph.c_chain_from]);  // each D seeds one C only: no copy
      else H.d[p] = F16Mat(kTokens, kHeadDim, 0);
      gemm_(S.a_h1, 32 * ((p - 1) / 2), w.qv[h][p], 0, 1, kTokens, H.d[p]);
    }
    lap(kGroupQV);
    const F16Mat& Q = H.d[9];
    const F16Mat& V = H.d[10];
    // Phase 11 (facts C3): S = bias + q8(Q[0..63]) q8(Q)^T; E10 quantises rows 0..63 and all 96.
    hq8.rows(Q, kWindow, H.qa);
    hq8.rows(Q, kTokens, H.qb);
    H.a_q.assign(H.qa.v.data(), kWindow, kHeadDim, kHeadDim, dec, simd);
    H.b_q.assign_nk(H.qb.v.data(), kTokens, kHeadDim, kHeadDim, dec, simd);
    H.s = F16Mat(kWindow, kTokens);
    std::copy(w.score_bias[h].begin(), w.score_bias[h].end(), H.s.v.begin());
    gemm_(H.a_q, 0, H.b_q, 0, 1, kWindow, H.s);
    lap(kGroupScore);
    // E11 (facts C4): exponents, row sums, reciprocal, probabilities; then q8(P).
    H.pq = E4Mat(kWindow, kTokens);
    {
      EpilogueCounts n{};
      ks.e11_rows({H.s.v.data(), H.pq.v.data(), kWindow, tab.e11.data(), tab.e11_clamp.data(), tab.rcp.data(), hq8.table,
                   stats ? &n : nullptr});
      if (stats) {
        stats->e11_clamp_low += n.e11_clamp_low;
        stats->e11_clamp_high += n.e11_clamp_high;
        stats->p_quantised_zero += n.p_quantised_zero;
        stats->f16_subnormal += n.f16_subnormal;
        stats->e4m3_saturated += n.e4m3_saturated;
      }
    }
    lap(kGroupE11);
    // Phase 12 (facts C5): O = q8(P) q8(V), 3 k-steps over the 96 keys.
    hq8.rows(V, kTokens, H.vq);
    H.a_p.assign(H.pq.v.data(), kWindow, kTokens, kTokens, dec, simd);
    H.b_v.assign_kn(H.vq.v.data(), kTokens, kHeadDim, kHeadDim, dec, simd);
    S.o[h] = F16Mat(kWindow, kHeadDim, 0);
    gemm_(H.a_p, 0, H.b_v, 0, 3, kWindow, S.o[h]);
    lap(kGroupPV);
  };
  if (workers == 1) {
    for (int h = 0; h < kHeads; ++h) run_head(h, S.heads[0], ctx.stats, &laps);
  } else {
    std::atomic<int> next{0};
    auto work = [&](int i) {
      HeadScratch& H = S.heads[static_cast<std::size_t>(i)];
      H.stats = {};
      for (int h; (h = next.fetch_add(1)) < kHeads;) run_head(h, H, ctx.stats ? &H.stats : nullptr, nullptr);
    };
    std::vector<std::thread> pool;
    for (int i = 1; i < workers; ++i) pool.emplace_back(work, i);
    work(0);
    for (auto& t : pool) t.join();
    if (ctx.stats)
      for (int i = 0; i < workers; ++i) ctx.stats->add(S.heads[static_cast<std::size_t>(i)].stats);
    laps.lap(kGroupQV);  // the whole attention, when timed with several workers
  }

  // ---- E12 + phases 13..20 (facts C6, C7; golden out_projection.cpp) ----
  {
    std::array<f16_t, kChannels> t1 = golden::load_column_table(*ctx.weights, wmap::t1, rd.t1_chunk_order);
    S.c13 = F16Mat(kWindow, kChannels);
    const F16Mat* residual = &S.x;
    if (rd.c13_residual != C13Residual::raw_input) {  // the staged (quantised) input
      S.xn = F16Mat(kWindow, kChannels);
      for (std::size_t i = 0; i < S.xn.v.size(); ++i) S.xn.v[i] = e4m3_f16_table()[S.h1.v[i]];
      residual = &S.xn;
    }
    ks.add_rows({t1.data(), residual->v.data(), S.c13.v.data(), kWindow});
    std::array<F16Mat, 21> D;
    for (int p = 13; p <= 20; ++p) {
      const Phase& ph = phase(p);
      q8.rows(S.o[p - 13], kWindow, S.oq);
      S.a_o.assign(S.oq.v.data(), kWindow, kHeadDim, kHeadDim, dec, simd);
      D[p] = ph.c == OperandSource::previous_d ? std::move(D[ph.c_chain_from]) : std::move(S.c13);
      gemm_(S.a_o, 0, w.wo[p - 13], 0, 1, kWindow, D[p]);
    }
    S.d20 = std::move(D[20]);
  }
  laps.lap(kGroupOutProj);

  // ---- E20 (facts C8; golden rms_norm.cpp e20_norm) ----
  {
    const auto g2 = golden::load_column_table(*ctx.weights, wmap::g2, rd.g2_chunk_order);
    S.n = F16Mat(kWindow, kChannels);
    ks.rms_rows({S.d20.v.data(), S.n.v.data(), kWindow, static_cast<int>(rd.e20_sum_tree), 0x0800, g2.data(), tab.rsqrt.data()});
  }

  laps.lap(kGroupE20);
  // ---- MLP (facts C9..C11; golden mlp.cpp) ----
  // Every token row is independent here, so a block alone on several threads splits its 64 rows
  // between the workers. The down projections' chain (phase 22's C = the seed, phase 24's C =
  // D22, ...: phase_program.cpp) accumulates in place in the seed's rows.
  {
    q8.rows(S.n, kWindow, S.nq);
    const auto t3 = golden::load_column_table(*ctx.weights, wmap::t3, rd.t3_chunk_order);
    S.c22 = F16Mat(kWindow, kChannels);
    ks.add_rows({t3.data(), (rd.e21_residual == E21Residual::d20 ? S.d20 : S.n).v.data(), S.c22.v.data(), kWindow});
    for (int c = 0; c < kChunks; ++c) {
      const Phase& down = phase(22 + 2 * c);
      const bool chained = c == 0 ? down.c != OperandSource::previous_d : down.c == OperandSource::previous_d && down.c_chain_from == 20 + 2 * c;
      if (!chained) std::abort();  // the phase program is fixed by the spec; this code relies on it
    }
    auto mlp_rows = [&](int r0, int r1, HeadScratch& W, golden::LayerStats* stats) {
      const int n = r1 - r0;
      const Quantiser wq8{q8.table, stats};
      W.a_n.assign(S.nq.v.data() + static_cast<std::size_t>(r0) * kChannels, n, kChannels, kChannels, dec, simd);
      f16_t* chain = S.c22.v.data() + static_cast<std::size_t>(r0) * kChannels;
      for (int c = 0; c < kChunks; ++c) {
        const int p = 21 + 2 * c;
        W.h = F16Mat(n, kHeadDim);
        for (int r = 0; r < n; ++r) std::copy(w.b1[c].begin(), w.b1[c].end(), &W.h.v[static_cast<std::size_t>(r) * kHeadDim]);
        gemm(prof, simd, W.a_n, 0, w.w1[c], 0, phase(p).k_steps, n, W.h.v.data(), kHeadDim);
        W.aq = E4Mat(n, kHeadDim);
        for (std::size_t i = 0; i < W.h.v.size(); ++i) {
          const f16_t y0 = W.h.v[i];
          if (stats) {
            stats->act_clamp_low += tab.act_clamp[y0] & 1;
            stats->act_clamp_high += (tab.act_clamp[y0] >> 1) & 1;
          }
          W.aq.v[i] = wq8(tab.act[y0]);
        }
        W.a_act.assign(W.aq.v.data(), n, kHeadDim, kHeadDim, dec, simd);
        gemm(prof, simd, W.a_act, 0, w.w2[c], 0, 1, n, chain, kChannels);
      }
    };
    if (workers == 1) {
      mlp_rows(0, kWindow, S.heads[0], ctx.stats);
    } else {
      const int per = (kWindow + workers - 1) / workers;
      auto work = [&](int i) {
        HeadScratch& W = S.heads[static_cast<std::size_t>(i)];
        W.stats = {};
        const int r0 = std::min(kWindow, i * per), r1 = std::min(kWindow, r0 + per);
        if (r0 < r1) mlp_rows(r0, r1, W, ctx.stats ? &W.stats : nullptr);
      };
      std::vector<std::thread> pool;
      for (int i = 1; i < workers; ++i) pool.emplace_back(work, i);
      work(0);
      for (auto& t : pool) t.join();
      if (ctx.stats)
        for (int i = 0; i < workers; ++i) ctx.stats->add(S.heads[static_cast<std::size_t>(i)].stats);
    }
    S.d60 = std::move(S.c22);
  }
  laps.lap(kGroupMlp);

  // ---- E60 (facts C13; golden arena_scatter.cpp) ----
  {
    q8.rows(S.d60, kWindow, S.a61);
    const layout::PlaneArena pa{ctx.ex, ctx.ey};
    const APairMap& am = a_pair_map();
    for (int z = 0; z < 4; ++z)
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane >> 2, t = lane & 3;
        for (int q = 0; q < 5; ++q)
          for (int o = 0; o < 4; ++o) {
            const golden::ArenaSlot slot = golden::arena_slot(rd.arena_order, o, t);
            const int x = ctx.x0 + g, y = ctx.y0 + 2 * z + slot.row_half;
            const bool lane_dropped = golden::e60_lane_dropped(rd, lane);
            if (!pa.in_frame(x, y) || lane_dropped) {
              if (ctx.stats) ++ctx.stats->arena_stores_dropped;
              continue;
            }
            if (ctx.stats) ++ctx.stats->arena_stores;
            std::uint32_t word = 0;
            for (int j = 0; j < 4; ++j) {
              const layout::RowK e = am.e[lane][o][j];
              word |= static_cast<std::uint32_t>(S.a61.at(16 * z + e.row, 32 * q + e.k)) << (8 * j);
            }
            std::memcpy(io.output_arena.data() + 4 * pa.word_index(q, x, y, slot.word), &word, 4);
          }
      }
  }

  // ---- phase 61 + E61 (facts C12, C14) ----
  S.a_61.assign(S.a61.v.data(), kWindow, kChannels, kChannels, dec, simd);
  S.d61 = F16Mat(kWindow, kLogits);
  for (int r = 0; r < kWindow; ++r) std::copy(w.b61.begin(), w.b61.end(), &S.d61.v[static_cast<std::size_t>(r) * kLogits]);
  gemm_(S.a_61, 0, w.w61, 0, phase(61).k_steps, kWindow, S.d61);
  // E61 is golden::e61 itself, with its exponentials tabulated (a function of one f16).
  golden::e61(ctx, S.d61, *io.texture, *io.surface, tab.e61_exp.data());
  laps.lap(kGroupTail);
}

}  // namespace enc5::engine
