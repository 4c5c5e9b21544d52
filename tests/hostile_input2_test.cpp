// Hostile inputs, second pass (issue 18): every reproducer of the second fuzz campaign that did not
// end cleanly, kept as a regression test of its class. Commands run in a scratch folder; `cap` /
// `rc` are small synthetic captures (launch-dump / replay form).
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "capture_edit.hpp"
#include "io/arena_io.hpp"
#include "io/files.hpp"
#include "io/links.hpp"
#include "io/numbers.hpp"
#include "io/output_set.hpp"
#include "test_util.hpp"

using namespace test_util;
using namespace capture_edit;
namespace fs = std::filesystem;

namespace {

void make_captures(const TempDir& t) {
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 8 --ey 8 --threads 2").status, 0);
  ASSERT_EQ(t.rrswin("capture --synthetic --form replay -o rc --ex 8 --ey 8 --threads 2").status, 0);
}

// No library text, ever (issue 18 "Messages").
void expect_no_library_text(const std::string& out) {
  for (const char* s : {"stoi", "stoull", "bad_alloc", "max_size()", "std::", "basic_string", "filesystem error"})
    EXPECT_FALSE(contains(out, s)) << "'" << s << "' in\n" << out;
}

void expect_error(const Result& r, const std::vector<std::string>& parts) {
  EXPECT_EQ(r.status, 2) << r.out;
  for (const auto& p : parts) EXPECT_TRUE(contains(r.out, p)) << "no '" << p << "' in\n" << r.out;
  expect_no_library_text(r.out);
}

// Files under dir (recursively), for "nothing was written".
std::vector<std::string> files_under(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.push_back(e.path().string());
  return out;
}

}  // namespace

// --- crash: diff divided by a zero pitch -----------------------------------------------------------

TEST(Hostile2Diff, SurfacePitchZeroOrWrappingIsAnErrorNotSigfpe) {
  for (const char* shape : {"8x8-pitch0", "536870912x1"}) {  // 8·536870912 = 2^32: pitch 0 in 32 bits
    TempDir t;
    make_captures(t);
    ASSERT_EQ(t.rrswin("capture --synthetic -o b --ex 8 --ey 8 --threads 2").status, 0);
    const fs::path a = rename_shape(t.path / "cap", "arg112", shape);
    const fs::path b = rename_shape(t.path / "b", "arg112", shape);
    expect_error(t.rrswin("diff cap b"), {"arg112", shape});                      // folder form
    expect_error(t.rrswin("diff " + a.string() + " " + b.string()), {"arg112"});  // file form
  }
}

// --- memory sized by names --------------------------------------------------------------------------

TEST(Hostile2Diff, SurfaceNamesCannotSizeMemory) {
  // 16 GiB of texels (the limit), 8 GiB (within it, but not the bytes that exist), 2^31 - 1 wide.
  for (const std::string shape : {"65536x65536", "65536x16384", "2147483647x1"}) {
    TempDir t;
    make_captures(t);
    ASSERT_EQ(t.rrswin("capture --synthetic -o b --ex 8 --ey 8 --threads 2").status, 0);
    rename_shape(t.path / "cap", "arg112", shape);
    rename_shape(t.path / "b", "arg112", shape);
    const Result r = t.rrswin("diff cap b");
    expect_error(r, {"arg112", shape});
    const char* why = shape == "65536x65536"   ? "16 GiB"
                      : shape == "65536x16384" ? "8589934592 bytes (pitch 524288 × height 16384"
                                               : "1..65536";
    EXPECT_TRUE(contains(r.out, why)) << r.out;
  }
}

TEST(Hostile2Diff, Arg048OffsetThatWrapsIsComparedAsBytes) {
  TempDir t;
  make_captures(t);
  ASSERT_EQ(t.rrswin("capture --synthetic -o b --ex 8 --ey 8 --threads 2").status, 0);
  for (const char* dir : {"cap", "b"}) {
    const fs::path f = find_file(t.path / dir, "arg048");
    const std::string n = f.filename().string();
    const auto s = n.find("base0x");
    rename_shape(t.path / dir, "arg048", n.substr(s, n.rfind("-fmt") - s) + "-off18446744073709551615");
  }
  const Result r = t.rrswin("diff cap b");
  EXPECT_EQ(r.status, 0) << r.out;  // identical bytes; the window that cannot exist is not used
  expect_no_library_text(r.out);
  // An off whose number does not read is the capture reader's error, named (was std::stoull).
  for (const char* dir : {"cap", "b"}) {
    const fs::path f = find_file(t.path / dir, "arg048");
    const std::string n = f.filename().string();
    const auto s = n.find("base0x");
    rename_shape(t.path / dir, "arg048", n.substr(s, n.find("-off") - s) + "-off99999999999999999999999");
  }
  expect_error(t.rrswin("diff cap b"), {"arg048", "off99999999999999999999999"});
}

