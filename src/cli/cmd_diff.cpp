// `enc5 diff A B`: compares two captures / output folders argument by argument, keyed as d4r's
// comparison script keys launch dumps (facts F5: kernel, arg offset, kind, shape without base0x…,
// fmt, occurrence), or two single files (arena .bin, surface .exr / .bin).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include "base/errors.hpp"
#include "capture/capture.hpp"
#include "capture/debug_stage.hpp"
#include "capture/diff.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "io/arena_io.hpp"
#include "io/exr.hpp"
#include "io/files.hpp"

namespace enc5::cli {
namespace {

using namespace enc5::capture;
namespace fs = std::filesystem;

constexpr const char* kDiffHelp = R"(usage: enc5 diff A B [OPTIONS]

Compares two captures or output folders argument by argument, or two single files.

Folders: every launch-NNN-<kernel>-argNNN-<kind>-<shape>-fmtN.bin file (facts F5) is keyed by
(kernel, arg offset, kind, shape without base0x..., fmt, occurrence), as d4r's comparison script
does, so launch numbers and device addresses may differ. Files on one side only are listed; they
count as differences only with --strict (as d4r's comparison counts them; enc5 replay
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
  -h, --help            this text

enc5 diff CAPTURE --stage NAME [--debug-base N] [--profile P] [--reading NAME=VALUE ...]
  A capture taken with d4r's debug oracle (D4R_RRSWIN_DEBUG=NAME, facts F1/F2) holds stage NAME
  (w1..w12, p13c, p13d) of warp 0 of every block at the arena pointer + the debug base (default
  4000000). Compares it with enc5's golden trace of the same stage on the capture's inputs and
  reports the registers differing, the first differing phase, block, warp, lane and register
  (with its row and columns), the largest f16 ulp distance and the count per block.
  --launch N, --kernel S, --block-offset X,Y, --threads N as for enc5 replay.

Exit status: 0 identical, 1 different, 2 errors.
)";

struct Item {
  std::string key;
  DumpName name;
  fs::path path;
};

std::map<std::string, Item> index_folder(const fs::path& dir) {
  std::map<std::string, int> occurrence;
  std::vector<std::pair<DumpName, fs::path>> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string n = e.path().filename().string();
    if (n.rfind("launch-", 0) != 0) continue;
    const auto parsed = parse_dump_name(n);
    if (!parsed) throw InputError(e.path().string(), 0, "a launch dump name launch-NNN-<kernel>-argNNN-<kind>-<shape>-fmtN.bin", "'" + n + "'");
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

// The launch's surface shape gives the extents of its arena (docs/captures.md).
void extents_from_folder(const std::map<std::string, Item>& items, const DumpName& n, int& ex, int& ey) {
  for (const auto& [k, it] : items) {
    if (it.name.launch != n.launch || it.name.kernel != n.kernel || it.name.arg != kArgSurface || it.name.kind != "surface") continue;
    const auto x = it.name.shape.find('x');
    try {
      ex = std::stoi(it.name.shape.substr(0, x));
      ey = std::stoi(it.name.shape.substr(x + 1));
    } catch (...) {
    }
    return;
  }
}

struct Geometry {
  int ex = 0, ey = 0;
};

FileDiff diff_dump(const Item& a, const Item& b, const std::map<std::string, Item>& items_a, Geometry g) {
  const auto ba = read_file_bytes(a.path.string()), bb = read_file_bytes(b.path.string());
  FileDiff d;
  if (a.name.kind == "buffer" && a.name.arg == kArgOutput) {
    int ex = g.ex, ey = g.ey;
    if (ex <= 0 || ey <= 0) {
      ex = 40;
      ey = 23;
      extents_from_folder(items_a, a.name, ex, ey);
    }
    std::size_t off = 0;
    for (std::size_t p = 0; p != std::string::npos;) {
      const auto q = a.name.shape.find('-', p);
      const std::string t = a.name.shape.substr(p, q == std::string::npos ? q : q - p);
      // The window offset token (docs/captures.md); a token that only looks like one is ignored.
      if (t.rfind("off", 0) == 0 && t.size() > 3 && t.find_first_not_of("0123456789", 3) == std::string::npos)
        off = std::stoull(t.substr(3));
      p = q == std::string::npos ? q : q + 1;
    }
    if (off + plane_arena_bytes(ex, ey) <= std::min(ba.size(), bb.size()))
      d = diff_arena(ba, bb, ex, ey, off);
    else
      d = diff_bytes(ba, bb);
  } else if (a.name.kind == "surface" || a.name.kind == "texture") {
    ImageArg img;
    const auto x = a.name.shape.find('x');
    int w = 0, h = 0;
    std::size_t pitch = 0;
    try {
      w = std::stoi(a.name.shape.substr(0, x));
      h = std::stoi(a.name.shape.substr(x + 1));
      pitch = 8u * w;
      const auto pp = a.name.shape.find("pitch");
      if (pp != std::string::npos) pitch = std::stoull(a.name.shape.substr(pp + 5));
    } catch (...) {
      w = 0;
    }
    d = (w > 0 && h > 0 && a.name.fmt == kFmtHalf) ? diff_surface(ba, bb, w, h, pitch) : diff_bytes(ba, bb);
  } else {
    d = diff_bytes(ba, bb);
  }
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

int diff_main(const Args& args) {
  OptionCursor cur(args);
  std::vector<std::string> pos;
  bool json = false, strict = false;
  std::string heat;
  Geometry g;
  StageChoice stage;
  RunChoice run;
  LoadOptions load;
  long long launch = -1;
  while (cur.next()) {
    if (!cur.is_option()) {
      pos.push_back(cur.name);
    } else if (cur.name == "-h" || cur.name == "--help") {
      std::fputs(kDiffHelp, stdout);
      return 0;
    } else if (cur.name == "--json") {
      cur.flag();
      json = true;
    } else if (cur.name == "--strict") {
      cur.flag();
      strict = true;
    } else if (cur.name == "--heatmap-dir") {
      heat = cur.take();
    } else if (cur.name == "--ex") {
      g.ex = static_cast<int>(parse_int(cur.name, cur.take(), kExtentMin, kExtentMax));
    } else if (cur.name == "--ey") {
      g.ey = static_cast<int>(parse_int(cur.name, cur.take(), kExtentMin, kExtentMax));
    } else if (handle_stage_option(cur, stage)) {
    } else if (cur.name == "--launch") {
      launch = parse_int(cur.name, cur.take(), 0, 999999);
    } else if (cur.name == "--kernel" || cur.name == "--block-offset") {
      handle_load_option(cur, load);
    } else if (!run.handle(cur)) {
      throw UsageError("unknown option '" + cur.name + "'");
    }
  }
  if (stage.stage) {
    if (pos.size() != 1) throw UsageError("--stage compares ONE capture with enc5's trace: expected CAPTURE, got " + std::to_string(pos.size()) + " arguments");
    load.ex = g.ex;
    load.ey = g.ey;
    const auto launches = load_captures(pos[0], load);
    const LaunchCapture* c = &launches.front();
    if (launch >= 0) {
      c = nullptr;
      for (const auto& l : launches)
        if (l.launch == launch) c = &l;
      if (!c) throw UsageError("--launch " + std::to_string(launch) + ": no such launch in " + pos[0]);
    }
    const StagePayload captured = read_stage_payload(*c, *stage.stage, stage.debug_base);
    const StageDiff d = diff_stage(captured, compute_stage_payload(*c, *stage.stage, stage.debug_base, run.options()));
    if (json) {
      std::printf("{\"capture\": %s, \"launch\": %u, \"window\": %s, \"identical\": %s, \"stage\": %s}\n", json_escape(c->source).c_str(), c->launch,
                  json_escape(captured.source).c_str(), d.identical() ? "true" : "false", to_json(d).c_str());
    } else {
      std::printf("%s, launch %u: debug stage %s read from %s\n%s%s\n", c->source.c_str(), c->launch, stage.stage->name, captured.source.c_str(),
                  describe(d).c_str(), d.identical() ? "IDENTICAL" : "DIFFERENT");
    }
    return d.identical() ? 0 : 1;
  }
  if (pos.size() != 2) throw UsageError("expected two arguments A and B (folders or files), got " + std::to_string(pos.size()));
  const fs::path A(pos[0]), B(pos[1]);
  for (const auto& p : {A, B})
    if (!fs::exists(p)) throw InputError(p.string(), 0, "a capture folder or a file", "nothing (no such file or folder)");
  if (fs::is_directory(A) != fs::is_directory(B)) throw UsageError("A and B must both be folders or both be files");

  std::vector<FileDiff> diffs;
  std::vector<std::string> only_a, only_b;
  if (fs::is_directory(A)) {
    const auto ia = index_folder(A), ib = index_folder(B);
    for (const auto& [k, it] : ia) {
      const auto jt = ib.find(k);
      if (jt == ib.end()) {
        only_a.push_back(k);
        continue;
      }
      diffs.push_back(diff_dump(it, jt->second, ia, g));
    }
    for (const auto& [k, it] : ib)
      if (!ia.count(k)) only_b.push_back(k);
    if (diffs.empty())
      throw std::runtime_error("no file of " + A.string() + " matches one of " + B.string() +
                               " by (kernel, arg, kind, shape, fmt, occurrence): nothing to compare (are both launch-dump folders?)");
  } else {
    const std::string ext = A.extension().string();
    FileDiff d;
    const auto na = parse_dump_name(A.filename().string()), nb = parse_dump_name(B.filename().string());
    if (ext == ".exr") {
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
      d = diff_surface(bytes(ia), bytes(ib), ia.width, ia.height, 8u * ia.width);
    } else if (na && nb) {
      std::map<std::string, Item> items;
      items[""] = Item{"", *na, A};
      for (const auto& e : fs::directory_iterator(A.parent_path().empty() ? fs::path(".") : A.parent_path())) {
        const auto n = parse_dump_name(e.path().filename().string());
        if (n) items[e.path().string()] = Item{"", *n, e.path()};
      }
      d = diff_dump(Item{dump_key(*na), *na, A}, Item{dump_key(*nb), *nb, B}, items, g);
    } else {
      const auto ba = read_file_bytes(A.string()), bb = read_file_bytes(B.string());
      const int ex = g.ex > 0 ? g.ex : 40, ey = g.ey > 0 ? g.ey : 23;
      if (ba.size() == plane_arena_bytes(ex, ey) && bb.size() == ba.size())
        d = diff_arena(ba, bb, ex, ey, 0);
      else
        d = diff_bytes(ba, bb);
    }
    d.key = A.filename().string();
    d.file_a = A.string();
    d.file_b = B.string();
    diffs.push_back(std::move(d));
  }

  int n_diff = 0;
  std::vector<std::string> heatmaps;
  if (!heat.empty()) fs::create_directories(heat);
  for (const FileDiff& d : diffs) {
    if (d.identical()) continue;
    ++n_diff;
    if (!heat.empty()) {
      const std::string p = (fs::path(heat) / ("heat-" + safe_name(d.key) + ".png")).string();
      if (write_heatmap(p, d)) heatmaps.push_back(p);
    }
  }
  const bool different = n_diff > 0 || (strict && (!only_a.empty() || !only_b.empty()));
  if (json) {
    std::printf("{\"identical\": %s, \"compared\": %zu, \"differing\": %d, \"files\": [", different ? "false" : "true", diffs.size(), n_diff);
    for (std::size_t i = 0; i < diffs.size(); ++i) std::printf("%s\n  %s", i ? "," : "", to_json(diffs[i]).c_str());
    auto list = [](const std::vector<std::string>& v) {
      std::string s = "[";
      for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + json_escape(v[i]);
      return s + "]";
    };
    std::printf("\n], \"only_in_a\": %s, \"only_in_b\": %s, \"heatmaps\": %s}\n", list(only_a).c_str(), list(only_b).c_str(),
                list(heatmaps).c_str());
  } else {
    for (const FileDiff& d : diffs) {
      std::printf("%s: %s", d.key.c_str(), d.identical() ? "ok" : "\n");
      std::printf("%s", d.identical() ? (" (" + std::to_string(d.size_a) + " bytes)\n").c_str() : describe(d).c_str());
    }
    for (const auto& k : only_a) std::printf("%s: MISSING in B\n", k.c_str());
    for (const auto& k : only_b) std::printf("%s: MISSING in A\n", k.c_str());
    for (const auto& p : heatmaps) std::printf("heat map: %s\n", p.c_str());
    std::printf("%s: %zu compared, %d differ%s\n", different ? "DIFFERENT" : "IDENTICAL", diffs.size(), n_diff,
                (only_a.size() + only_b.size()) ? (", " + std::to_string(only_a.size() + only_b.size()) + " on one side only" +
                                                   (strict ? "" : " (not counted; --strict counts them)")).c_str()
                                                : "");
  }
  return different ? 1 : 0;
}

}  // namespace

int cmd_diff(const Args& args) {
  try {
    return diff_main(args);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "enc5 diff: %s (enc5 diff --help)\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "enc5 diff: error: %s\n", e.what());
    return 2;
  }
}

}  // namespace enc5::cli
