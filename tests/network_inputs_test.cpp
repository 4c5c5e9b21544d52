// `rrswin run --network` on the user's own inputs (issue 36): --weights (a folder of <layer>.bin or
// a manifest), --inputs (a frame's folder, cli/network_inputs.hpp), --save-inputs (its round trip:
// the same output bytes), --sequence (frames on all cores, each frame's bytes a single run's for
// every --threads), --reading / --layer-reading; every bad input an error naming the file, expected
// and found, exit 2, and no output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "assets/synthetic_weights.hpp"
#include "model/layer_spec.hpp"
#include "model/network.hpp"
#include "test_util.hpp"

using namespace test_util;
namespace fs = std::filesystem;

namespace {

constexpr const char* kRender = " --render 64,64";  // the smallest render every level runs at

// The data files of a run's output folder (not its summary, whose times vary, nor saved inputs).
std::vector<std::string> outputs_of(const fs::path& dir) {
  std::vector<std::string> v;
  for (const std::string& f : relative_files_under(dir))
    if (f != "summary.txt" && f.rfind("inputs/", 0) != 0) v.push_back(f);
  return v;
}

// Two output folders hold the same data files with the same bytes.
void expect_same_outputs(const fs::path& a, const fs::path& b) {
  const std::vector<std::string> files = outputs_of(a);
  ASSERT_EQ(files.size(), 38u) << a;  // arena + surface112 each; enc0..enc4's +120, +128, +56; dec0's +144
  ASSERT_EQ(outputs_of(b), files) << b;
  for (const std::string& f : files) EXPECT_EQ(bytes_of(a / f), bytes_of(b / f)) << a << " vs " << b << ": " << f;
}

// The files of an inputs folder (the layout of cli/network_inputs.hpp).
std::vector<std::string> input_files() {
  std::vector<std::string> v{"input_tensor.bin", "render.txt"};
  for (rrswin::LayerId id : rrswin::layer_ids()) {
    const std::string n(rrswin::to_string(id));
    v.push_back(n + "/texture088.exr");
    if (rrswin::layer_spec(id).front.kind == rrswin::FrontKind::patch_expand)
      for (const char* f : {"/texture096.exr", "/texture104.exr", "/scale.txt"}) v.push_back(n + f);
  }
  std::sort(v.begin(), v.end());
  return v;
}

// The default weight images as a --weights folder.
void write_default_weights(const fs::path& dir) {
  fs::create_directories(dir);
  for (rrswin::LayerId id : rrswin::layer_ids()) {
    const auto b = rrswin::default_layer_weights(id).bytes();
    put(dir / (std::string(rrswin::to_string(id)) + ".bin"), std::vector<unsigned char>(b.begin(), b.end()));
  }
}

// A refused command: exit 2, a message holding every part, and no output folder.
void expect_refused(const TempDir& t, const std::string& args, const std::vector<std::string>& parts) {
  const Result r = t.rrswin(args + " -o refused");
  EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
  for (const std::string& p : parts) EXPECT_TRUE(contains(r.out, p)) << args << ": no '" << p << "' in\n" << r.out;
  EXPECT_FALSE(fs::exists(t.path / "refused")) << args;
}

}  // namespace

