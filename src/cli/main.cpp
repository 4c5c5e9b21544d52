// enc5: the command-line tool. Dispatches to one function per subcommand (cli/commands.hpp).
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
  int (*run)(const enc5::cli::Args&);
  std::string_view summary;
};

constexpr Command kCommands[] = {
    {"run", enc5::cli::cmd_run, "run the layer on a frame (the embedded demo frame when given no files)"},
    {"inspect", enc5::cli::cmd_inspect, "print the phase table, the weight-image map and per-region statistics"},
    {"eval", enc5::cli::cmd_eval, "evaluate one PTX instruction on hex operands (--batch: one case per line)"},
    {"make-weights", enc5::cli::cmd_make_weights, "write a deterministic synthetic weight image"},
    {"bench", enc5::cli::cmd_bench, "time the golden model and the fast engine on the issue's geometries, with references"},
    {"readings", enc5::cli::cmd_readings, "list the named readings of open spec questions and their values"},
    {"replay", enc5::cli::cmd_replay, "run enc5 on captured launches (d4r launch dumps / replay captures)"},
    {"capture", enc5::cli::cmd_capture, "write a synthetic capture of enc5's own run in d4r's formats"},
    {"diff", enc5::cli::cmd_diff, "compare two captures, output folders or files (exit 0 identical, 1 different)"},
    {"settle", enc5::cli::cmd_settle, "find the readings and profile that reproduce a capture's outputs"},
    {"ptx", enc5::cli::cmd_ptx, "run, trace or inspect a kernel's PTX in the PTX interpreter (the original's, or nvcc's)"},
};

void usage(std::FILE* to) {
  std::fprintf(to,
               "enc5: an open, exact CPU implementation of DLSS-RR's cuda_dldn_engine_swin_enc5_kernel\n\n"
               "usage: enc5 COMMAND [ARGS...]     (enc5 COMMAND --help for a command's options)\n"
               "       enc5 --version\n\ncommands:\n");
  for (const Command& c : kCommands)
    std::fprintf(to, "  %-13s %.*s\n", std::string(c.name).c_str(), static_cast<int>(c.summary.size()), c.summary.data());
  // Which machine each semantics profile stands for (numerics/profile.cpp; docs/readings.md).
  std::fprintf(to,
               "\nexit status (every command): 0 done (identical / reproduced where it compares), 1 done and the\n"
               "outputs differ (diff, replay, settle), 2 an error (the message names the option, or the file,\n"
               "byte offset, expected and found); a command that fails writes none of its outputs.\n");
  std::fprintf(to, "\nprofiles (--profile of run, replay, capture, eval, bench; settle searches them all):\n");
  for (const enc5::Profile* p : enc5::all_profiles())
    std::fprintf(to, "  %-13s %.*s%s\n", std::string(p->name).c_str(), static_cast<int>(p->stands_for.size()), p->stands_for.data(),
                 p->measured ? "" : " (model, unmeasured: no public measurements)");
}

// The one place a command's error becomes a message and an exit status (commands.hpp kExit*):
// a wrong command line names the option and points to --help; any other error is printed as
// "enc5 CMD: error: …". Library text (std::bad_alloc, a vector's max_size) would mean a size no
// check refused: it is said in words, never as the library's.
int run_command(const Command& c, const enc5::cli::Args& args) {
  const std::string name(c.name);
  try {
    return c.run(args);
  } catch (const enc5::cli::UsageError& e) {
    std::fprintf(stderr, "enc5 %s: %s (enc5 %s --help)\n", name.c_str(), e.what(), name.c_str());
  } catch (const enc5::NumberError& e) {
    std::fprintf(stderr, "enc5 %s: %s (enc5 %s --help)\n", name.c_str(), e.what(), name.c_str());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "enc5 %s: error: out of memory (an input asked for more than this machine has; please report the input)\n",
                 name.c_str());
  } catch (const std::length_error&) {
    std::fprintf(stderr, "enc5 %s: error: a size beyond what this machine can hold (please report the input)\n", name.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "enc5 %s: error: %s\n", name.c_str(), e.what());
  }
  return enc5::cli::kExitError;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const std::string_view name = argv[1];
  if (name == "--version" || name == "-V" || name == "version") {
#ifndef ENC5_VERSION
#define ENC5_VERSION "unknown"
#endif
    std::printf("enc5 %s (%s, C++ %ld)\n", ENC5_VERSION, __VERSION__, static_cast<long>(__cplusplus));
    return 0;
  }
  if (name == "--help" || name == "-h" || name == "help") {
    usage(stdout);
    return 0;
  }
  enc5::cli::Args args(argv + 2, argv + argc);
  for (const Command& c : kCommands)
    if (c.name == name) return run_command(c, args);
  std::fprintf(stderr, "enc5: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return 2;
}
