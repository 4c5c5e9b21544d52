// `rrswin diff A B`: compares two captures / output folders argument by argument, keyed as d4r's
// comparison script keys launch dumps (facts F5: kernel, arg offset, kind, shape without base0x…,
// fmt, occurrence), or two single files (arena .bin, surface .exr / .bin).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "base/errors.hpp"
#include "capture/capture.hpp"
#include "capture/debug_stage.hpp"
#include "capture/diff.hpp"
#include "capture/network_diff.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "io/arena_io.hpp"
#include "io/checked_size.hpp"
#include "io/exr.hpp"
#include "io/files.hpp"
#include "io/links.hpp"
#include "io/output_set.hpp"
#include "model/layer_spec.hpp"

namespace rrswin::cli {
namespace {

using namespace rrswin::capture;
namespace fs = std::filesystem;

constexpr const char* kDiffHelp = R"(usage: rrswin diff A B [OPTIONS]

Compares two captures or output folders argument by argument, or two single files.

Folders: every launch-NNN-<kernel>-argNNN-<kind>-<shape>-fmtN.bin file (facts F5) is keyed by
(kernel, arg offset, kind, shape without base0x..., fmt, occurrence), as d4r's comparison script
does, so launch numbers and device addresses may differ. Files on one side only are listed; they
count as differences only with --strict (as d4r's comparison counts them; rrswin replay
folders hold every argument).
Files: an arena .bin, a surface .exr, or a launch-dump .bin (its name gives the layout).

For an arena (arg048 buffers, plain .bin of 5*ey*ex*32 bytes): bytes differing, the first
difference, counts per plane q and pixel (x, y), the largest e4m3 code distance. For a surface
(arg112, .exr): per pixel and channel, the largest difference in f16 ulp.

options:
  --json                one JSON object on stdout instead of text
  --heatmap-dir DIR     write a PNG heat map per differing arena/surface (black = equal; arena
                        planes stacked top to bottom; 8x8 screen pixels per pixel)
  --ex N --ey N         arena extents when no surface shape gives them (default: the arg112
                        surface of the same launch, else 40 x 23)
  --strict              files present on one side only count as differences
  --layer L             A and B are two `rrswin run --layer L` folders of a merge layer (enc2,
                        enc3, enc4): compares arena.bin (at --ex/--ey, else surface112.exr's
                        shape; a C/32-plane arena byte by byte), merged.bin (at the halved
                        extents), surface112.exr, surface120.exr and surface128.exr (and
                        dec0's surface144.bin, byte for byte); --layer enc5 (the default) compares enc5's folders
  --network             A and B are two `rrswin run --network` folders: one line per layer in
                        network order (bytes of arena.bin and merged.bin differing, f16 values of
                        the surfaces differing and their largest ulp distance, the first
                        differing block), then the first layer that differs. Two profiles' runs
                        of one frame show where their results part and how the difference grows
  -h, --help            this text

rrswin diff CAPTURE --stage NAME [--debug-base N] [--profile P] [--reading NAME=VALUE ...]
  A capture taken with d4r's debug oracle (D4R_RRSWIN_DEBUG=NAME, facts F1/F2) holds stage NAME
  (w1..w12, p13c, p13d) of warp 0 of every block at the arena pointer + the debug base (default
  4000000). Compares it with enc5's golden trace of the same stage on the capture's inputs and
  reports the registers differing, the first differing phase, block, warp, lane and register
  (with its row and columns), the largest f16 ulp distance and the count per block.
  --launch N, --kernel S, --block-offset X,Y, --threads N as for rrswin replay.

Exit status: 0 identical, 1 different, 2 errors.
)";

struct Item {
  std::string key;
  DumpName name;
  fs::path path;
};

// The launch dumps of a folder by d4r's key plus occurrence. A dump that is a symbolic link is
// refused, naming it (io/links.hpp): diff never prints bytes from outside the folders it was given.
std::map<std::string, Item> index_folder(const fs::path& dir) {
  std::map<std::string, int> occurrence;
  std::vector<std::pair<DumpName, fs::path>> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("launch-", 0) != 0) continue;
    refuse_link(e.path().string());
    if (!e.is_regular_file()) continue;
    const auto parsed = parse_dump_name(n);
    if (!parsed)
      throw InputError(e.path().string(), 0, "a launch dump name launch-NNN-<kernel>-argNNN-<kind>-<shape>-fmtN.bin", "'" + n + "'");
    files.emplace_back(*parsed, e.path());
  }
  // Occurrences count in launch order (d4r's key is robust to launch-number shifts, F5).
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.first.launch < b.first.launch; });
  std::map<std::string, Item> out;
  for (const auto& [n, p] : files) {
    const std::string base = dump_key(n);
    const int occ = occurrence[base]++;
    const std::string key = base + " #" + std::to_string(occ);
    out[key] = Item{key, n, p};
  }
  return out;
}