// --- files outside the capture: no link is followed --------------------------------------------------

TEST(Hostile2Links, DiffRefusesADumpThatIsALink) {
  TempDir t;
  make_captures(t);
  ASSERT_EQ(t.rrswin("capture --synthetic -o b --ex 8 --ey 8 --threads 2").status, 0);
  write_text(t.path / "secret.txt", "SECRET-BYTES");
  const fs::path f = find_file(t.path / "b", "arg040");
  fs::remove(f);
  fs::create_symlink(t.path / "secret.txt", f);
  const Result r = t.rrswin("diff cap b");
  expect_error(r, {f.filename().string(), "symbolic link"});
  EXPECT_FALSE(contains(r.out, "SECRET")) << r.out;
}

TEST(Hostile2Links, ReplayRefusesExtraDumpsThatAreLinksAndWritesNoLink) {
  TempDir t;
  make_captures(t);
  write_text(t.path / "outside.bin", std::string(64, 'x'));
  // An extra argument rrswin does not read, dumped as a link (d4r dumps every object, F5).
  const std::string n = find_file(t.path / "cap", "arg008").filename().string();
  const std::string extra = n.substr(0, n.find("-arg008")) + "-arg120-buffer-base0x7f0000800000-size64-fmt0.bin";
  fs::create_symlink(t.path / "outside.bin", t.path / "cap" / extra);
  const Result r = t.rrswin("replay cap -o out --threads 2");
  expect_error(r, {extra, "symbolic link"});
  EXPECT_TRUE(files_under(t.path / "out").empty());
  // Without the link the replay folder holds regular files only.
  fs::remove(t.path / "cap" / extra);
  ASSERT_EQ(t.rrswin("replay cap -o out --threads 2").status, 0);
  for (const auto& f : files_under(t.path / "out")) EXPECT_FALSE(fs::is_symlink(f)) << f;
}

TEST(Hostile2Links, DebugWindowIsNotReadThroughALink) {
  TempDir t;
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 8 --ey 8 --stage w1 --threads 2").status, 0);
  const fs::path f = find_file(t.path / "cap", "arg048");
  fs::rename(f, t.path / "real048.bin");
  fs::create_symlink(t.path / "real048.bin", f);
  expect_error(t.rrswin("diff cap --stage w1 --threads 2"), {"arg048", "symbolic link"});
}

TEST(Hostile2Links, SequenceMemberThatIsALinkIsRefused) {
  TempDir t;
  fs::create_directory(t.path / "seq");
  ASSERT_EQ(t.rrswin("capture --synthetic -o seq/a --ex 8 --ey 8 --threads 2").status, 0);
  ASSERT_EQ(t.rrswin("capture --synthetic -o elsewhere --ex 8 --ey 8 --threads 2").status, 0);
  fs::create_directory_symlink(t.path / "elsewhere", t.path / "seq" / "b");
  expect_error(t.rrswin("replay seq -o out --threads 2"), {"seq/b", "symbolic link"});
  expect_error(t.rrswin("settle seq --threads 2 --max-runs 2"), {"seq/b", "symbolic link"});
  EXPECT_TRUE(files_under(t.path / "out").empty());
}

TEST(Hostile2Links, ResultsFolderAndManifestLinksAreRefused) {
  TempDir t;
  make_captures(t);
  fs::rename(t.path / "rc" / "results", t.path / "res-elsewhere");
  fs::create_directory_symlink(t.path / "res-elsewhere", t.path / "rc" / "results");
  expect_error(t.rrswin("replay rc -o out --threads 2"), {"results", "symbolic link"});
  fs::remove(t.path / "rc" / "results");
  fs::rename(t.path / "rc" / "manifest.txt", t.path / "m.txt");
  fs::create_symlink(t.path / "m.txt", t.path / "rc" / "manifest.txt");
  expect_error(t.rrswin("replay rc -o out --threads 2"), {"manifest.txt", "symbolic link"});
}

