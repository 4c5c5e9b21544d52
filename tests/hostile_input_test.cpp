// Hostile inputs (issue 12): every reproducer of a crash, hang, read outside the capture, unclear
// error or silently accepted input, kept as a regression test. Each ends with a clear error (the
// file, the offset, what was expected, what was found) or a bounded run.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "base/errors.hpp"
#include "capture/capture.hpp"
#include "capture_edit.hpp"
#include "io/checked_size.hpp"
#include "io/exr.hpp"
#include "io/files.hpp"
#include "model/layer.hpp"
#include "model/weight_image.hpp"
#include "test_util.hpp"

using namespace test_util;
using namespace capture_edit;
namespace fs = std::filesystem;

namespace {

// A small launch-dump capture and a replay capture in t.
void make_captures(const TempDir& t, const std::string& extra = "") {
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 16 --ey 8 --threads 2 " + extra).status, 0);
  ASSERT_EQ(t.rrswin("capture --synthetic --form replay -o rc --ex 16 --ey 8 --threads 2 " + extra).status, 0);
}

// replay and settle both end with exit status 2 and the message holds every part.
void expect_refused(const TempDir& t, const std::string& capture, const std::vector<std::string>& parts) {
  for (const char* cmd : {"replay", "settle"}) {
    const std::string args = std::string(cmd) + " " + capture + (std::string(cmd) == "replay" ? " -o out-refused" : "") + " --threads 2";
    const Result r = t.rrswin(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    for (const auto& p : parts) EXPECT_TRUE(contains(r.out, p)) << args << ": no '" << p << "' in\n" << r.out;
  }
}

}  // namespace

// --- checked size arithmetic (io/checked_size.hpp) ------------------------------------------------

TEST(CheckedSize, WrapsAndLimitsAreRefusedWithTheNumbers) {
  EXPECT_EQ(rrswin::checked_bytes("x", {5, 23, 40, 32}), 147200u);
  EXPECT_EQ(rrswin::mul_u64(1ull << 32, 1ull << 32), std::nullopt);
  EXPECT_EQ(rrswin::add_u64(~0ull, 1), std::nullopt);
  try {
    rrswin::checked_bytes("pitch × height", {576460752303423808ull, 32});
    FAIL() << "no throw";
  } catch (const rrswin::SizeError& e) {
    EXPECT_TRUE(contains(e.what(), "576460752303423808 × 32")) << e.what();
    EXPECT_TRUE(contains(e.what(), "wraps")) << e.what();
  }
  try {
    rrswin::checked_bytes_in("f.bin", 7, "the arena", {5, 100000, 100000, 32});
    FAIL() << "no throw";
  } catch (const rrswin::InputError& e) {
    EXPECT_EQ(e.offset(), 7u);
    EXPECT_TRUE(contains(e.what(), "1600000000000 bytes")) << e.what();
    EXPECT_TRUE(contains(e.what(), "17179869184")) << e.what();
  }
}

// --- crashes: pitch·height and 8·width that wrap ---------------------------------------------------

TEST(HostileCapture, SurfacePitchThatWrapsIsRefused) {
  TempDir t;
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 16 --ey 32 --threads 2").status, 0);
  rename_shape(t.path / "cap", "arg112", "16x32-pitch576460752303423808");
  expect_refused(t, "cap", {"arg112", "576460752303423808 × 32", "wraps"});
}

TEST(HostileCapture, TexturePitchThatWrapsIsRefused) {
  TempDir t;
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 16 --ey 32 --threads 2").status, 0);
  rename_shape(t.path / "cap", "arg088", "16x32-pitch576460752303423808-clamp");
  expect_refused(t, "cap", {"arg088", "wraps"});
}

TEST(HostileCapture, ManifestSurfacePitchThatWrapsIsRefused) {
  TempDir t;
  make_captures(t);
  edit_manifest(t.path / "rc", "surface 112 16 8 16 128", "surface 112 16 32 16 576460752303423808");
  expect_refused(t, "rc", {"manifest.txt", "wraps"});
}

TEST(HostileCapture, ManifestTextureWidthWhoseRowWrapsIsRefused) {
  TempDir t;
  make_captures(t);
  // 8 * 536870917 = 40 in 32 bits: a 920-byte file passed the size check, then bad_alloc.
  edit_manifest(t.path / "rc", "texture 88 16 8", "texture 88 536870917 23");
  expect_refused(t, "rc", {"manifest.txt", "1..65536", "536870917×23"});
  // 4294967295 x 4294967295 printed "height -1" and a wrapped byte count.
  edit_manifest(t.path / "rc", "texture 88 536870917 23", "texture 88 4294967295 4294967295");
  const Result r = t.rrswin("replay rc -o o");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.out, "4294967295×4294967295")) << r.out;
  EXPECT_FALSE(contains(r.out, "-1")) << r.out;
}

