// The launch set of `rrswin settle --oracle` (assets/oracle_launches.hpp).
#include "assets/oracle_launches.hpp"

#include <cstring>
#include <stdexcept>

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "layout/arena.hpp"
#include "layout/tables.hpp"
#include "model/phase_program.hpp"

namespace rrswin {

std::vector<std::uint8_t> sum_tree_arena(int ex, int ey, std::uint64_t seed) {
  if (ex <= 0 || ey <= 0) throw std::invalid_argument("sum_tree_arena: extents must be positive");
  const layout::PlaneArena pa{ex, ey};
  std::vector<std::uint8_t> a(pa.total_bytes(), 0);
  SplitMix64 rng(seed ^ 0x53554D5452454553ull);
  for (auto& c : a) {
    const bool large = rng.below(24) == 0;
    const int e = large ? 10 + static_cast<int>(rng.below(3)) : 3 + static_cast<int>(rng.below(6));
    c = static_cast<std::uint8_t>((e << 3) | rng.below(8) | (rng.below(2) << 7));  // field <= 12: never 0x7F/0xFF
  }
  return a;
}

WeightImage with_constant_logits(const WeightImage& w, const std::array<f16_t, 10>& logits) {
  std::vector<std::uint8_t> b(w.bytes().begin(), w.bytes().end());
  const Phase& p61 = phase(61);
  // facts C12: 5 k-steps of 512 bytes of B fragments at W61; all zero codes make A·B exactly 0.
  std::memset(b.data() + p61.weight_begin, 0, 512u * static_cast<std::uint32_t>(p61.k_steps));
  for (int n = 0; n < 10; ++n) {
    const std::uint32_t off = layout::record_bias_offset(p61.bias_begin, n);
    b[off] = static_cast<std::uint8_t>(logits[n]);
    b[off + 1] = static_cast<std::uint8_t>(logits[n] >> 8);
  }
  return WeightImage(std::move(b), "oracle softmax weights");
}

namespace {

OracleLaunch synthetic(const char* name, const char* why, int ex, int ey, int ox, int oy, std::uint64_t seed, bool stress) {
  OracleLaunch l;
  l.name = name;
  l.why = why;
  l.ex = ex;
  l.ey = ey;
  l.ox = ox;
  l.oy = oy;
  SyntheticFrame f = make_synthetic_frame(ex, ey, seed, stress);
  l.input_arena = std::move(f.input_arena);
  l.texture = std::move(f.texture);
  l.weights = (seed == 1 && !stress) ? default_weights() : make_synthetic_weights(SyntheticOptions{seed, stress});
  return l;
}

// The sum-tree frame with constant logits (found by the search docs/readings.md §6 describes).
OracleLaunch softmax(const char* name, const char* why, const std::array<f16_t, 10>& logits) {
  OracleLaunch l;
  l.name = name;
  l.why = why;
  l.ex = kSumTreeExtentX;
  l.ey = kSumTreeExtentY;
  l.input_arena = sum_tree_arena(l.ex, l.ey, kSumTreeSeed);
  l.texture = make_synthetic_frame(l.ex, l.ey, 1, false).texture;
  l.weights = with_constant_logits(default_weights(), logits);
  return l;
}

}  // namespace

std::vector<OracleLaunch> oracle_launches() {
  std::vector<OracleLaunch> v;
  v.push_back(synthetic("demo frame 40x23", "most readings", 40, 23, 0, 0, 1, false));
  v.push_back(synthetic("stress assets 40x23", "the nonlinear branches' readings", 40, 23, 0, 0, 1, true));
  v.push_back(synthetic("border geometry 13x11, block offsets 3,5", "the border readings", 13, 11, 3, 5, 1, false));
  v.push_back(softmax("sum trees and softmax A", "prologue-sum-tree, mlp-norm-sum-tree, filter-sum-order", kSoftmaxLogitsA));
  v.push_back(softmax("sum trees and softmax B", "filter-sum-order", kSoftmaxLogitsB));
  return v;
}

}  // namespace rrswin
