// Reading d4r's capture formats (facts F5 launch dumps, F6 replay captures) as docs/captures.md
// decides them: names and keys, round trips through the synthetic writer (both forms, an arena
// window inside a larger allocation, facts F4), and malformed captures failing with an error that
// names the file and the byte offset.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/errors.hpp"
#include "capture/capture.hpp"
#include "io/files.hpp"
#include "test_util.hpp"

using namespace rrswin;
using namespace rrswin::capture;
using namespace test_util;

namespace {

SyntheticCaptureOptions small(std::size_t before = 0, std::size_t after = 0) {
  SyntheticCaptureOptions o;
  o.ex = 16;
  o.ey = 8;
  o.window_before = before;
  o.window_after = after;
  o.threads = 2;
  return o;
}

RunOptions fast() {
  RunOptions o;
  o.threads = 2;
  return o;
}

// Runs f, expects an InputError naming a file that contains `file_part` at `offset`.
template <class F>
void expect_input_error(F f, const std::string& file_part, std::uint64_t offset, const std::string& text = "") {
  try {
    f();
    ADD_FAILURE() << "no error for " << file_part;
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.file(), file_part)) << e.what();
    EXPECT_EQ(e.offset(), offset) << e.what();
    if (!text.empty()) {
      EXPECT_TRUE(contains(e.what(), text)) << e.what();
    }
  }
}

void truncate(const fs::path& p, std::size_t n) {
  auto b = read_file_bytes(p.string());
  b.resize(n);
  write_file_atomic(p.string(), b);
}

std::string read_text(const fs::path& p) {
  const auto b = read_file_bytes(p.string());
  return std::string(b.begin(), b.end());
}

}  // namespace

TEST(CaptureNames, ParsesAndFormatsDumpNames) {
  const std::string n = "launch-007-cuda_dldn_engine_swin_enc5_kernel-arg048-buffer-base0x7f00aa000000-size147296-off64-fmt0.bin";
  const auto d = parse_dump_name(n);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->launch, 7u);
  EXPECT_EQ(d->kernel, "cuda_dldn_engine_swin_enc5_kernel");
  EXPECT_EQ(d->arg, 48);
  EXPECT_EQ(d->kind, "buffer");
  EXPECT_EQ(d->shape, "base0x7f00aa000000-size147296-off64");
  EXPECT_EQ(d->fmt, 0);
  EXPECT_EQ(format_dump_name(*d), n);
  EXPECT_EQ(strip_base(d->shape), "size147296-off64");
  // The key ignores launch numbers and device addresses (facts F5).
  auto other = *d;
  other.launch = 9;
  other.shape = "base0x1234-size147296-off64";
  EXPECT_EQ(dump_key(*d), dump_key(other));
  EXPECT_FALSE(parse_dump_name("launch-001-k-arg048-blob-x-fmt0.bin"));
  EXPECT_FALSE(parse_dump_name("launch-001-k-arg48-buffer-x-fmt0.bin"));
  EXPECT_FALSE(parse_dump_name("launch-001-k-arg048-buffer-x-fmt0.dat"));
  const auto s = parse_dump_name("launch-12-k-with-dashes-arg112-surface-40x23-fmt16.bin");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kernel, "k-with-dashes");
  EXPECT_EQ(s->shape, "40x23");
}

TEST(CaptureRoundTrip, LaunchDumpsWithArenaWindow) {
  TempDir t;
  const auto files = write_synthetic_capture(t.file("cap"), Form::launch_dump, small(96, 40));
  EXPECT_EQ(files.size(), 5u);
  const auto caps = load_captures(t.file("cap"));
  ASSERT_EQ(caps.size(), 1u);
  const LaunchCapture& c = caps[0];
  EXPECT_EQ(c.ex, 16u);
  EXPECT_EQ(c.ey, 8u);
  EXPECT_EQ(c.output.offset, 96u);
  EXPECT_EQ(c.output.bytes.size(), 96u + 5 * 16 * 8 * 32 + 40);
  ASSERT_TRUE(c.results);
  const ReplayOutputs r = replay_launch(c, fast());
  EXPECT_EQ(r.output_alloc, c.results->output_alloc);
  EXPECT_EQ(r.surface_bytes, c.results->surface_bytes);
  // The bytes around the window are the writer's pattern, carried over (F4).
  EXPECT_EQ(r.output_alloc[0], 0xA5);
}

