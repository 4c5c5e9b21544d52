#include "engine/simd.hpp"

#include <cpuid.h>

#include <array>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace rrswin::engine {

// F16C from CPUID leaf 1 (ECX bit 29): clang 14 (the fuzz build) knows no "f16c" string for
// __builtin_cpu_supports; the answer is the same.
static bool cpu_has_f16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
}

// AVX512-VNNI from CPUID leaf 7 subleaf 0 (ECX bit 11), for the same reason.
static bool cpu_has_avx512vnni() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 11)) != 0;
}

// What the CPU has, asked once per process: CPUID traps to the hypervisor in a VM (microseconds),
// and run_frame asks on every frame.
static bool cpu_supports(SimdPath p) {
  switch (p) {
    case SimdPath::scalar: return true;
    case SimdPath::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpu_has_f16c();
    case SimdPath::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl") && cpu_supports(SimdPath::avx2);
    case SimdPath::avx512vnni: return cpu_has_avx512vnni() && cpu_supports(SimdPath::avx512);
  }
  return false;
}

bool simd_supported(SimdPath p) {
  static const std::array<bool, 4> has = [] {
    std::array<bool, 4> h{};
    for (SimdPath q : {SimdPath::scalar, SimdPath::avx2, SimdPath::avx512, SimdPath::avx512vnni})
      h[static_cast<std::size_t>(q)] = cpu_supports(q);
    return h;
  }();
  const auto i = static_cast<std::size_t>(p);
  return i < has.size() && has[i];
}

SimdPath best_simd_path() {
  if (simd_supported(SimdPath::avx512vnni)) return SimdPath::avx512vnni;
  if (simd_supported(SimdPath::avx512)) return SimdPath::avx512;
  if (simd_supported(SimdPath::avx2)) return SimdPath::avx2;
  return SimdPath::scalar;
}

SimdPath default_simd_path() {
  const SimdPath best = best_simd_path();
  const char* env = std::getenv("RRSWIN_SIMD");
  if (!env || !*env) return best;
  const auto asked = parse_simd_path(env);
  // A misspelt value is an error, not the widest path: the user asked for a lower one.
  if (!asked) throw std::invalid_argument(std::string("RRSWIN_SIMD=") + env + ": expected scalar, avx2, avx512 or avx512vnni (or unset)");
  return static_cast<int>(*asked) < static_cast<int>(best) ? *asked : best;
}

std::vector<SimdPath> supported_simd_paths() {
  std::vector<SimdPath> v;
  for (SimdPath p : {SimdPath::scalar, SimdPath::avx2, SimdPath::avx512, SimdPath::avx512vnni})
    if (simd_supported(p)) v.push_back(p);
  return v;
}

std::string_view to_string(SimdPath p) {
  switch (p) {
    case SimdPath::scalar: return "scalar";
    case SimdPath::avx2: return "avx2";
    case SimdPath::avx512: return "avx512";
    case SimdPath::avx512vnni: return "avx512vnni";
  }
  return "?";
}

std::optional<SimdPath> parse_simd_path(std::string_view name) {
  for (SimdPath p : {SimdPath::scalar, SimdPath::avx2, SimdPath::avx512, SimdPath::avx512vnni})
    if (name == to_string(p)) return p;
  return std::nullopt;
}

}  // namespace rrswin::engine
