// Replay captures of the merge layers (bridge/layer_capture.hpp).
#include "bridge/layer_capture.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "base/errors.hpp"
#include "base/little_endian.hpp"
#include "engine/layer_engine.hpp"
#include "engine/simd.hpp"
#include "layout/arena.hpp"
#include "model/launch_abi.hpp"
#include "model/layer_program.hpp"

namespace rrswin::ptx {
namespace {

constexpr auto kMinExtent = static_cast<std::uint32_t>(kLayerExtentMin), kMaxExtent = static_cast<std::uint32_t>(kLayerExtentMax),
               kMaxOrigin = static_cast<std::uint32_t>(kLayerOriginMax);

std::string args_file(const KernelCapture& c) { return c.source + "/args.bin"; }
std::string manifest_file(const KernelCapture& c) { return c.source + "/manifest.txt"; }

// The pointer at parameter offset `off`, holding at least `need` bytes from where it points.
std::size_t find_pointer(const KernelCapture& c, int off, std::size_t need, const std::string& what) {
  for (std::size_t i = 0; i < c.pointers.size(); ++i) {
    if (c.pointers[i].offset != static_cast<std::uint32_t>(off)) continue;
    const KernelCapture::Alloc& a = c.allocs[c.pointers[i].alloc];
    const std::uint64_t have = a.bytes.size() - c.pointers[i].delta;  // delta <= size: load_kernel_capture checks it
    if (have < need)
      throw InputError(a.file, a.bytes.size(),
                       std::to_string(need) + " bytes from the pointer at +" + std::to_string(off) + " (" + what + ")",
                       std::to_string(have) + " bytes");
    return i;
  }
  throw InputError(manifest_file(c), 0, "a 'pointer " + std::to_string(off) + " …' line (" + what + ")", "none");
}

std::size_t find_image(const KernelCapture& c, int off, bool texture, int width, int height, bool exact, const std::string& what,
                       int fmt = capture::kFmtHalf) {
  for (std::size_t i = 0; i < c.images.size(); ++i) {
    const KernelCapture::Image& im = c.images[i];
    if (im.offset != static_cast<std::uint32_t>(off)) continue;
    if (im.texture != texture)
      throw InputError(manifest_file(c), 0, std::string("a ") + (texture ? "texture" : "surface") + " at +" + std::to_string(off),
                       std::string("a ") + (texture ? "surface" : "texture"));
    if (im.image.fmt != fmt)
      throw InputError(im.image.file, 0,
                       what + (fmt == capture::kFmtHalf ? " in RGBA16F (fmt " : " in RGBA32F (fmt ") + std::to_string(fmt) + ")",
                       "fmt " + std::to_string(im.image.fmt));
    const bool ok = exact ? im.image.width == width && im.image.height == height : im.image.width >= width && im.image.height >= height;
    if (!ok)
      throw InputError(im.image.file, 0,
                       what + (exact ? " of exactly " : " covering ") + std::to_string(width) + " x " + std::to_string(height) + " texels",
                       std::to_string(im.image.width) + " x " + std::to_string(im.image.height));
    return i;
  }
  throw InputError(manifest_file(c), 0,
                   std::string("a '") + (texture ? "texture " : "surface ") + std::to_string(off) + " …' line (" + what + ")", "none");
}

// The windows the model reads and writes must not overlap one another: a launch that aliases
// them has results that depend on the order of the blocks, which the model does not have.
struct Window {
  std::size_t alloc;
  std::uint64_t begin, end;
  int off;
};
void check_disjoint(const KernelCapture& c, const std::vector<Window>& w) {
  for (std::size_t i = 0; i < w.size(); ++i)
    for (std::size_t j = i + 1; j < w.size(); ++j)
      if (w[i].alloc == w[j].alloc && w[i].begin < w[j].end && w[j].begin < w[i].end)
        throw InputError(args_file(c), static_cast<std::uint64_t>(w[j].off),
                         "arguments +" + std::to_string(w[i].off) + " and +" + std::to_string(w[j].off) + " in disjoint memory",
                         "overlapping windows of alloc " + std::to_string(c.allocs[w[i].alloc].id));
}

void check_grid(const KernelCapture& c, const LayerLaunch& L) {
  const abi::GridExtent cover = abi::covering_grid(L.ex, L.ey, L.ox, L.oy);
  const auto gx = static_cast<std::uint64_t>(cover.x), gy = static_cast<std::uint64_t>(cover.y);
  const auto fits = [](std::uint64_t g, std::uint64_t cover) { return g >= cover && g <= 2 * cover + 8; };
  if (c.grid.z != 1 || !fits(c.grid.x, gx) || !fits(c.grid.y, gy))
    throw InputError(manifest_file(c), 0,
                     "a grid of " + std::to_string(gx) + ".." + std::to_string(2 * gx + 8) + " x " + std::to_string(gy) + ".." +
                         std::to_string(2 * gy + 8) + " x 1 blocks (covering the " + std::to_string(L.ex) + " x " + std::to_string(L.ey) +
                         " frame at origin offsets " + std::to_string(L.ox) + ", " + std::to_string(L.oy) + ")",
                     std::to_string(c.grid.x) + " x " + std::to_string(c.grid.y) + " x " + std::to_string(c.grid.z));
}

// The grid covering the frame (model/launch_abi.hpp), as a launch's dimensions.
Dim3 grid_of(int ex, int ey, int ox, int oy) {
  const abi::GridExtent g = abi::covering_grid(static_cast<std::uint32_t>(ex), static_cast<std::uint32_t>(ey),
                                               static_cast<std::uint32_t>(ox), static_cast<std::uint32_t>(oy));
  return {static_cast<std::uint32_t>(g.x), static_cast<std::uint32_t>(g.y), 1};
}

// enc0 reads no +8 and no +88 in the original: its prologue builds the staged input tensor and
// input_noise from the network's input (+304), which no source decodes (model/embedding_front.cpp),
// so its captures hold rrswin's stand-ins instead (LaunchAbi::standin_input / standin_texture,
// docs/readings.md §10 "The CUDA port"). A layer with neither its own input nor a stand-in has no
// capture the model can start from.
void require_capturable(const LayerSpec& s, const char* who) {
  if (capture_input(s.abi) < 0 || capture_texture(s.abi) < 0)
    throw std::invalid_argument(std::string(who) + ": " + std::string(s.name) +
                                "'s captures are not modelled: it has neither an input nor rrswin's stand-ins for one");
}

// What a stand-in argument is and why a capture must hold it: named in every refusal of a capture
// without it (a capture of the original kernel, which holds +304 instead).
std::string standin_what(const LayerSpec& s, bool input) {
  return std::string(input ? "the staged input tensor" : "the texture standing for input_noise") + ", rrswin's stand-in: the original " +
         std::string(s.name) + " builds it in its prologue from the network input +" + std::to_string(s.abi.network_input) +
         ", which no source decodes (docs/readings.md §10), so a capture of the original kernel cannot be replayed";
}

}  // namespace

LayerLaunch read_layer_launch(const KernelCapture& c, LayerId layer) {
  const LayerSpec& s = layer_spec(layer);
  require_runnable(layer);
  require_capturable(s, "read_layer_launch");
  const bool decoder = s.front.kind == FrontKind::patch_expand;
  if (!s.merge() && !decoder && layer != LayerId::enc5)
    throw std::invalid_argument("read_layer_launch: " + std::string(s.name) + " has no launch ABI read here");
  const LaunchAbi& abi = s.abi;
  if (c.args.size() != static_cast<std::size_t>(abi.param_block_bytes))
    throw InputError(args_file(c), std::min<std::size_t>(c.args.size(), abi.param_block_bytes),
                     std::to_string(abi.param_block_bytes) + " bytes (" + std::string(s.name) + "'s parameter block)",
                     std::to_string(c.args.size()) + " bytes");
  LayerLaunch L;
  L.layer = layer;
  L.ex = static_cast<std::uint32_t>(load_le(&c.args[abi.extents], 4));
  L.ey = static_cast<std::uint32_t>(load_le(&c.args[abi.extents + 4], 4));
  L.ox = static_cast<std::uint16_t>(load_le(&c.args[abi.origin], 2));
  L.oy = static_cast<std::uint16_t>(load_le(&c.args[abi.origin + 2], 2));
  for (int i = 0; i < 2; ++i) {
    const std::uint32_t e = i ? L.ey : L.ex;
    if (e < kMinExtent || e > kMaxExtent)
      throw InputError(args_file(c), static_cast<std::uint64_t>(abi.extents + 4 * i),
                       std::string(i ? "ey" : "ex") + " in " + std::to_string(kMinExtent) + ".." + std::to_string(kMaxExtent),
                       std::to_string(e));
  }
  for (int i = 0; i < 2; ++i) {
    const std::uint32_t o = i ? L.oy : L.ox;
    if (o > kMaxOrigin)
      throw InputError(args_file(c), static_cast<std::uint64_t>(abi.origin + 2 * i),
                       std::string(i ? "oy" : "ox") + " in 0.." + std::to_string(kMaxOrigin) + " (the block origin offset)",
                       std::to_string(o));
  }
  const int ex = static_cast<int>(L.ex), ey = static_cast<int>(L.ey);
  const std::size_t arena = layout::PlaneArena{ex, ey, s.k_slices()}.total_bytes(),
                    half = layout::PlaneArena{ex >> 1, ey >> 1, s.merge_out / 32}.total_bytes();
  // A decoder's input is the lower level at half the extents, the expand's K/32 planes.
  const std::size_t input = decoder ? layout::PlaneArena{ex >> 1, ey >> 1, s.front.k / 32}.total_bytes() : arena;
  const std::size_t image = weight_map(s).image_bytes();
  // dec0's +48: E19's 8 e4m3 bytes a pixel (DOC-d0 §4.2), not a plane arena.
  const bool dec0 = s.final_epilogue == FinalEpilogueKind::dec0_output;
  const std::size_t output = dec0 ? static_cast<std::size_t>(ex) * static_cast<std::size_t>(ey) * 8 : arena;
  // enc0: its stand-ins, the staged input tensor (+8, one plane: `input` is its arena) and the texture
  // +88, checked as every layer's input and texture.
  const bool standins = has_standins(abi);
  L.input = find_pointer(c, capture_input(abi), input,
                         standins  ? standin_what(s, true)
                         : decoder ? "the half-resolution input plane arena"
                                   : "the input plane arena");
  L.weights = find_pointer(c, abi.weights, image, "the weight image");
  L.arena = find_pointer(c, abi.arena, output, dec0 ? "the e4m3 output (8 bytes a pixel)" : "the output plane arena");
  if (decoder)
    L.skip = find_pointer(c, abi.skip, arena, "the skip plane arena");
  else if (s.merge())
    L.merged = find_pointer(c, abi.merged_output, half, "the merged output");
  std::vector<Window> w;
  const auto window = [&](std::size_t p, std::size_t bytes) {
    const KernelCapture::Pointer& q = c.pointers[p];
    w.push_back({q.alloc, q.delta, q.delta + bytes, static_cast<int>(q.offset)});
  };
  window(L.input, input);
  window(L.weights, image);
  window(L.arena, output);
  if (decoder)
    window(L.skip, arena);
  else if (s.merge())
    window(L.merged, half);
  check_disjoint(c, w);
  if (decoder) {
    // +88 is sampled at f32 coordinates: any size; +96/+104 at the token grid; +136 two finite f32.
    L.texture = find_image(c, abi.texture, true, 1, 1, false, "the texture +88");
    L.texture96 = find_image(c, abi.int_textures[0], true, ex, ey, true, "the texture +96 (the token grid)");
    L.texture104 = find_image(c, abi.int_textures[1], true, ex, ey, true, "the texture +104 (the token grid)");
    for (int i = 0; i < 2; ++i) {
      const auto bits = static_cast<std::uint32_t>(load_le(&c.args[static_cast<std::size_t>(abi.scale + 4 * i)], 4));
      const float v = std::bit_cast<float>(bits);
      if (!std::isfinite(v))
        throw InputError(
            args_file(c), static_cast<std::uint64_t>(abi.scale + 4 * i), std::string(i ? "sy" : "sx") + " a finite f32 (+136, the scale)",
            "bits 0x" + [&] {
              char b[16];
              std::snprintf(b, sizeof b, "%08x", bits);
              return std::string(b);
            }());
      (i ? L.sy : L.sx) = v;
    }
  } else {
    L.texture = find_image(c, capture_texture(abi), true, ex, ey, true,
                           standins ? standin_what(s, false) + "; the token grid" : "the texture (the token grid)");
  }
  for (int i = 0; i < abi.surface_count; ++i) {
    const bool third = i == 2;        // DESC4 layer(): the third surface at the halved token grid
    const bool f32 = dec0 && i == 1;  // dec0's +144: four f32 a texel (sust.p.2d.v4.b32)
    L.surfaces.push_back(find_image(c, abi.surfaces[static_cast<std::size_t>(i)], false, third ? ex >> 1 : ex, third ? ey >> 1 : ey, false,
                                    "surface +" + std::to_string(abi.surfaces[static_cast<std::size_t>(i)]),
                                    f32 ? capture::kFmtFloat : capture::kFmtHalf));
  }
  check_grid(c, L);
  return L;
}

LayerLaunch replay_layer_capture(KernelCapture& c, LayerId layer, const LayerReplayOptions& o) {
  const LayerLaunch L = read_layer_launch(c, layer);
  const LayerSpec& s = layer_spec(layer);
  const auto at = [&](std::size_t p) -> std::pair<KernelCapture::Alloc*, std::uint64_t> {
    return {&c.allocs[c.pointers[p].alloc], c.pointers[p].delta};
  };
  const auto [wa, wd] = at(L.weights);
  const std::size_t image = weight_map(s).image_bytes();
  const WeightImage weights(std::vector<std::uint8_t>(wa->bytes.begin() + static_cast<std::ptrdiff_t>(wd),
                                                      wa->bytes.begin() + static_cast<std::ptrdiff_t>(wd + image)),
                            layer, wa->file);
  const Texture texture = capture::texture_of(c.images[L.texture].image);
  const auto [ia, id] = at(L.input);
  LayerFrame f;
  f.ex = static_cast<int>(L.ex);
  f.ey = static_cast<int>(L.ey);
  f.ox = L.ox;
  f.oy = L.oy;
  const bool decoder = s.front.kind == FrontKind::patch_expand;
  const std::size_t arena = layout::PlaneArena{f.ex, f.ey, s.k_slices()}.total_bytes();
  const std::size_t input = decoder ? layout::PlaneArena{f.ex >> 1, f.ey >> 1, s.front.k / 32}.total_bytes() : arena;
  f.input_arena = std::span<const std::uint8_t>(ia->bytes).subspan(id, input);
  f.weights = &weights;
  f.texture = &texture;
  Texture texture96, texture104;
  if (decoder) {
    const auto [sa, sd] = at(L.skip);
    f.skip_arena = std::span<const std::uint8_t>(sa->bytes).subspan(sd, arena);
    texture96 = capture::texture_of(c.images[L.texture96].image);
    texture104 = capture::texture_of(c.images[L.texture104].image);
    f.texture96 = &texture96;
    f.texture104 = &texture104;
    f.scale = {L.sx, L.sy};
  }
  const Profile& p = o.profile ? *o.profile : profile_ada();
  const int threads = std::max(1, o.threads);
  if (layer == LayerId::enc5) {
    // enc5 runs through its own frame driver (api/frame.hpp), as rrswin run and the network run do.
    f.output_arena.assign(arena, 0);
    f.surface112 = Surface::make(f.ex, f.ey);
    LaunchParams lp = frame_launch(L.ex, L.ey, f.input_arena, weights, std::span<std::uint8_t>(f.output_arena), texture, f.surface112);
    lp.block_offset_x = L.ox;
    lp.block_offset_y = L.oy;
    rrswin::RunOptions ro;
    ro.profile = &p;
    ro.readings = o.readings;
    ro.engine = o.golden ? Engine::golden : Engine::fast;
    ro.threads = threads;
    run_frame(lp, ro);
  } else if (o.golden) {
    run_layer_frame_golden(f, p, o.readings, o.layer_readings);
  } else {
    engine::run_layer_frame_fast(f, p, o.readings, o.layer_readings, {engine::default_simd_path(), threads});
  }
  store_layer_outputs(c, layer, {f.output_arena, f.merged_output, {&f.surface112, &f.surface120, &f.surface128}, &f.surface144});
  return L;
}

void store_layer_outputs(KernelCapture& c, LayerId layer, const LayerOutputs& out) {
  const LayerSpec& s = layer_spec(layer);
  const auto put = [&](int off, std::span<const std::uint8_t> bytes) {
    for (const KernelCapture::Pointer& q : c.pointers)
      if (q.offset == static_cast<std::uint32_t>(off)) {
        KernelCapture::Alloc& a = c.allocs[q.alloc];
        if (q.delta > a.bytes.size() || a.bytes.size() - q.delta < bytes.size())
          throw std::invalid_argument("store_layer_outputs: " + std::string(s.name) + " +" + std::to_string(off) + " holds " +
                                      std::to_string(a.bytes.size() - std::min<std::uint64_t>(q.delta, a.bytes.size())) +
                                      " bytes from its pointer, not " + std::to_string(bytes.size()));
        std::copy(bytes.begin(), bytes.end(), a.bytes.begin() + static_cast<std::ptrdiff_t>(q.delta));
        return;
      }
    throw std::invalid_argument("store_layer_outputs: " + std::string(s.name) + "'s capture has no pointer at +" + std::to_string(off));
  };
  put(s.abi.arena, out.arena);
  if (s.merge()) put(s.abi.merged_output, out.merged);
  for (int i = 0; i < s.abi.surface_count; ++i) {
    const int off = s.abi.surfaces[static_cast<std::size_t>(i)];
    capture::ImageArg* im = nullptr;
    for (KernelCapture::Image& m : c.images)
      if (!m.texture && m.offset == static_cast<std::uint32_t>(off)) im = &m.image;
    if (!im)
      throw std::invalid_argument("store_layer_outputs: " + std::string(s.name) + "'s capture has no surface at +" + std::to_string(off));
    const auto too_small = [&](int w, int h) {
      return std::invalid_argument("store_layer_outputs: " + std::string(s.name) + "'s surface +" + std::to_string(off) + " is " +
                                   std::to_string(im->width) + " x " + std::to_string(im->height) + ", smaller than the " +
                                   std::to_string(w) + " x " + std::to_string(h) + " texels stored");
    };
    if (im->fmt == capture::kFmtFloat) {
      // dec0's +144: the f32 texels, little endian, r first.
      if (!out.surface144) throw std::invalid_argument("store_layer_outputs: no f32 surface for " + std::string(s.name));
      const SurfaceF32& m = *out.surface144;
      if (m.width > im->width || m.height > im->height) throw too_small(m.width, m.height);
      for (int y = 0; y < m.height; ++y)
        for (int x = 0; x < 4 * m.width; ++x)
          store_le(&im->bytes[static_cast<std::size_t>(y) * im->pitch + 4 * static_cast<std::size_t>(x)],
                   std::bit_cast<std::uint32_t>(
                       m.rgba[(static_cast<std::size_t>(y) * static_cast<std::size_t>(m.width)) * 4 + static_cast<std::size_t>(x)]),
                   4);
      continue;
    }
    const Surface* m = out.surfaces[static_cast<std::size_t>(i)];
    if (!m) throw std::invalid_argument("store_layer_outputs: no surface +" + std::to_string(off) + " for " + std::string(s.name));
    if (m->width > im->width || m->height > im->height) throw too_small(m->width, m->height);
    for (int y = 0; y < m->height; ++y)
      std::copy_n(m->bytes.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(y) * m->pitch), 8 * m->width,
                  im->bytes.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(y) * im->pitch));
  }
}

