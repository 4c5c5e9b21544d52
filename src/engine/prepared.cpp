// Preparing a weight image for the fast engine: every B operand decoded once (the golden model's
// own gathers, layout/weight_tile.hpp), and a small cache keyed by the image's bytes.
#include <cstring>
#include <list>
#include <mutex>
#include <stdexcept>

#include "engine/engine.hpp"
#include "engine/prepared.hpp"
#include "layout/tables.hpp"
#include "model/layer_program.hpp"
#include "model/phase_program.hpp"

namespace rrswin::engine {

namespace {

void assign_tile(BOperand& b, const golden::BTile& t) { b.assign_nk(t.v.data(), t.cols, 32, 32); }

// The golden parts' own gathers at the layer's offsets (model/attention.cpp, out_projection.cpp,
// mlp.cpp, kpn_filter.cpp): the slot of head h at the weight map's slot stride, the phases by the
// layer's numbering.
std::shared_ptr<PreparedWeights> build(const WeightImage& w) {
  auto pw = std::make_shared<PreparedWeights>();
  const LayerSpec& s = layer_spec(w.layer());
  const LayerProgram& prog = layer_program(s.id);
  if (s.heads > golden::kHeads || s.chunks > golden::kChunks || s.stem_phases() + 1 > static_cast<int>(pw->qv[0].size()))
    throw std::logic_error("prepare_weights: the layer's heads, chunks or stem exceed enc5's (PreparedWeights)");
  const int C = s.channels;
  for (int h = 0; h < s.heads; ++h) {
    // Serial heads (enc1): head h's own phases, at absolute offsets (relative_to_slot = false).
    const int hp = s.serial_heads() ? h : 0, before = s.first_stem(hp) - 1;
    const std::uint32_t slot = weight_map(s).slot_bytes() * static_cast<std::uint32_t>(h);
    for (int i = 1; i <= s.stem_phases(); ++i) {  // facts C2 / E5: offsets relative to the head's slot
      const Phase& ph = prog.phase(before + i);
      assign_tile(pw->qv[h][i], golden::load_b_waddr(w, ph.weight_begin + (ph.relative_to_slot ? slot : 0u), golden::kHeadDim));
    }
    const Phase& ps = prog.phase(s.score_phase(hp));
    const std::uint32_t bias_base = ps.bias_begin + (ps.relative_to_slot ? slot : 0u);
    auto& sb = pw->score_bias[h];
    sb.resize(static_cast<std::size_t>(golden::kWindow) * golden::kTokens);
    for (int r = 0; r < golden::kWindow; ++r)
      for (int c = 0; c < golden::kTokens; ++c) sb[r * golden::kTokens + c] = w.f16_at(layout::score_bias_offset(bias_base, r, c));
    assign_tile(pw->wo[h], golden::load_b_waddr(w, prog.phase(s.projection_phase(h)).weight_begin, C));
  }
  for (int c = 0; c < s.chunks; ++c) {
    const Phase& up = prog.phase(s.first_mlp() + 2 * c);
    // The odd phase's C/32 k-steps as one C x 32 operand: k = 32 s + k' (banded tiles, facts C9).
    std::vector<e4m3_t> nk(static_cast<std::size_t>(32) * C);
    for (int st = 0; st < up.k_steps; ++st) {
      const golden::BTile t = golden::load_b_banded(w, up.weight_begin, st, golden::kHeadDim, up.k_steps);
      for (int n = 0; n < 32; ++n)
        for (int k = 0; k < 32; ++k) nk[static_cast<std::size_t>(n) * C + 32 * st + k] = t.col(n)[k];
    }
    pw->w1[c].assign_nk(nk.data(), 32, C, C);
    for (int n = 0; n < 32; ++n) pw->b1[c][n] = w.f16_at(layout::record_bias_offset(up.bias_begin, n));
    assign_tile(pw->w2[c], golden::load_b_waddr(w, prog.phase(up.number + 1).weight_begin, C));
  }
  if (s.final_gemm && s.logits == golden::kLogits) {
    const Phase& ph = prog.phase(s.final_phase());
    std::vector<e4m3_t> nk(static_cast<std::size_t>(16) * C);
    for (int st = 0; st < ph.k_steps; ++st) {
      const golden::BTile t = golden::load_b_waddr(w, ph.weight_begin + 512u * static_cast<std::uint32_t>(st), golden::kLogits);
      for (int n = 0; n < 16; ++n)
        for (int k = 0; k < 32; ++k) nk[static_cast<std::size_t>(n) * C + 32 * st + k] = t.col(n)[k];
    }
    pw->w61.assign_nk(nk.data(), 16, C, C);
    for (int n = 0; n < golden::kLogits; ++n) pw->b61[n] = w.f16_at(layout::record_bias_offset(ph.bias_begin, n));
  }
  return pw;
}

struct CacheEntry {
  std::vector<std::uint8_t> bytes;
  std::shared_ptr<const PreparedWeights> prepared;
};

}  // namespace

std::shared_ptr<const PreparedWeights> prepare_weights(const WeightImage& w) {
  static std::mutex mutex;
  // Most recent first, at most kPreparedCacheEntries: a network run's eleven images stay prepared
  // from one frame to the next (bench --network's reps, a sequence, Python).
  static std::list<CacheEntry> cache;
  // The key is the image's bytes themselves, compared in full (memcmp stops at the first
  // difference): a hash of them cost more than the comparison (a serial FNV-1a over the image was
  // ~3x memcmp's time, per frame).
  const auto bytes = w.bytes();
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto it = cache.begin(); it != cache.end(); ++it)
      if (it->bytes.size() == bytes.size() && std::memcmp(it->bytes.data(), bytes.data(), bytes.size()) == 0) {
        cache.splice(cache.begin(), cache, it);
        return cache.front().prepared;
      }
  }
  std::shared_ptr<const PreparedWeights> p = build(w);
  std::lock_guard<std::mutex> lock(mutex);
  cache.push_front({std::vector<std::uint8_t>(bytes.begin(), bytes.end()), p});
  if (cache.size() > kPreparedCacheEntries) cache.pop_back();
  return p;
}

}  // namespace rrswin::engine
