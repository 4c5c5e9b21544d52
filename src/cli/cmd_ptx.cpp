// `rrswin ptx run | trace | stats`: the PTX interpreter (src/ptx, docs/ptx.md) on the original
// kernel's PTX (the corpus file) or on any PTX with enc5's 144-byte parameter block, with the
// inputs `rrswin run` takes or a replay capture's arguments.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bridge/enc5_launch.hpp"
#include "bridge/kernel_capture.hpp"
#include "bridge/launch.hpp"
#include "capture/capture.hpp"
#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "cli/frame_inputs.hpp"
#include "io/arena_io.hpp"
#include "io/checked_size.hpp"
#include "io/files.hpp"
#include "io/frame_io.hpp"
#include "io/numbers.hpp"
#include "io/output_set.hpp"
#include "layout/arena.hpp"
#include "ptx/ptx.hpp"

namespace rrswin::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPtxHelp =
    R"(usage: rrswin ptx launch FILE.ptx --entry NAME --grid X,Y,Z --block X,Y,Z ... -o DIR  (rrswin ptx launch --help)
       rrswin ptx run   FILE.ptx [--entry NAME] [INPUTS | --capture CAP] -o DIR [--profile P] [--threads N]
       rrswin ptx trace FILE.ptx [--entry NAME] --at sNNNN|LNNNNN --reg %%rX[,%%rY...] --block X,Y
                      [INPUTS | --capture CAP] [-o DIR] [--profile P]
       rrswin ptx stats FILE.ptx [--entry NAME] [--check-seed-pairs]
       rrswin ptx bench FILE.ptx [--entry NAME] [INPUTS] [--repeat N] [--profile P] [--threads N]

launch runs any entry with the buffers, parameters, textures and surfaces given on the command line.
The other commands run enc5's launch:

Runs a kernel's PTX in enc5's PTX interpreter (docs/ptx.md): every instruction for the 32 lanes of
a warp, warps of a CTA until bar.sync, CTAs on threads; NVIDIA's arithmetic from src/numerics under
the profile. For enc5's entry (default %s, or the file's only entry) it builds the 144-byte
parameter block (facts A4) and runs the grid ceil((ex+ox)/8) x ceil((ey+oy)/8) of (32,1,8) blocks.

run: writes what `rrswin run` writes (arena.bin, surface112.exr) from the same inputs, so `rrswin diff`
  compares the interpreted kernel with enc5's model directly; with --capture CAP it runs a
  capture's arguments and writes what `rrswin replay` writes (a replay folder in launch-dump naming,
  which `rrswin settle` and `rrswin diff` take as a capture of this kernel). A replay capture of
  another kernel (a manifest `kernel` line without swin_enc5) runs as captured, any entry, and
  DIR gets its arguments after the launch in launch-dump naming (docs/ptx.md "Captures of any
  kernel"), for `rrswin diff` with a GPU's dump.
trace: the registers after statement sNNNN (the seed's numbering: statements of the entry body, a
  braced block and a multi-line instruction one each, numbered at their first line) or file line
  LNNNNN executes, per warp and lane, each time, in CTA X,Y. Text on stdout, or trace.txt and
  trace.bin (docs/formats.md "PTX traces") into -o DIR.
stats: instruction histogram, registers by type, shared/local/param bytes, mma counts, statements, the
       model-dependent instructions (every .approx form) with their counts.
  --check-seed-pairs checks the seed's statement/line pairs (s1 = L1018, s4 = L1032, s5 = L1033,
  s9 = L1037, s15 = L1043, s7511 = L11833) against the file: run it on the corpus file
  0018-PREPASS_ENTRYPOINT_NAME.ptx to confirm the numbering rule (exit 1 on a mismatch).
bench: runs the launch --repeat times (default 3) and reports the best wall time, lane-instructions
  per second and mma per second (docs/performance.md "PTX interpreter").

