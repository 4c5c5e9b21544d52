// Replay captures (facts F6): manifest.txt and args.bin. The input is records "name\n<bytes>"
// (fuzz_util.hpp): "manifest.txt", "args.bin" and any other file; the allocations, texture and
// surface of a valid 8 x 8 synthetic replay capture are hard-linked in first (unless a record
// replaces them), so that inputs stay small and the fuzzer reaches every check of the manifest.
#include <unistd.h>

#include "capture/capture.hpp"
#include "fuzz_util.hpp"

namespace {
const fuzz::fs::path& base_capture() {
  static const fuzz::fs::path p = [] {
    const auto dir = fuzz::scratch() / "base";
    rrswin::capture::SyntheticCaptureOptions o;
    o.ex = 8;
    o.ey = 8;
    o.threads = 1;
    rrswin::capture::write_synthetic_capture(dir.string(), rrswin::capture::Form::replay, o);
    return dir;
  }();
  return p;
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::maybe_write_seeds([](const fuzz::fs::path& d) {
    const auto& b = base_capture();
    const auto m = fuzz::read(b / "manifest.txt"), a = fuzz::read(b / "args.bin");
    fuzz::write(d / "replay-8x8",
                fuzz::join_records({{"manifest.txt", std::string(m.begin(), m.end())}, {"args.bin", std::string(a.begin(), a.end())}}));
  });
  base_capture();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& base = base_capture();
  const auto dir = fuzz::reset("replay");
  const auto records = fuzz::split_records(data, size);
  for (const fuzz::Record& r : records) {
    if (r.name.empty() || r.name.find('/') != std::string::npos || r.name == "." || r.name == ".." || r.name.size() > 200) continue;
    fuzz::write(dir / r.name, r.bytes);
  }
  for (const char* f : {"alloc-0.bin", "alloc-1.bin", "alloc-2.bin", "texture-088.bin", "surface-112.bin"})
    if (!fuzz::fs::exists(dir / f)) ::link((base / f).c_str(), (dir / f).c_str());
  fuzz::guarded([&] { (void)rrswin::capture::load_captures(dir.string()); });
  return 0;
}
