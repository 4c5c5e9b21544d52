// Captures of a whole frame (bridge/network_capture.hpp).
#include "bridge/network_capture.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "api/network_demo.hpp"
#include "api/network_run.hpp"
#include "base/errors.hpp"
#include "capture/diff.hpp"
#include "layout/arena.hpp"
#include "model/network.hpp"
#include "model/text.hpp"

namespace rrswin::ptx {
namespace {

// The kernels of the network: cuda_dldn_engine_swin_<layer>_kernel (model/layer_spec.cpp entries).
constexpr const char* kFamily = "cuda_dldn_engine_swin_";

int order_index(LayerId id) {
  const auto& ids = layer_ids();
  return static_cast<int>(std::find(ids.begin(), ids.end(), id) - ids.begin());
}

bool is_decoder(const LayerSpec& s) { return s.front.kind == FrontKind::patch_expand; }
bool is_dec0(const LayerSpec& s) { return s.final_epilogue == FinalEpilogueKind::dec0_output; }

// The input parameters a layer reads from other layers (model/network.hpp's edges): +8, and the
// decoders' +24; enc0 none (its input is the network's +304; its captures' +8 is rrswin's stand-in,
// fed by no layer).
std::vector<int> input_params(const LayerSpec& s) {
  if (is_decoder(s)) return {8, 24};
  if (s.abi.input < 0) return {};
  return {8};
}

// The arguments a layer's ABI reads or writes, with their dump kind.
struct AbiArg {
  int arg;
  const char* kind;
  const char* what;
};
std::vector<AbiArg> abi_args(const LayerSpec& s) {
  std::vector<AbiArg> v;
  // enc0: rrswin's stand-ins (LaunchAbi::standin_*) in its input's and texture's places.
  const bool standins = has_standins(s.abi);
  v.push_back({capture_input(s.abi), "buffer",
               standins        ? "the staged input tensor, rrswin's stand-in"
               : is_decoder(s) ? "the lower level's input"
                               : "the input plane arena"});
  if (is_decoder(s)) v.push_back({s.abi.skip, "buffer", "the skip plane arena"});
  v.push_back({s.abi.weights, "buffer", "the weight image"});
  v.push_back({s.abi.arena, "buffer", is_dec0(s) ? "the e4m3 output" : "the output plane arena"});
  if (s.merge()) v.push_back({s.abi.merged_output, "buffer", "the merged output"});
  v.push_back({capture_texture(s.abi), "texture", standins ? "the texture standing for input_noise, rrswin's stand-in" : "the texture"});
  if (is_decoder(s))
    for (int t : s.abi.int_textures) v.push_back({t, "texture", "an integer-coordinate texture"});
  for (int i = 0; i < s.abi.surface_count; ++i) v.push_back({s.abi.surfaces[static_cast<std::size_t>(i)], "surface", "a surface"});
  return v;
}

// A made-up device address per produced buffer (and per weight image, and enc0's stand-in +8): a
// consumer's +8 / +24 has its producer's, as in d4r's one scratch block. 4 GiB apart.
std::uint64_t buffer_base(LayerId layer, int param) {
  const std::uint64_t slot = param == 48 ? 0 : param == 56 ? 1 : param == 40 ? 2 : 3;
  return 0x100000000000ull + ((static_cast<std::uint64_t>(order_index(layer)) * 4 + slot) << 32);
}

std::string dump_pattern(std::uint32_t launch, const std::string& kernel, int arg, const char* kind) {
  char b[64];
  std::snprintf(b, sizeof b, "launch-%03u-", launch);
  char a[16];
  std::snprintf(a, sizeof a, "-arg%03d-", arg);
  return b + kernel + a + kind + "-…-fmtN.bin";
}

// The bytes of a layer's windows (read_layer_launch's sizes).
std::size_t output_bytes(const LayerSpec& s, int ex, int ey) {
  return is_dec0(s) ? static_cast<std::size_t>(ex) * static_cast<std::size_t>(ey) * 8
                    : layout::PlaneArena{ex, ey, s.k_slices()}.total_bytes();
}
std::size_t merged_bytes(const LayerSpec& s, int ex, int ey) {
  return layout::PlaneArena{ex >> 1, ey >> 1, s.merge_out / 32}.total_bytes();
}
std::size_t input_bytes(const LayerSpec& s, int ex, int ey, int param) {
  if (param == 8 && is_decoder(s)) return layout::PlaneArena{ex >> 1, ey >> 1, s.front.k / 32}.total_bytes();
  return layout::PlaneArena{ex, ey, s.k_slices()}.total_bytes();
}

const std::string& first_file(const capture::DumpedLaunch& d) {
  if (!d.buffers.empty()) return d.buffers.front().second.file;
  return d.images.front().image.file;
}

// Where byte `off` of a plane arena window lies.
void locate_arena(NetworkDifference& d, std::uint64_t rel, int ex, int ey, int planes, bool half, int ox, int oy) {
  const layout::PlaneArena pa{ex, ey, planes};
  if (rel >= pa.total_bytes()) {
    d.where = cat("byte ", rel, " past the window");
    return;
  }
  const std::uint64_t word = rel / 4, pw = pa.plane_words(), rem = word % pw;
  const int q = static_cast<int>(word / pw), y = static_cast<int>(rem / (8u * static_cast<std::uint64_t>(ex))),
            x = static_cast<int>(rem % (8u * static_cast<std::uint64_t>(ex)) / 8);
  d.where = cat("plane ", q, half ? " half-grid token (" : " token (", x, ", ", y, ") word ", rem % 8, " byte ", rel % 4);
  d.block_x = ((half ? 2 * x : x) + ox) / 8;
  d.block_y = ((half ? 2 * y : y) + oy) / 8;
}

// Compares the outputs of the replayed capture `got` with the captured `want`.
void compare_outputs(const LayerSpec& s, const LayerLaunch& L, const KernelCapture& want, const KernelCapture& got, NetworkLayerReplay& r) {
  const int ex = static_cast<int>(L.ex), ey = static_cast<int>(L.ey), ox = L.ox, oy = L.oy;
  const auto account = [&](int arg, const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b,
                           const std::function<void(NetworkDifference&, std::uint64_t)>& locate) {
    std::uint64_t n = 0, first = a.size();
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) {
        if (!n) first = i;
        ++n;
      }
    r.bytes_compared += a.size();
    r.bytes_differing += n;
    r.per_output.emplace_back(arg, n);
    if (n && !r.first) {
      NetworkDifference d;
      d.arg = arg;
      d.offset = first;
      locate(d, first);
      r.first = d;
    }
  };
  const auto buffer = [&](std::size_t p, const std::function<void(NetworkDifference&, std::uint64_t)>& locate) {
    const KernelCapture::Pointer& q = want.pointers[p];
    account(static_cast<int>(q.offset), want.allocs[q.alloc].bytes, got.allocs[got.pointers[p].alloc].bytes,
            [&, delta = q.delta](NetworkDifference& d, std::uint64_t off) {
              if (off < delta)
                d.where = cat("byte ", off, " before the pointer (", delta, ")");
              else
                locate(d, off - delta);
            });
  };
  buffer(L.arena, [&](NetworkDifference& d, std::uint64_t rel) {
    if (!is_dec0(s)) return locate_arena(d, rel, ex, ey, s.k_slices(), false, ox, oy);
    const std::uint64_t pixels = static_cast<std::uint64_t>(ex) * static_cast<std::uint64_t>(ey);
    if (rel >= 8 * pixels) {
      d.where = cat("byte ", rel, " past the window");
      return;
    }
    const int x = static_cast<int>(rel / 8 % static_cast<std::uint64_t>(ex)),
              y = static_cast<int>(rel / 8 / static_cast<std::uint64_t>(ex));
    d.where = cat("pixel (", x, ", ", y, ") byte ", rel % 8);
    d.block_x = (x + ox) / 8;
    d.block_y = (y + oy) / 8;
  });
  if (s.merge())
    buffer(L.merged,
           [&](NetworkDifference& d, std::uint64_t rel) { locate_arena(d, rel, ex >> 1, ey >> 1, s.merge_out / 32, true, ox, oy); });
  for (std::size_t i = 0; i < L.surfaces.size(); ++i) {
    const capture::ImageArg& w = want.images[L.surfaces[i]].image;
    const bool half = i == 2;  // the merge layers' third surface, at the halved grid
    account(static_cast<int>(want.images[L.surfaces[i]].offset), w.bytes, got.images[L.surfaces[i]].image.bytes,
            [&](NetworkDifference& d, std::uint64_t off) {
              const std::size_t texel = w.fmt == capture::kFmtFloat ? 16 : 8;
              const int y = static_cast<int>(off / w.pitch), x = static_cast<int>(off % w.pitch / texel);
              d.where = cat("texel (", x, ", ", y, ") byte ", off % w.pitch % texel);
              const int fx = half ? ex >> 1 : ex, fy = half ? ey >> 1 : ey;
              if (x < fx && y < fy) {
                d.block_x = ((half ? 2 * x : x) + ox) / 8;
                d.block_y = ((half ? 2 * y : y) + oy) / 8;
              }
            });
  }
}

std::string status_name(NetworkLayerReplay::Status s) {
  switch (s) {
    case NetworkLayerReplay::Status::reproduces: return "reproduces";
    case NetworkLayerReplay::Status::differs: return "differs";
    default: return "not replayable";
  }
}

std::string buffer_name(LayerBuffer b) { return cat(to_string(b.layer), ".+", b.param); }

}  // namespace

