// rrswin inspect [FILE] [--json]: the phase table (spec §2.1 tool view + §2.2 corrected shapes), the
// weight-image map (facts E4) and per-region statistics of FILE, or of the embedded default image
// (default_weights(), seed 1) when no FILE is given.
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include "assets/synthetic_weights.hpp"
#include "cli/commands.hpp"
#include "io/weight_file.hpp"
#include "model/layer_program.hpp"
#include "model/phase_program.hpp"
#include "model/weight_image.hpp"

namespace rrswin::cli {
namespace {

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  va_list ap;
  va_start(ap, f);
  va_list ap2;
  va_copy(ap2, ap);
  const int n = std::vsnprintf(nullptr, 0, f, ap);
  va_end(ap);
  std::string s(n > 0 ? static_cast<std::size_t>(n) : 0u, '\0');
  if (n > 0) std::vsnprintf(s.data(), s.size() + 1, f, ap2);
  va_end(ap2);
  return s;
}

std::uint64_t fnv1a64(std::span<const std::uint8_t> bytes) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (std::uint8_t b : bytes) h = (h ^ b) * 0x100000001B3ull;
  return h;
}

std::string range_text(std::uint32_t b, std::uint32_t e) { return fmt("%u..%u", b, e); }

// The spec prints "(none)" in the weight column of phases that read no B from W (spec §2.4) and
// "–" where a phase has no bias load; we print "-" for the dash.
std::string weight_column(const Phase& p) { return p.b == OperandSource::weights ? range_text(p.weight_begin, p.weight_end) : "(none)"; }
std::string bias_column(const Phase& p) { return p.c == OperandSource::weights ? range_text(p.bias_begin, p.bias_end) : "-"; }
std::string owner_column(const Phase& p) {
  if (p.head >= 0) return fmt("h%d", p.head);
  if (p.chunk >= 0) return fmt("c%d", p.chunk);
  if (p.relative_to_slot || p.kind == PhaseKind::pv) return "h=z";
  return "-";
}

// The phase table of one layer of the template (model/layer_program.hpp; for enc5 the same table
// as phase_program(), LayerTemplate.Enc5IsTheExistingPhaseTableFieldByField).
void print_phases(std::string& o, const LayerProgram& prog) {
  const LayerSpec& s = *prog.spec;
  const WeightMap m = weight_map(s);
  const std::string src(s.doc);
  o += fmt("Phase table of %.*s (%.*s, corpus %.*s)%s\n", static_cast<int>(s.name.size()), s.name.data(), static_cast<int>(s.entry.size()),
           s.entry.data(), static_cast<int>(s.corpus.size()), s.corpus.data(),
           s.runnable ? "" : ": tables only, the layer does not run yet");
  const std::string slots = s.serial_heads()
                                ? std::string("serial heads: each head's phases read its own slot")
                                : fmt("phases %d..%d relative to the head slot W + %u*z", s.first_stem(), s.score_phase(), m.slot_bytes());
  o +=
      fmt("  left of '|': the spec tool's view (%s: rr_layer_spec.py's M N K, grid, and byte ranges\n"
          "  as the tool prints them: first immediate .. last u32 of lane 0; %s). Right of '|': the\n"
          "  corrected shape (spec §2.2) as m-tiles x n-tiles x k-steps, warps, head (h) or MLP chunk (c),\n"
          "  and the A / B / C operand sources. '?': no document states it.\n",
          src.c_str(), slots.c_str());
  o += fmt("  %2s  %-15s %4s %4s %4s %4s  %-4s  %-15s %-15s %5s | %-10s %-15s %5s %-4s  %-19s %-16s %s\n", "#", "statements", "M", "N", "K",
           "mma", "grid", "weight bytes", "bias bytes", "epi", "real MxNxK", "tiles = mma", "warps", "h/c", "A", "B", "C");
  int total = 0, agree = 0;
  for (const Phase& p : prog.phases) {
    total += p.mma;
    const bool tool_ok = (p.tool.m / 16) * (p.tool.n / 8) * (p.tool.k / 32) == p.mma;
    agree += tool_ok;
    const std::string real = fmt("%dx%dx%d", p.real.m, p.real.n, p.real.k);
    const std::string tiles = fmt("%dx%dx%d = %d mma", p.m_tiles, p.n_tiles, p.k_steps, p.mma);
    const std::string epi = p.epilogue_statements >= 0 ? fmt("%d", p.epilogue_statements) : "?";
    o += fmt("  %2d  %-15s %4d %4d %4d %4d  %-4s  %-15s %-15s %5s | %-10s %-15s %5d %-4s  %-19.*s %-16.*s %.*s\n", p.number,
             std::string(p.stmt_range).c_str(), p.tool.m, p.tool.n, p.tool.k, p.mma, p.band ? "band" : "full", weight_column(p).c_str(),
             bias_column(p).c_str(), epi.c_str(), real.c_str(), tiles.c_str(), p.warps, owner_column(p).c_str(),
             static_cast<int>(p.a_label.size()), p.a_label.data(), static_cast<int>(p.b_label.size()), p.b_label.data(),
             static_cast<int>(p.c_label.size()), p.c_label.data());
  }
  const int count = static_cast<int>(prog.phases.size());
  o +=
      fmt("  total: %d mma in %d phases; the tool's M/16*N/8*K/32 equals mma for %d phases and overcounts for\n"
          "  the %d banded ones (k-slices counted as tiles, spec §2.2).\n",
          total, count, agree, count - agree);
  o +=
      fmt("  C sources: 0 = %%r11547; D(p-k) = that phase's D registers; 'f16(T + ..)' = built in the previous\n"
          "  epilogue from a %d-column table (T1 at %u, T3 at %u) and a residual (facts C6, C10).\n",
          s.channels, m.t1(), m.t3());
  if (s.merge())
    o +=
        fmt("  Phase %d (the patch merge) runs in a loop of 32-column passes over the %d merged channels\n"
            "  (docs/readings.md §7 merge-loop); its byte ranges are the first pass's, the map below the loop's.\n",
            s.merge_phase(), s.merge_out);
  o += "\n";
}

