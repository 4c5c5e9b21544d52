// The OpenEXR reader (io/exr.cpp): any bytes as an RGBA HALF scan-line file.
#include "fuzz_util.hpp"
#include "io/exr.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::maybe_write_seeds([](const fuzz::fs::path& d) {
    for (const auto& [w, h] : {std::pair{5, 3}, std::pair{1, 1}, std::pair{16, 2}}) {
      std::vector<rrswin::f16_t> rgba(static_cast<std::size_t>(4 * w * h));
      for (std::size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<rrswin::f16_t>(0x3c00 + 37 * i);
      fuzz::write(d / ("rgba-" + std::to_string(w) + "x" + std::to_string(h) + ".exr"), rrswin::encode_exr_rgba_half(w, h, rgba.data()));
    }
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::guarded([&] {
    const auto img = rrswin::decode_exr_rgba_half(std::span<const std::uint8_t>(data, size), "fuzz.exr");
    if (img.rgba.size() != static_cast<std::size_t>(img.width) * img.height * 4) std::abort();
  });
  return 0;
}