std::uint32_t network_launch_number(LayerId id) { return static_cast<std::uint32_t>(order_index(id) + 1); }

std::string network_not_replayable(LayerId id, const capture::DumpedLaunch& d) {
  const LayerSpec& s = layer_spec(id);
  if (!has_standins(s.abi)) return "";
  bool input = false, texture = false;
  for (const auto& [arg, b] : d.buffers) input = input || arg == s.abi.standin_input;
  for (const auto& im : d.images) texture = texture || (im.texture && im.arg == s.abi.standin_texture);
  if (input && texture) return "";
  if (!input && !texture)
    return cat("its launch holds no +", s.abi.standin_input, " / +", s.abi.standin_texture,
               " (rrswin's stand-ins for the staged input tensor and input_noise): a launch of the original kernel, whose prologue "
               "builds them from the network input +",
               s.abi.network_input, ", which no source decodes (docs/readings.md §10)");
  const bool in = !input;  // the one missing
  throw InputError(
      d.dir, 0,
      cat("a file ", dump_pattern(d.launch, d.kernel, in ? s.abi.standin_input : s.abi.standin_texture, in ? "buffer" : "texture"), " (",
          in ? "the staged input tensor" : "the texture standing for input_noise", ", rrswin's stand-in, with its +",
          in ? s.abi.standin_texture : s.abi.standin_input, ": both or neither)"),
      "none");
}

