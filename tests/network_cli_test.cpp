// `rrswin run` as the network's main job (issue 36): given nothing it runs all eleven layers and
// writes each layer's folder and the summary, the same bytes for every thread count and nothing on
// stderr when stderr is not a terminal; enc5 alone is `rrswin run --layer enc5` (or one of enc5's own
// options), byte for byte the frame API's enc5 run; --preview writes every layer's PNGs and the
// overview network.png, a contact sheet by level, all or nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "cli/cli_options.hpp"
#include "io/exr.hpp"
#include "io/files.hpp"
#include "io/frame_io.hpp"
#include "io/preview.hpp"
#include "model/layer_spec.hpp"
#include "model/network.hpp"
#include "test_util.hpp"

using namespace test_util;
namespace fs = std::filesystem;

namespace {

std::string text_of(const fs::path& p) {
  const std::vector<unsigned char> b = bytes_of(p);
  return std::string(b.begin(), b.end());
}

// The command with stdout and stderr in two files of t: (status, stdout, stderr).
struct Split {
  int status;
  std::string out, err;
};
Split run_split(const TempDir& t, const std::string& args) {
  // In a subshell: test_util::shell appends its own 2>&1, which must not reach the command's stderr.
  const Result r = shell("(cd '" + t.path.string() + "' && '" RRSWIN_CLI_PATH "' " + args + " >stdout.txt 2>stderr.txt)");
  return {r.status, text_of(t.path / "stdout.txt"), text_of(t.path / "stderr.txt")};
}

// A PNG as rrswin writes it (io/png.hpp: 8-bit grey or RGB, zlib stored blocks, filter 0 on every
// row), decoded: width, height, channels and the pixels.
struct Png {
  int w = 0, h = 0, ch = 0;
  std::vector<std::uint8_t> px;
  const std::uint8_t* at(int x, int y) const { return &px[(static_cast<std::size_t>(y) * w + x) * ch]; }
};
Png read_png(const fs::path& p) {
  const std::vector<unsigned char> b = bytes_of(p);
  auto be = [&](std::size_t i) {
    return std::uint32_t{b.at(i)} << 24 | std::uint32_t{b.at(i + 1)} << 16 | std::uint32_t{b.at(i + 2)} << 8 | b.at(i + 3);
  };
  Png png;
  std::vector<std::uint8_t> z;
  for (std::size_t i = 8; i + 8 <= b.size();) {
    const std::uint32_t n = be(i);
    const std::string type(b.begin() + static_cast<std::ptrdiff_t>(i + 4), b.begin() + static_cast<std::ptrdiff_t>(i + 8));
    if (type == "IHDR") {
      png.w = static_cast<int>(be(i + 8));
      png.h = static_cast<int>(be(i + 12));
      png.ch = b.at(i + 17) == 2 ? 3 : 1;
    } else if (type == "IDAT") {
      z.insert(z.end(), b.begin() + static_cast<std::ptrdiff_t>(i + 8), b.begin() + static_cast<std::ptrdiff_t>(i + 8 + n));
    }
    i += 12 + n;
  }
  std::vector<std::uint8_t> raw;
  for (std::size_t i = 2; i + 5 <= z.size();) {  // after the 2-byte zlib header: stored blocks
    const bool last = z[i] & 1;
    const std::size_t len = z[i + 1] | z[i + 2] << 8;
    raw.insert(raw.end(), z.begin() + static_cast<std::ptrdiff_t>(i + 5), z.begin() + static_cast<std::ptrdiff_t>(i + 5 + len));
    i += 5 + len;
    if (last) break;
  }
  const std::size_t row = static_cast<std::size_t>(png.w) * png.ch;
  for (int y = 0; y < png.h; ++y) {
    EXPECT_EQ(raw.at(y * (row + 1)), 0) << p << " row " << y;
    png.px.insert(png.px.end(), raw.begin() + static_cast<std::ptrdiff_t>(y * (row + 1) + 1),
                  raw.begin() + static_cast<std::ptrdiff_t>((y + 1) * (row + 1)));
  }
  return png;
}

// The files a network run writes for one layer, and its previews (cmd_run_network.cpp).
std::vector<std::string> layer_outputs(rrswin::LayerId id) {
  const rrswin::LayerSpec& s = rrswin::layer_spec(id);
  std::vector<std::string> v{"arena.bin", "surface112.exr"};
  if (s.merge()) v.push_back("merged.bin");
  if (s.gated_final()) v.insert(v.end(), {"surface120.exr", "surface128.exr"});
  if (s.final_epilogue == rrswin::FinalEpilogueKind::dec0_output) v.push_back("surface144.bin");
  return v;
}
std::vector<std::string> layer_previews(rrswin::LayerId id, int render_w, int render_h) {
  const rrswin::LayerSpec& s = rrswin::layer_spec(id);
  std::vector<std::string> v{"surface112.png"};
  if (s.gated_final()) v.insert(v.end(), {"surface120.png", "surface128.png"});
  if (s.final_epilogue == rrswin::FinalEpilogueKind::dec0_output) v.insert(v.end(), {"surface144.png", "arena.png"});
  for (const auto& [param, prefix] : {std::pair{48, "arena_plane"}, std::pair{56, "merged_plane"}}) {
    const std::optional<rrswin::layout::PlaneArena> p = rrswin::buffer_arena({id, param}, render_w, render_h);
    if (!p || (param == 56 && !s.merge())) continue;
    for (int q = 0; q < p->planes; ++q) v.push_back(prefix + std::to_string(q) + ".png");
  }
  return v;
}

}  // namespace

