// One block, the fast way (engine.hpp). The order of work and every rounding are those of the
// golden model (src/model/, facts C0..C14), and every fact of the layer is the golden model's: the
// readings are consulted only through golden functions (the prologue's loads and norm, the C13 /
// C22 residuals, E60's stores, E61), shapes and phase numbers come from the layer's row and phase
// program (model/layer_spec.hpp, layer_program.hpp: enc5's, or another layer of the template whose
// C / 8 the epilogue kernels are instantiated for, kernel_args.hpp kFusedNTiles), and what the
// engine adds is how things are computed:
//  * GEMM phases: gemm.hpp's exact vectorised kernels on operands decoded once;
//  * functions of one f16 (E11's exponent, E21's activation, the e4m3 requantisation q8): tables
//    filled by the golden functions themselves (tables.cpp), handed to the golden code as hooks
//    where it runs the part itself (e4m3 -> f16 in the prologue, E61's exponentials);
//  * the f16 epilogues (RMS norms, E11, C seeds): per-ISA vector code over the golden trees
//    (model/sum_tree.hpp, epilogue_impl.hpp).
// The statistics counters are incremented exactly where and as often as the golden model's.
// One function per part, named as the golden files are.
#include <algorithm>
#include <array>
#include <cstring>
#include <ctime>
#include <mutex>
#include <span>
#include <stdexcept>
#include <vector>

#include "engine/engine.hpp"
#include "engine/prepared.hpp"
#include "engine/workers.hpp"
#include "layout/arena.hpp"
#include "layout/fragment.hpp"
#include "model/layer_program.hpp"
#include "model/phase_program.hpp"
#include "model/q8_stats.hpp"
#include "model/texture_surface.hpp"
#include "numerics/e4m3.hpp"

