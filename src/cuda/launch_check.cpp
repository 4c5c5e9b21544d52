#include "cuda/launch_check.hpp"

#include "cuda/enc5_params.hpp"

namespace rrswin::cuda {

std::string unsupported_reading(const Readings& r) {
  for (const ReadingInfo& info : reading_registry()) {
    const std::string want = reading_value(kKernelReadings, info.name), got = reading_value(r, info.name);
    if (want != got)
      return "the CUDA kernel implements " + info.name + "=" + want + " only (asked: " + got +
             "); rebuild it with kKernelReadings changed (src/cuda/enc5_params.hpp) where the reading is an index map";
  }
  return {};
}

std::string profile_for_compute_capability(int major, int minor) {
  if (major == 8 && minor == 9) return "ada";         // numerics.md: the ada profile models Ada (sm_89)
  if (major == 9 || major == 10) return "hopper";     // sm_90 / sm_100: the hopper profile
  if (major == 12 && minor == 0) return "blackwell";  // sm_120 (RTX 50): MMA-Sim's model, unmeasured
  return {};
}

}  // namespace rrswin::cuda