std::vector<std::pair<std::string, std::vector<std::uint8_t>>> synthetic_network_capture_files(const NetworkCaptureOptions& o) {
  const std::unique_ptr<NetworkDemo> demo = make_network_demo(o.render_w, o.render_h, o.seed);
  NetworkRunOptions ro;
  ro.render_w = o.render_w;
  ro.render_h = o.render_h;
  ro.profile = o.profile;
  ro.readings = o.readings;
  ro.layer_readings = o.layer_readings;
  ro.engine = o.engine;
  ro.threads = std::max(1, o.threads);
  const std::vector<NetworkLayerResult> results = run_network(ro, demo->layers, demo->external);
  const auto produced = [&](LayerBuffer b) -> const std::vector<std::uint8_t>& {
    for (const NetworkLayerResult& r : results)
      if (r.id == b.layer && r.ran) return b.param == 56 ? r.merged : r.arena;
    const auto e = demo->external.find({b.layer, b.param});
    if (e == demo->external.end()) throw std::logic_error("synthetic_network_capture_files: no buffer " + buffer_name(b));
    return e->second;
  };
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files;
  std::string launches;
  for (const NetworkLayerResult& r : results) {
    const LayerSpec& s = layer_spec(r.id);
    if (!r.ran) throw std::logic_error("synthetic_network_capture_files: " + std::string(s.name) + " did not run");
    const NetworkLayerInputs& li = demo->layers.at(r.id);
    LayerCaptureInputs in;
    in.ex = r.ex;
    in.ey = r.ey;
    for (int p : input_params(s)) {
      const LayerBuffer from = producing_buffer({r.id, p}).value();
      (p == 8 ? in.input : in.skip) = produced(from);
      in.bases.emplace_back(p, buffer_base(from.layer, from.param));
    }
    if (has_standins(s.abi)) {  // enc0: the staged input tensor the run started from, at rrswin's stand-in +8
      in.input = li.input_tensor;
      in.bases.emplace_back(s.abi.standin_input, buffer_base(r.id, s.abi.standin_input));
    }
    in.bases.emplace_back(s.abi.weights, buffer_base(r.id, s.abi.weights));
    in.bases.emplace_back(s.abi.arena, buffer_base(r.id, 48));
    if (s.merge()) in.bases.emplace_back(s.abi.merged_output, buffer_base(r.id, 56));
    in.weights = li.weights;
    in.texture = li.texture;
    in.texture96 = li.texture96;
    in.texture104 = li.texture104;
    in.sx = li.scale[0];
    in.sy = li.scale[1];
    KernelCapture c = layer_capture_before_launch(r.id, in);
    store_layer_outputs(c, r.id, {r.arena, r.merged, {&r.surface112, &r.surface120, &r.surface128}, &r.surface144});
    const std::uint32_t n = network_launch_number(r.id);
    std::string args;
    for (const AbiArg& a : abi_args(s)) args += cat(" +", a.arg);
    launches += cat("  launch ", n, "  ", s.name, "  ", s.entry, "  ", r.ex, " x ", r.ey, " tokens, args", args, "\n");
    for (auto& f : kernel_capture_outputs(c, std::string(s.entry), n)) files.push_back(std::move(f));
  }
  const std::string readme =
      cat("A synthetic capture of one frame of the network (rrswin capture --network; docs/network.md \"Captures of a whole frame\").\n"
          "The run of `rrswin run --network --render ",
          o.render_w, ",", o.render_h, " --seed ", o.seed, "` (profile ", o.profile ? o.profile->name : profile_ada().name, ", engine ",
          o.engine == Engine::golden ? "golden" : "fast",
          "), in d4r's launch-dump naming\n(launch-NNN-<kernel>-argNNN-<kind>-<shape>-fmtN.bin: every argument after the "
          "launch), one launch per layer in network order:\n",
          launches,
          "enc0's launch is in rrswin's stand-in convention, not the original's: +8 holds the synthetic staged input tensor the run\n"
          "starts from (32 e4m3 channels a token) and +88 the texture standing for input_noise, what enc0's prologue would build from the\n"
          "network input +304 in shared memory and which no source decodes (docs/readings.md §10); +8 and +88 are offsets the original\n"
          "leaves unused (the CUDA port's, cuda/enc0_params.hpp). The frame has no network input: no +304 file. `rrswin replay --network`\n"
          "replays all eleven launches, and its chained mode starts from enc0's captured stand-ins. A real capture of the original enc0\n"
          "(+304, no +8/+88) is not replayable: the chain then starts from enc1's captured input.\n"
          "Device addresses are made up; one buffer has one address in every launch that names it (enc1's +56 is enc2's +8).\n"
          "Launch dumps carry no parameter block: each layer's token grid is its grid texture's size (+88; the decoders' +96), the\n"
          "decoders' +136 scale is 0.5, 0.5.\n");
  files.emplace_back("README.txt", std::vector<std::uint8_t>(readme.begin(), readme.end()));
  return files;
}