void print_map(std::string& o, const LayerSpec& s) {
  const WeightMap m = weight_map(s);
  const auto regions = s.id == LayerId::enc5 ? weight_regions() : layer_weight_regions(s);
  auto find = [&](Region::Role role, int index) -> const Region& {
    for (const Region& r : regions)
      if (r.role == role && r.index == index) return r;
    return regions.front();
  };
  auto rt = [](const Region& r) { return fmt("[%u, %u)", r.begin, r.end); };
  const int C = s.channels;
  o += fmt("Weight image map (facts E4%s): %u bytes, %zu regions, offsets absolute in W\n",
           s.id == LayerId::enc5 ? "" : "; the formulas in C and H, docs/readings.md §7", m.image_bytes(), regions.size());
  for (const Region& r : regions)
    if (r.role == Region::Role::unread || r.role == Region::Role::we || r.role == Region::Role::be || r.role == Region::Role::wx ||
        r.role == Region::Role::bx)
      o += fmt("  %-18s %-6s %s, the front (%.*s)\n", rt(r).c_str(), r.name.c_str(), r.type == Region::Type::f16 ? "f16" : "e4m3",
               static_cast<int>(to_string(s.front.kind).size()), to_string(s.front.kind).data());
  o += fmt("  %-18s %-6s f16 x%d, %s norm gain\n", rt(find(Region::Role::g1, -1)).c_str(), "g1", C,
           s.front.kind == FrontKind::patch_expand ? "E1's input" : "prologue");
  if (s.serial_heads())
    o += fmt("  head slots (%u bytes each; head 0's phases %d..%d read slot 0, each next head's the next %d phases and slot)\n",
             m.slot_bytes(), s.first_stem(), s.projection_phase(0), s.head_block());
  else
    o += fmt("  head slots (%u bytes each, slot z = %u*z; read by warp z in phases %d..%d, Wo_h by phase %d+h)\n", m.slot_bytes(),
             m.slot_bytes(), s.first_stem(), s.score_phase(), s.first_projection());
  o += fmt("  %4s %-8s %-18s %-18s %-20s %s\n", "head", "slot", fmt("Wq e4m3 %dx1024", C / 32).c_str(),
           fmt("Wv e4m3 %dx1024", C / 32).c_str(), "score_bias f16 64x96", fmt("Wo e4m3 32x%d", C).c_str());
  for (int h = 0; h < s.heads; ++h)
    o += fmt("  %4d %-8u %-18s %-18s %-20s %s\n", h, m.slot_bytes() * static_cast<std::uint32_t>(h), rt(find(Region::Role::wq, h)).c_str(),
             rt(find(Region::Role::wv, h)).c_str(), rt(find(Region::Role::score_bias, h)).c_str(), rt(find(Region::Role::wo, h)).c_str());
  o += fmt("  %-18s %-6s f16 x%d, phase %d's C table (\"bo\")\n", rt(find(Region::Role::t1, -1)).c_str(), "T1", C, s.first_projection());
  o += fmt("  %-18s %-6s f16 x%d, E%d norm gain\n", rt(find(Region::Role::g2, -1)).c_str(), "g2", C, s.last_projection());
  o += fmt("  MLP chunks (stride %u = W1 %d + b1 64 + W2 %d; T3 sits between chunks 0 and 1)\n", m.chunk_stride(), 32 * C, 32 * C);
  o += fmt("  %5s %-18s %-18s %-18s %s\n", "chunk", fmt("W1 e4m3 %dx32", C).c_str(), "b1 f16 x32", fmt("W2 e4m3 32x%d", C).c_str(),
           "phases");
  for (int c = 0; c < s.chunks; ++c) {
    o += fmt("  %5d %-18s %-18s %-18s %d, %d\n", c, rt(find(Region::Role::w1, c)).c_str(), rt(find(Region::Role::b1, c)).c_str(),
             rt(find(Region::Role::w2, c)).c_str(), s.first_mlp() + 2 * c, s.first_mlp() + 1 + 2 * c);
    if (c == 0)
      o += fmt("  %5s %-18s T3 f16 x%d, phase %d's C table (\"b2\")\n", "", rt(find(Region::Role::t3, -1)).c_str(), C, s.first_mlp() + 1);
  }
  if (s.merge()) {
    o += fmt("  %-18s %-6s e4m3 %dx%d (%d columns of 4C = %d bytes), phase %d's B\n", rt(find(Region::Role::wm, -1)).c_str(), "Wm", 4 * C,
             s.merge_out, s.merge_out, 4 * C, s.merge_phase());
    o += fmt("  %-18s %-6s f16 x%d, phase %d's C\n", rt(find(Region::Role::bm, -1)).c_str(), "bm", s.merge_out, s.merge_phase());
  }
  const int fp = s.final_phase();
  if (s.final_gemm) {
    o += fmt("  %-18s %-6s e4m3 %dx16 (%d tiles), phase %d's B\n", rt(find(Region::Role::w61, -1)).c_str(), fmt("W%d", fp).c_str(), C,
             C / 32, fp);
    o += fmt("  %-18s %-6s f16 x16 (2 records), phase %d's C\n\n", rt(find(Region::Role::b61, -1)).c_str(), fmt("b%d", fp).c_str(), fp);
  } else {
    o += fmt("  (no final phase: the final epilogue reads phase %d, the last down-projection)\n\n", s.last_mlp());
  }
  if (s.id != LayerId::enc5) {
    const LaunchAbi& a = s.abi;
    o +=
        fmt("Launch (docs/readings.md §7): grid (%d,%d,%d) x block (%d,%d,%d) at %d x %d tokens, %d bytes of shared\n"
            "  memory, a %d-byte parameter block: %s.\n  Geometry: %.*s.\n"
            "  d4r's tool extent of the image: %u bytes (without lane t = 3's 12 bytes of the last load).\n\n",
            a.grid[0], a.grid[1], a.grid[2], a.block[0], a.block[1], a.block[2], a.ex, a.ey, a.shared_bytes, a.param_block_bytes,
            launch_parameters_text(a).c_str(), static_cast<int>(a.geometry_source.size()), a.geometry_source.data(), m.tool_extent());
  }
}