// --save-inputs writes the run's inputs in the documented layout; --inputs on them gives the same
// bytes (with another thread count), and the summary names the folder.
TEST(NetworkInputs, SaveInputsRoundTripGivesTheSameBytes) {
  TempDir t;
  const Result a = t.rrswin(std::string("run --network -o a --save-inputs --threads 2") + kRender);
  ASSERT_EQ(a.status, 0) << a.out;
  EXPECT_TRUE(contains(a.out, "inputs saved: a/inputs/ (rrswin run --network --inputs a/inputs runs them again)")) << a.out;
  std::vector<std::string> want = input_files();
  EXPECT_EQ(relative_files_under(t.path / "a" / "inputs"), want);
  const std::vector<unsigned char> render{'6', '4', ',', '6', '4', '\n'};
  EXPECT_EQ(bytes_of(t.path / "a" / "inputs" / "render.txt"), render);
  EXPECT_EQ(bytes_of(t.path / "a" / "inputs" / "input_tensor.bin").size(), 64u * 64u * 32u);
  const std::vector<unsigned char> half{'0', '.', '5', ',', '0', '.', '5', '\n'};
  EXPECT_EQ(bytes_of(t.path / "a" / "inputs" / "dec2" / "scale.txt"), half);
  // Without --render: render.txt says 64,64 (the default would be 256,128).
  const Result b = t.rrswin("run --network -o b --inputs a/inputs --threads 1");
  ASSERT_EQ(b.status, 0) << b.out;
  EXPECT_TRUE(contains(b.out, "  inputs: a/inputs\n")) << b.out;
  EXPECT_TRUE(contains(b.out, "render 64 x 64")) << b.out;
  expect_same_outputs(t.path / "a", t.path / "b");
  // Saving again from the saved inputs writes the same inputs.
  ASSERT_EQ(t.rrswin(std::string("run --network -o c --inputs a/inputs --save-inputs") + kRender).status, 0);
  for (const std::string& f : want) EXPECT_EQ(bytes_of(t.path / "a" / "inputs" / f), bytes_of(t.path / "c" / "inputs" / f)) << f;
  // Another seed: other inputs, other outputs.
  ASSERT_EQ(t.rrswin(std::string("run --network -o d --seed 2 --save-inputs") + kRender).status, 0);
  EXPECT_NE(bytes_of(t.path / "a" / "inputs" / "input_tensor.bin"), bytes_of(t.path / "d" / "inputs" / "input_tensor.bin"));
  EXPECT_NE(bytes_of(t.path / "a" / "dec0" / "surface144.bin"), bytes_of(t.path / "d" / "dec0" / "surface144.bin"));
}

// A weight folder (and a manifest) of the default images gives the demo's bytes; a changed image
// changes its layer's outputs and those after it, never those before.
TEST(NetworkInputs, WeightsFolderAndManifest) {
  TempDir t;
  write_default_weights(t.path / "w");
  ASSERT_EQ(t.rrswin(std::string("run --network -o demo --threads 2") + kRender).status, 0);
  const Result r = t.rrswin(std::string("run --network -o wf --weights w --threads 2") + kRender);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "  weights: w (every runnable layer's image)\n")) << r.out;
  expect_same_outputs(t.path / "demo", t.path / "wf");
  // A manifest, paths relative to its folder (comments and blank lines allowed).
  fs::create_directories(t.path / "m");
  std::string manifest = "# the default images\n\n";
  for (rrswin::LayerId id : rrswin::layer_ids())
    manifest += std::string(rrswin::to_string(id)) + "  ../w/" + std::string(rrswin::to_string(id)) + ".bin\n";
  put(t.path / "m" / "set.txt", std::vector<unsigned char>(manifest.begin(), manifest.end()));
  ASSERT_EQ(t.rrswin(std::string("run --network -o mf --weights m/set.txt --threads 2") + kRender).status, 0);
  expect_same_outputs(t.path / "demo", t.path / "mf");
  // enc3's image changed (a quarter of it, each byte + 1): enc0..enc2 as before, enc3 on differ.
  std::vector<unsigned char> enc3 = bytes_of(t.path / "w" / "enc3.bin");
  for (std::size_t i = enc3.size() / 4; i < enc3.size() / 2; ++i) enc3[i] = static_cast<unsigned char>(enc3[i] + 1);
  put(t.path / "w" / "enc3.bin", enc3);
  ASSERT_EQ(t.rrswin(std::string("run --network -o changed --weights w --threads 2") + kRender).status, 0);
  for (const char* f : {"enc0/arena.bin", "enc1/arena.bin", "enc2/merged.bin"})
    EXPECT_EQ(bytes_of(t.path / "demo" / f), bytes_of(t.path / "changed" / f)) << f;
  for (const char* f : {"enc3/arena.bin", "enc4/arena.bin", "dec0/surface144.bin"})
    EXPECT_NE(bytes_of(t.path / "demo" / f), bytes_of(t.path / "changed" / f)) << f;
}