struct Geometry {
  int ex = 0, ey = 0;
};

// The arena extents of an arg048 dump: --ex/--ey, else the arg112 surface shape of the same launch
// in A's folder (docs/captures.md), else 40 x 23. The shape is read by the capture reader's own
// parser, so its limits hold (1..65536 texels a side).
Geometry arena_extents(const std::map<std::string, Item>& items, const DumpName& n, Geometry g) {
  if (g.ex > 0 && g.ey > 0) return g;
  for (const auto& [k, it] : items) {
    if (it.name.launch != n.launch || it.name.kernel != n.kernel || it.name.arg != kArgSurface || it.name.kind != "surface") continue;
    const ImageArg s = image_geometry(it.path.string(), it.name.shape, false);
    return Geometry{s.width, s.height};
  }
  return Geometry{40, 23};
}

// An arg048 buffer: the arena window [off, off + 5·ey·ex·32) when both files hold it, else bytes.
FileDiff diff_arena_dump(const Item& a, const std::vector<std::uint8_t>& ba, const std::vector<std::uint8_t>& bb,
                         const std::map<std::string, Item>& items_a, Geometry g) {
  const Geometry e = arena_extents(items_a, a.name, g);
  const std::uint64_t off = buffer_offset(a.path.string(), a.name.shape);
  const auto need = plane_arena_bytes_checked(e.ex, e.ey);
  const auto end = need ? add_u64(off, *need) : std::nullopt;  // a wrapping off never fits
  if (end && *end <= std::min(ba.size(), bb.size())) return diff_arena(ba, bb, e.ex, e.ey, static_cast<std::size_t>(off));
  return diff_bytes(ba, bb);
}

// A texture or surface (fmt16): per texel and channel. The shape is parsed by the capture reader
// (width, height 1..65536, pitch >= 8·width: no division by a zero pitch) and A's file must hold
// pitch·height bytes, so the per-pixel tables are bounded by the bytes that exist, not by a name.
FileDiff diff_image_dump(const Item& a, const std::vector<std::uint8_t>& ba, const std::vector<std::uint8_t>& bb) {
  if (a.name.fmt != kFmtHalf) return diff_bytes(ba, bb);
  const ImageArg img = image_geometry(a.path.string(), a.name.shape, a.name.kind == "texture");
  const std::uint64_t need = static_cast<std::uint64_t>(img.pitch) * static_cast<std::uint64_t>(img.height);  // bounded by image_geometry
  if (ba.size() != need)
    throw InputError(a.path.string(), std::min<std::uint64_t>(need, ba.size()),
                     std::to_string(need) + " bytes (pitch " + std::to_string(img.pitch) + " × height " + std::to_string(img.height) +
                         ", the name's shape)",
                     std::to_string(ba.size()) + " bytes");
  return diff_surface(ba, bb, img.width, img.height, img.pitch);
}

