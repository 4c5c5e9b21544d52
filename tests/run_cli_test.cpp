// `rrswin run` and `rrswin readings` as a user runs them: the built CLI (RRSWIN_CLI_PATH) in a fresh
// temporary folder. Checks the outputs' sizes and formats, the error messages for wrong inputs
// (file named, both sizes, no partial output), traces, determinism, and the --save-inputs round
// trip (re-running with the saved files reproduces the outputs byte for byte).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "io/arena_io.hpp"
#include "io/exr.hpp"
#include "io/files.hpp"
#include "io/trace_io.hpp"
#include "model/layer_golden.hpp"
#include "model/readings.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using namespace rrswin;

using namespace test_util;

TEST(RunCli, NoArgumentsRunsTheDemoFrameTheSameEveryTime) {
  TempDir dir;
  const Result r = dir.rrswin("run --layer enc5");
  ASSERT_EQ(r.status, 0) << r.out;
  // The real geometry: ex = 40, ey = 23 (facts A3); arena 5*23*40*32 bytes (REC5: 147,200).
  ASSERT_TRUE(fs::exists(dir.file("out/arena.bin"))) << r.out;
  EXPECT_EQ(fs::file_size(dir.file("out/arena.bin")), 147200u);
  const RgbaHalfImage s = read_exr_rgba_half(dir.file("out/surface112.exr"));
  EXPECT_EQ(s.width, 40);
  EXPECT_EQ(s.height, 23);
  EXPECT_EQ(fs::file_size(dir.file("out/surface112.exr")), encode_exr_rgba_half(40, 23, s.rgba.data()).size());
  // E61 writes 0 into the fourth channel of every in-frame pixel (facts C14.7).
  for (std::size_t i = 3; i < s.rgba.size(); i += 4) ASSERT_EQ(s.rgba[i], 0) << i;
  // What it says it did: the paths, sizes, summaries and the time.
  EXPECT_TRUE(contains(r.out, "ex 40, ey 23, grid 5x3")) << r.out;
  EXPECT_TRUE(contains(r.out, "wrote out/arena.bin (147200 bytes): 147200 e4m3 codes in 5 planes")) << r.out;
  EXPECT_TRUE(contains(r.out, "wrote out/surface112.exr (")) << r.out;
  EXPECT_TRUE(contains(r.out, "40x23 RGBA f16")) << r.out;
  EXPECT_TRUE(contains(r.out, "layer: 15 blocks in ")) << r.out;
  // Nothing else (no temporaries, no inputs unless asked for).
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.file("out"))) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"arena.bin", "surface112.exr"}));

  // Running twice gives identical bytes (also with another thread count).
  const Result again = dir.rrswin("run --layer enc5 -o again --threads 1");
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_TRUE(contains(again.out, "(1 thread)")) << again.out;
  EXPECT_EQ(read_file_bytes(dir.file("out/arena.bin")), read_file_bytes(dir.file("again/arena.bin")));
  EXPECT_EQ(read_file_bytes(dir.file("out/surface112.exr")), read_file_bytes(dir.file("again/surface112.exr")));
}

TEST(RunCli, WrongSizeInputNamesFileAndSizesAndWritesNothing) {
  TempDir dir;
  write_file_atomic(dir.file("small.bin"), std::vector<std::uint8_t>(1000, 0));
  const Result r = dir.rrswin("run --layer enc5 --input small.bin -o res");
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "small.bin")) << r.out;
  EXPECT_TRUE(contains(r.out, "147200 bytes")) << r.out;
  EXPECT_TRUE(contains(r.out, "found 1000 bytes")) << r.out;
  EXPECT_FALSE(fs::exists(dir.file("res/arena.bin")));
  EXPECT_FALSE(fs::exists(dir.file("res/surface112.exr")));
  EXPECT_TRUE(!fs::exists(dir.file("res")) || fs::is_empty(dir.file("res")));

  // The same file is right for a smaller frame only if its size matches: ex = 1, ey = 1 wants 160.
  const Result r2 = dir.rrswin("run --layer enc5 --input small.bin --ex 1 --ey 1 -o res");
  EXPECT_NE(r2.status, 0);
  EXPECT_TRUE(contains(r2.out, "5×1×1×32 = 160 bytes")) << r2.out;
}

