// Helpers of the hostile-input tests (hostile_input_test.cpp, hostile_input2_test.cpp) that turn a
// good synthetic capture into a bad one: read and rewrite a file, replace text in its manifest,
// rename a dump so that its name states another shape (docs/captures.md, facts F5).
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "test_util.hpp"

namespace capture_edit {

namespace fs = std::filesystem;

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
inline void write_text(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary | std::ios::trunc) << s; }

// Replaces the first occurrence of `what` in the capture's manifest.
inline void edit_manifest(const fs::path& dir, const std::string& what, const std::string& with) {
  const fs::path m = dir / "manifest.txt";
  std::string text = read_text(m);
  const auto at = text.find(what);
  ASSERT_NE(at, std::string::npos) << "'" << what << "' not in " << m;
  text.replace(at, what.size(), with);
  write_text(m, text);
}

// Renames the dump file holding `part` so that its shape becomes `shape`.
inline fs::path rename_shape(const fs::path& dir, const std::string& part, const std::string& shape) {
  const fs::path f = test_util::find_file(dir, part);
  EXPECT_FALSE(f.empty()) << part;
  const std::string n = f.filename().string();
  const std::string kind = n.find("surface") != std::string::npos   ? "surface-"
                           : n.find("texture") != std::string::npos ? "texture-"
                                                                    : "buffer-";
  const auto k = n.find(kind) + kind.size();
  const fs::path to = dir / (n.substr(0, k) + shape + n.substr(n.rfind("-fmt")));
  fs::rename(f, to);
  return to;
}

}  // namespace capture_edit
