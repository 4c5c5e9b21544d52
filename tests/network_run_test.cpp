// The network as one run (api/network_run.hpp, `rrswin run --network`): the wiring is checked
// against the data flow written out here from ../shared/spec/rr_network_layers.md §6 (enc_i +56 ->
// enc_{i+1} +8, enc5 +48 -> dec4 +8, dec_{i+1} +48 -> dec_i +8, enc_i +48 -> dec_i +24), by running
// each layer alone on the chain's own outputs; the fast engine's chain equals golden's byte for byte.
#include <gtest/gtest.h>
#include <algorithm>
#include <mutex>
#include <tuple>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/network_run.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "numerics/profile.hpp"
#include "test_util.hpp"

namespace {

using rrswin::LayerId;
using test_util::contains;
using test_util::Result;
using test_util::TempDir;

constexpr int kW = 128, kH = 64;  // levels 128x64 .. 4x2

// The render of the two golden chains below (EachLayerIsItselfOnItsUpstreamOutputs,
// FastEqualsGoldenOverTheWholeChain): 128 x 64, under the sanitizers' small scale
// (RRSWIN_TEST_SCALE=small) 64 x 32, a quarter of the blocks. The small render keeps what the chains
// are there for: every layer runs (levels 64x32 .. 2x1; run_network's least render is 32 x 32), on
// several blocks at the levels that cost most (8 x 4 at level 0), with the same wiring, outputs and
// comparisons; the release suite runs them at 128 x 64.
struct Render {
  int w, h;
};
Render chain_render() {
  const char* s = std::getenv("RRSWIN_TEST_SCALE");
  if (s && std::string(s) == "small") return {64, 32};
  return {kW, kH};
}

struct Inputs {
  std::map<LayerId, rrswin::NetworkLayerInputs> layers;
  std::map<LayerId, std::vector<rrswin::Texture>> textures;
  std::map<std::pair<LayerId, int>, std::vector<std::uint8_t>> external;
  std::vector<std::uint8_t> input_tensor;
};

Inputs make_inputs(int w = kW, int h = kH) {
  Inputs in;
  std::uint64_t seed = 40;
  for (LayerId id : rrswin::layer_ids()) {
    const rrswin::LayerSpec& s = rrswin::layer_spec(id);
    if (!s.runnable) continue;
    const rrswin::TokenGrid g = rrswin::level_grid(w, h, rrswin::network_level(id));
    std::vector<rrswin::Texture>& t = in.textures[id];
    t.reserve(3);
    for (int i = 0; i < 3; ++i) t.push_back(rrswin::make_synthetic_frame(g.ex, g.ey, seed++, false, 1).texture);
    rrswin::NetworkLayerInputs& li = in.layers[id];
    li.weights = &rrswin::default_layer_weights(id);
    li.texture = &t[0];
    if (s.front.kind == rrswin::FrontKind::patch_expand) {
      li.texture96 = &t[1];
      li.texture104 = &t[2];
    }
  }
  // enc0's staged input tensor (its prologue from the network input is not decoded): one plane of
  // 32 e4m3 channels at level 0. Every layer runs: nothing else comes from outside.
  in.input_tensor = rrswin::make_synthetic_frame(w, h, 7, false, 1).input_arena;
  in.layers[LayerId::enc0].input_tensor = in.input_tensor;
  return in;
}

// Bit for bit (NaN == NaN): dec0's +144 surfaces.
bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), 4 * a.size()) == 0);
}

const rrswin::NetworkLayerResult& result(const std::vector<rrswin::NetworkLayerResult>& r, LayerId id) {
  for (const auto& x : r)
    if (x.id == id) return x;
  throw std::logic_error("no result");
}

