// Captures of a whole frame (bridge/network_capture.hpp; `rrswin capture --network`, `rrswin replay
// --network`): a synthetic capture of one frame at the smallest render every level runs at (64 x 64:
// level 5 is 2 x 2 tokens) replays per layer and chained with every replayable layer reproduced; a
// byte the test corrupts is reported where the test put it, and nowhere else; hostile folders are
// errors naming the file; the bytes do not depend on the thread count. The expected values are the
// capture's own bytes, the data-flow edges written out here from ../shared/spec/rr_network_layers.md
// §6, and the positions of the corruptions placed by the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "bridge/network_capture.hpp"
#include "test_util.hpp"

using namespace rrswin;
using namespace test_util;
namespace fs = std::filesystem;

namespace {

std::string read_text_file(const fs::path& p) {
  const auto b = bytes_of(p);
  return std::string(b.begin(), b.end());
}

// The eleven kernels in network order, as d4r names them (launch 1 .. 11).
const std::vector<std::string> kLayers = {"enc0", "enc1", "enc2", "enc3", "enc4", "enc5", "dec4", "dec3", "dec2", "dec1", "dec0"};
std::string kernel(const std::string& layer) { return "cuda_dldn_engine_swin_" + layer + "_kernel"; }
std::string launch_prefix(int n, const std::string& layer) {
  char b[32];
  std::snprintf(b, sizeof b, "launch-%03d-", n);
  return b + kernel(layer) + "-";
}

// The one file of layer `layer`'s launch whose name holds `arg` ("-arg056-").
fs::path arg_file(const fs::path& dir, const std::string& layer, const std::string& arg) {
  const int n = static_cast<int>(std::find(kLayers.begin(), kLayers.end(), layer) - kLayers.begin()) + 1;
  fs::path hit;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(launch_prefix(n, layer), 0) == 0 && contains(name, arg)) {
      EXPECT_TRUE(hit.empty()) << "two files for " << layer << " " << arg;
      hit = e.path();
    }
  }
  EXPECT_FALSE(hit.empty()) << "no file for " << layer << " " << arg << " in " << dir;
  return hit;
}

// The shared capture (made once: each network run costs a second or two).
class NetworkCapture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    const Result r = dir_->rrswin("capture --network --synthetic --render 64,64 --threads 2 -o cap");
    ASSERT_EQ(r.status, 0) << r.out;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static fs::path cap() { return dir_->path / "cap"; }
  // A copy of the capture to corrupt.
  static fs::path copy_to(const TempDir& t) {
    const fs::path to = t.path / "cap";
    fs::copy(cap(), to);
    return to;
  }
  static TempDir* dir_;
};
TempDir* NetworkCapture::dir_ = nullptr;

TEST_F(NetworkCapture, HoldsOneLaunchPerLayerInNetworkOrderWiredByTheEdges) {
  // Every layer's launch is there, numbered 1..11 in network order.
  for (std::size_t i = 0; i < kLayers.size(); ++i) {
    bool found = false;
    for (const auto& e : fs::directory_iterator(cap()))
      found |= e.path().filename().string().rfind(launch_prefix(static_cast<int>(i) + 1, kLayers[i]), 0) == 0;
    EXPECT_TRUE(found) << kLayers[i];
  }
  // rr_network_layers.md §6: enc_i +56 -> enc_{i+1} +8; enc5 +48 -> dec4 +8; dec_{i+1} +48 -> dec_i +8;
  // enc_i +48 -> dec_i +24. The consumer's dump of its input holds the producer's dumped output.
  const std::vector<std::array<std::string, 4>> edges = {
      {"enc0", "-arg056-", "enc1", "-arg008-"}, {"enc1", "-arg056-", "enc2", "-arg008-"}, {"enc2", "-arg056-", "enc3", "-arg008-"},
      {"enc3", "-arg056-", "enc4", "-arg008-"}, {"enc4", "-arg056-", "enc5", "-arg008-"}, {"enc5", "-arg048-", "dec4", "-arg008-"},
      {"dec4", "-arg048-", "dec3", "-arg008-"}, {"dec3", "-arg048-", "dec2", "-arg008-"}, {"dec2", "-arg048-", "dec1", "-arg008-"},
      {"dec1", "-arg048-", "dec0", "-arg008-"}, {"enc4", "-arg048-", "dec4", "-arg024-"}, {"enc3", "-arg048-", "dec3", "-arg024-"},
      {"enc2", "-arg048-", "dec2", "-arg024-"}, {"enc1", "-arg048-", "dec1", "-arg024-"}, {"enc0", "-arg048-", "dec0", "-arg024-"}};
  for (const auto& [from, out, to, in] : edges) {
    const fs::path a = arg_file(cap(), from, out), b = arg_file(cap(), to, in);
    const auto x = bytes_of(a), y = bytes_of(b);
    EXPECT_FALSE(x.empty()) << a;
    EXPECT_TRUE(x == y) << from << out << " vs " << to << in;
    // One buffer, one device address: the base0x token of both names.
    const auto base = [](const fs::path& p) {
      const std::string n = p.filename().string();
      const std::size_t at = n.find("base0x");
      return n.substr(at, n.find('-', at) - at);
    };
    EXPECT_EQ(base(a), base(b)) << from << out << " vs " << to << in;
  }
  // enc0 holds rrswin's stand-ins (+8 the staged input tensor, +88 the texture standing for
  // input_noise) with its weights and outputs, not the network input +304 (no file for it), and the
  // README says so.
  for (const char* a : {"-arg008-buffer", "-arg040-", "-arg088-texture"}) EXPECT_FALSE(arg_file(cap(), "enc0", a).empty()) << a;
  for (const auto& e : fs::directory_iterator(cap())) EXPECT_FALSE(contains(e.path().filename().string(), "-arg304-"));
  const std::string readme = read_text_file(cap() / "README.txt");
  EXPECT_TRUE(contains(readme, "+304")) << readme;
  EXPECT_TRUE(contains(readme, "rrswin's stand-in convention")) << readme;
}

