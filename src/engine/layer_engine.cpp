// The layers beside enc5 with the fast engine (engine/layer_engine.hpp).
#include "engine/layer_engine.hpp"

#include <array>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>

#include "engine/engine.hpp"
#include "engine/kernel_args.hpp"
#include "engine/prepared.hpp"
#include "engine/workers.hpp"
#include "layout/arena.hpp"
#include "layout/fragment.hpp"
#include "layout/tables.hpp"
#include "layout/weight_tile.hpp"
#include "model/constants.hpp"
#include "model/decoder_front.hpp"
#include "model/index_maps.hpp"
#include "model/layer_program.hpp"
#include "numerics/warp.hpp"

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

// A gather that only moves bytes: element i of the result is source element src[i] - 1 (0: a zero
// byte), the same for every block of a frame.
struct ByteGather {
  int rows = 0, cols = 0;
  std::vector<std::uint16_t> src;
  golden::E4Mat apply(const golden::E4Mat& a) const {
    golden::E4Mat m(rows, cols);
    for (std::size_t i = 0; i < src.size(); ++i) m.v[i] = src[i] ? a.v[src[i] - 1u] : e4m3_t{0};
    return m;
  }
};
// golden::register_merge_gather (the single-warp layers' E30/E20 shuffles) as a ByteGather: the
// golden function itself run on two probes of a 64 x C A, each element's index + 1 split into its
// low and high byte, so the table is the golden gather's and a moved byte can be nothing else.
ByteGather register_merge_bytes(const Readings& r, const LayerReadings& lr, int channels) {
  golden::BlockContext ctx;
  ctx.readings = &r;
  golden::E4Mat lo(golden::kWindow, channels), hi(golden::kWindow, channels);  // a_last: the window's rows
  if (lo.v.size() >= 0xFFFFu) throw std::logic_error("register_merge_bytes: A too large for 16-bit indices");
  for (std::size_t i = 0; i < lo.v.size(); ++i) {
    lo.v[i] = static_cast<e4m3_t>((i + 1) & 0xFFu);
    hi.v[i] = static_cast<e4m3_t>((i + 1) >> 8);
  }
  const golden::E4Mat ml = golden::register_merge_gather(ctx, lr, lo), mh = golden::register_merge_gather(ctx, lr, hi);
  ByteGather g{ml.rows, ml.cols, std::vector<std::uint16_t>(ml.v.size())};
  for (std::size_t i = 0; i < g.src.size(); ++i) g.src[i] = static_cast<std::uint16_t>(ml.v[i] | mh.v[i] << 8);
  return g;
}

// A front's GEMM phases (BlockContext::front_gemm), by index: their B operands and C seeds.
struct FrontWeights {
  std::vector<BOperand> b;
  std::vector<std::vector<f16_t>> seeds;
  int steps = 0;
};

// A decoder's patch expand (phase 1): warp z's B (K x n_per_warp, the slab z of the weight map,
// its k-slices banded as golden::expand_phase gathers them) and its C seeds (REC-d4 _c_regs).
FrontWeights prepare_expand(const WeightImage& w, const LayerSpec& s) {
  FrontWeights e;
  const Phase& ph = layer_program(s.id).phase(1);
  const int n = s.front.n_per_warp, k = s.front.k;
  e.steps = k / 32;
  for (int z = 0; z < s.front.warps; ++z) {
    const std::uint32_t slab = static_cast<std::uint32_t>(z) * static_cast<std::uint32_t>(k * n) + ph.weight_begin;
    const std::uint32_t seeds = ph.bias_begin + 2u * static_cast<std::uint32_t>(n * z);
    std::vector<e4m3_t> nk(static_cast<std::size_t>(n) * k);
    for (int sl = 0; sl < e.steps; ++sl) {
      const golden::BTile t = golden::load_b_banded(w, slab, sl, n, e.steps);
      for (int c = 0; c < n; ++c)
        for (int kk = 0; kk < 32; ++kk) nk[static_cast<std::size_t>(c) * k + 32 * sl + kk] = t.col(c)[kk];
    }
    e.b.emplace_back().assign_nk(nk.data(), n, k, k);
    std::vector<f16_t>& sd = e.seeds.emplace_back();
    for (int c = 0; c < n; ++c) sd.push_back(w.f16_at(layout::record_bias_offset(seeds, c)));
  }
  return e;
}

