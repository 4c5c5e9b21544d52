#include "io/output_set.hpp"

#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "io/files.hpp"
#include "io/links.hpp"

namespace rrswin {

namespace fs = std::filesystem;

namespace {

// Creates `dir` and the missing folders above it, appending each one created to `created`.
void create_folders(const fs::path& dir, std::vector<std::string>& created) {
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = dir; !p.empty() && !fs::exists(fs::symlink_status(p, ec)); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (!fs::create_directory(*it, ec) && ec) throw std::runtime_error(it->string() + ": cannot create the folder (" + ec.message() + ")");
    created.push_back(it->string());
  }
}

}  // namespace

OutputSet::OutputSet(std::string dir) : dir_(std::move(dir)) { check_output_dir(dir_); }

OutputSet::~OutputSet() {
  std::error_code ec;
  if (!stage_.empty()) fs::remove_all(stage_, ec);
  if (committed_) return;
  // Innermost first; only folders this set made, and only when empty (nothing else was put there).
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) fs::remove(*it, ec);
}

std::string OutputSet::final_path(const std::string& name) const { return (fs::path(dir_) / name).string(); }

std::string OutputSet::path(const std::string& name) {
  if (committed_) throw std::logic_error("OutputSet::path after commit");
  if (stage_.empty()) {
    create_folders(dir_, created_);
    stage_ = (fs::path(dir_) / (".rrswin-partial-" + std::to_string(::getpid()))).string();
    std::error_code ec;
    fs::remove_all(stage_, ec);  // a killed run's leftovers under the same pid
    if (!fs::create_directory(stage_, ec)) throw std::runtime_error(stage_ + ": cannot create the staging folder (" + ec.message() + ")");
  }
  if (std::find(names_.begin(), names_.end(), name) == names_.end()) names_.push_back(name);
  const fs::path p = fs::path(stage_) / name;
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  if (ec) throw std::runtime_error(p.parent_path().string() + ": cannot create the folder (" + ec.message() + ")");
  return p.string();
}

void OutputSet::write(const std::string& name, std::span<const std::uint8_t> bytes) { write_file_atomic(path(name), bytes); }
void OutputSet::write_text(const std::string& name, const std::string& text) { write_text_atomic(path(name), text); }
void OutputSet::link_or_copy(const std::string& src, const std::string& name) { link_or_copy_file(src, path(name)); }

std::vector<std::string> OutputSet::commit() {
  std::vector<std::string> moved, out;
  for (const std::string& name : names_) {
    const fs::path from = fs::path(stage_) / name, to = final_path(name);
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(from, ec))) continue;  // named but never written
    create_folders(to.parent_path(), created_);
    fs::rename(from, to, ec);
    if (ec) {
      for (const std::string& m : moved) fs::remove(m, ec);
      throw std::runtime_error(to.string() + ": cannot move the output into place (" + ec.message() + "); no output of this run was kept");
    }
    moved.push_back(to.string());
    out.push_back(to.string());
  }
  committed_ = true;
  std::error_code ec;
  if (!stage_.empty()) fs::remove_all(stage_, ec);
  stage_.clear();
  return out;
}

}  // namespace rrswin
