// Second, independent formulations: phase 11 through the fragment-form mma built with the layout
// objects; the arena index as a bijection; the prologue reading back what E60 wrote.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "layout/arena.hpp"
#include "layout/fragment.hpp"
#include "model/layer.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/mma.hpp"

namespace rrswin::golden {
namespace {

TEST(GoldenPhase11, FragmentFormEqualsMatrixLevel) {
  // Q: 96 x 32 f16 from a fixed PRNG (moderate magnitudes, both signs).
  SplitMix64 rng(99);
  F16Mat q(kTokens, kHeadDim);
  for (auto& v : q.v) v = static_cast<f16_t>((rng.below(2) << 15) | ((10 + rng.below(8)) << 10) | rng.below(1024));
  const Readings rd;
  for (const Profile* prof : all_profiles()) {
    BlockContext ctx;
    ctx.profile = prof;
    ctx.readings = &rd;
    ctx.weights = &default_weights();
    const int head = 3;
    const F16Mat s = score_phase(ctx, q, head);
    // The kernel's view (facts C3, E6): mma (mi, nb) takes A = q8(Q rows 16mi..) in pair order,
    // B column n = key row 8nb + n, C = the bias words at slot + 10560 + 512(mi + 4(nb>>1)) +
    // 16L + 8(nb&1) + 4rh (written out here from the facts, not from layout/tables).
    const std::uint32_t slot = 27648u * head;
    for (int mi = 0; mi < 4; ++mi)
      for (int nb = 0; nb < 12; ++nb) {
        MmaFragA a{};
        MmaFragB b{};
        MmaFragC c{};
        for (int row = 0; row < 16; ++row)
          for (int k = 0; k < 32; ++k) {
            const auto loc = layout::a_location_pair(row, k);
            a.reg[loc.lane][loc.reg] |= static_cast<std::uint32_t>(f16_to_e4m3(q.at(16 * mi + row, k), *prof)) << (8 * loc.byte);
          }
        for (int k = 0; k < 32; ++k)
          for (int n = 0; n < 8; ++n) {
            const auto loc = layout::b_location_pair(k, n);
            b.reg[loc.lane][loc.reg] |= static_cast<std::uint32_t>(f16_to_e4m3(q.at(8 * nb + n, k), *prof)) << (8 * loc.byte);
          }
        for (int lane = 0; lane < 32; ++lane)
          for (int rh = 0; rh < 2; ++rh) {
            const std::uint32_t off = slot + 10560 + 512u * (mi + 4 * (nb >> 1)) + 16u * lane + 8u * (nb & 1) + 4u * rh;
            c.reg[lane][rh] = f16x2_pack(ctx.weights->f16_at(off), ctx.weights->f16_at(off + 2));
          }
        const MmaFragC d = mma_m16n8k32(*prof, a, b, c);
        for (int lane = 0; lane < 32; ++lane)
          for (int rh = 0; rh < 2; ++rh)
            for (int h = 0; h < 2; ++h) {
              const auto rc = layout::cd_element(lane, rh, h);
              const f16_t v = h ? f16x2_hi(d.reg[lane][rh]) : f16x2_lo(d.reg[lane][rh]);
              ASSERT_EQ(v, s.at(16 * mi + rc.row, 8 * nb + rc.col)) << prof->name << " mi " << mi << " nb " << nb;
            }
      }
  }
}

TEST(GoldenArena, IndexIsABijectionOntoThePlanes) {
  // For both arena orders, several geometries and offsets: the words E60's guarded stores reach
  // (every block, warp, lane, plane, register) cover each word of the arena exactly once.
  struct G {
    int ex, ey, ox, oy;
  };
  for (const G gm : {G{40, 23, 0, 0}, G{9, 7, 3, 5}, G{1, 1, 0, 0}, G{17, 10, 7, 1}})
    for (ArenaOrder order : {ArenaOrder::fragment, ArenaOrder::natural}) {
      const layout::PlaneArena pa{gm.ex, gm.ey};
      std::vector<int> hits(pa.total_words(), 0);
      const int gx = (gm.ex + gm.ox + 7) / 8, gy = (gm.ey + gm.oy + 7) / 8;
      for (int cy = 0; cy < gy; ++cy)
        for (int cx = 0; cx < gx; ++cx)
          for (int z = 0; z < 4; ++z)
            for (int lane = 0; lane < 32; ++lane)
              for (int qp = 0; qp < 5; ++qp)
                for (int o = 0; o < 4; ++o) {
                  const ArenaSlot s = arena_slot(order, o, lane & 3);
                  const int x = 8 * cx - gm.ox + (lane >> 2), y = 8 * cy - gm.oy + 2 * z + s.row_half;
                  if (pa.in_frame(x, y)) ++hits[pa.word_index(qp, x, y, s.word)];
                }
      for (std::size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i], 1) << "word " << i;
    }
}

TEST(GoldenArena, PrologueReadsBackWhatE60Wrote) {
  // A 16x16 frame, block (1,1) (x0 = y0 = 8): E60 scatters a known q8(D60) of the window rows;
  // the prologue with the matching load order decodes exactly those bytes as x rows 0..63.
  for (ArenaOrder order : {ArenaOrder::fragment, ArenaOrder::natural}) {
    Readings rd;
    rd.arena_order = order;
    rd.prologue_load_order = order == ArenaOrder::fragment ? PrologueLoadOrder::fragment : PrologueLoadOrder::natural;
    BlockContext ctx;
    ctx.profile = &profile_ada();
    ctx.readings = &rd;
    ctx.weights = &default_weights();
    ctx.ex = 16;
    ctx.ey = 16;
    ctx.x0 = 8;
    ctx.y0 = 8;
    SplitMix64 rng(4);
    F16Mat d60(kWindow, kChannels);
    for (auto& v : d60.v) v = static_cast<f16_t>((rng.below(2) << 15) | ((8 + rng.below(12)) << 10) | rng.below(1024));
    std::vector<std::uint8_t> arena(layout::PlaneArena{16, 16}.total_bytes(), 0);
    const E4Mat a = e60_scatter(ctx, d60, arena);
    const PrologueOut p = prologue(ctx, arena);
    for (int r = 0; r < kWindow; ++r)
      for (int c = 0; c < kChannels; ++c) ASSERT_EQ(p.x.at(r, c), e4m3_to_f16(a.at(r, c))) << r << "," << c;
    // The natural order also puts token (x, y)'s 32 channels of plane q in its own 8 words.
    if (order == ArenaOrder::natural) {
      const layout::PlaneArena pa{16, 16};
      for (int r = 0; r < kWindow; ++r) {
        std::set<std::uint8_t> mine, stored;
        for (int c = 0; c < 32; ++c) mine.insert(a.at(r, c));
        for (int d = 0; d < 8; ++d)
          for (int j = 0; j < 4; ++j) stored.insert(arena[4 * pa.word_index(0, 8 + (r & 7), 8 + (r >> 3), d) + j]);
        EXPECT_EQ(mine, stored) << r;
      }
    }
  }
}

}  // namespace
}  // namespace rrswin::golden