// enc0's embedding phases 1 and 2: each B (32 x 32, the waddr tile at the phase's weights) and its
// bias records, as golden::embedding_front's embedding_phase reads them.
FrontWeights prepare_embedding(const WeightImage& w, const LayerSpec& s) {
  FrontWeights e;
  e.steps = 1;
  e.b.resize(3);
  e.seeds.resize(3);
  for (int number = 1; number <= 2; ++number) {
    const Phase& ph = layer_program(s.id).phase(number);
    const golden::BTile t = golden::load_b_waddr(w, ph.weight_begin, 32);
    e.b[static_cast<std::size_t>(number)].assign_nk(t.v.data(), 32, 32, 32);
    for (int n = 0; n < 32; ++n)
      e.seeds[static_cast<std::size_t>(number)].push_back(w.f16_at(layout::record_bias_offset(ph.bias_begin, n)));
  }
  return e;
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
  thread_local AOperand ao;  // its forms keep their capacity from call to call
  ao.assign(a.v.data(), a.rows, a.cols, a.cols, decode_for(p, simd), simd);
  golden::F16Mat d(a.rows, b.N);
  for (int r = 0; r < a.rows; ++r)
    for (int n = 0; n < b.N; ++n) d.at(r, n) = bias[static_cast<std::size_t>(n)];
  gemm(p, simd, ao, 0, b, 0, ksteps, a.rows, d.v.data(), b.N);
  return d;
}

// golden::e62 (the merge layers' final epilogue) with its per-pixel steps on the kernel's lanes
// (KernelSet::e62_lanes): the block's logits and taps gathered into lane-major arrays (each tap's
// column and row resolved once per block: e61_tap is e61_border_fix per axis, the texture's address
// mode too), the quad sums' shuffles as index tables and the f16 adds as one add_rows each. The
// same stores in the same order as golden::e62. Only where no statistics are counted and no stage
// is traced (golden::e62 records those).
void e62_block(const golden::BlockContext& ctx, const LayerReadings& lr, const golden::F16Mat& d, const Texture& tex,
               const golden::E62Surfaces& out, const EpilogueTables& tab, const KernelSet& kern) {
  constexpr int kT = golden::kE61Threads;
  const Readings& rd = *ctx.readings;
  const FinalEpilogueKind fe = ctx.layer().final_epilogue;
  const bool one_warp = fe == FinalEpilogueKind::kpn_filter_sigmoid_one_warp || fe == FinalEpilogueKind::kpn_filter_sigmoid_shared_taps;
  const std::vector<std::uint32_t> smem = one_warp ? std::vector<std::uint32_t>{} : golden::e61_records(ctx, d);
  thread_local E62Lanes px;
  // The texel column of the block's columns x0 - 1 .. x0 + 8 and rows y0 - 1 .. y0 + 8 (-1: zeros).
  int col[10], row[10];
  for (int c = 0; c < 10; ++c) {
    col[c] = tex.axis(golden::e61_border_fix(rd.e61_border, ctx.x0 - 1 + c, ctx.ex), tex.width);
    row[c] = tex.axis(golden::e61_border_fix(rd.e61_border, ctx.y0 - 1 + c, ctx.ey), tex.height);
  }
  std::array<golden::PixelXY, 9> off;
  for (int i = 0; i < 9; ++i) off[static_cast<std::size_t>(i)] = golden::e61_tap_offset(rd.e61_tap_map, i);
  std::array<bool, kT> active{};
  for (int T = 0; T < kT; ++T) {
    const golden::PixelXY p = golden::e61_pixel_of_thread(ctx.x0, ctx.y0, T);
    active[T] = p.x >= 0 && p.y >= 0 && p.x < ctx.ex && p.y < ctx.ey;
    for (int i = 0; i < 6; ++i) {
      const std::uint32_t w = one_warp ? 0u : smem[static_cast<std::size_t>(golden::e61_record_word(T, i, 0))];
      px.l[2 * i][T] = one_warp ? d.at(T, 2 * i) : f16x2_lo(w);
      px.l[2 * i + 1][T] = one_warp ? d.at(T, 2 * i + 1) : f16x2_hi(w);
    }
    for (int i = 0; i < 9; ++i) {
      const golden::PixelXY o = off[static_cast<std::size_t>(i)];
      const int tx = col[(T & 7) + 1 + o.x], ty = row[(T >> 3) + 1 + o.y];
      const f16_t* t = tx < 0 || ty < 0 ? nullptr : &tex.rgba[(static_cast<std::size_t>(ty) * tex.width + tx) * 4];
      for (int ch = 0; ch < 3; ++ch) px.tv[i][ch][T] = t ? t[ch] : f16_t{0};  // the alpha channel is read and not used
    }
  }
  kern.e62_lanes(rd, lr, tab.e61_exp.data(), tab.e62_sigmoid.data(), px);
  for (int T = 0; T < kT; ++T) {
    if (!active[T]) continue;
    const golden::PixelXY p = golden::e61_pixel_of_thread(ctx.x0, ctx.y0, T);
    out.s112->store_b16x4(8 * p.x, p.y, {px.s112[0][T], px.s112[1][T], px.s112[2][T], px.s112[3][T]});
    out.s120->store_b16x4(8 * p.x, p.y, {px.s120[0][T], px.s120[1][T], px.s120[2][T], px.s120[3][T]});
  }
  // (d)'s cross-lane sums (golden::e62): v += shfl.down(v, 1), then v += shfl.down(v, 8), each
  // source lane by shfl_source (clamp 31: a lane past it reads its own value), once per process.
  static const std::array<std::array<int, kT>, 2> source = [] {
    std::array<std::array<int, kT>, 2> t{};
    const int delta[2] = {golden::kE62ShflDeltaX, golden::kE62ShflDeltaY};
    for (int k = 0; k < 2; ++k)
      for (int T = 0; T < kT; ++T) {
        const ShflSource src = shfl_source(ShflKind::down, static_cast<unsigned>(T & 31), static_cast<std::uint32_t>(delta[k]), 0x1fu);
        t[static_cast<std::size_t>(k)][static_cast<std::size_t>(T)] = src.in_range ? (T & ~31) + static_cast<int>(src.lane) : -1;
      }
    return t;
  }();
  const bool own = lr.e62_inactive_lane == E62InactiveLane::own;
  alignas(32) f16_t v[2][3][kT], o[3][kT];
  std::memcpy(v[0], px.quarter, sizeof v[0]);
  for (int k = 0; k < 2; ++k) {
    const f16_t(&in)[3][kT] = v[k];
    for (int T = 0; T < kT; ++T) {
      const int S = source[static_cast<std::size_t>(k)][static_cast<std::size_t>(T)];
      for (int ch = 0; ch < 3; ++ch) o[ch][T] = S < 0 ? in[ch][T] : active[S] ? in[ch][S] : own ? in[ch][T] : f16_t{0};
    }
    // v[1] = v[k] + o, element-wise (golden: f16_add(v, o), the same value either way round)
    kern.add_rows({&in[0][0], &o[0][0], &v[1][0][0], 1, 3 * kT});
  }
  // (e) the third store, at the half-resolution pixel of +128, by the reading sigmoid-quad-writer.
  for (int T = 0; T < kT; ++T) {
    if (!active[T]) continue;
    const golden::PixelXY p = golden::e61_pixel_of_thread(ctx.x0, ctx.y0, T);
    const bool odd = ((p.x | p.y) & 1) != 0;
    if (odd != (lr.e62_quad_writer == E62QuadWriter::odd)) continue;
    out.s128->store_b16x4(8 * (p.x >> 1), p.y >> 1, {v[1][0][T], v[1][1][T], v[1][2][T], 0});
  }
}