std::string num(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e-3 && a < 1e5) return fmt("%.5g", v);
  return fmt("%.3e", v);
}

void print_stats(std::string& o, const std::vector<RegionStats>& stats) {
  o += "Per-region statistics (e4m3: codes; sat = +-448 codes 0x7E/0xFE, subn = subnormal codes;\n"
       "f16: subn = subnormal halves; min/max/mean|x| over finite values)\n";
  o += fmt("  %-15s %-4s %7s %7s %6s %5s %4s %4s %11s %11s %11s\n", "region", "type", "count", "zero", "subn", "sat", "nan", "inf", "min",
           "max", "mean|x|");
  std::uint64_t tot[2][6] = {};
  for (const RegionStats& s : stats) {
    const bool f16 = s.region.type == Region::Type::f16;
    o +=
        fmt("  %-15s %-4s %7llu %7llu %6llu %5llu %4llu %4llu %11s %11s %11s\n", s.region.name.c_str(), f16 ? "f16" : "e4m3",
            static_cast<unsigned long long>(s.count), static_cast<unsigned long long>(s.zero), static_cast<unsigned long long>(s.subnormal),
            static_cast<unsigned long long>(s.saturated), static_cast<unsigned long long>(s.nan), static_cast<unsigned long long>(s.inf),
            num(s.min).c_str(), num(s.max).c_str(), num(s.mean_abs).c_str());
    std::uint64_t* t = tot[f16 ? 1 : 0];
    t[0] += s.count;
    t[1] += s.zero;
    t[2] += s.subnormal;
    t[3] += s.saturated;
    t[4] += s.nan;
    t[5] += s.inf;
  }
  for (int f = 0; f < 2; ++f)
    o += fmt("  %-15s %-4s %7llu %7llu %6llu %5llu %4llu %4llu\n", "total", f ? "f16" : "e4m3", static_cast<unsigned long long>(tot[f][0]),
             static_cast<unsigned long long>(tot[f][1]), static_cast<unsigned long long>(tot[f][2]),
             static_cast<unsigned long long>(tot[f][3]), static_cast<unsigned long long>(tot[f][4]),
             static_cast<unsigned long long>(tot[f][5]));
}