FileDiff diff_dump(const Item& a, const Item& b, const std::map<std::string, Item>& items_a, Geometry g, bool in_folders) {
  const auto read = [&](const fs::path& p) { return in_folders ? read_file_no_link(p.string()) : read_file_bytes(p.string()); };
  const auto ba = read(a.path), bb = read(b.path);
  FileDiff d = a.name.kind == "buffer" && a.name.arg == kArgOutput    ? diff_arena_dump(a, ba, bb, items_a, g)
               : a.name.kind == "surface" || a.name.kind == "texture" ? diff_image_dump(a, ba, bb)
                                                                      : diff_bytes(ba, bb);
  d.key = a.key;
  d.file_a = a.path.string();
  d.file_b = b.path.string();
  return d;
}

std::string safe_name(const std::string& key) {
  std::string s;
  for (const char c : key) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return s;
}

struct DiffArgs {
  std::vector<std::string> pos;
  bool json = false, strict = false, help = false;
  std::string heat;
  Geometry g;
  StageChoice stage;
  RunChoice run;
  LoadOptions load;
  long long launch = -1;
  std::optional<LayerId> layer;
  bool network = false;
};

DiffArgs parse_diff_args(const Args& args) {
  DiffArgs d;
  OptionCursor cur(args);
  while (cur.next()) {
    if (!cur.is_option()) {
      d.pos.push_back(cur.name);
    } else if (cur.name == "-h" || cur.name == "--help") {
      d.help = true;
    } else if (cur.name == "--json") {
      cur.flag();
      d.json = true;
    } else if (cur.name == "--strict") {
      cur.flag();
      d.strict = true;
    } else if (cur.name == "--heatmap-dir") {
      d.heat = cur.take();
    } else if (cur.name == "--ex") {
      d.g.ex = static_cast<int>(parse_int(cur.name, cur.take(), kExtentMin, kExtentMax));
    } else if (cur.name == "--ey") {
      d.g.ey = static_cast<int>(parse_int(cur.name, cur.take(), kExtentMin, kExtentMax));
    } else if (handle_stage_option(cur, d.stage)) {
    } else if (cur.name == "--layer") {
      const LayerId id = layer_option(cur.take());
      if (id != LayerId::enc5) d.layer = id;  // enc5's folders are the default (--layer enc5 is accepted, as in every command)
    } else if (cur.name == "--network") {
      cur.flag();
      d.network = true;
    } else if (cur.name == "--launch") {
      d.launch = parse_int(cur.name, cur.take(), 0, 999999);
    } else if (cur.name == "--kernel" || cur.name == "--block-offset") {
      handle_load_option(cur, d.load);
    } else if (!d.run.handle(cur)) {
      throw UsageError("unknown option '" + cur.name + "'");
    }
  }
  return d;
}

// `diff CAPTURE --stage NAME`: the capture's debug window against enc5's golden trace.
int diff_stage_main(DiffArgs& a) {
  if (a.pos.size() != 1)
    throw UsageError("--stage compares ONE capture with enc5's trace: expected CAPTURE, got " + std::to_string(a.pos.size()) +
                     " arguments");
  a.load.ex = a.g.ex;
  a.load.ey = a.g.ey;
  const auto launches = load_captures(a.pos[0], a.load);
  const LaunchCapture* c = &launches.front();
  if (a.launch >= 0) {
    c = nullptr;
    for (const auto& l : launches)
      if (l.launch == a.launch) c = &l;
    if (!c) throw UsageError("--launch " + std::to_string(a.launch) + ": no such launch in " + a.pos[0]);
  }
  const StageChoice& s = a.stage;
  const StagePayload captured = read_stage_payload(*c, *s.stage, s.debug_base);
  const StageDiff d = diff_stage(captured, compute_stage_payload(*c, *s.stage, s.debug_base, a.run.options()));
  if (a.json) {
    std::printf("{\"capture\": %s, \"launch\": %u, \"window\": %s, \"identical\": %s, \"stage\": %s}\n", json_escape(c->source).c_str(),
                c->launch, json_escape(captured.source).c_str(), d.identical() ? "true" : "false", to_json(d).c_str());
  } else {
    std::printf("%s, launch %u: debug stage %s read from %s\n%s%s\n", c->source.c_str(), c->launch, s.stage->name, captured.source.c_str(),
                describe(d).c_str(), d.identical() ? "IDENTICAL" : "DIFFERENT");
  }
  return d.identical() ? kExitOk : kExitDifferent;
}

