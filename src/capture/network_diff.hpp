// Comparing two runs of the whole network layer by layer (docs/network.md "Comparing runs and profiles"):
// each side is, per layer, its outputs as `rrswin run --network` writes them into DIR/<layer>/ —
// read from such a folder, or given by a caller that holds them in memory (Python's run_network).
// `rrswin diff --network` and Python's rrswin.diff_network report the same comparison.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "capture/diff.hpp"
#include "model/layer_spec.hpp"

namespace rrswin::capture {

// The outputs a layer's folder may hold, in the order they are compared and reported.
enum class NetworkOutputKind {
  raw,      // arena.bin (+48), merged.bin (+56), dec0's surface144.bin (+144): byte for byte
  surface,  // surface112/120/128.exr: RGBA16F texels, per value in f16 ulp
};
struct NetworkOutputName {
  const char* name;  // "arena", "merged", "surface112", ... (Python's run_network keys)
  const char* file;  // its file in DIR/<layer>/
  NetworkOutputKind kind;
};
const std::vector<NetworkOutputName>& network_outputs();
// The entry of network_outputs() named `name`, or nullptr.
const NetworkOutputName* find_network_output(const std::string& name);

struct NetworkOutput {
  std::string name;                 // network_outputs()'s name
  std::vector<std::uint8_t> bytes;  // surfaces: width x height texels of 4 little-endian f16, rows of 8·width bytes
  int width = 0, height = 0;        // surfaces' texels (0 for raw outputs)
};

struct NetworkSideLayer {
  LayerId id{};
  std::vector<NetworkOutput> outputs;
};

struct NetworkSide {
  std::string source;   // the folder (or the caller's name of the side): errors name it
  bool folder = false;  // outputs are named source/<layer>/<file>, else source['<layer>']['<name>']
  std::vector<NetworkSideLayer> layers;
  // How an error or a FileDiff names one output of this side.
  std::string where(LayerId id, const NetworkOutputName& o) const;
};

// The side a `rrswin run --network` folder holds: every layer folder DIR/<layer>/ there is (a
// folder, or a link to one, as the user may have arranged them), and in it each output file that
// exists. A file that is a symbolic link is refused, naming it (io/links.hpp): the comparison never
// reads bytes from outside the folders it was given. A surface .exr must be RGBA HALF.
NetworkSide read_network_folder(const std::string& dir);

struct NetworkOutputDiff {
  std::string name;  // network_outputs()'s
  FileDiff diff;     // key "<layer>/<file>", file_a and file_b as the sides name them
  // Surfaces: the f16 values (texel channels) differing.
  std::uint64_t values_differing = 0;
  // Raw outputs: the 8x8 token block (bx, by) of the first differing byte, as `rrswin diff
  // --network` prints it; none when identical or when the size does not fit the layer's grid.
  std::optional<std::pair<std::int64_t, std::int64_t>> first_block;
};

struct NetworkLayerDiff {
  LayerId id{};
  bool in_a = false, in_b = false;
  bool identical = true;  // every output identical (and, with strict, the layer on both sides)
  std::vector<NetworkOutputDiff> outputs;
};

struct NetworkDiff {
  std::vector<NetworkLayerDiff> layers;  // network order: every layer on either side
  std::optional<LayerId> first_differing;
  int differing_layers = 0;
  bool identical() const { return !first_differing; }
};

// Compares A and B layer by layer in network order. A layer on one side only differs only when
// `strict`. Errors (InputError naming the output): an output present on one side of a layer only,
// surfaces of different shapes, a surface whose bytes are not width·height·8, and no layer that
// has outputs on both sides.
NetworkDiff diff_network(const NetworkSide& a, const NetworkSide& b, bool strict = false);

}  // namespace rrswin::capture