TEST(NetworkRun, EachLayerIsItselfOnItsUpstreamOutputs) {
  const Render rr = chain_render();
  const Inputs in = make_inputs(rr.w, rr.h);
  rrswin::NetworkRunOptions o;
  o.render_w = rr.w;
  o.render_h = rr.h;
  o.engine = rrswin::Engine::golden;
  const std::vector<rrswin::NetworkLayerResult> r = rrswin::run_network(o, in.layers, in.external);
  ASSERT_EQ(r.size(), 11u);
  EXPECT_TRUE(result(r, LayerId::enc0).ran);
  EXPECT_TRUE(result(r, LayerId::enc1).ran);
  EXPECT_TRUE(result(r, LayerId::dec0).ran);
  ASSERT_EQ(result(r, LayerId::enc0).stand_ins.size(), 1u);
  EXPECT_NE(result(r, LayerId::enc0).stand_ins[0].find("staged input tensor"), std::string::npos);
  EXPECT_TRUE(result(r, LayerId::enc1).stand_ins.empty());
  EXPECT_TRUE(result(r, LayerId::dec0).stand_ins.empty());
  // dec0's +48: 8 e4m3 bytes a pixel of the render (DOC-d0 §4.2); +144: 4 f32 a texel.
  const std::size_t pixels = static_cast<std::size_t>(rr.w) * static_cast<std::size_t>(rr.h);
  EXPECT_EQ(result(r, LayerId::dec0).arena.size(), pixels * 8u);
  EXPECT_EQ(result(r, LayerId::dec0).surface144.rgba.size(), pixels * 4u);
  EXPECT_TRUE(result(r, LayerId::enc2).stand_ins.empty());
  EXPECT_TRUE(result(r, LayerId::dec1).stand_ins.empty());
  EXPECT_TRUE(result(r, LayerId::dec3).stand_ins.empty());
  // The data flow, typed here: (layer, its +8 source, its +24 source).
  struct Wire {
    LayerId layer;
    const std::vector<std::uint8_t>* in8;
    const std::vector<std::uint8_t>* in24;
  };
  const Wire wires[] = {
      {LayerId::enc0, &in.input_tensor, nullptr},
      {LayerId::enc1, &result(r, LayerId::enc0).merged, nullptr},
      {LayerId::enc2, &result(r, LayerId::enc1).merged, nullptr},
      {LayerId::enc3, &result(r, LayerId::enc2).merged, nullptr},
      {LayerId::enc4, &result(r, LayerId::enc3).merged, nullptr},
      {LayerId::dec4, &result(r, LayerId::enc5).arena, &result(r, LayerId::enc4).arena},
      {LayerId::dec3, &result(r, LayerId::dec4).arena, &result(r, LayerId::enc3).arena},
      {LayerId::dec2, &result(r, LayerId::dec3).arena, &result(r, LayerId::enc2).arena},
      {LayerId::dec1, &result(r, LayerId::dec2).arena, &result(r, LayerId::enc1).arena},
      {LayerId::dec0, &result(r, LayerId::dec1).arena, &result(r, LayerId::enc0).arena},
  };
  for (const Wire& w : wires) {
    SCOPED_TRACE(std::string(rrswin::to_string(w.layer)));
    const rrswin::NetworkLayerResult& got = result(r, w.layer);
    const rrswin::NetworkLayerInputs& li = in.layers.at(w.layer);
    rrswin::LayerFrame f;
    f.ex = got.ex;
    f.ey = got.ey;
    f.input_arena = *w.in8;
    f.weights = li.weights;
    f.texture = li.texture;
    if (w.in24) {
      f.skip_arena = *w.in24;
      f.texture96 = li.texture96;
      f.texture104 = li.texture104;
      f.scale = li.scale;
    }
    rrswin::run_layer_frame_golden(f, rrswin::profile_ada(), rrswin::Readings{}, rrswin::LayerReadings{});
    EXPECT_TRUE(f.output_arena == got.arena);
    EXPECT_TRUE(f.merged_output == got.merged);
    EXPECT_TRUE(f.surface112.bytes == got.surface112.bytes);
    EXPECT_TRUE(same_bits(f.surface144.rgba, got.surface144.rgba));
  }
  // enc5's input is enc4's merged output (its own frame driver).
  const rrswin::NetworkLayerResult& e5 = result(r, LayerId::enc5);
  std::vector<std::uint8_t> arena5(e5.arena.size(), 0);
  rrswin::Surface s5 = rrswin::Surface::make(e5.ex, e5.ey);
  const rrswin::LaunchParams p = rrswin::frame_launch(e5.ex, e5.ey, result(r, LayerId::enc4).merged, rrswin::default_weights(), arena5,
                                                      *in.layers.at(LayerId::enc5).texture, s5);
  rrswin::RunOptions ro;
  ro.engine = rrswin::Engine::golden;
  rrswin::run_frame(p, ro);
  EXPECT_TRUE(arena5 == e5.arena);
  EXPECT_TRUE(s5.bytes == e5.surface112.bytes);
}