TEST(CaptureRoundTrip, ReplayCaptureMatchesLaunchDumps) {
  TempDir t;
  auto o = small(32, 0);
  o.profile = &profile_zluda();
  ASSERT_TRUE(set_reading(o.readings, "arena-order=natural", nullptr));
  write_synthetic_capture(t.file("launch"), Form::launch_dump, o);
  write_synthetic_capture(t.file("replay"), Form::replay, o);
  const LaunchCapture rc = load_replay_capture(t.file("replay"));
  EXPECT_EQ(rc.form, Form::replay);
  EXPECT_EQ(rc.grid_x, 2u);
  EXPECT_EQ(rc.grid_y, 1u);
  ASSERT_TRUE(rc.results);
  const LaunchCapture lc = load_captures(t.file("launch"))[0];
  EXPECT_EQ(rc.results->output_alloc, lc.results->output_alloc);
  EXPECT_EQ(rc.results->surface_bytes, lc.results->surface_bytes);
  RunOptions ro = fast();
  ro.profile = &profile_zluda();
  ro.readings = o.readings;
  const ReplayOutputs r = replay_launch(rc, ro);
  EXPECT_EQ(r.output_alloc, rc.results->output_alloc);
  EXPECT_EQ(r.surface_bytes, rc.results->surface_bytes);
  // The pre-launch arena window is zero (the writer's replay form holds the state before).
  EXPECT_EQ(rc.output.bytes[32], 0);
}

TEST(CaptureRoundTrip, FolderOfCapturesIsASequence) {
  TempDir t;
  write_synthetic_capture(t.file("seq/a"), Form::replay, small());
  auto o = small();
  o.seed = 2;
  write_synthetic_capture(t.file("seq/b"), Form::launch_dump, o);
  const auto caps = load_captures(t.file("seq"));
  ASSERT_EQ(caps.size(), 2u);
  EXPECT_EQ(caps[0].form, Form::replay);
  EXPECT_EQ(caps[1].form, Form::launch_dump);
}

TEST(CaptureErrors, TruncatedAndMalformedLaunchDumps) {
  TempDir t;
  write_synthetic_capture(t.file("cap"), Form::launch_dump, small(64, 0));
  const fs::path dir = t.file("cap");
  // A truncated arena allocation: the size in the name no longer matches.
  const fs::path arena = find_file(dir, "arg048");
  truncate(arena, 1000);
  expect_input_error([&] { load_captures(dir.string()); }, "arg048", 1000, "size in the file name");
  write_synthetic_capture(t.file("cap"), Form::launch_dump, small(64, 0));
  // A truncated surface.
  truncate(find_file(dir, "arg112"), 100);
  expect_input_error([&] { load_captures(dir.string()); }, "arg112", 100, "pitch");
  write_synthetic_capture(t.file("cap"), Form::launch_dump, small(64, 0));
  // A surface that is not RGBA16F.
  const fs::path surf = find_file(dir, "arg112");
  fs::rename(surf, dir / std::string(surf.filename().string()).replace(surf.filename().string().find("fmt16"), 5, "fmt32"));
  expect_input_error([&] { load_captures(dir.string()); }, "arg112", 0, "fmt32");
  // A name that starts like a dump but is not one.
  write_file_atomic((dir / "launch-001-broken.bin").string(), std::vector<std::uint8_t>(4));
  expect_input_error([&] { load_captures(dir.string()); }, "launch-001-broken.bin", 0, "launch dump name");
}

