// `enc5 ptx run | trace | stats`: the PTX interpreter (src/ptx, docs/ptx.md) on the original
// kernel's PTX (the corpus file) or on any PTX with enc5's 144-byte parameter block, with the
// inputs `enc5 run` takes or a replay capture's arguments.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "bridge/enc5_launch.hpp"
#include "capture/capture.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "cli/frame_inputs.hpp"
#include "io/arena_io.hpp"
#include "io/files.hpp"
#include "io/frame_io.hpp"
#include "layout/arena.hpp"
#include "ptx/ptx.hpp"

namespace enc5::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPtxHelp = R"(usage: enc5 ptx run   FILE.ptx [--entry NAME] [INPUTS | --capture CAP] -o DIR [--profile P] [--threads N]
       enc5 ptx trace FILE.ptx [--entry NAME] --at sNNNN|LNNNNN --reg %%rX[,%%rY...] --block X,Y
                      [INPUTS | --capture CAP] [-o DIR] [--profile P]
       enc5 ptx stats FILE.ptx [--entry NAME] [--check-seed-pairs]
       enc5 ptx bench FILE.ptx [--entry NAME] [INPUTS] [--repeat N] [--profile P] [--threads N]

Runs a kernel's PTX in enc5's PTX interpreter (docs/ptx.md): every instruction for the 32 lanes of
a warp, warps of a CTA until bar.sync, CTAs on threads; NVIDIA's arithmetic from src/numerics under
the profile. For enc5's entry (default %s, or the file's only entry) it builds the 144-byte
parameter block (facts A4) and runs the grid ceil((ex+ox)/8) x ceil((ey+oy)/8) of (32,1,8) blocks.

run: writes what `enc5 run` writes (arena.bin, surface.exr) from the same inputs, so `enc5 diff`
  compares the interpreted kernel with enc5's model directly; with --capture CAP it runs a
  capture's arguments and writes what `enc5 replay` writes (a replay folder in launch-dump naming,
  which `enc5 settle` and `enc5 diff` take as a capture of this kernel).
trace: the registers after statement sNNNN (the seed's numbering: statements of the entry body, a
  braced block and a multi-line instruction one each, numbered at their first line) or file line
  LNNNNN executes, per warp and lane, each time, in CTA X,Y. Text on stdout, or trace.txt and
  trace.bin (docs/formats.md "PTX traces") into -o DIR.
stats: instruction histogram, registers by type, shared/local/param bytes, mma count, statements.
  --check-seed-pairs checks the seed's statement/line pairs (s1 = L1018, s4 = L1032, s5 = L1033,
  s9 = L1037, s15 = L1043, s7511 = L11833) against the file: run it on the corpus file
  0018-PREPASS_ENTRYPOINT_NAME.ptx to confirm the numbering rule (exit 1 on a mismatch).
bench: runs the launch --repeat times (default 3) and reports the best wall time, lane-instructions
  per second and mma per second (docs/performance.md "PTX interpreter").

INPUTS (as enc5 run):
%s
options:
  --entry NAME          the entry to run
  --capture CAP         a replay capture or launch-dump folder (enc5 replay reads the same)
  -o, --out DIR         output folder
  --profile ada|zluda|hopper
                        instruction semantics (default ada; as enc5 run)
  --threads N           CTAs in parallel (default 0 = all hardware threads); output is identical
  --repeat N            bench: runs (default 3)
  --max-instructions N  per warp, before a run is stopped as an endless loop (default 400000000)
  -h, --help            this text
)";

struct PtxArgs : FrameInputOptions {
  std::string sub, file, entry, capture, out_dir, at;
  std::vector<std::string> regs;
  bool have_block = false;
  int bx = 0, by = 0;
  std::string profile = "ada";
  int threads = 0;
  long long max_instructions = 400'000'000;
  bool check_pairs = false;
  int repeat = 3;
  bool help = false;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, ','))
    if (!t.empty()) out.push_back(t);
  return out;
}

