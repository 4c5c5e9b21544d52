// Shared by the libFuzzer harnesses (fuzz/README in docs/testing.md "Fuzzing"): the rule for what
// counts as a finding, a scratch folder per process, and the seed writer.
//
// Every harness feeds its bytes to one parser. A clear error (InputError, SizeError, any
// std::runtime_error / std::invalid_argument naming the input) is the parser doing its job; a crash,
// an ASan/UBSan report, a hang, std::bad_alloc or std::length_error (a size no check stopped) is
// a finding, and the harness aborts so that libFuzzer saves the input.
//
// Seeds: run a harness with RRSWIN_FUZZ_WRITE_SEEDS=DIR and it writes its seed inputs to DIR (made
// by rrswin's own synthetic writers, so nothing large is committed) and exits; scripts/fuzz.sh does.
#pragma once
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "assets/synthetic_weights.hpp"
#include "model/weight_image.hpp"

namespace fuzz {

namespace fs = std::filesystem;

template <class F>
void guarded(F&& f) {
  try {
    f();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "FINDING: std::bad_alloc (a size no check refused)\n");
    std::abort();
  } catch (const std::length_error& e) {
    std::fprintf(stderr, "FINDING: std::length_error: %s\n", e.what());
    std::abort();
  } catch (const std::exception&) {
    // A clear error: the parser refused the input.
  }
}

// A scratch folder for this process (under TMPDIR), emptied by reset().
inline const fs::path& scratch() {
  static const fs::path dir = [] {
    std::string t = (fs::temp_directory_path() / "rrswin_fuzz_XXXXXX").string();
    if (!::mkdtemp(t.data())) std::abort();
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(scratch(), ec);
    });
    return fs::path(t);
  }();
  return dir;
}
inline fs::path reset(const std::string& sub) {
  const fs::path d = scratch() / sub;
  std::error_code ec;
  fs::remove_all(d, ec);
  fs::create_directories(d);
  return d;
}

inline void write(const fs::path& p, const std::uint8_t* data, std::size_t n) {
  std::ofstream o(p, std::ios::binary | std::ios::trunc);
  o.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n));
}
inline void write(const fs::path& p, const std::vector<std::uint8_t>& v) { write(p, v.data(), v.size()); }
inline void write(const fs::path& p, const std::string& s) { write(p, reinterpret_cast<const std::uint8_t*>(s.data()), s.size()); }
// The embedded default weight image, written once as scratch()/weights.bin: the harnesses whose
// inputs need a valid image link or name this file, so that an input need not carry its 431,136
// bytes.
inline const fs::path& default_weights_file() {
  static const fs::path p = [] {
    const fs::path path = scratch() / "weights.bin";
    const auto& w = rrswin::default_weights().bytes();
    write(path, std::vector<std::uint8_t>(w.begin(), w.end()));
    return path;
  }();
  return p;
}

inline std::vector<std::uint8_t> read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// Records "name\n<bytes>" separated by "\n@@\n": how the capture harnesses pack several files
// into one input (names and contents both mutated).
inline const std::string kSep = "\n@@\n";
struct Record {
  std::string name;
  std::string bytes;
};
inline std::vector<Record> split_records(const std::uint8_t* data, std::size_t size) {
  const std::string s(reinterpret_cast<const char*>(data), size);
  std::vector<Record> out;
  std::size_t pos = 0;
  while (pos <= s.size() && out.size() < 64) {
    std::size_t end = s.find(kSep, pos);
    if (end == std::string::npos) end = s.size();
    const std::string r = s.substr(pos, end - pos);
    const std::size_t nl = r.find('\n');
    out.push_back(nl == std::string::npos ? Record{r, ""} : Record{r.substr(0, nl), r.substr(nl + 1)});
    pos = end + kSep.size();
  }
  return out;
}
inline std::string join_records(const std::vector<Record>& rs) {
  std::string s;
  for (std::size_t i = 0; i < rs.size(); ++i) s += (i ? kSep : "") + rs[i].name + "\n" + rs[i].bytes;
  return s;
}

// RRSWIN_FUZZ_WRITE_SEEDS=DIR: call write_seeds(DIR) and exit.
template <class F>
void maybe_write_seeds(F&& write_seeds) {
  const char* d = std::getenv("RRSWIN_FUZZ_WRITE_SEEDS");
  if (!d || !*d) return;
  fs::create_directories(d);
  write_seeds(fs::path(d));
  std::exit(0);
}

