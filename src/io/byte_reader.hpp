// A bounds-checked little-endian cursor over a file's bytes, shared by the EXR and trace readers.
// Every failure throws InputError naming the file, the byte offset where the expectation failed,
// what was expected and what was found (base/errors.hpp), so no reader ever indexes past the end.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "base/little_endian.hpp"

namespace rrswin::io_detail {

class ByteReader {
 public:
  ByteReader(std::span<const std::uint8_t> bytes, std::string file) : bytes_(bytes), file_(std::move(file)) {}

  std::size_t offset() const { return pos_; }
  std::size_t size() const { return bytes_.size(); }
  std::size_t remaining() const { return bytes_.size() - pos_; }
  const std::string& file() const { return file_; }
  std::span<const std::uint8_t> bytes() const { return bytes_; }

  void seek(std::uint64_t off, const std::string& what) {
    if (off > bytes_.size())
      fail(pos_, what + " within the file (offset <= " + std::to_string(bytes_.size()) + ")", "offset " + std::to_string(off));
    pos_ = static_cast<std::size_t>(off);
  }

  // Requires n more bytes for `what`; the error names the offset where the data ends.
  void need(std::uint64_t n, const std::string& what) const {
    if (n > remaining())
      fail(bytes_.size(), std::to_string(n) + " bytes of " + what + " starting at byte " + std::to_string(pos_),
           "end of file after " + std::to_string(remaining()) + " bytes");
  }

  std::uint8_t u8(const std::string& what) {
    need(1, what);
    return bytes_[pos_++];
  }
  std::uint32_t u32(const std::string& what) {
    need(4, what);
    const std::uint32_t v = load_le32(bytes_.data() + pos_);
    pos_ += 4;
    return v;
  }
  std::int32_t i32(const std::string& what) { return static_cast<std::int32_t>(u32(what)); }
  std::uint64_t u64(const std::string& what) {
    need(8, what);
    const std::uint64_t v = load_le64(bytes_.data() + pos_);
    pos_ += 8;
    return v;
  }
  float f32(const std::string& what) {
    const std::uint32_t bits = u32(what);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  std::string fixed_string(std::size_t n, const std::string& what) {
    need(n, what);
    std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return s;
  }
  // A NUL-terminated string of at most max_len characters (the NUL not counted).
  std::string cstring(std::size_t max_len, const std::string& what) {
    const std::size_t start = pos_;
    for (std::size_t i = 0; i <= max_len; ++i) {
      if (start + i >= bytes_.size())
        fail(bytes_.size(), what + " terminated by a NUL byte", "end of file after " + std::to_string(i) + " characters");
      if (bytes_[start + i] == 0) {
        pos_ = start + i + 1;
        return std::string(reinterpret_cast<const char*>(bytes_.data() + start), i);
      }
    }
    fail(start, what + " of at most " + std::to_string(max_len) + " characters",
         "no NUL byte within " + std::to_string(max_len + 1) + " bytes");
  }

  [[noreturn]] void fail(std::uint64_t at, const std::string& expected, const std::string& found) const {
    throw InputError(file_, at, expected, found);
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::string file_;
  std::size_t pos_ = 0;
};

inline std::string hex_bytes(std::span<const std::uint8_t> b) {
  std::string s;
  char buf[4];
  for (std::size_t i = 0; i < b.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%02x", i ? " " : "", b[i]);
    s += buf;
  }
  return s;
}

// Little-endian appenders for writers.
inline void put_u8(std::vector<std::uint8_t>& out, std::uint8_t v) { out.push_back(v); }
// The n low bytes of v (base/little_endian.hpp's order) appended.
inline void put_le(std::vector<std::uint8_t>& out, std::uint64_t v, int n) {
  out.resize(out.size() + n);
  store_le(out.data() + out.size() - n, v, n);
}
inline void put_u16(std::vector<std::uint8_t>& out, std::uint16_t v) { put_le(out, v, 2); }
inline void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) { put_le(out, v, 4); }
inline void put_i32(std::vector<std::uint8_t>& out, std::int32_t v) { put_u32(out, static_cast<std::uint32_t>(v)); }
inline void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) { put_le(out, v, 8); }
inline void put_f32(std::vector<std::uint8_t>& out, float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  put_u32(out, bits);
}
inline void put_cstring(std::vector<std::uint8_t>& out, const std::string& s) {
  out.insert(out.end(), s.begin(), s.end());
  out.push_back(0);
}

}  // namespace rrswin::io_detail