namespace rrswin::engine {

namespace {

using golden::E4Mat;
using golden::F16Mat;
using golden::kChannels;
using golden::kHeadDim;
using golden::kHeads;
using golden::kLogits;
using golden::kTokens;
using golden::kWindow;
using golden::LayerStats;

// m = F16Mat(r, c, fill) / E4Mat(r, c) without an allocation once the per-thread scratch has its
// sizes (vector::assign keeps the capacity): a block made ~130 allocations before.
void reset(F16Mat& m, int r, int c, f16_t fill = 0) {
  m.rows = r;
  m.cols = c;
  m.v.assign(static_cast<std::size_t>(r) * c, fill);
}
// r x c without filling: for a buffer whose every element its producer writes before anything reads
// it (a q8 of whole rows, a norm's or seed's rows, a bias copied into every row, E11's P). The
// buffers keep their size from block to block, so this is no work after the first; a zero fill
// there was 1-2 % of a C = 32 block (memset in `perf`).
template <class Mat>
void shape(Mat& m, int r, int c) {
  m.rows = r;
  m.cols = c;
  m.v.resize(static_cast<std::size_t>(r) * c);
}

// q8 (cvt.rn.satfinite.e4m3x2.f16x2) by the golden function's table, with golden::quantise's
// statistics (model/q8_stats.hpp).
struct Quantiser {
  const e4m3_t* table;
  LayerStats* stats;
  // Without statistics, on the avx512vnni, avx512 and avx2 paths: q8 in vector arithmetic
  // (q8_run_avx512, q8_run_avx2 on the other two; checked against numerics for every f16), with
  // the profile's NaN sign.
  void (*run)(const f16_t*, e4m3_t*, std::size_t, bool) = nullptr;
  bool nan_keeps_sign = false;
  e4m3_t operator()(f16_t h) const {
    if (stats) {
      stats->f16_subnormal += golden::q8_counts_subnormal(h);
      stats->e4m3_saturated += golden::q8_counts_saturated(h);
    }
    return table[h];
  }
  void rows(const F16Mat& m, int nrows, E4Mat& out) const {
    shape(out, nrows, m.cols);
    // Pointers in locals: a byte store through out.v may alias anything (char), which would make
    // the compiler reload the vectors' data pointers and the table after every element.
    const std::size_t n = out.v.size();
    const f16_t* const src = m.v.data();
    e4m3_t* const dst = out.v.data();
    const e4m3_t* const t = table;
    if (stats) {
      for (std::size_t i = 0; i < n; ++i) dst[i] = (*this)(src[i]);
      return;
    }
    if (run) {
      run(src, dst, n, nan_keeps_sign);
      return;
    }
    for (std::size_t i = 0; i < n; ++i) dst[i] = t[src[i]];
  }
};

// The epilogue kernels' counts into the block's statistics (the one place they are folded).
void add_counts(LayerStats& s, const EpilogueCounts& n) {
  s.e11_clamp_low += n.e11_clamp_low;
  s.e11_clamp_high += n.e11_clamp_high;
  s.p_quantised_zero += n.p_quantised_zero;
  s.f16_subnormal += n.f16_subnormal;
  s.e4m3_saturated += n.e4m3_saturated;
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

// Where the 16 fragment registers of a lane go in the plane arena, and which elements of a 16-row
// tile they hold, for both arena orders and every row length C = 32 x (1..5) k-slices: slot
// [lane][o] = golden::arena_slot(order, o, t) (the pixel row g + 8 row_half of the tile and the
// word d) and the four bytes' elements a_element_pair(lane, o, j) as offsets row * C + k. The
// prologue's loads and E60's stores walk the golden model's loops (prologue.cpp, arena_scatter.cpp)
// through it: the same words, elements and order, without the per-element index arithmetic.
struct FragmentSlot {
  std::uint8_t row_half, word;
  std::uint8_t src;  // the word's index in a tile's 16 pixels x 8 words: 8 (g + 8 row_half) + word
  std::array<std::uint16_t, 4> dst;
};
using FragmentSlots = std::array<FragmentSlot, 32 * 4>;  // [4 lane + o]
constexpr int kMaxSlices = kChannels / 32;               // enc5's C, the widest row (PreparedWeights)
const FragmentSlots& fragment_slots(ArenaOrder order, int channels) {
  static const std::array<std::array<FragmentSlots, kMaxSlices + 1>, 2> tables = [] {
    std::array<std::array<FragmentSlots, kMaxSlices + 1>, 2> m{};
    const layout::APairTable& am = layout::a_element_pair_table();
    for (const ArenaOrder ord : {ArenaOrder::fragment, ArenaOrder::natural})
      for (int slices = 1; slices <= kMaxSlices; ++slices)
        for (int lane = 0; lane < 32; ++lane)
          for (int o = 0; o < 4; ++o) {
            const golden::ArenaSlot slot = golden::arena_slot(ord, o, lane & 3);
            FragmentSlot& f = m[static_cast<std::size_t>(ord)][static_cast<std::size_t>(slices)][static_cast<std::size_t>(4 * lane + o)];
            f.row_half = static_cast<std::uint8_t>(slot.row_half);
            f.word = static_cast<std::uint8_t>(slot.word);
            f.src = static_cast<std::uint8_t>(8 * ((lane >> 2) + 8 * slot.row_half) + slot.word);
            for (int j = 0; j < 4; ++j)
              f.dst[static_cast<std::size_t>(j)] = static_cast<std::uint16_t>(am[lane][o][j].row * 32 * slices + am[lane][o][j].k);
            // The pair order (facts §0.4): bytes 0, 1 and bytes 2, 3 are k and k + 1 of one row,
            // which prologue_loads stores as f16 pairs.
            if (f.dst[1] != f.dst[0] + 1 || f.dst[3] != f.dst[2] + 1)
              throw std::logic_error("fragment_slots: a register's bytes are not two k pairs");
          }
    return m;
  }();
  if (channels % 32 || channels < 32 || channels > kChannels) throw std::logic_error("fragment_slots: C is not 32 x 1..5");
  return tables[order == ArenaOrder::natural ? 1 : 0][static_cast<std::size_t>(channels / 32)];
}

}  // namespace

// golden::prologue_gather (facts B1/B5) computed the same way: per m-tile its 16 pixels' words of
// every plane (the layer's C/32) are read once (the 8 words of an in-frame pixel are contiguous;
// outside the frame golden::input_word gives the fill reading's words), then each lane's registers are decoded into
// their elements in the golden loop's order (mi, q, lane, o, j). Out of line: profiles name it.
[[gnu::noinline]] void prologue_loads(const golden::BlockContext& ctx, std::span<const std::uint8_t> arena, F16Mat& x) {
  const int planes = ctx.layer().k_slices(), C = 32 * planes;
  reset(x, kTokens, C);
  const FragmentSlots& slots = fragment_slots(golden::prologue_arena_order(*ctx.readings), C);
  const layout::PlaneArena pa{ctx.ex, ctx.ey, planes};
  const f16_t* const dec = e4m3_f16_table().data();
  f16_t* const out = x.v.data();
  constexpr int kPlanes = layout::PlaneArena::kPlanes, kWords = layout::PlaneArena::kWordsPerPixel;
  static_assert(kPlanes == kMaxSlices);
  for (int mi = 0; mi < kTokens / 16; ++mi) {
    std::uint32_t words[kPlanes][16 * kWords];
    for (int i = 0; i < 16; ++i) {
      const std::array<int, 2> px = golden::token_pixel(ctx, 16 * mi + i);
      if (pa.in_frame(px[0], px[1])) {
        for (int q = 0; q < planes; ++q)
          std::memcpy(&words[q][kWords * i], arena.data() + 4 * pa.word_index(q, px[0], px[1], 0), 4 * kWords);
      } else {
        for (int q = 0; q < planes; ++q)
          for (int d = 0; d < kWords; ++d) words[q][kWords * i + d] = golden::input_word(ctx, arena, q, px[0], px[1], d);
      }
    }
    for (int q = 0; q < planes; ++q) {
      f16_t* const tile = out + static_cast<std::size_t>(16 * mi) * C + 32 * q;
      for (const FragmentSlot& f : slots) {  // cvt.rn.f16x2.e4m3x2 (exact) of each byte pair
        const std::uint32_t w = words[q][f.src];
        const std::uint32_t lo = dec[w & 0xFFu] | static_cast<std::uint32_t>(dec[(w >> 8) & 0xFFu]) << 16;
        const std::uint32_t hi = dec[(w >> 16) & 0xFFu] | static_cast<std::uint32_t>(dec[w >> 24]) << 16;
        std::memcpy(tile + f.dst[0], &lo, 4);  // little endian: the lower k first
        std::memcpy(tile + f.dst[2], &hi, 4);
      }
    }
  }
}

// golden::expand_a (the decoders' phase-1 A: the enc5 prologue's register loads at half resolution,
// decoder_front.cpp) computed the same way: per m-tile its 16 tokens' words of every plane read once
// (outside the half-resolution frame the fill reading's: 0, or the clamped token's), then each
// lane's registers' bytes placed by the slot table of the expand-load-order reading. Out of line:
// profiles name it.
[[gnu::noinline]] golden::E4Mat expand_loads(const golden::BlockContext& ctx, const DecoderFrontReadings& fr,
                                             std::span<const std::uint8_t> input) {
  const LayerSpec& s = ctx.layer();
  const int K = s.front.k, planes = K / 32;
  constexpr int kRows = 48, kWords = layout::PlaneArena::kWordsPerPixel;  // phase 1's three m-tiles
  const layout::PlaneArena pa{ctx.ex >> 1, ctx.ey >> 1, planes};
  const ArenaOrder order = fr.load_order == ExpandLoadOrder::natural ? ArenaOrder::natural : ArenaOrder::fragment;
  const FragmentSlots& slots = fragment_slots(order, K);
  golden::E4Mat a(kRows, K);
  for (int mi = 0; mi < kRows / 16; ++mi) {
    std::uint32_t words[kMaxSlices][16 * kWords];
    for (int i = 0; i < 16; ++i) {
      std::array<int, 2> tok = golden::expand_token(ctx.x0, ctx.y0, 16 * mi + i);
      if (!pa.in_frame(tok[0], tok[1]) && fr.fill != ExpandFill::clamp) {
        for (int q = 0; q < planes; ++q) std::fill_n(&words[q][kWords * i], kWords, 0u);
        continue;
      }
      tok[0] = std::clamp(tok[0], 0, pa.ex - 1);
      tok[1] = std::clamp(tok[1], 0, pa.ey - 1);
      for (int q = 0; q < planes; ++q)
        std::memcpy(&words[q][kWords * i], input.data() + 4 * pa.word_index(q, tok[0], tok[1], 0), 4 * kWords);
    }
    for (int q = 0; q < planes; ++q) {
      e4m3_t* const tile = a.v.data() + static_cast<std::size_t>(16 * mi) * K + 32 * q;
      for (const FragmentSlot& f : slots) {
        const std::uint32_t w = words[q][f.src];
        for (int j = 0; j < 4; ++j) tile[f.dst[static_cast<std::size_t>(j)]] = static_cast<e4m3_t>(w >> (8 * j));
      }
    }
  }
  return a;
}

namespace {

// golden::e60_store (facts C13) computed the same way: each lane's 4 C/32 words gathered from q8(D60)
// by the slot table, stored with the golden guards (frame, e60_lane_dropped) and statistics, in the
// golden loop's order (z, lane, q, o). A traced block takes the golden function (its stage). Out
// of line: profiles name it.
[[gnu::noinline]] void e60_stores(const golden::BlockContext& ctx, const E4Mat& a, std::span<std::uint8_t> output_arena) {
  if (ctx.trace_request) {
    golden::e60_store(ctx, a, output_arena);
    return;
  }
  const int planes = a.cols / 32, C = a.cols;
  const FragmentSlots& slots = fragment_slots(golden::e60_arena_order(*ctx.readings), C);
  const layout::PlaneArena pa{ctx.ex, ctx.ey, planes};
  const e4m3_t* const src = a.v.data();
  std::uint8_t* const dst = output_arena.data();
  std::uint64_t stored = 0, dropped = 0;
  for (int z = 0; z < 4; ++z)
    for (int lane = 0; lane < 32; ++lane) {
      const int x = ctx.x0 + (lane >> 2);
      const bool lane_dropped = golden::e60_lane_dropped(*ctx.readings, lane);
      for (int q = 0; q < planes; ++q) {
        const e4m3_t* const tile = src + static_cast<std::size_t>(16 * z) * C + 32 * q;
        for (int o = 0; o < 4; ++o) {
          const FragmentSlot& f = slots[static_cast<std::size_t>(4 * lane + o)];
          const int y = ctx.y0 + 2 * z + f.row_half;
          if (!pa.in_frame(x, y) || lane_dropped) {
            ++dropped;
            continue;
          }
          std::uint32_t w = 0;
          for (int j = 0; j < 4; ++j) w |= static_cast<std::uint32_t>(tile[f.dst[static_cast<std::size_t>(j)]]) << (8 * j);
          std::memcpy(dst + 4 * pa.word_index(q, x, y, f.word), &w, 4);  // little endian
          ++stored;
        }
      }
    }
  if (ctx.stats) {
    ctx.stats->arena_stores += stored;
    ctx.stats->arena_stores_dropped += dropped;
  }
}

// The chains the fused parts keep in place or in per-index buffers, checked once per layer against
// its phase program rather than assumed: a stem phase's C is 0 or an earlier stem phase's D; a
// projection's C is the seed (the first) or an earlier projection's D; the MLP's down projections
// are the linear chain (the first seeded, down phase c's C = down phase c-1's D), which mlp_rows
// accumulates in place in the seed's rows.
void check_chains(const LayerSpec& L, const LayerProgram& prog) {
  static std::array<std::once_flag, kLayerCount> once;
  std::call_once(once[static_cast<std::size_t>(L.id)], [&] {
    bool ok = true;
    // Serial heads (enc1): each head's stem and projection at its own phase numbers.
    for (int h = 0; h < (L.serial_heads() ? L.heads : 1); ++h) {
      const int before = L.first_stem(h) - 1;
      for (int i = 1; i <= L.stem_phases(); ++i) {
        const Phase& ph = prog.phase(before + i);
        if (ph.c == OperandSource::previous_d) ok = ok && ph.c_chain_from > before && ph.c_chain_from < before + i;
      }
    }
    for (int h = 0; h < L.heads; ++h) {
      const Phase& ph = prog.phase(L.projection_phase(h));
      ok = ok &&
           (h == 0 ? ph.c != OperandSource::previous_d : ph.c == OperandSource::previous_d && ph.c_chain_from == L.projection_phase(h - 1));
    }
    for (int c = 0; c < L.chunks; ++c) {
      const Phase& down = prog.phase(L.first_mlp() + 2 * c + 1);
      ok = ok &&
           (c == 0 ? down.c != OperandSource::previous_d : down.c == OperandSource::previous_d && down.c_chain_from == down.number - 2);
    }
    if (!ok)
      throw std::logic_error(golden::cat(
          "engine: ", L.name, "'s phase program chains its stem, projection or MLP down phases otherwise than engine/block.cpp"));
  });
}

// A worker's scratch: one head's phases 1..12 (one per worker when the heads of a block run in
// parallel) and the MLP of the worker's rows.
struct HeadScratch {
  std::array<F16Mat, 2 * kChannels / 32 + 1> d;  // the stem phases' D, index 1..2C/32 (as PreparedWeights::qv)
  AOperand a_q, a_p;
  BOperand b_q, b_v;
  F16Mat s;
  E4Mat qa, qb, pq, vq;
  // ... and the MLP of a worker's rows
  AOperand a_n, a_act;
  F16Mat h;
  E4Mat aq;
  LayerStats stats;  // a worker's counts, added to the block's at the end
};
// Per-thread scratch, reused from block to block.
struct Scratch {
  F16Mat x;   // 96 x C decoded input (the residual)
  F16Mat xn;  // its RMS norm (before q8), or the staged residual of C13
  E4Mat h1;   // 96 x C staged A
  AOperand a_h1, a_o, a_61;
  std::vector<HeadScratch> heads;  // one per worker
  std::array<F16Mat, kHeads> o;    // D12 per head
  F16Mat c13, d20, n, c22, d60, d61;
  std::array<F16Mat, kHeads> d_out;  // the projection phases' D, index = head
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

// One block's run: what every part reads, and the parts in the kernel's order.
struct Block {
  Block(const PreparedWeights& w_, SimdPath simd_, const golden::BlockContext& ctx_, const golden::BlockIo& io_, int workers_)
      : w(w_), simd(simd_), ctx(ctx_), io(io_), workers(workers_) {
    check_chains(L, prog);
  }
  const PreparedWeights& w;
  SimdPath simd;
  const golden::BlockContext& ctx;
  const golden::BlockIo& io;
  int workers;  // threads for the heads and the MLP rows (1 = this thread only)
  // The layer: the weight image's row and phase program (enc5's program is phase_program()).
  const LayerSpec& L = ctx.layer();
  const LayerProgram& prog = ctx.program();
  const int C = L.channels;
  Scratch& S = scratch();
  PhaseLaps laps;
  const Profile& prof = *ctx.profile;
  const EpilogueTables& tab = epilogue_tables();
  const KernelSet kern = kernels(simd);
  const unsigned dec = decode_for(prof, simd);  // only the decoded forms this profile's kernels read
  const Quantiser q8{prof.e4m3_nan_keeps_sign ? tab.q8_zluda.data() : tab.q8_ada.data(), ctx.stats,
                     simd == SimdPath::avx512vnni ? q8_run_avx512
                     : simd != SimdPath::scalar   ? q8_run_avx2
                                                  : nullptr,
                     prof.e4m3_nan_keeps_sign};

