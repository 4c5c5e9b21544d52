// Deterministic synthetic weight images (docs/readings.md §4 "synthetic weights").
//
// Bytes are identical on every platform: the generator is splitmix64 (integers only), the normal
// variates are Irwin-Hall sums of 12 uniform 32-bit integers (an exact int64 sum, exactly
// converted to double: no log/cos from a libm that may differ in the last bit), and the rounding to
// e4m3 / f16 is done here exactly (frexp/ldexp/nearbyint are exact). Each region draws from its own
// stream seeded by (seed, region role, index), so regions do not shift one another.
//
// The value ranges assume a block input of unit RMS and follow from the norms having no 1/N
// (facts C8, B4; spec §3/E20): the gains hold sqrt(160), so that the normalised operands have unit
// RMS, as an RMSNorm with the 1/N folded into its gain would.
#include <array>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

#include "assets/synthetic_weights.hpp"
#include "layout/tables.hpp"
#include "layout/weight_tile.hpp"
#include "model/layer_program.hpp"

namespace rrswin {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class Rng {
 public:
  Rng(std::uint64_t seed, Region::Role role, int index) {
    std::uint64_t s = seed;
    const std::uint64_t a = splitmix64(s);
    std::uint64_t t = 0x1000u * (static_cast<std::uint64_t>(role) + 1) + static_cast<std::uint64_t>(index + 1);
    state_ = a ^ splitmix64(t);
  }
  // Irwin-Hall(12) - 6: mean 0, variance 1, support [-6, 6]. Exact in double (sum < 2^36).
  double normal() {
    std::int64_t sum = 0;
    for (int i = 0; i < 6; ++i) {
      const std::uint64_t v = splitmix64(state_);
      sum += static_cast<std::int64_t>(v & 0xFFFFFFFFu) + static_cast<std::int64_t>(v >> 32);
    }
    return static_cast<double>(sum - (std::int64_t{6} << 32)) / 4294967296.0;
  }

 private:
  std::uint64_t state_;
};

// Round to nearest, ties to even, saturating at +-448 (never the NaN codes 0x7F/0xFF).
// Zero magnitudes give +0 (0x00) whatever the sign.
std::uint8_t to_e4m3(double x) {
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  const double a = std::fabs(x);
  if (!(a < 448.0)) return sign | 0x7E;  // also catches NaN/Inf, which the generator never makes
  std::uint8_t mag;
  if (a < 0.015625) {  // below 2^-6: subnormal codes, step 2^-9; m == 8 is the smallest normal
    mag = static_cast<std::uint8_t>(std::nearbyint(std::ldexp(a, 9)));
  } else {
    int e2 = 0;
    const double f = std::frexp(a, &e2);  // a = f * 2^e2, f in [0.5, 1)
    int e = e2 - 1;
    int q = static_cast<int>(std::nearbyint((2.0 * f - 1.0) * 8.0));
    if (q == 8) {
      q = 0;
      ++e;
    }
    mag = static_cast<std::uint8_t>(((e + 7) << 3) | q);
    if (mag > 0x7E) mag = 0x7E;
  }
  return mag == 0 ? 0x00 : static_cast<std::uint8_t>(sign | mag);
}

// Round to nearest even binary16, finite (clamped to +-65504). flush: results below the smallest
// normal (2^-14) become +0 (default images hold no f16 subnormals; see the stress design).
std::uint16_t to_f16(double x, bool flush) {
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0x0000;
  const double a = std::fabs(x);
  if (!(a < 65520.0)) return sign | 0x7BFF;
  std::uint16_t mag;
  if (a < 0x1p-14) {
    if (flush) return 0;
    mag = static_cast<std::uint16_t>(std::nearbyint(std::ldexp(a, 24)));  // 1024 = the smallest normal
  } else {
    int e2 = 0;
    const double f = std::frexp(a, &e2);
    int e = e2 - 1;
    int q = static_cast<int>(std::nearbyint((2.0 * f - 1.0) * 1024.0));
    if (q == 1024) {
      q = 0;
      ++e;
    }
    if (e > 15) return sign | 0x7BFF;
    mag = static_cast<std::uint16_t>(((e + 15) << 10) | q);
  }
  return mag == 0 ? 0 : static_cast<std::uint16_t>(sign | mag);
}

class Builder {
 public:
  Builder(std::uint64_t seed, std::size_t bytes) : seed_(seed), bytes_(bytes, 0) {}