void bind_layer_samplers(KernelCapture& c, LayerId layer) {
  const LayerSpec& s = layer_spec(layer);
  if (s.front.kind != FrontKind::patch_expand) return;
  for (auto& im : c.images)
    if (im.texture && static_cast<int>(im.offset) == s.abi.texture) im.sampler.filter = TextureFilter::linear;
}

KernelCapture layer_capture_from_dump(const capture::DumpedLaunch& d, LayerId layer, const LayerDumpOptions& o) {
  const LayerSpec& s = layer_spec(layer);
  require_capturable(s, "layer_capture_from_dump");
  KernelCapture c;
  c.source = d.dir;
  c.kernel = d.kernel;
  c.args.assign(static_cast<std::size_t>(s.abi.param_block_bytes), 0);
  // The texture at the token grid: the merge layers' +88, the decoders' +96 (their +88 is any size).
  const bool decoder = s.front.kind == FrontKind::patch_expand;
  const int grid_texture = decoder ? s.abi.int_textures[0] : capture_texture(s.abi);
  if (has_standins(s.abi)) {
    // A dump of enc0 without rrswin's stand-ins is one of the original kernel (it holds +304): refused
    // before anything is read, naming the file that is missing and why.
    bool input = false, texture = false, network = false;
    for (const auto& [arg, b] : d.buffers) {
      input = input || arg == s.abi.standin_input;
      network = network || arg == s.abi.network_input;
    }
    for (const auto& im : d.images) texture = texture || (im.texture && im.arg == s.abi.standin_texture);
    const std::string found =
        network ? "none (the launch holds +" + std::to_string(s.abi.network_input) + ", the network input: a dump of the original kernel)"
                : "none";
    const auto name = [&](int arg, const char* kind) {
      char l[24], b[32];
      std::snprintf(l, sizeof l, "launch-%03u-", d.launch);
      std::snprintf(b, sizeof b, "-arg%03d-%s-", arg, kind);
      return "a file " + std::string(l) + d.kernel + b + "…-fmtN.bin (";
    };
    if (!input) throw InputError(d.dir, 0, name(s.abi.standin_input, "buffer") + standin_what(s, true) + ")", found);
    if (!texture) throw InputError(d.dir, 0, name(s.abi.standin_texture, "texture") + standin_what(s, false) + ")", found);
  }
  const capture::ImageArg* texture = nullptr;
  for (const auto& im : d.images)
    if (im.texture && im.arg == grid_texture) texture = &im.image;
  if (!texture && (o.ex <= 0 || o.ey <= 0))
    throw InputError(d.dir, 0, "an arg" + std::to_string(grid_texture) + " texture dump (its extents are the token grid) or --ex and --ey",
                     "none");
  const int ex = o.ex > 0 ? o.ex : texture->width, ey = o.ey > 0 ? o.ey : texture->height;
  if (decoder) {
    store_le(&c.args[static_cast<std::size_t>(s.abi.scale)], std::bit_cast<std::uint32_t>(o.sx), 4);
    store_le(&c.args[static_cast<std::size_t>(s.abi.scale) + 4], std::bit_cast<std::uint32_t>(o.sy), 4);
  }
  store_le(&c.args[s.abi.extents], static_cast<std::uint64_t>(ex), 4);
  store_le(&c.args[s.abi.extents + 4], static_cast<std::uint64_t>(ey), 4);
  store_le(&c.args[s.abi.origin], static_cast<std::uint64_t>(o.ox), 2);
  store_le(&c.args[s.abi.origin + 2], static_cast<std::uint64_t>(o.oy), 2);
  for (const auto& [arg, b] : d.buffers) {
    if (arg < 0 || arg + 8 > s.abi.param_block_bytes)
      throw InputError(b.file, 0, "an argument offset inside the " + std::to_string(s.abi.param_block_bytes) + "-byte block",
                       "arg" + std::to_string(arg));
    if (b.offset > b.bytes.size())
      throw InputError(b.file, 0, "a pointer offset (off token) within the allocation's " + std::to_string(b.bytes.size()) + " bytes",
                       std::to_string(b.offset));
    KernelCapture::Alloc a;
    a.id = c.allocs.size();
    a.base = b.base;
    a.file = b.file;
    a.bytes = b.bytes;
    c.pointers.push_back({static_cast<std::uint32_t>(arg), c.allocs.size(), b.offset});
    store_le(&c.args[static_cast<std::size_t>(arg)], b.base + b.offset, 8);
    c.allocs.push_back(std::move(a));
  }
  for (const auto& im : d.images) {
    if (im.arg < 0 || im.arg + 8 > s.abi.param_block_bytes)
      throw InputError(im.image.file, 0, "an argument offset inside the " + std::to_string(s.abi.param_block_bytes) + "-byte block",
                       "arg" + std::to_string(im.arg));
    c.images.push_back({static_cast<std::uint32_t>(im.arg), im.texture, im.image, {}});
    store_le(&c.args[static_cast<std::size_t>(im.arg)], c.images.size(), 8);  // an opaque handle
  }
  c.grid = grid_of(ex, ey, o.ox, o.oy);
  c.block = {static_cast<std::uint32_t>(s.abi.block[0]), static_cast<std::uint32_t>(s.abi.block[1]),
             static_cast<std::uint32_t>(s.abi.block[2])};
  bind_layer_samplers(c, layer);
  return c;
}

