// A command's outputs, all or nothing (docs/formats.md "Outputs: all or nothing"). Every output is
// written into a hidden staging folder, `.rrswin-partial-<pid>` inside the output folder (so the final
// move is a rename on one file system), and commit() moves each into place. A command that fails
// before commit() leaves the output folder as it was: the destructor removes the staging folder and
// every folder the set created. Each file is also written atomically (io/files.hpp).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace rrswin {

class OutputSet {
 public:
  // Checks that `dir` can take outputs (check_output_dir) before any work; creates nothing yet.
  explicit OutputSet(std::string dir);
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  // Where to write the output `name` (a file name, or sub/name below the output folder): a path
  // in the staging folder, its folders created.
  std::string path(const std::string& name);
  // Where the output `name` will be once committed.
  std::string final_path(const std::string& name) const;
  void write(const std::string& name, std::span<const std::uint8_t> bytes);
  void write_text(const std::string& name, const std::string& text);
  // The capture file `src` carried over as `name` (io/links.hpp link_or_copy_file: never a link).
  void link_or_copy(const std::string& src, const std::string& name);
  // Moves every output into place in the order first named. A failure on the way removes the
  // outputs already moved, then throws std::runtime_error naming the file. Returns the final paths.
  std::vector<std::string> commit();
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_, stage_;
  std::vector<std::string> names_;
  std::vector<std::string> created_;  // folders this set created, outermost first
  bool committed_ = false;
};

}  // namespace rrswin
