// The fast engine of the layers beside enc5 (engine/layer_engine.hpp) against their golden model
// (model/layer_golden.hpp), byte for byte: the plane arena (+48), the merged output (+56), the final
// epilogues' surfaces and the statistics. The merge layers (enc4, enc3, enc2) and the decoders
// (dec4, dec3, dec2) run engine/block.cpp's fused block at their own dimensions (C = 160, 128, 96;
// issue 33): every profile on every SIMD path this CPU has at 1, 2 and 3 threads, random weight
// images (the synthetic images and a stress-like one with NaN codes in the merge and final weights),
// negative block offsets, odd extents, every reading of the template's parts (Readings: the sum
// trees at 20, 16 and 12 terms, the residuals, the arena orders, ...) and the layers' own readings.
// That the fused block is what ran is checked too (FusedBlockRunsEveryLayerItTakes), so that a
// routing back to the golden parts cannot pass for it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "engine/engine.hpp"
#include "engine/layer_engine.hpp"
#include "engine/simd.hpp"
#include "model/layer_golden.hpp"
#include "model/readings.hpp"
#include "numerics/profile.hpp"

namespace rrswin {
namespace {

struct Outputs {
  std::vector<std::uint8_t> arena, merged, s112, s120, s128, s144;  // s144: dec0's f32 surface, its bytes
  golden::LayerStats stats;
};

// stats = false: no statistics gathered, which is where the fast engine runs its own fronts
// (engine/layer_engine.cpp expand_front, embedding_front_fast); their counts are then zero.
Outputs run(const WeightImage& w, const SyntheticFrame& in, int ex, int ey, int ox, int oy, const Profile& p, const Readings& r,
            const LayerReadings& lr, const engine::SimdPath* fast, int threads = 1, bool stats = true) {
  LayerFrame f;
  f.ex = ex;
  f.ey = ey;
  f.ox = ox;
  f.oy = oy;
  f.input_arena = in.input_arena;
  f.weights = &w;
  f.texture = &in.texture;
  Outputs o;
  if (fast)
    engine::run_layer_frame_fast(f, p, r, lr, {*fast, threads}, stats ? &o.stats : nullptr);
  else
    run_layer_frame_golden(f, p, r, lr, stats ? &o.stats : nullptr);
  o.arena = f.output_arena;
  o.merged = f.merged_output;
  o.s112 = f.surface112.bytes;
  o.s120 = f.surface120.bytes;
  o.s128 = f.surface128.bytes;
  return o;
}

void expect_same(const Outputs& g, const Outputs& e, const std::string& what) {
  EXPECT_TRUE(g.arena == e.arena) << what << ": arena";
  EXPECT_TRUE(g.merged == e.merged) << what << ": merged output";
  EXPECT_TRUE(g.s112 == e.s112) << what << ": surface +112";
  EXPECT_TRUE(g.s120 == e.s120) << what << ": surface +120";
  EXPECT_TRUE(g.s128 == e.s128) << what << ": surface +128";
  EXPECT_TRUE(g.s144 == e.s144) << what << ": surface +144";
  EXPECT_EQ(g.stats.e4m3_saturated, e.stats.e4m3_saturated) << what;
  EXPECT_EQ(g.stats.f16_subnormal, e.stats.f16_subnormal) << what;
  EXPECT_EQ(g.stats.arena_stores, e.stats.arena_stores) << what;
  EXPECT_EQ(g.stats.arena_stores_dropped, e.stats.arena_stores_dropped) << what;
  EXPECT_EQ(g.stats.act_clamp_low + g.stats.act_clamp_high, e.stats.act_clamp_low + e.stats.act_clamp_high) << what;
  EXPECT_EQ(g.stats.pixels_written, e.stats.pixels_written) << what;
}

TEST(LayerEngineDiff, Enc4FastEqualsGoldenForEveryProfileAndPath) {
  const WeightImage& w = default_layer_weights(LayerId::enc4);
  const SyntheticFrame in = make_synthetic_frame(13, 9, 11, false);  // odd extents, 3 x 2 blocks with the offsets
  for (const Profile* p : all_profiles()) {
    const Outputs g = run(w, in, 13, 9, 3, 1, *p, Readings{}, LayerReadings{}, nullptr);
    EXPECT_GT(g.stats.pixels_written, 0u);
    for (engine::SimdPath path : engine::supported_simd_paths()) {
      if (p != &profile_ada() && path != engine::best_simd_path()) continue;  // ada on every path, the others on the widest
      const Outputs e = run(w, in, 13, 9, 3, 1, *p, Readings{}, LayerReadings{}, &path);
      expect_same(g, e, std::string(p->name) + " / " + std::string(engine::to_string(path)));
    }
  }
}

TEST(LayerEngineDiff, Enc4FastEqualsGoldenWithNaNCodesAndOtherReadings) {
  // The merge's and the final phase's weights with NaN codes (0x7F / 0xFF) and the largest codes:
  // the engine's exact fallback (gemm runs mma_dot on NaN operands) must agree too.
  std::vector<std::uint8_t> b(default_layer_weights(LayerId::enc4).bytes().begin(), default_layer_weights(LayerId::enc4).bytes().end());
  const WeightMap m = weight_map(layer_spec(LayerId::enc4));
  SplitMix64 rng(5);
  for (std::uint32_t off = m.merge_weights(); off < m.final_bias(); off += 1 + rng.below(997)) {
    const std::uint8_t pick[4] = {0x7F, 0xFF, 0x7E, 0xFE};
    b[off] = pick[rng.below(4)];
  }
  const WeightImage w(std::move(b), LayerId::enc4, "nan codes");
  const SyntheticFrame in = make_synthetic_frame(16, 8, 2, true);
  LayerReadings lr;
  lr.merge_gather_order = MergeGatherOrder::raster;
  lr.merge_output_layout = MergeOutputLayout::token_words;
  lr.e62_gate = E62Gate::acc;
  lr.e62_quad_writer = E62QuadWriter::odd;
  Readings r;
  r.arena_order = ArenaOrder::natural;
  const engine::SimdPath path = engine::best_simd_path();
  for (const Profile* p : {&profile_ada(), find_profile("zluda")}) {
    const Outputs g = run(w, in, 16, 8, 0, 0, *p, r, lr, nullptr);
    const Outputs e = run(w, in, 16, 8, 0, 0, *p, r, lr, &path);
    expect_same(g, e, std::string(p->name) + " nan codes");
  }
}

// Every runnable merge layer other than enc4 (whose own tests are above): enc3, enc2.
std::vector<LayerId> other_merge_layers() {
  std::vector<LayerId> v;
  for (LayerId id : layer_ids())
    if (layer_spec(id).runnable && layer_spec(id).merge() && id != LayerId::enc4) v.push_back(id);
  return v;
}

bool small_scale();

TEST(LayerEngineDiff, MergeLayersFastEqualsGoldenForEveryProfilePathAndThreadCount) {
  ASSERT_GE(other_merge_layers().size(), 2u);  // enc3 and enc2 at least
  for (LayerId id : other_merge_layers()) {
    SCOPED_TRACE(std::string(to_string(id)));
    const WeightImage& w = default_layer_weights(id);
    const SyntheticFrame in = make_synthetic_frame(13, 9, 7, false, layer_spec(id).k_slices());
    for (const Profile* p : all_profiles()) {
      const Outputs g = run(w, in, 13, 9, 3, 1, *p, Readings{}, LayerReadings{}, nullptr);
      EXPECT_GT(g.stats.pixels_written, 0u);
      for (engine::SimdPath path : engine::supported_simd_paths()) {
        // Every profile on every path (under the sanitizers' small scale: ada on every path, the
        // others on the widest), at 1, 2 and 3 threads (6 blocks: the heads' and rows' split too).
        if (small_scale() && p != &profile_ada() && path != engine::best_simd_path()) continue;
        for (int threads : {1, 2, 3}) {
          const Outputs e = run(w, in, 13, 9, 3, 1, *p, Readings{}, LayerReadings{}, &path, threads);
          expect_same(g, e,
                      std::string(p->name) + " / " + std::string(engine::to_string(path)) + " / " + std::to_string(threads) + " threads");
        }
      }
    }
  }
}

// The merge layers' merge store and final epilogue as the engine runs them where no statistics are
// counted (engine/layer_engine.cpp merge_store_fast: the words' placement made once per frame;
// e62_block: the logits and taps gathered per block, steps (b)..(e) in vector lanes, the quad sums'
// shuffles as tables): every merge layer at odd extents and offsets (blocks with pixels and merged
// tokens out of frame: inactive lanes, taps across the border), the texture's four address modes,
// every value of the sigmoid-* and merge-* readings, arena-order and the taps' filter-border and
// filter-tap-map, against golden (also without statistics); ada and zluda on every path.
TEST(LayerEngineDiff, MergeStoreAndFinalEpilogueWithoutStatisticsEqualGolden) {
  std::vector<LayerId> layers = other_merge_layers();
  layers.push_back(LayerId::enc4);
  struct Case {
    std::string name;
    Readings rd;
    LayerReadings lr;
    AddressMode mode = AddressMode::clamp;
  };
  std::vector<Case> cases;
  for (AddressMode m : {AddressMode::clamp, AddressMode::border_zero, AddressMode::wrap, AddressMode::mirror})
    cases.push_back({"address mode " + std::to_string(static_cast<int>(m)), Readings{}, LayerReadings{}, m});
  for (const LayerReadingInfo& info : layer_reading_registry())
    if (info.name.rfind("sigmoid-", 0) == 0 || info.name.rfind("merge-", 0) == 0)
      for (std::size_t v = 1; v < info.values.size(); ++v) {
        Case c{info.name + "=" + info.values[v], Readings{}, LayerReadings{}};
        std::string err;
        ASSERT_TRUE(set_layer_reading(c.lr, c.name, &err)) << err;
        cases.push_back(c);
      }
  for (const ReadingInfo& info : reading_registry())
    // the taps' (E61's other readings: EngineE61.*) and the merge store's word order
    if (info.name == "filter-border" || info.name == "filter-tap-map" || info.name == "arena-order")
      for (std::size_t v = 1; v < info.values.size(); ++v) {
        Case c{info.name + "=" + info.values[v], Readings{}, LayerReadings{}};
        std::string err;
        ASSERT_TRUE(set_reading(c.rd, info.name, info.values[v], &err)) << err;
        cases.push_back(c);
      }
  ASSERT_GE(cases.size(), 4u + 8u + 3u + 4u);
  const engine::SimdPath best = engine::best_simd_path();
  for (LayerId id : layers) {
    SCOPED_TRACE(std::string(to_string(id)));
    const WeightImage& w = default_layer_weights(id);
    SyntheticFrame in = make_synthetic_frame(19, 11, 6, true, layer_spec(id).k_slices());
    for (const Case& c : cases) {
      // The first case on every layer, profile and path; the others on enc0 (its logits from D's
      // rows) and enc4 (from the shared records), ada on the widest path. Under the sanitizers'
      // small scale, every other case on enc0 only.
      const bool first = &c == &cases.front();
      if (!first && id != LayerId::enc0 && (id != LayerId::enc4 || small_scale())) continue;
      in.texture.mode = c.mode;
      for (const Profile* p : {&profile_ada(), find_profile("zluda")}) {
        if (!first && p != &profile_ada()) continue;
        const Outputs g = run(w, in, 19, 11, 3, 2, *p, c.rd, c.lr, nullptr, 1, false);
        for (engine::SimdPath path : engine::supported_simd_paths()) {
          if (path != best && !first) continue;
          const Outputs e = run(w, in, 19, 11, 3, 2, *p, c.rd, c.lr, &path, 2, false);
          expect_same(g, e, c.name + " / " + std::string(p->name) + " / " + std::string(engine::to_string(path)));
        }
      }
    }
  }
}

// The register merge (enc1's E30, enc0's E20) runs on the engine as a byte table made from the
// golden gather (engine/layer_engine.cpp register_merge_bytes): every merge-register-k-order under
// both arena orders, golden against fast, and each order's merged output its own (enc0's one plane
// makes token- and plane-major one order).
TEST(LayerEngineDiff, RegisterMergeUnderEveryKOrderAndArenaOrder) {
  const engine::SimdPath best = engine::best_simd_path();
  const LayerReadingInfo* info = nullptr;
  for (const LayerReadingInfo& i : layer_reading_registry())
    if (i.name == "merge-register-k-order") info = &i;
  ASSERT_NE(info, nullptr);
  ASSERT_GE(info->values.size(), 4u);
  for (LayerId id : {LayerId::enc1, LayerId::enc0}) {
    SCOPED_TRACE(std::string(to_string(id)));
    const SyntheticFrame in = make_synthetic_frame(16, 8, 3, false, layer_spec(id).k_slices());
    for (ArenaOrder order : {ArenaOrder::fragment, ArenaOrder::natural}) {
      Readings r;
      r.arena_order = order;
      std::vector<std::vector<std::uint8_t>> merged;
      for (const std::string& value : info->values) {
        LayerReadings lr;
        std::string err;
        ASSERT_TRUE(set_layer_reading(lr, "merge-register-k-order=" + value, &err)) << err;
        const Outputs g = run(default_layer_weights(id), in, 16, 8, 0, 0, profile_ada(), r, lr, nullptr);
        expect_same(g, run(default_layer_weights(id), in, 16, 8, 0, 0, profile_ada(), r, lr, &best, 2), value);
        if (std::find(merged.begin(), merged.end(), g.merged) == merged.end()) merged.push_back(g.merged);
      }
      // Four orders on enc1's two planes; on enc0's one plane token- and plane-major are one order.
      EXPECT_EQ(merged.size(), layer_spec(id).k_slices() > 1 ? info->values.size() : 2u);
    }
  }
}

TEST(LayerEngineDiff, MergeLayersAtSeveralThreadsWithTheOddQuadWriter) {
  // sigmoid-quad-writer = odd with an odd origin offset: two blocks write one +128 texel, so the driver
  // runs serially; with an even offset the blocks run on the threads. Both: the golden bytes.
  LayerReadings lr;
  lr.e62_quad_writer = E62QuadWriter::odd;
  const engine::SimdPath path = engine::best_simd_path();
  std::vector<LayerId> layers = other_merge_layers();
  layers.push_back(LayerId::enc4);
  for (LayerId id : layers) {
    const SyntheticFrame in = make_synthetic_frame(20, 12, 3, true, layer_spec(id).k_slices());
    for (int o : {1, 2}) {
      const Outputs g = run(default_layer_weights(id), in, 20, 12, o, o, profile_ada(), Readings{}, lr, nullptr);
      const Outputs e = run(default_layer_weights(id), in, 20, 12, o, o, profile_ada(), Readings{}, lr, &path, 4);
      expect_same(g, e, std::string(to_string(id)) + " offset " + std::to_string(o));
    }
  }
}

// The decoders (dec4..dec0; dec0 on the golden parts throughout, engine::layer_parts): the front on the golden parts, every GEMM k-step on the engine, the decoder
// final epilogue; byte for byte the golden model for every profile, path and thread count, with
// stress inputs (saturating and subnormal codes, all-zero tokens) and every decoder reading.
std::vector<LayerId> decoders() {
  std::vector<LayerId> v;
  for (LayerId id : layer_ids())
    if (layer_spec(id).runnable && layer_spec(id).front.kind == FrontKind::patch_expand) v.push_back(id);
  return v;
}

Outputs run_decoder(LayerId id, int ex, int ey, int ox, int oy, bool stress, const Profile& p, const LayerReadings& lr,
                    const engine::SimdPath* fast, int threads = 1, bool stats = true, const Readings& rd = Readings{}) {
  const LayerSpec& s = layer_spec(id);
  const SyntheticFrame in = make_synthetic_frame(ex >> 1, ey >> 1, 21, stress, s.front.k / 32);
  const SyntheticFrame skip = make_synthetic_frame(ex, ey, 22, stress, s.k_slices());
  const SyntheticFrame t104 = make_synthetic_frame(ex, ey, 23, stress, 1);
  LayerFrame f;
  f.ex = ex;
  f.ey = ey;
  f.ox = ox;
  f.oy = oy;
  f.input_arena = in.input_arena;
  f.skip_arena = skip.input_arena;
  f.weights = &default_layer_weights(id);
  f.texture = &in.texture;
  f.texture96 = &skip.texture;
  f.texture104 = &t104.texture;
  f.scale = {0.5f, 0.5f};
  Outputs o;
  if (fast)
    engine::run_layer_frame_fast(f, p, rd, lr, {*fast, threads}, stats ? &o.stats : nullptr);
  else
    run_layer_frame_golden(f, p, rd, lr, stats ? &o.stats : nullptr);
  o.arena = f.output_arena;
  o.s112 = f.surface112.bytes;
  o.s144.resize(4 * f.surface144.rgba.size());
  if (!o.s144.empty()) std::memcpy(o.s144.data(), f.surface144.rgba.data(), o.s144.size());
  return o;
}

bool small_scale() {
  const char* s = std::getenv("RRSWIN_TEST_SCALE");
  return s && std::string(s) == "small";
}

TEST(LayerEngineDiff, DecodersFastEqualsGoldenForEveryProfilePathAndThreadCount) {
  ASSERT_FALSE(decoders().empty());
  for (LayerId id : decoders()) {
    SCOPED_TRACE(std::string(to_string(id)));
    // Under the sanitizers (RRSWIN_TEST_SCALE=small): the first decoder on every profile and path,
    // the others on ada's widest path.
    const bool all = !small_scale() || id == decoders().front();
    for (const Profile* p : all_profiles()) {
      if (!all && p != &profile_ada()) continue;
      const Outputs g = run_decoder(id, 19, 11, 3, 2, false, *p, LayerReadings{}, nullptr);
      EXPECT_GT(g.stats.pixels_written, 0u);
      for (engine::SimdPath path : engine::supported_simd_paths()) {
        // Every profile on every path at full scale; under the sanitizers ada on every path.
        if ((small_scale() ? p != &profile_ada() || !all : false) && path != engine::best_simd_path()) continue;
        for (int threads : {1, 3}) {
          if (threads > 1 && small_scale() && p != &profile_ada()) continue;
          expect_same(g, run_decoder(id, 19, 11, 3, 2, false, *p, LayerReadings{}, &path, threads),
                      std::string(p->name) + " / " + std::string(engine::to_string(path)) + " / " + std::to_string(threads) + " threads");
        }
      }
    }
    // Stress inputs and every decoder reading's other value; each must change the default's output
    // (run once per decoder: the same frame and readings for every reading).
    const engine::SimdPath best = engine::best_simd_path();
    Outputs d;
    if (all) d = run_decoder(id, 18, 13, 0, 5, true, profile_ada(), LayerReadings{}, nullptr);
    for (const char* reading : {"expand-load-order=fragment", "expand-fill=zero", "expand-subpixel=dx-dy", "decoder-sampler=point",
                                "decoder-gate-logit=centred", "expand-column-split=interleaved", "dec0-output-columns=tanh-first"}) {
      if (!all) break;
      const std::vector<LayerId> applies = reading_layers(std::string(reading).substr(0, std::string(reading).find('=')));
      if (std::find(applies.begin(), applies.end(), id) == applies.end()) continue;  // dec1's and dec0's, dec0's alone
      LayerReadings lr;
      std::string err;
      ASSERT_TRUE(set_layer_reading(lr, reading, &err)) << err;
      const Outputs g = run_decoder(id, 18, 13, 0, 5, true, profile_ada(), lr, nullptr);
      expect_same(g, run_decoder(id, 18, 13, 0, 5, true, profile_ada(), lr, &best, 2), reading);
      EXPECT_TRUE(d.arena != g.arena || d.s112 != g.s112 || d.s144 != g.s144) << reading << " changes nothing";
    }
  }
}

// The fronts the fast engine runs itself where no statistics are counted (engine/layer_engine.cpp
// expand_front: the decoders' phase 1 and E1; embedding_front_fast: enc0's embedding; the tests
// above count statistics, which runs golden's front parts on the engine's kernels instead): byte
// for byte the golden model on every profile, path and thread count, with stress inputs, each
// front reading's other value and the template readings the fronts read.
TEST(LayerEngineDiff, FrontsWithoutStatisticsEqualGolden) {
  const std::vector<std::string> template_readings = {"prologue-fill=zero",           "prologue-fill=clamp",
                                                      "prologue-sum-tree=sequential", "prologue-load-order=natural",
                                                      "prologue-norm=identity",       "prologue-eps=2^-10"};
  std::vector<LayerId> layers = decoders();
  layers.push_back(LayerId::enc0);
  for (LayerId id : layers) {
    SCOPED_TRACE(std::string(to_string(id)));
    const bool decoder = id != LayerId::enc0;
    const bool all = !small_scale() || id == layers.front() || id == LayerId::enc0;
    const SyntheticFrame in = make_synthetic_frame(19, 11, 4, true, layer_spec(id).k_slices());
    auto one = [&](const Profile& p, const Readings& rd, const LayerReadings& lr, const engine::SimdPath* path, int threads) {
      return decoder ? run_decoder(id, 19, 11, 3, 2, true, p, lr, path, threads, path == nullptr, rd)
                     : run(default_layer_weights(id), in, 19, 11, 3, 2, p, rd, lr, path, threads, path == nullptr);
    };
    for (const Profile* p : all_profiles()) {
      if (!all && p != &profile_ada()) continue;
      const Outputs g = one(*p, Readings{}, LayerReadings{}, nullptr, 1);
      for (engine::SimdPath path : engine::supported_simd_paths())
        for (int threads : {1, 3}) {
          // Under the sanitizers' small scale (RRSWIN_TEST_SCALE=small): one thread, ada on every
          // path and the other profiles on the widest (as the decoders' test above), so every
          // front's every SIMD path and every profile's front still run under ASan + UBSan; the
          // readings below run at 2 threads. The release suite runs every profile, path and thread count.
          if (small_scale() && threads > 1) continue;
          if (small_scale() && p != &profile_ada() && path != engine::best_simd_path()) continue;
          Outputs e = one(*p, Readings{}, LayerReadings{}, &path, threads);
          e.stats = g.stats;  // counted on the golden side only
          expect_same(g, e,
                      std::string(p->name) + " / " + std::string(engine::to_string(path)) + " / " + std::to_string(threads) + " threads");
        }
    }
    if (!all) continue;
    const engine::SimdPath best = engine::best_simd_path();
    std::vector<std::string> readings = template_readings;
    for (const char* r : {"expand-load-order=fragment", "expand-fill=zero", "expand-subpixel=dx-dy", "expand-column-split=interleaved"})
      if (decoder) readings.push_back(r);
    for (const std::string& reading : readings) {
      Readings rd;
      LayerReadings lr;
      std::string err;
      const std::string name = reading.substr(0, reading.find('=')), value = reading.substr(reading.find('=') + 1);
      const bool layer_reading = name.rfind("expand-", 0) == 0;
      if (layer_reading) {
        const std::vector<LayerId> applies = reading_layers(name);
        if (std::find(applies.begin(), applies.end(), id) == applies.end()) continue;
        ASSERT_TRUE(set_layer_reading(lr, reading, &err)) << err;
      } else {
        ASSERT_TRUE(set_reading(rd, name, value, &err)) << err;
      }
      const Outputs g = one(profile_ada(), rd, lr, nullptr, 1);
      Outputs e = one(profile_ada(), rd, lr, &best, 2);
      e.stats = g.stats;
      expect_same(g, e, reading);
    }
  }
}

// The template's readings (Readings: the prologue's and E20's sum trees, whose 16- and 12-term forms
// the engine's per-n-tile kernels instantiate, the norm and eps, the residuals, the load and arena
// orders, the halo, the lane guard, ...), each non-default value, on the fused block of every layer
// the fast engine runs beside enc5 (ada, the widest path, 2 threads; a decoder with stress inputs);
// a value that changes nothing on a layer is allowed (some are read by enc5's E61 only).
TEST(LayerEngineDiff, EveryTemplateReadingOnTheFusedBlockOfEveryLayer) {
  const engine::SimdPath best = engine::best_simd_path();
  std::vector<LayerId> layers = other_merge_layers();
  layers.push_back(LayerId::enc4);
  if (!small_scale())
    for (LayerId id : decoders()) layers.push_back(id);
  int runs = 0;
  for (LayerId id : layers) {
    SCOPED_TRACE(std::string(to_string(id)));
    const bool decoder = layer_spec(id).front.kind == FrontKind::patch_expand;
    const SyntheticFrame in = make_synthetic_frame(8, 8, 5, true, layer_spec(id).k_slices());  // one block, its halo out of frame
    for (const ReadingInfo& info : reading_registry()) {
      if (is_instruction_reading(info.name)) continue;  // the mma corners: EngineFrame.MmaCornerReadings
      for (const std::string& value : info.values) {
        if (value == info.default_value) continue;
        Readings rd;
        std::string err;
        ASSERT_TRUE(set_reading(rd, info.name, value, &err)) << err;
        const std::string what = info.name + "=" + value;
        if (decoder) {
          // run_decoder takes the default Readings; the template's readings through the frame below.
          const SyntheticFrame half = make_synthetic_frame(4, 4, 21, true, layer_spec(id).front.k / 32);
          const SyntheticFrame t104 = make_synthetic_frame(8, 8, 23, true, 1);
          auto one = [&](const engine::SimdPath* path) {
            LayerFrame g;
            g.ex = 8;
            g.ey = 8;
            g.input_arena = half.input_arena;
            g.skip_arena = in.input_arena;
            g.weights = &default_layer_weights(id);
            g.texture = &half.texture;
            g.texture96 = &in.texture;
            g.texture104 = &t104.texture;
            g.scale = {0.5f, 0.5f};
            Outputs o;
            if (path)
              engine::run_layer_frame_fast(g, profile_ada(), rd, LayerReadings{}, {*path, 2}, &o.stats);
            else
              run_layer_frame_golden(g, profile_ada(), rd, LayerReadings{}, &o.stats);
            o.arena = g.output_arena;
            o.s112 = g.surface112.bytes;
            return o;
          };
          // A reading the decoders' front refuses (prologue-halo = rows-around reaches outside E1's
          // tile) is refused by both.
          Outputs g;
          try {
            g = one(nullptr);
          } catch (const std::exception&) {
            EXPECT_ANY_THROW(one(&best)) << what;
            continue;
          }
          expect_same(g, one(&best), what);
        } else {
          const Outputs g = run(default_layer_weights(id), in, 8, 8, 0, 0, profile_ada(), rd, LayerReadings{}, nullptr);
          expect_same(g, run(default_layer_weights(id), in, 8, 8, 0, 0, profile_ada(), rd, LayerReadings{}, &best, 2), what);
        }
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 0);
}

// The fused block is what runs the layers it takes (issue 33): enc4, enc3, enc2 (C = 160, 128, 96)
// through their last down-projection, dec4, dec3, dec2 after their front; layer_parts (what
// run_layer_frame_fast switches on, and what bench prints) says so, and the block's phase-group
// timing (engine.hpp set_phase_timing, which engine/block.cpp and the layers' block runs add to)
// records its MLP for a frame of each. A layer routed to the golden parts instead would record none.
TEST(LayerEngineDiff, FusedBlockRunsEveryLayerItTakes) {
  using engine::LayerParts;
  // enc1's heads in sequence are the same values as one warp per head (each head's own phases, the
  // projections chained in head order), so it takes the fused block too.
  for (LayerId id : {LayerId::enc4, LayerId::enc3, LayerId::enc2, LayerId::enc1})
    EXPECT_EQ(engine::layer_parts(id), LayerParts::fused) << to_string(id);
  // dec1's 32 rows per warp change no value (the block computes the window row for row), so it
  // takes the fused block at C = 64 too; dec0 takes it through its last down-projection (its E19
  // reads that D: no arena scatter, no final phase).
  for (LayerId id : {LayerId::dec4, LayerId::dec3, LayerId::dec2, LayerId::dec1, LayerId::dec0})
    EXPECT_EQ(engine::layer_parts(id), LayerParts::front_then_fused) << to_string(id);
  // enc0's embedding front runs on the golden parts with engine GEMMs, then the fused block at C = 32.
  EXPECT_EQ(engine::layer_parts(LayerId::enc0), LayerParts::front_then_fused);
  const engine::SimdPath best = engine::best_simd_path();
  for (LayerId id : layer_ids()) {
    const LayerSpec& s = layer_spec(id);
    if (!s.runnable || id == LayerId::enc5) continue;
    engine::PhaseTimes t;
    engine::set_phase_timing(&t);
    if (s.front.kind == FrontKind::patch_expand)
      run_decoder(id, 8, 8, 0, 0, false, profile_ada(), LayerReadings{}, &best, 1);
    else
      run(default_layer_weights(id), make_synthetic_frame(8, 8, 3, false, s.k_slices()), 8, 8, 0, 0, profile_ada(), Readings{},
          LayerReadings{}, &best, 1);
    engine::set_phase_timing(nullptr);
    EXPECT_EQ(t.seconds[engine::kGroupMlp] > 0, engine::layer_parts(id) != LayerParts::golden_parts) << to_string(id);
    // `rrswin bench --layer`'s breakdown: a layer's own front (the decoders' E1, enc0's embedding)
    // in the front group and nowhere else, what follows the block (merge, final phase, final
    // epilogue) in the tail; a layer without a front records none.
    EXPECT_EQ(t.seconds[engine::kGroupFront] > 0, s.front.kind != FrontKind::none) << to_string(id);
    EXPECT_GT(t.seconds[engine::kGroupTail], 0) << to_string(id);
  }
}

}  // namespace
}  // namespace rrswin