TEST(RunCli, OtherBadInputsAreClearErrors) {
  TempDir dir;
  // A texture smaller than the frame.
  std::vector<f16_t> px(10 * 10 * 4, 0x3C00);
  write_exr_rgba_half(dir.file("tiny.exr"), 10, 10, px.data());
  Result r = dir.rrswin("run --layer enc5 --texture tiny.exr -o res");
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.out, "tiny.exr")) << r.out;
  EXPECT_TRUE(contains(r.out, "40×23")) << r.out;
  EXPECT_TRUE(contains(r.out, "10×10")) << r.out;
  // A texture that is not an EXR file.
  write_file_atomic(dir.file("not.exr"), std::vector<std::uint8_t>(64, 7));
  r = dir.rrswin("run --layer enc5 --texture not.exr -o res");
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.out, "not.exr: at byte offset 0")) << r.out;
  // A weight image of the wrong size.
  r = dir.rrswin("run --layer enc5 --weights tiny.exr -o res");
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.out, "tiny.exr")) << r.out;
  // A file that does not exist.
  r = dir.rrswin("run --layer enc5 --input absent.bin -o res");
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.out, "absent.bin")) << r.out;
  EXPECT_FALSE(fs::exists(dir.file("res")));
  // Command-line mistakes: exit status 2.
  EXPECT_EQ(dir.rrswin("run --layer enc5 --bogus").status, 2);
  EXPECT_EQ(dir.rrswin("run --layer enc5 --ex forty").status, 2);
  EXPECT_EQ(dir.rrswin("run --layer enc5 --profile volta").status, 2);
  EXPECT_EQ(dir.rrswin("run --layer enc5 --engine gpu").status, 2);
  EXPECT_EQ(dir.rrswin("run --layer enc5 --trace all").status, 2);  // no --block
  EXPECT_EQ(dir.rrswin("run --layer enc5 --block-offset 1").status, 2);
}

// One range per launch field on every command line (cli/cli_options.hpp): extents [1, 2^20] as
// run_frame accepts them (api/frame.hpp kMaxGridExtent), block offsets the u16 fields of the
// parameter block (facts A4: param+80/+82). `rrswin run` once had its own parser with its own ranges.
TEST(RunCli, EveryCommandLineSharesTheLaunchFieldRanges) {
  TempDir dir;
  for (const std::string cmd : {"run --layer enc5", "diff a b", "replay dump", "settle dump"}) {
    for (const std::string bad : {"--ex 0", "--ey 0", "--ex 1048577", "--ey=1048577"}) {
      const Result r = dir.rrswin(cmd + " " + bad);
      EXPECT_EQ(r.status, 2) << cmd << " " << bad << ": " << r.out;
      EXPECT_TRUE(contains(r.out, "is outside [1, 1048576]")) << cmd << " " << bad << ": " << r.out;
    }
    if (cmd == "diff a b") continue;  // diff reads no block offsets
    const Result r = dir.rrswin(cmd + " --block-offset 65536,0");
    EXPECT_EQ(r.status, 2) << cmd << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "65536 is outside [0, 65535]")) << cmd << ": " << r.out;
  }
}

TEST(RunCli, UnknownReadingFailsClearly) {
  TempDir dir;
  Result r = dir.rrswin("run --layer enc5 --reading no-such-reading=1 -o res");
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.out, "unknown reading 'no-such-reading'")) << r.out;
  EXPECT_TRUE(contains(r.out, reading_registry().front().name)) << r.out;  // lists the known ones
  EXPECT_FALSE(fs::exists(dir.file("res")));
  const ReadingInfo& first = reading_registry().front();
  r = dir.rrswin("run --layer enc5 --reading " + first.name + "=no-such-value -o res");
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.out, "no value 'no-such-value'")) << r.out;
  r = dir.rrswin("run --layer enc5 --reading " + first.name + " -o res");  // no '='
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.out, "NAME=VALUE")) << r.out;
}