TEST_F(NetworkCapture, PerLayerReplayReproducesEveryReplayableLayer) {
  TempDir t;
  const Result r = t.rrswin("replay --network '" + cap().string() + "' -o out");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_FALSE(contains(r.out, "not replayable")) << r.out;
  EXPECT_TRUE(contains(r.out, "(11 of 11 layers replayable)")) << r.out;
  // Every replayed file is the capture's file of the same name, byte for byte (the inputs carried
  // over, the outputs recomputed), enc0's included.
  int files = 0;
  for (std::size_t i = 0; i < kLayers.size(); ++i) {
    const fs::path d = t.path / "out" / kLayers[i];
    ASSERT_TRUE(fs::is_directory(d)) << d;
    for (const auto& e : fs::directory_iterator(d)) {
      ++files;
      EXPECT_TRUE(bytes_of(e.path()) == bytes_of(cap() / e.path().filename())) << e.path();
    }
  }
  EXPECT_GT(files, 50);
  EXPECT_TRUE(contains(read_text_file(t.path / "out" / "summary.txt"), "every replayable layer reproduces"));
}

TEST_F(NetworkCapture, ChainedReplayReproducesEveryLayer) {
  TempDir t;
  const Result r = t.rrswin("replay --network --chained '" + cap().string() + "' -o out --json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "\"first_differing\": null")) << r.out;
  EXPECT_TRUE(contains(r.out, "the chain starts from enc0's captured inputs (rrswin's stand-ins")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"+24 <- enc0.+48\"")) << r.out;  // dec0's skip, chained
  for (const char* l : {"enc0", "dec0", "enc5", "dec3"})
    for (const auto& e : fs::directory_iterator(t.path / "out" / l))
      EXPECT_TRUE(bytes_of(e.path()) == bytes_of(cap() / e.path().filename())) << e.path();
}

TEST_F(NetworkCapture, AFlippedOutputByteIsThatLayerDifferingAndOnlyIt) {
  TempDir t;
  const fs::path c = copy_to(t);
  // dec2 runs at level 2: 16 x 16 tokens; its +112 surface is RGBA16F, 8 bytes a texel, pitch 8 x 16.
  const fs::path f = arg_file(c, "dec2", "-arg112-");
  auto b = bytes_of(f);
  ASSERT_EQ(b.size(), 16u * 16u * 8u);
  const std::size_t at = 9 * 16 * 8 + 13 * 8 + 3;  // texel (13, 9), byte 3: block (1, 1)
  b[at] ^= 0x01;
  put(f, b);
  const ptx::NetworkReplay r = ptx::replay_network_capture(ptx::load_network_capture(c.string()), {});
  ASSERT_EQ(r.layers.size(), 11u);
  for (const auto& l : r.layers) {
    if (l.layer != LayerId::dec2) {
      EXPECT_EQ(l.status, ptx::NetworkLayerReplay::Status::reproduces) << to_string(l.layer);
      continue;
    }
    EXPECT_EQ(l.status, ptx::NetworkLayerReplay::Status::differs);
    EXPECT_EQ(l.bytes_differing, 1u);
    ASSERT_TRUE(l.first);
    EXPECT_EQ(l.first->arg, 112);
    EXPECT_EQ(l.first->offset, at);
    EXPECT_EQ(l.first->block_x, 1);
    EXPECT_EQ(l.first->block_y, 1);
  }
  ASSERT_TRUE(r.first_differing);
  EXPECT_EQ(*r.first_differing, LayerId::dec2);
  // The command line: exit 1, dec2's line says differs.
  const Result cli = t.rrswin("replay --network cap -o out");
  EXPECT_EQ(cli.status, 1) << cli.out;
  EXPECT_TRUE(contains(cli.out, "block (1, 1)")) << cli.out;
  EXPECT_TRUE(contains(cli.out, "the first: dec2")) << cli.out;
}

