// Replay captures of the merge layers (bridge/layer_capture.hpp): a capture's parameter block read
// by enc4's launch ABI gives the frame driver's outputs exactly, in the capture's windows, with
// every other byte as captured; the files round-trip through load_kernel_capture; every hostile
// number is an InputError naming the file; the CLI writes what `ptx run --capture` writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "base/errors.hpp"
#include "bridge/layer_capture.hpp"
#include "bridge/layer_settle.hpp"
#include "layout/arena.hpp"
#include "test_util.hpp"

using namespace rrswin;
using namespace rrswin::ptx;
using namespace test_util;
namespace fs = std::filesystem;

namespace {

constexpr int kEx = 21, kEy = 13;  // small, odd (the merge's halved extents round down), not 8-aligned

void save(const TempDir& d, const KernelCapture& c) {
  for (const auto& [name, bytes] : replay_capture_files(c)) {
    std::ofstream f(d.file(name), std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
}

KernelCapture small_capture(int ox = 0, int oy = 0, LayerId layer = LayerId::enc4) {
  SyntheticLayerCapture o;
  o.seed = 7;
  o.ex = kEx;
  o.ey = kEy;
  o.ox = ox;
  o.oy = oy;
  return synthetic_layer_capture(layer, o);
}

std::size_t pointer_at(const KernelCapture& c, std::uint32_t off) {
  for (std::size_t i = 0; i < c.pointers.size(); ++i)
    if (c.pointers[i].offset == off) return i;
  ADD_FAILURE() << "no pointer at +" << off;
  return 0;
}

// Moves the window of the pointer at `off` to `delta` bytes into an allocation grown by `delta` +
// 64 bytes of `fill`, and updates args.bin to match.
void move_window(KernelCapture& c, std::uint32_t off, std::uint64_t delta, std::uint8_t fill) {
  KernelCapture::Pointer& p = c.pointers[pointer_at(c, off)];
  KernelCapture::Alloc& a = c.allocs[p.alloc];
  std::vector<std::uint8_t> grown(delta, fill);
  grown.insert(grown.end(), a.bytes.begin(), a.bytes.end());
  grown.insert(grown.end(), 64, fill);
  a.bytes = std::move(grown);
  p.delta = delta;
  const std::uint64_t v = a.base + delta;
  for (int b = 0; b < 8; ++b) c.args[off + b] = static_cast<std::uint8_t>(v >> (8 * b));
}

std::string error_of(const KernelCapture& c) {
  try {
    read_layer_launch(c, LayerId::enc4);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

// enc4 and enc3 (C = 128: four planes in and out).
TEST(LayerCapture, ReplayEqualsTheFrameDriverInTheCapturedWindows) {
  for (const LayerId layer : {LayerId::enc4, LayerId::enc3, LayerId::enc2, LayerId::enc1}) {
    SCOPED_TRACE(std::string(to_string(layer)));
    KernelCapture c = small_capture(3, 5, layer);
    move_window(c, 48, 96, 0xA5);  // the output arena 96 bytes into its allocation, sentinels around it
    move_window(c, 56, 32, 0x5A);
    move_window(c, 8, 16, 0x11);
    // The frame driver on the same inputs (the reference: the golden model, run directly).
    const SyntheticFrame frame = make_synthetic_frame(kEx, kEy, 7, false, layer_spec(layer).k_slices());
    LayerFrame f;
    f.ex = kEx;
    f.ey = kEy;
    f.ox = 3;
    f.oy = 5;
    f.input_arena = frame.input_arena;
    f.weights = &default_layer_weights(layer);
    f.texture = &frame.texture;
    run_layer_frame_golden(f, profile_ada(), Readings{}, LayerReadings{});

    TempDir d;
    save(d, c);
    KernelCapture loaded = load_kernel_capture(d.path.string());
    LayerReplayOptions o;  // the fast engine
    const LayerLaunch L = replay_layer_capture(loaded, layer, o);
    EXPECT_EQ(L.ex, static_cast<std::uint32_t>(kEx));
    EXPECT_EQ(L.oy, 5);
    const auto& arena = loaded.allocs[loaded.pointers[L.arena].alloc].bytes;
    const auto& merged = loaded.allocs[loaded.pointers[L.merged].alloc].bytes;
    ASSERT_EQ(arena.size(), 96 + f.output_arena.size() + 64);
    EXPECT_TRUE(std::equal(f.output_arena.begin(), f.output_arena.end(), arena.begin() + 96));
    EXPECT_TRUE(std::equal(f.merged_output.begin(), f.merged_output.end(), merged.begin() + 32));
    for (std::size_t i = 0; i < 96; ++i) ASSERT_EQ(arena[i], 0xA5) << i;
    for (std::size_t i = arena.size() - 64; i < arena.size(); ++i) ASSERT_EQ(arena[i], 0xA5) << i;
    for (std::size_t i = 0; i < 32; ++i) ASSERT_EQ(merged[i], 0x5A) << i;
    const Surface* want[3] = {&f.surface112, &f.surface120, &f.surface128};
    for (int s = 0; s < 3; ++s) {
      const capture::ImageArg& im = loaded.images[L.surfaces[static_cast<std::size_t>(s)]].image;
      ASSERT_EQ(im.width, want[s]->width);
      EXPECT_EQ(im.bytes, want[s]->bytes) << "surface " << s;
    }
    // Something was computed (the outputs are not the zeros they start from).
    EXPECT_NE(std::count(f.output_arena.begin(), f.output_arena.end(), 0), static_cast<std::ptrdiff_t>(f.output_arena.size()));
    // The golden model through the capture gives the same bytes.
    KernelCapture again = load_kernel_capture(d.path.string());
    o.golden = true;
    replay_layer_capture(again, layer, o);
    for (std::size_t i = 0; i < again.allocs.size(); ++i) EXPECT_EQ(again.allocs[i].bytes, loaded.allocs[i].bytes) << i;
  }
}

TEST(LayerCapture, SyntheticCaptureFollowsEnc4sLaunchAbi) {
  const KernelCapture c = synthetic_layer_capture(LayerId::enc4, {});
  ASSERT_EQ(c.args.size(), 144u);
  std::uint32_t ex = 0, ey = 0;
  std::memcpy(&ex, c.args.data() + 0, 4);
  std::memcpy(&ey, c.args.data() + 4, 4);
  EXPECT_EQ(ex, 80u);  // DESC4 layer(): token grid 80 x 46
  EXPECT_EQ(ey, 46u);
  EXPECT_EQ(c.grid.x, 10u);
  EXPECT_EQ(c.grid.y, 6u);
  EXPECT_EQ(c.kernel, "cuda_dldn_engine_swin_enc4_kernel");
  // Pointers at +8/+40/+48/+56 (DOC4 §1.1), sized as the arenas and the 533856-byte image.
  const std::uint32_t offs[4] = {8, 40, 48, 56};
  const std::size_t sizes[4] = {5u * 46 * 80 * 32, 533856, 5u * 46 * 80 * 32, 5u * 23 * 40 * 32};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(c.allocs[c.pointers[pointer_at(c, offs[i])].alloc].bytes.size(), sizes[i]) << offs[i];
  // The texture at +88 and the surfaces at +112/+120 (80 x 46) and +128 (40 x 23).
  ASSERT_EQ(c.images.size(), 4u);
  EXPECT_TRUE(c.images[0].texture);
  EXPECT_EQ(c.images[0].offset, 88u);
  EXPECT_EQ(c.images[3].offset, 128u);
  EXPECT_EQ(c.images[3].image.width, 40);
  EXPECT_EQ(c.images[3].image.height, 23);
}

TEST(LayerCapture, HostileNumbersAreInputErrors) {
  {
    KernelCapture c = small_capture();
    c.args.resize(136);
    EXPECT_TRUE(contains(error_of(c), "144 bytes")) << error_of(c);
  }
  {
    KernelCapture c = small_capture();
    c.args[0] = 0, c.args[1] = 0x40;  // ex = 16384
    EXPECT_TRUE(contains(error_of(c), "ex in 2..4096")) << error_of(c);
  }
  {
    KernelCapture c = small_capture();
    c.args[82] = 8;  // oy = 8
    EXPECT_TRUE(contains(error_of(c), "oy in 0..7")) << error_of(c);
  }
  {
    KernelCapture c = small_capture();
    c.pointers.erase(c.pointers.begin() + static_cast<std::ptrdiff_t>(pointer_at(c, 56)));
    EXPECT_TRUE(contains(error_of(c), "'pointer 56")) << error_of(c);
  }
  {
    KernelCapture c = small_capture();
    auto& w = c.allocs[c.pointers[pointer_at(c, 40)].alloc].bytes;
    w.resize(w.size() - 1);
    EXPECT_TRUE(contains(error_of(c), "533856 bytes from the pointer at +40")) << error_of(c);
  }
  {
    KernelCapture c = small_capture();
    const std::size_t in = pointer_at(c, 8), out = pointer_at(c, 48);  // the output arena aliases the input
    c.pointers[out].alloc = c.pointers[in].alloc;
    c.pointers[out].delta = 0;
    EXPECT_TRUE(contains(error_of(c), "disjoint memory")) << error_of(c);
  }
  {
    KernelCapture c = small_capture();
    c.images[0].image.width = kEx + 1;
    EXPECT_TRUE(contains(error_of(c), "exactly 21 x 13")) << error_of(c);
  }
  {
    KernelCapture c = small_capture();
    c.images[3].image.height = kEy / 2 - 1;  // the half-resolution surface too small
    EXPECT_TRUE(contains(error_of(c), "covering 10 x 6")) << error_of(c);
  }
  {
    KernelCapture c = small_capture();
    c.images[1].texture = true;  // +112 a texture
    EXPECT_TRUE(contains(error_of(c), "a surface at +112")) << error_of(c);
  }
  {
    KernelCapture c = small_capture();
    c.images[2].image.fmt = 8;
    EXPECT_TRUE(contains(error_of(c), "RGBA16F")) << error_of(c);
  }
  for (const std::uint32_t gx : {2u, 17u}) {  // the covering grid is 3 x 2; at most 2 * 3 + 8 = 14
    KernelCapture c = small_capture();
    c.grid.x = gx;
    EXPECT_TRUE(contains(error_of(c), "a grid of 3..14 x 2..12")) << gx << ": " << error_of(c);
  }
  {
    KernelCapture c = small_capture();
    c.grid.z = 2;
    EXPECT_TRUE(contains(error_of(c), "x 1 blocks")) << error_of(c);
  }
}

TEST(LayerCapture, CliReplayWritesLaunchDumpNaming) {
  TempDir d;
  const Result cap = d.rrswin("capture --layer enc4 --synthetic --ex 21 --ey 13 --seed 7 -o cap");
  ASSERT_EQ(cap.status, 0) << cap.out;
  const Result rep = d.rrswin("replay --layer enc4 cap -o out");
  ASSERT_EQ(rep.status, 0) << rep.out;
  EXPECT_TRUE(fs::exists(find_file(d.path / "out", "arg048-buffer")));
  EXPECT_TRUE(fs::exists(find_file(d.path / "out", "arg128-surface-10x6-fmt16")));
  const Result gold = d.rrswin("replay --layer enc4 cap --engine golden -o gold");
  ASSERT_EQ(gold.status, 0) << gold.out;
  const Result diff = d.rrswin("diff out gold");
  EXPECT_EQ(diff.status, 0) << diff.out;
  EXPECT_TRUE(contains(diff.out, "IDENTICAL: 8 compared")) << diff.out;
  // A damaged capture: a clear error naming the file, nothing written.
  { std::ofstream(d.file("cap") + "/args.bin", std::ios::binary | std::ios::trunc) << "short"; }
  const Result bad = d.rrswin("replay --layer enc4 cap -o bad");
  EXPECT_NE(bad.status, 0);
  EXPECT_TRUE(contains(bad.out, "args.bin")) << bad.out;
  EXPECT_FALSE(fs::exists(d.path / "bad"));
  // A capture of enc4's kernel replayed as enc3: refused by the kernel name.
  ASSERT_EQ(d.rrswin("capture --layer enc4 --synthetic --ex 21 --ey 13 -o cap4").status, 0);
  const Result enc3 = d.rrswin("replay --layer enc3 cap4 -o bad3");
  EXPECT_EQ(enc3.status, 2) << enc3.out;
  EXPECT_TRUE(contains(enc3.out, "not cuda_dldn_engine_swin_enc3_kernel")) << enc3.out;
  // enc3's own capture replays (C = 128: four planes in the arenas).
  ASSERT_EQ(d.rrswin("capture --layer enc3 --synthetic --ex 21 --ey 13 -o cap3").status, 0);
  const Result r3 = d.rrswin("replay --layer enc3 cap3 -o out3");
  EXPECT_EQ(r3.status, 0) << r3.out;
  EXPECT_TRUE(fs::exists(find_file(d.path / "out3", "arg048-buffer-base0x7f0200000000-size34944-fmt0")));
}

// settle --layer: results made by the model under other readings (a stand-in for the original
// whose readings are known) are found again, and every pair of values of every reading gives
// different bytes on the oracle's border launch.
TEST(LayerSettle, FindsTheReadingsTheResultsWereMadeWith) {
  auto launches = oracle_layer_launches(LayerId::enc4);
  ASSERT_EQ(launches.size(), 2u);
  std::vector<LayerSettleLaunch> border{launches[1]};
  LayerReplayOptions made;
  std::string err;
  ASSERT_TRUE(set_layer_reading(made.layer_readings, "sigmoid-gate=logit11", &err)) << err;
  ASSERT_TRUE(set_layer_reading(made.layer_readings, "merge-output-layout=token-words", &err)) << err;
  ASSERT_TRUE(set_layer_reading(made.layer_readings, "sigmoid-inactive-lane=own", &err)) << err;
  border[0].after = border[0].before;
  replay_layer_capture(border[0].after, LayerId::enc4, made);
  const LayerSettleResult r = settle_layer(border, LayerId::enc4, {});
  EXPECT_EQ(r.differing, 0u);
  for (const auto& s : r.readings) {
    EXPECT_TRUE(s.settled) << s.name;
    std::string want;
    for (const auto& info : layer_reading_registry())
      if (info.name == s.name) want = info.values.front();
    if (s.name == "sigmoid-gate") want = "logit11";
    if (s.name == "merge-output-layout") want = "token-words";
    if (s.name == "sigmoid-inactive-lane") want = "own";
    EXPECT_EQ(s.best, want) << s.name;
  }
}

// enc1 (issue 35): results made with the register merge's K in Swin's plane-major order and the gate
// on logit 9 are found again from its border launch.
TEST(LayerSettle, FindsEnc1sReadings) {
  std::vector<LayerSettleLaunch> border{oracle_layer_launches(LayerId::enc1)[1]};
  LayerReplayOptions made;
  std::string err;
  ASSERT_TRUE(set_layer_reading(made.layer_readings, "merge-register-k-order=swin-plane", &err)) << err;
  ASSERT_TRUE(set_layer_reading(made.layer_readings, "sigmoid-gate=logit9", &err)) << err;
  border[0].after = border[0].before;
  replay_layer_capture(border[0].after, LayerId::enc1, made);
  const LayerSettleResult r = settle_layer(border, LayerId::enc1, {});
  EXPECT_EQ(r.differing, 0u);
  int found = 0;
  for (const auto& s : r.readings) {
    EXPECT_TRUE(s.settled) << s.name;
    EXPECT_NE(s.name, "merge-output-layout");  // the register merge stores token words
    if (s.name == "merge-register-k-order") found += s.best == "swin-plane";
    if (s.name == "sigmoid-gate") found += s.best == "logit9";
  }
  EXPECT_EQ(found, 2);
}

TEST(LayerSettle, EveryPairOfValuesDiffersOnTheBorderLaunch) {
  for (const LayerId layer : {LayerId::enc4, LayerId::enc3, LayerId::enc2, LayerId::enc1}) {
    SCOPED_TRACE(std::string(to_string(layer)));
    const LayerSettleLaunch border = oracle_layer_launches(layer)[1];
    int pairs = 0;
    for (const auto& info : layer_reading_registry()) {
      const std::vector<LayerId> applies = reading_layers(info.name);
      if (std::find(applies.begin(), applies.end(), layer) == applies.end()) continue;  // the decoders' readings
      std::vector<KernelCapture> runs;
      for (const std::string& v : info.values) {
        LayerReplayOptions o;
        std::string err;
        ASSERT_TRUE(set_layer_reading(o.layer_readings, info.name + "=" + v, &err)) << err;
        runs.push_back(border.before);
        replay_layer_capture(runs.back(), layer, o);
      }
      for (std::size_t a = 0; a < runs.size(); ++a)
        for (std::size_t b = a + 1; b < runs.size(); ++b) {
          bool differ = false;
          for (std::size_t i = 0; i < runs[a].allocs.size(); ++i) differ |= runs[a].allocs[i].bytes != runs[b].allocs[i].bytes;
          for (std::size_t i = 0; i < runs[a].images.size(); ++i) differ |= runs[a].images[i].image.bytes != runs[b].images[i].image.bytes;
          EXPECT_TRUE(differ) << info.name << ": " << info.values[a] << " vs " << info.values[b];
          ++pairs;
        }
    }
    // enc2..enc4: 8 readings, sigmoid-gate's four values make 6 pairs, the others 1 each; enc1:
    // merge-register-k-order (four values, 6 pairs), sigmoid-* (6 + 5), no merge-gather-order or
    // merge-output-layout (its store is token words).
    EXPECT_EQ(pairs, layer == LayerId::enc1 ? 17 : 13);
  }
}

TEST(LayerSettle, CliOracleAndResults) {
  TempDir d;
  ASSERT_EQ(d.rrswin("capture --layer enc4 --synthetic --ex 21 --ey 13 --block-offset 3,5 -o cap").status, 0);
  ASSERT_EQ(d.rrswin("replay --layer enc4 cap --layer-reading sigmoid-alpha=zero -o orig").status, 0);
  const Result ok = d.rrswin("settle --layer enc4 cap --results orig");
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_TRUE(contains(ok.out, "sigmoid-alpha          zero        settled")) << ok.out;
  EXPECT_TRUE(contains(ok.out, "best: 0 differing bytes")) << ok.out;
  // A kernel that writes nothing (the right entry and parameter block): no setting reproduces it.
  {
    std::ofstream f(d.file("empty.ptx"));
    f << ".version 8.0\n.target sm_89\n.address_size 64\n"
         ".visible .entry cuda_dldn_engine_swin_enc4_kernel(.param .align 8 .b8 p[144])\n{\n  ret;\n}\n";
  }
  const Result none = d.rrswin("settle --layer enc4 --oracle empty.ptx cap");
  EXPECT_EQ(none.status, 1) << none.out;
  EXPECT_TRUE(contains(none.out, "no setting reproduces the original")) << none.out;
  const Result bad = d.rrswin("settle --layer enc4 cap");
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_TRUE(contains(bad.out, "--results DIR, --oracle FILE.ptx, or a launch-dump folder")) << bad.out;
  fs::remove(find_file(d.path / "orig", "arg120-surface"));
  const Result missing = d.rrswin("settle --layer enc4 cap --results orig");
  EXPECT_NE(missing.status, 0) << missing.out;
  EXPECT_TRUE(contains(missing.out, "arg120-surface")) << missing.out;
}

// d4r's launch dumps of enc4 (facts F5: the state after the launch, no parameter block): the files
// `replay --layer` writes are in that naming, so a replay of them is one; the extents come from the
// texture, the block offsets from --block-offset; settle takes the dump's own files as the results.
TEST(LayerCapture, LaunchDumpFoldersReplayAndSettle) {
  TempDir d;
  ASSERT_EQ(d.rrswin("capture --layer enc4 --synthetic --ex 21 --ey 13 --block-offset 3,5 -o cap").status, 0);
  ASSERT_EQ(d.rrswin("replay --layer enc4 cap --layer-reading sigmoid-alpha=zero -o dumps").status, 0);
  const Result again = d.rrswin("replay --layer enc4 dumps --block-offset 3,5 --layer-reading sigmoid-alpha=zero -o again");
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_TRUE(contains(again.out, "21 x 13 tokens, block offset (3, 5)")) << again.out;
  const Result same = d.rrswin("diff dumps again");
  EXPECT_TRUE(contains(same.out, "IDENTICAL: 8 compared")) << same.out;
  const Result settle = d.rrswin("settle --layer enc4 dumps --block-offset 3,5");
  EXPECT_EQ(settle.status, 0) << settle.out;
  EXPECT_TRUE(contains(settle.out, "sigmoid-alpha          zero        settled")) << settle.out;
  // The wrong block offsets: nothing reproduces the dump.
  EXPECT_EQ(d.rrswin("settle --layer enc4 dumps").status, 1);
  // The reader's errors: a launch that is not there, a second file for one argument, no texture.
  const Result launch = d.rrswin("replay --layer enc4 dumps --launch 7 -o x");
  EXPECT_EQ(launch.status, 2) << launch.out;
  EXPECT_TRUE(contains(launch.out, "holds launch 0")) << launch.out;
  const fs::path tex = find_file(d.path / "dumps", "arg088-texture");
  fs::copy_file(tex, d.path / "dumps" / "launch-000-cuda_dldn_engine_swin_enc4_kernel-arg088-texture-21x13-wrap-fmt16.bin");
  const Result twice = d.rrswin("replay --layer enc4 dumps -o x");
  EXPECT_NE(twice.status, 0) << twice.out;
  EXPECT_TRUE(contains(twice.out, "one dump per launch and argument")) << twice.out;
  fs::remove(d.path / "dumps" / "launch-000-cuda_dldn_engine_swin_enc4_kernel-arg088-texture-21x13-wrap-fmt16.bin");
  fs::remove(tex);
  const Result notex = d.rrswin("replay --layer enc4 dumps -o x");
  EXPECT_NE(notex.status, 0) << notex.out;
  EXPECT_TRUE(contains(notex.out, "texture dump")) << notex.out;
  EXPECT_FALSE(fs::exists(d.path / "x"));
}

// enc0's captures are in rrswin's stand-in convention (LaunchAbi::standin_input / standin_texture,
// docs/readings.md §10 "The CUDA port"): the original's prologue builds the staged input tensor and
// input_noise from the network input +304, which no source decodes, so a capture holds them at +8
// and +88, offsets the original leaves unused; the 1032-byte block keeps +304 zero, no file.
TEST(LayerCapture, Enc0CapturesHoldRrswinsStandIns) {
  const KernelCapture c = small_capture(3, 5, LayerId::enc0);
  ASSERT_EQ(c.args.size(), 1032u);
  std::vector<std::uint32_t> pointers;
  for (const auto& p : c.pointers) pointers.push_back(p.offset);
  EXPECT_EQ(pointers, (std::vector<std::uint32_t>{8, 40, 48, 56}));
  ASSERT_EQ(c.images.size(), 4u);
  EXPECT_TRUE(c.images[0].texture);
  EXPECT_EQ(c.images[0].offset, 88u);
  for (int b = 0; b < 8; ++b) EXPECT_EQ(c.args[304 + b], 0) << "+304 is not held";
  // +8 is the staged input tensor (one plane at the token grid), +88 the texture: the golden model's
  // own enc0 inputs (model/embedding_front.cpp), so the replay is run_layer_frame_golden on them.
  const SyntheticFrame fr = make_synthetic_frame(kEx, kEy, 7, false, 1);
  const auto& in = c.allocs[c.pointers[0].alloc].bytes;
  EXPECT_TRUE(in == fr.input_arena);
  KernelCapture r = c;
  const LayerLaunch L = replay_layer_capture(r, LayerId::enc0, {});
  EXPECT_EQ(L.ex, static_cast<std::uint32_t>(kEx));
  EXPECT_EQ(L.ox, 3);
  LayerFrame f;
  f.ex = kEx;
  f.ey = kEy;
  f.ox = 3;
  f.oy = 5;
  f.input_arena = fr.input_arena;
  f.weights = &default_layer_weights(LayerId::enc0);
  f.texture = &fr.texture;
  run_layer_frame_golden(f, profile_ada(), {}, {});
  EXPECT_TRUE(r.allocs[r.pointers[2].alloc].bytes == f.output_arena);
  EXPECT_TRUE(r.allocs[r.pointers[3].alloc].bytes == f.merged_output);
  EXPECT_GT(std::count_if(f.merged_output.begin(), f.merged_output.end(), [](std::uint8_t b) { return b != 0; }), 100);
  // The stand-ins are checked as every layer's input and texture, the refusal naming what is missing.
  const auto error = [](const KernelCapture& k) {
    try {
      read_layer_launch(k, LayerId::enc0);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  {
    KernelCapture k = c;
    k.pointers.erase(k.pointers.begin());
    const std::string e = error(k);
    EXPECT_TRUE(contains(e, "'pointer 8 …' line (the staged input tensor, rrswin's stand-in")) << e;
    EXPECT_TRUE(contains(e, "+304, which no source decodes")) << e;
  }
  {
    KernelCapture k = c;
    k.images.erase(k.images.begin());
    const std::string e = error(k);
    EXPECT_TRUE(contains(e, "'texture 88 …' line (the texture standing for input_noise, rrswin's stand-in")) << e;
  }
  {
    KernelCapture k = c;
    auto& b = k.allocs[k.pointers[0].alloc].bytes;
    b.resize(b.size() - 1);
    EXPECT_TRUE(contains(error(k), "8736 bytes from the pointer at +8")) << error(k);
  }
  {
    KernelCapture k = c;
    k.images[0].image.width = kEx + 1;
    EXPECT_TRUE(contains(error(k), "exactly 21 x 13")) << error(k);
  }
  {
    KernelCapture k = c;
    k.pointers[2].alloc = k.pointers[0].alloc;  // the output arena aliases the staged tensor
    EXPECT_TRUE(contains(error(k), "disjoint memory")) << error(k);
  }
}

// `capture`, `replay` and `settle --layer enc0` in that convention: a reading that changes enc0's
// outputs (sigmoid-gate=logit9) is named by settle, from --results and from the launch dumps; a
// dump of the original kernel (+304, no +8/+88) is refused naming the missing file and why, exit 2,
// nothing written.
TEST(LayerCapture, Enc0CliCapturesReplaysAndSettles) {
  TempDir d;
  const Result cap = d.rrswin("capture --layer enc0 --synthetic --ex 21 --ey 13 --block-offset 3,5 -o cap");
  ASSERT_EQ(cap.status, 0) << cap.out;
  EXPECT_TRUE(fs::exists(d.path / "cap" / "texture-088.bin"));
  ASSERT_EQ(d.rrswin("replay --layer enc0 cap --engine golden -o golden").status, 0);
  ASSERT_EQ(d.rrswin("replay --layer enc0 cap -o fast").status, 0);
  EXPECT_TRUE(contains(d.rrswin("diff golden fast").out, "IDENTICAL: 8 compared")) << d.rrswin("diff golden fast").out;
  ASSERT_EQ(d.rrswin("replay --layer enc0 cap --layer-reading sigmoid-gate=logit9 -o orig").status, 0);
  EXPECT_FALSE(contains(d.rrswin("diff golden orig").out, "IDENTICAL")) << "the reading changes enc0's outputs";
  const Result ok = d.rrswin("settle --layer enc0 cap --results orig");
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_TRUE(contains(ok.out, "sigmoid-gate           logit9      settled")) << ok.out;
  EXPECT_TRUE(contains(ok.out, "best: 0 differing bytes")) << ok.out;
  // The replay's files are launch dumps: replayed byte for byte, and settled from themselves.
  const Result again = d.rrswin("replay --layer enc0 orig --block-offset 3,5 --layer-reading sigmoid-gate=logit9 -o again");
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_TRUE(contains(d.rrswin("diff orig again").out, "IDENTICAL: 8 compared"));
  const Result settle = d.rrswin("settle --layer enc0 orig --block-offset 3,5");
  EXPECT_EQ(settle.status, 0) << settle.out;
  EXPECT_TRUE(contains(settle.out, "sigmoid-gate           logit9      settled")) << settle.out;
  // A dump of the original kernel: +304 (the network input) in place of the stand-ins.
  const fs::path staged = find_file(d.path / "orig", "arg008-buffer");
  std::string n = staged.filename().string();
  n.replace(n.find("arg008"), 6, "arg304");
  fs::rename(staged, d.path / "orig" / n);
  for (const char* cmd : {"replay --layer enc0 orig -o x", "settle --layer enc0 orig"}) {
    const Result r = d.rrswin(cmd);
    EXPECT_EQ(r.status, 2) << cmd << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "expected a file launch-000-cuda_dldn_engine_swin_enc0_kernel-arg008-buffer-")) << r.out;
    EXPECT_TRUE(contains(r.out, "which no source decodes")) << r.out;
    EXPECT_TRUE(contains(r.out, "the launch holds +304, the network input: a dump of the original kernel")) << r.out;
  }
  EXPECT_FALSE(fs::exists(d.path / "x"));
  // The staged tensor without the texture: the texture's file is named.
  fs::rename(d.path / "orig" / n, staged);
  fs::remove(find_file(d.path / "orig", "arg088-texture"));
  const Result notex = d.rrswin("replay --layer enc0 orig -o x");
  EXPECT_EQ(notex.status, 2) << notex.out;
  EXPECT_TRUE(contains(notex.out, "-arg088-texture-…-fmtN.bin (the texture standing for input_noise, rrswin's stand-in")) << notex.out;
  EXPECT_FALSE(fs::exists(d.path / "x"));
  // A stand-in that is a link is refused by name, as every argument (no file read through a link).
  ASSERT_EQ(d.rrswin("replay --layer enc0 cap -o links").status, 0);
  const fs::path linked = find_file(d.path / "links", "arg008-buffer");
  fs::rename(linked, d.path / "elsewhere.bin");
  fs::create_symlink(d.path / "elsewhere.bin", linked);
  const Result link = d.rrswin("replay --layer enc0 links -o x");
  EXPECT_EQ(link.status, 2) << link.out;
  EXPECT_TRUE(contains(link.out, linked.filename().string())) << link.out;
  EXPECT_FALSE(fs::exists(d.path / "x"));
}