  void put_e4m3(std::uint32_t off, double v) { bytes_.at(off) = to_e4m3(v); }
  void put_f16(std::uint32_t off, double v, bool flush) {
    const std::uint16_t h = to_f16(v, flush);
    bytes_.at(off) = static_cast<std::uint8_t>(h & 0xFF);
    bytes_.at(off + 1) = static_cast<std::uint8_t>(h >> 8);
  }
  void put_f16_bits(std::uint32_t off, std::uint16_t h) {
    bytes_.at(off) = static_cast<std::uint8_t>(h & 0xFF);
    bytes_.at(off + 1) = static_cast<std::uint8_t>(h >> 8);
  }

  // i.i.d. N(mean, sigma^2) over a region, in address order (the layout is a permutation, so the
  // order does not matter for i.i.d. values).
  void fill(const Region& r, double mean, double sigma) {
    Rng rng(seed_, r.role, r.index);
    if (r.type == Region::Type::e4m3) {
      for (std::uint32_t o = r.begin; o < r.end; ++o) put_e4m3(o, mean + sigma * rng.normal());
    } else {
      for (std::uint32_t o = r.begin; o < r.end; o += 2) put_f16(o, mean + sigma * rng.normal(), /*flush=*/true);
    }
  }
  // Redraw one head/chunk's e4m3 block with another sigma (same stream, different scale).
  void refill(Region::Role role, int index, double sigma) {
    for (const Region& r : weight_regions())
      if (r.role == role && r.index == index) fill(r, 0.0, sigma);
  }

  std::vector<std::uint8_t> take() { return std::move(bytes_); }