INPUTS (as rrswin run):
%s
options:
  --entry NAME          the entry to run
  --capture CAP         a replay capture or launch-dump folder (rrswin replay reads the same)
  --sampler OFF=point|linear
                        run --capture of another kernel: the sampler of the texture at parameter
                        offset OFF (repeatable; default point, unnormalised: a capture holds no
                        sampler, docs/readings.md "ptx-tex-sampler"); rrswin-gpu replay takes the same
  -o, --out DIR         output folder
  --profile ada|zluda|hopper|blackwell
                        instruction semantics (default ada; as rrswin run)
  --threads N           CTAs in parallel (default 0 = all hardware threads); output is identical
  --reading ptx-relu-negative-zero=plus-zero|keep
                        the interpreter's reading of .relu on a -0 f16/bf16 result (default plus-zero;
                        docs/readings.md "ptx-relu-negative-zero")
  --repeat N            bench: runs (default 3)
  --max-instructions N  per warp, before a run is stopped as an endless loop (default 40000000;
                        instructions weighted by cost: an mma.sync 16, docs/ptx.md "Bound")
  --max-launch-instructions N
                        the same for all warps of the launch together (default 60000000)
  -h, --help            this text
)";

// The options every interpreter command takes (enc5's launch and `ptx launch` alike).
struct InterpreterOptions {
  std::string out_dir, profile = "ada";
  int threads = 0;
  long long max_instructions = static_cast<long long>(ptx::RunOptions{}.max_warp_instructions);
  long long max_launch_instructions = static_cast<long long>(ptx::RunOptions{}.max_launch_instructions);
  std::vector<std::string> readings;  // --reading NAME=VALUE (ptx::kReadings)
};

// Takes `opt` (and its value) into `o` when it is one of InterpreterOptions'; false otherwise.
bool take_interpreter_option(const std::string& opt, OptionCursor& cur, InterpreterOptions& o) {
  if (opt == "-o" || opt == "--out") {
    o.out_dir = cur.take();
    if (o.out_dir.empty()) throw UsageError(opt + ": empty folder name");
  } else if (opt == "--profile") {
    o.profile = cur.take();
    if (!find_profile(o.profile)) throw UsageError("--profile: expected " + std::string(profile_names()) + ", got '" + o.profile + "'");
  } else if (opt == "--threads") {
    o.threads = static_cast<int>(parse_int(opt, cur.take(), 0, kThreadsMax));
  } else if (opt == "--max-instructions") {
    o.max_instructions = parse_int(opt, cur.take(), 1, 1ll << 50);
  } else if (opt == "--max-launch-instructions") {
    o.max_launch_instructions = parse_int(opt, cur.take(), 1, 1ll << 50);
  } else if (opt == "--reading") {
    o.readings.push_back(cur.take());
    ptx::RunOptions check;
    try {
      ptx::set_reading(check, o.readings.back());
    } catch (const ptx::PtxError& e) {
      throw UsageError(e.what());
    }
  } else {
    return false;
  }
  return true;
}