TEST(NetworkRun, FastEqualsGoldenOverTheWholeChain) {
  const Render rr = chain_render();
  const Inputs in = make_inputs(rr.w, rr.h);
  rrswin::NetworkRunOptions o;
  o.render_w = rr.w;
  o.render_h = rr.h;
  o.engine = rrswin::Engine::golden;
  const auto g = rrswin::run_network(o, in.layers, in.external);
  o.engine = rrswin::Engine::fast;
  o.threads = 2;
  const auto f = rrswin::run_network(o, in.layers, in.external);
  for (std::size_t i = 0; i < g.size(); ++i) {
    SCOPED_TRACE(std::string(rrswin::to_string(g[i].id)));
    EXPECT_TRUE(g[i].arena == f[i].arena);
    EXPECT_TRUE(g[i].merged == f[i].merged);
    EXPECT_TRUE(g[i].surface112.bytes == f[i].surface112.bytes);
    EXPECT_TRUE(g[i].surface120.bytes == f[i].surface120.bytes);
    EXPECT_TRUE(same_bits(g[i].surface144.rgba, f[i].surface144.rgba));
  }
}

// The progress callback counts every layer's blocks as they finish, on two threads: for each
// layer, one call per block plus its start and end, never decreasing, ending at the layer's share
// of the run's total (its covering grid: ceil(ex/8) x ceil(ey/8)).
TEST(NetworkRun, ProgressCountsEveryBlockOfEveryLayer) {
  const Inputs in = make_inputs();
  rrswin::NetworkRunOptions o;
  o.render_w = kW;
  o.render_h = kH;
  o.threads = 2;
  std::vector<std::tuple<rrswin::LayerId, std::int64_t, std::int64_t>> calls;
  std::mutex m;
  o.progress = [&](rrswin::LayerId id, std::int64_t done, std::int64_t total) {
    const std::lock_guard<std::mutex> lock(m);
    calls.emplace_back(id, done, total);
  };
  const auto r = rrswin::run_network(o, in.layers, in.external);
  std::int64_t expect_total = 0;
  for (const auto& l : r) expect_total += static_cast<std::int64_t>((l.ex + 7) / 8) * ((l.ey + 7) / 8);
  ASSERT_FALSE(calls.empty());
  std::int64_t last = 0;
  for (const auto& [id, done, total] : calls) {
    EXPECT_EQ(total, expect_total);
    EXPECT_GE(done, last) << rrswin::to_string(id);
    last = done;
  }
  EXPECT_EQ(last, expect_total);
  // Each layer: its start call, one per block, its end call.
  for (const auto& l : r) {
    const std::int64_t blocks = static_cast<std::int64_t>((l.ex + 7) / 8) * ((l.ey + 7) / 8);
    const auto n = std::count_if(calls.begin(), calls.end(), [&](const auto& c) { return std::get<0>(c) == l.id; });
    EXPECT_EQ(n, blocks + 2) << rrswin::to_string(l.id);
  }
}

