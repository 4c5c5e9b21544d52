// Errors for bad input: always name the file, the byte offset, what was expected and what was found.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace rrswin {

// Text from a file made printable for a message: a NUL or another control byte becomes \xNN, so
// that a message about a name holding one is neither cut nor garbled (bytes >= 0x80, UTF-8, pass).
inline std::string printable(const std::string& s) {
  std::string o;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      static const char* kHex = "0123456789abcdef";
      o += "\\x";
      o += kHex[c >> 4];
      o += kHex[c & 15];
    } else {
      o += ch;
    }
  }
  return o;
}

class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, std::uint64_t offset, const std::string& expected, const std::string& found)
      : std::runtime_error(printable(file) + ": at byte offset " + std::to_string(offset) + ": expected " + expected + ", found " +
                           printable(found)),
        file_(file),
        offset_(offset) {}
  const std::string& file() const { return file_; }
  std::uint64_t offset() const { return offset_; }

 private:
  std::string file_;
  std::uint64_t offset_;
};

}  // namespace rrswin