struct Comparison {
  std::vector<FileDiff> diffs;
  std::vector<std::string> only_a, only_b;
};

Comparison diff_folders(const fs::path& A, const fs::path& B, Geometry g) {
  Comparison out;
  const auto ia = index_folder(A), ib = index_folder(B);
  for (const auto& [k, it] : ia) {
    const auto jt = ib.find(k);
    if (jt == ib.end())
      out.only_a.push_back(k);
    else
      out.diffs.push_back(diff_dump(it, jt->second, ia, g, true));
  }
  for (const auto& [k, it] : ib)
    if (!ia.count(k)) out.only_b.push_back(k);
  if (out.diffs.empty())
    throw std::runtime_error("no file of " + A.string() + " matches one of " + B.string() +
                             " by (kernel, arg, kind, shape, fmt, occurrence): nothing to compare (are both launch-dump folders?)");
  return out;
}

FileDiff diff_files(const fs::path& A, const fs::path& B, Geometry g);

// Two `rrswin run --layer L` folders of a merge layer (cli/cmd_run_layer.cpp): the five outputs by name. A file on
// one side only is listed as for launch dumps; a link is refused (io/links.hpp).
Comparison diff_layer_folders(const fs::path& A, const fs::path& B, Geometry g) {
  Comparison out;
  if (g.ex <= 0 || g.ey <= 0) {
    const fs::path s = A / "surface112.exr";
    if (fs::exists(s)) {
      refuse_link(s.string());
      const RgbaHalfImage im = read_exr_rgba_half(s.string());
      g.ex = g.ex > 0 ? g.ex : im.width;
      g.ey = g.ey > 0 ? g.ey : im.height;
    }
  }
  const Geometry half{g.ex >> 1, g.ey >> 1};
  const std::pair<const char*, Geometry> files[] = {
      {"arena.bin", g},      {"merged.bin", half},  {"surface112.exr", g},
      {"surface120.exr", g}, {"surface128.exr", g}, {"surface144.bin", g},  // dec0's +144 (4 f32 a texel): compared byte for byte
  };
  for (const auto& f : files) {
    const fs::path a = A / f.first, b = B / f.first;
    const bool in_a = fs::exists(a), in_b = fs::exists(b);
    if (in_a) refuse_link(a.string());
    if (in_b) refuse_link(b.string());
    if (in_a && in_b)
      out.diffs.push_back(diff_files(a, b, f.second));
    else if (in_a)
      out.only_a.push_back(f.first);
    else if (in_b)
      out.only_b.push_back(f.first);
  }
  if (out.diffs.empty())
    throw InputError(A.string(), 0,
                     "an `rrswin run --layer L` folder of a merge layer (arena.bin, merged.bin, surface112/120/128.exr) matching B's",
                     "no common file");
  return out;
}

FileDiff diff_exr_files(const fs::path& A, const fs::path& B) {
  const RgbaHalfImage ia = read_exr_rgba_half(A.string()), ib = read_exr_rgba_half(B.string());
  auto bytes = [](const RgbaHalfImage& im) {
    std::vector<std::uint8_t> v(im.rgba.size() * 2);
    for (std::size_t i = 0; i < im.rgba.size(); ++i) {
      v[2 * i] = static_cast<std::uint8_t>(im.rgba[i]);
      v[2 * i + 1] = static_cast<std::uint8_t>(im.rgba[i] >> 8);
    }
    return v;
  };
  if (ia.width != ib.width || ia.height != ib.height)
    throw InputError(B.string(), 0, "an image of " + std::to_string(ia.width) + "×" + std::to_string(ia.height) + " (as A)",
                     std::to_string(ib.width) + "×" + std::to_string(ib.height));
  return diff_surface(bytes(ia), bytes(ib), ia.width, ia.height, 8u * ia.width);
}

