// Plane arenas (docs/formats.md): the first 4 bytes are ex and ey (u16 each, as a user could give
// any --ex/--ey), the rest is the file read_plane_arena checks and summarize_plane_arena reads.
#include "assets/synthetic_inputs.hpp"
#include "fuzz_util.hpp"
#include "io/arena_io.hpp"
#include "io/files.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::maybe_write_seeds([](const fuzz::fs::path& d) {
    for (const auto& [ex, ey] : {std::pair{8, 4}, std::pair{13, 7}, std::pair{1, 1}}) {
      const rrswin::SyntheticFrame f = rrswin::make_synthetic_frame(ex, ey, 3, ex == 13);
      std::vector<std::uint8_t> in = {static_cast<std::uint8_t>(ex), 0, static_cast<std::uint8_t>(ey), 0};
      in.insert(in.end(), f.input_arena.begin(), f.input_arena.end());
      fuzz::write(d / ("arena-" + std::to_string(ex) + "x" + std::to_string(ey) + ".bin"), in);
    }
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  const int ex = data[0] | data[1] << 8, ey = data[2] | data[3] << 8;
  fuzz::guarded([&] {
    const auto path = fuzz::scratch() / "arena.bin";
    fuzz::write(path, data + 4, size - 4);
    const auto bytes = rrswin::read_plane_arena(path.string(), ex, ey);
    (void)rrswin::format_plane_summary(rrswin::summarize_plane_arena(bytes, ex, ey));
  });
  return 0;
}
