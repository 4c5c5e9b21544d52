// `rrswin replay --layer L`, `rrswin diff --layer L` and `rrswin diff --network` on fuzzed folders
// (issue 38: the harnesses cover each reader a layer brings: the merge layers', the decoders' and
// enc1's replay captures, the run --network folders). The input is records "name\n<bytes>"
// (fuzz_util.hpp) that become the files of a replay capture; a record named "layer" holds the layer
// (one of the layers whose captures replay: enc0..enc4, dec4..dec0; enc0's in rrswin's stand-in
// convention, +8 and +88), and without an "alloc-1.bin"
// record the layer's default weight image stands in (pointer 40 -> alloc 1 in the synthetic
// captures). Then, as the CLI does: replay --layer L CAP -o OUT, diff --layer L CAP CAP-copy,
// diff --network of two folders made of the same records under <layer>/. A clear error is fine; a
// crash, a sanitizer report, std::bad_alloc or a hang is a finding, and so is a failed replay that
// leaves an output folder behind (all or nothing: io/output_set.hpp).
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "assets/synthetic_weights.hpp"
#include "bridge/layer_capture.hpp"
#include "capture/capture.hpp"
#include "cli/commands.hpp"
#include "fuzz_util.hpp"
#include "model/weight_image.hpp"

namespace {

bool safe_name(const std::string& n) {
  if (n.empty() || n.size() > 200 || n[0] == '/' || n.find("..") != std::string::npos || n.find('\0') != std::string::npos) return false;
  return std::count(n.begin(), n.end(), '/') <= 1 && n.back() != '/';
}

// The layers whose replay captures the model reads (enc0's through rrswin's stand-ins +8/+88,
// LaunchAbi::standin_*; enc5 has its own).
bool capture_layer(rrswin::LayerId id) {
  const rrswin::LayerSpec& s = rrswin::layer_spec(id);
  return s.runnable && id != rrswin::LayerId::enc5 && rrswin::capture_input(s.abi) >= 0 && rrswin::capture_texture(s.abi) >= 0;
}

// Each layer's default weight image as a file, written once.
const fuzz::fs::path& weights_file(rrswin::LayerId id) {
  static std::map<rrswin::LayerId, fuzz::fs::path> files;
  auto it = files.find(id);
  if (it == files.end()) {
    const fuzz::fs::path p = fuzz::scratch() / ("weights-" + std::string(rrswin::to_string(id)) + ".bin");
    const auto b = rrswin::default_layer_weights(id).bytes();
    fuzz::write(p, b.data(), b.size());
    it = files.emplace(id, p).first;
  }
  return it->second;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (!std::freopen("/dev/null", "w", stdout)) std::abort();
  fuzz::maybe_write_seeds([](const fuzz::fs::path& d) {
    for (rrswin::LayerId id : rrswin::layer_ids()) {
      if (!capture_layer(id)) continue;
      rrswin::ptx::SyntheticLayerCapture o;
      o.seed = 3;
      o.ex = 9;
      o.ey = 7;
      o.ox = 1;
      o.oy = 2;
      const rrswin::ptx::KernelCapture c = rrswin::ptx::synthetic_layer_capture(id, o);
      std::vector<fuzz::Record> rs{{"layer", std::string(rrswin::to_string(id))}};
      for (const auto& [name, bytes] : rrswin::ptx::replay_capture_files(c))
        if (name != "alloc-1.bin") rs.push_back({name, std::string(bytes.begin(), bytes.end())});  // the weights: linked in
      fuzz::write(d / ("replay-" + std::string(rrswin::to_string(id))), fuzz::join_records(rs));
    }
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto cap = fuzz::reset("cap"), copy = fuzz::reset("copy"), out = fuzz::reset("out"), na = fuzz::reset("na"), nb = fuzz::reset("nb");
  fuzz::fs::remove(out);  // replay creates it: all or nothing
  rrswin::LayerId layer = rrswin::LayerId::enc4;
  bool have_weights = false;
  std::vector<fuzz::Record> files;
  for (const fuzz::Record& r : fuzz::split_records(data, size)) {
    if (r.name == "layer") {
      rrswin::LayerId id{};
      if (rrswin::parse_layer(r.bytes, &id) && capture_layer(id)) layer = id;
      continue;
    }
    if (!safe_name(r.name)) continue;
    have_weights |= r.name == "alloc-1.bin";
    files.push_back(r);
  }
  const std::string L(rrswin::to_string(layer));
  std::error_code ec;
  for (const fuzz::Record& r : files)
    for (const auto& dir : {cap, copy, na / L, nb / L}) {
      fuzz::fs::create_directories((dir / r.name).parent_path(), ec);
      fuzz::write(dir / r.name, r.bytes);
    }
  if (!have_weights)
    for (const auto& dir : {cap, copy}) fuzz::fs::copy_file(weights_file(layer), dir / "alloc-1.bin", ec);
  bool replayed = false;
  fuzz::guarded([&] {
    rrswin::cli::cmd_replay({cap.string(), "-o", out.string(), "--layer", L, "--threads", "1"});
    replayed = true;
  });
  if (!replayed && fuzz::fs::exists(out, ec)) {
    std::fprintf(stderr, "FINDING: a failed replay left %s behind (outputs are all or nothing)\n", out.c_str());
    std::abort();
  }
  fuzz::guarded([&] { rrswin::cli::cmd_diff({cap.string(), copy.string(), "--layer", L}); });
  fuzz::guarded([&] { rrswin::cli::cmd_diff({na.string(), nb.string(), "--network"}); });
  return 0;
}
