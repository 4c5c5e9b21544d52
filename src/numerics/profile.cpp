// The semantics profiles of numerics.md ("Three profiles of semantics matter to users").
#include "numerics/profile.hpp"

namespace rrswin {

const Profile& profile_ada() {
  // What an NVIDIA Ada GPU computes (the default). The e4m3 NaN byte follows NVIDIA's host
  // emulation (0x7F for every NaN): unmeasured on Ada itself, see docs/readings.md §2.
  static const Profile p{"ada",
                         MmaAccumulation::ada_truncated_halves,
                         /*e4m3_nan_keeps_sign=*/false,
                         MmaCorners{},
                         "NVIDIA Ada (sm_89, RTX 40 / L4 / L40): the kernel's own target",
                         true};
  return p;
}

const Profile& profile_zluda() {
  // d4r's patched ZLUDA on RDNA4: facts D1 (mma) and D3 (NaN -> 0x7F | sign).
  static const Profile p{"zluda",
                         MmaAccumulation::exact_sum_f32_then_f16,
                         /*e4m3_nan_keeps_sign=*/true,
                         MmaCorners{},
                         "d4r's patched ZLUDA on AMD RDNA4 (d4r's debug oracle)",
                         true};
  return p;
}

const Profile& profile_hopper() {
  // NVIDIA H100/H200 (sm_90) and B200 (sm_100): the FP8 mma.sync emulated with two f16 HMMAs and
  // an f16 add of C (numerics.md "hopper", 3 x 3000 measurements in data/hopper-mma-e4m3-f16).
  // cvt.rn.satfinite.e4m3x2.f16x2 is native on sm_89+; its negative-NaN byte is unmeasured, so
  // it follows NVIDIA's host emulation like `ada` (docs/readings.md §2).
  static const Profile p{"hopper",
                         MmaAccumulation::hopper_two_hmma,
                         /*e4m3_nan_keeps_sign=*/false,
                         MmaCorners{},
                         "NVIDIA H100 / H200 (sm_90) and B200 (sm_100): FP8 mma emulated with f16 HMMAs",
                         true};
  return p;
}

const Profile& profile_blackwell() {
  // NVIDIA consumer Blackwell (sm_120: RTX 5090 / 5080 / ...), whose FP8 mma.sync is native: MMA-Sim's
  // model (numerics.md "Consumer Blackwell"; docs/readings.md §3 "blackwell"), with no public
  // measurement behind it. Its corners are the model's: a zero sum is +0 (mma-zero-sign=plus), a NaN
  // operand (NaN x 0 too) or NaN C gives 0x7FFF, C = +-Inf gives C, a sum >= 65520 gives Inf.
  // The e4m3 NaN byte follows NVIDIA's host emulation like `ada` (unmeasured, docs/readings.md §2).
  static const Profile p{"blackwell",
                         MmaAccumulation::blackwell_fused_sum,
                         /*e4m3_nan_keeps_sign=*/false,
                         MmaCorners{MmaZeroSign::plus, MmaNanOperand::any, MmaNanPayload::canonical, MmaOverflow::inf},
                         "NVIDIA consumer Blackwell (sm_120: RTX 5090 / 5080): MMA-Sim's model of its native FP8 mma",
                         false};
  return p;
}

const std::vector<const Profile*>& all_profiles() {
  static const std::vector<const Profile*> k{&profile_ada(), &profile_zluda(), &profile_hopper(), &profile_blackwell()};
  return k;
}

std::string_view profile_names() { return "ada|zluda|hopper|blackwell"; }

const Profile* find_profile(std::string_view name) {
  for (const Profile* p : all_profiles())
    if (p->name == name) return p;
  return nullptr;
}

}  // namespace rrswin