TEST(HostileCapture, ShapeBeyondTheImageLimitSaysTheLimit) {
  TempDir t;
  make_captures(t);
  rename_shape(t.path / "cap", "arg112", "99999x99999");
  expect_refused(t, "cap", {"1..65536", "99999×99999"});
}

// --- hangs: grids far beyond the frame --------------------------------------------------------------

TEST(HostileCapture, ManifestGridFarBeyondTheFrameIsRefused) {
  TempDir t;
  make_captures(t);
  edit_manifest(t.path / "rc", "launch 2 1 1 32 1 8 0", "launch 100000 100000 1 32 1 8 0");
  expect_refused(t, "rc", {"manifest.txt", "100000 × 100000", "2 × 1 blocks cover", "at most 12 × 10"});
}

TEST(HostileCapture, ManifestEmptyGridIsRefused) {
  TempDir t;
  make_captures(t);
  edit_manifest(t.path / "rc", "launch 2 1 1", "launch 0 0 1");
  expect_refused(t, "rc", {"manifest.txt", "grid 0 × 0"});
}

TEST(HostileCapture, GridWithinTheSlackStillReplays) {
  TempDir t;
  make_captures(t);
  edit_manifest(t.path / "rc", "launch 2 1 1", "launch 12 10 1");
  const Result r = t.rrswin("replay rc -o out --threads 2");
  EXPECT_EQ(r.status, 0) << r.out;  // the extra blocks write nothing: still the capture's results
  EXPECT_TRUE(contains(r.out, "reproduces the capture's results")) << r.out;
}

TEST(HostileRun, HugeBlockOffsetRunsOnlyTheBlocksThatTouchTheFrame) {
  TempDir t;
  // 8197 x 8195 = 67 M blocks, about a day before; 24 of them can touch the frame.
  const Result r = t.rrswin("run --layer enc5 --block-offset 65535,65535 -o out --threads 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "layer: 24 blocks")) << r.out;
  EXPECT_TRUE(contains(r.out, "skipped")) << r.out;
}

// Skipping the blocks that cannot touch the frame changes no byte: with stats every block runs.
TEST(HostileRun, SkippedBlocksWriteNothing) {
  const int ex = 13, ey = 11;
  const rrswin::SyntheticFrame f = rrswin::make_synthetic_frame(ex, ey, 5, false);
  for (const auto& [ox, oy] : {std::pair{19, 27}, std::pair{7, 0}, std::pair{64, 9}}) {
    std::vector<std::uint8_t> out[2];
    rrswin::Surface surf[2];
    for (int k = 0; k < 2; ++k) {
      out[k].assign(f.input_arena.size(), 0);
      surf[k] = rrswin::Surface::make(ex, ey);
      rrswin::LaunchParams p = rrswin::frame_launch(ex, ey, f.input_arena, rrswin::default_weights(), out[k], f.texture, surf[k]);
      p.block_offset_x = static_cast<std::uint16_t>(ox);
      p.block_offset_y = static_cast<std::uint16_t>(oy);
      rrswin::RunOptions o;
      o.threads = 2;
      rrswin::golden::LayerStats stats;
      if (k == 1) o.stats = &stats;  // every block of the grid runs
      std::int64_t last = 0, total = 0;
      o.progress = [&](std::int64_t d, std::int64_t n) {
        last = d;
        total = n;
      };
      rrswin::run_frame(p, o);
      EXPECT_EQ(last, total);
      const std::int64_t all = static_cast<std::int64_t>((ex + ox + 7) / 8) * ((ey + oy + 7) / 8);
      const std::int64_t touching = static_cast<std::int64_t>((ex + ox + 7) / 8 - ox / 8) * ((ey + oy + 7) / 8 - oy / 8);
      EXPECT_EQ(total, k == 0 ? touching : all);
    }
    EXPECT_EQ(out[0], out[1]) << ox << "," << oy;
    EXPECT_EQ(surf[0].bytes, surf[1].bytes) << ox << "," << oy;
  }
}

TEST(HostileRun, GridProblemNamesTheNumbers) {
  EXPECT_EQ(rrswin::grid_problem(40, 23, 0, 0, 0, 0), std::nullopt);
  EXPECT_EQ(rrswin::grid_problem(40, 23, 0, 0, 18, 14), std::nullopt);
  const auto why = rrswin::grid_problem(40, 23, 0, 0, 19, 3);
  ASSERT_TRUE(why.has_value());
  EXPECT_TRUE(contains(*why, "19 × 3")) << *why;
  EXPECT_TRUE(contains(*why, "5 × 3 blocks cover")) << *why;
}

// --- reads outside the capture -------------------------------------------------------------------

TEST(HostileCapture, ManifestFileOutsideTheCaptureIsRefused) {
  TempDir t;
  make_captures(t);
  edit_manifest(t.path / "rc", "texture-088.bin", "../../../../../../etc/passwd");
  expect_refused(t, "rc", {"manifest.txt", "'..'", "inside the capture folder"});
  edit_manifest(t.path / "rc", "../../../../../../etc/passwd", "/etc/passwd");
  expect_refused(t, "rc", {"manifest.txt", "absolute path"});
}

TEST(HostileCapture, LinksOutOfTheCaptureAreRefused) {
  TempDir t;
  make_captures(t);
  fs::create_symlink("/etc/passwd", t.path / "rc" / "evil.bin");
  edit_manifest(t.path / "rc", "texture-088.bin", "evil.bin");
  expect_refused(t, "rc", {"evil.bin", "/etc/passwd", "symbolic link"});
  // A launch dump that is a link to a file outside the folder.
  const fs::path tex = find_file(t.path / "cap", "arg088");
  fs::rename(tex, t.path / "outside.bin");
  fs::create_symlink(t.path / "outside.bin", tex);
  expect_refused(t, "cap", {"arg088", "symbolic link"});
}

// --- unclear errors ------------------------------------------------------------------------------

TEST(HostileFiles, DirectoryAsAnInputFileSaysSo) {
  TempDir t;
  fs::create_directory(t.path / "dir.bin");
  for (const char* opt : {"--weights", "--texture", "--input"}) {
    const Result r = t.rrswin(std::string("run --layer enc5 -o out ") + opt + " dir.bin");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.out, "dir.bin: at byte offset 0: expected a file, found a directory")) << r.out;
    EXPECT_FALSE(contains(r.out, "bad_alloc")) << r.out;
  }
}