// q8 of n halves under the profile's NaN rule (golden::quantise without statistics): the path's
// vector kernel as the fused block picks it (engine/block.cpp), or the profile's q8 table on the
// scalar path.
struct Q8Run {
  void (*run)(const f16_t*, e4m3_t*, std::size_t, bool) = nullptr;
  const e4m3_t* table = nullptr;
  bool nan_keeps_sign = false;
  void operator()(const f16_t* h, e4m3_t* out, std::size_t n) const {
    if (run) {
      run(h, out, n, nan_keeps_sign);
      return;
    }
    for (std::size_t i = 0; i < n; ++i) out[i] = table[h[i]];
  }
};
Q8Run q8_run_of(const Profile& p, SimdPath simd) {
  const EpilogueTables& tab = epilogue_tables();
  return {simd == SimdPath::avx512vnni ? q8_run_avx512
          : simd != SimdPath::scalar   ? q8_run_avx2
                                       : nullptr,
          p.e4m3_nan_keeps_sign ? tab.q8_zluda.data() : tab.q8_ada.data(), p.e4m3_nan_keeps_sign};
}

// golden::merge_store's word placement as data (one frame's readings and layer): each word a block
// stores, its four bytes' places in q8 of the merge's D (row-major, merge_out columns), its plane,
// the merged token's place in the block's 4 x 4 merged grid and the arena word; in golden's order.
struct MergeWord {
  std::array<std::uint16_t, 4> src;
  int plane, dx, dy, word;
};
std::vector<MergeWord> merge_words(const Readings& r, const LayerReadings& lr, const LayerSpec& s) {
  const bool token_words = lr.merge_output_layout == MergeOutputLayout::token_words || s.merge_kind == MergeKind::register_lanes;
  const ArenaOrder order = token_words ? ArenaOrder::natural : golden::e60_arena_order(r);
  const layout::APairTable& am = layout::a_element_pair_table();
  std::vector<MergeWord> v;
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, t = lane & 3;
    for (int plane = 0; plane < s.merge_out / 32; ++plane)
      for (int o = 0; o < 4; ++o) {
        MergeWord m{};
        for (int j = 0; j < 4; ++j) {
          const layout::RowK e = am[lane][o][j];
          m.src[static_cast<std::size_t>(j)] = static_cast<std::uint16_t>(e.row * s.merge_out + 32 * plane + e.k);
        }
        const golden::ArenaSlot slot = golden::arena_slot(order, o, t);
        const golden::PixelXY mt = golden::merged_token_of_row(s.merge_kind, g + 8 * slot.row_half);
        m.plane = plane;
        m.dx = mt.x;
        m.dy = mt.y;
        m.word = slot.word;
        v.push_back(m);
      }
  }
  return v;
}