 private:
  std::uint64_t seed_;
  std::vector<std::uint8_t> bytes_;
};

// sqrt(C): the norms sum squares over C channels without 1/N (facts C8), so a gain of sqrt(C) gives
// the normalised operand unit RMS (enc5: sqrt(160)). Each e4m3 block has sigma 1/sqrt(fan-in):
// Wo's fan-in is H heads x 32 (enc5: 256), W2's the 4C hidden channels (640), the merge's 4C.
void fill_default(Builder& b, const LayerSpec& s) {
  using R = Region::Role;
  const double sqrt_c = std::sqrt(static_cast<double>(s.channels));  // sqrt is correctly rounded (IEEE 754)
  const double fan_wo = std::sqrt(32.0 * s.heads), fan_4c = std::sqrt(4.0 * s.channels);
  const std::vector<Region> regions = s.id == LayerId::enc5 ? weight_regions() : layer_weight_regions(s);
  for (const Region& r : regions) {
    switch (r.role) {
      case R::g1:
      case R::g2: b.fill(r, sqrt_c, 0.05 * sqrt_c); break;  // gain ~ sqrt(C) * (1 +- 5%)
      case R::wq: b.fill(r, 0.0, 0.5 / sqrt_c); break;      // Q ~ 0.5 RMS: diagonal score ~8
      case R::wv: b.fill(r, 0.0, 1.0 / sqrt_c); break;      // V ~ unit RMS
      case R::score_bias: b.fill(r, 0.0, 0.5); break;       // relative-position bias
      case R::wo: b.fill(r, 0.0, 1.0 / fan_wo); break;      // fan-in H x 32
      case R::t1:
      case R::t3:
      case R::b1:
      case R::bm:
      case R::b61: b.fill(r, 0.0, 0.1); break;          // small biases
      case R::w1: b.fill(r, 0.0, 1.0 / sqrt_c); break;  // fan-in C
      case R::w2:
      case R::wm: b.fill(r, 0.0, 1.0 / fan_4c); break;                                     // fan-in 4C (chunks x 32; the 2x2 merge)
      case R::w61: b.fill(r, 0.0, 1.0 / sqrt_c); break;                                    // fan-in C
      case R::unread: break;                                                               // no mma reads them: zeros
      case R::we: b.fill(r, 0.0, 1.0 / std::sqrt(32.0)); break;                            // fan-in 32
      case R::wx: b.fill(r, 0.0, 1.0 / std::sqrt(static_cast<double>(s.front.k))); break;  // fan-in K
      case R::be:
      case R::bx: b.fill(r, 0.0, 0.1); break;
    }
  }
}

// The stress overlay: every nonlinear branch of the layer is driven by a fixed, documented part of
// the image (docs/readings.md §4 "stress design"). Positions are logical (row/column/k in the
// kernel's pair order) and placed through the layout functions.
namespace stress {
constexpr int kIdentityHead = 1;    // score clamp both sides, p -> 0 in e4m3, subnormal p
constexpr int kSaturatingHead = 2;  // q8(V) saturates at +-448 (and q8(O) near it)
constexpr int kClampChunk = 3;      // b1 beyond +-2, and +600 (act output saturates)
constexpr int kWeightSatChunk = 5;  // +-448 codes in W1: |pre-activation| >> 2 on both sides
}  // namespace stress

void apply_stress(Builder& b) {
  using R = Region::Role;
  // E11 score clamp, both sides (|0.01718 s| > 0.556 <=> |s| > ~32.4): head 1 attends to itself.
  // The diagonal key (c = r: keys 0..63 are the window's own tokens, facts C0) gets +64, the 32
  // halo keys 64..95 get -64. A row's softmax is then ~2^22 : 1 for the clamped-high key versus the
  // clamped-low ones, and ~2^11 : 1 versus unbiased keys, so most of its probabilities are below
  // 2^-10 (q8 -> 0) and the halo ones are f16 subnormals (~2^-22).
  const std::uint32_t sb = wmap::score_bias(stress::kIdentityHead);
  for (int r = 0; r < 64; ++r) {
    b.put_f16(layout::score_bias_offset(sb, r, r), 64.0, false);
    for (int c = 64; c < 96; ++c) b.put_f16(layout::score_bias_offset(sb, r, c), -64.0, false);
  }

  // e4m3 saturation of V (the pack of phase 10's D before P V): head 2's Wv ~ N(0, 24^2) plus one
  // +-448 weight per output column, so |V| ~ 300 and often > 448 on both signs. Its Wo is scaled
  // down (2^-9 ~ the smallest e4m3 subnormal) so that the head adds only O(1) to the residual
  // stream and the E20 sum of squares stays far below the f16 range.
  b.refill(R::wv, stress::kSaturatingHead, 24.0);
  for (int n = 0; n < 32; ++n)
    b.put_e4m3(layout::waddr(wmap::wv(stress::kSaturatingHead) + 1024u * static_cast<std::uint32_t>(n % 5), (7 * n) % 32, n),
               (n % 2) ? -448.0 : 448.0);
  b.refill(R::wo, stress::kSaturatingHead, 0.002);

  // Activation clamp at +-2 on both sides, deterministic: b1_3 columns 0..7 = +6, 8..15 = -6.
  // Columns 24..27 = +600: the activation passes them through (gate(+2) = 1), q8 saturates at 448.
  // Their rows of W2_3 are scaled down so the saturated hidden units add O(1) to x2.
  for (int c = 0; c < 16; ++c) b.put_f16(layout::record_bias_offset(wmap::b1(stress::kClampChunk), c), c < 8 ? 6.0 : -6.0, false);
  for (int c = 24; c < 28; ++c) b.put_f16(layout::record_bias_offset(wmap::b1(stress::kClampChunk), c), 600.0, false);
  for (int k = 24; k < 28; ++k)
    for (int n = 0; n < 160; ++n) b.put_e4m3(layout::waddr(wmap::w2(stress::kClampChunk), k, n), 0.0);

  // +-448 codes in W1_5: one per hidden column (sign alternating), at k-slice n % 5, so the
  // pre-activation is ~ +-448 * N_k: far beyond +-2 on both sides, and the positive side saturates
  // q8 after the activation. W2_5 is scaled down (2^-9) to keep x2 moderate.
  for (int n = 0; n < 32; ++n)
    b.put_e4m3(layout::waddr_banded(wmap::w1(stress::kWeightSatChunk), n % 5, (5 * n + 3) % 32, n), (n % 2) ? -448.0 : 448.0);
  b.refill(R::w2, stress::kWeightSatChunk, 0.002);

  // q8(x2) saturation on both signs (E60's packs: the arena and phase 61's A): T3 columns 5 / 6 =
  // +600 / -600, carried into x2 by C22 = f16(T3 + D20) and the chain over chunks.
  b.put_f16(layout::column_table_offset(wmap::t3, 5), 600.0, false);
  b.put_f16(layout::column_table_offset(wmap::t3, 6), -600.0, false);

  // f16 subnormals: gains g1 / g2 columns 150..153 (the normalised value x * f16(inv * g) becomes
  // subnormal or zero, and q8 gives 0), T1 columns 100..103 and T3 columns 100..103 (subnormal
  // addends), b1_0 columns 28..31, b61 columns 12..15, and 8 score-bias entries of head 3.
  const double subnormals[4] = {0x1p-15, -0x1p-17, 0x3p-20, -0x1p-24};
  for (int i = 0; i < 4; ++i) {
    b.put_f16(layout::column_table_offset(wmap::g1, 150 + i), std::fabs(subnormals[i]), false);
    b.put_f16(layout::column_table_offset(wmap::g2, 150 + i), std::fabs(subnormals[i]), false);
    b.put_f16(layout::column_table_offset(wmap::t1, 100 + i), subnormals[i], false);
    b.put_f16(layout::column_table_offset(wmap::t3, 100 + i), subnormals[i], false);
    b.put_f16(layout::record_bias_offset(wmap::b1(0), 28 + i), subnormals[i], false);
    b.put_f16(layout::record_bias_offset(wmap::b61, 12 + i), subnormals[i], false);
    b.put_f16(layout::score_bias_offset(wmap::score_bias(3), 5 * i, 7 * i + 1), subnormals[i], false);
    b.put_f16(layout::score_bias_offset(wmap::score_bias(3), 5 * i + 1, 7 * i + 2), -subnormals[i], false);
  }
}

}  // namespace

