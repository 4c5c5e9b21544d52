// The semantics profiles (numerics.md "profiles"): the small specialisation layer in the spirit of
// SoftFloat's specialize.h. Everything that differs between an NVIDIA Ada GPU, d4r's ZLUDA
// translation on RDNA4, an NVIDIA Hopper/Blackwell datacenter GPU and a consumer Blackwell GPU
// (a model) is a field here; the operations in f16/e4m3/mma read it, nothing else does.
#pragma once
#include <string_view>
#include <vector>

#include "numerics/types.hpp"

namespace rrswin {

enum class MmaAccumulation {
  // numerics.md "ada": two 16-term halves in the ISA's k order, each term truncated to the
  // block's max exponent - 13 bits, exact sum, f16 round-to-nearest-even after each half.
  ada_truncated_halves,
  // numerics.md "zluda" / facts D1: f16_RN(f32_RN(exact sum of 32 products + C)).
  exact_sum_f32_then_f16,
  // numerics.md "hopper": the e4m3 operands converted to f16, two f16 HMMAs (k mod 4 in {0,1},
  // then {2,3}; 25 kept bits, truncation, exact sum, f16 RNE) from +0, then an f16 add of C.
  hopper_two_hmma,
  // numerics.md "Consumer Blackwell" (MMA-Sim's sm_120 model, unmeasured): ONE fused block of the
  // 32 products and C, each truncated to 2^(maxE - 25) (E as in `ada`), exact sum, one f16 RNE.
  blackwell_fused_sum,
};

// The corners of the mma that no published measurement covers (numerics.md: "Not covered by the
// data: Inf/NaN operands, overflow, the sign of a zero result"). Each is a named reading
// (docs/readings.md §3, `rrswin readings`: mma-zero-sign, mma-nan-operand, mma-nan-payload,
// mma-overflow); `--reading NAME=VALUE` replaces a profile's value (model/readings.hpp:
// with_readings). The defaults are the same in every profile.
// The sign of an exact zero result of a tensor-core sum.
enum class MmaZeroSign {
  ieee,  // IEEE 754 §6.3 for a sum: -0 only when the accumulator and every product are -0
  plus,  // always +0 (a fixed-point adder with no signed zero)
};
// An e4m3 NaN code (0x7F / 0xFF) in A or B.
enum class MmaNanOperand {
  any,              // NaN result whatever the other factor (IEEE: NaN * 0 = NaN)
  nonzero_partner,  // only when the other factor is nonzero (a datapath that skips zero products)
};
// The bits of a NaN result.
enum class MmaNanPayload {
  canonical,  // 0x7FFF, NVIDIA's canonical f16 NaN
  quiet_c,    // a NaN C comes back quieted with its payload (C | 0x0200); other NaNs 0x7FFF
};
// A finite sum that rounds beyond the f16 range (|S| >= 65520), in every rounding inside the mma.
enum class MmaOverflow {
  inf,       // IEEE round to nearest: +-Inf
  saturate,  // +-65504 (an infinite C still gives Inf)
};
struct MmaCorners {
  MmaZeroSign zero_sign = MmaZeroSign::ieee;
  MmaNanOperand nan_operand = MmaNanOperand::any;
  MmaNanPayload nan_payload = MmaNanPayload::canonical;
  MmaOverflow overflow = MmaOverflow::inf;
  bool operator==(const MmaCorners&) const = default;
};

struct Profile {
  std::string_view name;
  MmaAccumulation mma;
  // cvt.rn.satfinite.e4m3x2.f16x2 of a NaN: NVIDIA's host code returns 0x7F for every NaN;
  // d4r's codec / AMD keep the sign (0xFF for a negative NaN). numerics.md "Conversions".
  bool e4m3_nan_keeps_sign;
  MmaCorners corners;
  // Which machine the profile stands for (printed by --help and `rrswin readings`), and whether
  // published hardware measurements back its mma model.
  std::string_view stands_for;
  bool measured;
};

const Profile& profile_ada();
const Profile& profile_zluda();
const Profile& profile_hopper();
const Profile& profile_blackwell();
// Every profile, the default (ada) first.
const std::vector<const Profile*>& all_profiles();
// "ada|zluda|hopper|blackwell" (for usage lines and error messages).
std::string_view profile_names();
// nullptr when the name is not one of all_profiles().
const Profile* find_profile(std::string_view name);

}  // namespace rrswin