// golden::merge_store where no statistics are counted: q8 of the merge's D by the profile's q8 run,
// then the words by merge_words.
void merge_store_fast(const golden::BlockContext& ctx, const std::vector<MergeWord>& words, const Q8Run& q8, const golden::F16Mat& dm,
                      std::span<std::uint8_t> merged_out) {
  const layout::PlaneArena pa{ctx.ex >> 1, ctx.ey >> 1};
  thread_local std::vector<e4m3_t> q;
  q.resize(dm.v.size());
  q8(dm.v.data(), q.data(), q.size());
  const int X0 = ctx.x0 >> 1, Y0 = ctx.y0 >> 1;  // DOC4 E61: %r536 = %r1>>1, %r535 = %r3>>1
  for (const MergeWord& m : words) {
    const int x = X0 + m.dx, y = Y0 + m.dy;
    if (!pa.in_frame(x, y)) continue;
    const std::uint32_t w = static_cast<std::uint32_t>(q[m.src[0]]) | static_cast<std::uint32_t>(q[m.src[1]]) << 8 |
                            static_cast<std::uint32_t>(q[m.src[2]]) << 16 | static_cast<std::uint32_t>(q[m.src[3]]) << 24;
    std::memcpy(merged_out.data() + 4 * pa.word_index(m.plane, x, y, m.word), &w, 4);  // little endian
  }
}

// What a decoder's front reads that is the same for every block of a frame: phase 1's B operands
// and seeds per warp, and each column's sub-pixel and channel (golden::expand_column under the
// frame's reading) with, per n-tile, whether its 8 columns are 8 consecutive channels of one
// sub-pixel (golden::expand_tile_is_whole: every map golden has today).
struct ExpandFront {
  FrontWeights ew;
  std::vector<golden::ExpandColumn> column;  // [z n_per_warp + n]
  std::vector<char> whole;                   // [z n_per_warp / 8 + n-tile]
  std::vector<f16_t> g1;                     // the input norm's gain (B0's g1 table, stage_input's)
};
ExpandFront prepare_expand_front(const WeightImage& w, const LayerSpec& s, const DecoderFrontReadings& fr) {
  ExpandFront e{prepare_expand(w, s), {}, {}, golden::load_column_table(w, rrswin::weight_map(s).g1(), TableChunkOrder::nt, s.channels)};
  const int n = s.front.n_per_warp, spw = n / s.channels;
  for (int z = 0; z < s.front.warps; ++z) {
    for (int c = 0; c < n; ++c) e.column.push_back(golden::expand_column(fr, s, z, c));
    for (int t = 0; t < n / 8; ++t) e.whole.push_back(golden::expand_tile_is_whole(fr.column_split, spw, s.channels, z, t));
  }
  return e;
}