TEST(CaptureErrors, WrongSizesAndKernels) {
  TempDir t;
  write_synthetic_capture(t.file("cap"), Form::launch_dump, small());
  // Extents that need a larger arena than the allocation holds.
  LoadOptions lo;
  lo.ex = 24;
  expect_input_error([&] { load_captures(t.file("cap"), lo); }, "arg008", 5 * 16 * 8 * 32, "5·ey·ex·32");
  // A launch of another kernel only.
  const fs::path other = t.file("other");
  fs::create_directories(other);
  for (const auto& e : fs::directory_iterator(t.file("cap"))) {
    std::string n = e.path().filename().string();
    n.replace(n.find("enc5"), 4, "enc4");
    fs::copy_file(e.path(), other / n);
  }
  try {
    load_captures(other.string());
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), "cuda_dldn_engine_swin_enc4_kernel")) << e.what();
    EXPECT_TRUE(contains(e.what(), "no launch of a kernel matching 'swin_enc5'")) << e.what();
  }
  // A missing argument file.
  fs::remove(find_file(t.file("cap"), "arg088"));
  try {
    load_captures(t.file("cap"));
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), "no arg088 texture dump")) << e.what();
  }
}

TEST(CaptureErrors, MalformedReplayCaptures) {
  TempDir t;
  const fs::path dir = t.file("rc");
  write_synthetic_capture(dir.string(), Form::replay, small(16, 0));
  const std::string manifest = read_text(dir / "manifest.txt");
  // args.bin truncated.
  truncate(dir / "args.bin", 100);
  expect_input_error([&] { load_replay_capture(dir.string()); }, "args.bin", 100, "144-byte");
  write_synthetic_capture(dir.string(), Form::replay, small(16, 0));
  // The pointer at +48 disagrees with the manifest.
  auto args = read_file_bytes((dir / "args.bin").string());
  args[48] ^= 1;
  write_file_atomic((dir / "args.bin").string(), args);
  expect_input_error([&] { load_replay_capture(dir.string()); }, "args.bin", 48, "base + delta");
  write_synthetic_capture(dir.string(), Form::replay, small(16, 0));
  // An alloc file shorter than the manifest says.
  truncate(dir / "alloc-2.bin", 10);
  expect_input_error([&] { load_replay_capture(dir.string()); }, "alloc-2.bin", 10, "alloc size");
  write_synthetic_capture(dir.string(), Form::replay, small(16, 0));
  // A bad manifest line: the error points at the line's first byte.
  const std::size_t at = manifest.find("alloc 1");
  std::string bad = manifest;
  bad.replace(at, 7, "alloc x");
  write_text_atomic((dir / "manifest.txt").string(), bad);
  expect_input_error([&] { load_replay_capture(dir.string()); }, "manifest.txt", at, "alloc id base size");
  // Another kernel's launch shape (facts A2: enc5 is 32x1x8).
  bad = manifest;
  bad.replace(bad.find("32 1 8"), 6, "32 1 4");
  write_text_atomic((dir / "manifest.txt").string(), bad);
  expect_input_error([&] { load_replay_capture(dir.string()); }, "manifest.txt", manifest.find("launch"), "block 32 1 8");
  // Another kernel's name.
  bad = manifest;
  bad.replace(bad.find("swin_enc5"), 9, "swin_enc3");
  write_text_atomic((dir / "manifest.txt").string(), bad);
  expect_input_error([&] { load_replay_capture(dir.string()); }, "manifest.txt", 0, "swin_enc3");
  // A missing surface line.
  bad = manifest.substr(0, manifest.find("surface 112"));
  write_text_atomic((dir / "manifest.txt").string(), bad);
  expect_input_error([&] { load_replay_capture(dir.string()); }, "manifest.txt", bad.size(), "surface 112");
}
