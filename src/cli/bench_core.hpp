// Measurements shared by `rrswin bench` (cmd_bench.cpp) and the Google Benchmark targets (bench/):
// the layer per frame on the geometries, the per-phase-group breakdown, and the two
// references (the machine's binary64 FMA peak, the layer's GEMMs in f32 through a BLAS).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "engine/engine.hpp"

namespace rrswin::bench {

struct Geometry {
  std::string name;
  int ex, ey;  // tokens
};
// small (one block, 8x8), real (40x23, 15 blocks), 1080p (60x34, 40), 4k (120x68, 135).
const std::vector<Geometry>& geometries();
int blocks(const Geometry& g);

// e4m3 multiply-adds of one block (phases 1..61, the 26.9 M).
double macs_per_block();

// A frame ready to run: synthetic inputs, default weights.
struct Frame {
  SyntheticFrame input;
  std::vector<std::uint8_t> arena;
  Surface surface;
  LaunchParams params;
  explicit Frame(const Geometry& g);
  Frame(const Frame&) = delete;
};

// Minimum wall-clock seconds of `reps` runs (after one warm-up run).
double time_frame(Frame& f, Engine e, const Profile& p, std::string_view simd, int threads, int reps);
// The same runs' minimum wall-clock and minimum process CPU seconds (all threads' CPU time: on a
// shared machine it counts only the time the frame's threads really ran).
struct FrameTime {
  double wall, cpu;
};
FrameTime time_frame_cpu(Frame& f, Engine e, const Profile& p, std::string_view simd, int threads, int reps);
// Seconds per block in each phase group (fast engine, one thread, `reps` runs of the small frame).
engine::PhaseTimes phase_breakdown(const Profile& p, std::string_view simd, int reps);
// Multiply-adds per second on `threads` threads, widest SIMD path: binary64 FMA (the limit of the
// exact binary64 kernels), binary32 FMA (an f32 BLAS's ceiling) and int16 dot products (the limit
// of the exact integer kernels `zluda` runs on). Warmed up, best of 4 rounds of about seconds/8
// each; zero without AVX2.
struct FmaPeaks {
  double f64 = 0, f32 = 0, i16 = 0;  // multiply-adds per second: binary64 FMA, binary32 FMA, int16 dot products
};
FmaPeaks fma_peaks(int threads, double seconds);
// Whether the BLAS reference is built in, and its per-frame seconds (the layer's GEMMs, f32).
bool blas_available();
std::string blas_unavailable_reason();  // when !blas_available()
std::string blas_name();
double blas_frame_seconds(const Geometry& g, int threads, int reps);

}  // namespace rrswin::bench
