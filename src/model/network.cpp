// The network's levels, buffers and scratch block (model/network.hpp).
#include "model/network.hpp"

#include <algorithm>

#include "model/text.hpp"

namespace rrswin {

namespace {

int order_index(LayerId id) { return static_cast<int>(id); }  // layers.def lists the network order

constexpr int kLevels = 6;  // enc0..enc5: five halvings below level 0

}  // namespace

int network_level(LayerId id) {
  // enc_i and dec_i share level i (the skip edge joins them); enc5 is the bottom, level 5.
  const std::string_view n = to_string(id);
  return n[3] - '0';
}

TokenGrid level_grid(int render_w, int render_h, int level) {
  // network-extents: level 0 rounded up to a multiple of 2^5 so that every level below halves exactly.
  const int step = 1 << (kLevels - 1);
  TokenGrid g{(render_w + step - 1) / step * step, (render_h + step - 1) / step * step};
  for (int l = 0; l < level; ++l) g = {g.ex >> 1, g.ey >> 1};
  return g;
}

std::optional<LayerBuffer> producing_buffer(LayerBuffer b) {
  if (b.param == 48 || b.param == 56) return b;
  for (const NetworkEdge& e : kNetworkEdges)
    if (e.to == b.layer && e.to_param == b.param) return LayerBuffer{e.from, e.from_param};
  return std::nullopt;
}

std::optional<layout::PlaneArena> buffer_arena(LayerBuffer b, int render_w, int render_h) {
  const std::optional<LayerBuffer> p = producing_buffer(b);
  if (!p) return std::nullopt;
  const LayerSpec& s = layer_spec(p->layer);
  const TokenGrid g = level_grid(render_w, render_h, network_level(p->layer));
  if (p->param == 56) return s.merge() ? std::optional(layout::PlaneArena{g.ex >> 1, g.ey >> 1, s.merge_out / 32}) : std::nullopt;
  // dec0's +48 is not a plane arena (DOC-d0 §4: an e4m3 st.global.v4.u16 output not read yet).
  if (s.final_epilogue == FinalEpilogueKind::dec0_output) return std::nullopt;
  return layout::PlaneArena{g.ex, g.ey, s.k_slices()};
}

std::optional<std::uint64_t> buffer_bytes(LayerBuffer b, int render_w, int render_h) {
  const std::optional<layout::PlaneArena> a = buffer_arena(b, render_w, render_h);
  if (a) return a->total_bytes();
  // dec0's +48: 8 e4m3 bytes per pixel at byte 8 (ex y + x) of its level's grid (DOC-d0 §4.2).
  const std::optional<LayerBuffer> p = producing_buffer(b);
  if (p && p->param == 48 && layer_spec(p->layer).final_epilogue == FinalEpilogueKind::dec0_output) {
    const TokenGrid g = level_grid(render_w, render_h, network_level(p->layer));
    return static_cast<std::uint64_t>(g.ex) * static_cast<std::uint64_t>(g.ey) * 8u;
  }
  return std::nullopt;
}

Lifetime buffer_lifetime(LayerBuffer produced) {
  Lifetime t{order_index(produced.layer), order_index(produced.layer)};
  for (const NetworkEdge& e : kNetworkEdges)
    if (e.from == produced.layer && e.from_param == produced.param) t.last = std::max(t.last, order_index(e.to));
  return t;
}

std::vector<std::string> check_scratch_layout(int render_w, int render_h) {
  return check_scratch_layout(kScratchPlacements, render_w, render_h);
}

std::vector<std::string> check_scratch_layout(std::span<const ScratchPlacement> placements, int render_w, int render_h) {
  std::vector<std::string> v;
  struct Placed {
    const ScratchPlacement* at;
    LayerBuffer buffer;  // the produced buffer
    std::optional<std::uint64_t> bytes;
  };
  std::vector<Placed> placed;
  for (const ScratchPlacement& p : placements) {
    const std::optional<LayerBuffer> b = producing_buffer(p.buffer);
    const std::string name = cat(to_string(p.buffer.layer), " +", p.buffer.param);
    if (!b) {
      v.push_back(cat(name, ": no layer produces it (", p.source, ")"));
      continue;
    }
    const std::optional<std::uint64_t> bytes = buffer_bytes(p.buffer, render_w, render_h);
    if (p.offset >= kScratchBlockBytes || (bytes && p.offset + *bytes > kScratchBlockBytes))
      v.push_back(cat(name, " at ", p.offset, bytes ? cat(" (", *bytes, " bytes)") : std::string(), " passes the ", kScratchBlockBytes,
                      "-byte block (", p.source, ")"));
    placed.push_back({&p, *b, bytes});
  }
  for (std::size_t i = 0; i < placed.size(); ++i)
    for (std::size_t j = i + 1; j < placed.size(); ++j) {
      const Placed &a = placed[i], &b = placed[j];
      const std::string an = cat(to_string(a.at->buffer.layer), " +", a.at->buffer.param),
                        bn = cat(to_string(b.at->buffer.layer), " +", b.at->buffer.param);
      const bool same = a.buffer.layer == b.buffer.layer && a.buffer.param == b.buffer.param;
      if (same) {
        if (a.at->offset != b.at->offset)
          v.push_back(cat(an, " at ", a.at->offset, " and ", bn, " at ", b.at->offset, " are one buffer (an edge) at two offsets"));
        continue;
      }
      // Two different buffers: their byte ranges may overlap only if they are never live together
      // (a buffer of unknown size is taken to reach the end of the block).
      const std::uint64_t a_end = a.bytes ? a.at->offset + *a.bytes : kScratchBlockBytes,
                          b_end = b.bytes ? b.at->offset + *b.bytes : kScratchBlockBytes;
      const bool bytes_overlap = a.at->offset < b_end && b.at->offset < a_end;
      const Lifetime la = buffer_lifetime(a.buffer), lb = buffer_lifetime(b.buffer);
      const bool live_together = la.first <= lb.last && lb.first <= la.last;
      if (bytes_overlap && live_together)
        v.push_back(cat(an, " [", a.at->offset, ", ", a_end, ") and ", bn, " [", b.at->offset, ", ", b_end,
                        ") overlap while both are live (", to_string(a.buffer.layer), "'s and ", to_string(b.buffer.layer), "'s outputs)"));
    }
  return v;
}

}  // namespace rrswin
