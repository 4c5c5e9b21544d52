// d4r's debug-oracle stages (facts F1, F2): a capture taken with D4R_RRSWIN_DEBUG=w<n> holds one
// phase's registers of warp 0 of every block in a window of the output arena's allocation, at the
// arena pointer (param+48) + the debug base (D4R_RRSWIN_DEBUG_BASE, default 4,000,000). rrswin reads
// that window (hostile bytes: every offset overflow-checked, the window bounded), computes the same
// stage with the golden model's traces (model/trace.hpp, already in d4r's register orders), and
// compares them. docs/captures.md "Debug-oracle stages" describes the layout and the decisions.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/frame.hpp"
#include "capture/capture.hpp"

namespace rrswin::capture {

// facts F1: D4R_RRSWIN_DEBUG_BASE's default (HIP5's "46,000,000" comment is stale).
inline constexpr std::uint64_t kDefaultDebugBase = 4000000;
// facts F1: block = ctaid.x + 5·ctaid.y, and only blocks < 64 store.
inline constexpr int kDebugBlockStride = 5;
inline constexpr int kDebugMaxBlocks = 64;

// One stage of facts F2: its name (as d4r's D4R_RRSWIN_DEBUG=<name> and enc5's trace stage of the
// same name), the phase after which it is stored, and its registers per lane. Register i of the
// payload is register i of enc5's trace stage: reg = 2·ntiles·mi + 2·nt + rh holds (row 16·mi + g +
// 8·rh, columns 8·nt + 2t, +1) as f16x2.
struct DebugStage {
  const char* name;
  int phase;
  int regs;
  int ntiles;           // n-tiles per m-tile in the register order
  bool out_projection;  // false: recorded by the attention part (phases 1..12); true: phase 13
  const char* what;
};
const std::vector<DebugStage>& debug_stages();
const DebugStage* find_debug_stage(std::string_view name);
std::string debug_stage_names();  // "w1, w2, ..., p13d"

// facts F1: one block's slot = max(8192, 128·nregs) rounded up to a power of two.
std::uint64_t debug_slot_bytes(int regs);

// The window of one launch: which debug block index each grid block stores under.
struct DebugWindow {
  const DebugStage* stage = nullptr;
  std::uint64_t debug_base = kDefaultDebugBase;  // bytes from the arena pointer
  std::uint64_t slot = 0;
  int grid_x = 0, grid_y = 0;
  std::uint64_t bytes = 0;  // (largest stored block index + 1) · slot
  // The debug block index of grid block (cx, cy), or -1 when it does not store (index >= 64).
  int block_index(int cx, int cy) const;
};
// Throws std::runtime_error when the grid is wider than 5 (facts F1's index would make blocks
// share slots).
DebugWindow debug_window(const DebugStage& s, std::uint64_t debug_base, int grid_x, int grid_y);
DebugWindow debug_window(const LaunchCapture& c, const DebugStage& s, std::uint64_t debug_base);

// Warp 0's registers of every storing block: regs[(block·32 + lane)·nregs + reg], block in grid
// order (cx + grid_x·cy); stored[block] says whether the block stores (index < 64).
struct StagePayload {
  DebugWindow window;
  std::vector<std::uint32_t> regs;
  std::vector<bool> stored;
  std::string source;  // where it was read from (file and offset), or "enc5"
  std::uint32_t at(int block, int lane, int reg) const {
    return regs[(static_cast<std::size_t>(block) * 32 + lane) * window.stage->regs + reg];
  }
};

// Reads the payload out of a capture: the window must lie inside one buffer of the launch, found
// by device address (facts F4: the arena may be a window of a larger allocation, or sit inside
// another argument's dump): the output allocation first (a replay capture's results/, which is
// the state after the launch), then the launch's other buffers. Errors name the file, the offset,
// the window expected and what was found.
StagePayload read_stage_payload(const LaunchCapture& c, const DebugStage& s, std::uint64_t debug_base);
// enc5's payload: the golden model's trace of the stage for every block of the launch, warp 0.
StagePayload compute_stage_payload(const LaunchCapture& c, const DebugStage& s, std::uint64_t debug_base, const RunOptions& o);
// Stores a payload as the debug oracle does (warp 0, v4 stores) into an output allocation whose
// arena starts at arena_offset; throws when the window does not fit.
void store_stage_payload(std::vector<std::uint8_t>& alloc, std::uint64_t arena_offset, const StagePayload& p, const std::string& what);

// Capture vs enc5, register by register.
struct StageDiff {
  std::string stage;
  int phase = 0;
  std::uint64_t compared = 0, differing = 0;  // registers (u32)
  std::vector<std::uint64_t> per_block;       // differing registers per grid block
  bool found = false;                         // the first difference (lowest debug block index, lane, reg)
  int block_x = 0, block_y = 0, block_index = 0, warp = 0, lane = 0, reg = 0;
  std::uint32_t a = 0, b = 0;  // capture, enc5
  std::string where;           // the register in layout terms
  std::uint32_t max_ulp = 0;   // largest f16 ulp distance of a half
  int grid_x = 1;
  bool identical() const { return differing == 0; }
};
StageDiff diff_stage(const StagePayload& capture, const StagePayload& enc5);
std::string describe(const StageDiff& d);
std::string to_json(const StageDiff& d);

// Parses --stage NAME and --debug-base N (shared by diff, settle, replay, capture).
struct StageChoice {
  const DebugStage* stage = nullptr;
  std::uint64_t debug_base = kDefaultDebugBase;
};

}  // namespace rrswin::capture