// The "done when": `rrswin run -o out` with no inputs runs all eleven layers, writes each
// layer's outputs and the summary, the same bytes for every thread count.
TEST(NetworkCli, NoArgumentsRunsTheWholeNetwork) {
  TempDir t;
  const Split r = run_split(t, "run");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "") << "stderr is no terminal here: no progress line, no note";
  // The network run's default folder and render.
  EXPECT_TRUE(contains(r.out, "rrswin run --network: render 256 x 128")) << r.out;
  std::vector<std::string> want{"summary.txt"};
  for (rrswin::LayerId id : rrswin::layer_ids()) {
    const std::string name(rrswin::to_string(id));
    EXPECT_TRUE(contains(r.out, "-> out-network/" + name + "/")) << name << r.out;
    for (const std::string& f : layer_outputs(id)) want.push_back(name + "/" + f);
  }
  std::sort(want.begin(), want.end());
  EXPECT_EQ(relative_files_under(t.path / "out-network"), want);
  EXPECT_EQ(text_of(t.path / "out-network" / "summary.txt"), r.out);
  EXPECT_EQ(rrswin::layer_ids().size(), 11u);
}

TEST(NetworkCli, SameBytesForEveryThreadCountAndAsRunNetwork) {
  TempDir t;
  const Split one = run_split(t, "run -o one --render 64,64 --threads 1");
  ASSERT_EQ(one.status, 0) << one.out << one.err;
  EXPECT_EQ(one.err, "");
  EXPECT_TRUE(contains(one.out, "render 64 x 64, engine fast, 1 threads")) << one.out;
  const Split two = run_split(t, "run -o two --render 64,64 --threads 2");
  ASSERT_EQ(two.status, 0) << two.out << two.err;
  EXPECT_EQ(two.err, "");
  ASSERT_EQ(t.rrswin("run --network -o net --render 64,64 --threads 2").status, 0);
  const std::vector<std::string> files = relative_files_under(t.path / "one");
  std::vector<std::string> want{"summary.txt"};
  for (rrswin::LayerId id : rrswin::layer_ids())
    for (const std::string& f : layer_outputs(id)) want.push_back(std::string(rrswin::to_string(id)) + "/" + f);
  std::sort(want.begin(), want.end());
  ASSERT_EQ(files, want);
  EXPECT_EQ(files.size(), 39u);  // summary; arena + surface112 each; enc0..enc4's +120, +128, +56; dec0's +144
  EXPECT_EQ(relative_files_under(t.path / "two"), files);
  EXPECT_EQ(relative_files_under(t.path / "net"), files);
  for (const std::string& f : files) {
    if (f == "summary.txt") continue;  // times
    EXPECT_EQ(bytes_of(t.path / "one" / f), bytes_of(t.path / "two" / f)) << f;
    EXPECT_EQ(bytes_of(t.path / "one" / f), bytes_of(t.path / "net" / f)) << f;
  }
}