TEST(Hostile2Links, TheHelperRefusesLinksAndNeverCopiesOne) {
  TempDir t;
  write_text(t.path / "f.bin", "abc");
  fs::create_symlink(t.path / "f.bin", t.path / "l.bin");
  EXPECT_THROW(rrswin::read_file_no_link(t.file("l.bin")), rrswin::InputError);
  EXPECT_THROW(rrswin::refuse_link(t.file("l.bin")), rrswin::InputError);
  EXPECT_THROW(rrswin::link_or_copy_file(t.file("l.bin"), t.file("copy.bin")), rrswin::InputError);
  EXPECT_FALSE(fs::exists(fs::symlink_status(t.path / "copy.bin")));
  // A link already at the destination is replaced by the file, not followed or kept.
  write_text(t.path / "victim.txt", "keep");
  fs::create_symlink(t.path / "victim.txt", t.path / "dst.bin");
  rrswin::link_or_copy_file(t.file("f.bin"), t.file("dst.bin"));
  EXPECT_FALSE(fs::is_symlink(t.path / "dst.bin"));
  EXPECT_EQ(read_text(t.path / "dst.bin"), "abc");
  EXPECT_EQ(read_text(t.path / "victim.txt"), "keep");
  EXPECT_EQ(rrswin::read_file_no_link(t.file("f.bin")).size(), 3u);
}

// --- unbounded runs ------------------------------------------------------------------------------

TEST(Hostile2Settle, MaxRunsIsHonoured) {
  TempDir t;
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 8 --ey 8 --profile zluda --reading arena-order=natural --threads 2").status, 0);
  for (const int n : {1, 3}) {
    const Result r = t.rrswin("settle cap --json --threads 2 --max-runs " + std::to_string(n));
    EXPECT_EQ(r.status, 1) << r.out;  // not found within the budget
    EXPECT_TRUE(contains(r.out, "\"runs\": " + std::to_string(n) + ",")) << r.out;
    EXPECT_TRUE(contains(r.out, "\"budget_exhausted\": true")) << r.out;
    EXPECT_TRUE(contains(r.out, "\"alternatives_complete\": false")) << r.out;
  }
  const Result text = t.rrswin("settle cap --threads 2 --max-runs 1");
  EXPECT_TRUE(contains(text.out, "search (1 runs")) << text.out;
  EXPECT_TRUE(contains(text.out, "--max-runs 1 reached")) << text.out;
  EXPECT_FALSE(contains(text.out, "every reading is settled")) << text.out;
}

// --- silently accepted ---------------------------------------------------------------------------

TEST(Hostile2Manifest, WrappedPointerOffsetIsRefusedOnItsLine) {
  TempDir t;
  make_captures(t);
  // Alone (replacing the arena's line) and next to the valid line.
  edit_manifest(t.path / "rc", "pointer 8 0 0", "pointer 18446744073709551615 0 0");
  const std::string m = read_text(t.path / "rc" / "manifest.txt");
  const std::string at = std::to_string(m.find("pointer 18446744073709551615"));
  expect_error(t.rrswin("replay rc -o out"), {"manifest.txt", "at byte offset " + at, "18446744073709551615", "[0, 136]"});
  edit_manifest(t.path / "rc", "pointer 18446744073709551615 0 0", "pointer 8 0 0\npointer 18446744073709551615 0 0");
  expect_error(t.rrswin("replay rc -o out"), {"manifest.txt", "18446744073709551615"});
  // A second line for one offset is refused too (was: the later line silently won).
  edit_manifest(t.path / "rc", "pointer 18446744073709551615 0 0", "pointer 8 0 0");
  expect_error(t.rrswin("replay rc -o out"), {"manifest.txt", "one pointer line per offset"});
}

TEST(Hostile2Manifest, NulByteInAFileNameIsRefusedAndShown) {
  TempDir t;
  make_captures(t);
  edit_manifest(t.path / "rc", "surface-112.bin", std::string("surface-112.bin\0ignored", 23));
  const Result r = t.rrswin("replay rc -o out");
  expect_error(r, {"manifest.txt", "NUL"});
  EXPECT_TRUE(contains(r.out, "byte offset " + std::to_string(read_text(t.path / "rc" / "manifest.txt").find('\0')))) << r.out;
  // A message about a name holding a control byte is not cut there.
  EXPECT_EQ(rrswin::InputError("f", 0, "x", std::string("a\0b", 3)).what(), std::string("f: at byte offset 0: expected x, found a\\x00b"));
}