NetworkCapture load_network_capture(const std::string& dir) {
  NetworkCapture cap;
  cap.dir = dir;
  std::vector<capture::DumpedLaunch> launches = capture::load_dumped_launches(dir, kFamily);
  std::map<LayerId, capture::DumpedLaunch> by_layer;
  for (capture::DumpedLaunch& d : launches) {
    std::optional<LayerId> layer;
    for (LayerId id : layer_ids())
      if (d.kernel == layer_spec(id).entry) layer = id;
    if (!layer) {
      cap.ignored.push_back(cat("launch ", d.launch, " of ", d.kernel, " (no layer of the network)"));
      continue;
    }
    const auto seen = by_layer.find(*layer);
    if (seen != by_layer.end())
      throw InputError(first_file(d), 0,
                       cat("one launch of ", d.kernel, " (one frame: one launch per layer), launch ", seen->second.launch, " being ",
                           to_string(*layer), "'s"),
                       cat("a second one, launch ", d.launch));
    by_layer.emplace(*layer, std::move(d));
  }
  std::string present;
  for (const auto& [id, d] : by_layer) present += cat(present.empty() ? "" : ", ", d.launch, " ", to_string(id));
  std::optional<std::uint32_t> previous;
  LayerId previous_id = LayerId::enc0;
  for (LayerId id : layer_ids()) {
    const LayerSpec& s = layer_spec(id);
    NetworkCaptureLayer l;
    l.layer = id;
    const auto it = by_layer.find(id);
    if (it == by_layer.end()) {
      // enc0's launch may be absent (the chain then starts from enc1's captured input); every other
      // layer's must be there.
      if (!has_standins(s.abi))
        throw InputError(
            dir, 0, cat("a launch of ", s.entry, " (", s.name, ": files launch-NNN-", s.entry, "-argNNN-…-fmtN.bin, one per argument)"),
            cat("none (the folder's launches: ", present.empty() ? "none of the network" : present, ")"));
      l.not_replayable = "the folder holds no launch of it";
      cap.layers.push_back(std::move(l));
      continue;
    }
    const capture::DumpedLaunch& d = it->second;
    if (previous && d.launch <= *previous)
      throw InputError(first_file(d), 0,
                       cat("launches in network order: ", s.name, "'s after ", to_string(previous_id), "'s launch ", *previous),
                       cat("launch ", d.launch));
    previous = d.launch;
    previous_id = id;
    l.not_replayable = network_not_replayable(id, d);
    if (l.not_replayable.empty())
      for (const AbiArg& a : abi_args(s)) {
        const bool buffer = std::string(a.kind) == "buffer";
        bool found = false;
        for (const auto& [arg, b] : d.buffers)
          if (arg == a.arg) {
            if (!buffer)
              throw InputError(b.file, 0, cat("an arg", a.arg, " ", a.kind, " dump (", a.what, " of ", s.name, ")"), "a buffer dump");
            found = true;
          }
        for (const auto& im : d.images)
          if (im.arg == a.arg) {
            const char* kind = im.texture ? "texture" : "surface";
            if (std::string(kind) != a.kind)
              throw InputError(im.image.file, 0, cat("an arg", a.arg, " ", a.kind, " dump (", a.what, " of ", s.name, ")"),
                               cat("a ", kind, " dump"));
            found = true;
          }
        if (!found)
          throw InputError(dir, 0, cat("a file ", dump_pattern(d.launch, d.kernel, a.arg, a.kind), " (", a.what, " of ", s.name, ")"),
                           "none");
      }
    l.launch = std::move(it->second);
    cap.layers.push_back(std::move(l));
  }
  return cap;
}

