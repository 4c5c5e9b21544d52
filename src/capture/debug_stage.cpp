// d4r's debug-oracle stages (facts F1, F2, F4): the window layout, reading it from a capture
// (every number hostile), enc5's own payload from the golden model's traces, and the comparison.
#include "capture/debug_stage.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "base/errors.hpp"
#include "base/little_endian.hpp"
#include "capture/diff.hpp"
#include "io/files.hpp"
#include "io/links.hpp"
#include "layout/arena.hpp"
#include "model/layer.hpp"
#include "model/trace.hpp"
#include "numerics/f16.hpp"

namespace rrswin::capture {
namespace {

namespace fs = std::filesystem;

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// a + b without wrapping.
bool add_ok(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
  if (a > UINT64_MAX - b) return false;
  out = a + b;
  return true;
}

// [start, start + len) inside [base, base + size)?
bool holds(std::uint64_t base, std::uint64_t size, std::uint64_t start, std::uint64_t len) {
  return start >= base && start - base <= size && size - (start - base) >= len;
}

}  // namespace

// --- the stages of facts F2 ----------------------------------------------------------------------

const std::vector<DebugStage>& debug_stages() {
  // F2: w1..w10 `%r{base + 40mi + 10nt + rh}` (6 m-tiles x 4 n-tiles x 2 halves = 48, m-tile major);
  // w11 `%r{7862 + 120mi + 10nt + rh}` (4 x 12 x 2 = 96); w12 the last k-step of each P·V chain
  // (4 x 4 x 2 = 32); p13c / p13d phase 13's 40 C seeds / D (20 n-tiles x 2).
  static const std::vector<DebugStage> stages = [] {
    // The register counts are the golden model's stage shapes (model/trace.hpp) at enc5's sizes.
    auto regs = [](StageKind k) { return stage_shape(k, 160, 8).regs; };
    std::vector<DebugStage> v;
    static const char* names[] = {"w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "w9", "w10"};
    for (int p = 1; p <= 10; ++p)
      v.push_back({names[p - 1], p, regs(StageKind::stem_d), 4, false, "D of phase 1..10 (head 0 = warp 0), rows 0..95"});
    v.push_back({"w11", 11, regs(StageKind::score_d), 12, false, "D of phase 11, the score (head 0), queries 0..63 x keys 0..95"});
    v.push_back({"w12", 12, regs(StageKind::pv_d), 4, false, "D of phase 12, P·V (head 0), rows 0..63"});
    v.push_back({"p13c", 13, regs(StageKind::row_tile), 20, true, "C seeds of phase 13 (warp 0: rows 0..15)"});
    v.push_back({"p13d", 13, regs(StageKind::row_tile), 20, true, "D of phase 13 (warp 0: rows 0..15)"});
    return v;
  }();
  return stages;
}

const DebugStage* find_debug_stage(std::string_view name) {
  for (const DebugStage& s : debug_stages())
    if (name == s.name) return &s;
  return nullptr;
}

std::string debug_stage_names() {
  std::string s;
  for (const DebugStage& d : debug_stages()) s += (s.empty() ? "" : ", ") + std::string(d.name);
  return s;
}

std::uint64_t debug_slot_bytes(int regs) {
  std::uint64_t slot = 1;
  const std::uint64_t need = std::max<std::uint64_t>(8192, 128ull * static_cast<std::uint64_t>(regs));
  while (slot < need) slot <<= 1;
  return slot;
}

int DebugWindow::block_index(int cx, int cy) const {
  const int i = cx + kDebugBlockStride * cy;
  return i < kDebugMaxBlocks ? i : -1;
}

DebugWindow debug_window(const DebugStage& s, std::uint64_t debug_base, int grid_x, int grid_y) {
  if (grid_x > kDebugBlockStride)
    throw std::runtime_error(
        "the debug oracle stores block ctaid.x + 5·ctaid.y (facts F1), which is one slot per block only for a grid at "
        "most 5 blocks wide; this launch's grid is " +
        std::to_string(grid_x) + "x" + std::to_string(grid_y));
  DebugWindow w;
  w.stage = &s;
  w.debug_base = debug_base;
  w.slot = debug_slot_bytes(s.regs);
  w.grid_x = grid_x;
  w.grid_y = grid_y;
  int last = -1;
  for (int cy = 0; cy < grid_y; ++cy)
    for (int cx = 0; cx < grid_x; ++cx) last = std::max(last, w.block_index(cx, cy));
  w.bytes = static_cast<std::uint64_t>(last + 1) * w.slot;
  return w;
}

DebugWindow debug_window(const LaunchCapture& c, const DebugStage& s, std::uint64_t debug_base) {
  const GridExtent cover = covering_grid(c.ex, c.ey, static_cast<std::uint32_t>(c.ox), static_cast<std::uint32_t>(c.oy));
  const int gx = c.grid_x ? static_cast<int>(c.grid_x) : static_cast<int>(cover.x);
  const int gy = c.grid_y ? static_cast<int>(c.grid_y) : static_cast<int>(cover.y);
  return debug_window(s, debug_base, gx, gy);
}

// --- reading a capture's window ------------------------------------------------------------------

StagePayload read_stage_payload(const LaunchCapture& c, const DebugStage& s, std::uint64_t debug_base) {
  StagePayload p;
  p.window = debug_window(c, s, debug_base);
  const DebugWindow& w = p.window;
  // The window's device address: the arena pointer (param+48 = allocation base + pointer offset)
  // plus the debug base (facts F1).
  std::uint64_t arena = 0, start = 0;
  if (!add_ok(c.output.base, c.output.offset, arena) || !add_ok(arena, debug_base, start))
    throw InputError(c.output.file, 0, "an arena pointer + debug base below 2^64",
                     "allocation base " + hex(c.output.base) + " + pointer offset " + std::to_string(c.output.offset) + " + debug base " +
                         std::to_string(debug_base));
  // The buffers of the launch that may hold it, by device address (facts F4): the output
  // allocation after the launch first; with known addresses (base0x tokens), the others.
  struct Candidate {
    std::string file;
    std::uint64_t base = 0, size = 0;
    const std::vector<std::uint8_t>* bytes = nullptr;  // null: read `file` when it holds the window
  };
  std::vector<Candidate> cand;
  const std::vector<std::uint8_t>* out_after = c.results ? &c.results->output_alloc : nullptr;
  if (!out_after)
    throw InputError(c.output.file, 0, "the output allocation after the launch (the debug payload is stored during the launch)",
                     "a replay capture without results/ (its allocations are the state before the launch, facts F6)");
  cand.push_back({c.results && c.form == Form::replay ? c.output.file + " (results/ arg048)" : c.output.file, c.output.base,
                  out_after->size(), out_after});
  const bool addresses_known = c.output.base != 0;  // a device address of 0 would be a null pointer
  if (addresses_known && c.form == Form::launch_dump) {
    for (const std::string& f : c.passthrough) {  // arg008, arg040 and every other file of the launch
      const auto n = parse_dump_name(fs::path(f).filename().string());
      if (!n || n->kind != "buffer") continue;
      const auto base = shape_base(n->shape);
      std::error_code ec;
      const auto size = fs::file_size(f, ec);
      if (!ec && base && *base != 0) cand.push_back({f, *base, size, nullptr});
    }
  }
  for (const Candidate& k : cand) {
    if (!holds(k.base, k.size, start, w.bytes)) continue;
    const std::uint64_t at = start - k.base;
    std::vector<std::uint8_t> loaded;
    const std::vector<std::uint8_t>* bytes = k.bytes;
    if (!bytes) {
      loaded = read_file_no_link(k.file);  // never through a link (io/links.hpp)
      if (loaded.size() != k.size)
        throw InputError(k.file, std::min<std::uint64_t>(loaded.size(), k.size), std::to_string(k.size) + " bytes",
                         std::to_string(loaded.size()) + " bytes (the file changed)");
      bytes = &loaded;
    }
    p.source = k.file + " at byte offset " + std::to_string(at);
    const int blocks = w.grid_x * w.grid_y;
    p.regs.assign(static_cast<std::size_t>(blocks) * 32 * s.regs, 0);
    p.stored.assign(blocks, false);
    for (int b = 0; b < blocks; ++b) {
      const int idx = w.block_index(b % w.grid_x, b / w.grid_x);
      if (idx < 0) continue;
      p.stored[b] = true;
      // facts F1: block·slot + L·nregs·4; idx·slot + 32·nregs·4 <= window bytes by construction.
      const std::uint8_t* blk = bytes->data() + at + static_cast<std::uint64_t>(idx) * w.slot;
      for (int lane = 0; lane < 32; ++lane)
        for (int r = 0; r < s.regs; ++r)
          p.regs[(static_cast<std::size_t>(b) * 32 + lane) * s.regs + r] =
              load_le32(blk + (static_cast<std::size_t>(lane) * s.regs + r) * 4);
    }
    return p;
  }
  std::string others;
  for (std::size_t i = 1; i < cand.size(); ++i)
    others += (others.empty() ? "" : ", ") + fs::path(cand[i].file).filename().string() + " [" + hex(cand[i].base) + ", +" +
              std::to_string(cand[i].size) + ")";
  std::uint64_t expected_end = 0;
  const bool end_ok = add_ok(c.output.offset, debug_base, expected_end) && add_ok(expected_end, w.bytes, expected_end);
  throw InputError(
      cand[0].file, c.output.offset + std::min<std::uint64_t>(debug_base, UINT64_MAX - c.output.offset),
      "the " + std::string(s.name) + " debug window of " + std::to_string(w.bytes) + " bytes (" + std::to_string(w.bytes / w.slot) +
          " block slots of " + std::to_string(w.slot) + " bytes) at the arena pointer + debug base " + std::to_string(debug_base) +
          " (facts F1), i.e. an output allocation of at least " + (end_ok ? std::to_string(expected_end) : std::string("2^64")) +
          " bytes or a buffer of the launch holding device addresses [" + hex(start) + ", +" + std::to_string(w.bytes) + ")",
      "an output allocation of " + std::to_string(cand[0].size) + " bytes (pointer offset " + std::to_string(c.output.offset) + ")" +
          (others.empty() ? std::string(" and no other buffer with known addresses") : ", and " + others) +
          " (was the capture taken with D4R_RRSWIN_DEBUG=" + s.name + "? is D4R_RRSWIN_DEBUG_BASE --debug-base?)");
}

// --- enc5's payload ------------------------------------------------------------------------------

StagePayload compute_stage_payload(const LaunchCapture& c, const DebugStage& s, std::uint64_t debug_base, const RunOptions& o) {
  StagePayload p;
  p.window = debug_window(c, s, debug_base);
  p.source = "enc5";
  const LaunchInputs in = launch_inputs(c);
  const std::size_t n = arena_window_bytes(c);
  std::vector<std::uint8_t> scratch(n, 0);
  Surface surface = Surface::make(static_cast<int>(c.ex), static_cast<int>(c.ey));
  LaunchParams lp = frame_launch(c.ex, c.ey, std::span<const std::uint8_t>(c.input.bytes).subspan(c.input.offset, n), in.weights, scratch,
                                 in.texture, surface);
  lp.block_offset_x = c.ox;
  lp.block_offset_y = c.oy;
  lp.grid_x = static_cast<std::uint32_t>(p.window.grid_x);
  lp.grid_y = static_cast<std::uint32_t>(p.window.grid_y);
  const auto traces = trace_every_block(lp, o, {s.name}, s.phase);
  const int blocks = p.window.grid_x * p.window.grid_y;
  p.regs.assign(static_cast<std::size_t>(blocks) * 32 * s.regs, 0);
  p.stored.assign(blocks, false);
  for (int b = 0; b < blocks; ++b) {
    p.stored[b] = p.window.block_index(b % p.window.grid_x, b / p.window.grid_x) >= 0;
    const TraceStage* st = nullptr;
    for (const TraceStage& t : traces[b].stages)
      if (t.name == s.name) st = &t;
    // The golden model's stage and facts F2 must agree on the shape: a mismatch is a bug here.
    if (!st || st->lanes != 32 || st->regs != s.regs || st->warps < 1)
      throw std::logic_error(std::string("enc5's trace has no stage ") + s.name + " of " + std::to_string(s.regs) +
                             " registers per lane (facts F2)");
    // Only %tid.z == 0 stores (facts F1): warp 0.
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < s.regs; ++r) p.regs[(static_cast<std::size_t>(b) * 32 + lane) * s.regs + r] = st->at(0, lane, r);
  }
  return p;
}

void store_stage_payload(std::vector<std::uint8_t>& alloc, std::uint64_t arena_offset, const StagePayload& p, const std::string& what) {
  const DebugWindow& w = p.window;
  std::uint64_t at = 0;
  if (!add_ok(arena_offset, w.debug_base, at) || !holds(0, alloc.size(), at, w.bytes))
    throw std::runtime_error(what + ": the " + std::string(w.stage->name) + " debug window of " + std::to_string(w.bytes) +
                             " bytes at arena offset " + std::to_string(arena_offset) + " + debug base " + std::to_string(w.debug_base) +
                             " does not fit in the output allocation of " + std::to_string(alloc.size()) + " bytes");
  const int regs = w.stage->regs;
  for (int b = 0; b < w.grid_x * w.grid_y; ++b) {
    const int idx = w.block_index(b % w.grid_x, b / w.grid_x);
    if (idx < 0) continue;
    std::uint8_t* blk = alloc.data() + at + static_cast<std::uint64_t>(idx) * w.slot;
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < regs; ++r) {
        const std::uint32_t v = p.at(b, lane, r);
        store_le32(blk + (static_cast<std::size_t>(lane) * regs + r) * 4, v);
      }
  }
}

