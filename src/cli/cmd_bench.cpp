// rrswin bench: the golden model and the fast engine side by side on the geometries, per
// profile and SIMD path, with a per-phase-group breakdown and two references measured in the same
// run: the machine's binary64 FMA peak (the exact-arithmetic limit) and the layer's GEMMs in f32
// through a BLAS (what a user would pick instead). docs/performance.md records a run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "api/network_demo.hpp"
#include "assets/synthetic_weights.hpp"
#include "cli/bench_core.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "engine/layer_engine.hpp"
#include "engine/simd.hpp"
#include "model/launch_abi.hpp"
#include "model/layer_program.hpp"
#include "numerics/profile.hpp"

namespace rrswin::cli {

namespace {

void help() {
  std::printf(
      "usage: rrswin bench [--geometry small|real|1080p|4k]... [--profile ada|zluda|hopper|blackwell]... [--simd scalar|avx2|avx512|avx512vnni]...\n"
      "                  [--threads N] [--reps N] [--golden-reps N] [--no-golden] [--no-reference]\n\n"
      "Times whole frames (synthetic inputs, default weights) with the golden model and the fast engine.\n"
      "The golden model runs on the small geometry (one block) only; its time for the larger geometries\n"
      "is that per-block time times the number of blocks divided by the threads (marked '~').\n"
      "Defaults: every geometry, every profile, every SIMD path this CPU has (up to RRSWIN_SIMD's when it is set),\n"
      "all hardware threads.\n"
      "cpu ms/blk: the process's CPU time (all threads) per block, minimum of the reps: on a shared\n"
      "machine it leaves out the time other processes held the cores.\n"
      "vs f64lim: ms/frame over the binary64 FMA limit (the frame's multiply-adds at the FMA peak measured\n"
      "in the same run); vs ada: over the `ada` line of the same geometry and path; ms/wave: ms/frame over\n"
      "ceil(blocks / threads) (equal across geometries when the frame scales linearly in blocks per thread);\n"
      "fixed share (breakdown): prologue + E11 + E20 + E60+61+E61 over the block's total.\n\n"
      "rrswin bench --layer L|all [--profile P]... [--simd S]... [--threads N] [--reps N]\n"
      "  Every runnable layer (all) or L at its real token grid (rrswin layers), the fast engine per\n"
      "  profile and SIMD path: ms/frame, GMAC/s (the layer's e4m3 multiply-adds), vs enc5 (GMAC/s over\n"
      "  enc5's on the same profile and path, enc5 timed again beside each of the layer's reps,\n"
      "  alternating, in batches as long as the layer's frame, so that a machine whose speed drifts\n"
      "  moves both together; enc5 beside: that GMAC/s), vs f64lim and vs i16lim (ms/frame over the\n"
      "  layer's multiply-adds at the binary64 FMA peak and at the int16 dot-product peak, the limit of\n"
      "  `zluda`'s integer kernels, both measured in this run), and which parts ran: the fused engine at\n"
      "  the layer's dimensions (after the engine's front where a layer has one), or golden's parts with\n"
      "  the engine's GEMMs (a layer the fused engine does not take). Then each layer's per-phase-group\n"
      "  breakdown (one thread, 64 x 64 tokens): microseconds per block per group and the fixed share\n"
      "  (prologue + E11 + E20 + tail over the total; a layer's front is a column of its own).\n"
      "\n"
      "rrswin bench --network [--render W,H]... [--profile P]... [--simd S] [--threads N] [--reps N]\n"
      "  The layers that run, chained as `rrswin run --network` runs them (its demo inputs), at each render\n"
      "  (default 256x128, 1280x720, 1920x1080) on the widest selected SIMD path: each layer's ms and GMAC/s\n"
      "  (minimum over the reps, default 1, after one untimed run that prepares the weights, as enc5's timing\n"
      "  has one), the total, its GMAC/s against enc5 alone on the same profile\n"
      "  and path (timed beside each rep of the render, alternating, in batches as long as the run), and\n"
      "  ms per megapixel of the render (constant when the time is linear in the pixels). Profiles:\n"
      "  --profile (default ada).\n");
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

struct BenchOptions {
  std::vector<std::string> geo_names, simd_names, profiles, layers;
  int threads = 0, reps = 5, golden_reps = 1;
  bool golden = true, reference = true, help = false;
  bool network = false, reps_given = false;
  std::vector<std::pair<int, int>> renders;  // --network's renders
};

BenchOptions parse_bench(const Args& args) {
  BenchOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      return args[++i];
    };
    if (a == "--help" || a == "-h")
      o.help = true;
    else if (a == "--geometry")
      o.geo_names.push_back(value());
    else if (a == "--simd")
      o.simd_names.push_back(value());
    else if (a == "--profile")
      o.profiles.push_back(value());
    else if (a == "--threads")
      o.threads = static_cast<int>(parse_int(a, value(), 0, kThreadsMax));
    else if (a == "--reps") {
      o.reps = static_cast<int>(parse_int(a, value(), 1, 1000000));
      o.reps_given = true;
    } else if (a == "--network")
      o.network = true;
    else if (a == "--render") {
      const auto [w, h] = parse_pair(a, value(), 32, 8192);
      o.renders.emplace_back(static_cast<int>(w), static_cast<int>(h));
    } else if (a == "--golden-reps")
      o.golden_reps = static_cast<int>(parse_int(a, value(), 1, 1000000));
    else if (a == "--no-golden")
      o.golden = false;
    else if (a == "--no-reference")
      o.reference = false;
    else if (a == "--layer") {
      const std::string v = value();
      if (v == "all") {
        for (LayerId id : layer_ids())
          if (layer_spec(id).runnable) o.layers.emplace_back(to_string(id));
      } else {
        o.layers.emplace_back(to_string(layer_option(v)));
      }
    } else
      throw UsageError("unknown option '" + a + "'");
  }
  return o;
}

// What the run measures: the geometries, SIMD paths and profiles the options select.
struct BenchPlan {
  std::vector<bench::Geometry> geos;
  std::vector<engine::SimdPath> paths;
  std::vector<const Profile*> profs;
  int nthreads = 1, hw = 1;
};

BenchPlan plan_of(const BenchOptions& o) {
  BenchPlan pl;
  for (const auto& g : bench::geometries())
    if (o.geo_names.empty() || std::find(o.geo_names.begin(), o.geo_names.end(), g.name) != o.geo_names.end()) pl.geos.push_back(g);
  if (pl.geos.empty()) throw std::invalid_argument("no such geometry (small, real, 1080p, 4k)");
  for (const auto& n : o.simd_names)
    if (!engine::parse_simd_path(n) || !engine::simd_supported(*engine::parse_simd_path(n)))
      throw std::invalid_argument("SIMD path " + n + " is unknown or not supported by this CPU");
  // Without --simd: every path this CPU has, up to RRSWIN_SIMD's when it is set (it forces a lower
  // path everywhere else, engine/simd.hpp default_simd_path).
  const auto cap = static_cast<int>(engine::default_simd_path());
  for (engine::SimdPath p : engine::supported_simd_paths())
    if (o.simd_names.empty() ? static_cast<int>(p) <= cap
                             : std::find(o.simd_names.begin(), o.simd_names.end(), std::string(engine::to_string(p))) != o.simd_names.end())
      pl.paths.push_back(p);
  if (o.profiles.empty()) pl.profs = o.network ? std::vector<const Profile*>{&profile_ada()} : all_profiles();
  for (const auto& n : o.profiles) {
    const Profile* p = find_profile(n);
    if (!p) throw std::invalid_argument("unknown profile " + n + " (" + std::string(profile_names()) + ")");
    pl.profs.push_back(p);
  }
  pl.hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  pl.nthreads = o.threads > 0 ? o.threads : pl.hw;
  return pl;
}

// The references measured once per run: the FMA peaks and the BLAS frame per geometry.
struct References {
  bench::FmaPeaks peaks;
  std::vector<double> blas_ms;
};

// One geometry's lines: golden (extrapolated from its per-block time), the fast engine per profile
// and path, and the references. vs ada: the line's time over `ada`'s on the same geometry and
// path in this run (issue 17's `hopper` target); ms/wave: ms/frame over the blocks per thread,
// ceil(blocks / threads), constant across geometries when the frame scales linearly.
void bench_geometry(const BenchOptions& o, const BenchPlan& pl, std::size_t gi, const References& ref,
                    const std::vector<double>& golden_block_s) {
  const auto& g = pl.geos[gi];
  const double mpb = bench::macs_per_block();
  const int nb = bench::blocks(g);
  const double gmac = nb * mpb / 1e9;
  bench::Frame f(g);
  const int waves = (nb + pl.nthreads - 1) / pl.nthreads;  // golden's extrapolation: blocks per thread
  const double limit_ms = ref.peaks.f64 > 0 ? 1e3 * nb * mpb / ref.peaks.f64 : 0;
  const double limit32_ms = ref.peaks.f32 > 0 ? 1e3 * nb * mpb / ref.peaks.f32 : 0;
  const double limit16_ms = ref.peaks.i16 > 0 ? 1e3 * nb * mpb / ref.peaks.i16 : 0;
  std::vector<double> ada_ms(pl.paths.size(), 0);  // this geometry's `ada` line per path, once measured
  for (std::size_t pi = 0; pi < pl.profs.size(); ++pi) {
    const Profile& p = *pl.profs[pi];
    double golden_ms = 0;
    if (o.golden) {
      golden_ms = 1e3 * golden_block_s[pi] * (nb == 1 ? 1 : waves);
      std::printf("%-7s %6d %8.3f  %-6s %-9s %-10s %10s%.1f %9.3f %10s %10s\n", g.name.c_str(), nb, gmac, "golden",
                  std::string(p.name).c_str(), "-", nb == 1 ? " " : "~", golden_ms, gmac / (golden_ms / 1e3), "1", "");
    }
    for (std::size_t qi = 0; qi < pl.paths.size(); ++qi) {
      const std::string sp(engine::to_string(pl.paths[qi]));
      const bench::FrameTime ft = bench::time_frame_cpu(f, Engine::fast, p, sp, pl.nthreads, o.reps);
      const double ms = 1e3 * ft.wall;
      if (&p == &profile_ada()) ada_ms[qi] = ms;
      char vs_golden[32] = "", vs_lim[32] = "", vs_ada[32] = "";
      if (o.golden) std::snprintf(vs_golden, sizeof vs_golden, "%.0fx", golden_ms / ms);
      if (limit_ms > 0) std::snprintf(vs_lim, sizeof vs_lim, "%.2fx", ms / limit_ms);
      if (&p != &profile_ada() && ada_ms[qi] > 0) std::snprintf(vs_ada, sizeof vs_ada, "%.2fx", ms / ada_ms[qi]);
      // Process CPU time per block: the scaling across geometries without the other load's
      // descheduling (still includes its cache and memory sharing).
      std::printf("%-7s %6d %8.3f  %-6s %-9s %-10s %11.3f %9.2f %10s %10s %12.3f %7s %9.3f\n", g.name.c_str(), nb, gmac, "fast",
                  std::string(p.name).c_str(), sp.c_str(), ms, gmac / (ms / 1e3), vs_golden, vs_lim, 1e3 * ft.cpu / nb, vs_ada, ms / waves);
    }
  }
  if (o.reference) {
    if (limit_ms > 0)
      std::printf("%-7s %6d %8.3f  %-27s %11.3f %9.2f   (binary64 FMA peak, all threads)\n", g.name.c_str(), nb, gmac, "f64-FMA limit",
                  limit_ms, gmac / (limit_ms / 1e3));
    if (limit32_ms > 0)
      std::printf("%-7s %6d %8.3f  %-27s %11.3f %9.2f   (binary32 FMA peak, all threads)\n", g.name.c_str(), nb, gmac, "f32-FMA limit",
                  limit32_ms, gmac / (limit32_ms / 1e3));
    if (limit16_ms > 0)
      std::printf("%-7s %6d %8.3f  %-27s %11.3f %9.2f   (int16 dot-product peak, all threads: zluda's integer kernels)\n", g.name.c_str(),
                  nb, gmac, "i16-dot limit", limit16_ms, gmac / (limit16_ms / 1e3));
    if (bench::blas_available())
      std::printf("%-7s %6d %8.3f  %-27s %11.3f %9.2f   (%s, f32, GEMMs only)\n", g.name.c_str(), nb, gmac, "BLAS f32", ref.blas_ms[gi],
                  gmac / (ref.blas_ms[gi] / 1e3), bench::blas_name().c_str());
    else
      std::printf("%-7s  BLAS reference skipped: %s\n", g.name.c_str(), bench::blas_unavailable_reason().c_str());
  }
  std::printf("\n");
}

// The per-phase-group breakdown (fast engine, one thread, small geometry), its totals and the
// fixed (non-GEMM) groups' share of a block: prologue, E11, E20 and E60+61+E61 (the last holds
// phase 61's small GEMM too). Issue 17: under 15 %.
void bench_breakdown(const BenchOptions& o, const BenchPlan& pl) {
  std::printf("per-phase-group time per block (fast engine, 1 thread, thread CPU time, minimum of the reps, microseconds):\n%-20s",
              "group");
  for (const Profile* p : pl.profs)
    for (engine::SimdPath path : pl.paths)
      std::printf(" %7s/%-6s", std::string(p->name).c_str(), std::string(engine::to_string(path)).c_str());
  std::printf("\n");
  std::vector<engine::PhaseTimes> bd;
  for (const Profile* p : pl.profs)
    for (engine::SimdPath path : pl.paths) bd.push_back(bench::phase_breakdown(*p, engine::to_string(path), std::max(o.reps, 5)));
  for (int gph = 0; gph < engine::kPhaseGroups; ++gph) {
    if (gph == engine::kGroupFront) continue;  // enc5 has no front
    std::printf("%-20s", engine::kPhaseGroupNames[gph]);
    for (const auto& t : bd) std::printf(" %14.1f", 1e6 * t.seconds[gph]);
    std::printf("\n");
  }
  auto total = [](const engine::PhaseTimes& t) {
    double s = 0;
    for (double x : t.seconds) s += x;
    return s;
  };
  std::printf("%-20s", "total");
  for (const auto& t : bd) std::printf(" %14.1f", 1e6 * total(t));
  std::printf("\n%-20s", "fixed share");
  for (const auto& t : bd) {
    const double fixed =
        t.seconds[engine::kGroupPrologue] + t.seconds[engine::kGroupE11] + t.seconds[engine::kGroupE20] + t.seconds[engine::kGroupTail];
    std::printf(" %13.1f%%", total(t) > 0 ? 100.0 * fixed / total(t) : 0.0);
  }
  std::printf("\n");
}

// One runnable layer's frame at its real token grid, ready to run with the fast engine.
struct BenchFrame {
  LayerId id;
  int ex, ey;
  SyntheticFrame input, skip;        // a decoder's input is at half the extents; its skip and +96/+104 at the grid
  rrswin::LayerFrame frame;          // the other layers
  std::unique_ptr<bench::Frame> e5;  // enc5
  // At the layer's real token grid, or at ex x ey tokens.
  explicit BenchFrame(LayerId l, int ex_ = 0, int ey_ = 0)
      : id(l), ex(ex_ > 0 ? ex_ : layer_spec(l).abi.ex), ey(ey_ > 0 ? ey_ : layer_spec(l).abi.ey) {
    const LayerSpec& s = layer_spec(l);
    if (l == LayerId::enc5) {
      e5 = std::make_unique<bench::Frame>(bench::Geometry{"layer", ex, ey});
      return;
    }
    const bool decoder = s.front.kind == FrontKind::patch_expand;
    input =
        decoder ? make_synthetic_frame(ex >> 1, ey >> 1, 1, false, s.front.k / 32) : make_synthetic_frame(ex, ey, 1, false, s.k_slices());
    frame.ex = ex;
    frame.ey = ey;
    frame.input_arena = input.input_arena;
    frame.weights = &default_layer_weights(l);
    frame.texture = &input.texture;
    if (decoder) {
      skip = make_synthetic_frame(ex, ey, 2, false, s.k_slices());
      frame.skip_arena = skip.input_arena;
      frame.texture96 = frame.texture104 = &skip.texture;
      frame.scale = {0.5f, 0.5f};
    }
  }
  // Minimum wall-clock seconds of `reps` runs after one warm-up.
  double time(const Profile& p, engine::SimdPath path, int threads, int reps) {
    if (e5) return bench::time_frame(*e5, Engine::fast, p, engine::to_string(path), threads, reps);
    double best = 1e300;
    for (int r = 0; r <= reps; ++r) {
      const double s = once(p, path, threads);
      if (r > 0) best = std::min(best, s);
    }
    return best;
  }
  // The wall-clock seconds of one run.
  double once(const Profile& p, engine::SimdPath path, int threads) {
    const auto t0 = std::chrono::steady_clock::now();
    if (e5) {
      RunOptions ro;
      ro.profile = &p;
      ro.engine = Engine::fast;
      ro.simd = engine::to_string(path);
      ro.threads = threads;
      run_frame(e5->params, ro);
    } else {
      engine::run_layer_frame_fast(frame, p, Readings{}, LayerReadings{}, {path, threads});
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  // Frames back to back for about `span` seconds (at least three): the seconds per frame over them.
  // A drifting machine's short frames can all fall in one fast moment, which a long frame of another
  // layer averages away; a batch as long as that frame averages the same way.
  double batch(const Profile& p, engine::SimdPath path, int threads, double span) {
    double sum = 0;
    int n = 0;
    while (n < 3 || sum < span) {
      sum += once(p, path, threads);
      ++n;
    }
    return sum / n;
  }
  int blocks() const { return ((ex + 7) / 8) * ((ey + 7) / 8); }
  // Seconds per block in each phase group (engine.hpp PhaseGroup): one thread, the minimum per group
  // of `reps` runs after one warm-up (thread CPU time: other processes only ever add to it).
  engine::PhaseTimes breakdown(const Profile& p, engine::SimdPath path, int reps) {
    engine::PhaseTimes best;
    for (double& x : best.seconds) x = 1e30;
    for (int r = 0; r <= reps; ++r) {
      engine::PhaseTimes t;
      engine::set_phase_timing(&t);
      if (e5) {
        RunOptions ro;
        ro.profile = &p;
        ro.engine = Engine::fast;
        ro.simd = engine::to_string(path);
        ro.threads = 1;
        run_frame(e5->params, ro);
      } else {
        engine::run_layer_frame_fast(frame, p, Readings{}, LayerReadings{}, {path, 1});
      }
      engine::set_phase_timing(nullptr);
      if (r > 0)
        for (int g = 0; g < engine::kPhaseGroups; ++g) best.seconds[g] = std::min(best.seconds[g], t.seconds[g]);
    }
    for (double& x : best.seconds) x /= blocks();
    return best;
  }
};

// The per-phase-group breakdown of every layer in the table (issue 33), on a frame of
// kBreakdownTokens^2 tokens (64 blocks; a decoder's input at half), one thread: microseconds per
// block per group, the total, and the fixed share as enc5's breakdown defines it (prologue, E11,
// E20 and the tail over the total). The front (the decoders' E1 with its expand GEMM, enc0's
// embedding) is its own column, in the total and not in the fixed share. Groups mix GEMM and
// epilogue work (the MLP group holds the activation and q8 between its GEMMs, the tail a merge
// layer's merge and final GEMMs); `perf record` gives the finer picture (docs/performance.md).
constexpr int kBreakdownTokens = 64;
void bench_layer_breakdown(const std::vector<LayerId>& ids, const BenchOptions& o, const BenchPlan& pl) {
  static constexpr engine::PhaseGroup order[] = {engine::kGroupFront, engine::kGroupPrologue, engine::kGroupQV,      engine::kGroupScore,
                                                 engine::kGroupE11,   engine::kGroupPV,       engine::kGroupOutProj, engine::kGroupE20,
                                                 engine::kGroupMlp,   engine::kGroupTail};
  static_assert(std::size(order) == engine::kPhaseGroups, "every group once");
  std::printf(
      "\nper-phase-group time per block (fast engine, 1 thread, %d x %d tokens, thread CPU time, minimum of %d reps, microseconds;\n"
      "groups: front = a layer's own front, 1-10 = the stem phases, 11 = score, 12 = P.V, 21-60 = the MLP, tail = E60 and after):\n",
      kBreakdownTokens, kBreakdownTokens, std::max(o.reps, 3));
  std::printf("%-5s %-6s %-10s", "layer", "prof", "simd");
  const char* heads[] = {"front", "prologue", "1-10", "11", "E11", "12", "E12+proj", "E20", "21-60", "tail"};
  for (const char* h : heads) std::printf(" %8s", h);
  std::printf(" %9s %6s\n", "total", "fixed");
  for (LayerId id : ids) {
    BenchFrame f(id, kBreakdownTokens, kBreakdownTokens);
    for (const Profile* p : pl.profs)
      for (engine::SimdPath path : pl.paths) {
        const engine::PhaseTimes t = f.breakdown(*p, path, std::max(o.reps, 3));
        double total = 0;
        for (double x : t.seconds) total += x;
        const double fixed =
            t.seconds[engine::kGroupPrologue] + t.seconds[engine::kGroupE11] + t.seconds[engine::kGroupE20] + t.seconds[engine::kGroupTail];
        std::printf("%-5s %-6s %-10s", std::string(layer_spec(id).name).c_str(), std::string(p->name).c_str(),
                    std::string(engine::to_string(path)).c_str());
        for (engine::PhaseGroup g : order) std::printf(" %8.1f", 1e6 * t.seconds[g]);
        std::printf(" %9.1f %5.1f%%\n", 1e6 * total, total > 0 ? 100 * fixed / total : 0.0);
      }
  }
}

// The layer table (issue 33): every selected layer per profile and path, against enc5's GMAC/s of the
// same profile and path measured in the same run.
int bench_layers(const BenchOptions& o, const BenchPlan& pl) {
  const bench::FmaPeaks peaks = o.reference ? bench::fma_peaks(pl.nthreads, 0.5) : bench::FmaPeaks{};
  std::vector<LayerId> ids;
  for (const std::string& n : o.layers) ids.push_back(layer_option(n));
  if (std::find(ids.begin(), ids.end(), LayerId::enc5) == ids.end()) ids.insert(ids.begin(), LayerId::enc5);  // the baseline
  std::stable_sort(ids.begin(), ids.end(), [](LayerId a, LayerId b) { return (a == LayerId::enc5) > (b == LayerId::enc5); });
  std::printf("%-5s %9s %6s %8s  %-9s %-10s %11s %9s %8s %11s %10s %10s  %s\n", "layer", "tokens", "blocks", "GMAC", "prof", "simd",
              "ms/frame", "GMAC/s", "vs enc5", "enc5 beside", "vs f64lim", "vs i16lim", "parts");
  BenchFrame enc5(LayerId::enc5);
  const double enc5_gmac = enc5.blocks() * macs_per_block(layer_program(LayerId::enc5)) / 1e9;
  for (LayerId id : ids) {
    const LayerSpec& s = layer_spec(id);
    BenchFrame f(id);
    const int blocks = ((f.ex + 7) / 8) * ((f.ey + 7) / 8);
    const double gmac = blocks * macs_per_block(layer_program(id)) / 1e9;
    // What run_layer_frame_fast runs for the layer (engine/layer_engine.hpp layer_parts).
    const std::string parts(engine::to_string(engine::layer_parts(id)));
    char tokens[32];
    std::snprintf(tokens, sizeof tokens, "%dx%d", f.ex, f.ey);
    for (std::size_t pi = 0; pi < pl.profs.size(); ++pi)
      for (std::size_t qi = 0; qi < pl.paths.size(); ++qi) {
        const Profile& prof = *pl.profs[pi];
        const engine::SimdPath path = pl.paths[qi];
        double sec = 0, base = 0;
        if (id == LayerId::enc5) {
          sec = f.time(prof, path, pl.nthreads, o.reps);
          base = gmac / sec;
        } else {
          // enc5 is timed again beside each of the layer's runs, alternating (a batch of enc5
          // frames as long as the layer's frame before every run and after the last; the best batch
          // and the best run): a machine whose speed drifts over the minutes a layer table takes
          // moves both figures of a ratio together.
          double e5_best = 1e300;
          sec = 1e300;
          enc5.once(prof, path, pl.nthreads);  // warm-ups
          double span = f.once(prof, path, pl.nthreads);
          for (int r = 0; r <= o.reps; ++r) {
            e5_best = std::min(e5_best, enc5.batch(prof, path, pl.nthreads, span));
            if (r == o.reps) break;
            span = f.once(prof, path, pl.nthreads);
            sec = std::min(sec, span);
          }
          base = enc5_gmac / e5_best;
        }
        const double rate = gmac / sec;
        char vs5[16] = "", vslim[16] = "", vs16[16] = "";
        if (base > 0) std::snprintf(vs5, sizeof vs5, "%.2fx", rate / base);
        if (peaks.f64 > 0) std::snprintf(vslim, sizeof vslim, "%.2fx", sec / (gmac * 1e9 / peaks.f64));
        if (peaks.i16 > 0) std::snprintf(vs16, sizeof vs16, "%.2fx", sec / (gmac * 1e9 / peaks.i16));
        std::printf("%-5s %9s %6d %8.3f  %-9s %-10s %11.3f %9.2f %8s %11.2f %10s %10s  %s\n", std::string(s.name).c_str(), tokens, blocks,
                    gmac, std::string(prof.name).c_str(), std::string(engine::to_string(path)).c_str(), 1e3 * sec, rate, vs5, base, vslim,
                    vs16, parts.c_str());
      }
  }
  if (peaks.f64 > 0)
    std::printf("\nFMA peaks on %d threads: binary64 %.1f G/s, binary32 %.1f G/s; int16 dot products %.1f G/s\n", pl.nthreads,
                peaks.f64 / 1e9, peaks.f32 / 1e9, peaks.i16 / 1e9);
  bench_layer_breakdown(ids, o, pl);
  return 0;
}

// The network (issue 36): every runnable layer chained at each render (api/network_run.hpp, the
// demo inputs of `run --network`), each layer's minimum over the reps; the total against enc5 alone
// at its real grid on the same profile and path in this run, and the time per megapixel of the
// render (equal across renders when the time is linear in the pixels).
int bench_network(const BenchOptions& o, const BenchPlan& pl) {
  const engine::SimdPath path = pl.paths.back();  // the widest selected
  const std::vector<std::pair<int, int>> renders =
      o.renders.empty() ? std::vector<std::pair<int, int>>{{256, 128}, {1280, 720}, {1920, 1080}} : o.renders;
  const int reps = o.reps_given ? o.reps : 1;
  std::printf("rrswin bench --network: %s, running on %d threads, SIMD %s; %d rep%s, minimum per layer\n", cpu_model().c_str(), pl.nthreads,
              std::string(engine::to_string(path)).c_str(), reps, reps == 1 ? "" : "s");
  for (const Profile* prof : pl.profs) {
    BenchFrame e5(LayerId::enc5);
    const double e5_gmac = ((e5.ex + 7) / 8) * ((e5.ey + 7) / 8) * macs_per_block(layer_program(LayerId::enc5)) / 1e9;
    const double e5_rate = e5_gmac / e5.time(*prof, path, pl.nthreads, std::max(reps, 3));
    std::printf("\nprofile %s: enc5 alone (%dx%d) %.2f GMAC/s\n", std::string(prof->name).c_str(), e5.ex, e5.ey, e5_rate);
    std::printf("%-10s %-5s %10s %10s %9s\n", "render", "layer", "tokens", "ms", "GMAC/s");
    for (const auto& [w, h] : renders) {
      const std::unique_ptr<NetworkDemo> demo = make_network_demo(w, h, 1);
      NetworkRunOptions no;
      no.render_w = w;
      no.render_h = h;
      no.profile = prof;
      no.engine = Engine::fast;
      no.threads = pl.nthreads;
      std::map<LayerId, double> best;
      std::vector<NetworkLayerResult> last;
      // enc5 alone again beside each rep (a batch of enc5 frames as long as the network's layers
      // before every run and after the last; the best batch): the ratio's two figures from the same
      // minutes of a machine whose speed drifts, each averaged over as long a time.
      double e5_best = 1e300, span = 0;
      // One run first, untimed, as enc5's own timing has (BenchFrame::time): the first frame of a
      // process prepares the eleven weight images (the prepared-weights cache) and sizes every
      // scratch buffer, which a second frame does not.
      run_network(no, demo->layers, demo->external);
      for (int r = 0; r <= reps; ++r) {
        if (r > 0) e5_best = std::min(e5_best, e5.batch(*prof, path, pl.nthreads, span));
        if (r == reps) break;
        last = run_network(no, demo->layers, demo->external);
        span = 0;
        for (const NetworkLayerResult& x : last)
          if (x.ran) {
            best[x.id] = best.count(x.id) ? std::min(best[x.id], x.seconds) : x.seconds;
            span += x.seconds;
          }
      }
      const double e5_beside = e5_gmac / e5_best;
      char name[32];
      std::snprintf(name, sizeof name, "%dx%d", w, h);
      double total_s = 0, total_mac = 0;
      for (const NetworkLayerResult& x : last) {
        if (!x.ran) continue;
        const abi::GridExtent g = abi::covering_grid(static_cast<std::uint32_t>(x.ex), static_cast<std::uint32_t>(x.ey), 0, 0);
        const double mac = macs_per_block(layer_program(x.id)) * static_cast<double>(g.x * g.y);
        total_s += best[x.id];
        total_mac += mac;
        char tokens[32];
        std::snprintf(tokens, sizeof tokens, "%dx%d", x.ex, x.ey);
        std::printf("%-10s %-5s %10s %10.3f %9.2f\n", name, std::string(to_string(x.id)).c_str(), tokens, 1e3 * best[x.id],
                    mac / best[x.id] / 1e9);
      }
      const double mpx = static_cast<double>(w) * h / 1e6;
      std::printf("%-10s %-5s %10s %10.3f %9.2f  vs enc5 %.2fx (enc5 beside %.2f GMAC/s), %.1f ms/Mpx\n", name, "total", "", 1e3 * total_s,
                  total_mac / total_s / 1e9, total_mac / total_s / 1e9 / e5_beside, e5_beside, 1e3 * total_s / mpx);
    }
  }
  return 0;
}

}  // namespace

int cmd_bench(const Args& args) {
  const BenchOptions o = parse_bench(args);
  if (o.help) {
    help();
    return 0;
  }
  const BenchPlan pl = plan_of(o);
  if (o.network) {
    if (!o.layers.empty()) throw UsageError("--network and --layer exclude each other");
    return bench_network(o, pl);
  }
  if (!o.renders.empty()) throw UsageError("--render is an option of --network");
  if (!o.layers.empty()) {
    std::printf("rrswin bench --layer: %s, running on %d threads; %d reps, minimum\n", cpu_model().c_str(), pl.nthreads, o.reps);
    return bench_layers(o, pl);
  }
  std::printf("rrswin bench: %s, %d hardware threads, running on %d; SIMD paths:", cpu_model().c_str(), pl.hw, pl.nthreads);
  for (auto p : engine::supported_simd_paths()) std::printf(" %s", std::string(engine::to_string(p)).c_str());
  std::printf(" (best %s); %d reps, minimum\n", std::string(engine::to_string(engine::best_simd_path())).c_str(), o.reps);
  std::printf("multiply-adds per block: %.2f M\n\n", bench::macs_per_block() / 1e6);

  References ref;
  ref.blas_ms.assign(pl.geos.size(), 0);
  if (o.reference) {
    ref.peaks = bench::fma_peaks(pl.nthreads, 0.5);
    if (bench::blas_available())
      for (std::size_t i = 0; i < pl.geos.size(); ++i) ref.blas_ms[i] = 1e3 * bench::blas_frame_seconds(pl.geos[i], pl.nthreads, o.reps);
  }
  std::vector<double> golden_block_s(pl.profs.size(), 0);  // golden per block, on the one-block geometry
  if (o.golden) {
    bench::Frame f(bench::geometries()[0]);
    for (std::size_t i = 0; i < pl.profs.size(); ++i)
      golden_block_s[i] = bench::time_frame(f, Engine::golden, *pl.profs[i], {}, 1, o.golden_reps);
  }
  std::printf("%-7s %6s %8s  %-6s %-9s %-10s %11s %9s %10s %10s %12s %7s %9s\n", "geom", "blocks", "GMAC", "engine", "prof", "simd",
              "ms/frame", "GMAC/s", "vs golden", "vs f64lim", "cpu ms/blk", "vs ada", "ms/wave");
  for (std::size_t gi = 0; gi < pl.geos.size(); ++gi) bench_geometry(o, pl, gi, ref, golden_block_s);
  if (o.reference && ref.peaks.f64 > 0)
    std::printf(
        "FMA peaks on %d threads (warmed up, best of 4 rounds): binary64 %.1f G/s, binary32 %.1f G/s; int16 dot products %.1f G/s\n\n",
        pl.nthreads, ref.peaks.f64 / 1e9, ref.peaks.f32 / 1e9, ref.peaks.i16 / 1e9);
  bench_breakdown(o, pl);
  return 0;
}

}  // namespace rrswin::cli