  void gemm_phase(const AOperand& a, int a_k0, const BOperand& b, int ksteps, int rows, f16_t* d, int ldd) const {
    gemm(prof, simd, a, a_k0, b, 0, ksteps, rows, d, ldd);
  }
  void gemm_phase(const AOperand& a, int a_k0, const BOperand& b, int ksteps, int rows, F16Mat& d) const {
    gemm_phase(a, a_k0, b, ksteps, rows, d.v.data(), d.cols);
  }
  // An RMS norm (golden NormSpec) of `rows` rows by the ISA's epilogue kernel.
  void rms_norm_rows(const golden::NormSpec& spec, const F16Mat& x, int rows, F16Mat& out) const {
    shape(out, rows, C);
    kern.rms_rows({x.v.data(), out.v.data(), rows, static_cast<int>(spec.tree), spec.eps, spec.gain.data(), C});
  }
  // out[r] = f16(t + x[r]) for `rows` rows (phase 13's and 22's C seeds).
  void seed_rows(const std::vector<f16_t>& t, const F16Mat& x, int rows, F16Mat& out) const {
    shape(out, rows, C);
    kern.add_rows({t.data(), x.v.data(), out.v.data(), rows, C});
  }
  // Runs the block's parallel parts on `workers` threads: task(t, scratch, stats) for t < tasks;
  // statistics are gathered per worker and added in worker order (sums: the order is immaterial).
  template <class Task>
  void on_workers(int tasks, Task task) {
    if (static_cast<int>(S.heads.size()) < workers) S.heads.resize(static_cast<std::size_t>(workers));
    if (workers == 1) {
      for (int t = 0; t < tasks; ++t) task(t, S.heads[0], ctx.stats);
      return;
    }
    for (int i = 0; i < workers; ++i) S.heads[static_cast<std::size_t>(i)].stats = {};
    parallel_for(tasks, workers, [&](int t, int wk) {
      HeadScratch& H = S.heads[static_cast<std::size_t>(wk)];
      task(t, H, ctx.stats ? &H.stats : nullptr);
    });
    if (ctx.stats)
      for (int i = 0; i < workers; ++i) ctx.stats->add(S.heads[static_cast<std::size_t>(i)].stats);
  }

