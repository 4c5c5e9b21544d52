// `rrswin settle --layer enc4` (bridge/layer_settle.hpp).
#include "bridge/layer_settle.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <type_traits>

#include "base/errors.hpp"
#include "io/links.hpp"

namespace rrswin::ptx {
namespace {

namespace fs = std::filesystem;

// Settings are compared byte for byte: LayerReadings holds enumerators only, without padding.
static_assert(std::has_unique_object_representations_v<LayerReadings>);

std::uint64_t differing(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  std::uint64_t n = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) n += a[i] != b[i];
  return n;
}

// Differing bytes of the model's run of `l.before` against the original's results.
std::uint64_t score(const LayerSettleLaunch& l, LayerId layer, const LayerSettleOptions& o, const LayerReadings& lr) {
  KernelCapture c = l.before;
  LayerReplayOptions ro;
  ro.profile = o.profile;
  ro.readings = o.readings;
  ro.layer_readings = lr;
  replay_layer_capture(c, layer, ro);
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < c.allocs.size(); ++i) n += differing(c.allocs[i].bytes, l.after.allocs[i].bytes);
  for (std::size_t i = 0; i < c.images.size(); ++i) n += differing(c.images[i].image.bytes, l.after.images[i].image.bytes);
  return n;
}

std::string value_of(const LayerReadings& lr, const LayerReadingInfo& info) {
  for (const std::string& v : info.values) {
    LayerReadings t = lr;
    std::string err;
    set_layer_reading(t, info.name + "=" + v, &err);
    // A value is lr's when setting it changes nothing (the struct holds enumerators only).
    if (std::memcmp(&t, &lr, sizeof lr) == 0) return v;
  }
  return info.values.front();
}

}  // namespace

KernelCapture results_from_dumps(const KernelCapture& before, const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir, 0, "a folder of the original's results in launch-dump naming", "no such folder");
  // argNNN + kind -> file
  std::map<std::pair<int, std::string>, std::vector<fs::path>> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    const auto d = capture::parse_dump_name(n);
    if (!d) continue;
    refuse_link(e.path().string());
    files[{d->arg, d->kind}].push_back(e.path());
  }
  KernelCapture after = before;
  const auto take = [&](int arg, const std::string& kind, std::size_t size) {
    const auto it = files.find({arg, kind});
    if (it == files.end() || it->second.size() != 1)
      throw InputError(
          dir, 0,
          "one launch-…-arg" + std::string(arg < 100 ? "0" : "") + (arg < 10 ? "0" : "") + std::to_string(arg) + "-" + kind + "-… file",
          it == files.end() ? "none" : std::to_string(it->second.size()) + " files");
    std::vector<std::uint8_t> bytes = read_file_no_link(it->second.front().string());
    if (bytes.size() != size)
      throw InputError(it->second.front().string(), std::min(bytes.size(), size), std::to_string(size) + " bytes (as captured)",
                       std::to_string(bytes.size()) + " bytes");
    return bytes;
  };
  for (const auto& p : before.pointers)
    after.allocs[p.alloc].bytes = take(static_cast<int>(p.offset), "buffer", before.allocs[p.alloc].bytes.size());
  for (auto& im : after.images)
    im.image.bytes = take(static_cast<int>(im.offset), im.texture ? "texture" : "surface", im.image.bytes.size());
  return after;
}

std::vector<LayerSettleLaunch> oracle_layer_launches(LayerId layer) {
  SyntheticLayerCapture border;
  border.seed = 2;
  border.ex = 21;
  border.ey = 13;
  border.ox = 3;
  border.oy = 5;
  std::vector<LayerSettleLaunch> l;
  const LayerSpec& s = layer_spec(layer);
  l.push_back(
      {"synthetic " + std::to_string(s.abi.ex) + " x " + std::to_string(s.abi.ey) + ", seed 1", synthetic_layer_capture(layer, {}), {}});
  l.push_back({"synthetic 21 x 13 at block offsets 3,5, seed 2", synthetic_layer_capture(layer, border), {}});
  return l;
}

LayerSettleResult settle_layer(const std::vector<LayerSettleLaunch>& launches, LayerId layer, const LayerSettleOptions& o) {
  LayerSettleResult r;
  const auto total = [&](const LayerReadings& lr) {
    std::uint64_t n = 0;
    for (const auto& l : launches) n += score(l, layer, o, lr);
    ++r.runs;
    return n;
  };
  // The layer readings that apply to this layer (reading_layers): the merge's, the gated final
  // epilogue's or the decoders' front and final.
  std::vector<LayerReadingInfo> registry;
  for (const LayerReadingInfo& info : layer_reading_registry()) {
    const std::vector<LayerId> l = reading_layers(info.name);
    if (std::find(l.begin(), l.end(), layer) != l.end()) registry.push_back(info);
  }
  LayerReadings best;
  std::uint64_t best_n = total(best);
  for (int pass = 0; pass < o.max_passes && best_n > 0; ++pass) {
    bool changed = false;
    for (const LayerReadingInfo& info : registry)
      for (const std::string& v : info.values) {
        LayerReadings t = best;
        std::string err;
        if (!set_layer_reading(t, info.name + "=" + v, &err) || std::memcmp(&t, &best, sizeof t) == 0) continue;
        const std::uint64_t n = total(t);
        if (n < best_n) {
          best = t;
          best_n = n;
          changed = true;
        }
      }
    if (!changed) break;
  }
  r.best = best;
  r.differing = best_n;
  for (const LayerReadingInfo& info : registry) {
    LayerReadingScore s;
    s.name = info.name;
    s.best = value_of(best, info);
    std::uint64_t low = UINT64_MAX;
    int at_low = 0;
    for (const std::string& v : info.values) {
      LayerReadings t = best;
      std::string err;
      set_layer_reading(t, info.name + "=" + v, &err);
      const std::uint64_t n = v == s.best ? best_n : total(t);
      s.values.emplace_back(v, n);
      if (n < low) {
        low = n;
        at_low = 1;
      } else if (n == low) {
        ++at_low;
      }
    }
    s.settled = at_low == 1;
    r.best_values.emplace_back(info.name, s.best);
    r.readings.push_back(std::move(s));
  }
  return r;
}

}  // namespace rrswin::ptx
