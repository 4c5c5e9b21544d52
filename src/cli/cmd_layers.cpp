// rrswin layers [--json]: the network as its layer rows and edges say (model/layer_spec.hpp,
// model/network.hpp): each layer in network order with its shape, its launch, its input and output
// edges, and whether it runs yet.
#include <cstdio>
#include <string>

#include "cli/commands.hpp"
#include "model/layer_program.hpp"
#include "model/network.hpp"

namespace rrswin::cli {
namespace {

// The edges into (inputs) or out of (outputs) a layer, e.g. "+8 <- enc4.+56".
std::string edges_of(LayerId l, bool inputs) {
  std::string t;
  for (const NetworkEdge& e : kNetworkEdges) {
    if ((inputs ? e.to : e.from) != l) continue;
    const LayerId other = inputs ? e.from : e.to;
    const std::string_view name = to_string(other);
    char b[96];
    std::snprintf(b, sizeof b, "%s+%d %s %.*s.+%d", t.empty() ? "" : ", ", inputs ? e.to_param : e.from_param, inputs ? "<-" : "->",
                  static_cast<int>(name.size()), name.data(), inputs ? e.from_param : e.to_param);
    t += b;
  }
  return t.empty() ? std::string(inputs ? "network inputs only" : "network outputs") : t;
}

// The levels' grids and d4r's measured scratch block (model/network.hpp), each placement with its
// size from the rows, the buffer's producer, consumers and lifetime, and the layout check's verdict.
std::string scratch_block_text() {
  std::string o = "\nlevels at a 1280x720 render (network-extents: level 0 rounded up to a multiple of 32):";
  char line[512];
  for (int l = 0; l < 6; ++l) {
    const TokenGrid g = level_grid(1280, 720, l);
    std::snprintf(line, sizeof line, "%s %d: %dx%d", l ? "," : "", l, g.ex, g.ey);
    o += line;
  }
  std::snprintf(line, sizeof line,
                "\n\nscratch block: %llu bytes shared by the eleven layers (d4r's measured placements; sizes from the rows)\n"
                "  %-9s %-9s %-10s %-22s %-11s %s\n",
                static_cast<unsigned long long>(kScratchBlockBytes), "offset", "bytes", "parameter", "buffer", "live", "source");
  o += line;
  for (const ScratchPlacement& p : kScratchPlacements) {
    const std::optional<LayerBuffer> b = producing_buffer(p.buffer);
    const std::optional<std::uint64_t> bytes = buffer_bytes(p.buffer, 1280, 720);
    std::string buffer = "?", live = "?", size = bytes ? std::to_string(*bytes) : "?";
    if (b) {
      buffer = std::string(to_string(b->layer)) + " +" + std::to_string(b->param) + " output";
      const Lifetime t = buffer_lifetime(*b);
      live = std::string(to_string(layer_ids()[static_cast<std::size_t>(t.first)])) + ".." +
             std::string(to_string(layer_ids()[static_cast<std::size_t>(t.last)]));
    }
    std::snprintf(line, sizeof line, "  %-9llu %-9s %-10s %-22s %-11s %s\n", static_cast<unsigned long long>(p.offset), size.c_str(),
                  (std::string(to_string(p.buffer.layer)) + " +" + std::to_string(p.buffer.param)).c_str(), buffer.c_str(), live.c_str(),
                  p.source);
    o += line;
  }
  const std::vector<std::string> v = check_scratch_layout();
  o += v.empty() ? "  consistent: every placement inside the block, each edge at one offset, no two live buffers overlapping\n"
                 : "  INCONSISTENT:\n";
  for (const std::string& s : v) o += "    " + s + "\n";
  return o;
}

std::string json_str(std::string_view s) {
  std::string t(1, '"');
  t.append(s);
  t.push_back('"');
  return t;
}

}  // namespace

int cmd_layers(const Args& args) {
  bool json = false;
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      std::printf(
          "usage: rrswin layers [--json]\n"
          "  The eleven Swin layers of the network in network order (enc0..enc5, dec4..dec0): channels C,\n"
          "  heads and how they run, the token grid at a 1280x720 render, phases and mma (d4r's docs),\n"
          "  the weight image's size, the front / merge / final epilogue, the launch, the data-flow edges\n"
          "  (docs/readings.md network-order) and whether rrswin runs the layer yet; then the levels' token grids\n"
          "  and d4r's measured placements in the scratch block the layers share, checked against the rows\n"
          "  (docs/network.md \"The scratch block\").\n");
      return kExitOk;
    }
    if (a == "--json") {
      json = true;
      continue;
    }
    std::fprintf(stderr, "rrswin layers: unknown argument '%s' (rrswin layers --help)\n", a.c_str());
    return kExitError;
  }
  std::string o;
  if (json) o += "[\n";
  int i = 0;
  for (LayerId id : layer_ids()) {
    const LayerSpec& s = layer_spec(id);
    const LayerProgram& p = layer_program(id);
    const LaunchAbi& a = s.abi;
    char line[1024];
    if (json) {
      std::snprintf(line, sizeof line,
                    "  {\"layer\": %s, \"corpus\": %d, \"channels\": %d, \"heads\": %d, \"head_form\": %s, \"rows_per_warp\": %d, "
                    "\"ex\": %d, \"ey\": %d, \"phases\": %zu, \"mma\": %d, \"image_bytes\": %u, \"front\": %s, \"merge\": %s, "
                    "\"merge_out\": %d, \"final\": %s, \"grid\": [%d, %d, %d], \"block\": [%d, %d, %d], \"shared_bytes\": %d, "
                    "\"param_block_bytes\": %d, \"runnable\": %s}%s\n",
                    json_str(s.name).c_str(), corpus_number(id), s.channels, s.heads, json_str(to_string(s.head_form)).c_str(),
                    s.rows_per_warp, a.ex, a.ey, p.phases.size(), p.mma_total, weight_map(s).image_bytes(),
                    json_str(to_string(s.front.kind)).c_str(), json_str(to_string(s.merge_kind)).c_str(), s.merge_out,
                    json_str(to_string(s.final_epilogue)).c_str(), a.grid[0], a.grid[1], a.grid[2], a.block[0], a.block[1], a.block[2],
                    a.shared_bytes, a.param_block_bytes, s.runnable ? "true" : "false", ++i == kLayerCount ? "" : ",");
      o += line;
      continue;
    }
    std::snprintf(line, sizeof line,
                  "%-5s corpus %04d  C %3d, %d heads (%s), %2d rows per warp after the heads, %4d x %-3d tokens  %2zu phases %4d mma  "
                  "image %6u bytes  %s\n",
                  std::string(s.name).c_str(), corpus_number(id), s.channels, s.heads,
                  s.serial_heads() ? "serial in one warp" : "a warp each", s.rows_per_warp, a.ex, a.ey, p.phases.size(), p.mma_total,
                  weight_map(s).image_bytes(), s.runnable ? "runs" : "not yet run (tables only)");
    o += line;
    char merge_to[32] = "";
    if (s.merge()) std::snprintf(merge_to, sizeof merge_to, " to %d", s.merge_out);
    std::snprintf(line, sizeof line,
                  "      front %s, merge %s%s, final %s; grid (%d,%d,%d) x block (%d,%d,%d), %d bytes shared, %d-byte params\n",
                  std::string(to_string(s.front.kind)).c_str(), std::string(to_string(s.merge_kind)).c_str(), merge_to,
                  std::string(to_string(s.final_epilogue)).c_str(), a.grid[0], a.grid[1], a.grid[2], a.block[0], a.block[1], a.block[2],
                  a.shared_bytes, a.param_block_bytes);
    o += line;
    o += "      parameters: ";
    o += launch_parameters_text(a);
    o += "\n      in:  ";
    o += edges_of(id, true);
    o += "\n      out: ";
    o += edges_of(id, false);
    o += "\n";
  }
  if (json) {
    o += "]\n";
  } else {
    o += scratch_block_text();
  }
  std::fputs(o.c_str(), stdout);
  return kExitOk;
}

}  // namespace rrswin::cli
