// The `rrswin inspect` and `rrswin make-weights` commands, run as a user would (RRSWIN_CLI_PATH).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "assets/synthetic_weights.hpp"
#include "io/frame_io.hpp"
#include "model/weight_image.hpp"

namespace {

namespace fs = std::filesystem;

struct Result {
  int rc;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("rrswin_cli_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result run(const std::string& args) {
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    const std::string cmd = std::string("'") + RRSWIN_CLI_PATH + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(cmd.c_str());
    Result r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
    fs::remove(out);
    fs::remove(err);
    return r;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

std::string squeeze(const std::string& line) {
  std::istringstream in(line);
  std::string word, out;
  while (in >> word) out += (out.empty() ? "" : " ") + word;
  return out;
}

// The phase table line of phase p, whitespace squeezed ("" when missing).
std::string phase_line(const std::string& text, int p) {
  std::istringstream in(text);
  std::string line;
  const std::string prefix = std::to_string(p) + " s";
  while (std::getline(in, line)) {
    const std::string s = squeeze(line);
    if (s.rfind(prefix, 0) == 0) return s;
  }
  return "";
}

bool has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

TEST_F(Cli, InspectPrintsTheSpecPhaseRows) {
  const Result r = run("inspect");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(has(r.out, "embedded default image"));
  // spec §2.1 row 21 (tool view) and §2.2 (corrected shape), typed from the spec.
  const std::string p21 = phase_line(r.out, 21);
  EXPECT_TRUE(has(p21, "s13620-s13639 80 160 160 20 band 222144..226764 227264..227312 321")) << p21;
  EXPECT_TRUE(has(p21, "16x32x160")) << p21;
  EXPECT_TRUE(has(p21, "1x4x5 = 20 mma")) << p21;
  const std::string p1 = phase_line(r.out, 1);
  EXPECT_TRUE(has(p1, "s7554-s7577 96 32 32 24 full 320..844 - 7")) << p1;
  const std::string p11 = phase_line(r.out, 11);
  EXPECT_TRUE(has(p11, "s8028-s8075 64 96 32 48 full (none) 10560..22348 3844")) << p11;
  const std::string p12 = phase_line(r.out, 12);
  EXPECT_TRUE(has(p12, "s11920-s11967 192 96 96 48 band (none) - 274")) << p12;
  EXPECT_TRUE(has(p12, "64x32x96 4x4x3 = 48 mma")) << p12;
  const std::string p20 = phase_line(r.out, 20);
  EXPECT_TRUE(has(p20, "s12571-s12590 16 160 32 20 full 216384..221004 - 1029")) << p20;
  const std::string p59 = phase_line(r.out, 59);
  EXPECT_TRUE(has(p59, "s19545-s19564 80 160 160 20 band 418240..422860 423360..423408 172")) << p59;
  const std::string p60 = phase_line(r.out, 60);
  EXPECT_TRUE(has(p60, "s19737-s19756 16 160 32 20 full 423424..428044 - 299")) << p60;
  const std::string p61 = phase_line(r.out, 61);
  EXPECT_TRUE(has(p61, "s20056-s20065 80 80 160 10 band 428544..430604 431104..431120 234")) << p61;
  EXPECT_TRUE(has(p61, "16x16x160 1x2x5 = 10 mma")) << p61;
  EXPECT_TRUE(has(r.out, "total: 1306 mma"));
  // The map and the statistics.
  EXPECT_TRUE(has(r.out, "[431104, 431136)"));
  EXPECT_TRUE(has(r.out, "[418240, 423360)"));
  EXPECT_TRUE(has(squeeze(r.out), "score_bias[7] f16 6144"));
}

TEST_F(Cli, InspectReadsAFileAndJson) {
  const std::string f = path("w.bin");
  ASSERT_EQ(run("make-weights --seed 3 --stress -o '" + f + "'").rc, 0);
  const Result r = run("inspect '" + f + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(has(r.out, f));
  EXPECT_TRUE(has(squeeze(r.out), "Wv[2] e4m3 5120"));
  const Result j = run("inspect --json '" + f + "'");
  ASSERT_EQ(j.rc, 0) << j.err;
  EXPECT_EQ(j.out.rfind("{", 0), 0u);
  EXPECT_TRUE(has(j.out, "\"number\": 21"));
  EXPECT_TRUE(has(j.out, "\"statements\": \"s13620-s13639\""));
  EXPECT_TRUE(has(j.out, "\"histogram\": ["));
}

TEST_F(Cli, InspectRejectsAWrongSizeFile) {
  const std::string f = path("short.bin");
  {
    std::ofstream out(f, std::ios::binary);
    const std::string zeros(431124, '\0');
    out.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  const Result r = run("inspect '" + f + "'");
  EXPECT_NE(r.rc, 0);
  EXPECT_TRUE(has(r.err, f)) << r.err;
  EXPECT_TRUE(has(r.err, "431136")) << r.err;
  EXPECT_TRUE(has(r.err, "431124")) << r.err;
  const Result missing = run("inspect '" + path("nope.bin") + "'");
  EXPECT_NE(missing.rc, 0);
  EXPECT_TRUE(has(missing.err, "nope.bin")) << missing.err;
  EXPECT_NE(run("inspect --bogus").rc, 0);
}

TEST_F(Cli, MakeWeightsIsDeterministic) {
  ASSERT_EQ(run("make-weights --seed 5 -o '" + path("a.bin") + "'").rc, 0);
  ASSERT_EQ(run("make-weights --seed 5 -o '" + path("b.bin") + "'").rc, 0);
  ASSERT_EQ(run("make-weights --seed 6 -o '" + path("c.bin") + "'").rc, 0);
  ASSERT_EQ(run("make-weights --seed 5 --stress -o '" + path("d.bin") + "'").rc, 0);
  const std::string a = slurp(path("a.bin")), b = slurp(path("b.bin")), c = slurp(path("c.bin")), d = slurp(path("d.bin"));
  EXPECT_EQ(a.size(), rrswin::kWeightImageBytes);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, d);
  // The same bytes as the library's generator.
  const auto lib = rrswin::make_synthetic_weights({5, false});
  EXPECT_EQ(a, std::string(lib.bytes().begin(), lib.bytes().end()));
  // Seed 1 without --stress is the embedded default image.
  ASSERT_EQ(run("make-weights -o '" + path("e.bin") + "'").rc, 0);
  const auto& def = rrswin::default_weights();
  EXPECT_EQ(slurp(path("e.bin")), std::string(def.bytes().begin(), def.bytes().end()));
}

TEST_F(Cli, MakeWeightsWritesNoPartialFileOnError) {
  // Bad arguments: usage error, nothing written.
  EXPECT_EQ(run("make-weights --seed abc -o '" + path("x.bin") + "'").rc, 2);
  EXPECT_EQ(run("make-weights --seed -1 -o '" + path("x.bin") + "'").rc, 2);
  EXPECT_EQ(run("make-weights --seed 1").rc, 2);
  EXPECT_EQ(run("make-weights --frobnicate -o '" + path("x.bin") + "'").rc, 2);
  EXPECT_EQ(run("make-weights -o").rc, 2);
  EXPECT_FALSE(fs::exists(path("x.bin")));
  // A folder that does not exist.
  const Result r = run("make-weights --seed 1 -o '" + path("no/such/dir/w.bin") + "'");
  EXPECT_NE(r.rc, 0);
  EXPECT_TRUE(has(r.err, "w.bin")) << r.err;
  EXPECT_FALSE(fs::exists(path("no")));
  // The target is a folder: the rename fails and the temporary file is removed.
  fs::create_directories(path("target"));
  EXPECT_NE(run("make-weights --seed 1 -o '" + path("target") + "'").rc, 0);
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    ++entries;
    EXPECT_EQ(e.path().filename(), "target") << "left behind: " << e.path();
  }
  EXPECT_EQ(entries, 1);
  EXPECT_TRUE(fs::is_empty(path("target")));
}

// --layer (issue 21, docs/readings.md §7): the rows typed from DOC4 §2 / DOC3 §2 and the sizes they
// state (the tool's extent) and the image's with lane t = 3 (DESC4's measured 533856).
TEST_F(Cli, InspectLayerPrintsTheDocsRowsAndSizes) {
  const Result r4 = run("inspect --layer enc4");
  ASSERT_EQ(r4.rc, 0) << r4.err;
  EXPECT_TRUE(has(phase_line(r4.out, 21), "s13620-s13639 80 160 160 20 band 222144..226764 227264..227312 321"));
  const std::string p61 = phase_line(r4.out, 61);
  EXPECT_TRUE(has(p61, "s21138-s21217 320 640 640 80 band 428544..448524 530944..530992 117")) << p61;
  EXPECT_TRUE(has(p61, "16x32x640 1x4x20 = 80 mma")) << p61;
  const std::string p62 = phase_line(r4.out, 62);
  EXPECT_TRUE(has(p62, "s21335-s21344 80 80 160 10 band 531264..533324 533824..533840 323")) << p62;
  EXPECT_TRUE(has(r4.out, "total: 1386 mma in 62 phases")) << r4.out;
  EXPECT_TRUE(has(r4.out, "533856 bytes"));
  EXPECT_TRUE(has(r4.out, "533844 bytes"));
  EXPECT_TRUE(has(r4.out, "[428544, 530944)"));  // Wm: the loop's whole extent
  EXPECT_TRUE(has(squeeze(r4.out), "Wm e4m3 102400"));

  const Result r3 = run("inspect --layer enc3");
  ASSERT_EQ(r3.rc, 0) << r3.err;
  EXPECT_TRUE(has(phase_line(r3.out, 47), "s16664-s16727 256 512 512 64 band 231424..247308 313344..313392 125"));
  EXPECT_TRUE(has(phase_line(r3.out, 48), "s16853-s16860 64 64 128 8 band 313664..315212 315712..315728 323"));
  EXPECT_TRUE(has(r3.out, "total: 936 mma in 48 phases")) << r3.out;
  EXPECT_TRUE(has(r3.out, "315732 bytes"));
  EXPECT_TRUE(has(r3.out, "12800 bytes of shared"));
  EXPECT_TRUE(has(r3.out, "grid (21,13,1) x block (32,1,4)"));

  // enc5 stays the default and prints its own table.
  EXPECT_TRUE(has(run("inspect --layer enc5").out, "total: 1306 mma in 61 phases"));
  const Result bad = run("inspect --layer enc6");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_TRUE(has(bad.err, "enc6")) << bad.err;
}

TEST_F(Cli, MakeWeightsLayerWritesThatLayersImage) {
  ASSERT_EQ(run("make-weights --layer enc4 -o " + path("w4.bin")).rc, 0);
  ASSERT_EQ(run("make-weights --layer enc4 -o " + path("w4b.bin")).rc, 0);
  ASSERT_EQ(run("make-weights --layer enc3 --seed 2 -o " + path("w3.bin")).rc, 0);
  const std::string w4 = slurp(path("w4.bin")), w3 = slurp(path("w3.bin"));
  EXPECT_EQ(w4.size(), 533856u);
  EXPECT_EQ(w3.size(), 315744u);
  EXPECT_EQ(w4, slurp(path("w4b.bin")));
  const Result i4 = run("inspect " + path("w4.bin") + " --layer enc4");
  EXPECT_EQ(i4.rc, 0) << i4.err;
  EXPECT_TRUE(has(squeeze(i4.out), "W62 e4m3 2560")) << i4.out;
  // The enc4 image is not an enc5 image, and the enc5 one not an enc4 one: the errors name the sizes.
  const Result wrong = run("inspect " + path("w4.bin"));
  EXPECT_NE(wrong.rc, 0);
  EXPECT_TRUE(has(wrong.err, "431136")) << wrong.err;
  ASSERT_EQ(run("make-weights -o " + path("w5.bin")).rc, 0);
  const Result wrong4 = run("inspect " + path("w5.bin") + " --layer enc4");
  EXPECT_NE(wrong4.rc, 0);
  EXPECT_TRUE(has(wrong4.err, "533856")) << wrong4.err;
  EXPECT_EQ(run("make-weights --layer enc3 --stress -o " + path("s.bin")).rc, 2);
  EXPECT_FALSE(fs::exists(path("s.bin")));
}

// rrswin run --layer enc4: the golden model of enc4 through phase 62 (model/layer_golden.hpp) writes
// the arena and the merged output at the sizes of the plane-arena layout (5 planes x 32 bytes per
// token; the merged output at the halved extents), the same bytes every run.
TEST_F(Cli, RunLayerEnc4WritesArenaAndMergedOutput) {
  const Result r = run("run --layer enc4 --ex 16 --ey 8 -o " + path("a") + " --trace p61d,p62d,e62.sum --block 1,0");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(has(r.out, "62 phases, 1386 mma, weight image 533856 bytes")) << r.out;
  EXPECT_TRUE(has(r.out, "E62")) << r.out;
  EXPECT_EQ(slurp(path("a/arena.bin")).size(), 5u * 16 * 8 * 32);
  EXPECT_EQ(slurp(path("a/merged.bin")).size(), 5u * 8 * 4 * 32);
  EXPECT_TRUE(has(slurp(path("a/trace.txt")), "stage p61d")) << slurp(path("a/trace.txt")).substr(0, 400);
  EXPECT_TRUE(has(slurp(path("a/trace.txt")), "stage e62.sum"));
  // E62's surfaces: +112/+120 at the token grid, +128 at the halved grid (RGBA HALF EXR).
  const rrswin::Texture s112 = rrswin::texture_from_exr(path("a/surface112.exr"));
  const rrswin::Texture s128 = rrswin::texture_from_exr(path("a/surface128.exr"));
  EXPECT_EQ(s112.width, 16);
  EXPECT_EQ(s112.height, 8);
  EXPECT_EQ(s128.width, 8);
  EXPECT_EQ(s128.height, 4);
  ASSERT_EQ(run("run --layer enc4 --ex 16 --ey 8 -o " + path("e") + " --layer-reading sigmoid-quad-value=product").rc, 0);
  EXPECT_EQ(slurp(path("a/surface112.exr")), slurp(path("e/surface112.exr")));
  EXPECT_NE(slurp(path("a/surface128.exr")), slurp(path("e/surface128.exr")));
  // A texture that is not the token grid: a clear error naming the file.
  const Result badtex = run("run --layer enc4 --ex 8 --ey 8 --texture " + path("a/surface112.exr") + " -o " + path("d"));
  EXPECT_NE(badtex.rc, 0);
  EXPECT_TRUE(has(badtex.err, "surface112.exr")) << badtex.err;
  EXPECT_TRUE(has(badtex.err, "8 x 8 texture")) << badtex.err;
  ASSERT_EQ(run("run --layer enc4 --ex 16 --ey 8 -o " + path("b") + " --layer-reading merge-gather-order=swin").rc, 0);
  EXPECT_EQ(slurp(path("a/merged.bin")), slurp(path("b/merged.bin")));
  ASSERT_EQ(run("run --layer enc4 --ex 16 --ey 8 -o " + path("c") + " --layer-reading merge-gather-order=raster").rc, 0);
  EXPECT_NE(slurp(path("a/merged.bin")), slurp(path("c/merged.bin")));
  EXPECT_EQ(slurp(path("a/arena.bin")), slurp(path("c/arena.bin")));  // the merge reading changes only +56
  // --engine golden writes the same bytes as the default fast engine (the traced block of "a" ran golden).
  ASSERT_EQ(run("run --layer enc4 --ex 16 --ey 8 --engine golden -o " + path("g")).rc, 0);
  for (const char* n : {"arena.bin", "merged.bin", "surface112.exr", "surface120.exr", "surface128.exr"})
    EXPECT_EQ(slurp(path("a/") + n), slurp(path("g/") + n)) << n;
  // rrswin diff --layer enc4: the five outputs of two run folders (0 identical, 1 different, 2 usage).
  const Result same = run("diff --layer enc4 " + path("a") + " " + path("g"));
  EXPECT_EQ(same.rc, 0) << same.out << same.err;
  EXPECT_TRUE(has(same.out, "IDENTICAL: 5 compared")) << same.out;
  const Result other = run("diff --layer enc4 " + path("a") + " " + path("e"));
  EXPECT_EQ(other.rc, 1) << other.out;
  EXPECT_TRUE(has(other.out, "surface128.exr: \n")) << other.out;
  EXPECT_TRUE(has(other.out, "surface112.exr: ok")) << other.out;
  EXPECT_EQ(run("diff --layer enc5 " + path("a") + " " + path("g")).rc, 2);
  EXPECT_EQ(run("diff --layer enc4 " + path("a/arena.bin") + " " + path("g/arena.bin")).rc, 2);
  EXPECT_EQ(run("run --layer enc4 --layer-reading merge-gather-order=bogus -o " + path("d")).rc, 2);
  EXPECT_NE(run("run --layer enc4 --weights " + path("a/arena.bin") + " -o " + path("d")).rc, 0);
}

// enc3 (C = 128, DOC3): the embedded synthetic assets at a small grid; the arena has C/32 = 4 planes,
// the merged output merge_out/32 = 5 (enc4's input); the stages carry enc3's phase numbers; the
// golden engine and the fast one at 1 and 2 threads write the same bytes; enc3's weights are
// refused for enc4.
TEST_F(Cli, RunLayerEnc3WritesArenaMergedOutputAndSurfaces) {
  const Result r =
      run("run --layer enc3 --ex 16 --ey 8 --threads 1 -o " + path("a") + " --trace w9,e9.p,p14d,e14.inv,p47d,p48d,e48.sum --block 1,0");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(has(r.out, "48 phases, 936 mma, weight image 315744 bytes")) << r.out;
  EXPECT_TRUE(has(r.out, "E48's surfaces")) << r.out;
  EXPECT_EQ(slurp(path("a/arena.bin")).size(), 4u * 16 * 8 * 32);
  EXPECT_EQ(slurp(path("a/merged.bin")).size(), 5u * 8 * 4 * 32);
  const std::string t = slurp(path("a/trace.txt"));
  for (const char* st : {"stage w9", "stage e9.p", "stage p14d", "stage e14.inv", "stage p47d", "stage p48d", "stage e48.sum"})
    EXPECT_TRUE(has(t, st)) << st;
  const rrswin::Texture s128 = rrswin::texture_from_exr(path("a/surface128.exr"));
  EXPECT_EQ(s128.width, 8);
  EXPECT_EQ(s128.height, 4);
  ASSERT_EQ(run("run --layer enc3 --ex 16 --ey 8 --engine golden -o " + path("g")).rc, 0);
  ASSERT_EQ(run("run --layer enc3 --ex 16 --ey 8 --threads 2 -o " + path("t")).rc, 0);
  for (const char* n : {"arena.bin", "merged.bin", "surface112.exr", "surface120.exr", "surface128.exr"}) {
    EXPECT_EQ(slurp(path("a/") + n), slurp(path("g/") + n)) << n;
    EXPECT_EQ(slurp(path("a/") + n), slurp(path("t/") + n)) << n;
  }
  const Result same = run("diff --layer enc3 " + path("a") + " " + path("g"));
  EXPECT_EQ(same.rc, 0) << same.out << same.err;
  // A 5-plane (enc4-sized) input arena is refused, naming the file and the 4 planes expected.
  const Result bad = run("run --layer enc3 --ex 16 --ey 8 --input " + path("a/merged.bin") + " -o " + path("d"));
  EXPECT_NE(bad.rc, 0);
  EXPECT_TRUE(has(bad.err, "4 planes")) << bad.err;
  ASSERT_EQ(run("make-weights --layer enc3 -o " + path("w3.bin")).rc, 0);
  EXPECT_NE(run("run --layer enc4 --weights " + path("w3.bin") + " -o " + path("d")).rc, 0);
}

}  // namespace