struct PtxArgs : FrameInputOptions, InterpreterOptions {
  std::string sub, file, entry, capture, at;
  std::vector<std::string> regs;
  std::vector<ptx::SamplerOption> samplers;  // --sampler OFF=point|linear
  bool have_block = false;
  int bx = 0, by = 0;
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
      if (a.sub.empty())
        a.sub = opt;
      else if (a.file.empty())
        a.file = opt;
      else
        throw UsageError("unexpected argument '" + opt + "'");
    } else if (opt == "-h" || opt == "--help") {
      a.help = true;
    } else if (opt == "--entry") {
      a.entry = cur.take();
    } else if (opt == "--capture") {
      a.capture = cur.take();
    } else if (opt == "--sampler") {
      try {
        a.samplers.push_back(ptx::parse_sampler_option(cur.take()));
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
    } else if (take_interpreter_option(opt, cur, a)) {
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
  if (!a.samplers.empty() && (a.sub != "run" || a.capture.empty()))
    throw UsageError("--sampler is run --capture's (the textures of a capture of another kernel than enc5's)");
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
  o.max_launch_instructions = static_cast<std::uint64_t>(a.max_launch_instructions);
  for (const std::string& r : a.readings) ptx::set_reading(o, r);
  return o;
}

void report(const char* what, const ptx::RunStats& st, double s) {
  std::printf("%s: %llu CTAs, %llu warp instructions, %llu lane instructions, %llu mma in %.3f s (%.1f M lane-instructions/s)\n", what,
              static_cast<unsigned long long>(st.ctas), static_cast<unsigned long long>(st.warp_instructions),
              static_cast<unsigned long long>(st.lane_instructions), static_cast<unsigned long long>(st.mma), s,
              s > 0 ? st.lane_instructions / s / 1e6 : 0.0);
  // Model-dependent instructions (docs/ptx.md): outputs derived from them may differ on a GPU.
  for (const auto& [name, n] : st.model_dependent)
    std::printf("  model-dependent: %s executed %llu times (modelled as correctly rounded)\n", name.c_str(),
                static_cast<unsigned long long>(n));
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
    std::printf("rrswin ptx %s: %s, entry %s, capture %s (ex %u, ey %u, block offset (%u, %u)), profile %s\n", a.sub.c_str(),
                a.file.c_str(), entry.c_str(), a.capture.c_str(), r.cap.ex, r.cap.ey, r.cap.ox, r.cap.oy, a.profile.c_str());
    std::fflush(stdout);
    r.replay = ptx::run_enc5_capture(m, entry, r.cap, o, &st);
  } else {
    FrameInputs in = load_frame_inputs(a);
    r.ex = a.ex;
    r.ey = a.ey;
    r.arena.assign(layout::PlaneArena{a.ex, a.ey}.total_bytes(), 0);
    r.surface = Surface::make(a.ex, a.ey);
    LaunchParams p = frame_launch(static_cast<std::uint32_t>(a.ex), static_cast<std::uint32_t>(a.ey), in.input, in.weights(), r.arena,
                                  in.texture, r.surface);
    p.block_offset_x = static_cast<std::uint16_t>(a.ox);
    p.block_offset_y = static_cast<std::uint16_t>(a.oy);
    const ptx::Dim3 g = ptx::enc5_grid(p.ex, p.ey, p.block_offset_x, p.block_offset_y);
    std::printf(
        "rrswin ptx %s: %s, entry %s, ex %d, ey %d, grid %ux%u, block offset (%d, %d), profile %s\n  weights: %s\n  input:   %s\n  texture: %s\n",
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

// `ptx run --capture` of a replay capture of another kernel (bridge/kernel_capture.hpp): its
// launch as captured, its arguments after the launch in launch-dump naming (all or nothing).
int cmd_run_kernel_capture(const PtxArgs& a) {
  const auto m = ptx::load_module(a.file);
  ptx::KernelCapture c = ptx::load_kernel_capture(a.capture);
  for (const ptx::SamplerOption& o : a.samplers) {
    try {
      ptx::apply_sampler_option(c, o);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  std::string entry = a.entry;
  if (entry.empty()) {
    const auto names = ptx::entry_names(*m);
    for (const auto& n : names)
      if (n == c.kernel) entry = n;
    if (entry.empty() && names.size() == 1) entry = names[0];
    if (entry.empty()) throw UsageError("the capture's kernel '" + c.kernel + "' is no entry of " + a.file + ": choose one with --entry");
  }
  OutputSet set(a.out_dir);  // every output or none (io/output_set.hpp)
  std::printf("rrswin ptx run: %s, entry %s, capture %s (kernel %s, grid %u,%u,%u, block %u,%u,%u, %zu allocations), profile %s\n",
              a.file.c_str(), entry.c_str(), a.capture.c_str(), c.kernel.empty() ? "not named" : c.kernel.c_str(), c.grid.x, c.grid.y,
              c.grid.z, c.block.x, c.block.y, c.block.z, c.allocs.size(), a.profile.c_str());
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  const ptx::RunStats st = ptx::run_kernel_capture(*m, entry, c, run_options(a));
  report("interpreted", st, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  for (const auto& [name, bytes] : ptx::kernel_capture_outputs(c, entry)) set.write(name, bytes);
  for (const auto& p : set.commit()) written(p);
  return 0;
}

int cmd_run_ptx(const PtxArgs& a) {
  if (!a.capture.empty() && ptx::is_other_kernel_capture(a.capture)) return cmd_run_kernel_capture(a);
  if (!a.samplers.empty()) throw UsageError("--sampler: " + a.capture + " is enc5's capture (its texture is read at texels)");
  const auto m = ptx::load_module(a.file);
  const std::string entry = pick_entry(*m, a);
  Outcome r = execute(*m, entry, a, run_options(a));
  if (r.from_capture) {
    for (const auto& p : capture::write_replay_outputs(a.out_dir, r.cap, r.replay)) std::printf("wrote %s\n", p.c_str());
    return 0;
  }
  OutputSet set(a.out_dir);  // both outputs or none (io/output_set.hpp)
  write_plane_arena(set.path("arena.bin"), r.arena, r.ex, r.ey);
  write_surface_exr(set.path("surface112.exr"), r.surface);
  for (const auto& p : set.commit()) written(p);
  return 0;
}

// Trace text: one block per event, a line per register with its 32 lane values (hex, by width).
std::string trace_text(const ptx::TraceResult& t, const std::string& file, const std::string& at, int bx, int by) {
  std::ostringstream o;
  o << "# rrswin ptx trace of " << file << " at " << at << " (line " << t.line << "), CTA (" << bx << "," << by << ",0)\n";
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
  OutputSet set(a.out_dir);  // both outputs or none (io/output_set.hpp)
  set.write_text("trace.txt", text);
  set.write("trace.bin", trace_binary(tr));
  for (const auto& p : set.commit()) written(p);
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
  if (s.mma_int) std::printf("integer mma: %u\n", s.mma_int);
  // The same criterion as the run's `model-dependent:` lines (docs/ptx.md).
  for (const auto& [name, n] : s.model_dependent)
    std::printf("model-dependent: %s, %u instruction%s (modelled as correctly rounded)\n", name.c_str(), n, n == 1 ? "" : "s");
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
    if (got)
      std::printf("  s%u = L%u: %s (file: L%u)\n", st, line, ok ? "ok" : "MISMATCH", got);
    else
      std::printf("  s%u = L%u: MISMATCH (the entry has %u statements)\n", st, line, s.statements);
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
  LaunchParams p =
      frame_launch(static_cast<std::uint32_t>(a.ex), static_cast<std::uint32_t>(a.ey), in.input, in.weights(), arena, in.texture, surface);
  p.block_offset_x = static_cast<std::uint16_t>(a.ox);
  p.block_offset_y = static_cast<std::uint16_t>(a.oy);
  const ptx::RunOptions o = run_options(a);
  const int threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::printf("rrswin ptx bench: %s, entry %s, ex %d, ey %d, profile %s, %d thread%s, %d runs\n", a.file.c_str(), entry.c_str(), a.ex, a.ey,
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
  std::printf(
      "best: %.3f s wall (%.1f M lane-instructions/s, %.0f mma/s); best CPU time %.3f s (%.1f M lane-instructions per CPU second)\n", best,
      st.lane_instructions / best / 1e6, st.mma / best, best_cpu, st.lane_instructions / best_cpu / 1e6);
  return 0;
}

// ---- rrswin ptx launch: any entry with the launch given on the command line (bridge/launch.hpp) ----

constexpr const char* kLaunchHelp = R"(usage: rrswin ptx launch FILE.ptx --entry NAME --grid X,Y,Z --block X,Y,Z [--shared BYTES]
           [--buffer NAME=FILE | --buffer NAME:BYTES]... [--param TYPE:VALUE | --param ptr:NAME]...
           [--texture NAME=FILE ...] [--surface NAME=...] [--profile P] [--threads N] -o DIR

Runs any entry of FILE.ptx in enc5's PTX interpreter (docs/ptx.md "Launching any kernel") and writes
every buffer and surface after the launch to DIR/NAME.bin (exit 0). Any error exits non-zero with a
message naming the option and the value, and writes nothing.

  --entry NAME          the entry to run (default: the file's only entry)
  --grid X,Y,Z          CTAs (Y, Z default 1): x < 2^31, y, z < 65536, at most 2^24 CTAs in all
  --block X,Y,Z         threads per CTA: x, y <= 1024, z <= 64, x*y*z <= 1024
  --shared BYTES        dynamic shared memory (the entry's .extern .shared array), at most 232448
                        (227 KiB) with the static shared memory; default 0
  --buffer NAME=FILE    a global allocation holding FILE's bytes
  --buffer NAME:BYTES   a global allocation of BYTES zero bytes (decimal or 0x; at most 16 GiB in all)
  --param TYPE:VALUE    the next parameter of the entry, in its declared order: TYPE u8 u16 u32 u64,
                        s8 s16 s32 s64, b8 b16 b32 b64 (decimal in the type's range, or 0x bits),
                        f16 f32 f64 (decimal rounded to nearest even, inf, nan, or 0x bits)
  --param ptr:NAME[+OFFSET]
                        the 64-bit address of buffer NAME (plus OFFSET bytes), or the handle of
                        texture or surface NAME. One --param per declared parameter, each of the
                        declared size (offsets and alignment padding come from the declaration)
  --texture NAME=FILE   a texture object (RGBA16F): FILE.exr (clamp), a d4r texture dump in launch-dump
                        naming (its shape and mode from the name), or FILE@WxH[-pitchP][-MODE], raw
                        texel rows (MODE clamp|border|wrap|mirror; default clamp)
  --surface NAME=WxH[-pitchP]
                        a surface object (RGBA16F) of zero bytes; or NAME=FILE.exr, NAME=FILE@WxH[-pitchP]
                        or a d4r surface dump: its bytes before the launch. Written to DIR/NAME.bin
                        (pitch x height raw bytes) like a buffer
  --profile ada|zluda|hopper
                        instruction semantics (default ada)
  --threads N           CTAs in parallel (default 0 = all hardware threads); output is identical
  --reading ptx-relu-negative-zero=plus-zero|keep
                        the interpreter's reading of .relu on a -0 f16/bf16 result (default plus-zero;
                        docs/readings.md "ptx-relu-negative-zero")
  --max-instructions N  per warp, before a run is stopped as an endless loop (default: the
                        interpreter's own bound, docs/ptx.md)
  --max-launch-instructions N
                        the same for all warps of the launch together (default 60000000)
  -o, --out DIR         output folder
  -h, --help            this text

NAME (buffers, textures, surfaces): 1-100 letters, digits, '_', '.', '-'; unique; each passed to the
kernel by a --param ptr:NAME. Example (tests/ptx/kernels.ptx, out[i] = f(in[i]) for i < n):
  rrswin ptx launch kernels.ptx --entry int_mix --grid 4 --block 256 --buffer in=in.bin
      --buffer out:4000 --param ptr:in --param ptr:out --param s32:1000 -o res    # res/in.bin, res/out.bin
)";

struct LaunchArgs : InterpreterOptions {
  std::string file, entry, grid, block;
  std::uint64_t shared = 0;
  std::vector<std::string> buffers, params, textures, surfaces;
  bool help = false;
};

LaunchArgs parse_launch(const Args& args) {
  LaunchArgs a;
  OptionCursor cur(args);
  cur.next();  // "launch"
  while (cur.next()) {
    const std::string& opt = cur.name;
    if (!cur.is_option()) {
      if (a.file.empty())
        a.file = opt;
      else
        throw UsageError("unexpected argument '" + opt + "'");
    } else if (opt == "-h" || opt == "--help") {
      a.help = true;
    } else if (opt == "--entry") {
      a.entry = cur.take();
    } else if (opt == "--grid") {
      a.grid = cur.take();
    } else if (opt == "--block") {
      a.block = cur.take();
    } else if (opt == "--shared") {
      const std::string v = cur.take();
      a.shared = ptx::parse_bytes(v, "--shared", 0, ptx::kMaxDynamicShared);
    } else if (opt == "--buffer") {
      a.buffers.push_back(cur.take());
    } else if (opt == "--param") {
      a.params.push_back(cur.take());
    } else if (opt == "--texture") {
      a.textures.push_back(cur.take());
    } else if (opt == "--surface") {
      a.surfaces.push_back(cur.take());
    } else if (take_interpreter_option(opt, cur, a)) {
    } else {
      throw UsageError("unknown option '" + opt + "' (rrswin ptx launch --help lists them)");
    }
  }
  if (a.help) return a;
  if (a.file.empty()) throw UsageError("no PTX file given");
  if (a.grid.empty()) throw UsageError("no --grid X,Y,Z given");
  if (a.block.empty()) throw UsageError("no --block X,Y,Z given");
  if (a.out_dir.empty()) throw UsageError("no output folder: add -o DIR");
  return a;
}

// NAME=VALUE (or NAME:VALUE where `colon` allows it): the name and the rest.
std::pair<std::string, std::string> split_named(const std::string& s, const std::string& opt, bool colon, const char* forms) {
  const std::size_t k = s.find_first_of(colon ? "=:" : "=");
  if (k == std::string::npos || k == 0) throw ptx::LaunchError(opt + " '" + s + "': expected " + forms);
  std::string name = s.substr(0, k);
  ptx::check_object_name(name, opt + " '" + s + "'");
  return {std::move(name), s.substr(k, 1) + s.substr(k + 1)};  // the separator kept first
}

// An RGBA16F image (texture or surface) from FILE.exr, FILE@SHAPE (raw) or a launch-dump-named file.
capture::ImageArg image_from(const std::string& value, const std::string& what, bool texture) {
  const std::size_t at = value.rfind('@');
  if (at != std::string::npos)
    return capture::load_image_arg(value.substr(0, at), value.substr(at + 1), capture::kFmtHalf, texture ? "texture" : "surface");
  if (const auto n = capture::parse_dump_name(fs::path(value).filename().string())) {
    if (n->kind != (texture ? "texture" : "surface"))
      throw ptx::LaunchError(what + ": the launch dump " + value + " is a " + n->kind + " dump, not a " +
                             (texture ? "texture" : "surface"));
    return capture::load_image_arg(value, n->shape, n->fmt, texture ? "texture" : "surface");
  }
  throw ptx::LaunchError(what + ": expected FILE.exr, FILE@WxH[-pitchP]" + (texture ? "[-MODE]" : "") + " or a d4r " +
                         (texture ? "texture" : "surface") + " dump (launch-...-" + (texture ? "texture" : "surface") +
                         "-WxH...-fmt16.bin)");
}

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// WxH[-pitchP]: a zero surface's shape.
Surface zero_surface(const std::string& shape, const std::string& what) {
  std::uint64_t w = 0, h = 0, pitch = 0;
  const std::size_t x = shape.find('x'), dash = shape.find('-');
  const std::string wh = shape.substr(0, dash);
  const auto num = [](const std::string& s, std::uint64_t& v) {
    const auto r = parse_u64(s);  // io/numbers.hpp
    if (r) v = *r;
    return r.has_value();
  };
  bool ok = x != std::string::npos && x < wh.size() && num(wh.substr(0, x), w) && num(wh.substr(x + 1), h);
  if (ok && dash != std::string::npos) ok = shape.compare(dash + 1, 5, "pitch") == 0 && num(shape.substr(dash + 6), pitch);
  if (!ok)
    throw ptx::LaunchError(what +
                           ": expected NAME=WxH[-pitchP] (a zero surface), NAME=FILE.exr, NAME=FILE@WxH[-pitchP] or a d4r surface dump");
  if (w == 0 || h == 0 || w > 65536 || h > 65536)
    throw ptx::LaunchError(what + ": width × height " + std::to_string(w) + "×" + std::to_string(h) + " outside 1..65536 texels");
  if (!pitch) pitch = 8 * w;
  if (pitch < 8 * w) throw ptx::LaunchError(what + ": pitch " + std::to_string(pitch) + " below 8·width = " + std::to_string(8 * w));
  const std::uint64_t bytes = checked_bytes(what + ": pitch × height", {pitch, h});
  Surface s;
  s.width = static_cast<int>(w);
  s.height = static_cast<int>(h);
  s.pitch = static_cast<std::size_t>(pitch);
  s.bytes.assign(bytes, 0);
  return s;
}

// Runs f; a file error (InputError, SizeError, ...) is rethrown with the option and value first.
template <class F>
auto for_option(const std::string& what, F&& f) {
  try {
    return f();
  } catch (const ptx::LaunchError&) {
    throw;
  } catch (const std::exception& e) {
    throw ptx::LaunchError(what + ": " + e.what());
  }
}

// The launch's memory budget: every buffer, texture and surface together within kMaxBufferBytes.
struct LaunchBudget {
  std::uint64_t total = 0;
  void take(const std::string& what, std::uint64_t bytes) {
    const auto t = add_u64(total, bytes);
    if (!t || *t > kMaxBufferBytes)
      throw ptx::LaunchError(what + ": the launch's buffers together exceed " + std::to_string(kMaxBufferBytes) +
                             " bytes (16 GiB, enc5's limit)");
    total = *t;
  }
};

// --buffer NAME=FILE (the file's bytes) or NAME:BYTES (zero bytes).
ptx::LaunchBuffer buffer_arg(const std::string& b, LaunchBudget& budget) {
  const std::string what = "--buffer '" + b + "'";
  // Named copies, not structured bindings: clang 14 cannot capture a binding in a lambda.
  const auto named = split_named(b, "--buffer", true, "NAME=FILE or NAME:BYTES");
  const std::string name = named.first, rest = named.second;
  ptx::LaunchBuffer buf;
  buf.name = name;
  buf.what = what;
  if (rest[0] == ':') {
    const std::uint64_t n = ptx::parse_bytes(rest.substr(1), "--buffer " + name + ":", 1, kMaxBufferBytes);
    budget.take(what, n);
    try {
      buf.bytes.assign(n, 0);
    } catch (const std::bad_alloc&) {
      throw ptx::LaunchError(what + ": cannot allocate " + std::to_string(n) + " bytes on this machine");
    }
  } else {
    if (rest.size() < 2) throw ptx::LaunchError(what + ": expected NAME=FILE (a file name after '=')");
    buf.bytes = for_option(what, [&] { return read_file_bytes(rest.substr(1)); });
    budget.take(what, buf.bytes.size());
  }
  return buf;
}

// --texture NAME=FILE: an RGBA16F EXR or a texture dump.
ptx::LaunchTexture texture_arg(const std::string& t, LaunchBudget& budget) {
  const std::string what = "--texture '" + t + "'";
  const auto named = split_named(t, "--texture", false, "NAME=FILE");
  const std::string v = named.second.substr(1);
  ptx::LaunchTexture tex;
  tex.name = named.first;
  tex.what = what;
  tex.texture = for_option(what, [&] {
    return ends_with(v, ".exr") && v.find('@') == std::string::npos ? texture_from_exr(v) : capture::texture_of(image_from(v, what, true));
  });
  budget.take(what, tex.texture.rgba.size() * 2);
  return tex;
}

// --surface NAME=WxH[-pitchP] (zero-filled) or NAME=FILE (an EXR or a surface dump).
ptx::LaunchSurface surface_arg(const std::string& t, LaunchBudget& budget) {
  const std::string what = "--surface '" + t + "'";
  const auto named = split_named(t, "--surface", false, "NAME=WxH[-pitchP] or NAME=FILE");
  const std::string v = named.second.substr(1);
  ptx::LaunchSurface sf;
  sf.name = named.first;
  sf.what = what;
  if (ends_with(v, ".exr") && v.find('@') == std::string::npos) {
    const Texture img = for_option(what, [&] { return texture_from_exr(v); });
    sf.surface = Surface::make(img.width, img.height);
    for (std::size_t i = 0; i < img.rgba.size(); ++i) {
      sf.surface.bytes[2 * i] = static_cast<std::uint8_t>(img.rgba[i]);
      sf.surface.bytes[2 * i + 1] = static_cast<std::uint8_t>(img.rgba[i] >> 8);
    }
  } else if (v.find('@') != std::string::npos || capture::parse_dump_name(fs::path(v).filename().string())) {
    capture::ImageArg img = for_option(what, [&] { return image_from(v, what, false); });
    sf.surface.width = img.width;
    sf.surface.height = img.height;
    sf.surface.pitch = img.pitch;
    sf.surface.bytes = std::move(img.bytes);
  } else {
    sf.surface = zero_surface(v, what);
  }
  budget.take(what, sf.surface.bytes.size());
  return sf;
}

ptx::LaunchSpec launch_spec(const LaunchArgs& a, const ptx::Module& m) {
  ptx::LaunchSpec s;
  s.entry = a.entry;
  if (s.entry.empty()) {
    const auto names = ptx::entry_names(m);
    if (names.size() != 1) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw UsageError("the file has " + std::to_string(names.size()) + " entries (" + list + "): choose one with --entry");
    }
    s.entry = names[0];
  }
  s.grid = ptx::parse_dim3(a.grid, "--grid", false);
  s.block = ptx::parse_dim3(a.block, "--block", true);
  s.dynamic_shared = a.shared;
  for (std::size_t i = 0; i < a.params.size(); ++i)
    s.params.push_back(ptx::parse_param_arg(a.params[i], "--param #" + std::to_string(i + 1)));
  LaunchBudget budget;
  for (const std::string& b : a.buffers) s.buffers.push_back(buffer_arg(b, budget));
  for (const std::string& t : a.textures) s.textures.push_back(texture_arg(t, budget));
  for (const std::string& t : a.surfaces) s.surfaces.push_back(surface_arg(t, budget));
  return s;
}

int cmd_launch_ptx(const LaunchArgs& a) {
  const auto m = ptx::load_module(a.file);
  ptx::LaunchSpec spec = launch_spec(a, *m);
  ptx::check_launch(*m, spec);
  OutputSet set(a.out_dir);  // every output or none (io/output_set.hpp)
  ptx::RunOptions o;
  o.profile = find_profile(a.profile);
  o.threads = a.threads;
  o.max_warp_instructions = static_cast<std::uint64_t>(a.max_instructions);
  o.max_launch_instructions = static_cast<std::uint64_t>(a.max_launch_instructions);
  for (const std::string& r : a.readings) ptx::set_reading(o, r);
  std::printf("rrswin ptx launch: %s, entry %s, grid %u,%u,%u, block %u,%u,%u, shared %llu, profile %s\n", a.file.c_str(),
              spec.entry.c_str(), spec.grid.x, spec.grid.y, spec.grid.z, spec.block.x, spec.block.y, spec.block.z,
              static_cast<unsigned long long>(spec.dynamic_shared), a.profile.c_str());
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  const ptx::RunStats st = ptx::run_launch(*m, spec, o);
  report("interpreted", st, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  for (const auto& b : spec.buffers) set.write(b.name + ".bin", b.bytes);
  for (const auto& sf : spec.surfaces) set.write(sf.name + ".bin", sf.surface.bytes);
  for (const auto& p : set.commit()) written(p);
  return 0;
}

}  // namespace

int cmd_ptx(const Args& args) {
  // Errors become messages and exit status 2 in main.cpp's run_command (one rule for every command).
  if (!args.empty() && args[0] == "launch") {
    const LaunchArgs la = parse_launch(args);
    if (la.help) {
      std::fputs(kLaunchHelp, stdout);
      return 0;
    }
    return cmd_launch_ptx(la);
  }
  const PtxArgs a = parse(args);
  if (a.help) {
    std::printf(kPtxHelp, ptx::kEnc5Entry, kFrameInputHelp);
    return 0;
  }
  if (a.sub == "run") return cmd_run_ptx(a);
  if (a.sub == "trace") return cmd_trace_ptx(a);
  if (a.sub == "bench") return cmd_bench_ptx(a);
  return cmd_stats_ptx(a);
}

}  // namespace rrswin::cli
