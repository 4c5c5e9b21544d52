// Host-side checks of a launch of the CUDA kernel (src/cuda/enc5_kernel.cu): the readings it
// implements and the profile that matches a device. Shared by the GPU launcher and the tests.
#pragma once
#include <string>

#include "model/readings.hpp"

namespace rrswin::cuda {

// "" when every reading of `r` is the kernel's (kKernelReadings); otherwise a message naming the
// first reading that differs, its value and the kernel's, e.g.
// "the CUDA kernel implements filter-border=reflect101 only (asked: clamp)".
std::string unsupported_reading(const Readings& r);

// The semantics profile that models a device of compute capability major.minor: "ada" for 8.9,
// "hopper" for 9.x and 10.x, "blackwell" for 12.0, "" for others (the caller reports which).
std::string profile_for_compute_capability(int major, int minor);

}  // namespace rrswin::cuda