NetworkReplay replay_network_capture(const NetworkCapture& cap, const NetworkReplayOptions& o) {
  NetworkReplay out;
  out.chained = o.chained;
  struct Prepared {
    KernelCapture captured;
    LayerLaunch launch;
  };
  std::map<LayerId, Prepared> prep;
  LayerDumpOptions geo;
  geo.sx = o.sx;
  geo.sy = o.sy;
  std::optional<LayerId> reference;
  for (const NetworkCaptureLayer& l : cap.layers) {
    if (!l.launch || !l.not_replayable.empty()) continue;
    KernelCapture c = layer_capture_from_dump(*l.launch, l.layer, geo);
    const LayerLaunch L = read_layer_launch(c, l.layer);
    // One frame: every layer's grid is the first replayable layer's scaled by its level.
    if (!reference) reference = l.layer;
    const LayerLaunch& R = reference == l.layer ? L : prep.at(*reference).launch;
    const int lr = network_level(*reference), ll = network_level(l.layer);
    const std::uint64_t wx = (static_cast<std::uint64_t>(R.ex) << lr), wy = (static_cast<std::uint64_t>(R.ey) << lr);
    if ((static_cast<std::uint64_t>(L.ex) << ll) != wx || (static_cast<std::uint64_t>(L.ey) << ll) != wy) {
      const LayerSpec& s = layer_spec(l.layer);
      const int grid_texture = is_decoder(s) ? s.abi.int_textures[0] : s.abi.texture;
      std::string file = cap.dir;
      for (const auto& im : l.launch->images)
        if (im.arg == grid_texture) file = im.image.file;
      throw InputError(file, 0,
                       cat(wx >> ll, " x ", wy >> ll, " tokens (", s.name, " at level ", ll, " of the frame whose ", to_string(*reference),
                           " is ", R.ex, " x ", R.ey, " at level ", lr, ")"),
                       cat(L.ex, " x ", L.ey));
    }
    prep.emplace(l.layer, Prepared{std::move(c), L});
  }
  std::map<std::pair<LayerId, int>, std::vector<std::uint8_t>> chained;
  std::set<LayerId> not_replayed;
  std::string first_replayable;
  for (const NetworkCaptureLayer& l : cap.layers) {
    const LayerSpec& s = layer_spec(l.layer);
    NetworkLayerReplay r;
    r.layer = l.layer;
    r.launch = l.launch ? l.launch->launch : 0;
    if (!l.not_replayable.empty() || !l.launch) {
      r.why = !l.not_replayable.empty() ? l.not_replayable : "the folder holds no launch of it";
      not_replayed.insert(l.layer);
      if (const auto& d = l.launch)
        for (const auto& im : d->images)
          if (!im.texture && im.arg == s.abi.surfaces[0]) {
            r.ex = im.image.width;
            r.ey = im.image.height;
          }
      out.layers.push_back(std::move(r));
      continue;
    }
    Prepared& p = prep.at(l.layer);
    KernelCapture c = p.captured;
    const LayerLaunch& L = p.launch;
    r.ex = static_cast<int>(L.ex);
    r.ey = static_cast<int>(L.ey);
    if (first_replayable.empty()) first_replayable = std::string(s.name);
    if (o.chained) {
      if (has_standins(s.abi))  // enc0: no layer feeds its stand-ins
        r.inputs.push_back(cat("+", s.abi.standin_input, ", +", s.abi.standin_texture,
                               " as captured (rrswin's stand-ins for the staged input tensor and input_noise: the chain starts here)"));
      for (int param : input_params(s)) {
        const LayerBuffer from = producing_buffer({l.layer, param}).value();
        const KernelCapture::Pointer& q = c.pointers[param == 8 ? L.input : L.skip];
        KernelCapture::Alloc& a = c.allocs[q.alloc];
        const std::size_t need = input_bytes(s, r.ex, r.ey, param);
        const auto it = chained.find({from.layer, from.param});
        if (it == chained.end()) {
          const std::string reason = not_replayed.count(from.layer) ? cat(to_string(from.layer), " does not replay")
                                     : first_replayable == s.name   ? std::string("the chain starts here")
                                                                    : cat(to_string(from.layer), " was not replayed");
          r.inputs.push_back(cat("+", param, " as captured (", buffer_name(from), ": ", reason, ")"));
          continue;
        }
        if (it->second.size() != need)
          throw InputError(a.file, q.delta, cat(need, " bytes of +", param, " (", s.name, " at ", r.ex, " x ", r.ey, " tokens)"),
                           cat(it->second.size(), " bytes of ", buffer_name(from), ", the chained output"));
        for (std::size_t i = 0; i < need; ++i)
          if (a.bytes[q.delta + i] != it->second[i]) ++r.input_bytes_differing;
        std::copy(it->second.begin(), it->second.end(), a.bytes.begin() + static_cast<std::ptrdiff_t>(q.delta));
        r.inputs.push_back(cat("+", param, " <- ", buffer_name(from)));
      }
    }
    replay_layer_capture(c, l.layer, o.replay);
    compare_outputs(s, L, p.captured, c, r);
    r.status = r.bytes_differing ? NetworkLayerReplay::Status::differs : NetworkLayerReplay::Status::reproduces;
    if (r.bytes_differing && !out.first_differing) out.first_differing = l.layer;
    if (o.chained) {
      const auto window = [&](std::size_t ptr, std::size_t n) {
        const KernelCapture::Pointer& q = c.pointers[ptr];
        const auto& b = c.allocs[q.alloc].bytes;
        return std::vector<std::uint8_t>(b.begin() + static_cast<std::ptrdiff_t>(q.delta),
                                         b.begin() + static_cast<std::ptrdiff_t>(q.delta + n));
      };
      chained[{l.layer, 48}] = window(L.arena, output_bytes(s, r.ex, r.ey));
      if (s.merge()) chained[{l.layer, 56}] = window(L.merged, merged_bytes(s, r.ex, r.ey));
    }
    r.replayed = std::move(c);
    out.layers.push_back(std::move(r));
  }
  if (o.chained) {
    // enc0's launch replays when it holds rrswin's stand-ins (+8, +88); else the chain starts at enc1
    // and dec0's skip (enc0's arena +48) is dec0's captured one.
    const bool from_enc0 = first_replayable == to_string(LayerId::enc0);
    out.start = first_replayable.empty() ? "no replayable launch"
                : from_enc0
                    ? cat("the chain starts from enc0's captured inputs (rrswin's stand-ins: +8 the staged input tensor, +88 the texture "
                          "standing for input_noise); every later layer's +8 / +24 is the chained output of the layer that feeds it")
                    : cat("the chain starts from ", first_replayable,
                          "'s captured inputs (enc0's launch does not replay: see its line); every later layer's +8 / "
                          "+24 is the chained output of the layer that feeds it, but dec0's skip +24 (enc0's arena "
                          "+48) is dec0's captured one");
  }
  return out;
}