// golden::decoder_front's values on the engine's kernels: phase 1 on the prepared B operands, q8 of
// each warp's D in one run and E1's scatter as 8-byte copies of whole n-tiles, the readback's adds
// by add_rows, the input norm by rms_rows and the staging by one q8 run. Only for blocks that count
// no statistics (golden's quantise counts the stored elements alone) and record no trace (the traced
// block runs golden); LayerEngineDiff.DecodersFastEqualsGolden* compare the two on every profile,
// path and reading.
golden::PrologueOut expand_front(const golden::BlockContext& ctx, const golden::BlockContext& hooked, const DecoderFrontReadings& fr,
                                 const ExpandFront& ef, const KernelSet& kern, const Q8Run& q8, SimdPath simd,
                                 std::span<const std::uint8_t> input, std::span<const std::uint8_t> skip) {
  const LayerSpec& s = ctx.layer();
  const int C = s.channels, n = s.front.n_per_warp, ntiles = n / 8;
  using golden::kExpandRows, golden::kExpandTile;
  thread_local std::vector<e4m3_t> tile, dq;
  tile.assign(static_cast<std::size_t>(kExpandTile * kExpandTile * C), 0);
  const golden::E4Mat a = expand_loads(ctx, fr, input);
  std::array<std::array<std::array<int, 2>, kExpandRows>, 4> cells;
  for (int sp = 0; sp < 4; ++sp)
    for (int r = 0; r < kExpandRows; ++r) cells[sp][r] = golden::expand_cell(fr, ctx.x0, ctx.y0, sp, r);
  auto cell_at = [&](const golden::ExpandColumn& col, int r) -> e4m3_t* {
    const std::array<int, 2>& cell = cells[static_cast<std::size_t>(col.subpixel)][static_cast<std::size_t>(r)];
    return cell[0] < 0 ? nullptr : &tile[static_cast<std::size_t>((kExpandTile * cell[0] + cell[1]) * C + col.channel)];
  };
  for (int z = 0; z < s.front.warps; ++z) {
    const auto zi = static_cast<std::size_t>(z);
    const golden::F16Mat d = gemm_seeded(*ctx.profile, simd, a, ef.ew.b[zi], ef.ew.steps, ef.ew.seeds[zi]);
    dq.resize(d.v.size());
    q8(d.v.data(), dq.data(), d.v.size());
    for (int t = 0; t < ntiles; ++t) {
      const golden::ExpandColumn* col = &ef.column[zi * static_cast<std::size_t>(n) + static_cast<std::size_t>(8 * t)];
      for (int r = 0; r < kExpandRows; ++r) {
        const e4m3_t* src = &dq[static_cast<std::size_t>(r * n + 8 * t)];
        if (ef.whole[zi * static_cast<std::size_t>(ntiles) + static_cast<std::size_t>(t)]) {
          if (e4m3_t* dst = cell_at(col[0], r)) std::memcpy(dst, src, 8);
        } else {
          for (int j = 0; j < 8; ++j)
            if (e4m3_t* dst = cell_at(col[j], r)) *dst = src[j];
        }
      }
    }
  }
  // The readback: the skip at the 96 token rows' pixels mirrored into the frame, f16(tile + skip).
  Readings skip_readings = *ctx.readings;
  skip_readings.prologue_fill = PrologueFill::mirror;
  golden::BlockContext skip_ctx = ctx;
  skip_ctx.readings = &skip_readings;
  thread_local golden::F16Mat xs;
  thread_local std::vector<f16_t> tv, xn;
  prologue_loads(skip_ctx, skip, xs);
  // The tile's values at the 96 token rows' pixels, then f16(tile + skip) of every element in one
  // add_rows (an element-wise add: one row of 96 C channels).
  const std::size_t n_x = static_cast<std::size_t>(golden::kTokens) * C;
  tv.resize(n_x);
  const std::array<f16_t, 256>& dec = golden::decoded_codes();
  for (int row = 0; row < golden::kTokens; ++row) {
    const std::array<int, 2> p = golden::token_pixel(ctx, row);
    const int cr = p[1] - (ctx.y0 - 1), cc = p[0] - (ctx.x0 - 1);
    if (cr < 0 || cr >= kExpandTile || cc < 0 || cc >= kExpandTile) return golden::decoder_front(hooked, fr, input, skip);  // its error
    const e4m3_t* src = &tile[static_cast<std::size_t>((kExpandTile * cr + cc) * C)];
    f16_t* const t = &tv[static_cast<std::size_t>(row) * C];
    for (int c = 0; c < C; ++c) t[c] = dec[src[c]];
  }
  golden::PrologueOut out;
  out.x = golden::F16Mat(golden::kTokens, C);
  kern.add_rows({tv.data(), xs.v.data(), out.x.v.data(), 1, static_cast<int>(n_x)});
  // The input norm (the prologue's sum tree, 2^-13, g1 at B0) and the staging: stage_input's values.
  xn.resize(n_x);
  kern.rms_rows({out.x.v.data(), xn.data(), golden::kTokens, static_cast<int>(ctx.readings->prologue_sum_tree), golden::kPrologueEpsE2m13,
                 ef.g1.data(), C});
  out.h1 = golden::E4Mat(golden::kTokens, C);
  q8(xn.data(), out.h1.v.data(), xn.size());
  return out;
}

