#include "capture/network_diff.hpp"

#include <algorithm>
#include <filesystem>

#include "base/errors.hpp"
#include "io/exr.hpp"
#include "io/files.hpp"
#include "io/links.hpp"

namespace rrswin::capture {

namespace fs = std::filesystem;

const std::vector<NetworkOutputName>& network_outputs() {
  // The files `rrswin run --network` writes into DIR/<layer>/ (cli/cmd_run_network.cpp), in the
  // order `rrswin diff --network` has always listed them.
  static const std::vector<NetworkOutputName> kOutputs = {
      {"arena", "arena.bin", NetworkOutputKind::raw},
      {"merged", "merged.bin", NetworkOutputKind::raw},
      {"surface112", "surface112.exr", NetworkOutputKind::surface},
      {"surface120", "surface120.exr", NetworkOutputKind::surface},
      {"surface128", "surface128.exr", NetworkOutputKind::surface},
      {"surface144", "surface144.bin", NetworkOutputKind::raw},  // dec0's +144 (4 f32 a texel): byte for byte
  };
  return kOutputs;
}

const NetworkOutputName* find_network_output(const std::string& name) {
  for (const NetworkOutputName& o : network_outputs())
    if (name == o.name) return &o;
  return nullptr;
}

std::string NetworkSide::where(LayerId id, const NetworkOutputName& o) const {
  if (folder) return (fs::path(source) / std::string(to_string(id)) / o.file).string();
  return source + "['" + std::string(to_string(id)) + "']['" + o.name + "']";
}

NetworkSide read_network_folder(const std::string& dir) {
  if (!fs::is_directory(dir)) throw InputError(dir, 0, "an `rrswin run --network` folder", "no such folder");
  NetworkSide side;
  side.source = dir;
  side.folder = true;
  for (LayerId id : layer_ids()) {
    const fs::path d = fs::path(dir) / std::string(to_string(id));
    if (!fs::is_directory(d)) continue;
    NetworkSideLayer layer;
    layer.id = id;
    for (const NetworkOutputName& o : network_outputs()) {
      const fs::path f = d / o.file;
      if (!fs::exists(f)) continue;
      refuse_link(f.string());
      NetworkOutput out;
      out.name = o.name;
      if (o.kind == NetworkOutputKind::surface) {
        const RgbaHalfImage im = read_exr_rgba_half(f.string());
        out.width = im.width;
        out.height = im.height;
        out.bytes.resize(im.rgba.size() * 2);
        for (std::size_t i = 0; i < im.rgba.size(); ++i) {
          out.bytes[2 * i] = static_cast<std::uint8_t>(im.rgba[i]);
          out.bytes[2 * i + 1] = static_cast<std::uint8_t>(im.rgba[i] >> 8);
        }
      } else {
        out.bytes = read_file_no_link(f.string());
      }
      layer.outputs.push_back(std::move(out));
    }
    side.layers.push_back(std::move(layer));
  }
  return side;
}

namespace {

const NetworkSideLayer* find_layer(const NetworkSide& s, LayerId id) {
  for (const NetworkSideLayer& l : s.layers)
    if (l.id == id) return &l;
  return nullptr;
}

const NetworkOutput* find_output(const NetworkSideLayer& l, const char* name) {
  for (const NetworkOutput& o : l.outputs)
    if (o.name == name) return &o;
  return nullptr;
}

std::string shape(const NetworkOutput& o) { return std::to_string(o.width) + "×" + std::to_string(o.height); }

void check_surface_bytes(const NetworkSide& s, LayerId id, const NetworkOutputName& n, const NetworkOutput& o) {
  const std::uint64_t need = 8ull * static_cast<std::uint64_t>(std::max(o.width, 0)) * static_cast<std::uint64_t>(std::max(o.height, 0));
  if (o.width <= 0 || o.height <= 0 || o.bytes.size() != need)
    throw InputError(s.where(id, n), 0, "an RGBA16F surface of width × height × 8 bytes (" + shape(o) + ": " + std::to_string(need) + ")",
                     std::to_string(o.bytes.size()) + " bytes");
}

FileDiff diff_output(const NetworkSide& a, const NetworkSide& b, LayerId id, const NetworkOutputName& n, const NetworkOutput& oa,
                     const NetworkOutput& ob) {
  if (n.kind == NetworkOutputKind::raw) return diff_bytes(oa.bytes, ob.bytes);
  check_surface_bytes(a, id, n, oa);
  check_surface_bytes(b, id, n, ob);
  if (oa.width != ob.width || oa.height != ob.height)
    throw InputError(b.where(id, n), 0, "an image of " + shape(oa) + " (as A)", shape(ob));
  return diff_surface(oa.bytes, ob.bytes, oa.width, oa.height, 8u * static_cast<std::size_t>(oa.width));
}

// The 8x8 token block of a raw output's first differing byte, as `rrswin diff --network` prints it:
// a plane arena (C/32 planes of 32 bytes a token) at the layer's grid (surface112's texels; the
// merged output at the halved grid), or pixel records (dec0's +48: 8 bytes a pixel; its +144: 16).
// run --network's grids have no origin offset.
std::optional<std::pair<std::int64_t, std::int64_t>> first_block(const FileDiff& d, bool merged, int ex, int ey) {
  const int gx = merged ? ex >> 1 : ex, gy = merged ? ey >> 1 : ey;
  const std::int64_t pixels = static_cast<std::int64_t>(gx) * gy;
  const std::int64_t bpp = pixels > 0 && d.size_a % pixels == 0 ? static_cast<std::int64_t>(d.size_a) / pixels : 0;
  if (bpp <= 0 || d.first < 0 || gx <= 0) return std::nullopt;
  const std::int64_t offset = bpp % 32 == 0 ? d.first % (pixels * 32) : 32 * (d.first / bpp);
  const std::int64_t pixel = offset / 32;
  return std::make_pair((pixel % gx) / 8, (pixel / gx) / 8);
}

}  // namespace

NetworkDiff diff_network(const NetworkSide& a, const NetworkSide& b, bool strict) {
  NetworkDiff out;
  bool any_compared = false;
  for (LayerId id : layer_ids()) {
    const NetworkSideLayer *la = find_layer(a, id), *lb = find_layer(b, id);
    if (!la && !lb) continue;
    NetworkLayerDiff lc;
    lc.id = id;
    lc.in_a = la != nullptr;
    lc.in_b = lb != nullptr;
    const std::string name(to_string(id));
    if (la && lb) {
      for (const NetworkOutputName& n : network_outputs()) {
        const NetworkOutput *oa = find_output(*la, n.name), *ob = find_output(*lb, n.name);
        if (!oa && !ob) continue;
        if (!oa || !ob) throw InputError(oa ? b.where(id, n) : a.where(id, n), 0, "the file, as on the other side", "nothing");
        NetworkOutputDiff od;
        od.name = n.name;
        od.diff = diff_output(a, b, id, n, *oa, *ob);
        od.diff.key = name + "/" + n.file;
        od.diff.file_a = a.where(id, n);
        od.diff.file_b = b.where(id, n);
        for (const auto c : od.diff.channel) od.values_differing += c;
        lc.outputs.push_back(std::move(od));
      }
    }
    // The layer's grid: its surface112's texels (a layer without one has no blocks).
    int ex = 0, ey = 0;
    for (const NetworkOutputDiff& o : lc.outputs)
      if (o.name == "surface112") {
        ex = o.diff.width;
        ey = o.diff.height;
      }
    for (NetworkOutputDiff& o : lc.outputs)
      if (o.diff.kind != DiffKind::surface) o.first_block = first_block(o.diff, o.name == "merged", ex, ey);
    lc.identical = !(strict && (!lc.in_a || !lc.in_b)) &&
                   std::all_of(lc.outputs.begin(), lc.outputs.end(), [](const NetworkOutputDiff& o) { return o.diff.identical(); });
    any_compared |= !lc.outputs.empty();
    if (!lc.identical) {
      ++out.differing_layers;
      if (!out.first_differing) out.first_differing = id;
    }
    out.layers.push_back(std::move(lc));
  }
  if (!any_compared)
    throw InputError(a.source, 0,
                     a.folder ? "an `rrswin run --network` folder with a layer folder (enc0/, ..., dec0/) in common with B's"
                              : "a layer with outputs in common with B's",
                     "none in common");
  return out;
}

}  // namespace rrswin::capture