  // ---- prologue (facts B1..B6; golden prologue.cpp) ----
  void prologue() {
    prologue_loads(ctx, io.input_arena, S.x);
    if (const std::optional<golden::NormSpec> norm = golden::prologue_norm_spec(ctx)) {
      rms_norm_rows(*norm, S.x, kTokens, S.xn);
      q8.rows(S.xn, kTokens, S.h1);
    } else {
      q8.rows(S.x, kTokens, S.h1);
    }
    S.a_h1.assign(S.h1.v.data(), kTokens, C, C, dec, simd);
    laps.lap(kGroupPrologue);
  }

  // ---- attention per head (facts C2..C5; golden attention.cpp) ----
  void attention_head(int h, HeadScratch& H, LayerStats* stats, bool timed) {
    const Quantiser hq8{q8.table, stats, q8.run, q8.nan_keeps_sign};
    auto lap = [&](PhaseGroup g) {
      if (timed) laps.lap(g);
    };
    // Stem phase i (phase number i + before: the decoders' front precedes it): chain A (odd) = Q,
    // chain B (even) = V; k-slice (i-1)/2.
    const int before = L.first_stem(L.serial_heads() ? h : 0) - 1, stem = L.stem_phases();
    for (int i = 1; i <= stem; ++i) {
      const Phase& ph = prog.phase(before + i);
      if (ph.c == OperandSource::previous_d)
        std::swap(H.d[i], H.d[ph.c_chain_from - before]);  // each D seeds one C only: no copy (the other keeps a buffer)
      else
        reset(H.d[i], kTokens, kHeadDim, 0);
      gemm_phase(S.a_h1, ph.a_k0, w.qv[h][i], ph.k_steps, kTokens, H.d[i]);
    }
    lap(kGroupQV);
    const F16Mat& Q = H.d[stem - 1];
    const F16Mat& V = H.d[stem];
    // The score phase (facts C3; enc5's 11): S = bias + q8(Q[0..63]) q8(Q)^T; E10 quantises rows
    // 0..63 and all 96.
    // q8 of rows 0..63 is the first 64 rows of q8 of all 96: quantised once unless the statistics
    // count each of golden's two packs (golden attention.cpp: qa and qb).
    hq8.rows(Q, kTokens, H.qb);
    const e4m3_t* qa = H.qb.v.data();
    if (stats) {
      hq8.rows(Q, kWindow, H.qa);
      qa = H.qa.v.data();
    }
    H.a_q.assign(qa, kWindow, kHeadDim, kHeadDim, dec, simd);
    H.b_q.assign_nk(H.qb.v.data(), kTokens, kHeadDim, kHeadDim, dec, simd);
    shape(H.s, kWindow, kTokens);  // every score seeded (prepared.cpp: the bias is kWindow x kTokens)
    std::copy(w.score_bias[h].begin(), w.score_bias[h].end(), H.s.v.begin());
    gemm_phase(H.a_q, 0, H.b_q, prog.phase(L.score_phase()).k_steps, kWindow, H.s);
    lap(kGroupScore);
    // E11 (facts C4): exponents, row sums, reciprocal, probabilities; then q8(P).
    shape(H.pq, kWindow, kTokens);  // E11 writes every row's kTokens probabilities
    EpilogueCounts n{};
    kern.e11_rows({H.s.v.data(), H.pq.v.data(), kWindow, tab.e11.data(), tab.e11_clamp.data(), tab.rcp.data(), hq8.table,
                   stats ? &n : nullptr, hq8.run, hq8.nan_keeps_sign,
                   simd == SimdPath::avx2 || simd == SimdPath::avx512 ? e11_expval_run_avx2 : nullptr});
    if (stats) add_counts(*stats, n);
    lap(kGroupE11);
    // The P V phase (facts C5; enc5's 12): O = q8(P) q8(V), its k-steps over the 96 keys.
    hq8.rows(V, kTokens, H.vq);
    H.a_p.assign(H.pq.v.data(), kWindow, kTokens, kTokens, dec, simd);
    H.b_v.assign_kn(H.vq.v.data(), kTokens, kHeadDim, kHeadDim, dec, simd);
    reset(S.o[h], kWindow, kHeadDim, 0);
    gemm_phase(H.a_p, 0, H.b_v, prog.phase(L.pv_phase()).k_steps, kWindow, S.o[h]);
    lap(kGroupPV);
  }
  void attention() {
    // The heads are independent until E12 (each reads the staged A and writes its own O), so a
    // block alone on several cores runs them on its workers.
    on_workers(L.heads, [&](int h, HeadScratch& H, LayerStats* stats) { attention_head(h, H, stats, workers == 1); });
    if (workers > 1) laps.lap(kGroupQV);  // the whole attention, when timed with several workers
  }

