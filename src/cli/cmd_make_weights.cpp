// rrswin make-weights --seed N [--stress] -o FILE: a deterministic synthetic weight image
// (assets/synthetic_weights.cpp), written atomically so that a failed run leaves no partial file.
#include <cstdio>
#include <filesystem>
#include <string>

#include "assets/synthetic_weights.hpp"
#include "cli/commands.hpp"
#include "io/files.hpp"
#include "io/numbers.hpp"
#include "model/layer_program.hpp"
#include "model/weight_image.hpp"

namespace rrswin::cli {
namespace {

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: rrswin make-weights [--seed N] [--stress] [--layer LAYER] [--force] -o FILE\n"
               "  Writes a deterministic synthetic weight image (same seed, same bytes on every platform;\n"
               "  enc5's is %zu bytes). --seed N: unsigned 64-bit seed (default 1, the embedded default image).\n"
               "  --stress: overlay the stress design that drives every nonlinear branch of enc5\n"
               "  (docs/readings.md §4). The file is written to a temporary name and renamed.\n"
               "  An existing weight image (a file of the layer's image size) is replaced, with a notice; any\n"
               "  other existing file only with --force.\n"
               "  --layer: any layer of the network (%s; default enc5): the same design scaled to\n"
               "  the layer's image (rrswin layers lists the sizes; no --stress).\n",
               kWeightImageBytes, std::string(layer_names()).c_str());
}

// The command line, parsed; `exit_code` >= 0 when the command ends here (help or an error).
struct Options {
  SyntheticOptions synthetic;
  std::string out;
  bool force = false;
  LayerId layer = LayerId::enc5;
  int exit_code = -1;
};

Options parse_options(const Args& args) {
  Options o;
  auto fail = [&](bool with_usage) {
    if (with_usage) usage(stderr);
    o.exit_code = 2;
    return o;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      usage(stdout);
      o.exit_code = 0;
      return o;
    } else if (a == "--stress") {
      o.synthetic.stress = true;
    } else if (a == "--force") {
      o.force = true;
    } else if (a == "--layer") {
      if (i + 1 >= args.size() || !parse_layer(args[i + 1], &o.layer)) {
        std::fprintf(stderr, "rrswin make-weights: --layer needs one of %s%s%s%s\n", std::string(layer_names()).c_str(),
                     i + 1 < args.size() ? " (not '" : "", i + 1 < args.size() ? args[i + 1].c_str() : "", i + 1 < args.size() ? "')" : "");
        return fail(false);
      }
      ++i;
    } else if (a == "--seed" || a == "-o" || a == "--output") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "rrswin make-weights: %s needs a value\n", a.c_str());
        return fail(true);
      }
      const std::string& v = args[++i];
      if (a == "--seed")
        o.synthetic.seed = checked_u64("--seed", v, 0, UINT64_MAX, NumberBase::dec_or_0x);  // decimal, or 0x-prefixed hex
      else
        o.out = v;
    } else {
      std::fprintf(stderr, "rrswin make-weights: unknown argument '%s'\n", a.c_str());
      return fail(true);
    }
  }
  if (o.synthetic.stress && o.layer != LayerId::enc5) {
    std::fprintf(stderr, "rrswin make-weights: --stress exists for enc5 only (docs/readings.md §4 'stress design')\n");
    return fail(false);
  }
  if (o.out.empty()) {
    std::fprintf(stderr, "rrswin make-weights: no output file (-o FILE)\n");
    return fail(true);
  }
  return o;
}

// An existing weight image (a file of the layer's image size) is replaced with a notice; any other
// existing file or a folder is refused unless --force: it is probably not a file meant to be
// overwritten. Returns false (after the message) when it is refused; *replaced gets the notice.
bool may_write(const Options& o, std::size_t image_bytes, std::string* replaced) {
  std::error_code ec;
  if (!std::filesystem::exists(o.out, ec)) return true;
  const bool is_file = std::filesystem::is_regular_file(o.out, ec);
  const auto size = is_file ? std::filesystem::file_size(o.out, ec) : 0;
  if (!is_file) {
    std::fprintf(stderr, "rrswin make-weights: %s exists and is not a file\n", o.out.c_str());
    return false;
  }
  if (size != image_bytes && !o.force) {
    std::fprintf(stderr, "rrswin make-weights: %s exists and is not a weight image (%llu bytes, not %zu): add --force to replace it\n",
                 o.out.c_str(), static_cast<unsigned long long>(size), image_bytes);
    return false;
  }
  *replaced = " (replaced the existing file)";
  return true;
}

}  // namespace

int cmd_make_weights(const Args& args) {
  const Options o = parse_options(args);
  if (o.exit_code >= 0) return o.exit_code;
  std::string replaced;
  if (!may_write(o, weight_map(layer_spec(o.layer)).image_bytes(), &replaced)) return 2;
  const WeightImage w = make_layer_synthetic_weights(o.layer, o.synthetic);
  write_file_atomic(o.out, w.bytes());
  std::string what;
  if (o.layer != LayerId::enc5) {  // the layer and the numbers its docs state (docs/readings.md §7)
    const LayerProgram& prog = layer_program(o.layer);
    what = ", " + std::string(to_string(o.layer)) + ": " + std::to_string(prog.phases.size()) + " phases, " +
           std::to_string(prog.mma_total) + " mma";
  }
  std::fprintf(stderr, "rrswin make-weights: wrote %s (%zu bytes, seed %llu%s%s)%s\n", o.out.c_str(), w.bytes().size(),
               static_cast<unsigned long long>(o.synthetic.seed), o.synthetic.stress ? ", stress" : "", what.c_str(), replaced.c_str());
  return 0;
}

}  // namespace rrswin::cli