PtxArgs parse(const Args& args) {
  PtxArgs a;
  OptionCursor cur(args);
  while (cur.next()) {
    const std::string& opt = cur.name;
    if (!cur.is_option()) {
      if (a.sub.empty()) a.sub = opt;
      else if (a.file.empty()) a.file = opt;
      else throw UsageError("unexpected argument '" + opt + "'");
    } else if (opt == "-h" || opt == "--help") {
      a.help = true;
    } else if (opt == "--entry") {
      a.entry = cur.take();
    } else if (opt == "--capture") {
      a.capture = cur.take();
    } else if (opt == "-o" || opt == "--out") {
      a.out_dir = cur.take();
      if (a.out_dir.empty()) throw UsageError(opt + ": empty folder name");
    } else if (opt == "--profile") {
      a.profile = cur.take();
      if (!find_profile(a.profile)) throw UsageError("--profile: expected " + std::string(profile_names()) + ", got '" + a.profile + "'");
    } else if (opt == "--threads") {
      a.threads = static_cast<int>(parse_int(opt, cur.take(), 0, kThreadsMax));
    } else if (opt == "--max-instructions") {
      a.max_instructions = parse_int(opt, cur.take(), 1, 1ll << 50);
    } else if (opt == "--at") {
      a.at = cur.take();
    } else if (opt == "--reg") {
      a.regs = split_list(cur.take());
    } else if (opt == "--block") {
      const auto [x, y] = parse_pair(opt, cur.take(), 0, kExtentMax);
      a.have_block = true;
      a.bx = static_cast<int>(x);
      a.by = static_cast<int>(y);
    } else if (opt == "--repeat") {
      a.repeat = static_cast<int>(parse_int(opt, cur.take(), 1, 1000));
    } else if (opt == "--check-seed-pairs") {
      cur.flag();
      a.check_pairs = true;
    } else if (a.handle_input(cur)) {
    } else {
      throw UsageError("unknown option '" + opt + "'");
    }
  }
  if (a.help) return a;
  if (a.sub != "run" && a.sub != "trace" && a.sub != "stats" && a.sub != "bench")
    throw UsageError("expected run, trace, stats or bench, got '" + a.sub + "'");
  if (a.file.empty()) throw UsageError("no PTX file given");
  if (a.sub == "run" && a.out_dir.empty()) throw UsageError("no output folder: add -o DIR");
  if (a.sub == "trace") {
    if (a.at.empty()) throw UsageError("trace needs --at sNNNN or LNNNNN");
    if (a.regs.empty()) throw UsageError("trace needs --reg %rX[,...]");
    if (!a.have_block) throw UsageError("trace needs --block X,Y");
  }
  const bool inputs_given = !a.weights_file.empty() || !a.input_file.empty() || !a.texture_file.empty() || a.stress || a.seed != 1 ||
                            a.ex != 40 || a.ey != 23 || a.ox != 0 || a.oy != 0;
  if (!a.capture.empty() && inputs_given) throw UsageError("--capture takes every input from the capture: drop the frame options");
  return a;
}

std::string pick_entry(const ptx::Module& m, const PtxArgs& a) {
  if (!a.entry.empty()) return a.entry;
  const auto names = ptx::entry_names(m);
  for (const auto& n : names)
    if (n == ptx::kEnc5Entry) return n;
  if (names.size() == 1) return names[0];
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw UsageError("the file has " + std::to_string(names.size()) + " entries (" + list + "): choose one with --entry");
}

ptx::RunOptions run_options(const PtxArgs& a) {
  ptx::RunOptions o;
  o.profile = find_profile(a.profile);
  o.threads = a.threads;
  o.max_warp_instructions = static_cast<std::uint64_t>(a.max_instructions);
  return o;
}

void report(const char* what, const ptx::RunStats& st, double s) {
  std::printf("%s: %llu CTAs, %llu warp instructions, %llu lane instructions, %llu mma in %.3f s (%.1f M lane-instructions/s)\n", what,
              static_cast<unsigned long long>(st.ctas), static_cast<unsigned long long>(st.warp_instructions),
              static_cast<unsigned long long>(st.lane_instructions), static_cast<unsigned long long>(st.mma), s,
              s > 0 ? st.lane_instructions / s / 1e6 : 0.0);
}

// Runs on the frame inputs or the capture; fills outputs for `run`.
struct Outcome {
  bool from_capture = false;
  capture::LaunchCapture cap;
  capture::ReplayOutputs replay;
  std::vector<std::uint8_t> arena;
  Surface surface;
  int ex = 0, ey = 0;
};