// enc5 alone: `rrswin run --layer enc5` is the frame API's enc5 run on the demo frame (the default
// weights, the synthetic frame of seed 1 at 40 x 23), as `rrswin run` was before the network became
// the default; any of enc5's own options asks for the same run, with a note.
TEST(NetworkCli, Enc5AloneIsTheFrameApisEnc5Run) {
  TempDir t;
  const Split a = run_split(t, "run --layer enc5 -o a --threads 2");
  ASSERT_EQ(a.status, 0) << a.out << a.err;
  EXPECT_EQ(a.err, "");
  EXPECT_TRUE(contains(a.out, "ex 40, ey 23, grid 5x3")) << a.out;
  const rrswin::SyntheticFrame f = rrswin::make_synthetic_frame(40, 23, 1, false);
  std::vector<std::uint8_t> arena(f.input_arena.size(), 0);
  rrswin::Surface surface = rrswin::Surface::make(40, 23);
  const rrswin::LaunchParams p = rrswin::frame_launch(40, 23, f.input_arena, rrswin::default_weights(), arena, f.texture, surface);
  rrswin::RunOptions o;
  o.engine = rrswin::Engine::golden;
  o.threads = 2;
  rrswin::run_frame(p, o);
  EXPECT_EQ(rrswin::read_file_bytes(t.file("a/arena.bin")), arena);
  EXPECT_EQ(rrswin::read_exr_rgba_half(t.file("a/surface112.exr")).rgba, rrswin::surface_rgba(surface));

  // enc5's own options without --layer: the same run, one line on stderr saying so.
  const Split b = run_split(t, "run -o b --ex 40 --ey 23 --threads 2");
  ASSERT_EQ(b.status, 0) << b.out << b.err;
  EXPECT_EQ(
      b.err,
      "rrswin run: --ex is enc5's option: running enc5 alone, as rrswin run --layer enc5 does (the network: rrswin run without it)\n");
  EXPECT_EQ(relative_files_under(t.path / "b"), (std::vector<std::string>{"arena.bin", "surface112.exr"}));
  for (const char* n : {"arena.bin", "surface112.exr"}) EXPECT_EQ(bytes_of(t.path / "a" / n), bytes_of(t.path / "b" / n)) << n;
  const Split c = run_split(t, "run -o c --seed=1 --threads=2 --trace=w1 --block=0,0");
  ASSERT_EQ(c.status, 0) << c.out << c.err;
  EXPECT_TRUE(contains(c.err, "--trace is enc5's option")) << c.err;
  EXPECT_EQ(bytes_of(t.path / "a" / "arena.bin"), bytes_of(t.path / "c" / "arena.bin"));
  EXPECT_TRUE(fs::exists(t.path / "c" / "trace.txt"));
  // --layer=enc5 is --layer enc5.
  ASSERT_EQ(t.rrswin("run --layer=enc5 -o d --threads 2").status, 0);
  EXPECT_EQ(bytes_of(t.path / "a" / "arena.bin"), bytes_of(t.path / "d" / "arena.bin"));
  // The network run refuses enc5's options it does not share by name (--weights, --save-inputs,
  // --sequence and --reading are the network's own with --network: tests/network_inputs_test.cpp);
  // a --layer without a value is a usage error.
  const Result n = t.rrswin("run --network -o n --render 64,64 --ex 40");
  EXPECT_EQ(n.status, 2) << n.out;
  EXPECT_TRUE(contains(n.out, "--ex is enc5's option, not the network's: rrswin run --layer enc5 --ex")) << n.out;
  const Result tr = t.rrswin("run --network -o n --trace w1");
  EXPECT_EQ(tr.status, 2) << tr.out;
  EXPECT_TRUE(contains(tr.out, "--trace is enc5's option, not the network's")) << tr.out;
  EXPECT_EQ(t.rrswin("run --layer").status, 2);
  EXPECT_EQ(t.rrswin("run --bogus").status, 2);
  EXPECT_FALSE(fs::exists(t.path / "n"));
  EXPECT_FALSE(fs::exists(t.path / "out-network"));
}

