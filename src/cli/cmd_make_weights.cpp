// enc5 make-weights --seed N [--stress] -o FILE: a deterministic synthetic weight image
// (assets/synthetic_weights.cpp), written atomically so that a failed run leaves no partial file.
#include <cstdio>
#include <filesystem>
#include <string>

#include "assets/synthetic_weights.hpp"
#include "cli/commands.hpp"
#include "io/numbers.hpp"
#include "io/files.hpp"
#include "model/weight_image.hpp"

namespace enc5::cli {
namespace {

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: enc5 make-weights [--seed N] [--stress] [--force] -o FILE\n"
               "  Writes a deterministic synthetic weight image of %zu bytes (same seed, same bytes on\n"
               "  every platform). --seed N: unsigned 64-bit seed (default 1, the embedded default image).\n"
               "  --stress: overlay the stress design that drives every nonlinear branch of the layer\n"
               "  (docs/readings.md §4). The file is written to a temporary name and renamed.\n"
               "  An existing weight image (a %zu-byte file) is replaced, with a notice; any other\n"
               "  existing file only with --force.\n",
               kWeightImageBytes, kWeightImageBytes);
}

}  // namespace

int cmd_make_weights(const Args& args) {
  SyntheticOptions opt;
  std::string out;
  bool force = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      usage(stdout);
      return 0;
    } else if (a == "--stress") {
      opt.stress = true;
    } else if (a == "--force") {
      force = true;
    } else if (a == "--seed" || a == "-o" || a == "--output") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "enc5 make-weights: %s needs a value\n", a.c_str());
        usage(stderr);
        return 2;
      }
      const std::string& v = args[++i];
      if (a == "--seed") {
        opt.seed = checked_u64("--seed", v, 0, UINT64_MAX, NumberBase::dec_or_0x);  // decimal, or 0x-prefixed hex
      } else {
        out = v;
      }
    } else {
      std::fprintf(stderr, "enc5 make-weights: unknown argument '%s'\n", a.c_str());
      usage(stderr);
      return 2;
    }
  }
  if (out.empty()) {
    std::fprintf(stderr, "enc5 make-weights: no output file (-o FILE)\n");
    usage(stderr);
    return 2;
  }
  // An existing weight image (431136 bytes) is replaced with a notice; any other existing file or
  // a folder is refused unless --force: it is probably not a file meant to be overwritten.
  std::error_code ec;
  const bool exists = std::filesystem::exists(out, ec);
  std::string replaced;
  if (exists) {
    const bool is_file = std::filesystem::is_regular_file(out, ec);
    const auto size = is_file ? std::filesystem::file_size(out, ec) : 0;
    if (!is_file) {
      std::fprintf(stderr, "enc5 make-weights: %s exists and is not a file\n", out.c_str());
      return 2;
    }
    if (size != kWeightImageBytes && !force) {
      std::fprintf(stderr, "enc5 make-weights: %s exists and is not a weight image (%llu bytes, not %zu): add --force to replace it\n",
                   out.c_str(), static_cast<unsigned long long>(size), kWeightImageBytes);
      return 2;
    }
    replaced = " (replaced the existing file)";
  }
  const WeightImage w = make_synthetic_weights(opt);
  write_file_atomic(out, w.bytes());
  std::fprintf(stderr, "enc5 make-weights: wrote %s (%zu bytes, seed %llu%s)%s\n", out.c_str(), w.bytes().size(),
               static_cast<unsigned long long>(opt.seed), opt.stress ? ", stress" : "", replaced.c_str());
  return 0;
}

}  // namespace enc5::cli
