// Helpers shared by the tests: a unique temporary folder per test (mkdtemp: other checkouts run
// the same tests at the same time) and running the built CLI.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace test_util {

namespace fs = std::filesystem;

struct Result {
  int status = -1;
  std::string out;  // stdout and stderr together
};

inline Result shell(const std::string& cmd) {
  Result r;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "rrswin_test_XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
  Result rrswin(const std::string& args) const { return shell("cd '" + path.string() + "' && '" RRSWIN_CLI_PATH "' " + args); }
};

inline bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }
inline bool have_python() { return shell("python3 -c 'import json, zlib'").status == 0; }

// The first file in dir whose name contains `part`.
inline fs::path find_file(const fs::path& dir, const std::string& part) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(part) != std::string::npos) return e.path();
  return {};
}

// Every regular file under dir, as paths relative to it, sorted (empty when dir does not exist).
inline std::vector<std::string> relative_files_under(const fs::path& dir) {
  std::vector<std::string> v;
  if (!fs::exists(dir)) return v;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) v.push_back(fs::relative(e.path(), dir).string());
  std::sort(v.begin(), v.end());
  return v;
}

// A file's bytes (empty when it cannot be read), and a file written with exactly these bytes.
inline std::vector<unsigned char> bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
inline void put(const fs::path& p, const std::vector<unsigned char>& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

}  // namespace test_util