// Every bad weight set or inputs folder: exit 2, the file, what was expected and found, no output.
TEST(NetworkInputs, RefusalsNameTheFileExpectedAndFound) {
  TempDir t;
  write_default_weights(t.path / "w");
  ASSERT_EQ(t.rrswin(std::string("run --network -o a --save-inputs") + kRender).status, 0);
  const std::string in = std::string("run --network") + kRender + " --inputs ";
  // Weights: missing folder, missing file, wrong size, a manifest's bad and missing lines.
  expect_refused(t, "run --network --weights nowhere", {"nowhere: at byte offset 0", "found no such file or folder"});
  fs::rename(t.path / "w" / "dec2.bin", t.path / "dec2.bin");
  expect_refused(t, "run --network --weights w", {"w/dec2.bin: at byte offset 0: expected the dec2 weight image", "found no such file"});
  fs::rename(t.path / "dec2.bin", t.path / "w" / "dec2.bin");
  std::vector<unsigned char> enc1 = bytes_of(t.path / "w" / "enc1.bin");
  const std::string enc1_size = std::to_string(enc1.size());
  enc1.pop_back();
  put(t.path / "w" / "enc1.bin", enc1);
  expect_refused(t, "run --network --weights w",
                 {"w/enc1.bin: at byte offset " + std::to_string(enc1.size()), "expected " + enc1_size + " bytes (the enc1 weight image",
                  "found " + std::to_string(enc1.size()) + " bytes (1 bytes short)"});
  const std::string bad = "enc0 w/enc0.bin\nenc9 w/enc9.bin\n";
  put(t.path / "bad.txt", std::vector<unsigned char>(bad.begin(), bad.end()));
  expect_refused(t, "run --network --weights bad.txt",
                 {"bad.txt: at byte offset 16: expected a line '<layer> <path>'", "'enc9 w/enc9.bin'"});
  const std::string part = "enc0 w/enc0.bin\n";
  put(t.path / "part.txt", std::vector<unsigned char>(part.begin(), part.end()));
  expect_refused(t, "run --network --weights part.txt", {"part.txt: at byte offset 16: expected a line 'enc1 <path>'", "found none"});

  // Inputs: a render they are not of (by render.txt, and without it by the files), a bad render.txt,
  // a missing file, a wrong size, a bad scale, a link.
  expect_refused(t, in + "a/inputs --render 96,64",
                 {"a/inputs/render.txt: at byte offset 0: expected the render 96 x 64, the run's (--render)", "found the render 64 x 64"});
  expect_refused(t, "run --network --render 16,64", {"--render"});
  expect_refused(t, in + "nowhere", {"nowhere: at byte offset 0", "no such folder"});
  fs::copy(t.path / "a" / "inputs", t.path / "i", fs::copy_options::recursive);
  // Each bad render.txt and what the error says was found (the line without its newline).
  const std::vector<std::pair<std::string, std::string>> bad_renders{{"64x64\n", "'64x64'"}, {"64,16\n", "'64,16'"}, {"", "''"}};
  for (const auto& [text, found] : bad_renders) {
    put(t.path / "i" / "render.txt", std::vector<unsigned char>(text.begin(), text.end()));
    expect_refused(t, "run --network --inputs i",
                   {"i/render.txt: at byte offset 0: expected one line W,H: the render the inputs are of", found});
  }
  fs::remove(t.path / "i" / "render.txt");  // optional: then --render decides, and the files must fit it
  expect_refused(
      t, "run --network --render 96,64 --inputs i",
      {"i/enc0/texture088.exr: at byte offset 0: expected 96 x 64 texels (enc0's +88 at the render 96 x 64)", "found 64 x 64 texels"});
  fs::copy_file(t.path / "a" / "inputs" / "render.txt", t.path / "i" / "render.txt");
  fs::remove(t.path / "i" / "dec1" / "texture104.exr");
  expect_refused(t, in + "i",
                 {"i/dec1/texture104.exr: at byte offset 0: expected an RGBA HALF OpenEXR file of 32 x 32 texels", "found no such file"});
  fs::copy_file(t.path / "a" / "inputs" / "dec1" / "texture104.exr", t.path / "i" / "dec1" / "texture104.exr");
  fs::copy_file(t.path / "a" / "inputs" / "dec2" / "texture088.exr", t.path / "i" / "dec1" / "texture096.exr",
                fs::copy_options::overwrite_existing);
  expect_refused(t, in + "i", {"i/dec1/texture096.exr: at byte offset 0: expected 32 x 32 texels", "found 8 x 8 texels"});
  fs::copy_file(t.path / "a" / "inputs" / "dec1" / "texture096.exr", t.path / "i" / "dec1" / "texture096.exr",
                fs::copy_options::overwrite_existing);
  std::vector<unsigned char> tensor = bytes_of(t.path / "i" / "input_tensor.bin");
  tensor.resize(1000);
  put(t.path / "i" / "input_tensor.bin", tensor);
  expect_refused(t, in + "i",
                 {"i/input_tensor.bin: at byte offset 1000: expected 131072 bytes (enc0's staged input tensor", "found 1000 bytes"});
  fs::copy_file(t.path / "a" / "inputs" / "input_tensor.bin", t.path / "i" / "input_tensor.bin", fs::copy_options::overwrite_existing);
  put(t.path / "i" / "dec3" / "scale.txt", {'0', '.', '5', '\n'});
  expect_refused(t, in + "i", {"i/dec3/scale.txt: at byte offset 0: expected one line SX,SY", "found '0.5'"});
  fs::copy_file(t.path / "a" / "inputs" / "dec3" / "scale.txt", t.path / "i" / "dec3" / "scale.txt", fs::copy_options::overwrite_existing);
  ASSERT_EQ(t.rrswin(in + "i -o ok").status, 0);  // whole again
  fs::remove(t.path / "i" / "enc2" / "texture088.exr");
  fs::remove(t.path / "i" / "render.txt");
  fs::create_symlink(fs::absolute(t.path / "a" / "inputs" / "render.txt"), t.path / "i" / "render.txt");
  expect_refused(t, "run --network --inputs i", {"i/render.txt: at byte offset 0: expected a file or folder that is not a symbolic link"});
  fs::remove(t.path / "i" / "render.txt");
  fs::copy_file(t.path / "a" / "inputs" / "render.txt", t.path / "i" / "render.txt");
  fs::create_symlink(fs::absolute(t.path / "a" / "inputs" / "enc2" / "texture088.exr"), t.path / "i" / "enc2" / "texture088.exr");
  expect_refused(t, in + "i", {"i/enc2/texture088.exr: at byte offset 0: expected a file or folder that is not a symbolic link"});
  fs::remove_all(t.path / "i" / "enc2");
  fs::create_directory_symlink(fs::absolute(t.path / "a" / "inputs" / "enc2"), t.path / "i" / "enc2");
  expect_refused(t, in + "i", {"i/enc2: at byte offset 0: expected a file or folder that is not a symbolic link"});
  // Options that do not go together.
  expect_refused(t, in + "i --seed 3", {"--seed seeds the synthetic inputs"});
  expect_refused(t, in + "i --sequence i", {"--sequence and --inputs exclude each other"});
}

