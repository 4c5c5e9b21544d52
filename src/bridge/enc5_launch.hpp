// enc5's launch run by the PTX interpreter: the 144-byte parameter block (facts A4, mirroring
// api/frame.hpp LaunchParams), the grid ceil((ex+ox)/8) x ceil((ey+oy)/8) of (32,1,8) blocks
// (facts A2), from the frame API's inputs or from a replay capture's arguments and allocations.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "api/frame.hpp"
#include "capture/capture.hpp"
#include "ptx/ptx.hpp"

namespace rrswin::ptx {

inline constexpr const char* kEnc5Entry = abi::kKernelName;  // model/launch_abi.hpp
inline constexpr Dim3 kEnc5Block{abi::kBlockX, abi::kBlockY, abi::kBlockZ};

struct Enc5Args {
  std::uint32_t ex = 0, ey = 0;
  std::uint64_t input = 0, weights = 0, output = 0;  // device (interpreter) addresses
  std::uint16_t ox = 0, oy = 0;
  std::uint64_t texture = 0, surface = 0;  // object handles
};
// The parameter block: +0 ex, +4 ey (u32), +8 input, +40 weights, +48 output (u64), +80 ox, +82 oy
// (u16), +88 texture, +112 surface (u64); every other byte zero (facts A4).
std::vector<std::uint8_t> enc5_param_block(const Enc5Args& a);
Dim3 enc5_grid(std::uint32_t ex, std::uint32_t ey, std::uint32_t ox, std::uint32_t oy);

// Runs `entry` on the frame API's launch (p.grid_x/grid_y as run_frame reads them).
RunStats run_enc5_frame(const Module& m, std::string_view entry, const LaunchParams& p, const RunOptions& o);
// Runs `entry` on a capture, as capture::replay_launch runs enc5: the arena window and the
// surface's ex x ey texels start from zeros, everything else is the capture's.
capture::ReplayOutputs run_enc5_capture(const Module& m, std::string_view entry, const capture::LaunchCapture& c, const RunOptions& o,
                                        RunStats* stats = nullptr);

}  // namespace rrswin::ptx
