// The network's levels, buffer sizes and scratch block (model/network.hpp, issue 36 "edges as
// data") against d4r's measured numbers, written out here: the layer rows' token grids at a
// 1280x720 render (DESC-e2 320x184, DESC-d0 1280x736, facts A3 40x23, ...), the buffer offsets of
// the one 65,945,600-byte scratch block (HIP-e1's launch manifest: enc1's +8 at 30146560, +48 at
// 45219840, +56 at 60293120, and "the block's whole 20,725,760-byte tail" its +48 and +56 fill), and
// products the digest prints (30146560 = 1280 x 736 x 32, 15073280 = 640 x 368 x 64, 5652480 =
// 320 x 184 x 96: ../shared/spec/rr_network_layers.md §6).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/network.hpp"

namespace {

using rrswin::LayerBuffer;
using rrswin::LayerId;

TEST(NetworkTable, LevelGridsAreEveryRowsGridAtA1280x720Render) {
  for (LayerId id : rrswin::layer_ids()) {
    const rrswin::LayerSpec& s = rrswin::layer_spec(id);
    const rrswin::TokenGrid g = rrswin::level_grid(1280, 720, rrswin::network_level(id));
    EXPECT_EQ(g.ex, s.abi.ex) << s.name;
    EXPECT_EQ(g.ey, s.abi.ey) << s.name;
  }
  EXPECT_EQ(rrswin::level_grid(1280, 720, 0).ey, 736);  // 720 rounded up to 23 x 32
  EXPECT_EQ(rrswin::level_grid(1280, 720, 5).ey, 23);
  EXPECT_EQ(rrswin::level_grid(1920, 1080, 0).ey, 1088);
  EXPECT_EQ(rrswin::level_grid(1920, 1080, 5).ex, 60);
  EXPECT_EQ(rrswin::network_level(LayerId::enc5), 5);
  EXPECT_EQ(rrswin::network_level(LayerId::dec4), 4);
}

TEST(NetworkTable, BufferSizesAreTheDigestsProducts) {
  auto bytes = [](LayerId l, int p) { return rrswin::buffer_bytes({l, p}, 1280, 720); };
  EXPECT_EQ(bytes(LayerId::enc0, 48), 1280ull * 736 * 32);
  EXPECT_EQ(bytes(LayerId::enc0, 48), 30146560u);
  EXPECT_EQ(bytes(LayerId::enc1, 48), 15073280u);  // 640 x 368 x 64
  EXPECT_EQ(bytes(LayerId::enc1, 8), 15073280u);   // enc0's merged output: 64 channels at 640 x 368
  EXPECT_EQ(bytes(LayerId::enc1, 56), 5652480u);   // 320 x 184 x 96
  EXPECT_EQ(bytes(LayerId::enc2, 8), 5652480u);
  // HIP-e1: enc1's own stores fill the block's 20,725,760-byte tail from its +48 on.
  EXPECT_EQ(*bytes(LayerId::enc1, 48) + *bytes(LayerId::enc1, 56), 20725760u);
  EXPECT_EQ(45219840u + 20725760u, rrswin::kScratchBlockBytes);
  EXPECT_EQ(bytes(LayerId::enc5, 48), 40ull * 23 * 160);  // dec4's input
  EXPECT_EQ(bytes(LayerId::dec4, 8), bytes(LayerId::enc5, 48));
  EXPECT_EQ(bytes(LayerId::dec3, 24), 160ull * 92 * 128);
  EXPECT_EQ(bytes(LayerId::dec0, 48), 1280ull * 736 * 8);                    // DOC-d0 §4.2: 8 e4m3 bytes a pixel, not a plane arena
  EXPECT_EQ(*bytes(LayerId::dec0, 48), 7536640u);                            // dec0.md §1.3
  EXPECT_FALSE(bytes(LayerId::enc0, 8).has_value());                         // no layer feeds enc0's +8
  EXPECT_FALSE(rrswin::producing_buffer({LayerId::enc0, 304}).has_value());  // the network input
}

// Every edge joins two buffers of one size, as the consumer's own row reads its input: an encoder's
// +8 is C/32 planes at its grid, a decoder's +8 the front's K/32 planes at half its grid, a +24 C/32
// planes at its grid (computed here from the consumer's row, not through buffer_bytes).
TEST(NetworkTable, EveryEdgeJoinsBuffersOfOneSize) {
  for (const rrswin::NetworkEdge& e : rrswin::kNetworkEdges) {
    const rrswin::LayerSpec& c = rrswin::layer_spec(e.to);
    const int ex = c.abi.ex, ey = c.abi.ey;
    const bool decoder = c.front.kind == rrswin::FrontKind::patch_expand;
    unsigned long long want = 0;
    if (e.to_param == 24)
      want = 32ull * (c.channels / 32) * ex * ey;
    else if (decoder)
      want = 32ull * (c.front.k / 32) * (ex >> 1) * (ey >> 1);
    else
      want = 32ull * (c.channels / 32) * ex * ey;
    const auto got = rrswin::buffer_bytes({e.from, e.from_param}, 1280, 720);
    ASSERT_TRUE(got.has_value()) << rrswin::to_string(e.from) << " +" << e.from_param;
    EXPECT_EQ(*got, want) << rrswin::to_string(e.from) << " +" << e.from_param << " -> " << rrswin::to_string(e.to) << " +" << e.to_param;
  }
}

TEST(NetworkTable, TheMeasuredScratchLayoutIsConsistent) {
  const std::vector<std::string> v = rrswin::check_scratch_layout();
  for (const std::string& s : v) ADD_FAILURE() << s;
  // The lifetimes the check uses: enc1's arena lives until dec1 reads it as its skip.
  EXPECT_EQ(rrswin::buffer_lifetime({LayerId::enc1, 48}).first, 1);
  EXPECT_EQ(rrswin::buffer_lifetime({LayerId::enc1, 48}).last, 9);
  EXPECT_EQ(rrswin::buffer_lifetime({LayerId::enc1, 56}).last, 2);
}

// The check fails where it should: a buffer moved onto one live beside it, an edge's two ends at two
// offsets, a buffer past the block.
TEST(NetworkTable, TheCheckFindsOverlapsSplitEdgesAndOverruns) {
  auto altered = [](LayerBuffer which, std::uint64_t offset) {
    std::vector<rrswin::ScratchPlacement> p(rrswin::kScratchPlacements.begin(), rrswin::kScratchPlacements.end());
    for (auto& x : p)
      if (x.buffer.layer == which.layer && x.buffer.param == which.param) x.offset = offset;
    return p;
  };
  // dec3's output onto enc3's arena, which dec3 reads as its skip while writing it.
  auto has = [](const std::vector<std::string>& v, const char* what) {
    for (const std::string& s : v)
      if (s.find(what) != std::string::npos) return true;
    return false;
  };
  auto v = rrswin::check_scratch_layout(altered({LayerId::dec3, 48}, 37683200), 1280, 720);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(has(v, "and dec3 +48 [37683200, 39567360) overlap")) << v[0];
  EXPECT_TRUE(has(v, "overlap while both are live")) << v[0];
  v = rrswin::check_scratch_layout(altered({LayerId::enc2, 8}, 30146560), 1280, 720);
  EXPECT_TRUE(has(v, "one buffer (an edge) at two offsets"));
  v = rrswin::check_scratch_layout(altered({LayerId::dec2, 48}, 61000000), 1280, 720);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(has(v, "passes the 65945600-byte block")) << v[0];
}

}  // namespace