// --- comparison ----------------------------------------------------------------------------------

StageDiff diff_stage(const StagePayload& a, const StagePayload& b) {
  const DebugWindow& w = a.window;
  const DebugStage& s = *w.stage;
  if (b.window.stage != w.stage || b.window.grid_x != w.grid_x || b.window.grid_y != w.grid_y)
    throw std::logic_error("diff_stage: payloads of different stages or grids");
  StageDiff d;
  d.stage = s.name;
  d.phase = s.phase;
  d.grid_x = w.grid_x;
  const int blocks = w.grid_x * w.grid_y;
  d.per_block.assign(blocks, 0);
  // Grid order cy-major is the debug index order (a grid at most 5 wide): the first difference is
  // at the lowest debug block index, then lane, then register.
  for (int blk = 0; blk < blocks; ++blk) {
    if (!a.stored[blk]) continue;
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < s.regs; ++r) {
        ++d.compared;
        const std::uint32_t x = a.at(blk, lane, r), y = b.at(blk, lane, r);
        if (x == y) continue;
        ++d.differing;
        ++d.per_block[blk];
        for (int h = 0; h < 2; ++h) {
          const int dist =
              std::abs(f16_ordinal(static_cast<std::uint16_t>(x >> 16 * h)) - f16_ordinal(static_cast<std::uint16_t>(y >> 16 * h)));
          d.max_ulp = std::max<std::uint32_t>(d.max_ulp, static_cast<std::uint32_t>(dist));
        }
        if (d.found) continue;
        d.found = true;
        d.block_x = blk % w.grid_x;
        d.block_y = blk / w.grid_x;
        d.block_index = w.block_index(d.block_x, d.block_y);
        d.warp = 0;
        d.lane = lane;
        d.reg = r;
        d.a = x;
        d.b = y;
        const int per_mtile = 2 * s.ntiles, mi = r / per_mtile, nt = (r / 2) % s.ntiles, rh = r & 1;
        const int g = lane >> 2, t = lane & 3, row = 16 * mi + g + 8 * rh, col = 8 * nt + 2 * t;
        d.where = "m-tile " + std::to_string(mi) + ", n-tile " + std::to_string(nt) + ", half " + std::to_string(rh) + ": row " +
                  std::to_string(row) + ", columns " + std::to_string(col) + ", " + std::to_string(col + 1);
      }
  }
  return d;
}