TEST_F(NetworkCapture, AFlippedWeightByteMidNetworkIsWhereTheChainedDifferenceEnters) {
  TempDir t;
  const fs::path c = copy_to(t);
  // enc3's weight image: a byte of its first phase's B operand (the image begins with it).
  const fs::path f = arg_file(c, "enc3", "-arg040-");
  auto b = bytes_of(f);
  ASSERT_GT(b.size(), 4096u);
  b[100] ^= 0x40;
  put(f, b);
  ptx::NetworkReplayOptions o;
  o.chained = true;
  const ptx::NetworkReplay r = ptx::replay_network_capture(ptx::load_network_capture(c.string()), o);
  ASSERT_TRUE(r.first_differing);
  EXPECT_EQ(*r.first_differing, LayerId::enc3);
  for (const auto& l : r.layers) {
    if (l.layer == LayerId::enc1 || l.layer == LayerId::enc2) {
      EXPECT_EQ(l.status, ptx::NetworkLayerReplay::Status::reproduces) << to_string(l.layer);
    }
    if (l.layer == LayerId::enc3) {
      EXPECT_EQ(l.status, ptx::NetworkLayerReplay::Status::differs);
      EXPECT_EQ(l.input_bytes_differing, 0u);  // its inputs are the captured ones: the difference enters here
    }
    if (l.layer == LayerId::enc4) {
      EXPECT_GT(l.input_bytes_differing, 0u);  // enc3's differing output feeds it
    }
  }
  const Result cli = t.rrswin("replay --network --chained cap -o out");
  EXPECT_EQ(cli.status, 1) << cli.out;
  EXPECT_TRUE(contains(cli.out, "the first: enc3 (a difference enters there")) << cli.out;
}

TEST_F(NetworkCapture, AMissingLaunchOrArgumentIsAnErrorNamingItAndWritesNothing) {
  {
    TempDir t;
    const fs::path c = copy_to(t);
    fs::remove(arg_file(c, "enc3", "-arg056-"));
    const Result r = t.rrswin("replay --network cap -o out");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.out, "launch-004-" + kernel("enc3") + "-arg056-buffer")) << r.out;
    EXPECT_FALSE(fs::exists(t.path / "out"));
  }
  {
    TempDir t;
    const fs::path c = copy_to(t);
    for (const auto& e : fs::directory_iterator(c))
      if (e.path().filename().string().rfind(launch_prefix(10, "dec1"), 0) == 0) fs::remove(e.path());
    const Result r = t.rrswin("replay --network --chained cap -o out");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.out, "a launch of " + kernel("dec1"))) << r.out;
    EXPECT_FALSE(fs::exists(t.path / "out"));
  }
}

// A launch of the original enc0 (the network input +304, no +8/+88: rrswin's stand-ins) is not
// replayable, its line saying why, and the chain starts from enc1's captured input as it says; every
// other layer still reproduces. One stand-in without the other is an error naming the missing file.
TEST_F(NetworkCapture, AnEnc0LaunchWithoutTheStandInsIsNotReplayedAndTheChainStartsAtEnc1) {
  {
    TempDir t;
    const fs::path c = copy_to(t);
    const fs::path staged = arg_file(c, "enc0", "-arg008-");
    std::string n = staged.filename().string();
    n.replace(n.find("-arg008-"), 8, "-arg304-");
    fs::rename(staged, c / n);
    fs::remove(arg_file(c, "enc0", "-arg088-"));
    const Result r = t.rrswin("replay --network --chained cap -o out");
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(contains(r.out, "enc0  launch   1    64 x 64    not replayable: its launch holds no +8 / +88 (rrswin's stand-ins"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "the chain starts from enc1's captured inputs (enc0's launch does not replay")) << r.out;
    EXPECT_TRUE(contains(r.out, "+24 as captured (enc0.+48: enc0 does not replay)")) << r.out;
    EXPECT_TRUE(contains(r.out, "every replayable layer reproduces (10 of 11 layers replayable)")) << r.out;
    EXPECT_FALSE(fs::exists(t.path / "out" / "enc0"));
  }
  {
    TempDir t;
    const fs::path c = copy_to(t);
    fs::remove(arg_file(c, "enc0", "-arg088-"));
    const Result r = t.rrswin("replay --network cap -o out");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.out, "launch-001-" + kernel("enc0") + "-arg088-texture")) << r.out;
    EXPECT_TRUE(contains(r.out, "both or neither")) << r.out;
    EXPECT_FALSE(fs::exists(t.path / "out"));
  }
}