TEST(NetworkCli, HelpSaysTheNetworkIsTheDefaultAndHowToRunEnc5) {
  TempDir t;
  const Result r = t.rrswin("run --help");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* s : {"usage: rrswin run [-o DIR] [--render W,H] [--preview]", "Runs the network", "rrswin run --layer enc5 [OPTIONS]",
                        "--render", "--preview", "network.png", "--profile", "--engine", "--threads", "--seed", "out-network",
                        "(2 tw + 24) x (6 th + 152)", "progress line"})
    EXPECT_TRUE(contains(r.out, s)) << s << "\n" << r.out;
  for (std::string_view o : rrswin::cli::kEnc5RunOptions) EXPECT_TRUE(contains(r.out, std::string(o))) << o;
  const Result e = t.rrswin("run --layer enc5 --help");
  ASSERT_EQ(e.status, 0) << e.out;
  EXPECT_TRUE(contains(e.out, "usage: rrswin run --layer enc5 [OPTIONS]")) << e.out;
  EXPECT_EQ(t.rrswin("run --network --help").out, r.out);
  EXPECT_TRUE(relative_files_under(t.path).empty());
}

// --preview: every layer's PNGs and the overview, whose tiles are the layers' surface112 previews.
TEST(NetworkCli, PreviewWritesEveryLayersPngsAndTheOverview) {
  TempDir t;
  const Split r = run_split(t, "run -o p --render 64,64 --preview --threads 2");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(contains(r.out, "the overview, a contact sheet by level: p/network.png (536 x 1688)")) << r.out;
  std::set<std::string> have;
  for (const std::string& f : relative_files_under(t.path / "p")) have.insert(f);
  std::set<std::string> want{"network.png"};
  for (rrswin::LayerId id : rrswin::layer_ids())
    for (const std::string& f : layer_previews(id, 64, 64)) want.insert(std::string(rrswin::to_string(id)) + "/" + f);
  std::set<std::string> pngs;
  for (const std::string& f : have)
    if (f.size() > 4 && f.substr(f.size() - 4) == ".png") pngs.insert(f);
  EXPECT_EQ(pngs, want) << "exactly the previews listed and network.png";
  // The plane counts: enc0's arena one plane, enc5's five, dec0's arena 8 codes a pixel.
  EXPECT_TRUE(have.count("enc0/arena_plane0.png") && !have.count("enc0/arena_plane1.png"));
  EXPECT_TRUE(have.count("enc5/arena_plane4.png") && !have.count("enc5/merged_plane0.png"));
  EXPECT_TRUE(have.count("enc4/merged_plane4.png") && have.count("dec0/arena.png") && have.count("dec0/surface144.png"));

  // Each layer's preview at up to 8 x 8 pixels a texel (larger side at most 512).
  const Png enc0 = read_png(t.path / "p" / "enc0" / "surface112.png");
  EXPECT_EQ(enc0.w, 512);  // 64 x 64 tokens, x8
  EXPECT_EQ(enc0.h, 512);
  const Png enc5 = read_png(t.path / "p" / "enc5" / "surface112.png");
  EXPECT_EQ(enc5.w, 16);                                                   // level 5: 2 x 2 tokens, x8
  EXPECT_EQ(read_png(t.path / "p" / "enc0" / "surface128.png").w, 256);    // half the grid, x8
  EXPECT_EQ(read_png(t.path / "p" / "enc3" / "merged_plane0.png").w, 32);  // enc4's grid, 4 x 4, x8

  // network.png: 2 columns x 6 levels of 256 x 256 tiles (level 0 is 64 x 64 tokens).
  const auto [tw, th] = rrswin::sheet_tile_size(64, 64);
  EXPECT_EQ(tw, 256);
  EXPECT_EQ(th, 256);
  const Png sheet = read_png(t.path / "p" / "network.png");
  ASSERT_EQ(sheet.ch, 3);
  ASSERT_EQ(sheet.w, 2 * tw + 24);
  ASSERT_EQ(sheet.h, 6 * th + 152);
  auto tile_origin = [&](int row, int col) {
    return std::pair{rrswin::kSheetMargin + col * (tw + rrswin::kSheetMargin),
                     rrswin::kSheetMargin + row * (rrswin::kSheetLabel + th + rrswin::kSheetMargin) + rrswin::kSheetLabel};
  };
  // A tile is the layer's surface112 preview scaled (nearest): enc0 at level 0 on the left, dec0 on
  // the right, enc5 alone at level 5.
  for (const auto& [name, row, col, tokens] :
       {std::tuple{"enc0", 0, 0, 64}, std::tuple{"dec0", 0, 1, 64}, std::tuple{"dec2", 2, 1, 16}, std::tuple{"enc5", 5, 0, 2}}) {
    const Png src = read_png(t.path / "p" / name / "surface112.png");
    const int scale = src.w / tokens;
    const auto [x0, y0] = tile_origin(row, col);
    for (int y = 0; y < th; y += 7)
      for (int x = 0; x < tw; x += 5)
        for (int c = 0; c < 3; ++c)
          ASSERT_EQ(sheet.at(x0 + x, y0 + y)[c], src.at(x * tokens / tw * scale, y * tokens / th * scale)[c])
              << name << " (" << x << ", " << y << ")";
  }
  // No decoder at level 5: its cell is the ground; every label band holds ink where a layer is.
  const auto [ex0, ey0] = tile_origin(5, 1);
  for (int y = ey0 - rrswin::kSheetLabel; y < ey0 + th; ++y)
    for (int x = ex0; x < ex0 + tw; ++x) ASSERT_EQ(sheet.at(x, y)[0], 32) << x << ", " << y;
  for (int row = 0; row < 6; ++row)
    for (int col = 0; col < (row == 5 ? 1 : 2); ++col) {
      const auto [x0, y0] = tile_origin(row, col);
      int ink = 0;
      for (int y = y0 - rrswin::kSheetLabel; y < y0; ++y)
        for (int x = x0; x < x0 + tw; ++x) ink += sheet.at(x, y)[0] == 224;
      EXPECT_GT(ink, 50) << "label of row " << row << " col " << col;
    }

  // A later run into the folder without --preview removes the previous previews (never the data).
  const Split again = run_split(t, "run -o p --render 64,64 --threads 2");
  ASSERT_EQ(again.status, 0) << again.out << again.err;
  EXPECT_TRUE(contains(again.out, "removed p/network.png (a previous run's output)")) << again.out;
  for (const std::string& f : relative_files_under(t.path / "p")) EXPECT_NE(f.substr(f.size() - 4), ".png") << f;
  EXPECT_TRUE(fs::exists(t.path / "p" / "dec0" / "surface144.bin"));
}

// The previews are outputs like the others: all or nothing.
TEST(NetworkCli, PreviewFailureWritesNothing) {
  for (const std::string blocker : {"network.png", "enc3/arena_plane0.png", "dec0/surface144.png"}) {
    TempDir t;
    fs::create_directories(t.path / "out" / blocker / "x");
    const Result r = t.rrswin("run -o out --render 64,64 --preview --threads 2");
    EXPECT_EQ(r.status, 2) << blocker << "\n" << r.out;
    for (const std::string& f : relative_files_under(t.path / "out")) EXPECT_TRUE(contains(f, blocker)) << blocker << ": left " << f;
  }
}
