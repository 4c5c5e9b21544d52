// Trace files (io/trace_io.cpp): the binary reader, and the text form of whatever it accepts.
#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "fuzz_util.hpp"
#include "io/trace_io.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::maybe_write_seeds([](const fuzz::fs::path& d) {
    const rrswin::SyntheticFrame f = rrswin::make_synthetic_frame(8, 8, 2, false);
    std::vector<std::uint8_t> out(f.input_arena.size());
    rrswin::Surface s = rrswin::Surface::make(8, 8);
    rrswin::LaunchParams p;
    p.ex = p.ey = 8;
    p.input_arena = f.input_arena;
    p.weights = &rrswin::default_weights();
    p.output_arena = out;
    p.texture = &f.texture;
    p.surface = &s;
    for (const char* stages : {"w1", "p13c", "e60.words"}) {
      rrswin::TraceRequest req;
      req.stages = {stages};
      rrswin::Trace t;
      rrswin::RunOptions o;
      o.engine = rrswin::Engine::golden;
      o.trace = &req;
      o.trace_out = &t;
      o.threads = 1;
      rrswin::run_frame(p, o);
      fuzz::write(d / (std::string("trace-") + stages + ".bin"), rrswin::encode_trace(t));
    }
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::guarded([&] {
    const rrswin::Trace t = rrswin::decode_trace(std::span<const std::uint8_t>(data, size), "fuzz.bin");
    (void)rrswin::format_trace_text(t);
    // What the reader accepts, the writer writes back and the reader reads again the same.
    const auto again = rrswin::decode_trace(rrswin::encode_trace(t), "again.bin");
    if (again.stages.size() != t.stages.size()) std::abort();
  });
  return 0;
}