TEST(Hostile2Manifest, FmtIsBlamedOnTheManifestLine) {
  TempDir t;
  make_captures(t);
  edit_manifest(t.path / "rc", "texture 88 8 8 16", "texture 88 8 8 4294967296");
  const std::string m = read_text(t.path / "rc" / "manifest.txt");
  const Result r = t.rrswin("replay rc -o out");
  expect_error(r, {"manifest.txt: at byte offset " + std::to_string(m.find("texture 88")), "fmt", "'4294967296'"});
  EXPECT_FALSE(contains(r.out, "fmt1000000")) << r.out;
  EXPECT_FALSE(contains(r.out, "texture-088.bin")) << r.out;
}

// --- messages ------------------------------------------------------------------------------------

TEST(Hostile2Messages, NumbersNameTheOptionAndTheValue) {
  TempDir t;
  expect_error(t.rrswin("bench --threads abc"), {"--threads", "'abc'"});
  expect_error(t.rrswin("bench --reps 99999999999999999999"), {"--reps", "99999999999999999999 is outside"});
  expect_error(t.rrswin("make-weights --seed 12x -o w.bin"), {"--seed", "'12x'"});
  expect_error(t.rrswin("run --layer enc5 --threads -1 -o out"), {"--threads", "-1 is outside [0, 4096]"});
  // The one parser (io/numbers.hpp).
  EXPECT_EQ(rrswin::parse_u64("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(rrswin::parse_u64("18446744073709551616"), std::nullopt);
  EXPECT_EQ(rrswin::parse_u64("+1"), std::nullopt);
  EXPECT_EQ(rrswin::parse_u64(" 1"), std::nullopt);
  EXPECT_EQ(rrswin::parse_u64("010"), 10u);  // never octal
  EXPECT_EQ(rrswin::parse_u64("0x10", rrswin::NumberBase::dec_or_0x), 16u);
  EXPECT_EQ(rrswin::parse_u64("0x10"), std::nullopt);
  EXPECT_EQ(rrswin::parse_i64("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(rrswin::parse_i64("9223372036854775808"), std::nullopt);
  try {
    rrswin::checked_u64_in("m.txt", 7, "gx", "99999999999999999999", 1, 10);
    FAIL();
  } catch (const rrswin::InputError& e) {
    EXPECT_EQ(e.offset(), 7u);
    EXPECT_TRUE(contains(e.what(), "gx: an integer in [1, 10], found '99999999999999999999'")) << e.what();
  }
}

TEST(Hostile2Messages, ArenaExtentsErrorNamesTheFile) {
  try {
    rrswin::read_plane_arena("some/arena.bin", 0, 0);
    FAIL();
  } catch (const rrswin::InputError& e) {
    EXPECT_TRUE(contains(e.what(), "some/arena.bin")) << e.what();
    EXPECT_TRUE(contains(e.what(), "ex = 0, ey = 0")) << e.what();
  }
}

TEST(Hostile2Messages, ExitStatusIsOneRuleAndHelpSaysIt) {
  TempDir t;
  const Result h = t.rrswin("--help");
  EXPECT_TRUE(contains(h.out, "exit status")) << h.out;
  EXPECT_TRUE(contains(h.out, "2 an error")) << h.out;
  // Every command's errors: 2 (run and ptx said 1 before).
  EXPECT_EQ(t.rrswin("run --layer enc5 --weights missing.bin -o out").status, 2);
  EXPECT_EQ(t.rrswin("inspect missing.bin").status, 2);
  EXPECT_EQ(t.rrswin("replay missing -o out").status, 2);
  EXPECT_EQ(t.rrswin("diff a b").status, 2);
  EXPECT_EQ(t.rrswin("settle missing").status, 2);
  EXPECT_EQ(t.rrswin("ptx stats missing.ptx").status, 2);
}

// --- partial output sets -----------------------------------------------------------------------------

TEST(Hostile2Outputs, OutputSetIsAllOrNothing) {
  TempDir t;
  {
    rrswin::OutputSet set(t.file("out/sub"));
    set.write("a.bin", std::vector<std::uint8_t>{1, 2});
    set.write_text("b/c.txt", "x");
    EXPECT_TRUE(files_under(t.path / "out" / "sub").size() >= 1);  // the staging folder only
    EXPECT_FALSE(fs::exists(t.path / "out" / "sub" / "a.bin"));
  }  // not committed: nothing stays, not even the folders it made
  EXPECT_FALSE(fs::exists(t.path / "out"));
  {
    rrswin::OutputSet set(t.file("out"));
    set.write("a.bin", std::vector<std::uint8_t>{1, 2});
    set.write_text("b/c.txt", "x");
    const auto paths = set.commit();
    ASSERT_EQ(paths.size(), 2u);
    EXPECT_EQ(paths[0], t.file("out/a.bin"));
  }
  EXPECT_EQ(read_text(t.path / "out" / "b" / "c.txt"), "x");
  EXPECT_EQ(files_under(t.path / "out").size(), 3u);  // a.bin, b, b/c.txt: no staging left
}

TEST(Hostile2Outputs, ReplayOfASequenceWritesAllOrNothing) {
  TempDir t;
  fs::create_directory(t.path / "seq");
  ASSERT_EQ(t.rrswin("capture --synthetic -o seq/a --ex 8 --ey 8 --threads 2").status, 0);
  ASSERT_EQ(t.rrswin("capture --synthetic -o seq/b --ex 8 --ey 8 --threads 2").status, 0);
  // The second capture's stage window is missing: the first launch ran, but nothing may stay.
  const Result r = t.rrswin("replay seq -o out --stage w1 --threads 2");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(files_under(t.path / "out").empty()) << r.out;
}

// Every command's outputs all or nothing: an output whose place is taken by a folder makes the
// command fail after the layer ran; none of its other outputs may stay (was: arena.bin without
// surface112.exr, no trace.txt, ...).
TEST(Hostile2Outputs, EveryCommandLeavesNoPartialSet) {
  const std::string K = std::string(RRSWIN_TESTS_DIR) + "/ptx/kernels.ptx";
  struct Case {
    std::string cmd, blocker;
  };
  const std::vector<Case> cases = {
      {"run --layer enc5 -o out --ex 8 --ey 8 --threads 2", "surface112.exr"},
      {"run --layer enc5 -o out --ex 8 --ey 8 --threads 2 --trace w1 --block 0,0", "trace.txt"},
      {"run --layer enc5 -o out --ex 8 --ey 8 --threads 2 --preview", "arena_plane4.png"},
      {"run --layer enc5 -o out --ex 8 --ey 8 --threads 2 --save-inputs", "weights.bin"},
      {"capture --synthetic --form replay -o out --ex 8 --ey 8 --threads 2", "surface-112.bin"},
      {"ptx run '" + K + "' --entry enc5_abi_probe --ex 8 --ey 8 -o out", "surface112.exr"},
      {"ptx trace '" + K + "' --entry enc5_abi_probe --ex 16 --ey 8 --at s3 --reg %r17,%r1 --block 1,0 -o out", "trace.bin"},
  };
  for (const Case& c : cases) {
    TempDir t;
    fs::create_directories(t.path / "out" / c.blocker / "x");
    const Result r = t.rrswin(c.cmd);
    EXPECT_EQ(r.status, 2) << c.cmd << "\n" << r.out;
    expect_no_library_text(r.out);
    const auto left = files_under(t.path / "out");
    // Only the blocker (a folder and its content) remains.
    for (const auto& f : left) EXPECT_TRUE(contains(f, c.blocker)) << c.cmd << ": left " << f;
  }
  // replay: the arg112 output's name is taken.
  TempDir t;
  make_captures(t);
  const std::string surf = find_file(t.path / "cap", "arg112").filename().string();
  fs::create_directories(t.path / "out" / surf / "x");
  const Result r = t.rrswin("replay cap -o out --threads 2");
  EXPECT_EQ(r.status, 2) << r.out;
  for (const auto& f : files_under(t.path / "out")) EXPECT_TRUE(contains(f, surf)) << "left " << f;
}

// Limit messages name the limit and the numbers (was: "grid (8197,8195,1) is empty or too large",
// "trace CTA (65536,0,0) is outside the grid").
TEST(Hostile2Messages, InterpreterLimitsNameTheNumbers) {
  TempDir t;
  const std::string K = std::string(RRSWIN_TESTS_DIR) + "/ptx/kernels.ptx";
  expect_error(t.rrswin("ptx run '" + K + "' --entry enc5_abi_probe --block-offset 65535,65535 -o o"),
               {"grid (8197,8195,1)", "limit of 16777216 CTAs (67174415)"});
  EXPECT_FALSE(fs::exists(t.path / "o"));
  expect_error(t.rrswin("ptx trace '" + K + "' --entry enc5_abi_probe --at s3 --reg %r1 --block 65536,0"),
               {"trace CTA (65536,0,0)", "outside the grid (5,3,1)"});
}