TEST_F(NetworkCapture, HostileFoldersAreErrorsNamingTheFile) {
  // Two launches of one layer: enc2's files again as launch 12.
  {
    TempDir t;
    const fs::path c = copy_to(t);
    for (const auto& e : fs::directory_iterator(c)) {
      const std::string n = e.path().filename().string();
      if (n.rfind(launch_prefix(3, "enc2"), 0) == 0) fs::copy_file(e.path(), c / ("launch-012-" + n.substr(11)));
    }
    const Result r = t.rrswin("replay --network cap -o out");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.out, "a second one, launch 12")) << r.out;
  }
  // A mis-sized buffer: enc4's weight image one byte short of its size token.
  {
    TempDir t;
    const fs::path c = copy_to(t);
    const fs::path f = arg_file(c, "enc4", "-arg040-");
    auto b = bytes_of(f);
    b.pop_back();
    put(f, b);
    const Result r = t.rrswin("replay --network cap -o out");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.out, f.filename().string())) << r.out;
    EXPECT_TRUE(contains(r.out, "the size in the file name")) << r.out;
  }
  // A buffer of another frame's size (the name and the file agree, the layer's ABI does not):
  // dec3's output arena cut to half, its size token with it.
  {
    TempDir t;
    const fs::path c = copy_to(t);
    const fs::path f = arg_file(c, "dec3", "-arg048-");
    auto b = bytes_of(f);
    const std::string n = f.filename().string(), size = "size" + std::to_string(b.size());
    b.resize(b.size() / 2);
    fs::remove(f);
    put(c / (n.substr(0, n.find(size)) + "size" + std::to_string(b.size()) + n.substr(n.find(size) + size.size())), b);
    const Result r = t.rrswin("replay --network cap -o out");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.out, "-arg048-")) << r.out;
    EXPECT_TRUE(contains(r.out, "output plane arena")) << r.out;
  }
  // A link inside the capture is refused by name.
  {
    TempDir t;
    const fs::path c = copy_to(t);
    const fs::path f = arg_file(c, "enc1", "-arg088-");
    fs::rename(f, t.path / "elsewhere.bin");
    fs::create_symlink(t.path / "elsewhere.bin", f);
    const Result r = t.rrswin("replay --network cap -o out");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.out, f.filename().string())) << r.out;
    EXPECT_FALSE(fs::exists(t.path / "out"));
  }
}

TEST_F(NetworkCapture, TheSameBytesForOneAndTwoThreads) {
  TempDir t;
  const Result r = t.rrswin("capture --network --synthetic --render 64,64 --threads 1 -o cap1");
  ASSERT_EQ(r.status, 0) << r.out;
  int files = 0;
  for (const auto& e : fs::directory_iterator(t.path / "cap1")) {
    ++files;
    EXPECT_TRUE(bytes_of(e.path()) == bytes_of(cap() / e.path().filename())) << e.path();
  }
  EXPECT_EQ(files, static_cast<int>(std::distance(fs::directory_iterator(cap()), fs::directory_iterator())));
  const Result a = t.rrswin("replay --network --chained '" + cap().string() + "' -o r1 --threads 1");
  const Result b = t.rrswin("replay --network --chained '" + cap().string() + "' -o r2 --threads 2");
  ASSERT_EQ(a.status, 0) << a.out;
  ASSERT_EQ(b.status, 0) << b.out;
  for (const auto& e : fs::recursive_directory_iterator(t.path / "r1"))
    if (e.is_regular_file()) {
      EXPECT_TRUE(bytes_of(e.path()) == bytes_of(t.path / "r2" / fs::relative(e.path(), t.path / "r1"))) << e.path();
    }
}

}  // namespace
