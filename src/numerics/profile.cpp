// The two semantics profiles of numerics.md ("Two profiles of semantics matter to users").
#include "numerics/profile.hpp"

namespace enc5 {

const Profile& profile_ada() {
  // What an NVIDIA Ada GPU computes (the default). The e4m3 NaN byte follows NVIDIA's host
  // emulation (0x7F for every NaN): unmeasured on Ada itself, see docs/readings.md §2.
  static const Profile p{"ada", MmaAccumulation::ada_truncated_halves, /*e4m3_nan_keeps_sign=*/false};
  return p;
}

const Profile& profile_zluda() {
  // d4r's patched ZLUDA on RDNA4: facts D1 (mma) and D3 (NaN -> 0x7F | sign).
  static const Profile p{"zluda", MmaAccumulation::exact_sum_f32_then_f16, /*e4m3_nan_keeps_sign=*/true};
  return p;
}

const Profile* find_profile(std::string_view name) {
  if (name == "ada") return &profile_ada();
  if (name == "zluda") return &profile_zluda();
  return nullptr;
}

}  // namespace enc5