TEST(RunCli, TraceWritesBinaryAndText) {
  TempDir dir;
  // A small frame keeps the test quick: 16 x 24 tokens = a 2 x 3 grid.
  const Result r = dir.rrswin("run --layer enc5 --ex 16 --ey 24 --trace all --block 1,2 -o res");
  ASSERT_EQ(r.status, 0) << r.out;
  const Trace t = read_trace(dir.file("res/trace.bin"));
  EXPECT_EQ(t.block_x, 1);
  EXPECT_EQ(t.block_y, 2);
  ASSERT_FALSE(t.stages.empty());
  const std::string text(reinterpret_cast<const char*>(read_file_bytes(dir.file("res/trace.txt")).data()),
                         fs::file_size(dir.file("res/trace.txt")));
  EXPECT_EQ(text, format_trace_text(t));
  EXPECT_TRUE(contains(r.out, "wrote res/trace.bin")) << r.out;

  // One stage by name records (at least) that stage; an unknown name is an error, and nothing is
  // written.
  const std::string first = t.stages.front().name;
  const Result one = dir.rrswin("run --layer enc5 --ex 8 --ey 8 --trace " + first + " --block 0,0 -o one");
  ASSERT_EQ(one.status, 0) << one.out;
  const Trace t1 = read_trace(dir.file("one/trace.bin"));
  ASSERT_FALSE(t1.stages.empty());
  EXPECT_EQ(t1.stages.front().name, first);
  const Result bad = dir.rrswin("run --layer enc5 --ex 8 --ey 8 --trace no-such-stage --block 0,0 -o bad");
  EXPECT_NE(bad.status, 0);
  EXPECT_TRUE(contains(bad.out, "no-such-stage")) << bad.out;
  EXPECT_FALSE(fs::exists(dir.file("bad/arena.bin")));
  const Result outside = dir.rrswin("run --layer enc5 --trace all --block 5,0 -o bad");  // the grid is 5x3
  EXPECT_EQ(outside.status, 2);
  EXPECT_TRUE(contains(outside.out, "outside the grid 5x3")) << outside.out;
}

TEST(RunCli, SavedInputsReproduceTheRun) {
  TempDir dir;
  const std::string geom = "--ex 16 --ey 9";
  const Result a = dir.rrswin("run --layer enc5 " + geom + " --stress --seed 7 --save-inputs -o a");
  ASSERT_EQ(a.status, 0) << a.out;
  for (const char* f : {"input_arena.bin", "texture.exr", "weights.bin"}) EXPECT_TRUE(fs::exists(dir.file(std::string("a/") + f))) << f;
  EXPECT_EQ(fs::file_size(dir.file("a/input_arena.bin")), plane_arena_bytes(16, 9));
  EXPECT_EQ(fs::file_size(dir.file("a/weights.bin")), 431136u);
  const Result b =
      dir.rrswin("run --layer enc5 " + geom + " --weights a/weights.bin --input a/input_arena.bin --texture a/texture.exr -o b");
  ASSERT_EQ(b.status, 0) << b.out;
  EXPECT_EQ(read_file_bytes(dir.file("a/arena.bin")), read_file_bytes(dir.file("b/arena.bin")));
  EXPECT_EQ(read_file_bytes(dir.file("a/surface112.exr")), read_file_bytes(dir.file("b/surface112.exr")));
  // Another seed gives another frame (the options reach the assets).
  ASSERT_EQ(dir.rrswin("run --layer enc5 " + geom + " --stress --seed 8 -o c").status, 0);
  EXPECT_NE(read_file_bytes(dir.file("a/arena.bin")), read_file_bytes(dir.file("c/arena.bin")));
}

TEST(RunCli, OtherGeometryAndOptions) {
  TempDir dir;
  const Result r = dir.rrswin("run --layer enc5 --ex 12 --ey 9 --block-offset 3,5 --profile zluda --threads 2 -o g");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(fs::file_size(dir.file("g/arena.bin")), plane_arena_bytes(12, 9));
  const RgbaHalfImage s = read_exr_rgba_half(dir.file("g/surface112.exr"));
  EXPECT_EQ(s.width, 12);
  EXPECT_EQ(s.height, 9);
  EXPECT_TRUE(contains(r.out, "grid 2x2")) << r.out;  // ceil((12+3)/8) x ceil((9+5)/8)
}

TEST(RunCli, HelpDocumentsEveryOption) {
  TempDir dir;
  const Result r = dir.rrswin("run --layer enc5 --help");
  EXPECT_EQ(r.status, 0);
  for (const char* opt : {"--out", "--weights", "--input", "--texture", "--ex", "--ey", "--block-offset", "--stress", "--seed", "--profile",
                          "--reading", "--engine", "--threads", "--trace", "--block", "--save-inputs", "arena.bin", "surface112.exr"})
    EXPECT_TRUE(contains(r.out, opt)) << opt;
  EXPECT_FALSE(fs::exists(dir.file("out")));
}