std::vector<std::pair<std::string, std::vector<std::uint8_t>>> network_replay_files(const NetworkReplay& r) {
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files;
  for (const NetworkLayerReplay& l : r.layers) {
    if (l.status == NetworkLayerReplay::Status::not_replayable) continue;
    const LayerSpec& s = layer_spec(l.layer);
    for (auto& [name, bytes] : kernel_capture_outputs(l.replayed, std::string(s.entry), l.launch))
      files.emplace_back(std::string(s.name) + "/" + name, std::move(bytes));
  }
  return files;
}

std::string network_replay_text(const NetworkReplay& r, const std::string& dir) {
  std::string t = cat("rrswin replay --network ", dir, r.chained ? " --chained" : "", ": ",
                      r.chained ? "the network chained, each layer fed by its upstream layers' replayed outputs"
                                : "per layer, each launch from its own captured inputs",
                      "\n");
  if (r.chained) t += cat("  ", r.start, "\n");
  int replayable = 0, differing = 0;
  for (const NetworkLayerReplay& l : r.layers) {
    const LayerSpec& s = layer_spec(l.layer);
    char head[96];
    std::snprintf(head, sizeof head, "  %-5s launch %3u  %4d x %-4d  ", std::string(s.name).c_str(), l.launch, l.ex, l.ey);
    t += head;
    if (l.status == NetworkLayerReplay::Status::not_replayable) {
      t += "not replayable: " + l.why + "\n";
      continue;
    }
    ++replayable;
    if (l.status == NetworkLayerReplay::Status::reproduces) {
      t += cat("reproduces (", l.bytes_compared, " output bytes)");
    } else {
      ++differing;
      std::string per;
      for (const auto& [arg, n] : l.per_output)
        if (n) per += cat(per.empty() ? "" : ", ", "+", arg, ": ", n);
      t += cat("differs: ", l.bytes_differing, " of ", l.bytes_compared, " output bytes (", per, "), first at +", l.first->arg, " ",
               l.first->where);
      if (l.first->block_x >= 0) t += cat(", block (", l.first->block_x, ", ", l.first->block_y, ")");
    }
    if (r.chained) {
      std::string in;
      for (const std::string& i : l.inputs) in += (in.empty() ? "" : "; ") + i;
      t += cat("; inputs ", in);
      if (l.input_bytes_differing) t += cat(" (", l.input_bytes_differing, " bytes differ from its captured inputs)");
    }
    t += "\n";
  }
  if (!r.first_differing) {
    t += cat("every replayable layer reproduces (", replayable, " of ", r.layers.size(), " layers replayable)\n");
  } else {
    const NetworkLayerReplay* f = nullptr;
    for (const NetworkLayerReplay& l : r.layers)
      if (l.layer == *r.first_differing) f = &l;
    t += cat(differing, " of ", replayable, " replayable layers differ; the first: ", to_string(*r.first_differing));
    if (r.chained) t += f && f->input_bytes_differing == 0 ? " (a difference enters there: its inputs are its captured ones)" : "";
    t += "\n";
  }
  return t;
}

