// The decoders' front (model/decoder_front.hpp) at dec4, against descriptions independent of the
// code's address functions:
//   * the weight offsets are d4r's printed numbers (HIP-d4 phase 1: slab W + 25600 z, the byte of
//     (k, n) inside a 512-byte tile from HIP-d4's waddr comment; REC-d4 _c_regs: seeds at
//     102400 + 320 z + 16 j + 4 t; DOC-d4 §4/E1: g1 at 103680), written out here;
//   * with the output projections, the down-projections and the tables T1/T3 zeroed, the layer's
//     arena is q8 of the residual x = f16(expanded + skip) (the template's residual path), so the
//     arena shows what the front computed, pixel by pixel;
//   * what a 2x2 patch expand means: pixel (px, py) takes sub-pixel (px & 1, py & 1) of the
//     low-resolution token (px >> 1, py >> 1) (clamped into the input's frame: expand-fill = clamp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "layout/arena.hpp"
#include "model/decoder_front.hpp"
#include "model/layer_golden.hpp"
#include "numerics/profile.hpp"

namespace {

using rrswin::LayerId;

// The decoders' printed phase-1 numbers: the slab stride (B at W + slab z), the seed base and
// stride (seeds at W + seeds + stride z + 16 j + 4 t), g1 (B0), the expand's K and C, the k-slices
// per 16-column group. dec4: HIP-d4 phase 1, REC-d4 _c_regs, DOC-d4 §4/E1; dec3: HIP-d3 (B W +
// 20480 z, seeds 81920 + 256 z), DOC-d3 §4/E1 (g1 at 82944); dec2: HIP-d2 waddr1 (12288 z, 4 k-tiles
// per 16 columns), its seeds at 49152 + 192 z (g1 = 49152 + 4 x 192 = 49920: arithmetic, not printed);
// dec1: two warps of 2C = 128 columns (HIP-d1 phase 1: B W + 12288 z, 3 k-slices per 16 columns;
// DOC-d1 §1.1 s379-s402: seeds at 24576 + 256 z + 16 j + 4 t; DESC-d1 gain_byte_offset 25088).
struct Printed {
  LayerId id;
  std::uint32_t slab, seeds, seed_stride, g1;
  int k, c, warps;
  int columns() const { return 4 * c / warps; }  // each warp's expand columns: the 4C outputs split over the warps
};
const Printed kPrinted[] = {
    {LayerId::dec4, 25600, 102400, 320, 103680, 160, 160, 4},
    {LayerId::dec3, 20480, 81920, 256, 82944, 160, 128, 4},
    {LayerId::dec2, 12288, 49152, 192, 49920, 128, 96, 4},
    {LayerId::dec1, 12288, 24576, 256, 25088, 96, 64, 2},
};
// Warp z's column n of sub-pixel s's channel c: a warp expands 4 / warps sub-pixels, z = s / that;
// dec1's two per warp by the reading expand-column-split (block: n = (s & 1) C + c; interleaved: the
// sub-pixel alternates with the n-tile's parity, n = 16 (c >> 3) + 8 (s & 1) + (c & 7)).
struct WarpColumn {
  int z, n;
};
WarpColumn warp_column(const Printed& p, rrswin::ExpandColumnSplit split, int s, int c) {
  if (p.warps == 4) return {s, c};
  if (split == rrswin::ExpandColumnSplit::block) return {s >> 1, (s & 1) * p.c + c};
  return {s >> 1, 16 * (c >> 3) + 8 * (s & 1) + (c & 7)};
}
const Printed& printed(LayerId id) {
  for (const Printed& p : kPrinted)
    if (p.id == id) return p;
  throw std::logic_error("no printed numbers");
}

// HIP-d4's waddr comment: byte of (k, n_local) in a 512-byte tile, n_local 0..15, k 0..31.
std::uint32_t tile_byte(int k, int n) {
  return 64 * (n & 7) + 8 * ((n >> 3) & 1) + 16 * ((k >> 1) & 3) + 4 * ((k >> 3) & 1) + 2 * ((k >> 4) & 1) + (k & 1);
}
// Warp z's B element (k, n): tile (K/32) (n >> 4) + (k >> 5) of the slab (HIP-d4 phase 1's chains:
// B fragment 10q + p + 2s, i.e. 5 k-slices per 16-column group at K = 160; HIP-d2 waddr1: 4 at 128).
std::uint32_t expand_b_byte(const Printed& p, int z, int k, int n) {
  return p.slab * z + 512 * ((p.k / 32) * (n >> 4) + (k >> 5)) + tile_byte(k & 31, n & 15);
}

// The decoder's default image with the front, the projections and the tables zeroed: the arena is q8(x).
std::vector<std::uint8_t> residual_image(LayerId id) {
  const rrswin::LayerSpec& s = rrswin::layer_spec(id);
  const rrswin::WeightMap m = rrswin::weight_map(s);
  const Printed& p = printed(id);
  EXPECT_EQ(m.g1(), p.g1);
  EXPECT_EQ(p.warps * p.slab, p.seeds);  // the slabs end where the seeds begin
  EXPECT_EQ(p.seeds + p.warps * p.seed_stride, p.g1);
  EXPECT_EQ(static_cast<std::uint32_t>(p.k * p.columns()), p.slab);
  EXPECT_EQ(static_cast<std::uint32_t>(2 * p.columns()), p.seed_stride);
  const rrswin::WeightImage& d = rrswin::default_layer_weights(id);
  std::vector<std::uint8_t> w(d.bytes().begin(), d.bytes().end());
  auto zero = [&w](std::uint32_t a, std::uint32_t b) { std::fill(w.begin() + a, w.begin() + b, 0); };
  zero(0, p.g1);
  for (int h = 0; h < s.heads; ++h) zero(m.wo(h), m.wo(h) + 32 * m.c);
  for (int c = 0; c < s.chunks; ++c) zero(m.w2(c), m.w2(c) + 32 * m.c);
  zero(m.t1(), m.t1() + 2 * m.c);
  zero(m.t3(), m.t3() + 2 * m.c);
  return w;
}

struct DecRun {
  std::vector<std::uint8_t> arena;
};
DecRun run_decoder(const rrswin::WeightImage& w, int ex, int ey, int ox, int oy, const std::vector<std::uint8_t>& input,
                   const std::vector<std::uint8_t>& skip, const rrswin::LayerReadings& lr = {}, const rrswin::Readings& rd = {}) {
  rrswin::LayerFrame f;
  f.ex = ex;
  f.ey = ey;
  f.ox = ox;
  f.oy = oy;
  f.input_arena = input;
  f.skip_arena = skip;
  f.weights = &w;
  rrswin::run_layer_frame_golden(f, rrswin::profile_ada(), rd, lr);
  return {f.output_arena};
}

std::uint8_t no_minus_zero(std::uint8_t b) { return b == 0x80 ? 0x00 : b; }

TEST(DecoderFront, ZeroFrontAndProjectionsCopyTheSkip) {
  for (const Printed& p : kPrinted) {
    SCOPED_TRACE(std::string(rrswin::to_string(p.id)));
    const rrswin::WeightImage w(residual_image(p.id), p.id, "residual");
    const int ex = 19, ey = 11;
    const rrswin::SyntheticFrame skip = rrswin::make_synthetic_frame(ex, ey, 7, false, p.c / 32);
    const rrswin::SyntheticFrame in = rrswin::make_synthetic_frame(ex >> 1, ey >> 1, 8, false, p.k / 32);
    const DecRun r = run_decoder(w, ex, ey, 3, 1, in.input_arena, skip.input_arena);
    ASSERT_EQ(r.arena.size(), skip.input_arena.size());
    for (std::size_t i = 0; i < r.arena.size(); ++i) ASSERT_EQ(r.arena[i], no_minus_zero(skip.input_arena[i])) << "byte " << i;
  }
}

// Sub-pixel `only`'s columns the identity (1.0 = e4m3 0x38 where input channel k == channel c < C),
// every other column and all seeds zero, the skip zero: the arena holds, at every pixel of that
// sub-pixel, the words of the low-resolution token under it (its first C channels), and zero elsewhere.
void check_patch_expand(const Printed& p, int only, rrswin::ExpandSubpixel sub, int ex, int ey, int ox, int oy,
                        rrswin::ExpandColumnSplit split = rrswin::ExpandColumnSplit::block) {
  std::vector<std::uint8_t> b = residual_image(p.id);
  for (int c = 0; c < p.c; ++c) {
    const WarpColumn wc = warp_column(p, split, only, c);
    b[expand_b_byte(p, wc.z, c, wc.n)] = 0x38;
  }
  const rrswin::WeightImage w(std::move(b), p.id, "identity expand");
  const int hx = ex >> 1, hy = ey >> 1;
  const rrswin::SyntheticFrame in = rrswin::make_synthetic_frame(hx, hy, 11, false, p.k / 32);
  const std::vector<std::uint8_t> skip(static_cast<std::size_t>(p.c / 32) * ex * ey * 32, 0);
  rrswin::LayerReadings lr;
  lr.decoder_front.subpixel = sub;
  lr.decoder_front.column_split = split;
  // expand-load-order = natural reads each token's own words; the arena written the same way
  // (arena-order = natural) then holds the expanded tokens word for word.
  rrswin::Readings rd;
  rd.arena_order = rrswin::ArenaOrder::natural;
  const DecRun r = run_decoder(w, ex, ey, ox, oy, in.input_arena, skip, lr, rd);
  const rrswin::layout::PlaneArena full{ex, ey, p.c / 32}, half{hx, hy, p.k / 32};
  int copied = 0;
  for (int y = 0; y < ey; ++y)
    for (int x = 0; x < ex; ++x) {
      const int dx = x & 1, dy = y & 1;
      const int z = sub == rrswin::ExpandSubpixel::dy_dx ? 2 * dy + dx : 2 * dx + dy;
      const int tx = std::min(x >> 1, hx - 1), ty = std::min(y >> 1, hy - 1);
      for (int q = 0; q < p.c / 32; ++q)
        for (int d = 0; d < 8; ++d)
          for (int j = 0; j < 4; ++j) {
            const std::uint8_t got = r.arena[4 * full.word_index(q, x, y, d) + j];
            const std::uint8_t want = z == only ? no_minus_zero(in.input_arena[4 * half.word_index(q, tx, ty, d) + j]) : 0;
            ASSERT_EQ(got, want) << "warp " << only << " pixel (" << x << ", " << y << ") plane " << q << " word " << d << " byte " << j;
          }
      copied += z == only;
    }
  EXPECT_GT(copied, 0);
}

TEST(DecoderFront, EachWarpExpandsOneSubPixelOfTheTokenUnderIt) {
  // The frame of the per-warp and per-split checks: 19 x 13 (3 x 2 blocks); under the sanitizers'
  // small scale (RRSWIN_TEST_SCALE=small) 11 x 7 (2 x 1 blocks), which keeps what they are there for:
  // every warp of every layer and both column splits, odd extents (the last column and row clamp to
  // the last token), more than one block, every pixel checked; a third of the golden model's work.
  const char* scale = std::getenv("RRSWIN_TEST_SCALE");
  const bool small = scale && std::string(scale) == "small";
  const int wx = small ? 11 : 19, wy = small ? 7 : 13;
  for (const Printed& p : kPrinted) {
    SCOPED_TRACE(std::string(rrswin::to_string(p.id)));
    for (int z = 0; z < 4; ++z) {
      SCOPED_TRACE(z);
      check_patch_expand(p, z, rrswin::ExpandSubpixel::dy_dx, wx, wy, 0, 0);  // odd extents: the last column and row clamp
    }
    check_patch_expand(p, 1, rrswin::ExpandSubpixel::dx_dy, 18, 10, 0, 0);
    check_patch_expand(p, 2, rrswin::ExpandSubpixel::dy_dx, 21, 12, 3, 5);  // odd block offsets: odd tile origins
  }
  // dec1's other column split: each sub-pixel's identity placed by that reading's columns.
  for (int s = 0; s < 4; ++s)
    check_patch_expand(printed(LayerId::dec1), s, rrswin::ExpandSubpixel::dy_dx, wx, wy, 2, 1, rrswin::ExpandColumnSplit::interleaved);
}

// Zero slabs, per-warp constant seeds at the printed addresses: every channel of a pixel is its warp's seed.
TEST(DecoderFront, SeedsArePerWarpColumnBiases) {
  for (const Printed& p : kPrinted) {
    SCOPED_TRACE(std::string(rrswin::to_string(p.id)));
    std::vector<std::uint8_t> b = residual_image(p.id);
    const std::uint16_t seed[4] = {0x3C00, 0xC000, 0x3400, 0x4900};  // 1, -2, 0.25, 10 (exact in e4m3: 0x38, 0xC0, 0x28, 0x52)
    const std::uint8_t q8[4] = {0x38, 0xC0, 0x28, 0x52};
    for (int s = 0; s < 4; ++s)
      for (int c = 0; c < p.c; ++c) {
        // Column n = 8 j + 2 t + h of warp z: the f16 at seeds + stride z + 16 j + 4 t + 2 h.
        const WarpColumn wc = warp_column(p, rrswin::ExpandColumnSplit::block, s, c);
        const int j = wc.n >> 3, t = (wc.n >> 1) & 3, h = wc.n & 1;
        const std::uint32_t at = p.seeds + p.seed_stride * wc.z + 16 * j + 4 * t + 2 * h;
        b[at] = static_cast<std::uint8_t>(seed[s]);
        b[at + 1] = static_cast<std::uint8_t>(seed[s] >> 8);
      }
    const rrswin::WeightImage w(std::move(b), p.id, "seeds");
    const int ex = 12, ey = 10;
    const rrswin::SyntheticFrame in = rrswin::make_synthetic_frame(ex >> 1, ey >> 1, 3, false, p.k / 32);
    const std::vector<std::uint8_t> skip(static_cast<std::size_t>(p.c / 32) * ex * ey * 32, 0);
    rrswin::Readings rd;  // the arena written token by token (as the expand reads), so a pixel's words are its own
    rd.arena_order = rrswin::ArenaOrder::natural;
    const DecRun r = run_decoder(w, ex, ey, 0, 0, in.input_arena, skip, {}, rd);
    const rrswin::layout::PlaneArena full{ex, ey, p.c / 32};
    for (int y = 0; y < ey; ++y)
      for (int x = 0; x < ex; ++x)
        for (int q = 0; q < p.c / 32; ++q)
          for (int d = 0; d < 8; ++d)
            for (int j = 0; j < 4; ++j) ASSERT_EQ(r.arena[4 * full.word_index(q, x, y, d) + j], q8[2 * (y & 1) + (x & 1)]) << x << "," << y;
  }
}

// The tile: the four warps' 48 rows each land on a 5x5 lattice and together write each of the 100
// cells exactly once (DESC-d1's measured dec1 map tiles all its slots once), for even and odd
// origins and both readings.
TEST(DecoderFront, TheFourLatticesTileTheTenByTenTileOnce) {
  for (auto sub : {rrswin::ExpandSubpixel::dy_dx, rrswin::ExpandSubpixel::dx_dy})
    for (int x0 : {0, 8, 5, -3})
      for (int y0 : {0, 7, 16}) {
        rrswin::DecoderFrontReadings fr;
        fr.subpixel = sub;
        std::vector<int> hits(100, 0);
        for (int z = 0; z < 4; ++z)
          for (int r = 0; r < 48; ++r) {
            const auto c = rrswin::golden::expand_cell(fr, x0, y0, z, r);
            if (c[0] < 0) continue;
            ASSERT_TRUE(c[0] < 10 && c[1] < 10);
            ++hits[10 * c[0] + c[1]];
            // The cell is the pixel the expansion puts sub-pixel z of token r at.
            const auto t = rrswin::golden::expand_token(x0, y0, r);
            EXPECT_EQ(2 * t[0] + (sub == rrswin::ExpandSubpixel::dy_dx ? z & 1 : z >> 1), x0 - 1 + c[1]);
            EXPECT_EQ(2 * t[1] + (sub == rrswin::ExpandSubpixel::dy_dx ? z >> 1 : z & 1), y0 - 1 + c[0]);
          }
        for (int i = 0; i < 100; ++i) EXPECT_EQ(hits[i], 1) << "cell " << i << " x0 " << x0 << " y0 " << y0;
      }
}

// dec1's E1 scatter as DESC-d1's interpreter run of it printed (descriptor_dec1.py e1_patch_grid,
// commit 578a8e2c): per lane group g, (cell, sub-array) slots written (4 sub-arrays a cell) warp 0
// [28, 28, 28, 24, 20, 20, 24, 28], warp 1 [24, 28, 28, 28, 28, 24, 20, 20]; warp 0 writes tile rows
// {1, 3, 5, 7, 9}, warp 1 {0, 2, 4, 6, 8}; the two warps' stores tile all cells exactly once. Lane
// group g holds rows g + 8 i of the 48; each warp expands two sub-pixels. The counts hold for an even
// origin (the run names none; at an odd one the lattices shift by a row and a column).
TEST(DecoderFront, Dec1ScatterIsDesc1sMeasuredMap) {
  const rrswin::LayerSpec& s = rrswin::layer_spec(LayerId::dec1);
  const int printed_slots[2][8] = {{28, 28, 28, 24, 20, 20, 24, 28}, {24, 28, 28, 28, 28, 24, 20, 20}};
  for (auto split : {rrswin::ExpandColumnSplit::block, rrswin::ExpandColumnSplit::interleaved})
    for (int origin : {0, 8, 16}) {
      rrswin::DecoderFrontReadings fr;
      fr.column_split = split;
      std::vector<int> hits(100, 0);
      for (int z = 0; z < 2; ++z) {
        std::set<int> subpixels;
        for (int n = 0; n < s.front.n_per_warp; ++n) subpixels.insert(rrswin::golden::expand_column(fr, s, z, n).subpixel);
        ASSERT_EQ(subpixels.size(), 2u);
        for (int g = 0; g < 8; ++g) {
          int slots = 0;
          for (int r = g; r < 48; r += 8)
            for (int sp : subpixels) {
              const auto c = rrswin::golden::expand_cell(fr, origin, origin + 8, sp, r);
              if (c[0] < 0) continue;
              slots += 4;
              ++hits[10 * c[0] + c[1]];
              EXPECT_EQ(c[0] & 1, z == 0 ? 1 : 0) << "warp " << z << " writes tile row " << c[0];
            }
          EXPECT_EQ(slots, printed_slots[z][g]) << "warp " << z << " g " << g << " origin " << origin;
        }
      }
      for (int i = 0; i < 100; ++i) EXPECT_EQ(hits[i], 1) << "cell " << i;
    }
}

// Every column of each warp is one (sub-pixel, channel), the 4C of them once each.
TEST(DecoderFront, ExpandColumnsCoverEverySubPixelAndChannelOnce) {
  for (LayerId id : {LayerId::dec4, LayerId::dec3, LayerId::dec2, LayerId::dec1})
    for (auto split : {rrswin::ExpandColumnSplit::block, rrswin::ExpandColumnSplit::interleaved}) {
      const rrswin::LayerSpec& s = rrswin::layer_spec(id);
      rrswin::DecoderFrontReadings fr;
      fr.column_split = split;
      std::vector<int> hits(static_cast<std::size_t>(4 * s.channels), 0);
      for (int z = 0; z < s.front.warps; ++z)
        for (int n = 0; n < s.front.n_per_warp; ++n) {
          const auto col = rrswin::golden::expand_column(fr, s, z, n);
          ASSERT_TRUE(col.subpixel >= 0 && col.subpixel < 4 && col.channel >= 0 && col.channel < s.channels);
          ++hits[static_cast<std::size_t>(col.subpixel * s.channels + col.channel)];
          if (s.front.warps == 4) {
            EXPECT_EQ(col.subpixel, z);  // one sub-pixel a warp: the reading is not consulted
          }
        }
      for (int h : hits) ASSERT_EQ(h, 1);
    }
}

// After the front, dec4 is enc5 (DOC-d4: phases 2..62 have enc5's 1..61 shapes, offsets + 103680):
// with the expand zeroed, x = the skip, so dec4's arena is enc5's on the skip as its input arena
// with the prologue's mirror fill (E1's reflect), on enc5's image cut from dec4's at B0.
TEST(DecoderFront, AfterTheFrontDec4IsEnc5) {
  const rrswin::WeightImage& d4 = rrswin::default_layer_weights(LayerId::dec4);
  std::vector<std::uint8_t> b(d4.bytes().begin(), d4.bytes().end());
  std::fill(b.begin(), b.begin() + 103680, 0);
  const rrswin::WeightImage w4(b, LayerId::dec4, "zero front");
  std::vector<std::uint8_t> b5(b.begin() + 103680, b.end());
  ASSERT_EQ(b5.size(), rrswin::default_weights().bytes().size());
  const rrswin::WeightImage w5(std::move(b5), "enc5 part of dec4");
  const int ex = 21, ey = 13;
  rrswin::SyntheticFrame skip = rrswin::make_synthetic_frame(ex, ey, 5, false);
  for (auto& v : skip.input_arena) v = no_minus_zero(v);  // f16(+0 + -0) = +0: keep the two runs' zeros alike
  const rrswin::SyntheticFrame in = rrswin::make_synthetic_frame(ex >> 1, ey >> 1, 6, false);
  const DecRun r = run_decoder(w4, ex, ey, 2, 3, in.input_arena, skip.input_arena);

  std::vector<std::uint8_t> arena5(r.arena.size(), 0);
  rrswin::Surface surface = rrswin::Surface::make(ex, ey);
  rrswin::LaunchParams p = rrswin::frame_launch(ex, ey, skip.input_arena, w5, arena5, skip.texture, surface);
  p.block_offset_x = 2;
  p.block_offset_y = 3;
  rrswin::RunOptions o;
  o.engine = rrswin::Engine::golden;
  std::string err;
  ASSERT_TRUE(rrswin::set_reading(o.readings, "prologue-fill=mirror", &err)) << err;
  rrswin::run_frame(p, o);
  std::size_t diff = 0, first = r.arena.size();
  for (std::size_t i = 0; i < r.arena.size(); ++i)
    if (r.arena[i] != arena5[i]) {
      ++diff;
      first = std::min(first, i);
    }
  EXPECT_EQ(diff, 0u) << "first differing byte " << first;
}

// dec3 and dec2 after the front are the template at enc3's and enc2's numbers: with the expand
// zeroed, their arena is enc3's / enc2's (the merge layers' phases before the merge, whose offsets
// from B0 are the decoders') on the skip, with the prologue's mirror fill.
TEST(DecoderFront, AfterTheFrontDec3IsEnc3AndDec2IsEnc2) {
  for (const auto& [dec, enc] : {std::pair{LayerId::dec3, LayerId::enc3}, std::pair{LayerId::dec2, LayerId::enc2}}) {
    SCOPED_TRACE(std::string(rrswin::to_string(dec)));
    const rrswin::WeightMap md = rrswin::weight_map(rrswin::layer_spec(dec)), me = rrswin::weight_map(rrswin::layer_spec(enc));
    ASSERT_EQ(md.mlp_end() - md.g1(), me.mlp_end());
    const rrswin::WeightImage& wd = rrswin::default_layer_weights(dec);
    std::vector<std::uint8_t> b(wd.bytes().begin(), wd.bytes().end());
    std::fill(b.begin(), b.begin() + md.g1(), 0);
    const rrswin::WeightImage w(b, dec, "zero front");
    const rrswin::WeightImage& we = rrswin::default_layer_weights(enc);
    std::vector<std::uint8_t> be(we.bytes().begin(), we.bytes().end());
    std::copy(b.begin() + md.g1(), b.begin() + md.mlp_end(), be.begin());
    const rrswin::WeightImage w2(std::move(be), enc, "the template part of the decoder");
    const int ex = 21, ey = 13, planes = rrswin::layer_spec(dec).k_slices();
    rrswin::SyntheticFrame skip = rrswin::make_synthetic_frame(ex, ey, 5, false, planes);
    for (auto& v : skip.input_arena) v = no_minus_zero(v);
    const rrswin::SyntheticFrame in = rrswin::make_synthetic_frame(ex >> 1, ey >> 1, 6, false, rrswin::layer_spec(dec).front.k / 32);
    const DecRun r = run_decoder(w, ex, ey, 2, 3, in.input_arena, skip.input_arena);
    rrswin::LayerFrame f;
    f.ex = ex;
    f.ey = ey;
    f.ox = 2;
    f.oy = 3;
    f.input_arena = skip.input_arena;
    f.weights = &w2;
    rrswin::Readings rd;
    rd.prologue_fill = rrswin::PrologueFill::mirror;
    rrswin::run_layer_frame_golden(f, rrswin::profile_ada(), rd, rrswin::LayerReadings{});
    EXPECT_TRUE(r.arena == f.output_arena);
  }
}

}  // namespace
