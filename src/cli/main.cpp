// rrswin: the command-line tool. Dispatches to one function per subcommand (cli/commands.hpp).
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cli/cli_options.hpp"
#include "cli/commands.hpp"
#include "io/numbers.hpp"
#include "numerics/profile.hpp"

namespace {

struct Command {
  std::string_view name;
  int (*run)(const rrswin::cli::Args&);
  std::string_view summary;
};

constexpr Command kCommands[] = {
    {"run", rrswin::cli::cmd_run, "run the network on the embedded demo frame (--layer L: one layer, e.g. enc5 on a frame)"},
    {"layers", rrswin::cli::cmd_layers, "list the network's eleven layers: shapes, launches, data-flow edges, which run"},
    {"inspect", rrswin::cli::cmd_inspect, "print the phase table, the weight-image map and per-region statistics"},
    {"eval", rrswin::cli::cmd_eval, "evaluate one PTX instruction on hex operands (--batch: one case per line)"},
    {"make-weights", rrswin::cli::cmd_make_weights, "write a deterministic synthetic weight image"},
    {"bench", rrswin::cli::cmd_bench, "time the golden model and the fast engine on the issue's geometries, with references"},
    {"readings", rrswin::cli::cmd_readings, "list the named readings of open spec questions and their values"},
    {"replay", rrswin::cli::cmd_replay, "run enc5 on captured launches (d4r launch dumps / replay captures)"},
    {"capture", rrswin::cli::cmd_capture, "write a synthetic capture of enc5's own run in d4r's formats"},
    {"diff", rrswin::cli::cmd_diff, "compare two captures, output folders or files (exit 0 identical, 1 different)"},
    {"settle", rrswin::cli::cmd_settle, "find the readings and profile that reproduce a capture's outputs"},
    {"ptx", rrswin::cli::cmd_ptx, "run, trace or inspect a kernel's PTX in the PTX interpreter (the original's, or nvcc's)"},
};

void usage(std::FILE* to) {
  std::fprintf(to,
               "rrswin: an open, exact CPU implementation of DLSS Ray Reconstruction's Swin U-Net denoiser, eleven\n"
               "layers (cuda_dldn_engine_swin_enc0..enc5, dec4..dec0 kernels); `rrswin run` runs the network\n\n"
               "usage: rrswin COMMAND [ARGS...]     (rrswin COMMAND --help for a command's options)\n"
               "       rrswin --version\n\ncommands:\n");
  for (const Command& c : kCommands)
    std::fprintf(to, "  %-13s %.*s\n", std::string(c.name).c_str(), static_cast<int>(c.summary.size()), c.summary.data());
  // Which machine each semantics profile stands for (numerics/profile.cpp; docs/readings.md).
  std::fprintf(to,
               "\nexit status (every command): 0 done (identical / reproduced where it compares), 1 done and the\n"
               "outputs differ (diff, replay, settle), 2 an error (the message names the option, or the file,\n"
               "byte offset, expected and found); a command that fails writes none of its outputs.\n");
  std::fprintf(to, "\nprofiles (--profile of run, replay, capture, eval, bench; settle searches them all):\n");
  for (const rrswin::Profile* p : rrswin::all_profiles())
    std::fprintf(to, "  %-13s %.*s%s\n", std::string(p->name).c_str(), static_cast<int>(p->stands_for.size()), p->stands_for.data(),
                 p->measured ? "" : " (model, unmeasured: no public measurements)");
}

// The one place a command's error becomes a message and an exit status (commands.hpp kExit*):
// a wrong command line names the option and points to --help; any other error is printed as
// "rrswin CMD: error: …". Library text (std::bad_alloc, a vector's max_size) would mean a size no
// check refused: it is said in words, never as the library's.
int run_command(const Command& c, const rrswin::cli::Args& args) {
  const std::string name(c.name);
  try {
    return c.run(args);
  } catch (const rrswin::cli::UsageError& e) {
    std::fprintf(stderr, "rrswin %s: %s (rrswin %s --help)\n", name.c_str(), e.what(), name.c_str());
  } catch (const rrswin::NumberError& e) {
    std::fprintf(stderr, "rrswin %s: %s (rrswin %s --help)\n", name.c_str(), e.what(), name.c_str());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "rrswin %s: error: out of memory (an input asked for more than this machine has; please report the input)\n",
                 name.c_str());
  } catch (const std::length_error&) {
    std::fprintf(stderr, "rrswin %s: error: a size beyond what this machine can hold (please report the input)\n", name.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rrswin %s: error: %s\n", name.c_str(), e.what());
  }
  return rrswin::cli::kExitError;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const std::string_view name = argv[1];
  if (name == "--version" || name == "-V" || name == "version") {
#ifndef RRSWIN_VERSION
#define RRSWIN_VERSION "unknown"
#endif
    std::printf("rrswin %s (%s, C++ %ld)\n", RRSWIN_VERSION, __VERSION__, static_cast<long>(__cplusplus));
    return 0;
  }
  if (name == "--help" || name == "-h" || name == "help") {
    usage(stdout);
    return 0;
  }
  rrswin::cli::Args args(argv + 2, argv + argc);
  for (const Command& c : kCommands)
    if (c.name == name) return run_command(c, args);
  std::fprintf(stderr, "rrswin: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return 2;
}