  // ---- E12 + the projection phases (facts C6, C7; enc5's 13..20; golden out_projection.cpp) ----
  void out_projection() {
    seed_rows(golden::c13_table(ctx), golden::c13_residual(ctx, S.x, S.h1, S.xn), kWindow, S.c13);
    std::array<F16Mat, kHeads>& D = S.d_out;  // D[head]
    // As golden::out_projection: head h's projection phase (check_chains: chained on head h-1's).
    for (int head = 0; head < L.heads; ++head) {
      const Phase& ph = prog.phase(L.projection_phase(head));
      q8.rows(S.o[head], kWindow, S.oq);
      S.a_o.assign(S.oq.v.data(), kWindow, kHeadDim, kHeadDim, dec, simd);
      std::swap(D[head], head > 0 ? D[head - 1] : S.c13);  // as in attention_head
      gemm_phase(S.a_o, 0, w.wo[head], ph.k_steps, kWindow, D[head]);
    }
    std::swap(S.d20, D[L.heads - 1]);
    laps.lap(kGroupOutProj);
  }

  // ---- E20 (facts C8; golden rms_norm.cpp) ----
  void rms_norm() {
    rms_norm_rows(golden::e20_norm_spec(ctx), S.d20, kWindow, S.n);
    laps.lap(kGroupE20);
  }

