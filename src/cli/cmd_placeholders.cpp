// TEMPORARY while the commands are being written: each helper deletes its entry from this file
// when it adds its cli/cmd_*.cpp. This file must be empty (or gone) before an issue is resolved.
#include <cstdio>
#include "cli/commands.hpp"
namespace enc5::cli {
int cmd_eval(const Args&) { std::fprintf(stderr, "enc5 eval: not built yet\n"); return 3; }
}  // namespace enc5::cli