// A sequence of two frames: each frame's bytes are a single --inputs run's, for --threads 1 and 2;
// a link inside the sequence is refused and nothing is written.
TEST(NetworkInputs, SequenceEqualsSingleRunsForEveryThreadCount) {
  TempDir t;
  ASSERT_EQ(t.rrswin(std::string("run --network -o a --seed 1 --save-inputs") + kRender).status, 0);
  ASSERT_EQ(t.rrswin(std::string("run --network -o b --seed 7 --save-inputs") + kRender).status, 0);
  fs::create_directories(t.path / "seq");
  fs::rename(t.path / "a" / "inputs", t.path / "seq" / "f1");
  fs::rename(t.path / "b" / "inputs", t.path / "seq" / "f2");
  fs::create_directories(t.path / "seq" / "notes");  // no input_tensor.bin: not a frame
  for (const char* f : {"f1", "f2"})
    ASSERT_EQ(t.rrswin(std::string("run --network -o single_") + f + " --inputs seq/" + f + kRender).status, 0) << f;
  for (const auto& [out, options, scheme] :
       {std::tuple{"s1", " --threads 1", "1 workers x 1 threads"}, std::tuple{"s2", " --threads 2", "1 workers x 2 threads"},
        std::tuple{"s3", " --threads 2 --frame-workers 2", "2 workers x 1 threads"},
        std::tuple{"s4", " --threads 1 --frame-workers 3", "2 workers x 1 threads"}}) {
    const Result r = t.rrswin(std::string("run --network --sequence seq -o ") + out + options + kRender);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(contains(r.out, "rrswin run --network --sequence seq: 2 frames, render 64 x 64")) << r.out;
    EXPECT_TRUE(contains(r.out, scheme)) << r.out;
    EXPECT_TRUE(contains(r.out, "frames/s")) << r.out;
    EXPECT_TRUE(contains(r.out, std::string("-> ") + out + "/f1/")) << r.out;
    EXPECT_TRUE(fs::exists(t.path / out / "summary.txt"));
    EXPECT_TRUE(fs::exists(t.path / out / "f2" / "summary.txt"));
    EXPECT_FALSE(fs::exists(t.path / out / "notes"));
    expect_same_outputs(t.path / "single_f1", t.path / out / "f1");
    expect_same_outputs(t.path / "single_f2", t.path / out / "f2");
  }
  EXPECT_NE(bytes_of(t.path / "s1" / "f1" / "dec0" / "arena.bin"), bytes_of(t.path / "s1" / "f2" / "dec0" / "arena.bin"));
  // Without --render the first frame's render.txt gives it; a frame of another render is refused.
  const Result plain = t.rrswin("run --network --sequence seq -o s5 --threads 2");
  ASSERT_EQ(plain.status, 0) << plain.out;
  EXPECT_TRUE(contains(plain.out, "2 frames, render 64 x 64")) << plain.out;
  expect_same_outputs(t.path / "single_f2", t.path / "s5" / "f2");
  put(t.path / "seq" / "f2" / "render.txt", {'9', '6', ',', '6', '4', '\n'});
  expect_refused(t, "run --network --sequence seq",
                 {"seq/f2/render.txt: at byte offset 0: expected the render 64 x 64", "found the render 96 x 64"});
  put(t.path / "seq" / "f2" / "render.txt", {'6', '4', ',', '6', '4', '\n'});
  // A bad frame: the whole sequence refused, naming the file.
  fs::remove(t.path / "seq" / "f2" / "enc4" / "texture088.exr");
  expect_refused(t, std::string("run --network --sequence seq --threads 2") + kRender, {"seq/f2/enc4/texture088.exr", "no such file"});
  fs::remove_all(t.path / "seq" / "f2");
  fs::create_directory_symlink(fs::absolute(t.path / "seq" / "f1"), t.path / "seq" / "f3");
  expect_refused(t, std::string("run --network --sequence seq") + kRender, {"seq/f3: at byte offset 0", "symbolic link"});
  expect_refused(t, std::string("run --network --sequence nowhere") + kRender, {"nowhere: at byte offset 0", "no such folder"});
  expect_refused(t, std::string("run --network --sequence seq --save-inputs") + kRender, {"--save-inputs"});
  expect_refused(t, std::string("run --network --frame-workers 2") + kRender, {"--frame-workers is --sequence's"});
}