// Edits of a fixed set of files, for the harnesses whose valid inputs are too large to be an input
// (a whole frame's captures, a network's inputs): the harness makes the files once and an input is
// a list of records that edit them (the same record format):
//   "patch N OFF"  overwrite file N (mod the file count) at OFF (mod its size) with the record's
//                  bytes (clipped at the end of the file)
//   "size N LEN"   truncate or extend (with zeros) file N to LEN bytes (at most twice its size + 64)
//   "drop N"       delete file N
//   "name N"       rename file N to the record's bytes (when name_ok accepts it)
//   a flag name    (one of `flags`) set, no file
//   anything else  a new file of that name (when name_ok accepts it) holding the record's bytes
using Files = std::vector<std::pair<std::string, std::vector<std::uint8_t>>>;
struct Edited {
  Files files;                     // the files after the edits (dropped ones left out)
  std::vector<std::string> flags;  // the flags set
  bool edited = false;             // any record at all
};
template <class NameOk>
Edited apply_edits(const Files& base, const std::vector<std::string>& flags, const std::uint8_t* data, std::size_t size, NameOk name_ok) {
  Edited e;
  Files files = base;
  std::vector<bool> dropped(files.size(), false);
  Files extra;
  auto edit = [](const std::string& name, const std::string& verb, std::uint64_t* n, std::uint64_t* m) {
    if (name.rfind(verb + " ", 0) != 0) return false;
    *n = std::strtoull(name.c_str() + verb.size() + 1, nullptr, 10);
    const std::size_t sp = name.find(' ', verb.size() + 1);
    *m = sp == std::string::npos ? 0 : std::strtoull(name.c_str() + sp + 1, nullptr, 10);
    return true;
  };
  for (const Record& r : split_records(data, size)) {
    std::uint64_t a = 0, b = 0;
    if (r.name.empty() && r.bytes.empty()) continue;  // the empty input: no edit
    e.edited = true;
    if (std::find(flags.begin(), flags.end(), r.name) != flags.end()) {
      e.flags.push_back(r.name);
    } else if (files.empty()) {
      continue;
    } else if (edit(r.name, "patch", &a, &b)) {
      auto& f = files[a % files.size()].second;
      if (f.empty()) continue;
      const std::size_t off = b % f.size(), len = std::min(r.bytes.size(), f.size() - off);
      std::copy_n(r.bytes.begin(), len, f.begin() + static_cast<std::ptrdiff_t>(off));
    } else if (edit(r.name, "size", &a, &b)) {
      auto& f = files[a % files.size()].second;
      f.resize(static_cast<std::size_t>(std::min<std::uint64_t>(b, 2 * f.size() + 64)), 0);
    } else if (edit(r.name, "drop", &a, &b)) {
      dropped[a % files.size()] = true;
    } else if (edit(r.name, "name", &a, &b)) {
      if (name_ok(r.bytes)) files[a % files.size()].first = r.bytes;
    } else if (name_ok(r.name)) {
      extra.push_back({r.name, std::vector<std::uint8_t>(r.bytes.begin(), r.bytes.end())});
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i)
    if (!dropped[i]) e.files.push_back(std::move(files[i]));
  for (auto& f : extra) e.files.push_back(std::move(f));
  return e;
}
// Writes the files under dir (a name "a/b" makes the folder a).
inline void write_files(const fs::path& dir, const Files& files) {
  std::error_code ec;
  for (const auto& [name, bytes] : files) {
    fs::create_directories((dir / name).parent_path(), ec);
    write(dir / name, bytes);
  }
}

// A command run on edited files (the harnesses above): `command` returns normally when it wrote its
// outputs to `out`; a clear error is fine, but a failed run that leaves `out` behind (outputs are
// all or nothing) or a failed run of the unedited files is a finding.
template <class F>
void run_edited(const Edited& e, const fs::path& out, const char* what, F&& command) {
  bool ran = false;
  guarded([&] {
    command();
    ran = true;
  });
  if (!ran && fs::exists(out)) {
    std::fprintf(stderr, "FINDING: a failed %s left %s behind (outputs are all or nothing)\n", what, out.c_str());
    std::abort();
  }
  if (!ran && !e.edited) {
    std::fprintf(stderr, "FINDING: %s fails on the unedited files\n", what);
    std::abort();
  }
}

}  // namespace fuzz
