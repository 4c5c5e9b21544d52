// The network run's inputs as files (cli/network_inputs.hpp).
#include "cli/network_inputs.hpp"

#include <cstdio>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "cli/cli_options.hpp"
#include "io/exr.hpp"
#include "io/files.hpp"
#include "io/links.hpp"
#include "io/weight_file.hpp"
#include "model/layer_program.hpp"
#include "model/network.hpp"

namespace rrswin::cli {
namespace {

namespace fs = std::filesystem;

std::string render_text(int w, int h) { return "the render " + std::to_string(w) + " x " + std::to_string(h); }

bool is_decoder(LayerId id) { return layer_spec(id).front.kind == FrontKind::patch_expand; }

// The sizes of a layer's textures at the render (make_network_demo's): +88 at the grid (a decoder's
// at half of it), +96 and +104 at the grid.
std::pair<int, int> texture_size(LayerId id, int param, int render_w, int render_h) {
  const TokenGrid g = level_grid(render_w, render_h, network_level(id));
  if (param == 88 && is_decoder(id)) return {g.ex >> 1, g.ey >> 1};
  return {g.ex, g.ey};
}

std::string texture_name(int param) { return "texture" + std::string(param < 100 ? "0" : "") + std::to_string(param) + ".exr"; }

// A file of the inputs folder: no component below `dir` may be a link, nor the file itself.
std::vector<std::uint8_t> read_input(const std::string& dir, const std::string& rel, const std::string& what) {
  refuse_links_below(dir, rel);
  const std::string path = (fs::path(dir) / rel).string();
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) throw InputError(path, 0, what, "no such file");
  return read_file_no_link(path);
}

Texture read_texture(const std::string& dir, LayerId id, int param, int render_w, int render_h) {
  const std::string rel = std::string(to_string(id)) + "/" + texture_name(param);
  const auto [w, h] = texture_size(id, param, render_w, render_h);
  const std::string want = std::to_string(w) + " x " + std::to_string(h) + " texels (" + std::string(to_string(id)) + "'s +" +
                           std::to_string(param) + " at " + render_text(render_w, render_h) + ")";
  const std::string path = (fs::path(dir) / rel).string();
  RgbaHalfImage img = decode_exr_rgba_half(read_input(dir, rel, "an RGBA HALF OpenEXR file of " + want), path);
  if (img.width != w || img.height != h)
    throw InputError(path, 0, want, std::to_string(img.width) + " x " + std::to_string(img.height) + " texels");
  Texture t;
  t.width = img.width;
  t.height = img.height;
  t.mode = AddressMode::clamp;
  t.rgba = std::move(img.rgba);
  return t;
}

std::array<float, 2> read_scale(const std::string& dir, LayerId id) {
  const std::string rel = std::string(to_string(id)) + "/scale.txt";
  const std::string path = (fs::path(dir) / rel).string();
  const std::vector<std::uint8_t> b = read_input(dir, rel, "one line SX,SY (" + std::string(to_string(id)) + "'s +136 scale)");
  std::string s(b.begin(), b.end());
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  try {
    const auto [x, y] = parse_scale("scale", s);
    return {x, y};
  } catch (const UsageError&) {
    throw InputError(path, 0, "one line SX,SY, two finite numbers (" + std::string(to_string(id)) + "'s +136 scale)", "'" + s + "'");
  }
}

constexpr const char* kRenderWhat = "one line W,H: the render the inputs are of (two integers 32..4096, as --render)";

}  // namespace

std::optional<std::pair<int, int>> read_network_render(const std::string& dir) {
  const std::string path = (fs::path(dir) / "render.txt").string();
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || !fs::exists(fs::symlink_status(path, ec))) return std::nullopt;  // a link counts: refused below
  const std::vector<std::uint8_t> b = read_input(dir, "render.txt", kRenderWhat);
  std::string s(b.begin(), b.end());
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  try {
    const auto [w, h] = parse_pair("render", s, 32, 4096);
    return std::pair<int, int>{static_cast<int>(w), static_cast<int>(h)};
  } catch (const UsageError&) {
    throw InputError(path, 0, kRenderWhat, "'" + s.substr(0, 64) + "'");
  }
}

namespace {

std::size_t image_bytes(LayerId id) { return id == LayerId::enc5 ? kWeightImageBytes : weight_map(layer_spec(id)).image_bytes(); }

WeightImage load_layer_weights(const std::string& path, LayerId id) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw InputError(path, 0,
                     "the " + std::string(to_string(id)) + " weight image, " + std::to_string(image_bytes(id)) +
                         " bytes (rrswin make-weights --layer " + std::string(to_string(id)) + " writes one)",
                     "no such file");
  return load_weight_image(path, id);  // checks the size: InputError naming the file, expected, found
}

}  // namespace

