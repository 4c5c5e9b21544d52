// Launch-dump folders (facts F5): file names and contents together. The input is records
// "name\n<bytes>" (fuzz_util.hpp); each becomes a file of a fresh folder, which load_captures reads.
// A valid weight image is hard-linked in as arg040 when no record names one, so that inputs stay
// small (the image is 431,136 bytes) and the fuzzer still reaches the checks after it. The same
// folder is read as launch dumps of any kernel (capture::load_dumped_launches) and each launch as
// one of enc4's (bridge/layer_capture.hpp: its parameter block built and checked by enc4's ABI).
#include <unistd.h>

#include "bridge/layer_capture.hpp"
#include "capture/capture.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::maybe_write_seeds([](const fuzz::fs::path& d) {
    const auto cap = fuzz::scratch() / "seedcap";
    for (const auto& [ex, ey, window] : {std::tuple{8, 8, 0}, std::tuple{11, 5, 64}}) {
      fuzz::reset("seedcap");
      rrswin::capture::SyntheticCaptureOptions o;
      o.ex = ex;
      o.ey = ey;
      o.window_before = static_cast<std::size_t>(window);
      o.threads = 1;
      rrswin::capture::write_synthetic_capture(cap.string(), rrswin::capture::Form::launch_dump, o);
      std::vector<fuzz::Record> rs;
      for (const auto& e : fuzz::fs::directory_iterator(cap)) {
        const std::string n = e.path().filename().string();
        if (n.find("-arg040-") != std::string::npos) continue;  // linked in by the harness
        const auto b = fuzz::read(e.path());
        rs.push_back({n, std::string(b.begin(), b.end())});
      }
      std::sort(rs.begin(), rs.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
      fuzz::write(d / ("dumps-" + std::to_string(ex) + "x" + std::to_string(ey)), fuzz::join_records(rs));
    }
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& w = fuzz::default_weights_file();
  const auto dir = fuzz::reset("dumps");
  bool have_weights = false;
  for (const fuzz::Record& r : fuzz::split_records(data, size)) {
    if (r.name.empty() || r.name.find('/') != std::string::npos || r.name == "." || r.name == ".." || r.name.size() > 200) continue;
    have_weights |= r.name.find("-arg040-") != std::string::npos;
    fuzz::write(dir / r.name, r.bytes);
  }
  if (!have_weights)
    ::link(w.c_str(), (dir / "launch-001-cuda_dldn_engine_swin_enc5_kernel-arg040-buffer-base0x7f0000400000-size431136-fmt0.bin").c_str());
  fuzz::guarded([&] {
    rrswin::capture::LoadOptions opt;
    (void)rrswin::capture::load_captures(dir.string(), opt);
  });
  fuzz::guarded([&] {
    for (const auto& l : rrswin::capture::load_dumped_launches(dir.string(), "swin_enc")) {
      const rrswin::ptx::KernelCapture c = rrswin::ptx::layer_capture_from_dump(l, rrswin::LayerId::enc4, {});
      (void)rrswin::ptx::read_layer_launch(c, rrswin::LayerId::enc4);
    }
  });
  return 0;
}
