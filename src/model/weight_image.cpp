// The weight image's map (facts E4), size validation (facts E1 vs spec §2.3) and statistics.
#include "model/weight_image.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "base/errors.hpp"
#include "model/layer_program.hpp"

namespace rrswin {
namespace {

// Exact decoders, kept local so that the statistics of an image do not depend on the numerics
// library they are used to test. e4m3 "fn" (numerics.md "Formats"): bias 7, NaN 0x7F/0xFF.
double e4m3_value(std::uint8_t c) {
  const std::uint8_t mag = c & 0x7F;
  const double sign = (c & 0x80) ? -1.0 : 1.0;
  if (mag == 0x7F) return std::numeric_limits<double>::quiet_NaN();
  if (mag < 8) return sign * std::ldexp(static_cast<double>(mag), -9);
  return sign * std::ldexp(1.0 + (mag & 7) / 8.0, (mag >> 3) - 7);
}

// binary16: 5-bit exponent (bias 15), 10-bit fraction.
double f16_value(std::uint16_t h) {
  const int exp = (h >> 10) & 0x1F;
  const int frac = h & 0x3FF;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exp == 0x1F) return frac ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  if (exp == 0) return sign * std::ldexp(static_cast<double>(frac), -24);
  return sign * std::ldexp(1.0 + frac / 1024.0, exp - 15);
}

std::string with_index(const char* base, int i) { return std::string(base) + "[" + std::to_string(i) + "]"; }

}  // namespace

std::vector<Region> weight_regions() {
  using R = Region::Role;
  using T = Region::Type;
  std::vector<Region> r;
  r.reserve(98);
  auto add = [&r](std::string name, std::uint32_t begin, std::uint32_t end, T type, R role, int index) {
    r.push_back(Region{std::move(name), begin, end, type, role, index});
  };
  add("g1", wmap::g1, 320, T::f16, R::g1, -1);
  // Eight head slots (facts A2/E4, H1): slot h holds Wq_h, Wv_h, the score bias and Wo_h.
  for (int h = 0; h < 8; ++h) {
    add(with_index("Wq", h), wmap::wq(h), wmap::wq(h) + 5120, T::e4m3, R::wq, h);
    add(with_index("Wv", h), wmap::wv(h), wmap::wv(h) + 5120, T::e4m3, R::wv, h);
    add(with_index("score_bias", h), wmap::score_bias(h), wmap::score_bias(h) + 12288, T::f16, R::score_bias, h);
    add(with_index("Wo", h), wmap::wo(h), wmap::wo(h) + 5120, T::e4m3, R::wo, h);
  }
  add("T1", wmap::t1, wmap::t1 + 320, T::f16, R::t1, -1);
  add("g2", wmap::g2, wmap::g2 + 320, T::f16, R::g2, -1);
  // MLP chunks (facts E4, C1-note): W1_c (5120) + b1_c (64) + W2_c (5120) = 10304 bytes; T3 sits
  // between chunk 0 and chunk 1.
  for (int c = 0; c < 20; ++c) {
    if (c == 1) add("T3", wmap::t3, wmap::t3 + 320, T::f16, R::t3, -1);
    add(with_index("W1", c), wmap::w1(c), wmap::w1(c) + 5120, T::e4m3, R::w1, c);
    add(with_index("b1", c), wmap::b1(c), wmap::b1(c) + 64, T::f16, R::b1, c);
    add(with_index("W2", c), wmap::w2(c), wmap::w2(c) + 5120, T::e4m3, R::w2, c);
  }
  add("W61", wmap::w61, wmap::w61 + 2560, T::e4m3, R::w61, -1);
  add("b61", wmap::b61, wmap::b61 + 32, T::f16, R::b61, -1);
  return r;
}

