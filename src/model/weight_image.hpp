// The prepared weight image W (param+40): its map (facts E4), validation of its bytes, typed
// accessors, and per-region statistics. Offsets are absolute bytes in W.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/hd.hpp"
#include "model/layer_spec.hpp"
#include "numerics/types.hpp"

namespace rrswin {

// 431104 + 16 (b61 n-tile 1 record) + 16 = 431136: lane t = 3's u32 of the last record ends
// there (facts E1). The spec's 431124 (§2.3) drops the per-lane term. See the reading
// "weight-image-size" in docs/readings.md §4.
inline constexpr std::size_t kWeightImageBytes = 431136;
// What spec §2.3 states (its tool's extent, largest immediate 431120 + 4): accepted by nothing,
// named in the error for a file of exactly this size.
inline constexpr std::size_t kSpecToolImageBytes = 431124;

namespace wmap {
inline constexpr std::uint32_t g1 = 0;  // prologue norm gain, 160 f16
RRSWIN_HD constexpr std::uint32_t head_base(int h) { return 320 + 27648u * h; }
RRSWIN_HD constexpr std::uint32_t wq(int h) { return head_base(h); }                  // 5 k-steps x 1024
RRSWIN_HD constexpr std::uint32_t wv(int h) { return head_base(h) + 5120; }           // 5 k-steps x 1024
RRSWIN_HD constexpr std::uint32_t score_bias(int h) { return head_base(h) + 10240; }  // 24 x 512
RRSWIN_HD constexpr std::uint32_t wo(int h) { return head_base(h) + 22528; }          // 10 tiles, 32x160
inline constexpr std::uint32_t t1 = 221504;                                           // "bo", 160 f16
inline constexpr std::uint32_t g2 = 221824;                                           // E20 gain, 160 f16
RRSWIN_HD constexpr std::uint32_t w1(int c) { return c == 0 ? 222144u : 232768u + 10304u * (c - 1); }
RRSWIN_HD constexpr std::uint32_t b1(int c) { return w1(c) + 5120; }  // 32 f16 records
RRSWIN_HD constexpr std::uint32_t w2(int c) { return w1(c) + 5184; }  // 10 tiles, 32x160
inline constexpr std::uint32_t t3 = 232448;                           // "b2", 160 f16
inline constexpr std::uint32_t w61 = 428544;                          // 5 tiles
inline constexpr std::uint32_t b61 = 431104;                          // 2 records
}  // namespace wmap

struct Region {
  // What a region holds (facts E4); `index` is the head (Wq..Wo) or the chunk (W1, b1, W2), else -1.
  // wm/bm: the patch merge's weights and bias (merge layers, model/layer_program.hpp); w61/b61:
  // the final phase's (enc5's phase 61, enc4's 62, enc3's 48). The fronts' (index = GEMM or warp):
  // unread (enc0's bytes before the embedding), we/be (enc0's embedding weights / biases), wx/bx
  // (the decoders' patch-expand weights / seeds, per warp).
  enum class Role { g1, wq, wv, score_bias, wo, t1, g2, w1, b1, w2, t3, w61, b61, wm, bm, unread, we, be, wx, bx };
  enum class Type { e4m3, f16 };
  std::string name;          // e.g. "Wq[3]", "score_bias[0]", "T1"
  std::uint32_t begin, end;  // [begin, end)
  Type type;
  Role role;
  int index;
  std::uint32_t size() const { return end - begin; }
  std::uint32_t elements() const { return type == Type::f16 ? size() / 2 : size(); }
};
// Every named region of the image, in address order; they tile [0, kWeightImageBytes) exactly.
std::vector<Region> weight_regions();

class WeightImage {
 public:
  WeightImage() = default;
  // Throws rrswin::InputError (file = `name`) if the size is not kWeightImageBytes.
  explicit WeightImage(std::vector<std::uint8_t> bytes, const std::string& name = "<weight image>");
  // An image of another layer of the template (model/layer_spec.hpp): its size must be that layer's
  // WeightMap::image_bytes() (enc4 533856, enc3 315744); enc5 is the constructor above.
  WeightImage(std::vector<std::uint8_t> bytes, LayerId layer, const std::string& name);
  // Reading one from a file is io's job: io/weight_file.hpp load_weight_image.

  std::span<const std::uint8_t> bytes() const { return bytes_; }
  e4m3_t byte(std::uint32_t off) const { return bytes_.at(off); }
  f16_t f16_at(std::uint32_t off) const;  // little endian
  LayerId layer() const { return layer_; }

 private:
  std::vector<std::uint8_t> bytes_;
  LayerId layer_ = LayerId::enc5;
};

struct RegionStats {
  Region region;
  // e4m3 regions: histogram of codes, NaN codes (0x7F/0xFF), zeros (0x00/0x80), subnormal codes,
  // saturated codes (+-448 = 0x7E/0xFE), min/max finite value.
  // f16 regions: min/max finite, NaN/Inf/subnormal/zero counts (saturated stays 0).
  std::vector<std::uint64_t> histogram;  // 256 entries for e4m3, empty for f16
  std::uint64_t count = 0;               // elements (bytes for e4m3, halves for f16)
  std::uint64_t nan = 0, inf = 0, zero = 0, subnormal = 0, saturated = 0;
  double min = 0, max = 0, mean_abs = 0;  // over finite values
};
// Over the regions of w's layer (weight_regions() for enc5, layer_weight_regions() otherwise).
std::vector<RegionStats> region_statistics(const WeightImage& w);

}  // namespace rrswin
