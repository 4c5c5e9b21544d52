// Preparing a weight image for the fast engine: every B operand decoded once (the golden model's
// own gathers, layout/weight_tile.hpp), and a small cache keyed by the image's bytes.
#include <cstring>
#include <list>
#include <mutex>

#include "engine/engine.hpp"
#include "engine/prepared.hpp"
#include "layout/tables.hpp"
#include "model/phase_program.hpp"

namespace rrswin::engine {

namespace {

void assign_tile(BOperand& b, const golden::BTile& t) { b.assign_nk(t.v.data(), t.cols, 32, 32); }

std::shared_ptr<PreparedWeights> build(const WeightImage& w) {
  auto pw = std::make_shared<PreparedWeights>();
  using golden::kHeads;
  for (int h = 0; h < kHeads; ++h) {
    const std::uint32_t slot = kHeadSlotBytes * static_cast<std::uint32_t>(h);
    for (int p = 1; p <= 10; ++p) {  // facts C2 / E5: offsets relative to the head's slot
      const Phase& ph = phase(p);
      assign_tile(pw->qv[h][p], golden::load_b_waddr(w, ph.weight_begin + (ph.relative_to_slot ? slot : 0u), golden::kHeadDim));
    }
    const Phase& p11 = phase(11);
    const std::uint32_t bias_base = p11.bias_begin + (p11.relative_to_slot ? slot : 0u);
    auto& sb = pw->score_bias[h];
    sb.resize(static_cast<std::size_t>(golden::kWindow) * golden::kTokens);
    for (int r = 0; r < golden::kWindow; ++r)
      for (int c = 0; c < golden::kTokens; ++c) sb[r * golden::kTokens + c] = w.f16_at(layout::score_bias_offset(bias_base, r, c));
    assign_tile(pw->wo[h], golden::load_b_waddr(w, out_projection_phase(h).weight_begin, golden::kChannels));
  }
  for (int c = 0; c < golden::kChunks; ++c) {
    const Phase& up = mlp_up_phase(c);
    // The odd phase's 5 k-steps as one 160 x 32 operand: k = 32 s + k' (banded tiles, facts C9).
    std::vector<e4m3_t> nk(static_cast<std::size_t>(32) * 160);
    for (int s = 0; s < up.k_steps; ++s) {
      const golden::BTile t = golden::load_b_banded(w, up.weight_begin, s, golden::kHeadDim);
      for (int n = 0; n < 32; ++n)
        for (int k = 0; k < 32; ++k) nk[static_cast<std::size_t>(n) * 160 + 32 * s + k] = t.col(n)[k];
    }
    pw->w1[c].assign_nk(nk.data(), 32, 160, 160);
    for (int n = 0; n < 32; ++n) pw->b1[c][n] = w.f16_at(layout::record_bias_offset(up.bias_begin, n));
    assign_tile(pw->w2[c], golden::load_b_waddr(w, mlp_down_phase(c).weight_begin, golden::kChannels));
  }
  {
    const Phase& ph = phase(61);
    std::vector<e4m3_t> nk(static_cast<std::size_t>(16) * 160);
    for (int s = 0; s < ph.k_steps; ++s) {
      const golden::BTile t = golden::load_b_waddr(w, ph.weight_begin + 512u * static_cast<std::uint32_t>(s), golden::kLogits);
      for (int n = 0; n < 16; ++n)
        for (int k = 0; k < 32; ++k) nk[static_cast<std::size_t>(n) * 160 + 32 * s + k] = t.col(n)[k];
    }
    pw->w61.assign_nk(nk.data(), 16, 160, 160);
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
  static std::list<CacheEntry> cache;  // most recent first, at most 4
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
  if (cache.size() > 4) cache.pop_back();
  return p;
}

}  // namespace rrswin::engine