// golden::embedding_front's values on the engine's kernels (enc0): the staged input tensor by the
// prologue's table-driven loads, P1's A by one q8 run (a NaN code keeps its sign whatever the
// profile, as golden's loop has it: q8_run's nan_keeps_sign), P1, the relu requantisation as
// golden's relu_half then one q8 run, P2, the input norm by rms_rows and the staging by one q8 run.
// Only for blocks that count no statistics (as expand_front); LayerEngineDiff compares the two.
golden::PrologueOut embedding_front_fast(const golden::BlockContext& ctx, const FrontWeights& emb, const KernelSet& kern, const Q8Run& q8,
                                         SimdPath simd, std::span<const std::uint8_t> input) {
  golden::F16Mat xin;
  prologue_loads(ctx, input, xin);
  const std::size_t n = xin.v.size();
  golden::E4Mat a(golden::kTokens, 32);
  if (q8.run) {
    q8.run(xin.v.data(), a.v.data(), n, true);
  } else {
    for (std::size_t i = 0; i < n; ++i) a.v[i] = golden::embedding_input_code(ctx, xin.v[i]);
  }
  const golden::F16Mat d1 = gemm_seeded(*ctx.profile, simd, a, emb.b[1], emb.steps, emb.seeds[1]);
  thread_local std::vector<f16_t> kept;
  kept.resize(d1.v.size());
  for (std::size_t i = 0; i < kept.size(); ++i) kept[i] = golden::relu_half(d1.v[i]);
  golden::E4Mat r(golden::kTokens, 32);
  q8(kept.data(), r.v.data(), kept.size());
  golden::PrologueOut out;
  out.x = gemm_seeded(*ctx.profile, simd, r, emb.b[2], emb.steps, emb.seeds[2]);
  golden::F16Mat xn = out.x;
  if (const std::optional<golden::NormSpec> norm = golden::prologue_norm_spec(ctx))
    kern.rms_rows({out.x.v.data(), xn.v.data(), golden::kTokens, static_cast<int>(norm->tree), norm->eps, norm->gain.data(),
                   static_cast<int>(norm->gain.size())});
  out.h1 = golden::E4Mat(golden::kTokens, out.x.cols);
  q8(xn.v.data(), out.h1.v.data(), xn.v.size());
  return out;
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

// BlockContext::norm_rows.
using NormRows = std::function<void(const golden::NormSpec&, const f16_t*, f16_t*, int)>;

LayerBlockLoop block_loop(int threads) {
  if (threads <= 1) return {};
  return [threads](int blocks, const std::function<void(int)>& body) { parallel_for(blocks, threads, [&](int t, int) { body(t); }); };
}

bool fused_block_takes(const LayerSpec& s) {
  // engine/block.cpp's parts: the epilogue kernels' row lengths (kFusedNTiles), the heads over
  // enc5's token geometry (one warp per head, or in sequence in one warp: each head's phases by
  // its own numbers, the projections chained in head order either way; 16, 32 or 64 rows per warp
  // after the heads: the block computes the window row for row), at most enc5's heads and chunks
  // (PreparedWeights); the encoders' prologue or the decoders' front before them.
  const bool dims = s.channels % 32 == 0 && fused_n_tiles(s.channels / 8) && s.channels <= golden::kChannels && s.heads <= golden::kHeads &&
                    s.chunks <= golden::kChunks && s.head_dim == golden::kHeadDim && s.window_tokens == golden::kWindow &&
                    s.tokens == golden::kTokens &&
                    (s.final_gemm ? s.logits == golden::kLogits : s.final_epilogue == FinalEpilogueKind::dec0_output);
  // ... and the tails run_layer_frame_fast has after them: enc5's E61 (run_frame), the shared-pass or register
  // merge with the gated final epilogue, the decoders' blend, dec0's output epilogue on the last
  // down-projection's D.
  const bool enc5_like = s.front.kind == FrontKind::none && !s.merge() && s.final_epilogue == FinalEpilogueKind::kpn_filter;
  const bool merge_layer =
      (s.front.kind == FrontKind::none || s.front.kind == FrontKind::embedding) &&
      ((s.merge_kind == MergeKind::shared_passes && s.final_epilogue == FinalEpilogueKind::kpn_filter_sigmoid) ||
       (s.merge_kind == MergeKind::register_lanes && (s.final_epilogue == FinalEpilogueKind::kpn_filter_sigmoid_one_warp ||
                                                      s.final_epilogue == FinalEpilogueKind::kpn_filter_sigmoid_shared_taps)));
  const bool decoder = s.front.kind == FrontKind::patch_expand && !s.merge() &&
                       (s.final_epilogue == FinalEpilogueKind::decoder_blend || s.final_epilogue == FinalEpilogueKind::dec0_output);
  return dims && (enc5_like || merge_layer || decoder);
}

}  // namespace

LayerParts layer_parts(LayerId id) {
  const LayerSpec& s = layer_spec(id);
  if (!fused_block_takes(s)) return LayerParts::golden_parts;
  return s.front.kind != FrontKind::none ? LayerParts::front_then_fused : LayerParts::fused;
}

std::string_view to_string(LayerParts p) {
  switch (p) {
    case LayerParts::fused: return "fused engine";
    case LayerParts::front_then_fused: return "engine front; then fused engine";
    case LayerParts::golden_parts: break;
  }
  return "golden parts + engine GEMMs";
}