TEST(HostileFiles, PipeIsReadAsAStream) {
  TempDir t;
  ASSERT_EQ(t.rrswin("make-weights --seed 4 -o w.bin").status, 0);
  ASSERT_EQ(t.rrswin("run --layer enc5 -o a --weights w.bin --threads 2").status, 0);
  const Result r =
      shell("cd '" + t.path.string() + "' && cat w.bin | '" RRSWIN_CLI_PATH "' run --layer enc5 -o b --weights /dev/stdin --threads 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(rrswin::read_file_bytes(t.file("a/arena.bin")), rrswin::read_file_bytes(t.file("b/arena.bin")));
}

TEST(HostileRun, HugeExtentsStateTheBytes) {
  TempDir t;
  const Result r = t.rrswin("run --layer enc5 -o out --ex 100000 --ey 100000");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "1600000000000 bytes")) << r.out;
  EXPECT_TRUE(contains(r.out, "17179869184 bytes")) << r.out;
  EXPECT_FALSE(contains(r.out, "bad_alloc")) << r.out;
  EXPECT_FALSE(fs::exists(t.path / "out"));
}

TEST(HostileCapture, MissingArg008IsNamedWithThreeDigits) {
  TempDir t;
  make_captures(t);
  fs::remove(find_file(t.path / "cap", "arg008"));
  const Result r = t.rrswin("replay cap -o out");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "no arg008 buffer dump")) << r.out;
  EXPECT_TRUE(contains(r.out, "-arg008-buffer-")) << r.out;
}

TEST(HostileCapture, WrappingOffsetIsReportedWithoutAWrappedNumber) {
  TempDir t;
  make_captures(t);
  const fs::path f = find_file(t.path / "cap", "arg048");
  const std::string n = f.filename().string();
  rename_shape(t.path / "cap", "arg048",
               n.substr(n.find("base0x"), n.rfind("-fmt") - n.find("base0x")) +
                   "-off18446744073709531136");  // 2^64 - 20480: the window end wraps to 0
  const Result r = t.rrswin("replay cap -o out");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_FALSE(contains(r.out, "at least 0 bytes")) << r.out;
  EXPECT_TRUE(contains(r.out, "pointer offset 18446744073709531136")) << r.out;
}

TEST(HostileCapture, ReplayFolderWithoutManifestSaysSo) {
  TempDir t;
  make_captures(t);
  fs::remove(t.path / "rc" / "manifest.txt");
  const Result r = t.rrswin("replay rc -o out");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "manifest.txt")) << r.out;
  EXPECT_FALSE(contains(r.out, "results")) << r.out;
}

TEST(HostileFiles, ExrHeaderWithoutItsEndByteSaysSo) {
  const std::vector<rrswin::f16_t> rgba(4 * 4 * 3, 0x3c00);
  std::vector<std::uint8_t> b = rrswin::encode_exr_rgba_half(4, 3, rgba.data());
  // The header's last byte is the NUL after the last attribute: the offset table follows.
  std::size_t end = 8;
  while (b[end] != 0) {
    while (b[end]) ++end;  // name
    ++end;
    while (b[end]) ++end;  // type
    ++end;
    const std::uint32_t size = b[end] | b[end + 1] << 8 | b[end + 2] << 16 | static_cast<std::uint32_t>(b[end + 3]) << 24;
    end += 4 + size;
  }
  b.erase(b.begin() + static_cast<std::ptrdiff_t>(end));
  try {
    rrswin::decode_exr_rgba_half(b, "t.exr");
    FAIL() << "no throw";
  } catch (const rrswin::InputError& e) {
    EXPECT_TRUE(contains(e.what(), "header")) << e.what();
    EXPECT_FALSE(contains(e.what(), "scan-line")) << e.what();
  }
}

