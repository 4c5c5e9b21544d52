// In-process A/B of two builds of one kernel translation unit (scripts/kernel-ab.sh builds it):
// kernel_sets_a() and kernel_sets_b() are the same KernelSet entry (kernels_avx2, kernels_avx512,
// ...) of two versions of its source, renamed at compile time. On the GEMM benchmark's operands
// (bench/gemm_shapes.hpp) each round runs the profile's k-step kernel of both, in alternating
// order, and compares the output bytes. The development machines' timings drift by 30-40 %
// within minutes (docs/performance.md, "Noise"), so two binaries run one after the other compare
// badly; calls a few microseconds apart see the same machine, and the median of the per-round
// ratios B / A is the figure to read.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "../gemm_shapes.hpp"
#include "engine/gemm.hpp"
#include "engine/simd.hpp"
#include "numerics/profile.hpp"

namespace rrswin::engine {
KernelSet kernel_sets_a();
KernelSet kernel_sets_b();
}  // namespace rrswin::engine

namespace {

using namespace rrswin;

int usage(const char* why) {
  std::fprintf(stderr,
               "kernel_ab: %s\n"
               "usage: kernel_ab --simd PATH [--profile NAME] [--shape KxN]... [--rounds N] [--timing-only]\n"
               "  PATH: the path whose kernels both builds are (avx2, avx512, avx512vnni); NAME: a profile\n"
               "  (default ada); shapes: K and N multiples of 32 and 16 (default the GEMM benchmark's);\n"
               "  --timing-only: B is a variant that computes other values (a part of the kernel left out, to\n"
               "  see what it costs): time it anyway, and say only whether the bytes differed\n",
               why);
  return 2;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

bool parse_int(std::string_view s, int lo, int hi, int& out) {
  if (s.empty() || s.size() > 9) return false;
  int v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return false;
    v = 10 * v + (ch - '0');
  }
  if (v < lo || v > hi) return false;
  out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const Profile* profile = find_profile("ada");
  std::optional<engine::SimdPath> path;
  std::vector<bench::Shape> shapes;
  int rounds = 200;
  bool timing_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--timing-only") {
      timing_only = true;
      continue;
    }
    if (i + 1 >= argc) return usage(("missing the value of " + std::string(arg)).c_str());
    const std::string_view val = argv[++i];
    if (arg == "--profile") {
      profile = find_profile(val);
      if (!profile) return usage(("unknown profile " + std::string(val)).c_str());
    } else if (arg == "--simd") {
      path = engine::parse_simd_path(val);
      if (!path) return usage(("unknown SIMD path " + std::string(val)).c_str());
    } else if (arg == "--rounds") {
      if (!parse_int(val, 1, 100000, rounds)) return usage("--rounds wants an integer 1..100000");
    } else if (arg == "--shape") {
      const auto x = val.find('x');
      bench::Shape sh{};
      if (x == std::string_view::npos || !parse_int(val.substr(0, x), 32, 4096, sh.K) || !parse_int(val.substr(x + 1), 16, 4096, sh.N) ||
          sh.K % 32 != 0 || sh.N % 16 != 0)
        return usage(("--shape wants KxN, K a multiple of 32 and N of 16 up to 4096, not " + std::string(val)).c_str());
      shapes.push_back(sh);
    } else {
      return usage(("unknown option " + std::string(arg)).c_str());
    }
  }
  if (!path) return usage("--simd is required (the path of the translation unit both builds are)");
  const auto supported = engine::supported_simd_paths();
  if (std::find(supported.begin(), supported.end(), *path) == supported.end())
    return usage(("this CPU has no " + std::string(engine::to_string(*path)) + " path").c_str());
  if (!engine::native(*profile)) return usage("the profile's mma corners are not the kernels' (gemm() runs mma_dot for it)");
  if (shapes.empty()) shapes.assign(std::begin(bench::kShapes), std::end(bench::kShapes));

  const engine::KernelSet set_a = engine::kernel_sets_a(), set_b = engine::kernel_sets_b();
  std::printf("kernel_ab: %s on %s, %d rows, %d rounds; times in us per GEMM\n", std::string(profile->name).c_str(),
              std::string(engine::to_string(*path)).c_str(), bench::kRows, rounds);
  std::printf("%-12s %10s %10s %10s %10s %12s\n", "shape", "A median", "B median", "A min", "B min", "B/A (median)");
  bool all_equal = true;
  for (const bench::Shape& sh : shapes) {
    std::mt19937 rng(5);
    std::vector<e4m3_t> ac(static_cast<std::size_t>(bench::kRows) * sh.K), bc(static_cast<std::size_t>(sh.N) * sh.K);
    for (auto& c : ac) c = bench::random_code(rng, 12);
    for (auto& c : bc) c = bench::random_code(rng, 9);
    engine::AOperand a;
    a.assign(ac.data(), bench::kRows, sh.K, sh.K, engine::decode_for(*profile, *path), *path);
    engine::BOperand b;
    b.assign_nk(bc.data(), sh.N, sh.K, sh.K, engine::kDecodeAll, *path);
    std::vector<f16_t> d0(static_cast<std::size_t>(bench::kRows) * sh.N), da, db;
    for (auto& x : d0) x = static_cast<f16_t>(rng() & 0x7BFF);  // finite C values of both signs
    engine::KStepArgs ga = engine::kstep_args(*profile, *path, a, 0, b, 0, sh.K / 32, bench::kRows, nullptr, sh.N), gb = ga;
    const engine::KStepKernel ka = engine::kstep_kernel(*profile, *path, set_a, ga), kb = engine::kstep_kernel(*profile, *path, set_b, gb);
    std::vector<double> ta, tb, ratio;
    bool shape_equal = true;
    for (int r = -2; r < rounds; ++r) {  // two rounds to warm the caches and the branch predictors, not counted
      double t[2];
      for (int w = 0; w < 2; ++w) {
        const bool run_b = (w == 1) != ((r & 1) == 1);  // alternate which build goes first
        std::vector<f16_t>& d = run_b ? db : da;
        d = d0;
        engine::KStepArgs& g = run_b ? gb : ga;
        g.d = d.data();
        const auto start = std::chrono::steady_clock::now();
        (run_b ? kb : ka)(g);
        t[run_b] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      }
      if (r >= 0) {
        ta.push_back(t[0]);
        tb.push_back(t[1]);
        ratio.push_back(t[1] / t[0]);
      }
      if (da != db && shape_equal) std::printf("K%dxN%d: the output bytes differ (round %d)\n", sh.K, sh.N, r);
      if (da != db) shape_equal = all_equal = false;
      if (da != db && !timing_only) break;
    }
    if (ta.empty()) continue;  // the bytes differed in a warm-up round
    char name[32];
    std::snprintf(name, sizeof name, "K%dxN%d", sh.K, sh.N);
    std::printf("%-12s %10.1f %10.1f %10.1f %10.1f %12.3f\n", name, median(ta), median(tb), *std::min_element(ta.begin(), ta.end()),
                *std::min_element(tb.begin(), tb.end()), median(ratio));
  }
  if (!all_equal) {
    std::printf("kernel_ab: A and B give different bytes%s\n",
                timing_only ? " (--timing-only: times kept)" : " (a bug, or a variant for --timing-only)");
    return timing_only ? 0 : 1;
  }
  std::printf("kernel_ab: A and B gave the same bytes in every round\n");
  return 0;
}