// --reading and --layer-reading reach the network run; the summary names those not the defaults.
TEST(NetworkInputs, ReadingsReachTheRunAndAreNamed) {
  TempDir t;
  ASSERT_EQ(t.rrswin(std::string("run --network -o base") + kRender).status, 0);
  const Result r = t.rrswin(std::string("run --network -o r --reading arena-order=natural") + kRender);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "  readings: arena-order=natural\n")) << r.out;
  EXPECT_NE(bytes_of(t.path / "base" / "enc5" / "arena.bin"), bytes_of(t.path / "r" / "enc5" / "arena.bin"));
  const Result l = t.rrswin(std::string("run --network -o l --layer-reading sigmoid-alpha=zero") + kRender);
  ASSERT_EQ(l.status, 0) << l.out;
  EXPECT_TRUE(contains(l.out, "  readings: sigmoid-alpha=zero\n")) << l.out;
  EXPECT_NE(bytes_of(t.path / "base" / "enc0" / "surface112.exr"), bytes_of(t.path / "l" / "enc0" / "surface112.exr"));
  // A default value given is no reading to name.
  const Result d =
      t.rrswin(std::string("run --network -o d --reading arena-order=fragment --layer-reading sigmoid-alpha=sigmoids") + kRender);
  ASSERT_EQ(d.status, 0) << d.out;
  EXPECT_FALSE(contains(d.out, "readings:")) << d.out;
  expect_same_outputs(t.path / "base", t.path / "d");
  expect_refused(t, "run --network --reading arena-order=bogus", {"--reading arena-order=bogus"});
  expect_refused(t, "run --network --layer-reading sigmoid-alpha=bogus", {"--layer-reading sigmoid-alpha=bogus"});
}

// Without --network, --weights, --save-inputs, --sequence and --reading still run enc5 alone.
TEST(NetworkInputs, WithoutNetworkEnc5sOptionsStillRunEnc5) {
  TempDir t;
  const auto b = rrswin::default_weights().bytes();
  put(t.path / "w.bin", std::vector<unsigned char>(b.begin(), b.end()));
  const Result r = t.rrswin("run -o e --weights w.bin --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "--weights is enc5's option: running enc5 alone")) << r.out;
  EXPECT_EQ(relative_files_under(t.path / "e"), (std::vector<std::string>{"arena.bin", "surface112.exr"}));
}
