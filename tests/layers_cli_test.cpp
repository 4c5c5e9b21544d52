// `rrswin layers`, `rrswin inspect --layer` over the whole network, and the refusals of a layer that
// does not run yet or does not exist (issue 32: "an unknown layer is a user error, never enc5").
// Expected values are typed from the issue and d4r's docs (../shared/spec/rr_network_layers.md §2
// table; docs/readings.md "Layer sources"), not from the code under test.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "test_util.hpp"

namespace {

using test_util::contains;
using test_util::Result;
using test_util::TempDir;

struct DocTotal {
  const char* layer;
  int mma, phases;
  unsigned image;
};

// The "done when" totals (each doc's phase table, or its descriptor where the doc prints
// none: enc0) and the images the docs state or the template's formula gives (enc3/enc4/enc5 as
// before; the tool extents of dec1/dec2/dec0 are 12 bytes (dec0: 496) shorter).
constexpr DocTotal kTotals[] = {
    {"enc0", 536, 22, 54560},   {"enc1", 1072, 32, 96480},  {"enc2", 630, 38, 212256},  {"enc3", 936, 48, 315744},
    {"enc4", 1386, 62, 533856}, {"enc5", 1306, 61, 431136}, {"dec4", 1606, 62, 534816}, {"dec3", 1112, 48, 316448},
    {"dec2", 726, 38, 212768},  {"dec1", 632, 26, 96800},   {"dec0", 544, 19, 47872},
};

TEST(LayersCli, InspectReproducesEveryDocsTotals) {
  TempDir t;
  for (const DocTotal& d : kTotals) {
    SCOPED_TRACE(d.layer);
    const Result r = t.rrswin(std::string("inspect --layer ") + d.layer);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(contains(r.out, "total: " + std::to_string(d.mma) + " mma in " + std::to_string(d.phases) + " phases")) << r.out;
    EXPECT_TRUE(contains(r.out, std::to_string(d.image) + " bytes")) << r.out;
  }
}

TEST(LayersCli, LayersListsTheNetworkInOrderWithItsEdges) {
  TempDir t;
  const Result r = t.rrswin("layers");
  ASSERT_EQ(r.status, 0) << r.out;
  std::size_t at = 0;
  for (const DocTotal& d : kTotals) {  // network order
    const std::size_t p = r.out.find(std::string(d.layer) + "  corpus", at);
    ASSERT_NE(p, std::string::npos) << d.layer << "\n" << r.out;
    at = p;
  }
  // rr_network_layers.md §6: enc_i +56 -> enc_{i+1} +8, enc_i +48 -> dec_i +24, enc5 +48 -> dec4 +8.
  EXPECT_TRUE(contains(r.out, "+56 -> enc1.+8")) << r.out;
  EXPECT_TRUE(contains(r.out, "+48 -> dec4.+8")) << r.out;
  EXPECT_TRUE(contains(r.out, "+24 <- enc1.+48")) << r.out;
  EXPECT_TRUE(contains(r.out, "+8 <- dec1.+48")) << r.out;
  EXPECT_TRUE(contains(r.out, "1032-byte params")) << r.out;  // enc0 (DESC-e0 LAYER_PARAMS)
  EXPECT_TRUE(contains(r.out, "152-byte params")) << r.out;   // dec0 (DESC-d0)
  // The levels and the scratch block (HIP-e1's manifest: enc1's +48 at 45219840, 640 x 368 x 64 bytes).
  EXPECT_TRUE(contains(r.out, "0: 1280x736, 1: 640x368, 2: 320x184, 3: 160x92, 4: 80x46, 5: 40x23")) << r.out;
  EXPECT_TRUE(contains(r.out, "scratch block: 65945600 bytes")) << r.out;
  EXPECT_TRUE(contains(r.out, "45219840  15073280  enc1 +48   enc1 +48 output        enc1..dec1")) << r.out;
  EXPECT_TRUE(contains(r.out, "  consistent: ")) << r.out;
  const Result j = t.rrswin("layers --json");
  ASSERT_EQ(j.status, 0) << j.out;
  EXPECT_TRUE(contains(j.out, "\"layer\": \"dec1\", \"corpus\": 22, \"channels\": 64, \"heads\": 2")) << j.out;
  EXPECT_TRUE(contains(j.out, "\"rows_per_warp\": 32")) << j.out;
  EXPECT_EQ(t.rrswin("layers --bogus").status, 2);
}

TEST(LayersCli, UnknownLayersAreClearErrorsAndEnc0CapturesInTheStandInConvention) {
  TempDir t;
  const Result unknown = t.rrswin("run -o out --layer enc6");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_TRUE(contains(unknown.out, "enc6")) << unknown.out;
  EXPECT_TRUE(contains(unknown.out, "enc0, enc1, enc2, enc3, enc4, enc5, dec4, dec3, dec2, dec1, dec0")) << unknown.out;
  // Every layer runs (issue 35); enc0's captures are in rrswin's stand-in convention (its prologue,
  // which builds the model's input from the network input, is decoded by no source): the staged
  // input tensor at +8, the texture standing for input_noise at +88, no +304 (LayerCapture.Enc0*).
  const Result cap = t.rrswin("capture --synthetic -o cap --layer enc0 --ex 16 --ey 8");
  EXPECT_EQ(cap.status, 0) << cap.out;
  std::ifstream mf(t.path / "cap" / "manifest.txt");
  const std::string manifest((std::istreambuf_iterator<char>(mf)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(contains(manifest, "pointer 8 ")) << manifest;
  EXPECT_TRUE(contains(manifest, "texture 88 16 8 ")) << manifest;
  EXPECT_FALSE(contains(manifest, "pointer 304")) << manifest;
  const Result help = t.rrswin("capture --layer enc0 --help");
  EXPECT_TRUE(contains(help.out, "rrswin's\n  stand-in convention")) << help.out;
  // Its tables: the image can be made and inspected.
  ASSERT_EQ(t.rrswin("make-weights --layer enc0 -o w.bin").status, 0);
  EXPECT_EQ(std::filesystem::file_size(t.path / "w.bin"), 54560u);
  const Result i = t.rrswin("inspect w.bin --layer enc0");
  EXPECT_EQ(i.status, 0) << i.out;
  EXPECT_FALSE(contains(i.out, "does not run yet")) << i.out;
}

// Issue 38, F6 and F9, for the merge layers as for enc5: an unknown trace stage or a block outside
// the grid is an error (exit 2, nothing written), and -o an existing file is refused before the
// layer runs, with rrswin's own message (not a filesystem error).
TEST(LayersCli, RunLayerTraceAndOutputFolderRules) {
  TempDir t;
  Result r = t.rrswin("run --layer enc4 --ex 16 --ey 8 -o a --trace bogusstage --block 0,0");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.out, "no stage named 'bogusstage'")) << r.out;
  EXPECT_FALSE(std::filesystem::exists(t.path / "a"));
  r = t.rrswin("run --layer enc4 --ex 16 --ey 8 -o b --trace p13d --block 40,40");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.out, "--block 40,40 is outside the grid 2x1")) << r.out;
  EXPECT_FALSE(std::filesystem::exists(t.path / "b"));
  test_util::put(t.path / "file", {1});
  r = t.rrswin("run --layer enc3 --ex 16 --ey 8 -o file");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.out, "file: the output folder is an existing file")) << r.out;
  EXPECT_FALSE(contains(r.out, "filesystem error")) << r.out;
  r = t.rrswin("run --layer enc4 --ex 16 --ey 8 -o c --trace p13d --block 1,0");
  EXPECT_EQ(r.status, 0) << r.out;
  for (const char* f : {"arena.bin", "merged.bin", "surface112.exr", "surface120.exr", "surface128.exr", "trace.bin", "trace.txt"})
    EXPECT_TRUE(std::filesystem::exists(t.path / "c" / f)) << f;
}

}  // namespace