std::string network_replay_json(const NetworkReplay& r, const std::string& dir) {
  using capture::json_escape;
  std::string j = cat("{\"capture\": \"", json_escape(dir), "\", \"mode\": \"", r.chained ? "chained" : "per-layer", "\"");
  if (r.chained) j += cat(", \"start\": \"", json_escape(r.start), "\"");
  j += ", \"layers\": [";
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    const NetworkLayerReplay& l = r.layers[i];
    j += cat(i ? ", " : "", "{\"layer\": \"", to_string(l.layer), "\", \"launch\": ", l.launch, ", \"status\": \"", status_name(l.status),
             "\", \"ex\": ", l.ex, ", \"ey\": ", l.ey);
    if (l.status == NetworkLayerReplay::Status::not_replayable) {
      j += cat(", \"why\": \"", json_escape(l.why), "\"}");
      continue;
    }
    j += cat(", \"bytes_compared\": ", l.bytes_compared, ", \"bytes_differing\": ", l.bytes_differing, ", \"per_output\": {");
    for (std::size_t k = 0; k < l.per_output.size(); ++k)
      j += cat(k ? ", " : "", "\"+", l.per_output[k].first, "\": ", l.per_output[k].second);
    j += "}, \"first\": ";
    if (l.first)
      j += cat("{\"arg\": ", l.first->arg, ", \"offset\": ", l.first->offset, ", \"where\": \"", json_escape(l.first->where),
               "\", \"block\": [", l.first->block_x, ", ", l.first->block_y, "]}");
    else
      j += "null";
    if (r.chained) {
      j += ", \"inputs\": [";
      for (std::size_t k = 0; k < l.inputs.size(); ++k) j += cat(k ? ", " : "", "\"", json_escape(l.inputs[k]), "\"");
      j += cat("], \"input_bytes_differing\": ", l.input_bytes_differing);
    }
    j += "}";
  }
  j += "], \"first_differing\": ";
  j += r.first_differing ? cat("\"", to_string(*r.first_differing), "\"") : std::string("null");
  j += cat(", \"reproduces\": ", r.first_differing ? "false" : "true", "}\n");
  return j;
}

}  // namespace rrswin::ptx
