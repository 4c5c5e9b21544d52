// `rrswin replay` and `rrswin diff` of capture folders (issue 18: the second campaign found what the
// parser harnesses miss: links inside a capture, names whose numbers wrap, outputs written half).
// The input is records "name\n<bytes>" (fuzz_util.hpp) that become the files of a capture folder;
// a record named "@link NAME" makes NAME a symbolic link to its bytes ("outside" = a file outside
// the folder), and NAME may hold one '/' (results/…, a sequence member a/…). Then, as the CLI does:
// replay CAP -o OUT, diff CAP CAP-copy, diff CAP OUT (heat maps included). A clear error is fine;
// a crash, a sanitizer report, std::bad_alloc or a hang is a finding, and so is an output folder
// that holds a link or a partial set (all or nothing: io/output_set.hpp).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "assets/synthetic_weights.hpp"
#include "capture/capture.hpp"
#include "cli/commands.hpp"
#include "fuzz_util.hpp"
#include "model/weight_image.hpp"

namespace {

// The weight image, and beside it the file that "@link NAME" records point at ("outside").
const fuzz::fs::path& weights_file() {
  static const fuzz::fs::path p = [] {
    fuzz::write(fuzz::scratch() / "outside.bin", std::string("bytes outside the capture"));
    return fuzz::default_weights_file();
  }();
  return p;
}

bool safe_name(const std::string& n) {
  if (n.empty() || n.size() > 200 || n[0] == '/' || n.find("..") != std::string::npos || n.find('\0') != std::string::npos) return false;
  return std::count(n.begin(), n.end(), '/') <= 1 && n.back() != '/';
}

// Fails (a finding) when the output folder holds a symbolic link.
void check_no_link(const fuzz::fs::path& out) {
  std::error_code ec;
  if (!fuzz::fs::exists(out, ec)) return;
  for (auto it = fuzz::fs::recursive_directory_iterator(out, ec); it != fuzz::fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return;
    if (it->is_symlink()) {
      std::fprintf(stderr, "FINDING: the output folder holds a link: %s\n", it->path().c_str());
      std::abort();
    }
  }
}

std::vector<fuzz::Record> records_of(const fuzz::fs::path& cap) {
  std::vector<fuzz::Record> rs;
  for (const auto& e : fuzz::fs::recursive_directory_iterator(cap)) {
    if (!e.is_regular_file()) continue;
    const std::string n = fuzz::fs::relative(e.path(), cap).string();
    if (n == "alloc-1.bin" || n.find("-arg040-") != std::string::npos) continue;  // linked in by the harness
    const auto b = fuzz::read(e.path());
    rs.push_back({n, std::string(b.begin(), b.end())});
  }
  std::sort(rs.begin(), rs.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return rs;
}

// Renames the record holding `part` so that its shape (between the kind and -fmt) becomes `shape`.
void reshape(std::vector<fuzz::Record>& rs, const std::string& part, const std::string& shape) {
  for (auto& r : rs) {
    if (r.name.find(part) == std::string::npos) continue;
    for (const char* kind : {"-buffer-", "-surface-", "-texture-"}) {
      const auto k = r.name.find(kind);
      if (k == std::string::npos) continue;
      r.name = r.name.substr(0, k + std::strlen(kind)) + shape + r.name.substr(r.name.rfind("-fmt"));
      return;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // diff and replay print reports: not to the fuzzer's terminal.
  if (!std::freopen("/dev/null", "w", stdout)) std::abort();
  fuzz::maybe_write_seeds([](const fuzz::fs::path& d) {
    const auto cap = fuzz::scratch() / "seedcap";
    for (const auto form : {rrswin::capture::Form::launch_dump, rrswin::capture::Form::replay}) {
      fuzz::reset("seedcap");
      rrswin::capture::SyntheticCaptureOptions o;
      o.ex = 8;
      o.ey = 8;
      o.threads = 1;
      rrswin::capture::write_synthetic_capture(cap.string(), form, o);
      std::vector<fuzz::Record> rs = records_of(cap);
      const std::string f = form == rrswin::capture::Form::replay ? "replay" : "dumps";
      fuzz::write(d / (f + "-8x8"), fuzz::join_records(rs));
      if (form == rrswin::capture::Form::replay) continue;
      // The campaign's reproducers as seeds: an extra dump that is a link out, wrapped numbers.
      std::vector<fuzz::Record> l = rs;
      const std::string launch = rs.front().name.substr(0, rs.front().name.find("-arg"));
      l.push_back({"@link " + launch + "-arg120-buffer-base0x7f0000800000-size25-fmt0.bin", "outside"});
      fuzz::write(d / "dumps-link-out", fuzz::join_records(l));
      for (const char* shape : {"8x8-pitch0", "536870912x1", "65536x65536", "2147483647x1"}) {
        std::vector<fuzz::Record> w = rs;
        reshape(w, "-arg112-", shape);
        fuzz::write(d / (std::string("dumps-surface-") + shape), fuzz::join_records(w));
      }
      std::vector<fuzz::Record> off = rs;
      reshape(off, "-arg048-", "base0x7f0000800000-size10240-off18446744073709551615");
      fuzz::write(d / "dumps-off-wraps", fuzz::join_records(off));
    }
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& w = weights_file();
  const auto cap = fuzz::reset("cap"), copy = fuzz::reset("copy"), out = fuzz::reset("out");
  fuzz::fs::remove(out);  // replay creates it: all or nothing
  bool have_weights = false, replay_form = false;
  for (const fuzz::Record& r : fuzz::split_records(data, size)) {
    const bool link = r.name.rfind("@link ", 0) == 0;
    const std::string name = link ? r.name.substr(6) : r.name;
    if (!safe_name(name)) continue;
    std::error_code ec;
    for (const auto& dir : {cap, copy}) fuzz::fs::create_directories((dir / name).parent_path(), ec);
    if (link) {
      const fuzz::fs::path target = r.bytes == "outside" ? fuzz::scratch() / "outside.bin" : fuzz::fs::path(r.bytes.substr(0, 200));
      fuzz::fs::create_symlink(target, cap / name, ec);
      fuzz::fs::create_symlink(target, copy / name, ec);
      continue;
    }
    have_weights |= name.find("-arg040-") != std::string::npos || name == "alloc-1.bin";
    replay_form |= name == "manifest.txt";
    fuzz::write(cap / name, r.bytes);
    fuzz::write(copy / name, r.bytes);
  }
  if (!have_weights) {
    const std::string n =
        replay_form ? "alloc-1.bin" : "launch-001-cuda_dldn_engine_swin_enc5_kernel-arg040-buffer-base0x7f0000400000-size431136-fmt0.bin";
    ::link(w.c_str(), (cap / n).c_str());
    ::link(w.c_str(), (copy / n).c_str());
  }
  const std::string heat = (fuzz::scratch() / "heat").string();
  bool replayed = false;
  fuzz::guarded([&] {
    rrswin::cli::cmd_replay({cap.string(), "-o", out.string(), "--threads", "1"});
    replayed = true;
  });
  check_no_link(out);
  std::error_code ec;
  if (!replayed && fuzz::fs::exists(out, ec)) {
    std::fprintf(stderr, "FINDING: a failed replay left %s behind (outputs are all or nothing)\n", out.c_str());
    std::abort();
  }
  fuzz::guarded([&] { rrswin::cli::cmd_diff({cap.string(), copy.string(), "--heatmap-dir", heat}); });
  fuzz::guarded([&] { rrswin::cli::cmd_diff({cap.string(), out.string(), "--strict"}); });
  check_no_link(heat);
  return 0;
}