WeightImage make_synthetic_weights(const SyntheticOptions& opt) {
  Builder b(opt.seed, kWeightImageBytes);
  fill_default(b, layer_spec(LayerId::enc5));
  if (opt.stress) apply_stress(b);
  return WeightImage(b.take(), "<synthetic weights>");
}

WeightImage make_layer_synthetic_weights(LayerId layer, const SyntheticOptions& opt) {
  if (layer == LayerId::enc5) return make_synthetic_weights(opt);
  const LayerSpec& s = layer_spec(layer);
  if (opt.stress) {
    std::string msg = "the stress weights exist for enc5 only (docs/readings.md §4 'stress design'), not ";
    msg += s.name;
    throw std::invalid_argument(msg);
  }
  Builder b(opt.seed, weight_map(s).image_bytes());
  fill_default(b, s);
  return WeightImage(b.take(), layer, "<synthetic weights>");
}

const WeightImage& default_layer_weights(LayerId layer) {
  if (layer == LayerId::enc5) return default_weights();
  // Each layer's image built on first use only (once per layer, thread-safe), then kept.
  struct Cache {
    std::array<std::once_flag, kLayerCount> once;
    std::array<std::optional<WeightImage>, kLayerCount> image;
  };
  static Cache cache;
  const std::size_t i = static_cast<std::size_t>(layer);
  std::call_once(cache.once.at(i), [&] { cache.image[i] = make_layer_synthetic_weights(layer, SyntheticOptions{1, false}); });
  return *cache.image[i];
}

const WeightImage& default_weights() {
  static const WeightImage image = make_synthetic_weights(SyntheticOptions{1, false});  // thread-safe init
  return image;
}

}  // namespace rrswin
