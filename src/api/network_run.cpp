// The network as one run (api/network_run.hpp).
#include "api/network_run.hpp"

#include <chrono>
#include <stdexcept>

#include "engine/layer_engine.hpp"
#include "engine/simd.hpp"
#include "model/text.hpp"

namespace rrswin {

namespace {

std::string buffer_name(LayerBuffer b) { return cat(to_string(b.layer), ".+", b.param); }

// The input parameters a layer reads from other layers: +8 (enc0 has none: its input is the
// network's, NetworkLayerInputs::input_tensor), +24 for the decoders.
std::vector<int> input_params(const LayerSpec& s) {
  if (s.front.kind == FrontKind::patch_expand) return {8, 24};
  if (s.abi.input < 0) return {};
  return {8};
}

}  // namespace

std::vector<LayerBuffer> network_external_buffers() {
  std::vector<LayerBuffer> v;
  for (LayerId id : layer_ids()) {
    const LayerSpec& s = layer_spec(id);
    if (!s.runnable) continue;
    for (int p : input_params(s)) {
      const std::optional<LayerBuffer> from = producing_buffer({id, p});
      if (from && !layer_spec(from->layer).runnable) v.push_back(*from);
    }
  }
  return v;
}

std::vector<NetworkLayerResult> run_network(const NetworkRunOptions& o, const std::map<LayerId, NetworkLayerInputs>& layers,
                                            const std::map<std::pair<LayerId, int>, std::vector<std::uint8_t>>& external) {
  if (o.render_w < 32 || o.render_h < 32)
    throw std::invalid_argument(cat("run_network: the render ", o.render_w, " x ", o.render_h,
                                    " is smaller than 32 x 32 (five halvings to the bottom level need at least one token there)"));
  const Profile& profile = o.profile ? *o.profile : profile_ada();
  std::vector<NetworkLayerResult> out;
  // The run's blocks (for o.progress): every runnable layer's covering grid at its level.
  auto layer_blocks = [&](LayerId id) {
    const TokenGrid g = level_grid(o.render_w, o.render_h, network_level(id));
    const abi::GridExtent grid = abi::covering_grid(static_cast<std::uint32_t>(g.ex), static_cast<std::uint32_t>(g.ey), 0, 0);
    return static_cast<std::int64_t>(grid.x) * static_cast<std::int64_t>(grid.y);
  };
  std::int64_t blocks_total = 0, blocks_done = 0;
  for (LayerId id : layer_ids())
    if (layer_spec(id).runnable) blocks_total += layer_blocks(id);
  // Where each produced buffer is: a finished layer's result, or the caller's external buffer.
  auto find_buffer = [&](LayerBuffer b) -> const std::vector<std::uint8_t>* {
    for (const NetworkLayerResult& r : out)
      if (r.id == b.layer && r.ran) return b.param == 56 ? &r.merged : &r.arena;
    const auto e = external.find({b.layer, b.param});
    return e == external.end() ? nullptr : &e->second;
  };
  for (LayerId id : layer_ids()) {
    const LayerSpec& s = layer_spec(id);
    NetworkLayerResult r;
    r.id = id;
    const TokenGrid g = level_grid(o.render_w, o.render_h, network_level(id));
    r.ex = g.ex;
    r.ey = g.ey;
    if (!s.runnable) {
      out.push_back(std::move(r));
      continue;
    }
    const auto in = layers.find(id);
    if (in == layers.end() || !in->second.weights || !in->second.texture)
      throw std::invalid_argument(cat("run_network: no weights or texture (+88) for ", s.name));
    const NetworkLayerInputs& li = in->second;
    // The edges into the layer: each the producer's buffer, of the size the rows give it.
    std::map<int, const std::vector<std::uint8_t>*> inputs;
    for (int p : input_params(s)) {
      const std::optional<LayerBuffer> from = producing_buffer({id, p});
      if (!from) throw std::logic_error(cat("run_network: ", s.name, " +", p, " has no edge"));
      const std::vector<std::uint8_t>* buf = find_buffer(*from);
      if (!buf)
        throw std::invalid_argument(cat("run_network: ", s.name, " +", p, " reads ", buffer_name(*from),
                                        ", which no layer of the run produced", " and no external buffer gives"));
      const std::optional<std::uint64_t> want = buffer_bytes(*from, o.render_w, o.render_h);
      if (want && buf->size() != *want)
        throw std::invalid_argument(cat("run_network: ", buffer_name(*from), " (", s.name, " +", p, ") has ", buf->size(), " bytes, not ",
                                        *want, " at the ", o.render_w, " x ", o.render_h, " render"));
      if (!layer_spec(from->layer).runnable)
        r.stand_ins.push_back(cat("+", p, " <- ", buffer_name(*from), " (external: ", to_string(from->layer), " does not run yet)"));
      inputs[p] = buf;
    }
    if (o.progress) o.progress(id, blocks_done, blocks_total);
    const auto t0 = std::chrono::steady_clock::now();
    if (id == LayerId::enc5) {
      // enc5 runs through its own frame driver (api/frame.hpp).
      r.arena.assign(buffer_bytes({id, 48}, o.render_w, o.render_h).value(), 0);
      r.surface112 = Surface::make(g.ex, g.ey);
      LaunchParams lp = frame_launch(static_cast<std::uint32_t>(g.ex), static_cast<std::uint32_t>(g.ey), *inputs[8], *li.weights, r.arena,
                                     *li.texture, r.surface112);
      RunOptions ro;
      ro.profile = &profile;
      ro.readings = o.readings;
      ro.engine = o.engine;
      ro.threads = o.threads;
      if (o.progress)
        ro.progress = [&o, id, blocks_done, blocks_total](std::int64_t d, std::int64_t) { o.progress(id, blocks_done + d, blocks_total); };
      run_frame(lp, ro);
    } else {
      LayerFrame f;
      f.ex = g.ex;
      f.ey = g.ey;
      if (s.abi.input < 0) {
        const std::uint64_t want =
            static_cast<std::uint64_t>(g.ex) * static_cast<std::uint64_t>(g.ey) * 32u * static_cast<std::uint64_t>(s.k_slices());
        if (li.input_tensor.size() != want)
          throw std::invalid_argument(cat("run_network: ", s.name, "'s staged input tensor has ", li.input_tensor.size(), " bytes, not ",
                                          want, " (", s.k_slices(), " plane at ", g.ex, " x ", g.ey, ")"));
        f.input_arena = li.input_tensor;
        r.stand_ins.push_back("the staged input tensor, given (enc0's prologue from the network input +304 is not decoded)");
      } else {
        f.input_arena = *inputs[8];
      }
      f.weights = li.weights;
      f.texture = li.texture;
      if (o.progress)
        f.progress = [&o, id, blocks_done, blocks_total](std::int64_t d, std::int64_t) { o.progress(id, blocks_done + d, blocks_total); };
      if (s.front.kind == FrontKind::patch_expand) {
        f.skip_arena = *inputs[24];
        f.texture96 = li.texture96;
        f.texture104 = li.texture104;
        f.scale = li.scale;
      }
      if (o.engine == Engine::golden)
        run_layer_frame_golden(f, profile, o.readings, o.layer_readings);
      else
        engine::run_layer_frame_fast(f, profile, o.readings, o.layer_readings, {engine::default_simd_path(), o.threads});
      r.arena = std::move(f.output_arena);
      r.merged = std::move(f.merged_output);
      r.surface112 = std::move(f.surface112);
      r.surface120 = std::move(f.surface120);
      r.surface128 = std::move(f.surface128);
      r.surface144 = std::move(f.surface144);
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.ran = true;
    blocks_done += layer_blocks(id);
    if (o.progress) o.progress(id, blocks_done, blocks_total);
    if (o.layer_done) o.layer_done(id, r.seconds);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace rrswin