// The readings that apply to a merge layer (docs/readings.md §7/§8): rrswin readings --layer L lists
// the template's readings (enc5's registry: the parts every runnable layer runs) and the merge
// layers' (LayerReadings), each with the layers it applies to (reading_layers).
TEST(RunCli, ReadingsListsTheMergeLayersRegistry) {
  TempDir dir;
  const Result r = dir.rrswin("readings --layer enc4");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const LayerReadingInfo& info : layer_reading_registry()) {
    // Not the decoders' own (dec0's included), not the register merge's (enc1, enc0).
    const bool applies = info.name.rfind("expand-", 0) != 0 && info.name.rfind("decoder-", 0) != 0 && info.name.rfind("dec0-", 0) != 0 &&
                         info.name != "merge-register-k-order";
    EXPECT_EQ(contains(r.out, "\n" + info.name + " = " + info.values.front() + "\n"), applies) << info.name;
    EXPECT_EQ(contains(r.out, info.question), applies) << info.name;
  }
  EXPECT_TRUE(contains(r.out, "sigmoid-quad-writer")) << r.out;
  EXPECT_TRUE(contains(r.out, "\narena-order = fragment\n")) << "the template's readings apply to enc4 too";
  EXPECT_TRUE(contains(r.out, "layers:   enc2, enc3, enc4\n")) << r.out;              // merge-gather-order
  EXPECT_TRUE(contains(r.out, "layers:   enc0, enc1, enc2, enc3, enc4\n")) << r.out;  // sigmoid-*
  EXPECT_TRUE(contains(r.out, "layers:   enc0, enc1, enc2, enc3, enc4, enc5, dec4, dec3, dec2, dec1, dec0\n")) << r.out;  // the template's
  EXPECT_FALSE(contains(dir.rrswin("readings").out, "\nsigmoid-gate = ")) << "enc5 has no E62";
  const Result j = dir.rrswin("readings --json --layer=enc3");
  ASSERT_EQ(j.status, 0) << j.out;
  for (const LayerReadingInfo& info : layer_reading_registry()) {
    const bool applies = info.name.rfind("expand-", 0) != 0 && info.name.rfind("decoder-", 0) != 0 && info.name.rfind("dec0-", 0) != 0 &&
                         info.name != "merge-register-k-order";
    EXPECT_EQ(contains(j.out, "{\"name\": \"" + info.name + "\", \"values\": [\"" + info.values.front() + "\""), applies) << info.name;
  }
  // The decoders' readings are dec4's, with the template's that its front and final consult.
  const Result d = dir.rrswin("readings --layer dec4");
  ASSERT_EQ(d.status, 0) << d.out;
  for (const char* name : {"\nexpand-load-order = natural\n", "\nexpand-subpixel = dy-dx\n", "\ndecoder-sampler = linear\n",
                           "\ndecoder-gate-logit = raw\n", "\nprologue-halo = ring-tblr\n", "\nfilter-border = reflect101\n"})
    EXPECT_TRUE(contains(d.out, name)) << name << d.out;
  for (const char* name : {"\nprologue-fill = ", "\nprologue-eps = ", "\nfilter-logits = ", "\nsigmoid-gate = ", "\nmerge-gather-order = ",
                           "\nexpand-column-split = "})
    EXPECT_FALSE(contains(d.out, name)) << name << d.out;
  // dec1's warps expand two sub-pixels each: its own reading expand-column-split.
  const Result d1 = dir.rrswin("readings --layer dec1");
  ASSERT_EQ(d1.status, 0) << d1.out;
  EXPECT_TRUE(contains(d1.out, "\nexpand-column-split = block\n")) << d1.out;
  EXPECT_TRUE(contains(d1.out, "\nexpand-subpixel = dy-dx\n")) << d1.out;
  EXPECT_FALSE(contains(d1.out, "\ndec0-output-columns = ")) << d1.out;
  // dec0: four sub-pixels in its one warp (expand-column-split) and E19's column map.
  const Result d0 = dir.rrswin("readings --layer dec0");
  ASSERT_EQ(d0.status, 0) << d0.out;
  EXPECT_TRUE(contains(d0.out, "\nexpand-column-split = block\n")) << d0.out;
  EXPECT_TRUE(contains(d0.out, "\ndec0-output-columns = column-order\n")) << d0.out;
  EXPECT_TRUE(contains(d0.out, "\ndecoder-gate-logit = raw\n")) << d0.out;
  EXPECT_TRUE(contains(dir.rrswin("readings").out, "rrswin readings --layer enc4"));
  EXPECT_EQ(dir.rrswin("readings --layer enc6").status, 2);
  EXPECT_EQ(dir.rrswin("readings --layer").status, 2);
}

