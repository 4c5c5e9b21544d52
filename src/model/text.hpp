// Text built from parts (stage names and descriptions, phase labels, error messages): one helper
// for the golden model (golden::cat) and the phase program (model/layer_program.cpp).
#pragma once
#include <string>
#include <type_traits>

namespace rrswin {

// Concatenates text and integers by appending (GCC 12's -Wrestrict misfires on chains of
// std::string operator+).
template <typename... Parts>
std::string cat(const Parts&... parts) {
  std::string s;
  auto one = [&s](const auto& p) {
    if constexpr (std::is_integral_v<std::decay_t<decltype(p)>>)
      s += std::to_string(p);
    else
      s += p;
  };
  (one(parts), ...);
  return s;
}

}  // namespace rrswin