KernelCapture synthetic_layer_capture(LayerId layer, const SyntheticLayerCapture& o) {
  const LayerSpec& s = layer_spec(layer);
  require_runnable(layer);
  require_capturable(s, "synthetic_layer_capture");
  const bool decoder = s.front.kind == FrontKind::patch_expand;
  if (!s.merge() && !decoder)
    throw std::invalid_argument("synthetic_layer_capture: " + std::string(s.name) +
                                " has its own captures (rrswin capture without --layer)");
  const int ex = o.ex > 0 ? o.ex : s.abi.ex, ey = o.ey > 0 ? o.ey : s.abi.ey;
  // A decoder's input (and its +88) at half the extents, as `rrswin run --layer` makes them; its skip
  // and +96 from seed + 1, its +104 from seed + 2.
  const SyntheticFrame frame = decoder ? make_synthetic_frame(ex >> 1, ey >> 1, o.seed, false, s.front.k / 32)
                                       : make_synthetic_frame(ex, ey, o.seed, false, s.k_slices());
  SyntheticFrame skip, t104;
  if (decoder) {
    skip = make_synthetic_frame(ex, ey, o.seed + 1, false, s.k_slices());
    t104 = make_synthetic_frame(ex, ey, o.seed + 2, false, 1);
  }
  LayerCaptureInputs in;
  in.ex = ex;
  in.ey = ey;
  in.ox = o.ox;
  in.oy = o.oy;
  in.input = frame.input_arena;
  in.weights = &default_layer_weights(layer);
  in.texture = &frame.texture;
  if (decoder) {
    in.skip = skip.input_arena;
    in.texture96 = &skip.texture;
    in.texture104 = &t104.texture;
    in.sx = o.sx;
    in.sy = o.sy;
  }
  KernelCapture c = layer_capture_before_launch(layer, in);
  c.source = "<synthetic " + std::string(s.name) + " capture>";
  return c;
}

