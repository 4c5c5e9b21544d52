// `rrswin replay --network` (per layer and --chained) on fuzzed whole-frame captures (issue 38: the
// harnesses cover each reader the network brings; bridge/network_capture.hpp load_network_capture,
// replay_network_capture). A whole frame is 1.6 MB of launch dumps even at the smallest render
// (64 x 64), too large for an input, so the harness writes that frame once (the synthetic network
// capture: every layer's default weights, seed 1) and an input is a list of edits to it, records
// "name\n<bytes>" (fuzz_util.hpp):
//   "patch N OFF"  overwrite file N (mod the file count, files sorted by name) at OFF (mod its size)
//                  with the record's bytes (clipped at the end of the file)
//   "size N LEN"   truncate or extend (with zeros) file N to LEN bytes (at most twice its size + 64)
//   "drop N"       delete file N
//   "name N"       rename file N to the record's bytes (a name inside the folder)
//   "chained"      replay with --chained
//   anything else  a new file of that name (inside the folder) holding the record's bytes
// Then, as the CLI does: replay --network CAP -o OUT [--chained]. A clear error is fine; a crash, a
// sanitizer report, std::bad_alloc or a hang is a finding, and so is a failed replay that leaves an
// output folder behind (all or nothing: io/output_set.hpp), or a replay of the unedited frame that
// fails.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bridge/network_capture.hpp"
#include "cli/commands.hpp"
#include "fuzz_util.hpp"

namespace {

using Files = std::vector<std::pair<std::string, std::vector<std::uint8_t>>>;

// The synthetic frame at the smallest render every level runs at, sorted by name.
const Files& frame() {
  static const Files files = [] {
    rrswin::ptx::NetworkCaptureOptions o;
    o.render_w = 64;
    o.render_h = 64;
    Files f = rrswin::ptx::synthetic_network_capture_files(o);
    std::sort(f.begin(), f.end());
    return f;
  }();
  return files;
}

// A file name inside the folder: no separator, no "..", no NUL, bounded.
bool flat_name(const std::string& n) {
  return !n.empty() && n.size() <= 200 && n != "." && n != ".." && n.find('/') == std::string::npos && n.find('\0') == std::string::npos;
}

// "verb N [M]" -> N, M (0 when absent or not a number).
bool parse_edit(const std::string& name, const std::string& verb, std::uint64_t* n, std::uint64_t* m) {
  if (name.rfind(verb + " ", 0) != 0) return false;
  std::istringstream in(name.substr(verb.size() + 1));
  *n = 0;
  *m = 0;
  in >> *n;
  if (in) in >> *m;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (!std::freopen("/dev/null", "w", stdout)) std::abort();
  fuzz::maybe_write_seeds([](const fuzz::fs::path& d) {
    // The unedited frame, per layer and chained; one edit of each kind on a launch's input, its
    // weights and an output (the file numbers are in frame()'s sorted order).
    const std::size_t n = frame().size();
    fuzz::write(d / "unedited", std::string());
    fuzz::write(d / "chained", fuzz::join_records({{"chained", ""}}));
    fuzz::write(d / "patch", fuzz::join_records({{"patch 8 1000", std::string(16, '\x7e')}}));
    fuzz::write(d / "patch-chained", fuzz::join_records({{"patch 20 64", std::string(8, '\xff')}, {"chained", ""}}));
    fuzz::write(d / "size", fuzz::join_records({{"size 7 100", ""}}));
    fuzz::write(d / "drop", fuzz::join_records({{"drop " + std::to_string(n - 1), ""}, {"chained", ""}}));
    fuzz::write(d / "name", fuzz::join_records({{"name 12", frame()[3].first}}));
    fuzz::write(d / "extra",
                fuzz::join_records({{"launch-012-cuda_dldn_engine_swin_dec0_kernel-arg008-buffer-base0x1-size4-fmt0.bin", "abcd"}}));
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Files files = frame();
  bool chained = false, edited = false;
  std::vector<bool> dropped(files.size(), false);
  Files extra;
  for (const fuzz::Record& r : fuzz::split_records(data, size)) {
    std::uint64_t a = 0, b = 0;
    if (r.name.empty() && r.bytes.empty()) continue;  // the empty input: no edit
    edited = true;
    if (r.name == "chained") {
      chained = true;
    } else if (parse_edit(r.name, "patch", &a, &b)) {
      auto& f = files[a % files.size()].second;
      if (f.empty()) continue;
      const std::size_t off = b % f.size(), len = std::min(r.bytes.size(), f.size() - off);
      std::copy_n(r.bytes.begin(), len, f.begin() + static_cast<std::ptrdiff_t>(off));
    } else if (parse_edit(r.name, "size", &a, &b)) {
      auto& f = files[a % files.size()].second;
      f.resize(static_cast<std::size_t>(std::min<std::uint64_t>(b, 2 * f.size() + 64)), 0);
    } else if (parse_edit(r.name, "drop", &a, &b)) {
      dropped[a % files.size()] = true;
    } else if (parse_edit(r.name, "name", &a, &b)) {
      if (flat_name(r.bytes)) files[a % files.size()].first = r.bytes;
    } else if (flat_name(r.name)) {
      extra.push_back({r.name, std::vector<std::uint8_t>(r.bytes.begin(), r.bytes.end())});
    }
  }
  const auto cap = fuzz::reset("cap"), out = fuzz::reset("out");
  fuzz::fs::remove(out);  // replay creates it: all or nothing
  for (std::size_t i = 0; i < files.size(); ++i)
    if (!dropped[i]) fuzz::write(cap / files[i].first, files[i].second);
  for (const auto& [name, bytes] : extra) fuzz::write(cap / name, bytes);
  std::vector<std::string> args{cap.string(), "--network", "-o", out.string(), "--threads", "1"};
  if (chained) args.push_back("--chained");
  bool replayed = false;
  fuzz::guarded([&] {
    rrswin::cli::cmd_replay(args);
    replayed = true;
  });
  if (!replayed && fuzz::fs::exists(out)) {
    std::fprintf(stderr, "FINDING: a failed replay --network left %s behind (outputs are all or nothing)\n", out.c_str());
    std::abort();
  }
  if (!replayed && !edited) {
    std::fprintf(stderr, "FINDING: the unedited synthetic frame does not replay\n");
    std::abort();
  }
  return 0;
}