namespace {
std::string reg_text(std::uint32_t v) {
  char b[96];
  std::snprintf(b, sizeof b, "0x%08x (f16 %.6g, %.6g)", v, f16_to_f64(static_cast<f16_t>(v)), f16_to_f64(static_cast<f16_t>(v >> 16)));
  return b;
}
}  // namespace

std::string describe(const StageDiff& d) {
  std::string s = "stage " + d.stage + " (phase " + std::to_string(d.phase) + "): " + std::to_string(d.differing) + " of " +
                  std::to_string(d.compared) + " registers differ";
  if (!d.found) return s + "\n";
  s += ", largest " + std::to_string(d.max_ulp) + " f16 ulp\n";
  s += "  first: phase " + std::to_string(d.phase) + ", block (" + std::to_string(d.block_x) + ", " + std::to_string(d.block_y) +
       ") [debug block " + std::to_string(d.block_index) + "], warp " + std::to_string(d.warp) + ", lane " + std::to_string(d.lane) +
       ", register " + std::to_string(d.reg) + " (" + d.where + ")\n";
  s += "    capture " + reg_text(d.a) + "\n    rrswin  " + reg_text(d.b) + "\n";
  s += "  differing registers per block:";
  for (std::size_t b = 0; b < d.per_block.size(); ++b)
    if (d.per_block[b])
      s += " (" + std::to_string(b % d.grid_x) + ", " + std::to_string(b / d.grid_x) + ") " + std::to_string(d.per_block[b]);
  return s + "\n";
}

std::string to_json(const StageDiff& d) {
  std::string s = "{\"stage\": " + json_escape(d.stage) + ", \"phase\": " + std::to_string(d.phase) +
                  ", \"compared\": " + std::to_string(d.compared) + ", \"differing\": " + std::to_string(d.differing) +
                  ", \"identical\": " + (d.identical() ? "true" : "false") + ", \"max_ulp\": " + std::to_string(d.max_ulp) +
                  ", \"first\": ";
  if (d.found) {
    char b[256];
    std::snprintf(
        b, sizeof b,
        "{\"phase\": %d, \"block\": [%d, %d], \"debug_block\": %d, \"warp\": %d, \"lane\": %d, \"reg\": %d, \"capture\": %u, \"rrswin\": %u, ",
        d.phase, d.block_x, d.block_y, d.block_index, d.warp, d.lane, d.reg, d.a, d.b);
    s += b + std::string("\"where\": ") + json_escape(d.where) + "}";
  } else {
    s += "null";
  }
  s += ", \"per_block\": [";
  for (std::size_t i = 0; i < d.per_block.size(); ++i) s += (i ? ", " : "") + std::to_string(d.per_block[i]);
  return s + "]}";
}

}  // namespace rrswin::capture