  // ---- MLP (facts C9..C11; golden mlp.cpp) ----
  // The down projections' chain accumulates in place in the seed's rows (check_mlp_down_chain).
  void mlp_rows(int r0, int r1, HeadScratch& W, LayerStats* stats) {
    const int n = r1 - r0;
    const Quantiser wq8{q8.table, stats, q8.run, q8.nan_keeps_sign};
    W.a_n.assign(S.nq.v.data() + static_cast<std::size_t>(r0) * C, n, C, C, dec, simd);
    f16_t* chain = S.c22.v.data() + static_cast<std::size_t>(r0) * C;
    for (int c = 0; c < L.chunks; ++c) {
      const Phase& up = prog.phase(L.first_mlp() + 2 * c);
      shape(W.h, n, kHeadDim);  // the bias in every row
      for (int r = 0; r < n; ++r) std::copy(w.b1[c].begin(), w.b1[c].end(), &W.h.v[static_cast<std::size_t>(r) * kHeadDim]);
      gemm_phase(W.a_n, 0, w.w1[c], up.k_steps, n, W.h);
      shape(W.aq, n, kHeadDim);
      const f16_t* const hv = W.h.v.data();  // locals: see Quantiser::rows (char stores alias)
      e4m3_t* const aq = W.aq.v.data();
      const f16_t* const act = tab.act.data();
      const std::size_t count = W.h.v.size();
      if (stats) {
        for (std::size_t i = 0; i < count; ++i) {
          const f16_t y0 = hv[i];
          stats->act_clamp_low += tab.act_clamp[y0] & 1;
          stats->act_clamp_high += (tab.act_clamp[y0] >> 1) & 1;
          aq[i] = wq8(act[y0]);
        }
      } else {  // q8 of the activation in one lookup (tables.cpp: act_q8_*, the two tables composed)
        const e4m3_t* const t = wq8.nan_keeps_sign ? tab.act_q8_zluda.data() : tab.act_q8_ada.data();
        for (std::size_t i = 0; i < count; ++i) aq[i] = t[hv[i]];
      }
      W.a_act.assign(W.aq.v.data(), n, kHeadDim, kHeadDim, dec, simd);
      gemm_phase(W.a_act, 0, w.w2[c], prog.phase(up.number + 1).k_steps, n, chain, C);
    }
  }
  void mlp() {
    q8.rows(S.n, kWindow, S.nq);
    seed_rows(golden::c22_table(ctx), golden::e21_residual(ctx, S.d20, S.n), kWindow, S.c22);
    // Every token row is independent here, so a block alone on several threads splits its 64
    // rows between the workers.
    const int per = (kWindow + workers - 1) / workers;
    on_workers(workers, [&](int i, HeadScratch& W, LayerStats* stats) {
      const int r0 = std::min(kWindow, i * per), r1 = std::min(kWindow, r0 + per);
      if (r0 < r1) mlp_rows(r0, r1, W, stats);
    });
    std::swap(S.d60, S.c22);
    laps.lap(kGroupMlp);
  }

