// Launch-dump file names (facts F5, docs/captures.md): the name grammar, and that a parsed name
// is written back to a name that parses to the same fields.
#include "capture/capture.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::maybe_write_seeds([](const fuzz::fs::path& d) {
    int i = 0;
    for (const char* n : {"launch-001-cuda_dldn_engine_swin_enc5_kernel-arg048-buffer-base0x7f0000800000-size20480-off64-fmt0.bin",
                          "launch-001-cuda_dldn_engine_swin_enc5_kernel-arg088-texture-40x23-pitch512-clamp-fmt16.bin",
                          "launch-123456-k-arg112-surface-40x23-fmt16.bin"})
      fuzz::write(d / ("name" + std::to_string(i++)), std::string(n));
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  fuzz::guarded([&] {
    const std::string name(reinterpret_cast<const char*>(data), size);
    const auto n = rrswin::capture::parse_dump_name(name);
    if (!n) return;
    (void)rrswin::capture::strip_base(n->shape);
    (void)rrswin::capture::dump_key(*n);
    const auto again = rrswin::capture::parse_dump_name(rrswin::capture::format_dump_name(*n));
    if (!again || again->launch != n->launch || again->kernel != n->kernel || again->arg != n->arg || again->kind != n->kind ||
        again->shape != n->shape || again->fmt != n->fmt)
      std::abort();
  });
  return 0;
}
