// The semantics profiles (numerics.md "profiles"): the small specialisation layer in the spirit of
// SoftFloat's specialize.h. Everything that differs between an NVIDIA Ada GPU and d4r's ZLUDA
// translation on RDNA4 is a field here; the operations in f16/e4m3/mma read it, nothing else does.
#pragma once
#include <string_view>

#include "numerics/types.hpp"

namespace enc5 {

enum class MmaAccumulation {
  // numerics.md "ada": two 16-term halves in the ISA's k order, each term truncated to the
  // block's max exponent - 13 bits, exact sum, f16 round-to-nearest-even after each half.
  ada_truncated_halves,
  // numerics.md "zluda" / facts D1: f16_RN(f32_RN(exact sum of 32 products + C)).
  exact_sum_f32_then_f16,
};

struct Profile {
  std::string_view name;
  MmaAccumulation mma;
  // cvt.rn.satfinite.e4m3x2.f16x2 of a NaN: NVIDIA's host code returns 0x7F for every NaN;
  // d4r's codec / AMD keep the sign (0xFF for a negative NaN). numerics.md "Conversions".
  bool e4m3_nan_keeps_sign;
};

const Profile& profile_ada();
const Profile& profile_zluda();
// nullptr when the name is not "ada" or "zluda".
const Profile* find_profile(std::string_view name);

}  // namespace enc5
