// The network's data flow as data (issue 36, "edges as data"): which parameter of which layer feeds
// which parameter of the next. No document states it; the channel counts of the merges (32 -> 64 ->
// 96 -> 128 -> 160) and the expands (K = 160, 160, 128, 96, 64), and d4r's measured buffer offsets
// in the one 65,945,600-byte scratch block (HIP-e1, DESC-e2, REC-d3, HIP-d2, DESC-d0: e.g. enc1's
// +56 at 60293120 is enc2's +8; dec4's +48 at 39567360 is dec3's +8) fix it: the reading
// "network-order" of docs/readings.md. What feeds the textures (+88, +96, +104) and the +136 scale
// is not stated anywhere: those are network inputs here, not edges.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "layout/arena.hpp"
#include "model/layer_spec.hpp"

namespace rrswin {

struct NetworkEdge {
  LayerId from;
  int from_param;  // the producing layer's output parameter (+48 arena, +56 merged output)
  LayerId to;
  int to_param;  // the consuming layer's input parameter (+8 input, +24 skip)
};

inline constexpr std::array<NetworkEdge, 15> kNetworkEdges{{
    // The encoder chain: enc_i's merged output is enc_{i+1}'s input.
    {LayerId::enc0, 56, LayerId::enc1, 8},
    {LayerId::enc1, 56, LayerId::enc2, 8},
    {LayerId::enc2, 56, LayerId::enc3, 8},
    {LayerId::enc3, 56, LayerId::enc4, 8},
    {LayerId::enc4, 56, LayerId::enc5, 8},
    // The bottom: enc5's arena is dec4's input; then dec_{i+1}'s output is dec_i's input.
    {LayerId::enc5, 48, LayerId::dec4, 8},
    {LayerId::dec4, 48, LayerId::dec3, 8},
    {LayerId::dec3, 48, LayerId::dec2, 8},
    {LayerId::dec2, 48, LayerId::dec1, 8},
    {LayerId::dec1, 48, LayerId::dec0, 8},
    // The skips: enc_i's arena is dec_i's skip input.
    {LayerId::enc4, 48, LayerId::dec4, 24},
    {LayerId::enc3, 48, LayerId::dec3, 24},
    {LayerId::enc2, 48, LayerId::dec2, 24},
    {LayerId::enc1, 48, LayerId::dec1, 24},
    {LayerId::enc0, 48, LayerId::dec0, 24},
}};

// ---- The levels (issue 36, "edges as data") -------------------------------------------------------
// Layer enc_i and dec_i run at level i, enc5 at level 5; each level halves the token grid of the one
// above (an encoder's merge, a decoder's expand). Level 0's grid is the render rounded up to a
// multiple of 32, the reading network-extents (docs/readings.md §8): the one rule that gives the
// five halvings integer extents and every layer row's grid at a 1280x720 render (1280x736 down to
// enc5's 40x23; DESC-e2, DESC-d0, facts A3).
int network_level(LayerId id);
struct TokenGrid {
  int ex, ey;
};
TokenGrid level_grid(int render_w, int render_h, int level);

// ---- Buffers and the scratch block --------------------------------------------------------------
// One layer parameter that points into memory the network passes between layers: the producing
// layer's +48 (arena) or +56 (merged output), or a consumer's +8 / +24 (the producer's buffer again).
struct LayerBuffer {
  LayerId layer;
  int param;  // 8, 24, 48 or 56
};
// Its size in bytes at a render (render_w x render_h), from the layer rows: a plane arena of 32-byte
// words per token (layout/arena.hpp) of C/32 planes (+48, +24), merge_out/32 planes at the halved
// grid (+56), the front's K/32 planes at the halved grid (a decoder's +8) or the upstream merge's
// (an encoder's +8); nullopt where the rows do not give it (dec0's +48, an e4m3 output whose layout
// is not read yet; enc0's network input).
std::optional<std::uint64_t> buffer_bytes(LayerBuffer b, int render_w, int render_h);
// The same buffer's plane arena (grid and planes), where it is one.
std::optional<layout::PlaneArena> buffer_arena(LayerBuffer b, int render_w, int render_h);
// The producer's output that a consumer's input parameter reads (by kNetworkEdges), or the buffer
// itself for an output parameter; nullopt for a network input (enc0's +304, or no edge).
std::optional<LayerBuffer> producing_buffer(LayerBuffer b);
// The span of network order (enc0 = 0 .. dec0 = 10) over which a produced buffer is live: its
// producer's index to its last consumer's.
struct Lifetime {
  int first, last;
};
Lifetime buffer_lifetime(LayerBuffer produced);

// d4r's measured placements of layer buffers in the one scratch block all eleven layers share (a
// 1280x720 render; launch manifests and recipe notes: HIP-e1's `pointer 8 0 30146560` ...).
inline constexpr std::uint64_t kScratchBlockBytes = 65945600;  // HIP-e1 header: "the 65,945,600-byte block"
struct ScratchPlacement {
  LayerBuffer buffer;
  std::uint64_t offset;
  const char* source;
};
inline constexpr std::array<ScratchPlacement, 12> kScratchPlacements{{
    {{LayerId::enc1, 8}, 30146560, "HIP-e1 header (launch manifest: pointer 8 0 30146560)"},
    {{LayerId::enc1, 48}, 45219840, "HIP-e1 header (pointer 48 0 45219840)"},
    {{LayerId::enc1, 56}, 60293120, "HIP-e1 header (pointer 56 0 60293120)"},
    {{LayerId::enc2, 8}, 60293120, "DESC-e2 layer()"},
    {{LayerId::enc2, 48}, 30146560, "DESC-e2 layer()"},
    {{LayerId::enc2, 56}, 35799040, "DESC-e2 layer()"},
    {{LayerId::dec4, 48}, 39567360, "HIP-d4 header"},
    {{LayerId::dec3, 8}, 39567360, "REC-d3"},
    {{LayerId::dec3, 24}, 37683200, "REC-d3"},
    {{LayerId::dec3, 48}, 35799040, "REC-d3"},
    {{LayerId::dec2, 48}, 60293120, "HIP-d2 header"},
    {{LayerId::dec0, 48}, 45219840, "DESC-d0 layer()"},
}};
// What the measurements say about the layout, checked (tests/network_table_test.cpp): each
// placement's buffer lies inside the block; two placements of one produced buffer have one offset
// (an edge: enc1's +56 is enc2's +8); buffers whose byte ranges overlap are never live at once
// (the block is reused as the network runs). One line per violation, empty when consistent.
std::vector<std::string> check_scratch_layout(int render_w = 1280, int render_h = 720);
// The same check of any list of placements (a test's altered copy).
std::vector<std::string> check_scratch_layout(std::span<const ScratchPlacement> placements, int render_w, int render_h);

}  // namespace rrswin
