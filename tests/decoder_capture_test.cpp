// Replay captures, launch dumps and settle of the decoders (bridge/layer_capture.hpp,
// bridge/layer_settle.hpp): a synthetic capture of each runnable decoder follows its launch ABI
// (the half-resolution input +8, the skip +24, +88 at any size, +96/+104 at the token grid, the
// scale at +136, one surface +112, no merged output), replays to the frame driver's bytes in the
// captured windows, settles back a reading the results were made with, and its hostile numbers are
// input errors naming the file.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <limits>

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "base/errors.hpp"
#include "base/little_endian.hpp"
#include "bridge/layer_capture.hpp"
#include "bridge/layer_settle.hpp"
#include "test_util.hpp"

using namespace rrswin;
using namespace rrswin::ptx;
using namespace test_util;

namespace {

constexpr int kEx = 21, kEy = 13;

std::vector<LayerId> decoders() {
  std::vector<LayerId> v;
  for (LayerId id : layer_ids())
    if (layer_spec(id).runnable && layer_spec(id).front.kind == FrontKind::patch_expand) v.push_back(id);
  return v;
}

void save(const TempDir& d, const KernelCapture& c) {
  for (const auto& [name, bytes] : replay_capture_files(c)) {
    std::ofstream f(d.file(name), std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
}

KernelCapture small(LayerId layer, float sx = 0.5f) {
  SyntheticLayerCapture o;
  o.seed = 7;
  o.ex = kEx;
  o.ey = kEy;
  o.ox = 3;
  o.oy = 5;
  o.sx = sx;
  o.sy = 0.25f;
  return synthetic_layer_capture(layer, o);
}

TEST(DecoderCapture, SyntheticCaptureFollowsTheDecoderAbi) {
  ASSERT_GE(decoders().size(), 3u);  // dec4, dec3, dec2
  for (LayerId layer : decoders()) {
    SCOPED_TRACE(std::string(to_string(layer)));
    const LayerSpec& s = layer_spec(layer);
    const KernelCapture c = small(layer, 0.75f);
    const bool dec0 = layer == LayerId::dec0;
    ASSERT_EQ(c.args.size(), dec0 ? 152u : 144u);  // DESC-d0 layer(): dec0's block is 152 bytes (+144 the last pointer)
    EXPECT_EQ(std::bit_cast<float>(static_cast<std::uint32_t>(load_le(&c.args[136], 4))), 0.75f);
    EXPECT_EQ(std::bit_cast<float>(static_cast<std::uint32_t>(load_le(&c.args[140], 4))), 0.25f);
    const LayerLaunch L = read_layer_launch(c, layer);
    const auto bytes = [&](std::size_t p) { return c.allocs[c.pointers[p].alloc].bytes.size(); };
    EXPECT_EQ(c.pointers[L.input].offset, 8u);
    EXPECT_EQ(bytes(L.input), static_cast<std::size_t>(s.front.k / 32) * (kEx / 2) * (kEy / 2) * 32);  // half resolution
    EXPECT_EQ(c.pointers[L.skip].offset, 24u);
    EXPECT_EQ(bytes(L.skip), static_cast<std::size_t>(s.channels / 32) * kEx * kEy * 32);
    // dec0's +48: 8 e4m3 bytes a pixel (DOC-d0 §4.2); the others' a plane arena like the skip.
    EXPECT_EQ(bytes(L.arena), dec0 ? static_cast<std::size_t>(kEx) * kEy * 8 : bytes(L.skip));
    EXPECT_EQ(c.images[L.texture].image.width, kEx / 2);
    EXPECT_EQ(c.images[L.texture96].image.width, kEx);
    EXPECT_EQ(c.images[L.texture104].offset, 104u);
    ASSERT_EQ(L.surfaces.size(), dec0 ? 2u : 1u);
    EXPECT_EQ(c.images[L.surfaces[0]].offset, 112u);
    if (dec0) {
      // +144: sust.p of four f32 a texel at (x, y) (DOC-d0 §4.2, s18603), RGBA32F in the capture.
      EXPECT_EQ(c.images[L.surfaces[1]].offset, 144u);
      EXPECT_EQ(c.images[L.surfaces[1]].image.fmt, rrswin::capture::kFmtFloat);
      EXPECT_EQ(c.images[L.surfaces[1]].image.pitch, 16u * kEx);
    }
    EXPECT_EQ(L.sx, 0.75f);
  }
}

TEST(DecoderCapture, ReplayEqualsTheFrameDriver) {
  for (LayerId layer : decoders()) {
    SCOPED_TRACE(std::string(to_string(layer)));
    const LayerSpec& s = layer_spec(layer);
    TempDir d;
    save(d, small(layer));
    KernelCapture loaded = load_kernel_capture(d.path.string());
    const LayerLaunch L = replay_layer_capture(loaded, layer, {});
    // The frame driver on the inputs the synthetic capture holds (seeds 7, 8, 9: input, skip, +104).
    const SyntheticFrame in = make_synthetic_frame(kEx >> 1, kEy >> 1, 7, false, s.front.k / 32);
    const SyntheticFrame skip = make_synthetic_frame(kEx, kEy, 8, false, s.k_slices());
    const SyntheticFrame t104 = make_synthetic_frame(kEx, kEy, 9, false, 1);
    LayerFrame f;
    f.ex = kEx;
    f.ey = kEy;
    f.ox = 3;
    f.oy = 5;
    f.input_arena = in.input_arena;
    f.skip_arena = skip.input_arena;
    f.weights = &default_layer_weights(layer);
    f.texture = &in.texture;
    f.texture96 = &skip.texture;
    f.texture104 = &t104.texture;
    f.scale = {0.5f, 0.25f};
    run_layer_frame_golden(f, profile_ada(), Readings{}, LayerReadings{});
    EXPECT_EQ(loaded.allocs[loaded.pointers[L.arena].alloc].bytes, f.output_arena);
    EXPECT_EQ(loaded.images[L.surfaces[0]].image.bytes, f.surface112.bytes);
    if (layer == LayerId::dec0) {
      ASSERT_EQ(L.surfaces.size(), 2u);
      std::vector<std::uint8_t> s144(4 * f.surface144.rgba.size());
      std::memcpy(s144.data(), f.surface144.rgba.data(), s144.size());
      EXPECT_EQ(loaded.images[L.surfaces[1]].image.bytes, s144);
    }
    EXPECT_NE(std::count(f.output_arena.begin(), f.output_arena.end(), 0), static_cast<std::ptrdiff_t>(f.output_arena.size()));
    // The golden model through the capture: the same bytes.
    KernelCapture again = load_kernel_capture(d.path.string());
    LayerReplayOptions o;
    o.golden = true;
    replay_layer_capture(again, layer, o);
    for (std::size_t i = 0; i < again.allocs.size(); ++i) EXPECT_EQ(again.allocs[i].bytes, loaded.allocs[i].bytes) << i;
    EXPECT_EQ(again.images[L.surfaces[0]].image.bytes, loaded.images[L.surfaces[0]].image.bytes);
  }
}

// The oracle launch set separates every value of every decoder reading (settle --oracle can decide
// each), and settle finds the non-default values the results were made with.
TEST(DecoderCapture, SettleRecoversTheReadingsTheResultsWereMadeWith) {
  for (LayerId layer : decoders()) {
    SCOPED_TRACE(std::string(to_string(layer)));
    const LayerSettleLaunch border = oracle_layer_launches(layer)[1];
    int readings = 0;
    for (const auto& info : layer_reading_registry()) {
      const std::vector<LayerId> applies = reading_layers(info.name);
      if (std::find(applies.begin(), applies.end(), layer) == applies.end()) continue;
      ++readings;
      std::vector<KernelCapture> runs;
      for (const std::string& v : info.values) {
        LayerReplayOptions o;
        std::string err;
        ASSERT_TRUE(set_layer_reading(o.layer_readings, info.name + "=" + v, &err)) << err;
        runs.push_back(border.before);
        replay_layer_capture(runs.back(), layer, o);
      }
      bool differ = false;
      for (std::size_t i = 0; i < runs[0].allocs.size(); ++i) differ |= runs[0].allocs[i].bytes != runs[1].allocs[i].bytes;
      for (std::size_t i = 0; i < runs[0].images.size(); ++i) differ |= runs[0].images[i].image.bytes != runs[1].images[i].image.bytes;
      EXPECT_TRUE(differ) << info.name;
    }
    // expand-load-order, expand-fill, expand-subpixel, decoder-sampler, decoder-gate-logit; dec1's two
    // sub-pixels a warp add expand-column-split, dec0's four that and dec0-output-columns.
    const std::size_t count = layer == LayerId::dec0 ? 7u : layer == LayerId::dec1 ? 6u : 5u;
    EXPECT_EQ(static_cast<std::size_t>(readings), count);

    std::vector<LayerSettleLaunch> launch{border};
    LayerReplayOptions made;
    std::string err;
    ASSERT_TRUE(set_layer_reading(made.layer_readings, "expand-subpixel=dx-dy", &err)) << err;
    ASSERT_TRUE(set_layer_reading(made.layer_readings, "decoder-gate-logit=centred", &err)) << err;
    if (layer == LayerId::dec1) {
      ASSERT_TRUE(set_layer_reading(made.layer_readings, "expand-column-split=interleaved", &err)) << err;
    }
    if (layer == LayerId::dec0) {
      ASSERT_TRUE(set_layer_reading(made.layer_readings, "dec0-output-columns=tanh-first", &err)) << err;
    }
    launch[0].after = launch[0].before;
    replay_layer_capture(launch[0].after, layer, made);
    const LayerSettleResult r = settle_layer(launch, layer, {});
    EXPECT_EQ(r.differing, 0u);
    ASSERT_EQ(r.readings.size(), count);
    for (const auto& s : r.readings) {
      EXPECT_TRUE(s.settled) << s.name;
      const std::string want = s.name == "expand-subpixel"                                 ? "dx-dy"
                               : s.name == "decoder-gate-logit"                            ? "centred"
                               : s.name == "dec0-output-columns"                           ? "tanh-first"
                               : s.name == "expand-column-split" && layer == LayerId::dec1 ? "interleaved"
                                                                                           : s.values.front().first;
      EXPECT_EQ(s.best, want) << s.name;
    }
  }
}

// A decoder's capture binds +88 (sampled at f32 coordinates) with the linear sampler the golden
// model's default decoder-sampler describes, so that an interpreted kernel samples it alike
// (CudaDec4Kernel.*); its +96/+104 and every encoder texture keep point (integer fetches).
TEST(DecoderCapture, CapturesBindTheDecoderSampler) {
  for (const LayerId layer : {LayerId::dec4, LayerId::dec2, LayerId::enc4}) {
    SCOPED_TRACE(std::string(to_string(layer)));
    const KernelCapture c = synthetic_layer_capture(layer, {.ex = 21, .ey = 13});
    int textures = 0;
    for (const auto& im : c.images) {
      if (!im.texture) continue;
      ++textures;
      const bool linear = layer != LayerId::enc4 && im.offset == 88;
      EXPECT_EQ(im.sampler.filter, linear ? TextureFilter::linear : TextureFilter::point) << "+" << im.offset;
      EXPECT_FALSE(im.sampler.normalized);
    }
    EXPECT_EQ(textures, layer == LayerId::enc4 ? 1 : 3);
  }
}

TEST(DecoderCapture, HostileNumbersAreInputErrors) {
  const LayerId layer = LayerId::dec4;
  {
    KernelCapture c = small(layer);
    store_le(&c.args[136], std::bit_cast<std::uint32_t>(std::numeric_limits<float>::infinity()), 4);
    try {
      read_layer_launch(c, layer);
      FAIL() << "an infinite scale was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("sx a finite f32 (+136, the scale)"), std::string::npos) << e.what();
    }
  }
  {
    KernelCapture c = small(layer);  // the skip one pixel short
    for (auto& p : c.pointers)
      if (p.offset == 24) c.allocs[p.alloc].bytes.resize(c.allocs[p.alloc].bytes.size() - 32);
    try {
      read_layer_launch(c, layer);
      FAIL() << "a short skip was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("the skip plane arena"), std::string::npos) << e.what();
    }
  }
  {
    KernelCapture c = small(layer);  // +96 not at the token grid
    for (auto& im : c.images)
      if (im.offset == 96) im.image.width -= 1;
    try {
      read_layer_launch(c, layer);
      FAIL() << "a +96 texture of the wrong size was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("the texture +96 (the token grid) of exactly 21 x 13 texels"), std::string::npos) << e.what();
    }
  }
}

TEST(DecoderCapture, CliCaptureReplaySettle) {
  TempDir d;
  ASSERT_EQ(d.rrswin("capture --layer dec4 --synthetic --ex 21 --ey 13 --block-offset 3,5 -o cap").status, 0);
  const Result r = d.rrswin("replay --layer dec4 cap --layer-reading decoder-sampler=point -o orig");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "arg024-buffer")) << r.out;
  EXPECT_FALSE(contains(r.out, "arg056")) << r.out;
  const Result s = d.rrswin("settle --layer dec4 cap --results orig");
  EXPECT_EQ(s.status, 0) << s.out;
  EXPECT_TRUE(contains(s.out, "decoder-sampler        point       settled")) << s.out;
  EXPECT_TRUE(contains(s.out, "best: 0 differing bytes")) << s.out;
  // The replay's own files are a launch dump (the state after the launch): they replay again.
  const Result again = d.rrswin("replay --layer dec4 orig --block-offset 3,5 --layer-reading decoder-sampler=point -o again");
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_TRUE(contains(d.rrswin("diff orig again").out, "IDENTICAL")) << d.rrswin("diff orig again").out;
}

// dec0 through the tool: its +48 (8 bytes a pixel) and its f32 surface +144 (a fmt32 = RGBA32F dump,
// 16 bytes a texel) go through capture, replay, the launch-dump reader and settle.
TEST(DecoderCapture, Dec0CliCaptureReplaySettle) {
  TempDir d;
  ASSERT_EQ(d.rrswin("capture --layer dec0 --synthetic --ex 21 --ey 13 --block-offset 3,5 -o cap").status, 0);
  const Result r = d.rrswin("replay --layer dec0 cap --layer-reading dec0-output-columns=tanh-first -o orig");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "arg048-buffer-base0x7f0200000000-size2184-fmt0")) << r.out;  // 21 13 8 bytes
  EXPECT_TRUE(contains(r.out, "arg144-surface-21x13-pitch336-fmt32")) << r.out;
  const Result s = d.rrswin("settle --layer dec0 cap --results orig");
  EXPECT_EQ(s.status, 0) << s.out;
  EXPECT_TRUE(contains(s.out, "dec0-output-columns    tanh-first  settled")) << s.out;
  EXPECT_TRUE(contains(s.out, "best: 0 differing bytes")) << s.out;
  const Result again = d.rrswin("replay --layer dec0 orig --block-offset 3,5 --layer-reading dec0-output-columns=tanh-first -o again");
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_TRUE(contains(d.rrswin("diff orig again").out, "IDENTICAL")) << d.rrswin("diff orig again").out;
  // The default reading gives other +48 and +144 bytes.
  ASSERT_EQ(d.rrswin("replay --layer dec0 orig --block-offset 3,5 -o other").status, 0);
  EXPECT_FALSE(contains(d.rrswin("diff orig other").out, "IDENTICAL"));
}

}  // namespace