Outcome execute(const ptx::Module& m, const std::string& entry, const PtxArgs& a, const ptx::RunOptions& o) {
  Outcome r;
  const auto t0 = std::chrono::steady_clock::now();
  ptx::RunStats st;
  if (!a.capture.empty()) {
    auto launches = capture::load_captures(a.capture);
    if (launches.size() != 1)
      throw UsageError("--capture: " + a.capture + " holds " + std::to_string(launches.size()) + " launches; give one capture folder");
    r.from_capture = true;
    r.cap = std::move(launches.front());
    r.ex = static_cast<int>(r.cap.ex);
    r.ey = static_cast<int>(r.cap.ey);
    std::printf("enc5 ptx %s: %s, entry %s, capture %s (ex %u, ey %u, block offset (%u, %u)), profile %s\n", a.sub.c_str(), a.file.c_str(),
                entry.c_str(), a.capture.c_str(), r.cap.ex, r.cap.ey, r.cap.ox, r.cap.oy, a.profile.c_str());
    std::fflush(stdout);
    r.replay = ptx::run_enc5_capture(m, entry, r.cap, o, &st);
  } else {
    FrameInputs in = load_frame_inputs(a);
    r.ex = a.ex;
    r.ey = a.ey;
    r.arena.assign(layout::PlaneArena{a.ex, a.ey}.total_bytes(), 0);
    r.surface = Surface::make(a.ex, a.ey);
    LaunchParams p;
    p.ex = static_cast<std::uint32_t>(a.ex);
    p.ey = static_cast<std::uint32_t>(a.ey);
    p.input_arena = in.input;
    p.weights = &in.weights();
    p.output_arena = r.arena;
    p.block_offset_x = static_cast<std::uint16_t>(a.ox);
    p.block_offset_y = static_cast<std::uint16_t>(a.oy);
    p.texture = &in.texture;
    p.surface = &r.surface;
    const ptx::Dim3 g = ptx::enc5_grid(p.ex, p.ey, p.block_offset_x, p.block_offset_y);
    std::printf("enc5 ptx %s: %s, entry %s, ex %d, ey %d, grid %ux%u, block offset (%d, %d), profile %s\n  weights: %s\n  input:   %s\n  texture: %s\n",
                a.sub.c_str(), a.file.c_str(), entry.c_str(), a.ex, a.ey, g.x, g.y, a.ox, a.oy, a.profile.c_str(), in.weights_what.c_str(),
                in.input_what.c_str(), in.texture_what.c_str());
    std::fflush(stdout);
    st = ptx::run_enc5_frame(m, entry, p, o);
  }
  report("interpreted", st, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return r;
}

void written(const std::string& p) {
  std::error_code ec;
  const auto size = fs::file_size(p, ec);
  std::printf("wrote %s (%llu bytes)\n", p.c_str(), static_cast<unsigned long long>(ec ? 0 : size));
}

int cmd_run_ptx(const PtxArgs& a) {
  const auto m = ptx::load_module(a.file);
  const std::string entry = pick_entry(*m, a);
  Outcome r = execute(*m, entry, a, run_options(a));
  if (r.from_capture) {
    for (const auto& p : capture::write_replay_outputs(a.out_dir, r.cap, r.replay)) std::printf("wrote %s\n", p.c_str());
    return 0;
  }
  fs::create_directories(a.out_dir);
  const std::string arena = (fs::path(a.out_dir) / "arena.bin").string(), surf = (fs::path(a.out_dir) / "surface.exr").string();
  write_plane_arena(arena, r.arena, r.ex, r.ey);
  written(arena);
  write_surface_exr(surf, r.surface);
  written(surf);
  return 0;
}

// Trace text: one block per event, a line per register with its 32 lane values (hex, by width).
std::string trace_text(const ptx::TraceResult& t, const std::string& file, const std::string& at, int bx, int by) {
  std::ostringstream o;
  o << "# enc5 ptx trace of " << file << " at " << at << " (line " << t.line << "), CTA (" << bx << "," << by << ",0)\n";
  o << "# per event: warp, occurrence in that warp, active lanes; then each register's lanes 0..31 (hex)\n";
  for (const auto& e : t.events) {
    char head[96];
    std::snprintf(head, sizeof head, "warp %u #%llu active %08x\n", e.warp, static_cast<unsigned long long>(e.sequence), e.active);
    o << head;
    for (std::size_t k = 0; k < t.registers.size(); ++k) {
      o << "  " << t.registers[k] << ":";
      const int digits = t.widths[k] == 1 ? 1 : static_cast<int>((t.widths[k] + 3) / 4);
      for (int l = 0; l < 32; ++l) {
        char v[24];
        std::snprintf(v, sizeof v, " %0*llx", digits, static_cast<unsigned long long>(e.values[k][l]));
        o << v;
      }
      o << "\n";
    }
  }
  return o.str();
}

// Trace binary (docs/formats.md "PTX traces"): "E5PTXTR1", u32 line, u32 nregs, u32 events, then per
// register u32 width, u32 name length, name bytes; then per event u32 warp, u32 active, u64
// occurrence, nregs x 32 u64 values. Little endian.
std::vector<std::uint8_t> trace_binary(const ptx::TraceResult& t) {
  std::vector<std::uint8_t> b = {'E', '5', 'P', 'T', 'X', 'T', 'R', '1'};
  auto put = [&](auto v) {
    const std::size_t o = b.size();
    b.resize(o + sizeof v);
    std::memcpy(b.data() + o, &v, sizeof v);
  };
  put(t.line);
  put(static_cast<std::uint32_t>(t.registers.size()));
  put(static_cast<std::uint32_t>(t.events.size()));
  for (std::size_t k = 0; k < t.registers.size(); ++k) {
    put(t.widths[k]);
    put(static_cast<std::uint32_t>(t.registers[k].size()));
    for (const char ch : t.registers[k]) b.push_back(static_cast<std::uint8_t>(ch));
  }
  for (const auto& e : t.events) {
    put(e.warp);
    put(e.active);
    put(e.sequence);
    for (const auto& r : e.values)
      for (std::uint64_t v : r) put(v);
  }
  return b;
}

int cmd_trace_ptx(const PtxArgs& a) {
  const auto m = ptx::load_module(a.file);
  const std::string entry = pick_entry(*m, a);
  ptx::TraceSpec ts;
  if (a.at.size() > 1 && (a.at[0] == 's' || a.at[0] == 'S'))
    ts.statement = static_cast<std::uint32_t>(parse_int("--at", a.at.substr(1), 1, 1 << 30));
  else if (a.at.size() > 1 && (a.at[0] == 'L' || a.at[0] == 'l'))
    ts.line = static_cast<std::uint32_t>(parse_int("--at", a.at.substr(1), 1, 1 << 30));
  else
    throw UsageError("--at: expected sNNNN (statement) or LNNNNN (line), got '" + a.at + "'");
  ts.registers = a.regs;
  ts.cta = {static_cast<std::uint32_t>(a.bx), static_cast<std::uint32_t>(a.by), 0};
  ptx::TraceResult tr;
  ptx::RunOptions o = run_options(a);
  o.trace = &ts;
  o.trace_out = &tr;
  execute(*m, entry, a, o);
  const std::string text = trace_text(tr, a.file, a.at, a.bx, a.by);
  if (a.out_dir.empty()) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  fs::create_directories(a.out_dir);
  const std::string txt = (fs::path(a.out_dir) / "trace.txt").string(), bin = (fs::path(a.out_dir) / "trace.bin").string();
  write_file_atomic(txt, std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  written(txt);
  write_file_atomic(bin, trace_binary(tr));
  written(bin);
  std::printf("%zu events at line %u\n", tr.events.size(), tr.line);
  return 0;
}

// The seed's own statement/line pairs (rrswin_enc5_epilogues.md §0, §1.1, §1.2).
constexpr std::pair<std::uint32_t, std::uint32_t> kSeedPairs[] = {{1, 1018}, {4, 1032}, {5, 1033}, {9, 1037}, {15, 1043}, {7511, 11833}};

int cmd_stats_ptx(const PtxArgs& a) {
  const auto m = ptx::load_module(a.file);
  const std::string entry = pick_entry(*m, a);
  const ptx::EntryStats s = ptx::entry_stats(*m, entry);
  std::printf("entry %s (lines %u-%u): %u statements, %u instructions, %u mma\n", s.name.c_str(), s.first_line, s.last_line, s.statements,
              s.instructions, s.mma);
  std::printf("parameters: %u bytes (%zu)\n", s.param_bytes, s.params.size());
  for (const auto& p : s.params) std::printf("  +%-4u %4u bytes  %s\n", p.offset, p.size, p.name.c_str());
  std::printf("memory: shared %u bytes, local %u bytes per thread, const %u bytes\n", s.shared_bytes, s.local_bytes, s.const_bytes);
  std::printf("registers:");
  for (const auto& [t, n] : s.registers) std::printf(" %s %u", t.c_str(), n);
  std::printf("\ninstructions:\n");
  std::vector<std::pair<std::uint32_t, std::string>> h;
  for (const auto& [n, c] : s.histogram) h.emplace_back(c, n);
  std::sort(h.begin(), h.end(), [](const auto& x, const auto& y) { return x.first != y.first ? x.first > y.first : x.second < y.second; });
  for (const auto& [c, n] : h) std::printf("  %8u  %s\n", c, n.c_str());
  if (!a.check_pairs) return 0;
  int bad = 0;
  std::printf("seed statement/line pairs:\n");
  for (const auto& [st, line] : kSeedPairs) {
    const std::uint32_t got = ptx::statement_line(*m, entry, st);
    const bool ok = got == line;
    bad += ok ? 0 : 1;
    if (got) std::printf("  s%u = L%u: %s (file: L%u)\n", st, line, ok ? "ok" : "MISMATCH", got);
    else std::printf("  s%u = L%u: MISMATCH (the entry has %u statements)\n", st, line, s.statements);
  }
  std::printf(bad ? "%d of 6 pairs differ\n" : "all 6 pairs agree\n", bad);
  return bad ? 1 : 0;
}

int cmd_bench_ptx(const PtxArgs& a) {
  if (!a.capture.empty()) throw UsageError("bench runs the frame inputs, not a capture");
  const auto m = ptx::load_module(a.file);
  const std::string entry = pick_entry(*m, a);
  FrameInputs in = load_frame_inputs(a);
  std::vector<std::uint8_t> arena(layout::PlaneArena{a.ex, a.ey}.total_bytes(), 0);
  Surface surface = Surface::make(a.ex, a.ey);
  LaunchParams p;
  p.ex = static_cast<std::uint32_t>(a.ex);
  p.ey = static_cast<std::uint32_t>(a.ey);
  p.input_arena = in.input;
  p.weights = &in.weights();
  p.output_arena = arena;
  p.block_offset_x = static_cast<std::uint16_t>(a.ox);
  p.block_offset_y = static_cast<std::uint16_t>(a.oy);
  p.texture = &in.texture;
  p.surface = &surface;
  const ptx::RunOptions o = run_options(a);
  const int threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::printf("enc5 ptx bench: %s, entry %s, ex %d, ey %d, profile %s, %d thread%s, %d runs\n", a.file.c_str(), entry.c_str(), a.ex, a.ey,
              a.profile.c_str(), threads, threads == 1 ? "" : "s", a.repeat);
  double best = 1e300, best_cpu = 1e300;
  ptx::RunStats st;
  for (int i = 0; i < a.repeat; ++i) {
    const std::clock_t c0 = std::clock();
    const auto t0 = std::chrono::steady_clock::now();
    st = ptx::run_enc5_frame(*m, entry, p, o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    std::printf("  run %d: %.3f s wall, %.3f s CPU\n", i + 1, s, cpu);
    best = std::min(best, s);
    best_cpu = std::min(best_cpu, cpu);
  }
  std::printf("%llu CTAs, %llu warp instructions, %llu lane instructions, %llu mma\n", static_cast<unsigned long long>(st.ctas),
              static_cast<unsigned long long>(st.warp_instructions), static_cast<unsigned long long>(st.lane_instructions),
              static_cast<unsigned long long>(st.mma));
  std::printf("best: %.3f s wall (%.1f M lane-instructions/s, %.0f mma/s); best CPU time %.3f s (%.1f M lane-instructions per CPU second)\n",
              best, st.lane_instructions / best / 1e6, st.mma / best, best_cpu, st.lane_instructions / best_cpu / 1e6);
  return 0;
}

}  // namespace

int cmd_ptx(const Args& args) {
  PtxArgs a;
  try {
    a = parse(args);
    if (a.help) {
      std::printf(kPtxHelp, ptx::kEnc5Entry, kFrameInputHelp);
      return 0;
    }
    if (a.sub == "run") return cmd_run_ptx(a);
    if (a.sub == "trace") return cmd_trace_ptx(a);
    if (a.sub == "bench") return cmd_bench_ptx(a);
    return cmd_stats_ptx(a);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "enc5 ptx: %s (enc5 ptx --help)\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "enc5 ptx: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace enc5::cli