TEST(NetworkRun, MissingOrMisSizedInputsAreClearErrors) {
  Inputs in = make_inputs();
  rrswin::NetworkRunOptions o;
  o.render_w = kW;
  o.render_h = kH;
  auto message = [&]() {
    try {
      rrswin::run_network(o, in.layers, in.external);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  in.layers[LayerId::enc0].input_tensor = std::span<const std::uint8_t>(in.input_tensor).first(in.input_tensor.size() - 1);
  EXPECT_NE(message().find("enc0's staged input tensor has 262143 bytes, not 262144 (1 plane at 128 x 64)"), std::string::npos)
      << message();
  in = make_inputs();
  in.layers.erase(LayerId::dec3);
  EXPECT_NE(message().find("no weights or texture (+88) for dec3"), std::string::npos) << message();
  o.render_h = 16;
  EXPECT_NE(message().find("smaller than 32 x 32"), std::string::npos) << message();
  const std::vector<rrswin::LayerBuffer> ext = rrswin::network_external_buffers();
  EXPECT_TRUE(ext.empty());  // every layer runs: every edge's producer is in the run
}

TEST(NetworkRun, CliWritesEveryLayersOutputsAndASummary) {
  TempDir t;
  const Result r = t.rrswin("run --network -o out --render 64,64 --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "input the staged input tensor, given (enc0's prologue")) << r.out;
  EXPECT_TRUE(contains(r.out, "; the last layer run, dec0: out/dec0/")) << r.out;
  for (const char* f : {"enc0/arena.bin", "enc0/merged.bin", "enc0/surface128.exr", "enc1/arena.bin", "enc1/merged.bin",
                        "enc1/surface120.exr", "enc2/arena.bin", "enc2/merged.bin", "enc2/surface128.exr", "enc5/surface112.exr",
                        "dec1/arena.bin", "dec0/arena.bin", "dec0/surface144.bin", "dec0/surface112.exr", "summary.txt"})
    EXPECT_TRUE(std::filesystem::exists(t.path / "out" / f)) << f;
  // dec1's arena at level 1 (32 x 32 tokens, 2 planes).
  EXPECT_EQ(std::filesystem::file_size(t.path / "out" / "dec1" / "arena.bin"), 2u * 32 * 32 * 32);
  // dec0's +48 at level 0 (64 x 64 tokens, 8 bytes a pixel) and +144 (4 f32 a texel).
  EXPECT_EQ(std::filesystem::file_size(t.path / "out" / "dec0" / "arena.bin"), 64u * 64 * 8);
  EXPECT_EQ(std::filesystem::file_size(t.path / "out" / "dec0" / "surface144.bin"), 64u * 64 * 16);
  // The same outputs with the golden engine.
  ASSERT_EQ(t.rrswin("run --network -o gold --render 64,64 --engine golden").status, 0);
  for (const char* f : {"enc0/merged.bin", "enc0/surface120.exr", "enc1/merged.bin", "enc1/surface128.exr", "enc3/arena.bin",
                        "dec1/arena.bin", "dec2/surface112.exr", "dec0/arena.bin", "dec0/surface144.bin", "dec0/surface112.exr"})
    EXPECT_EQ(test_util::bytes_of(t.path / "out" / f), test_util::bytes_of(t.path / "gold" / f)) << f;
  EXPECT_EQ(t.rrswin("run --network --render 16,64").status, 2);
  EXPECT_EQ(t.rrswin("run --network --bogus").status, 2);
  std::filesystem::create_directories(t.path / "blocked");
  { std::ofstream(t.path / "blocked" / "enc2") << "a file where a folder goes"; }
  const Result b = t.rrswin("run --network -o blocked --render 64,64");
  EXPECT_NE(b.status, 0);
  EXPECT_FALSE(std::filesystem::exists(t.path / "blocked" / "summary.txt")) << "no partial output set";
}

// rrswin diff --network: one line per layer and the first layer that differs. The same run twice is
// identical; `ada` against `zluda` (whose sums are exact where ada's mma truncates: numerics.md)
// differs from the first layer on, enc0; a changed byte in one layer's arena is found in that layer.
TEST(NetworkRun, DiffNamesTheFirstLayerThatDiffers) {
  TempDir t;
  ASSERT_EQ(t.rrswin("run --network -o a --render 64,64").status, 0);
  ASSERT_EQ(t.rrswin("run --network -o b --render 64,64").status, 0);
  ASSERT_EQ(t.rrswin("run --network -o z --render 64,64 --profile zluda").status, 0);
  const Result same = t.rrswin("diff a b --network");
  EXPECT_EQ(same.status, 0) << same.out;
  EXPECT_TRUE(contains(same.out, "  enc3   identical\n")) << same.out;
  EXPECT_TRUE(contains(same.out, "IDENTICAL: 11 layers")) << same.out;
  const Result z = t.rrswin("diff a z --network");
  EXPECT_EQ(z.status, 1) << z.out;
  EXPECT_TRUE(contains(z.out, "the first that differs: enc0")) << z.out;
  // One byte of dec2's arena (level 2: 16 x 16 tokens, 3 planes) at pixel (9, 3) of plane 0: block (1, 0).
  const std::filesystem::path f = t.path / "b" / "dec2" / "arena.bin";
  std::vector<std::uint8_t> bytes = test_util::bytes_of(f);
  ASSERT_EQ(bytes.size(), 3u * 16 * 16 * 32);
  bytes[32 * (3 * 16 + 9) + 5] ^= 1;
  {
    std::ofstream o(f, std::ios::binary);
    o.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  const Result one = t.rrswin("diff a b --network");
  EXPECT_EQ(one.status, 1) << one.out;
  EXPECT_TRUE(contains(one.out, "  dec2   arena.bin: 1 of 24576 bytes differ (first at block (1, 0))")) << one.out;
  EXPECT_TRUE(contains(one.out, "DIFFERENT: 1 of 11 layers differ; the first that differs: dec2")) << one.out;
  EXPECT_EQ(t.rrswin("diff a nowhere --network").status, 2);
  EXPECT_EQ(t.rrswin("diff a b --network --layer enc4").status, 2);
}

}  // namespace
