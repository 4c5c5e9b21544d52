// The prologue (facts B1..B6, A7, A8.1): the 96 token rows of the block (64 window + 32 halo),
// read from the input plane arena as the A fragment registers of six m-tiles, decoded (the
// residual vector x), RMS-normalised with g1 and requantised into the staged A of phases 1..10.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "layout/arena.hpp"
#include "layout/fragment.hpp"
#include "layout/tables.hpp"
#include "model/layer.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"

namespace rrswin::golden {

std::array<int, 2> token_pixel(const BlockContext& ctx, int row) {
  const PixelXY p = token_pixel_of(ctx.readings->prologue_halo, ctx.x0, ctx.y0, row);
  return {p.x, p.y};
}

// One u32 word of the input arena at pixel (x, y), plane q, word d, or the out-of-frame fill
// (reading prologue-fill; facts B6: undocumented). `zero` models a guarded load that leaves its
// register 0 (the guard pattern E60 uses); `mirror` is SWM's sibling padding v -> min(|v|,
// 2n-2-v); `clamp` repeats the edge pixel.
f16_t prologue_eps(const Readings& r) {
  return r.prologue_eps == PrologueEps::e2m13 ? kPrologueEpsE2m13 : kPrologueEpsE2m10;  // 2^-13 (%fd770) or 2^-10
}

std::uint32_t input_word(const BlockContext& ctx, std::span<const std::uint8_t> arena, int q, int x, int y, int d) {
  const layout::PlaneArena pa{ctx.ex, ctx.ey};
  if (!pa.in_frame(x, y)) {
    switch (ctx.readings->prologue_fill) {
      case PrologueFill::zero: return 0;
      case PrologueFill::mirror: {
        auto m = [](int v, int n) { return std::clamp(std::min(std::abs(v), 2 * n - 2 - v), 0, n - 1); };
        x = m(x, ctx.ex);
        y = m(y, ctx.ey);
        break;
      }
      case PrologueFill::clamp:
        x = std::clamp(x, 0, ctx.ex - 1);
        y = std::clamp(y, 0, ctx.ey - 1);
        break;
    }
  }
  std::uint32_t w;
  std::memcpy(&w, arena.data() + 4 * pa.word_index(q, x, y, d), 4);  // little endian, as in memory
  return w;
}

ArenaOrder prologue_arena_order(const Readings& r) {
  // facts B1/B5, Errata 2: which pixel (row g's or row g+8's) and which word each A register
  // comes from is the reading prologue-load-order: E60's map (arena_slot), so that a layer reads
  // what the previous one wrote, or the natural one.
  return r.prologue_load_order == PrologueLoadOrder::fragment ? ArenaOrder::fragment : ArenaOrder::natural;
}

void prologue_gather(const BlockContext& ctx, std::span<const std::uint8_t> input_arena, F16Mat& x, const f16_t* e4m3_f16_table) {
  // facts B1/B5: lane (g, t) of the warp staging m-tile mi loads, per plane q (= k-slice q), its
  // four A registers o = 0..3 as four arena words at arena_slot(prologue_arena_order, o, t); the
  // layer's C/32 planes (5 for enc5/enc4, 4 for enc3: DOC3 §1.4 stages 24 = 6 m-tiles x 4 k-slices).
  const int planes = ctx.layer().k_slices();
  x = F16Mat(kTokens, 32 * planes);
  const ArenaOrder order = prologue_arena_order(*ctx.readings);
  ArenaSlot slots[4][4];  // [o][t]
  const layout::APairTable& am = layout::a_element_pair_table();
  for (int o = 0; o < 4; ++o)
    for (int t = 0; t < 4; ++t) slots[o][t] = arena_slot(order, o, t);
  for (int mi = 0; mi < kTokens / 16; ++mi) {
    std::array<std::array<int, 2>, 16> px;  // the pixels of the m-tile's rows
    for (int i = 0; i < 16; ++i) px[i] = token_pixel(ctx, 16 * mi + i);
    for (int q = 0; q < planes; ++q)
      for (int lane = 0; lane < 32; ++lane)
        for (int o = 0; o < 4; ++o) {
          const int g = lane >> 2, t = lane & 3;
          const ArenaSlot slot = slots[o][t];
          const auto& pix = px[g + 8 * slot.row_half];
          const std::uint32_t w = input_word(ctx, input_arena, q, pix[0], pix[1], slot.word);
          for (int j = 0; j < 4; ++j) {
            const layout::RowK e = am[lane][o][j];
            const e4m3_t code = static_cast<e4m3_t>(w >> (8 * j));
            // cvt.rn.f16x2.e4m3x2, exact
            x.at(16 * mi + e.row, 32 * q + e.k) = e4m3_f16_table ? e4m3_f16_table[code] : e4m3_to_f16(code);
          }
        }
  }
}

std::optional<NormSpec> prologue_norm_spec(const BlockContext& ctx) {
  // facts B4 (UNVERIFIABLE, readings prologue-*): inv = f16(rsqrt(f16(s + eps))) with s the f16
  // sum of squares in the reading's tree; h1 = q8(f16(x * f16(inv * g1_c))), the E20 form; or no
  // norm at all (prologue-norm = identity: h1 = q8(x)).
  if (ctx.readings->prologue_norm == PrologueNorm::identity) return std::nullopt;
  return NormSpec{ctx.readings->prologue_sum_tree, prologue_eps(*ctx.readings),
                  load_column_table(*ctx.weights, ctx.weight_map().g1(), TableChunkOrder::nt, ctx.layer().channels)};
}

PrologueOut prologue(const BlockContext& ctx, std::span<const std::uint8_t> input_arena) {
  F16Mat x;
  prologue_gather(ctx, input_arena, x);
  return stage_input(ctx, std::move(x), prologue_norm_spec(ctx));
}

PrologueOut stage_input(const BlockContext& ctx, F16Mat x, const std::optional<NormSpec>& norm) {
  PrologueOut out;
  out.x = std::move(x);
  out.h1 = E4Mat(kTokens, out.x.cols);
  F16Mat xn = out.x;
  if (norm) {
    if (ctx.norm_rows)
      (*ctx.norm_rows)(*norm, out.x.v.data(), xn.v.data(), kTokens);
    else
      rms_norm_rows(*norm, out.x.v.data(), xn.v.data(), kTokens);
  }
  for (std::size_t i = 0; i < xn.v.size(); ++i) out.h1.v[i] = quantise(ctx, xn.v[i]);

  // Trace: the staged A, one k-slice fragment per register: reg = 4*(5*mi + q) + o (facts A8.1
  // fragment i = 5 mi + q; K = C/32 k-slices in place of 5), value = the 4 e4m3 bytes of A
  // register o (pair order).
  const int K = out.x.cols / 32;
  if (StageRef st =
          ctx.stage("prologue.a", cat("staged A: reg 4*(", K, "mi+q)+o = A register o of m-tile mi, k-slice q"), StageKind::prologue_a)) {
    st->kind = TraceStage::Kind::e4m3x4;
    for (int lane = 0; lane < 32; ++lane)
      for (int mi = 0; mi < 6; ++mi)
        for (int q = 0; q < K; ++q)
          for (int o = 0; o < 4; ++o) {
            std::uint32_t w = 0;
            for (int j = 0; j < 4; ++j) {
              const layout::RowK e = layout::a_element_pair(lane, o, j);
              w |= static_cast<std::uint32_t>(out.h1.at(16 * mi + e.row, 32 * q + e.k)) << (8 * j);
            }
            st->at(0, lane, 4 * (K * mi + q) + o) = w;
          }
  }
  return out;
}

}  // namespace rrswin::golden