KernelCapture layer_capture_before_launch(LayerId layer, const LayerCaptureInputs& in) {
  const LayerSpec& s = layer_spec(layer);
  const bool decoder = s.front.kind == FrontKind::patch_expand;
  const int ex = in.ex, ey = in.ey;
  if (ex < 1 || ey < 1) throw std::invalid_argument("layer_capture_before_launch: " + std::string(s.name) + " at an empty token grid");
  if (!in.weights) throw std::invalid_argument("layer_capture_before_launch: no weight image for " + std::string(s.name));
  require_capturable(s, "layer_capture_before_launch");
  // enc0's input and texture are rrswin's stand-ins (+8, +88: LaunchAbi::standin_*), held as every
  // other layer's input and texture.
  const int input_off = capture_input(s.abi), texture_off = capture_texture(s.abi);
  if (in.input.empty() || !in.texture)
    throw std::invalid_argument("layer_capture_before_launch: no input arena or texture for " + std::string(s.name));
  if (decoder && (in.skip.empty() || !in.texture96 || !in.texture104))
    throw std::invalid_argument("layer_capture_before_launch: no skip arena or +96/+104 texture for " + std::string(s.name));
  KernelCapture c;
  c.source = "<" + std::string(s.name) + " capture>";
  c.kernel = std::string(s.entry);
  c.grid = grid_of(ex, ey, in.ox, in.oy);
  c.block = {static_cast<std::uint32_t>(s.abi.block[0]), static_cast<std::uint32_t>(s.abi.block[1]),
             static_cast<std::uint32_t>(s.abi.block[2])};
  c.shared = 0;  // the kernel's one __shared__ array is static (DOC4 §1.4): no dynamic bytes
  c.args.assign(static_cast<std::size_t>(s.abi.param_block_bytes), 0);
  store_le(&c.args[s.abi.extents], static_cast<std::uint64_t>(ex), 4);
  store_le(&c.args[s.abi.extents + 4], static_cast<std::uint64_t>(ey), 4);
  store_le(&c.args[s.abi.origin], static_cast<std::uint64_t>(in.ox), 2);
  store_le(&c.args[s.abi.origin + 2], static_cast<std::uint64_t>(in.oy), 2);
  const std::size_t arena = layout::PlaneArena{ex, ey, s.k_slices()}.total_bytes(),
                    half = layout::PlaneArena{ex >> 1, ey >> 1, s.merge_out / 32}.total_bytes();
  const bool dec0 = s.final_epilogue == FinalEpilogueKind::dec0_output;  // +48: 8 e4m3 bytes a pixel (DOC-d0 §4.2)
  const std::size_t output = dec0 ? static_cast<std::size_t>(ex) * static_cast<std::size_t>(ey) * 8 : arena;
  const auto w = in.weights->bytes();
  std::vector<std::pair<int, std::vector<std::uint8_t>>> buffers;
  buffers.emplace_back(input_off, std::vector<std::uint8_t>(in.input.begin(), in.input.end()));
  buffers.emplace_back(s.abi.weights, std::vector<std::uint8_t>(w.begin(), w.end()));
  buffers.emplace_back(s.abi.arena, std::vector<std::uint8_t>(output, 0));
  if (decoder) {
    buffers.emplace_back(s.abi.skip, std::vector<std::uint8_t>(in.skip.begin(), in.skip.end()));
    store_le(&c.args[static_cast<std::size_t>(s.abi.scale)], std::bit_cast<std::uint32_t>(in.sx), 4);
    store_le(&c.args[static_cast<std::size_t>(s.abi.scale) + 4], std::bit_cast<std::uint32_t>(in.sy), 4);
  } else if (s.merge()) {
    buffers.emplace_back(s.abi.merged_output, std::vector<std::uint8_t>(half, 0));
  }
  for (auto& [off, bytes] : buffers) {
    KernelCapture::Alloc a;
    a.id = c.allocs.size();
    a.base = 0x7f0000000000ull + (a.id << 32);  // made-up, distinct, 4 GiB apart
    for (const auto& [p, base] : in.bases)
      if (p == off) a.base = base;
    a.file = "alloc-" + std::to_string(a.id) + ".bin";
    a.bytes = std::move(bytes);
    c.pointers.push_back({static_cast<std::uint32_t>(off), c.allocs.size(), 0});
    store_le(&c.args[static_cast<std::size_t>(off)], a.base, 8);
    c.allocs.push_back(std::move(a));
  }
  const auto image = [&](int off, bool texture, int width, int height, int fmt = capture::kFmtHalf) {
    KernelCapture::Image im;
    im.offset = static_cast<std::uint32_t>(off);
    im.texture = texture;
    im.image.width = width;
    im.image.height = height;
    im.image.fmt = fmt;
    im.image.pitch = static_cast<std::size_t>(fmt == capture::kFmtFloat ? 16 : 8) * width;
    im.image.bytes.assign(im.image.pitch * height, 0);
    im.image.file = (texture ? "texture-" : "surface-") + std::to_string(off) + ".bin";
    store_le(&c.args[static_cast<std::size_t>(off)], c.images.size() + 1, 8);  // an opaque handle
    c.images.push_back(std::move(im));
    return &c.images.back().image;
  };
  const auto texture = [&](int off, const Texture& t) {
    capture::ImageArg* im = image(off, true, t.width, t.height);
    im->mode = t.mode;
    for (std::size_t i = 0; i < t.rgba.size(); ++i) store_le(&im->bytes[2 * i], t.rgba[i], 2);
  };
  texture(texture_off, *in.texture);
  if (decoder) {
    texture(s.abi.int_textures[0], *in.texture96);
    texture(s.abi.int_textures[1], *in.texture104);
  }
  for (int i = 0; i < s.abi.surface_count; ++i) {
    const bool third = i == 2;
    image(s.abi.surfaces[static_cast<std::size_t>(i)], false, third ? ex >> 1 : ex, third ? ey >> 1 : ey,
          dec0 && i == 1 ? capture::kFmtFloat : capture::kFmtHalf);
  }
  bind_layer_samplers(c, layer);
  return c;
}

