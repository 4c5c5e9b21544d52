// Errors for bad input: always name the file, the byte offset, what was expected and what was found.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace enc5 {

class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, std::uint64_t offset, const std::string& expected, const std::string& found)
      : std::runtime_error(file + ": at byte offset " + std::to_string(offset) + ": expected " + expected +
                           ", found " + found),
        file_(file), offset_(offset) {}
  const std::string& file() const { return file_; }
  std::uint64_t offset() const { return offset_; }

 private:
  std::string file_;
  std::uint64_t offset_;
};

}  // namespace enc5
