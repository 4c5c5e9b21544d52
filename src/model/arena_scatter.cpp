// E60 (facts C13): requantise D60 into phase 61's A fragments (20 words per lane) and scatter
// them into the output plane arena with the kernel's index and guards.
#include <cstring>

#include "layout/arena.hpp"
#include "layout/fragment.hpp"
#include "model/layer.hpp"

namespace rrswin::golden {

bool e60_lane_dropped(const Readings& r, int lane) { return r.e60_lane_guard == E60LaneGuard::laneid_gt_15 && lane > 15; }

ArenaOrder e60_arena_order(const Readings& r) { return r.arena_order; }

E4Mat e60_scatter(const BlockContext& ctx, const F16Mat& d60, std::span<std::uint8_t> output_arena) {
  // (a) 40 cvt.rn.satfinite.e4m3x2.f16x2: q8(D60), which is also phase 61's A (facts C12).
  E4Mat a(d60.rows, d60.cols);
  for (int r = 0; r < d60.rows; ++r)
    for (int c = 0; c < d60.cols; ++c) a.at(r, c) = quantise(ctx, d60.at(r, c));
  e60_store(ctx, a, output_arena);
  return a;
}

void e60_store(const BlockContext& ctx, const E4Mat& a, std::span<std::uint8_t> output_arena) {
  // C/32 planes of 4 words per lane: enc5's 20 (facts C13), enc3's 16 (DOC3 §3/E46(b): 16 guarded
  // st.global.u32, 4 planes at +512 strides of the index).
  const int planes = a.cols / 32, e = ctx.layer().last_mlp();
  StageRef st = ctx.stage(cat("e", e, ".words"),
                          cat("E", e, "'s ", 4 * planes, " words = phase ", ctx.layer().final_phase(),
                              "'s A: reg 4q+o = A register o of k-slice q (pair order bytes)"),
                          StageKind::arena_words);
  if (st) st->kind = TraceStage::Kind::e4m3x4;
  const layout::PlaneArena pa{ctx.ex, ctx.ey, planes};
  ArenaSlot slots[4][4];  // [o][t]: a function of the reading arena-order only
  const layout::APairTable& am = layout::a_element_pair_table();
  for (int o = 0; o < 4; ++o)
    for (int t = 0; t < 4; ++t) slots[o][t] = arena_slot(e60_arena_order(*ctx.readings), o, t);
  for (int z = 0; z < 4; ++z)
    for (int lane = 0; lane < 32; ++lane) {
      const int g = lane >> 2, t = lane & 3;
      // DOC5's "laneid > 15" term (facts C13.3) is the reading arena-lane-guard; default off
      // (enc0's analogue is "laneid > 255", always false; a real laneid > 15 test would drop
      // pixels x0+4..x0+7 of every block, leaving arena holes the next layer reads).
      const bool lane_dropped = e60_lane_dropped(*ctx.readings, lane);
      for (int q = 0; q < planes; ++q)
        for (int o = 0; o < 4; ++o) {
          std::uint32_t w = 0;
          for (int j = 0; j < 4; ++j) {
            const layout::RowK e = am[lane][o][j];
            w |= static_cast<std::uint32_t>(a.at(16 * z + e.row, 32 * q + e.k)) << (8 * j);
          }
          if (st) st->at(z, lane, 4 * q + o) = w;
          // (b) the guarded store: pixel (x0 + g, y0 + 2z + row_half), word d of plane q.
          const ArenaSlot slot = slots[o][t];
          const int x = ctx.x0 + g, y = ctx.y0 + 2 * z + slot.row_half;
          if (!pa.in_frame(x, y) || lane_dropped) {
            if (ctx.stats) ++ctx.stats->arena_stores_dropped;
            continue;
          }
          if (ctx.stats) ++ctx.stats->arena_stores;
          std::memcpy(output_arena.data() + 4 * pa.word_index(q, x, y, slot.word), &w, 4);  // little endian
        }
    }
}

}  // namespace rrswin::golden
