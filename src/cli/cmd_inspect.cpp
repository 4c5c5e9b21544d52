// enc5 inspect [FILE] [--json]: the phase table (spec §2.1 tool view + §2.2 corrected shapes), the
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
#include "model/phase_program.hpp"
#include "model/weight_image.hpp"

namespace enc5::cli {
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
std::string weight_column(const Phase& p) {
  return p.b == OperandSource::weights ? range_text(p.weight_begin, p.weight_end) : "(none)";
}
std::string bias_column(const Phase& p) {
  return p.c == OperandSource::weights ? range_text(p.bias_begin, p.bias_end) : "-";
}
std::string owner_column(const Phase& p) {
  if (p.head >= 0) return fmt("h%d", p.head);
  if (p.chunk >= 0) return fmt("c%d", p.chunk);
  if (p.relative_to_slot || p.kind == PhaseKind::pv) return "h=z";
  return "-";
}

void print_phases(std::string& o) {
  o += "Phase table\n"
       "  left of '|': the spec tool's view (spec §2.1: rr_layer_spec.py's M N K, grid, and byte ranges\n"
       "  as the tool prints them: first immediate .. last u32 of lane 0; phases 1..11 relative to the\n"
       "  head slot W + 27648*z). Right of '|': the corrected shape (spec §2.2) as m-tiles x n-tiles x\n"
       "  k-steps, warps, head (h) or MLP chunk (c), and the A / B / C operand sources.\n";
  o += fmt("  %2s  %-15s %4s %4s %4s %4s  %-4s  %-15s %-15s %5s | %-10s %-15s %5s %-4s  %-19s %-16s %s\n", "#",
           "statements", "M", "N", "K", "mma", "grid", "weight bytes", "bias bytes", "epi", "real MxNxK",
           "tiles = mma", "warps", "h/c", "A", "B", "C");
  int total = 0, agree = 0;
  for (const Phase& p : phase_program()) {
    total += p.mma;
    const bool tool_ok = (p.tool.m / 16) * (p.tool.n / 8) * (p.tool.k / 32) == p.mma;
    agree += tool_ok;
    const std::string real = fmt("%dx%dx%d", p.real.m, p.real.n, p.real.k);
    const std::string tiles = fmt("%dx%dx%d = %d mma", p.m_tiles, p.n_tiles, p.k_steps, p.mma);
    o += fmt("  %2d  %-15s %4d %4d %4d %4d  %-4s  %-15s %-15s %5d | %-10s %-15s %5d %-4s  %-19.*s %-16.*s %.*s\n",
             p.number, std::string(p.stmt_range).c_str(), p.tool.m, p.tool.n, p.tool.k, p.mma,
             p.band ? "band" : "full", weight_column(p).c_str(), bias_column(p).c_str(), p.epilogue_statements,
             real.c_str(), tiles.c_str(), p.warps, owner_column(p).c_str(), static_cast<int>(p.a_label.size()),
             p.a_label.data(), static_cast<int>(p.b_label.size()), p.b_label.data(),
             static_cast<int>(p.c_label.size()), p.c_label.data());
  }
  o += fmt("  total: %d mma in %d phases; the tool's M/16*N/8*K/32 equals mma for %d phases and overcounts for\n"
           "  the %d banded ones (k-slices counted as tiles, spec §2.2).\n",
           total, kPhaseCount, agree, kPhaseCount - agree);
  o += "  C sources: 0 = %r11547; D(p-k) = that phase's D registers; 'f16(T + ..)' = built in the previous\n"
       "  epilogue from a 160-column table (T1 at 221504, T3 at 232448) and a residual (facts C6, C10).\n\n";
}

void print_map(std::string& o) {
  const auto regions = weight_regions();
  auto find = [&](Region::Role role, int index) -> const Region& {
    for (const Region& r : regions)
      if (r.role == role && r.index == index) return r;
    return regions.front();
  };
  auto rt = [](const Region& r) { return fmt("[%u, %u)", r.begin, r.end); };
  o += fmt("Weight image map (facts E4): %zu bytes, %zu regions, offsets absolute in W\n", kWeightImageBytes,
           regions.size());
  o += fmt("  %-18s %-6s %s\n", rt(find(Region::Role::g1, -1)).c_str(), "g1", "f16 x160, prologue norm gain");
  o += "  head slots (27648 bytes each, slot z = 27648*z; read by warp z in phases 1..11, Wo_h by phase 13+h)\n";
  o += fmt("  %4s %-8s %-18s %-18s %-20s %s\n", "head", "slot", "Wq e4m3 5x1024", "Wv e4m3 5x1024",
           "score_bias f16 64x96", "Wo e4m3 32x160");
  for (int h = 0; h < 8; ++h)
    o += fmt("  %4d %-8u %-18s %-18s %-20s %s\n", h, kHeadSlotBytes * h, rt(find(Region::Role::wq, h)).c_str(),
             rt(find(Region::Role::wv, h)).c_str(), rt(find(Region::Role::score_bias, h)).c_str(),
             rt(find(Region::Role::wo, h)).c_str());
  o += fmt("  %-18s %-6s %s\n", rt(find(Region::Role::t1, -1)).c_str(), "T1", "f16 x160, phase 13's C table (\"bo\")");
  o += fmt("  %-18s %-6s %s\n", rt(find(Region::Role::g2, -1)).c_str(), "g2", "f16 x160, E20 norm gain");
  o += fmt("  MLP chunks (stride %u = W1 5120 + b1 64 + W2 5120; T3 sits between chunks 0 and 1)\n", kMlpChunkStride);
  o += fmt("  %5s %-18s %-18s %-18s %s\n", "chunk", "W1 e4m3 160x32", "b1 f16 x32", "W2 e4m3 32x160", "phases");
  for (int c = 0; c < 20; ++c) {
    o += fmt("  %5d %-18s %-18s %-18s %d, %d\n", c, rt(find(Region::Role::w1, c)).c_str(),
             rt(find(Region::Role::b1, c)).c_str(), rt(find(Region::Role::w2, c)).c_str(), 21 + 2 * c, 22 + 2 * c);
    if (c == 0)
      o += fmt("  %5s %-18s %s\n", "", rt(find(Region::Role::t3, -1)).c_str(), "T3 f16 x160, phase 22's C table (\"b2\")");
  }
  o += fmt("  %-18s %-6s %s\n", rt(find(Region::Role::w61, -1)).c_str(), "W61", "e4m3 160x16 (5 tiles), phase 61's B");
  o += fmt("  %-18s %-6s %s\n\n", rt(find(Region::Role::b61, -1)).c_str(), "b61", "f16 x16 (2 records), phase 61's C");
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
  o += fmt("  %-15s %-4s %7s %7s %6s %5s %4s %4s %11s %11s %11s\n", "region", "type", "count", "zero", "subn", "sat",
           "nan", "inf", "min", "max", "mean|x|");
  std::uint64_t tot[2][6] = {};
  for (const RegionStats& s : stats) {
    const bool f16 = s.region.type == Region::Type::f16;
    o += fmt("  %-15s %-4s %7llu %7llu %6llu %5llu %4llu %4llu %11s %11s %11s\n", s.region.name.c_str(),
             f16 ? "f16" : "e4m3", static_cast<unsigned long long>(s.count), static_cast<unsigned long long>(s.zero),
             static_cast<unsigned long long>(s.subnormal), static_cast<unsigned long long>(s.saturated),
             static_cast<unsigned long long>(s.nan), static_cast<unsigned long long>(s.inf), num(s.min).c_str(),
             num(s.max).c_str(), num(s.mean_abs).c_str());
    std::uint64_t* t = tot[f16 ? 1 : 0];
    t[0] += s.count;
    t[1] += s.zero;
    t[2] += s.subnormal;
    t[3] += s.saturated;
    t[4] += s.nan;
    t[5] += s.inf;
  }
  for (int f = 0; f < 2; ++f)
    o += fmt("  %-15s %-4s %7llu %7llu %6llu %5llu %4llu %4llu\n", "total", f ? "f16" : "e4m3",
             static_cast<unsigned long long>(tot[f][0]), static_cast<unsigned long long>(tot[f][1]),
             static_cast<unsigned long long>(tot[f][2]), static_cast<unsigned long long>(tot[f][3]),
             static_cast<unsigned long long>(tot[f][4]), static_cast<unsigned long long>(tot[f][5]));
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

std::string to_json(const std::string& source, const WeightImage& w, const std::vector<RegionStats>& stats) {
  std::string o = "{\n";
  o += "  \"source\": " + json_string(source) + ",\n";
  o += fmt("  \"bytes\": %zu,\n  \"fnv1a64\": \"%016llx\",\n", w.bytes().size(),
           static_cast<unsigned long long>(fnv1a64(w.bytes())));
  o += "  \"phases\": [\n";
  for (const Phase& p : phase_program()) {
    o += fmt("    {\"number\": %d, \"kind\": %s, \"statements\": %s, \"tool\": [%d, %d, %d], \"real\": [%d, %d, %d], "
             "\"mma\": %d, \"tiles\": [%d, %d, %d], \"band\": %s, \"weight\": [%u, %u], \"bias\": [%u, %u], "
             "\"relative_to_slot\": %s, \"epi\": %d, \"warps\": %d, \"head\": %d, \"chunk\": %d, "
             "\"a\": %s, \"b\": %s, \"c\": %s, \"c_chain_from\": %d}%s\n",
             p.number, json_string(to_string(p.kind)).c_str(), json_string(p.stmt_range).c_str(), p.tool.m, p.tool.n,
             p.tool.k, p.real.m, p.real.n, p.real.k, p.mma, p.m_tiles, p.n_tiles, p.k_steps,
             p.band ? "true" : "false", p.weight_begin, p.weight_end, p.bias_begin, p.bias_end,
             p.relative_to_slot ? "true" : "false", p.epilogue_statements, p.warps, p.head, p.chunk,
             json_string(to_string(p.a)).c_str(), json_string(to_string(p.b)).c_str(),
             json_string(to_string(p.c)).c_str(), p.c_chain_from, p.number == kPhaseCount ? "" : ",");
  }
  o += "  ],\n  \"regions\": [\n";
  for (std::size_t i = 0; i < stats.size(); ++i) {
    const RegionStats& s = stats[i];
    const bool f16 = s.region.type == Region::Type::f16;
    o += fmt("    {\"name\": %s, \"begin\": %u, \"end\": %u, \"type\": \"%s\", \"count\": %llu, \"zero\": %llu, "
             "\"subnormal\": %llu, \"saturated\": %llu, \"nan\": %llu, \"inf\": %llu, \"min\": %s, \"max\": %s, "
             "\"mean_abs\": %s",
             json_string(s.region.name).c_str(), s.region.begin, s.region.end, f16 ? "f16" : "e4m3",
             static_cast<unsigned long long>(s.count), static_cast<unsigned long long>(s.zero),
             static_cast<unsigned long long>(s.subnormal), static_cast<unsigned long long>(s.saturated),
             static_cast<unsigned long long>(s.nan), static_cast<unsigned long long>(s.inf), json_number(s.min).c_str(),
             json_number(s.max).c_str(), json_number(s.mean_abs).c_str());
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
               "usage: enc5 inspect [FILE] [--json]\n"
               "  Prints the phase table (spec §2.1 tool view and §2.2 corrected shapes), the weight-image\n"
               "  map and per-region statistics of FILE (a %zu-byte weight image), or of the embedded\n"
               "  default image (synthetic, seed 1) when no FILE is given. --json: the same as JSON.\n",
               kWeightImageBytes);
}

}  // namespace

int cmd_inspect(const Args& args) {
  std::string file;
  bool json = false;
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      usage(stdout);
      return 0;
    } else if (a == "--json") {
      json = true;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "enc5 inspect: unknown option '%s'\n", a.c_str());
      usage(stderr);
      return 2;
    } else if (file.empty()) {
      file = a;
    } else {
      std::fprintf(stderr, "enc5 inspect: more than one FILE ('%s', '%s')\n", file.c_str(), a.c_str());
      return 2;
    }
  }
  WeightImage loaded;
  if (!file.empty()) loaded = load_weight_image(file);  // throws InputError: main prints it, exit 1
  const WeightImage& w = file.empty() ? default_weights() : loaded;
  const std::string source = file.empty() ? "embedded default image (synthetic, seed 1)" : file;
  const auto stats = region_statistics(w);
  std::string out;
  if (json) {
    out = to_json(source, w, stats);
  } else {
    out = fmt("enc5 inspect: %s, %zu bytes, fnv1a64 %016llx\n\n", source.c_str(), w.bytes().size(),
              static_cast<unsigned long long>(fnv1a64(w.bytes())));
    print_phases(out);
    print_map(out);
    print_stats(out, stats);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace enc5::cli
