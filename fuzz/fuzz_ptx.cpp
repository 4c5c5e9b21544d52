// The PTX parser and decoder (src/ptx/, issue 10): any text as a module, then every entry's
// statistics. Seeds: tests/ptx/kernels.ptx split into its entries, and (when ../shared holds it)
// nothing else: the corpus's enc5 PTX is the spec's, read at run time, not committed here.
#include <string>

#include "fuzz_util.hpp"
#include "ptx/ptx.hpp"

#ifndef ENC5_SOURCE_DIR
#define ENC5_SOURCE_DIR "."
#endif

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::maybe_write_seeds([](const fuzz::fs::path& d) {
    const auto b = fuzz::read(fuzz::fs::path(ENC5_SOURCE_DIR) / "tests/ptx/kernels.ptx");
    const std::string text(b.begin(), b.end());
    // The whole module, and each entry with the module's header (smaller inputs mutate faster).
    fuzz::write(d / "kernels.ptx", text);
    const auto first = text.find(".visible .entry");
    const std::string header = text.substr(0, first == std::string::npos ? 0 : first);
    std::size_t at = first, i = 0;
    while (at != std::string::npos && i < 32) {
      const auto next = text.find(".visible .entry", at + 1);
      fuzz::write(d / ("entry-" + std::to_string(i++) + ".ptx"), header + text.substr(at, next == std::string::npos ? std::string::npos : next - at));
      at = next;
    }
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::guarded([&] {
    const auto m = enc5::ptx::parse_module(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.ptx");
    for (const std::string& e : enc5::ptx::entry_names(*m)) (void)enc5::ptx::entry_stats(*m, e);
  });
  return 0;
}
