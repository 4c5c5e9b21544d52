// Run-time selection of the fast engine's SIMD path: the widest path the CPU supports, lowered by
// the environment variable RRSWIN_SIMD=scalar|avx2|avx512|avx512vnni (never raised above what the CPU has), or
// chosen explicitly by RunOptions::simd / `rrswin bench --simd`.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "engine/kernel_args.hpp"

namespace rrswin::engine {

bool simd_supported(SimdPath p);
SimdPath best_simd_path();                     // the CPU's widest
SimdPath default_simd_path();                  // best_simd_path() capped by RRSWIN_SIMD
std::vector<SimdPath> supported_simd_paths();  // lowest first
std::string_view to_string(SimdPath p);
std::optional<SimdPath> parse_simd_path(std::string_view name);

}  // namespace rrswin::engine