WeightImage::WeightImage(std::vector<std::uint8_t> bytes, const std::string& name) : bytes_(std::move(bytes)) {
  const std::size_t n = bytes_.size();
  if (n == kWeightImageBytes) return;
  const std::string expected = std::to_string(kWeightImageBytes) + " bytes (the enc5 weight image, facts E1/E4)";
  std::string found = std::to_string(n) + " bytes";
  if (n == kSpecToolImageBytes) {
    // The extent spec §2.3 states: a dump cut at the tool's extent would look like this.
    found +=
        " (spec §2.3's tool extent 431124: the last 12 bytes are missing, i.e. lanes t = 1..3 of"
        " the b61 n-tile 1 record at 431120; see docs/readings.md §4 'weight-image-size')";
  } else if (n < kWeightImageBytes) {
    found += " (" + std::to_string(kWeightImageBytes - n) + " bytes short)";
  } else {
    found += " (" + std::to_string(n - kWeightImageBytes) + " bytes too many)";
  }
  // The offset is where the two disagree: the end of a short file, the first extra byte of a long one.
  const std::uint64_t offset = n < kWeightImageBytes ? n : kWeightImageBytes;
  throw InputError(name, offset, expected, found);
}

WeightImage::WeightImage(std::vector<std::uint8_t> bytes, LayerId layer, const std::string& name)
    : bytes_(std::move(bytes)), layer_(layer) {
  if (layer == LayerId::enc5) {
    *this = WeightImage(std::move(bytes_), name);
    return;
  }
  const LayerSpec& s = layer_spec(layer);
  const std::size_t want = weight_map(s).image_bytes();
  const std::size_t n = bytes_.size();
  if (n == want) return;
  std::string expected = std::to_string(want);
  expected += " bytes (the ";
  expected += s.name;
  expected += " weight image, docs/readings.md §7 layer-image-size)";
  std::string found = std::to_string(n);
  found += " bytes";
  if (n == weight_map(s).tool_extent()) {
    found += " (d4r's tool extent: the last 12 bytes, lanes t = 1..3 of the final bias record, are missing)";
  } else {
    found += " (";
    found += std::to_string(n < want ? want - n : n - want);
    found += n < want ? " bytes short)" : " bytes too many)";
  }
  throw InputError(name, n < want ? n : want, expected, found);
}

f16_t WeightImage::f16_at(std::uint32_t off) const { return static_cast<f16_t>(bytes_.at(off) | (bytes_.at(off + 1) << 8)); }

std::vector<RegionStats> region_statistics(const WeightImage& w) {
  std::vector<RegionStats> out;
  const auto bytes = w.bytes();
  const std::vector<Region> regions = w.layer() == LayerId::enc5 ? weight_regions() : layer_weight_regions(layer_spec(w.layer()));
  for (const Region& r : regions) {
    RegionStats s;
    s.region = r;
    s.count = r.elements();
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum_abs = 0;
    std::uint64_t finite = 0;
    auto take = [&](double v) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum_abs += std::fabs(v);
      ++finite;
    };
    if (r.type == Region::Type::e4m3) {
      s.histogram.assign(256, 0);
      for (std::uint32_t o = r.begin; o < r.end && o < bytes.size(); ++o) {
        const std::uint8_t c = bytes[o];
        ++s.histogram[c];
        const std::uint8_t mag = c & 0x7F;
        if (mag == 0x7F) {
          ++s.nan;
          continue;
        }
        if (mag == 0)
          ++s.zero;
        else if (mag < 8)
          ++s.subnormal;
        if (mag == 0x7E) ++s.saturated;
        take(e4m3_value(c));
      }
    } else {
      for (std::uint32_t o = r.begin; o + 1 < r.end && o + 1 < bytes.size(); o += 2) {
        const std::uint16_t h = static_cast<std::uint16_t>(bytes[o] | (bytes[o + 1] << 8));
        const int exp = (h >> 10) & 0x1F;
        const int frac = h & 0x3FF;
        if (exp == 0x1F) {
          (frac ? s.nan : s.inf)++;
          continue;
        }
        if (exp == 0) (frac ? s.subnormal : s.zero)++;
        take(f16_value(h));
      }
    }
    if (finite) {
      s.min = lo;
      s.max = hi;
      s.mean_abs = sum_abs / static_cast<double>(finite);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace rrswin