// ---- JSON ----

std::string json_string(std::string_view s) {
  std::string o = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') o += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) {
      o += fmt("\\u%04x", ch);
      continue;
    }
    o += ch;
  }
  return o + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  return fmt("%.17g", v);
}

std::string to_json(const std::string& source, const WeightImage& w, const std::vector<RegionStats>& stats, const LayerProgram& prog) {
  std::string o = "{\n";
  o += "  \"source\": " + json_string(source) + ",\n";
  o += "  \"layer\": " + json_string(prog.spec->name) + ",\n";
  o += fmt("  \"bytes\": %zu,\n  \"fnv1a64\": \"%016llx\",\n", w.bytes().size(), static_cast<unsigned long long>(fnv1a64(w.bytes())));
  o += "  \"phases\": [\n";
  for (const Phase& p : prog.phases) {
    o +=
        fmt("    {\"number\": %d, \"kind\": %s, \"statements\": %s, \"tool\": [%d, %d, %d], \"real\": [%d, %d, %d], "
            "\"mma\": %d, \"tiles\": [%d, %d, %d], \"band\": %s, \"weight\": [%u, %u], \"bias\": [%u, %u], "
            "\"relative_to_slot\": %s, \"epi\": %d, \"warps\": %d, \"head\": %d, \"chunk\": %d, "
            "\"a\": %s, \"b\": %s, \"c\": %s, \"c_chain_from\": %d}%s\n",
            p.number, json_string(to_string(p.kind)).c_str(), json_string(p.stmt_range).c_str(), p.tool.m, p.tool.n, p.tool.k, p.real.m,
            p.real.n, p.real.k, p.mma, p.m_tiles, p.n_tiles, p.k_steps, p.band ? "true" : "false", p.weight_begin, p.weight_end,
            p.bias_begin, p.bias_end, p.relative_to_slot ? "true" : "false", p.epilogue_statements, p.warps, p.head, p.chunk,
            json_string(to_string(p.a)).c_str(), json_string(to_string(p.b)).c_str(), json_string(to_string(p.c)).c_str(), p.c_chain_from,
            p.number == static_cast<int>(prog.phases.size()) ? "" : ",");
  }
  o += "  ],\n  \"regions\": [\n";
  for (std::size_t i = 0; i < stats.size(); ++i) {
    const RegionStats& s = stats[i];
    const bool f16 = s.region.type == Region::Type::f16;
    o +=
        fmt("    {\"name\": %s, \"begin\": %u, \"end\": %u, \"type\": \"%s\", \"count\": %llu, \"zero\": %llu, "
            "\"subnormal\": %llu, \"saturated\": %llu, \"nan\": %llu, \"inf\": %llu, \"min\": %s, \"max\": %s, "
            "\"mean_abs\": %s",
            json_string(s.region.name).c_str(), s.region.begin, s.region.end, f16 ? "f16" : "e4m3",
            static_cast<unsigned long long>(s.count), static_cast<unsigned long long>(s.zero), static_cast<unsigned long long>(s.subnormal),
            static_cast<unsigned long long>(s.saturated), static_cast<unsigned long long>(s.nan), static_cast<unsigned long long>(s.inf),
            json_number(s.min).c_str(), json_number(s.max).c_str(), json_number(s.mean_abs).c_str());
    if (!s.histogram.empty()) {
      o += ", \"histogram\": [";
      for (std::size_t c = 0; c < s.histogram.size(); ++c)
        o += fmt("%s%llu", c ? "," : "", static_cast<unsigned long long>(s.histogram[c]));
      o += "]";
    }
    o += i + 1 == stats.size() ? "}\n" : "},\n";
  }
  o += "  ]\n}\n";
  return o;
}

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: rrswin inspect [FILE] [--layer LAYER] [--json]\n"
               "  Prints the phase table (spec §2.1 tool view and §2.2 corrected shapes), the weight-image\n"
               "  map and per-region statistics of FILE (a weight image of the layer), or of the embedded\n"
               "  default image (synthetic, seed 1) when no FILE is given. --json: the same as JSON.\n"
               "  --layer: any layer of the network (%s; default enc5), runnable or not:\n"
               "  its phase table, weight map and launch as d4r's docs give them (rrswin layers lists them).\n",
               std::string(layer_names()).c_str());
}

}  // namespace