TEST(HostileRun, OutputPathThatIsAFileIsRefusedFirst) {
  TempDir t;
  write_text(t.path / "out", "not a folder");
  Result r = t.rrswin("run --layer enc5 -o out --threads 2");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "out: the output folder is an existing file")) << r.out;
  EXPECT_FALSE(contains(r.out, "filesystem error")) << r.out;
  EXPECT_FALSE(contains(r.out, "layer:")) << r.out;  // refused before the layer ran
  make_captures(t);
  r = t.rrswin("replay cap -o out");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "an existing file")) << r.out;
}

TEST(HostileRun, UnwritableOutputFolderIsFoundBeforeTheLayerRuns) {
  TempDir t;
  // A folder below a file cannot be created whoever runs the test (root ignores modes).
  write_text(t.path / "f", "x");
  const Result r = t.rrswin("run --layer enc5 -o f/sub --threads 2");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "f/sub: cannot create the output folder")) << r.out;
  EXPECT_FALSE(fs::exists(t.path / "f" / "sub"));
  EXPECT_FALSE(contains(r.out, "layer:")) << r.out;
  if (::geteuid() != 0) {
    fs::create_directory(t.path / "ro");
    ::chmod(t.file("ro").c_str(), 0555);
    const Result w = t.rrswin("run --layer enc5 -o ro --threads 2");
    EXPECT_EQ(w.status, 2) << w.out;
    EXPECT_TRUE(contains(w.out, "not writable")) << w.out;
    EXPECT_FALSE(contains(w.out, "layer:")) << w.out;
  }
}

// --- silently accepted ----------------------------------------------------------------------------

TEST(HostileCapture, BufferSizeTokensMustReadAndBePresent) {
  for (const char* bad : {"sizeabc", "size99999999999999999999999", ""}) {
    TempDir t;
    make_captures(t);
    const fs::path f = find_file(t.path / "cap", "arg040");
    const std::string n = f.filename().string();
    const auto b = n.find("base0x");
    const std::string base = n.substr(b, n.find('-', b) - b);
    rename_shape(t.path / "cap", "arg040", base + (*bad ? std::string("-") + bad : ""));
    const Result r = t.rrswin("replay cap -o out");
    EXPECT_EQ(r.status, 2) << bad << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, "size<N>")) << bad << "\n" << r.out;
  }
}

TEST(HostileCapture, ImageShapeTokensMustRead) {
  {
    TempDir t;
    make_captures(t);
    rename_shape(t.path / "cap", "arg112", "16x8-pitch99999999999999999999");
    expect_refused(t, "cap", {"pitch99999999999999999999"});
  }
  {
    TempDir t;
    make_captures(t);
    rename_shape(t.path / "cap", "arg088", "16x8-bogusmode");
    expect_refused(t, "cap", {"bogusmode", "clamp|border|wrap|mirror"});
  }
}

TEST(HostileRun, MisspeltSimdPathIsAnError) {
  TempDir t;
  const Result r = shell("cd '" + t.path.string() + "' && RRSWIN_SIMD=bogus '" RRSWIN_CLI_PATH "' run --layer enc5 -o out --threads 2");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "RRSWIN_SIMD=bogus: expected scalar, avx2")) << r.out;
  EXPECT_EQ(
      shell("cd '" + t.path.string() + "' && RRSWIN_SIMD=scalar '" RRSWIN_CLI_PATH "' run --layer enc5 -o out --ex 8 --ey 8 --threads 2")
          .status,
      0);
}

TEST(HostileRun, MakeWeightsReplacesOnlyWeightImagesWithoutForce) {
  TempDir t;
  ASSERT_EQ(t.rrswin("make-weights --seed 2 -o w.bin").status, 0);
  Result r = t.rrswin("make-weights --seed 3 -o w.bin");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "replaced the existing file")) << r.out;
  write_text(t.path / "notes.txt", "precious");
  r = t.rrswin("make-weights -o notes.txt");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "--force")) << r.out;
  EXPECT_EQ(read_text(t.path / "notes.txt"), "precious");
  EXPECT_EQ(t.rrswin("make-weights --force -o notes.txt").status, 0);
  EXPECT_EQ(fs::file_size(t.path / "notes.txt"), rrswin::kWeightImageBytes);
}