  // ---- E60 (facts C13; golden arena_scatter.cpp) ----
  void arena_scatter() {
    q8.rows(S.d60, kWindow, S.a61);
    e60_stores(ctx, S.a61, io.output_arena);
    laps.lap(kGroupTail);  // enc5's tail with phase 61 + E61 (kpn_filter), a layer's with what follows its block
  }

  // ---- phase 61 + E61 (facts C12, C14; golden kpn_filter.cpp) ----
  // The layer's phases through its last down-projection and its arena scatter, in the kernel's
  // order: enc5's block up to its phase 61, a merge layer's before its merge, a decoder's after its
  // front (model/layer_golden.hpp run_layer_block).
  void through_e60(const golden::PrologueOut* staged = nullptr) {
    through_mlp(staged);
    arena_scatter();
  }
  // ... the same without the arena scatter: S.d60 holds the last down-projection's D (dec0's E19
  // reads it itself: model/layer_golden.cpp run_layer_block).
  void through_mlp(const golden::PrologueOut* staged) {
    if (staged) {  // another front staged the input (the decoders' E1): its residual x and A
      S.x = staged->x;
      S.h1 = staged->h1;
      S.a_h1.assign(S.h1.v.data(), kTokens, C, C, dec, simd);
      laps.lap(kGroupPrologue);
    } else {
      prologue();
    }
    attention();
    out_projection();
    rms_norm();
    mlp();
  }
  void kpn_filter() {
    S.a_61.assign(S.a61.v.data(), kWindow, C, C, dec, simd);
    shape(S.d61, kWindow, kLogits);  // the bias in every row
    for (int r = 0; r < kWindow; ++r) std::copy(w.b61.begin(), w.b61.end(), &S.d61.v[static_cast<std::size_t>(r) * kLogits]);
    gemm_phase(S.a_61, 0, w.w61, prog.phase(L.final_phase()).k_steps, kWindow, S.d61);
    // E61 is golden::e61 itself, with its exponentials tabulated (a function of one f16); on the
    // avx512vnni / avx2 paths its steps 4..6 run on 16 / 8 pixels per vector (model/e61_pixel_impl.hpp).
    golden::e61(ctx, S.d61, *io.texture, *io.surface, tab.e61_exp.data(), kern.e61_pixels);
    laps.lap(kGroupTail);
  }
};

}  // namespace

void set_phase_timing(PhaseTimes* t) { g_timing = t; }

PhaseLaps::PhaseLaps() : t_(g_timing), last_(t_ ? thread_seconds() : 0.0) {}
void PhaseLaps::lap(PhaseGroup g) {
  if (!t_) return;
  const double now = thread_seconds();
  t_->seconds[g] += now - last_;
  last_ = now;
}
void PhaseLaps::restart() {
  if (t_) last_ = thread_seconds();
}

void run_block(const PreparedWeights& w, SimdPath simd, const golden::BlockContext& ctx, const golden::BlockIo& io, int inner_threads) {
  Block b(w, simd, ctx, io, std::clamp(inner_threads, 1, kHeads));
  b.through_e60();
  b.kpn_filter();
}

golden::E4Mat run_block_through_e60(const PreparedWeights& w, SimdPath simd, const golden::BlockContext& ctx, const golden::BlockIo& io,
                                    int inner_threads, const golden::PrologueOut* staged) {
  // The template's parts at the layer's dimensions (model/layer_golden.hpp): enc5's phases 1..60,
  // stopping before the merge (enc4, enc3, enc2) or, after a decoder's front (staged), before its
  // final phase (dec4, dec3, dec2).
  Block b(w, simd, ctx, io, std::clamp(inner_threads, 1, kHeads));
  b.through_e60(staged);
  return b.S.a61;
}

golden::F16Mat run_block_through_mlp(const PreparedWeights& w, SimdPath simd, const golden::BlockContext& ctx, int inner_threads,
                                     const golden::PrologueOut& staged) {
  // dec0: its front, then phases 2..18 as every decoder's, stopping at the last down-projection's D
  // (no arena scatter and no final phase: DOC-d0 §4.2/§5).
  const golden::BlockIo io{};
  Block b(w, simd, ctx, io, std::clamp(inner_threads, 1, kHeads));
  b.through_mlp(&staged);
  return b.S.d60;
}

}  // namespace rrswin::engine