int cmd_inspect(const Args& args) {
  std::string file;
  bool json = false;
  LayerId layer = LayerId::enc5;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      usage(stdout);
      return 0;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--layer") {
      if (i + 1 >= args.size() || !parse_layer(args[i + 1], &layer)) {
        std::fprintf(stderr, "rrswin inspect: --layer needs one of %s%s%s%s\n", std::string(layer_names()).c_str(),
                     i + 1 < args.size() ? " (not '" : "", i + 1 < args.size() ? args[i + 1].c_str() : "", i + 1 < args.size() ? "')" : "");
        return 2;
      }
      ++i;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "rrswin inspect: unknown option '%s'\n", a.c_str());
      usage(stderr);
      return 2;
    } else if (file.empty()) {
      file = a;
    } else {
      std::fprintf(stderr, "rrswin inspect: more than one FILE ('%s', '%s')\n", file.c_str(), a.c_str());
      return 2;
    }
  }
  WeightImage loaded;
  if (!file.empty()) loaded = load_weight_image(file, layer);  // throws InputError: main prints it, exit 1
  const WeightImage& w = file.empty() ? default_layer_weights(layer) : loaded;
  const std::string source = file.empty() ? "embedded default image (synthetic, seed 1)" : file;
  const auto stats = region_statistics(w);
  const LayerProgram& prog = layer_program(layer);
  std::string out;
  if (json) {
    out = to_json(source, w, stats, prog);
  } else {
    out = fmt("rrswin inspect: %s, %zu bytes, fnv1a64 %016llx\n\n", source.c_str(), w.bytes().size(),
              static_cast<unsigned long long>(fnv1a64(w.bytes())));
    print_phases(out, prog);
    print_map(out, *prog.spec);
    print_stats(out, stats);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace rrswin::cli