std::vector<std::pair<std::string, std::vector<std::uint8_t>>> replay_capture_files(const KernelCapture& c) {
  std::ostringstream m;
  m << "# a replay capture (facts F6; docs/captures.md): the state before the launch\n";
  if (!c.kernel.empty()) m << "kernel " << c.kernel << "\n";
  m << "launch " << c.grid.x << ' ' << c.grid.y << ' ' << c.grid.z << ' ' << c.block.x << ' ' << c.block.y << ' ' << c.block.z << ' '
    << c.shared << "\n";
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files;
  files.emplace_back("args.bin", c.args);
  for (const auto& a : c.allocs) {
    m << "alloc " << a.id << " 0x" << std::hex << a.base << std::dec << ' ' << a.bytes.size() << "\n";
    files.emplace_back("alloc-" + std::to_string(a.id) + ".bin", a.bytes);
  }
  for (const auto& p : c.pointers) m << "pointer " << p.offset << ' ' << c.allocs[p.alloc].id << ' ' << p.delta << "\n";
  for (const auto& im : c.images) {
    const std::string file = std::string(im.texture ? "texture-" : "surface-") + (im.offset < 100 ? "0" : "") +
                             (im.offset < 10 ? "0" : "") + std::to_string(im.offset) + ".bin";
    if (im.texture)
      m << "texture " << im.offset << ' ' << im.image.width << ' ' << im.image.height << ' ' << im.image.fmt << ' '
        << capture::address_mode_name(im.image.mode) << ' ' << file << "\n";
    else
      m << "surface " << im.offset << ' ' << im.image.width << ' ' << im.image.height << ' ' << im.image.fmt << ' ' << im.image.pitch << ' '
        << file << "\n";
    files.emplace_back(file, im.image.bytes);
  }
  const std::string text = m.str();
  files.insert(files.begin(), {"manifest.txt", std::vector<std::uint8_t>(text.begin(), text.end())});
  return files;
}

}  // namespace rrswin::ptx
