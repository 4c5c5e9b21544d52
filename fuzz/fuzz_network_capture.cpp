// `rrswin replay --network` (per layer and --chained) on fuzzed whole-frame captures (issue 38: the
// harnesses cover each reader the network brings; bridge/network_capture.hpp load_network_capture,
// replay_network_capture). A whole frame is 1.6 MB of launch dumps even at the smallest render
// (64 x 64), too large for an input, so the harness writes that frame once (the synthetic network
// capture: every layer's default weights, seed 1) and an input is a list of edits to it
// (fuzz_util.hpp apply_edits: patch, size, drop, rename, new files; names inside the folder), and
// the flag record "chained" replays with --chained.
// Then, as the CLI does: replay --network CAP -o OUT [--chained]. A clear error is fine; a crash, a
// sanitizer report, std::bad_alloc or a hang is a finding, and so is a failed replay that leaves an
// output folder behind (all or nothing: io/output_set.hpp), or a replay of the unedited frame that
// fails.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "bridge/network_capture.hpp"
#include "cli/commands.hpp"
#include "fuzz_util.hpp"

namespace {

// The synthetic frame at the smallest render every level runs at, sorted by name.
const fuzz::Files& frame() {
  static const fuzz::Files files = [] {
    rrswin::ptx::NetworkCaptureOptions o;
    o.render_w = 64;
    o.render_h = 64;
    fuzz::Files f = rrswin::ptx::synthetic_network_capture_files(o);
    std::sort(f.begin(), f.end());
    return f;
  }();
  return files;
}

// A file name inside the folder: no separator, no "..", no NUL, bounded.
bool flat_name(const std::string& n) {
  return !n.empty() && n.size() <= 200 && n != "." && n != ".." && n.find('/') == std::string::npos && n.find('\0') == std::string::npos;
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
  const fuzz::Edited e = fuzz::apply_edits(frame(), {"chained"}, data, size, flat_name);
  const auto cap = fuzz::reset("cap"), out = fuzz::reset("out");
  fuzz::fs::remove(out);  // replay creates it: all or nothing
  fuzz::write_files(cap, e.files);
  std::vector<std::string> args{cap.string(), "--network", "-o", out.string(), "--threads", "1"};
  if (!e.flags.empty()) args.push_back("--chained");
  fuzz::run_edited(e, out, "replay --network", [&] { rrswin::cli::cmd_replay(args); });
  return 0;
}