FileDiff diff_files(const fs::path& A, const fs::path& B, Geometry g) {
  FileDiff d;
  const auto na = parse_dump_name(A.filename().string()), nb = parse_dump_name(B.filename().string());
  if (A.extension() == ".exr") {
    d = diff_exr_files(A, B);
  } else if (na && nb) {
    // The arena's extents may come from the surface dump beside A (names only: nothing else is read).
    std::map<std::string, Item> items;
    items[""] = Item{"", *na, A};
    for (const auto& e : fs::directory_iterator(A.parent_path().empty() ? fs::path(".") : A.parent_path())) {
      const auto n = parse_dump_name(e.path().filename().string());
      if (n) items[e.path().string()] = Item{"", *n, e.path()};
    }
    d = diff_dump(Item{dump_key(*na), *na, A}, Item{dump_key(*nb), *nb, B}, items, g, false);
  } else {
    const auto ba = read_file_bytes(A.string()), bb = read_file_bytes(B.string());
    const int ex = g.ex > 0 ? g.ex : 40, ey = g.ey > 0 ? g.ey : 23;
    const auto need = plane_arena_bytes_checked(ex, ey);
    if (need && ba.size() == *need && bb.size() == ba.size())
      d = diff_arena(ba, bb, ex, ey, 0);
    else
      d = diff_bytes(ba, bb);
  }
  d.key = A.filename().string();
  d.file_a = A.string();
  d.file_b = B.string();
  return d;
}

template <class... T>
std::string strf(const char* f, T... v) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, v...);
  return buf;
}

// Two `rrswin run --network` folders compared (capture/network_diff.hpp): one line per layer, then
// the first layer that differs.
int report_network(const NetworkDiff& nd, const DiffArgs& a) {
  std::string text, json = "{\"layers\": [";
  for (std::size_t li = 0; li < nd.layers.size(); ++li) {
    const NetworkLayerDiff& l = nd.layers[li];
    const std::string name(to_string(l.id));
    std::string line = strf("  %-5s", name.c_str());
    if (!l.in_a || !l.in_b) line += std::string(l.in_a ? " only in A" : " only in B");
    for (const NetworkOutputDiff& o : l.outputs) {
      const FileDiff& d = o.diff;
      if (d.identical()) continue;
      const std::string f = d.key.substr(name.size() + 1);
      if (d.kind == DiffKind::surface) {
        line +=
            strf("  %s: %llu f16 values differ, max %u ulp", f.c_str(), static_cast<unsigned long long>(o.values_differing), d.max_dist);
      } else {
        const std::string block = o.first_block ? strf(" (first at block (%lld, %lld))", static_cast<long long>(o.first_block->first),
                                                       static_cast<long long>(o.first_block->second))
                                                : "";
        line += strf("  %s: %llu of %llu bytes differ%s", f.c_str(), static_cast<unsigned long long>(d.differing),
                     static_cast<unsigned long long>(d.size_a), block.c_str());
      }
    }
    if (l.identical && l.in_a && l.in_b) line += "  identical";
    text += line + "\n";
    json += strf("%s\n  {\"layer\": \"%s\", \"identical\": %s, \"files\": [", li ? "," : "", name.c_str(), l.identical ? "true" : "false");
    for (std::size_t i = 0; i < l.outputs.size(); ++i) json += (i ? ", " : "") + to_json(l.outputs[i].diff);
    json += "]}";
  }
  const std::optional<LayerId> first = nd.first_differing;
  if (a.json) {
    std::printf("%s\n], \"first_differing_layer\": %s}\n", json.c_str(),
                first ? json_escape(std::string(to_string(*first))).c_str() : "null");
  } else {
    std::printf("rrswin diff --network: %zu layers\n%s", nd.layers.size(), text.c_str());
    if (first)
      std::printf("DIFFERENT: %d of %zu layers differ; the first that differs: %s\n", nd.differing_layers, nd.layers.size(),
                  std::string(to_string(*first)).c_str());
    else
      std::printf("IDENTICAL: %zu layers\n", nd.layers.size());
  }
  return first ? kExitDifferent : kExitOk;
}

