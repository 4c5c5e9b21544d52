// The network's data flow as data (issue 36, "edges as data"): which parameter of which layer feeds
// which parameter of the next. No document states it; the channel counts of the merges (32 -> 64 ->
// 96 -> 128 -> 160) and the expands (K = 160, 160, 128, 96, 64), and d4r's measured buffer offsets
// in the one 65,945,600-byte scratch block (HIP-e1, DESC-e2, REC-d3, HIP-d2, DESC-d0: e.g. enc1's
// +56 at 60293120 is enc2's +8; dec4's +48 at 39567360 is dec3's +8) fix it: the reading
// "network-order" of docs/readings.md. What feeds the textures (+88, +96, +104) and the +136 scale
// is not stated anywhere: those are network inputs here, not edges.
#pragma once
#include <array>

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

}  // namespace rrswin