std::map<LayerId, WeightImage> load_network_weights(const std::string& path) {
  std::map<LayerId, WeightImage> out;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path, 0, "a folder of <layer>.bin weight images or a manifest", "no such file or folder");
  if (fs::is_directory(path, ec)) {
    for (LayerId id : layer_ids())
      if (layer_spec(id).runnable)
        out.emplace(id, load_layer_weights((fs::path(path) / (std::string(to_string(id)) + ".bin")).string(), id));
    return out;
  }
  // A manifest: "<layer> <path>" a line.
  const std::vector<std::uint8_t> b = read_file_bytes(path);
  const std::string text(b.begin(), b.end());
  const fs::path base = fs::path(path).parent_path();
  std::map<LayerId, std::string> files;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    const std::size_t offset = at;
    at = end + 1;
    if (const std::size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos) continue;
    const std::size_t sp = line.find_first_of(" \t", i);
    const std::size_t j = sp == std::string::npos ? std::string::npos : line.find_first_not_of(" \t", sp);
    LayerId id{};
    if (j == std::string::npos || !parse_layer(line.substr(i, sp - i), &id))
      throw InputError(path, offset, "a line '<layer> <path>' (layers " + std::string(layer_names()) + ")", "'" + line + "'");
    if (!layer_spec(id).runnable)
      throw InputError(path, offset, "a runnable layer (" + std::string(runnable_layer_names()) + ")", "'" + line + "'");
    if (files.count(id)) throw InputError(path, offset, "one line for " + std::string(to_string(id)), "a second one: '" + line + "'");
    const fs::path p(line.substr(j));
    files[id] = (p.is_absolute() ? p : base / p).string();
  }
  for (LayerId id : layer_ids())
    if (layer_spec(id).runnable && !files.count(id))
      throw InputError(path, text.size(), "a line '" + std::string(to_string(id)) + " <path>' (every runnable layer's image)", "none");
  for (const auto& [id, file] : files) out.emplace(id, load_layer_weights(file, id));
  return out;
}

std::unique_ptr<NetworkDemo> load_network_inputs(const std::string& dir, int render_w, int render_h) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(dir, 0, "a folder of the network's inputs (input_tensor.bin, <layer>/texture088.exr, ...)", "no such folder");
  if (const auto r = read_network_render(dir); r && (r->first != render_w || r->second != render_h))
    throw InputError((fs::path(dir) / "render.txt").string(), 0, render_text(render_w, render_h) + ", the run's (--render)",
                     render_text(r->first, r->second));
  auto d = std::make_unique<NetworkDemo>();
  for (LayerId id : layer_ids()) {
    const LayerSpec& s = layer_spec(id);
    if (!s.runnable) continue;
    std::array<Texture, 3>& t = d->textures[id];
    NetworkLayerInputs& li = d->layers[id];
    t[0] = read_texture(dir, id, 88, render_w, render_h);
    li.texture = &t[0];
    if (s.abi.input < 0) {
      const TokenGrid g = level_grid(render_w, render_h, network_level(id));
      const std::uint64_t want =
          static_cast<std::uint64_t>(g.ex) * static_cast<std::uint64_t>(g.ey) * 32u * static_cast<std::uint64_t>(s.k_slices());
      const std::string what = std::to_string(want) + " bytes (" + std::string(s.name) +
                               "'s staged input tensor: " + std::to_string(s.k_slices()) + " plane of 32 e4m3 bytes a token at its grid " +
                               std::to_string(g.ex) + " x " + std::to_string(g.ey) + ", " + render_text(render_w, render_h) + ")";
      d->input_tensor = read_input(dir, "input_tensor.bin", what);
      if (d->input_tensor.size() != want)
        throw InputError((fs::path(dir) / "input_tensor.bin").string(), std::min<std::uint64_t>(d->input_tensor.size(), want), what,
                         std::to_string(d->input_tensor.size()) + " bytes");
      li.input_tensor = d->input_tensor;
    }
    if (is_decoder(id)) {
      t[1] = read_texture(dir, id, 96, render_w, render_h);
      t[2] = read_texture(dir, id, 104, render_w, render_h);
      li.texture96 = &t[1];
      li.texture104 = &t[2];
      li.scale = read_scale(dir, id);
    }
  }
  for (const LayerBuffer& b : network_external_buffers()) {
    const std::string rel = "external/" + std::string(to_string(b.layer)) + "." + std::to_string(b.param) + ".bin";
    const std::uint64_t want = buffer_bytes(b, render_w, render_h).value_or(0);
    const std::string what = std::to_string(want) + " bytes (" + std::string(to_string(b.layer)) + "'s +" + std::to_string(b.param) +
                             ", which no runnable layer produces, at " + render_text(render_w, render_h) + ")";
    std::vector<std::uint8_t> bytes = read_input(dir, rel, what);
    if (bytes.size() != want)
      throw InputError((fs::path(dir) / rel).string(), std::min<std::uint64_t>(bytes.size(), want), what,
                       std::to_string(bytes.size()) + " bytes");
    d->external[{b.layer, b.param}] = std::move(bytes);
  }
  return d;
}

void save_network_inputs(OutputSet& set, const std::string& prefix, const NetworkDemo& in, int render_w, int render_h) {
  set.write_text(prefix + "render.txt", std::to_string(render_w) + "," + std::to_string(render_h) + "\n");
  for (const auto& [id, li] : in.layers) {
    const std::string dir = prefix + std::string(to_string(id)) + "/";
    auto texture = [&](int param, const Texture* t) {
      if (t) set.write(dir + texture_name(param), encode_exr_rgba_half(t->width, t->height, t->rgba.data()));
    };
    texture(88, li.texture);
    if (!li.input_tensor.empty()) set.write(prefix + "input_tensor.bin", li.input_tensor);
    if (is_decoder(id)) {
      texture(96, li.texture96);
      texture(104, li.texture104);
      char line[96];
      std::snprintf(line, sizeof line, "%.9g,%.9g\n", static_cast<double>(li.scale[0]), static_cast<double>(li.scale[1]));
      set.write_text(dir + "scale.txt", line);
    }
  }
  for (const auto& [b, bytes] : in.external)
    set.write(prefix + "external/" + std::string(to_string(b.first)) + "." + std::to_string(b.second) + ".bin", bytes);
}

}  // namespace rrswin::cli
