// One function per `rrswin` subcommand; each returns the process exit status.
#pragma once
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "model/layer_spec.hpp"

namespace rrswin::cli {

using Args = std::vector<std::string>;  // the arguments after the subcommand name

// The exit status of every command (rrswin --help says it; main.cpp turns every error into kExitError):
// 0 done (and identical / reproduced, where the command compares), 1 done, and the outputs differ
// (diff, replay, settle: a verdict, not a failure), 2 an error (a wrong command line, an input that
// cannot be read, anything that stopped the command: nothing of its outputs was written).
inline constexpr int kExitOk = 0, kExitDifferent = 1, kExitError = 2;

int cmd_eval(const Args& args);                      // cli/cmd_eval.cpp
int cmd_inspect(const Args& args);                   // cli/cmd_inspect.cpp
int cmd_layers(const Args& args);                    // cli/cmd_layers.cpp
int cmd_make_weights(const Args& args);              // cli/cmd_make_weights.cpp
int cmd_run(const Args& args);                       // cli/cmd_run.cpp
int cmd_readings(const Args& args);                  // cli/cmd_run.cpp
int cmd_run_layer(const Args& args, LayerId layer);  // cli/cmd_run_layer.cpp: run --layer enc4
int cmd_run_network(const Args& args);               // cli/cmd_run_network.cpp: run --network
int cmd_bench(const Args& args);                     // cli/cmd_bench.cpp
int cmd_replay(const Args& args);                    // cli/cmd_replay.cpp
int cmd_capture(const Args& args);                   // cli/cmd_replay.cpp
// cli/cmd_layer_capture.cpp: `replay`/`capture`/`settle` with --layer enc4 (true: handled, *exit_code set);
// otherwise *enc5_args = args without "--layer enc5" for enc5's own parser.
bool layer_capture_command(const char* cmd, const Args& args, Args* enc5_args, int* exit_code);
// cli/cmd_network_capture.cpp: `replay`/`capture` with --network, one frame's launches of every layer
// (true: handled, *exit_code set; false: no --network among the arguments).
bool network_capture_command(const char* cmd, const Args& args, int* exit_code);
int cmd_diff(const Args& args);    // cli/cmd_diff.cpp
int cmd_settle(const Args& args);  // cli/cmd_settle.cpp
int cmd_ptx(const Args& args);     // cli/cmd_ptx.cpp

// `rrswin eval --batch` on streams (cli/cmd_eval.cpp; also the fuzz harness fuzz/fuzz_eval_batch.cpp):
// one case per line of `in`, results to `out`; 0, or 2 with `error` naming the line.
int eval_batch(std::string_view instruction, std::string_view profile, std::istream& in, std::ostream& out, std::string& error);
std::vector<std::string> eval_instruction_names();

}  // namespace rrswin::cli