TEST(RunCli, ReadingsListsTheRegistry) {
  TempDir dir;
  const Result r = dir.rrswin("readings");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const ReadingInfo& info : reading_registry()) {
    EXPECT_TRUE(contains(r.out, "\n" + info.name + " = " + info.default_value + "\n")) << info.name;
    EXPECT_TRUE(contains(r.out, info.question)) << info.name;
    for (const std::string& v : info.values) EXPECT_TRUE(contains(r.out, v)) << info.name << " " << v;
  }
  const Result j = dir.rrswin("readings --json");
  ASSERT_EQ(j.status, 0) << j.out;
  EXPECT_EQ(j.out.front(), '[');
  for (const ReadingInfo& info : reading_registry()) EXPECT_TRUE(contains(j.out, "{\"name\": \"" + info.name + "\"")) << info.name;
  // An independent JSON parser accepts it and finds every entry.
  if (std::system("python3 -c 'import json' >/dev/null 2>&1") == 0) {
    write_file_atomic(dir.file("r.json"), std::vector<std::uint8_t>(j.out.begin(), j.out.end()));
    const std::string check =
        "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if len(d)==" + std::to_string(reading_registry().size()) +
        " and all(e[\"default\"] in e[\"values\"] for e in d) else 1)' '" + dir.file("r.json") + "'";
    EXPECT_EQ(std::system(check.c_str()), 0) << j.out;
  }
  EXPECT_EQ(dir.rrswin("readings --bogus").status, 2);
  // Every profile with its mma-* values; blackwell marked as a model (docs/readings.md §3).
  for (const Profile* p : all_profiles()) EXPECT_TRUE(contains(r.out, "\n  " + std::string(p->name) + " ")) << p->name;
  EXPECT_TRUE(contains(r.out, "MMA-Sim's model of its native FP8 mma (model, unmeasured")) << r.out;
  EXPECT_TRUE(contains(r.out, "mma-zero-sign=plus")) << r.out;  // blackwell's value
}

TEST(RunCli, HelpNamesEveryProfileAndMarksTheModel) {
  TempDir dir;
  const Result r = dir.rrswin("--help");
  for (const Profile* p : all_profiles()) EXPECT_TRUE(contains(r.out, "\n  " + std::string(p->name) + " ")) << p->name;
  EXPECT_TRUE(contains(r.out, "RTX 5090 / 5080): MMA-Sim's model of its native FP8 mma (model, unmeasured")) << r.out;
  const Result run = dir.rrswin("run --layer enc5 --help");
  EXPECT_TRUE(contains(run.out, "ada|zluda|hopper|blackwell")) << run.out;
}

TEST(RunCli, SequenceRunsEveryFrameFolderAndSummarises) {
  TempDir dir;
  // Two frame folders as --save-inputs writes them; each also keeps the arena/surface of the run
  // that made it, which the sequence must reproduce byte for byte.
  for (const char* f : {"f1 --seed 2", "f2 --seed 3 --stress"}) {
    const Result made = dir.rrswin("run --layer enc5 --ex 12 --ey 9 --save-inputs -o seq/" + std::string(f));
    ASSERT_EQ(made.status, 0) << made.out;
  }
  const Result r = dir.rrswin("run --layer enc5 --sequence seq --ex 12 --ey 9 -o res");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "sequence: 2 frames in ")) << r.out;
  for (const char* name : {"f1", "f2"}) {
    EXPECT_EQ(read_file_bytes(dir.file(std::string("res/") + name + "/arena.bin")),
              read_file_bytes(dir.file(std::string("seq/") + name + "/arena.bin")))
        << name;
    EXPECT_EQ(read_file_bytes(dir.file(std::string("res/") + name + "/surface112.exr")),
              read_file_bytes(dir.file(std::string("seq/") + name + "/surface112.exr")))
        << name;
  }
  // A folder without frames, and options that cannot apply to a sequence, are clear errors.
  fs::create_directories(dir.file("empty"));
  const Result none = dir.rrswin("run --layer enc5 --sequence empty -o x");
  EXPECT_NE(none.status, 0);
  EXPECT_TRUE(contains(none.out, "input_arena.bin")) << none.out;
  const Result bad = dir.rrswin("run --layer enc5 --sequence seq --input seq/f1/input_arena.bin -o x");
  EXPECT_EQ(bad.status, 2) << bad.out;
}
