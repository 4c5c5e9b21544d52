// `rrswin ptx launch`'s values and replay captures of any kernel (bridge/launch.hpp,
// bridge/kernel_capture.hpp). The input is records "name\n<bytes>" (fuzz_util.hpp): "params"
// (whitespace-separated --param values), "grid", "block", "shared" (the options' values), and any
// other record a file of a replay capture (manifest.txt, args.bin, alloc-N.bin, texture and surface
// files). The launch is parsed, checked against tests/ptx/launch.ptx's params_echo and run when
// accepted; the capture is read and, when its grid is small, run on tests/ptx/kernels.ptx; a capture
// of enc4's kernel is read by enc4's launch ABI (bridge/layer_capture.hpp) and, when its frame is
// small, replayed by the fast engine, and so is one of dec4's (the decoders' launch ABI: the
// half-resolution input, the skip, three textures, the scale at +136). A file record whose bytes are
// "@enc4-weights" / "@dec4-weights" stands for that layer's embedded synthetic weight image (533856 /
// 534816 bytes: too large for an input the fuzzer mutates well).
#include <map>
#include <memory>
#include <sstream>

#include "assets/synthetic_weights.hpp"
#include "bridge/kernel_capture.hpp"
#include "bridge/launch.hpp"
#include "bridge/layer_capture.hpp"
#include "fuzz_util.hpp"

#ifndef RRSWIN_SOURCE_DIR
#define RRSWIN_SOURCE_DIR "."
#endif

namespace {
constexpr const char* kWeightsRecord = "@enc4-weights";
constexpr std::size_t kWeightBytes = 533856;  // enc4's image (model/layer_program.hpp WeightMap::image_bytes)
constexpr const char* kDecWeightsRecord = "@dec4-weights";
constexpr std::size_t kDecWeightBytes = 534816;  // dec4's image

const rrswin::ptx::Module& module(const char* file) {
  static std::map<std::string, std::shared_ptr<const rrswin::ptx::Module>> m;
  auto& p = m[file];
  if (!p) p = rrswin::ptx::load_module((fuzz::fs::path(RRSWIN_SOURCE_DIR) / "tests/ptx" / file).string());
  return *p;
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::maybe_write_seeds([](const fuzz::fs::path& d) {
    fuzz::write(d / "echo",
                fuzz::join_records({{"params", "ptr:out u8:255 u16:0xBEEF u32:7 u64:0x10 s8:-5 f16:1.5 f32:-2.25 f64:0.1 b8:-1"},
                                    {"grid", "1"},
                                    {"block", "32"},
                                    {"shared", "0"}}));
    std::string args(20, '\0');
    for (int b = 0; b < 8; ++b) args[b] = static_cast<char>((0x7f0000000000ull >> (8 * b)) & 0xFF);
    for (int b = 0; b < 8; ++b) args[8 + b] = static_cast<char>((0x7f0000100000ull >> (8 * b)) & 0xFF);
    args[16] = 16;
    fuzz::write(d / "capture", fuzz::join_records({{"manifest.txt",
                                                    "kernel int_mix\nlaunch 1 1 1 32 1 1 0\nalloc 0 0x7f0000000000 64\n"
                                                    "alloc 1 0x7f0000100000 64\npointer 0 0 0\npointer 8 1 0\n"},
                                                   {"args.bin", args},
                                                   {"alloc-0.bin", std::string(64, '\x11')},
                                                   {"alloc-1.bin", std::string(64, '\0')}}));
    // enc4's replay capture at 2 x 2 tokens (the weight image is full size: 533856 bytes).
    rrswin::ptx::SyntheticLayerCapture small;
    small.ex = small.ey = 2;
    std::vector<fuzz::Record> files;
    for (const auto& [name, bytes] : rrswin::ptx::replay_capture_files(rrswin::ptx::synthetic_layer_capture(rrswin::LayerId::enc4, small)))
      files.push_back({name, bytes.size() == kWeightBytes ? std::string(kWeightsRecord) : std::string(bytes.begin(), bytes.end())});
    fuzz::write(d / "enc4_capture", fuzz::join_records(files));
    files.clear();
    for (const auto& [name, bytes] : rrswin::ptx::replay_capture_files(rrswin::ptx::synthetic_layer_capture(rrswin::LayerId::dec4, small)))
      files.push_back({name, bytes.size() == kDecWeightBytes ? std::string(kDecWeightsRecord) : std::string(bytes.begin(), bytes.end())});
    fuzz::write(d / "dec4_capture", fuzz::join_records(files));
  });
  module("launch.ptx");
  module("kernels.ptx");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rrswin::ptx;
  const auto records = fuzz::split_records(data, size);
  const auto dir = fuzz::reset("capture");
  bool capture = false;
  std::string params, grid = "1", block = "1", shared = "0";
  for (const fuzz::Record& r : records) {
    if (r.name == "params")
      params = r.bytes;
    else if (r.name == "grid")
      grid = r.bytes;
    else if (r.name == "block")
      block = r.bytes;
    else if (r.name == "shared")
      shared = r.bytes;
    else if (!r.name.empty() && r.name.find('/') == std::string::npos && r.name != "." && r.name != ".." && r.name.size() <= 200) {
      if (r.bytes == kWeightsRecord || r.bytes == kDecWeightsRecord) {
        const auto w = rrswin::default_layer_weights(r.bytes == kWeightsRecord ? rrswin::LayerId::enc4 : rrswin::LayerId::dec4).bytes();
        fuzz::write(dir / r.name, std::string(w.begin(), w.end()));
      } else {
        fuzz::write(dir / r.name, r.bytes);
      }
      capture = true;
    }
  }
  fuzz::guarded([&] {
    LaunchSpec s;
    s.entry = "params_echo";
    s.grid = parse_dim3(grid, "--grid", false);
    s.block = parse_dim3(block, "--block", true);
    s.dynamic_shared = parse_bytes(shared, "--shared", 0, kMaxDynamicShared);
    std::istringstream in(params);
    for (std::string p; in >> p;) s.params.push_back(parse_param_arg(p, "--param"));
    s.buffers.push_back({"out", std::vector<std::uint8_t>(48, 0), "--buffer out:48"});
    check_launch(module("launch.ptx"), s);
    if (static_cast<std::uint64_t>(s.grid.x) * s.grid.y * s.grid.z <= 64) {
      RunOptions o;
      o.threads = 1;
      o.max_warp_instructions = 100000;
      run_launch(module("launch.ptx"), s, o);
    }
  });
  if (capture)
    fuzz::guarded([&] {
      KernelCapture c = load_kernel_capture(dir.string());
      (void)kernel_capture_outputs(c, "k");
      if (static_cast<std::uint64_t>(c.grid.x) * c.grid.y * c.grid.z <= 64) {
        RunOptions o;
        o.threads = 1;
        o.max_warp_instructions = 100000;
        for (const char* e : {"int_mix", "block_sum"})
          if (c.kernel == e) run_kernel_capture(module("kernels.ptx"), e, c, o);
        if (c.kernel == "tex_copy" || c.kernel == "dyn_reverse") run_kernel_capture(module("launch.ptx"), c.kernel, c, o);
      }
      for (const rrswin::LayerId layer : {rrswin::LayerId::enc4, rrswin::LayerId::dec4})
        if (c.kernel == rrswin::layer_spec(layer).entry) {
          const LayerLaunch L = read_layer_launch(c, layer);
          if (std::uint64_t{L.ex} * L.ey <= 64) replay_layer_capture(c, layer, {});
        }
    });
  return 0;
}
