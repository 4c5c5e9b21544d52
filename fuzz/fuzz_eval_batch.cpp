// `rrswin eval --batch` (cli/cmd_eval.cpp): the first byte picks the instruction, the rest is the
// batch's stdin, one case per line.
#include <sstream>

#include "cli/commands.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::maybe_write_seeds([](const fuzz::fs::path& d) {
    const auto names = rrswin::cli::eval_instruction_names();
    const char* lines = "0x3c00 0xbc00\n3c01 3c01 8000\n0x0000\nffff ffff ffff ffff\n";
    for (std::size_t i = 0; i < names.size(); ++i)
      fuzz::write(d / ("eval-" + std::to_string(i)), std::string(1, static_cast<char>(i)) + lines);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto names = rrswin::cli::eval_instruction_names();
  if (size < 1 || names.empty()) return 0;
  const std::string& ins = names[data[0] % names.size()];
  fuzz::guarded([&] {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data + 1), size - 1));
    std::ostringstream out;
    std::string error;
    for (const char* profile : {"ada", "zluda"}) {
      in.clear();
      in.seekg(0);
      (void)rrswin::cli::eval_batch(ins, profile, in, out, error);
    }
  });
  return 0;
}
