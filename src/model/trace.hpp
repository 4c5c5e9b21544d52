// Traces: any phase's D registers and C seeds, and the epilogue intermediates, per warp and lane,
// in register order (docs/formats.md "trace"). The golden model fills a Trace for one block when
// asked; io/trace_io writes it as binary and as text.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace enc5 {

struct TraceStage {
  // How the text form (io/trace_io) decodes a register besides its hex: the D registers and C
  // seeds of every phase are f16x2, hence the default; operands staged for an mma are e4m3x4.
  enum class Kind : std::uint8_t { f16x2, e4m3x4, f32, u32 };

  std::string name;         // "w1".."w12", "p13c", "p13d", "p21d", "e11.p", "e20.inv", ...
  std::string description;  // one line: what the registers hold and in which order
  int warps = 0;            // warps recorded (warp index 0..warps-1 = %tid.z)
  int lanes = 32;
  int regs = 0;                       // b32 registers per lane
  std::vector<std::uint32_t> values;  // [warp][lane][reg], size warps*lanes*regs
  Kind kind = Kind::f16x2;            // last, so positional aggregate initialisers stay valid
  std::uint32_t& at(int warp, int lane, int reg) { return values[(static_cast<std::size_t>(warp) * lanes + lane) * regs + reg]; }
  std::uint32_t at(int warp, int lane, int reg) const { return values[(static_cast<std::size_t>(warp) * lanes + lane) * regs + reg]; }
};

struct TraceRequest {
  std::vector<std::string> stages;  // names to record; {"all"} records every stage
  int block_x = 0, block_y = 0;     // ctaid of the block to record
  bool wants(const std::string& name) const {
    for (const auto& s : stages)
      if (s == "all" || s == name) return true;
    return false;
  }
};

struct Trace {
  int block_x = 0, block_y = 0;
  std::vector<TraceStage> stages;  // in the kernel's order
};

}  // namespace enc5
