// `rrswin run --network --inputs DIR --weights MANIFEST` on fuzzed inputs folders and manifests
// (issue 38: the harnesses cover each reader the network brings; cli/network_inputs.hpp
// load_network_inputs, load_network_weights). A frame's inputs at the smallest render every level
// runs at (64 x 64) are 0.3 MB, too large for an input, so the harness writes them once (the demo's,
// seed 1, as --save-inputs writes them) with a manifest naming each layer's default weight image,
// and an input is a list of edits to those files (fuzz_util.hpp apply_edits; the manifest is one of
// the files, "manifest.txt"). Then, as the CLI does: run --network --inputs DIR --weights
// DIR/manifest.txt --render 64,64 -o OUT. A clear error is fine; a crash, a sanitizer report,
// std::bad_alloc or a hang is a finding, and so is a failed run that leaves an output folder behind
// (all or nothing), or a run of the unedited inputs that fails.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "api/network_demo.hpp"
#include "assets/synthetic_weights.hpp"
#include "cli/commands.hpp"
#include "cli/network_inputs.hpp"
#include "fuzz_util.hpp"
#include "io/output_set.hpp"

namespace {

constexpr int kRender = 64;

// The files, sorted by name: the demo's inputs in --save-inputs' layout and manifest.txt.
const fuzz::Files& inputs() {
  static const fuzz::Files files = [] {
    const fuzz::fs::path dir = fuzz::reset("saved");
    {
      const std::unique_ptr<rrswin::NetworkDemo> demo = rrswin::make_network_demo(kRender, kRender, 1);
      rrswin::OutputSet set((dir / "out").string());
      rrswin::cli::save_network_inputs(set, "inputs/", *demo, kRender, kRender);
      set.commit();
    }
    fuzz::Files f;
    const fuzz::fs::path root = dir / "out" / "inputs";
    for (const auto& e : fuzz::fs::recursive_directory_iterator(root))
      if (e.is_regular_file()) f.push_back({fuzz::fs::relative(e.path(), root).string(), fuzz::read(e.path())});
    std::string manifest = "# every runnable layer's default image\n";
    for (rrswin::LayerId id : rrswin::layer_ids()) {
      if (!rrswin::layer_spec(id).runnable) continue;
      const fuzz::fs::path p = fuzz::scratch() / ("weights-" + std::string(rrswin::to_string(id)) + ".bin");
      const auto b = rrswin::default_layer_weights(id).bytes();
      fuzz::write(p, b.data(), b.size());
      manifest += std::string(rrswin::to_string(id)) + " " + p.string() + "\n";
    }
    f.push_back({"manifest.txt", std::vector<std::uint8_t>(manifest.begin(), manifest.end())});
    std::sort(f.begin(), f.end());
    return f;
  }();
  return files;
}

// A name inside the folder: at most one level of folders, no "..", no NUL, bounded.
bool name_ok(const std::string& n) {
  if (n.empty() || n.size() > 200 || n[0] == '/' || n.find("..") != std::string::npos || n.find('\0') != std::string::npos) return false;
  return std::count(n.begin(), n.end(), '/') <= 1 && n.back() != '/';
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (!std::freopen("/dev/null", "w", stdout)) std::abort();
  fuzz::maybe_write_seeds([](const fuzz::fs::path& d) {
    const fuzz::Files& f = inputs();
    auto index_of = [&](const std::string& name) {
      for (std::size_t i = 0; i < f.size(); ++i)
        if (f[i].first == name) return std::to_string(i);
      std::abort();
    };
    fuzz::write(d / "unedited", std::string());
    fuzz::write(d / "manifest", fuzz::join_records({{"patch " + index_of("manifest.txt") + " 40", "enc3 enc3.bin\nenc3"}}));
    fuzz::write(d / "tensor", fuzz::join_records({{"size " + index_of("input_tensor.bin") + " 4095", ""}}));
    fuzz::write(d / "texture", fuzz::join_records({{"patch " + index_of("dec2/texture096.exr") + " 20", std::string(12, '\xff')}}));
    fuzz::write(d / "scale", fuzz::join_records({{"patch " + index_of("dec1/scale.txt") + " 0", "nan,1e99"}}));
    fuzz::write(d / "drop", fuzz::join_records({{"drop " + index_of("enc4/texture088.exr"), ""}}));
    fuzz::write(d / "name", fuzz::join_records({{"name " + index_of("dec0/texture104.exr"), "dec0/texture096.exr"}}));
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::Edited e = fuzz::apply_edits(inputs(), {}, data, size, name_ok);
  const auto dir = fuzz::reset("in"), out = fuzz::reset("out");
  fuzz::fs::remove(out);  // the run creates it: all or nothing
  fuzz::write_files(dir, e.files);
  fuzz::run_edited(e, out, "run --network", [&] {
    rrswin::cli::cmd_run_network({"--network", "--inputs", dir.string(), "--weights", (dir / "manifest.txt").string(), "--render",
                                  std::to_string(kRender) + "," + std::to_string(kRender), "-o", out.string(), "--threads", "1"});
  });
  return 0;
}