void run_layer_frame_fast(LayerFrame& f, const Profile& profile, const Readings& r, const LayerReadings& lr, const LayerEngine& how,
                          golden::LayerStats* stats, const TraceRequest* trace, Trace* trace_out) {
  if (f.weights) require_runnable(f.weights->layer());
  if (!f.weights || f.weights->layer() == LayerId::enc5)
    throw std::invalid_argument(
        "run_layer_frame_fast: the weights are not an image of a layer other than enc5 (enc5 runs through run_frame)");
  const LayerSpec& s = layer_spec(f.weights->layer());
  switch (layer_parts(s.id)) {
    case LayerParts::golden_parts:
      // A layer whose dimensions or parts the fused block does not take (fused_block_takes; none of
      // the eleven today) runs the golden parts with every k-step on engine::gemm.
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
    case LayerParts::front_then_fused: {
      if (s.front.kind == FrontKind::embedding) break;  // enc0: the merge layers' tail below, after its front
      // A decoder: the front on the golden parts with engine GEMM k-steps, then the fused block on
      // the layer's own phases after it (its stem from phase 2: the layer program's numbering, the
      // image's offsets after B0), its final phase on the engine and the decoder final (golden: per
      // pixel, small).
      // dec0 has no final phase: its E19 (golden: per pixel) reads the last down-projection's D.
      const std::shared_ptr<const PreparedWeights> prepared = prepare_weights(*f.weights);
      const bool dec0 = s.final_epilogue == FinalEpilogueKind::dec0_output;
      BOperand final_b;
      std::vector<f16_t> final_bias;
      int final_steps = 0;
      if (!dec0) prepare_final_phase(*f.weights, s, final_b, final_bias, final_steps);
      const ExpandFront ef = prepare_expand_front(*f.weights, s, lr.decoder_front);
      const FrontWeights& ew = ef.ew;
      const Q8Run q8 = q8_run_of(profile, how.simd);
      const EpilogueTables& tab = epilogue_tables();
      const e4m3_t* const q8_table = profile.e4m3_nan_keeps_sign ? tab.q8_zluda.data() : tab.q8_ada.data();
      // E1's input norm by the engine's RMS norm kernel (KernelSet::rms_rows: golden::rms_norm_rows'
      // values, tests/engine_e11_test.cpp EngineRms.*).
      const KernelSet kern = kernels(how.simd);
      const golden::DecoderTables dtab{tab.e61_exp.data(), tab.e62_sigmoid.data(), tab.dec0_tanh.data(), kern.decoder_pixels};
      const NormRows norm = [&kern](const golden::NormSpec& spec, const f16_t* x, f16_t* out, int rows) {
        kern.rms_rows({x, out, rows, static_cast<int>(spec.tree), spec.eps, spec.gain.data(), static_cast<int>(spec.gain.size())});
      };
      // E1's readback (tile + skip) by the engine's f16 add kernel (KernelSet::add_rows, one row).
      const std::function<void(const f16_t*, const f16_t*, f16_t*, int)> add = [&kern](const f16_t* a, const f16_t* b, f16_t* out, int n) {
        kern.add_rows({a, b, out, 1, n});
      };
      const std::function<void(const golden::BlockContext&, std::span<const std::uint8_t>, golden::F16Mat&)> gather =
          [](const golden::BlockContext& at, std::span<const std::uint8_t> arena, golden::F16Mat& x) { prologue_loads(at, arena, x); };
      run_layer_frame_with(
          f, profile, r, lr, stats, trace, trace_out,
          [&](const golden::BlockContext& ctx, const golden::LayerBlockIo& io) {
            PhaseLaps laps;  // `rrswin bench`'s breakdown (engine.hpp): the front, then the block's own laps, then the tail
            const GemmStep step = engine_steps(ctx, how);
            golden::BlockContext front = ctx;
            front.gemm_step = &step;
            front.norm_rows = &norm;
            const std::function<golden::F16Mat(const golden::E4Mat&, int)> expand = [&](const golden::E4Mat& a, int z) {
              return gemm_seeded(*ctx.profile, how.simd, a, ew.b[static_cast<std::size_t>(z)], ew.steps,
                                 ew.seeds[static_cast<std::size_t>(z)]);
            };
            front.front_gemm = &expand;
            front.add_f16 = &add;
            front.q8_table = q8_table;
            // The phase-1 A and the skip readback by table-driven loads (the golden loops' values).
            const std::function<golden::E4Mat(std::span<const std::uint8_t>)> expand_gather = [&](std::span<const std::uint8_t> in) {
              return expand_loads(ctx, lr.decoder_front, in);
            };
            front.expand_gather = &expand_gather;
            front.gather = &gather;
            // The engine's front (expand_front) where no statistics are counted; golden's parts on the
            // engine's kernels (the hooks above) where they are.
            const golden::PrologueOut staged =
                ctx.stats || ctx.last_phase != 0
                    ? golden::decoder_front(front, lr.decoder_front, io.input_arena, io.skip_arena)
                    : expand_front(ctx, front, lr.decoder_front, ef, kern, q8, how.simd, io.input_arena, io.skip_arena);
            const golden::DecoderTextures t{io.texture, io.texture96, io.texture104, io.scale[0], io.scale[1]};
            laps.lap(kGroupFront);
            if (dec0) {
              const golden::F16Mat d19 = run_block_through_mlp(*prepared, how.simd, ctx, 1, staged);
              laps.restart();
              golden::dec0_output(front, lr.decoder_final, d19, io.texture ? t : golden::DecoderTextures{}, io.surfaces.s112,
                                  io.surfaces.s144, io.output_arena, dtab);
              laps.lap(kGroupTail);
              return;
            }
            const golden::E4Mat a_last =
                run_block_through_e60(*prepared, how.simd, ctx, {{}, io.output_arena, nullptr, nullptr}, 1, &staged);
            laps.restart();
            const golden::F16Mat d = gemm_seeded(*ctx.profile, how.simd, a_last, final_b, final_steps, final_bias);
            if (io.texture && io.surfaces.s112) golden::decoder_final(front, lr.decoder_final, d, t, *io.surfaces.s112, dtab);
            laps.lap(kGroupTail);
          },
          block_loop(how.threads));
      return;
    }
    case LayerParts::fused: break;
  }
  // A merge layer: the fused block through the last down-projection and its arena scatter (after
  // enc0's embedding front on the golden parts with engine GEMM k-steps and RMS kernel), then the
  // merge phase and the final phase on the engine and their epilogues golden.
  const std::shared_ptr<const PreparedWeights> prepared = prepare_weights(*f.weights);
  const MergeLayerWeights mw = prepare_merge_layer(*f.weights, s);
  const EpilogueTables& tab = epilogue_tables();
  const KernelSet kern = kernels(how.simd);
  const NormRows norm = [&kern](const golden::NormSpec& spec, const f16_t* x, f16_t* out, int rows) {
    kern.rms_rows({x, out, rows, static_cast<int>(spec.tree), spec.eps, spec.gain.data(), static_cast<int>(spec.gain.size())});
  };
  const e4m3_t* const q8_table = profile.e4m3_nan_keeps_sign ? tab.q8_zluda.data() : tab.q8_ada.data();
  const Q8Run q8 = q8_run_of(profile, how.simd);
  const FrontWeights embedding = s.front.kind == FrontKind::embedding ? prepare_embedding(*f.weights, s) : FrontWeights{};
  const std::function<void(const golden::BlockContext&, std::span<const std::uint8_t>, golden::F16Mat&)> gather =
      [](const golden::BlockContext& at, std::span<const std::uint8_t> arena, golden::F16Mat& x) { prologue_loads(at, arena, x); };
  const ByteGather register_merge = s.merge_kind == MergeKind::register_lanes ? register_merge_bytes(r, lr, s.channels) : ByteGather{};
  const std::vector<MergeWord> merge_placement = merge_words(r, lr, s);
  run_layer_frame_with(
      f, profile, r, lr, stats, trace, trace_out,
      [&](const golden::BlockContext& block_ctx, const golden::LayerBlockIo& io) {
        PhaseLaps laps;  // `rrswin bench`'s breakdown (engine.hpp): enc0's front, the block's own laps, the tail
        // The golden parts below quantise through the profile's q8 table.
        golden::BlockContext ctx = block_ctx;
        ctx.q8_table = q8_table;
        golden::E4Mat a_last;
        if (s.front.kind == FrontKind::embedding) {
          const GemmStep step = engine_steps(ctx, how);
          golden::BlockContext front = ctx;
          front.gemm_step = &step;
          front.norm_rows = &norm;
          const std::function<golden::F16Mat(const golden::E4Mat&, int)> phase = [&](const golden::E4Mat& a, int number) {
            const auto i = static_cast<std::size_t>(number);
            return gemm_seeded(*ctx.profile, how.simd, a, embedding.b[i], embedding.steps, embedding.seeds[i]);
          };
          front.front_gemm = &phase;
          front.gather = &gather;
          // The engine's front where no statistics are counted; golden's parts on the engine's kernels
          // (the hooks above) where they are.
          const golden::PrologueOut staged = ctx.stats || ctx.last_phase != 0
                                                 ? golden::embedding_front(front, io.input_arena)
                                                 : embedding_front_fast(ctx, embedding, kern, q8, how.simd, io.input_arena);
          laps.lap(kGroupFront);
          a_last = run_block_through_e60(*prepared, how.simd, ctx, {{}, io.output_arena, nullptr, nullptr}, 1, &staged);
        } else {
          a_last = run_block_through_e60(*prepared, how.simd, ctx, {io.input_arena, io.output_arena, nullptr, nullptr});
        }
        laps.restart();
        const golden::E4Mat merged =
            s.merge_kind == MergeKind::register_lanes ? register_merge.apply(a_last) : golden::merge_gather(lr, a_last);
        const golden::F16Mat dm = gemm_seeded(*ctx.profile, how.simd, merged, mw.merge, mw.merge_steps, mw.merge_bias);
        if (ctx.stats)
          golden::merge_store(ctx, lr, dm, io.merged_output);
        else
          merge_store_fast(ctx, merge_placement, q8, dm, io.merged_output);
        const golden::F16Mat d = gemm_seeded(*ctx.profile, how.simd, a_last, mw.final_b, mw.final_steps, mw.final_bias);
        // E62 is golden::e62 itself, with its exponentials and sigmoids tabulated (functions of one f16).
        if (io.texture && io.surfaces.s112 && io.surfaces.s120 && io.surfaces.s128) {
          if (kern.e62_lanes && !ctx.stats && !(ctx.trace && ctx.trace_request))
            e62_block(ctx, lr, d, *io.texture, io.surfaces, tab, kern);
          else
            golden::e62(ctx, lr, d, *io.texture, io.surfaces, tab.e61_exp.data(), tab.e62_sigmoid.data(), kern.e61_pixels);
        }
        laps.lap(kGroupTail);
      },
      block_loop(how.threads));
}

}  // namespace rrswin::engine