// The heat maps (all or nothing: io/output_set.hpp) and the report; the exit status.
int report(const Comparison& c, const DiffArgs& a) {
  int n_diff = 0;
  std::vector<std::string> heatmaps;
  std::optional<OutputSet> heat;
  if (!a.heat.empty()) heat.emplace(a.heat);
  for (const FileDiff& d : c.diffs) {
    if (d.identical()) continue;
    ++n_diff;
    if (heat) {
      const std::string name = "heat-" + safe_name(d.key) + ".png";
      if (write_heatmap(heat->path(name), d)) heatmaps.push_back(heat->final_path(name));
    }
  }
  if (heat) heat->commit();
  const bool different = n_diff > 0 || (a.strict && (!c.only_a.empty() || !c.only_b.empty()));
  if (a.json) {
    std::printf("{\"identical\": %s, \"compared\": %zu, \"differing\": %d, \"files\": [", different ? "false" : "true", c.diffs.size(),
                n_diff);
    for (std::size_t i = 0; i < c.diffs.size(); ++i) std::printf("%s\n  %s", i ? "," : "", to_json(c.diffs[i]).c_str());
    auto list = [](const std::vector<std::string>& v) {
      std::string s = "[";
      for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + json_escape(v[i]);
      return s + "]";
    };
    std::printf("\n], \"only_in_a\": %s, \"only_in_b\": %s, \"heatmaps\": %s}\n", list(c.only_a).c_str(), list(c.only_b).c_str(),
                list(heatmaps).c_str());
  } else {
    for (const FileDiff& d : c.diffs) {
      std::printf("%s: %s", d.key.c_str(), d.identical() ? "ok" : "\n");
      std::printf("%s", d.identical() ? (" (" + std::to_string(d.size_a) + " bytes)\n").c_str() : describe(d).c_str());
    }
    for (const auto& k : c.only_a) std::printf("%s: MISSING in B\n", k.c_str());
    for (const auto& k : c.only_b) std::printf("%s: MISSING in A\n", k.c_str());
    for (const auto& p : heatmaps) std::printf("heat map: %s\n", p.c_str());
    const std::size_t one_side = c.only_a.size() + c.only_b.size();
    std::printf(
        "%s: %zu compared, %d differ%s\n", different ? "DIFFERENT" : "IDENTICAL", c.diffs.size(), n_diff,
        one_side
            ? (", " + std::to_string(one_side) + " on one side only" + (a.strict ? "" : " (not counted; --strict counts them)")).c_str()
            : "");
  }
  return different ? kExitDifferent : kExitOk;
}

}  // namespace

int cmd_diff(const Args& args) {
  DiffArgs a = parse_diff_args(args);
  if (a.help) {
    std::fputs(kDiffHelp, stdout);
    return kExitOk;
  }
  if (a.stage.stage) return diff_stage_main(a);
  if (a.pos.size() != 2) throw UsageError("expected two arguments A and B (folders or files), got " + std::to_string(a.pos.size()));
  const fs::path A(a.pos[0]), B(a.pos[1]);
  for (const auto& p : {A, B})
    if (!fs::exists(p)) throw InputError(p.string(), 0, "a capture folder or a file", "nothing (no such file or folder)");
  if (fs::is_directory(A) != fs::is_directory(B)) throw UsageError("A and B must both be folders or both be files");
  if (a.network) {
    if (!fs::is_directory(A)) throw UsageError("--network compares two folders of rrswin run --network");
    if (a.layer) throw UsageError("--network and --layer exclude each other");
    return report_network(diff_network(read_network_folder(A.string()), read_network_folder(B.string()), a.strict), a);
  }
  Comparison c;
  if (a.layer && !fs::is_directory(A)) throw UsageError("--layer compares two folders of rrswin run --layer L (a merge layer)");
  if (a.layer)
    c = diff_layer_folders(A, B, a.g);
  else if (fs::is_directory(A))
    c = diff_folders(A, B, a.g);
  else
    c.diffs.push_back(diff_files(A, B, a.g));
  return report(c, a);
}

}  // namespace rrswin::cli
