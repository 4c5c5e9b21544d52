// The weight image (facts E1/E4): size validation and the per-region statistics of any bytes.
#include "assets/synthetic_weights.hpp"
#include "fuzz_util.hpp"
#include "model/weight_image.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::maybe_write_seeds([](const fuzz::fs::path& d) {
    const auto& w = rrswin::default_weights().bytes();
    fuzz::write(d / "default.bin", std::vector<std::uint8_t>(w.begin(), w.end()));
    const auto s = rrswin::make_synthetic_weights({.seed = 8, .stress = true});
    fuzz::write(d / "stress.bin", std::vector<std::uint8_t>(s.bytes().begin(), s.bytes().end()));
    fuzz::write(d / "short.bin", std::vector<std::uint8_t>(w.begin(), w.begin() + 431124));  // spec §2.3's extent
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::guarded([&] {
    const rrswin::WeightImage w(std::vector<std::uint8_t>(data, data + size), "fuzz.bin");
    (void)rrswin::region_statistics(w);
  });
  return 0;
}
