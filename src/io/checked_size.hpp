// Overflow-checked size arithmetic for numbers that come from files, file names and command lines
// (widths, heights, pitches, extents, offsets). Every byte count rrswin derives from such a number
// goes through here, so that a product that wraps (pitch 2^59 x height 32 = 0 in 64 bits) or a
// size no machine can hold is refused with the numbers and the limit, before anything is
// allocated or indexed.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "base/errors.hpp"

namespace rrswin {

// The most bytes rrswin allocates for one buffer, texture or surface (16 GiB): the real frame's plane
// arena is 147,200 bytes and a 4K frame's about 21 MB, so anything near this is a damaged number.
inline constexpr std::uint64_t kMaxBufferBytes = 1ull << 34;

// a * b and a + b, or nothing when the result does not fit in 64 bits.
constexpr std::optional<std::uint64_t> mul_u64(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
constexpr std::optional<std::uint64_t> add_u64(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// A byte count out of range: the message names the formula, its factors and the limit.
struct SizeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace size_detail {
inline std::string factors_text(std::initializer_list<std::uint64_t> factors) {
  std::string s;
  for (const std::uint64_t f : factors) s += (s.empty() ? "" : " × ") + std::to_string(f);
  return s;
}
inline std::string limit_text(std::uint64_t limit) {
  return std::to_string(limit) + " bytes" + (limit == kMaxBufferBytes ? " (16 GiB, enc5's limit for one buffer)" : "");
}
// The product, or the words for why it is refused (empty when it is fine).
inline std::uint64_t product(std::initializer_list<std::uint64_t> factors, std::uint64_t limit, std::string& why) {
  std::uint64_t p = 1;
  for (const std::uint64_t f : factors) {
    const auto m = mul_u64(p, f);
    if (!m) {
      why = factors_text(factors) + " = more than 2^64 bytes (the product wraps in 64 bits)";
      return 0;
    }
    p = *m;
  }
  if (p > limit) why = factors_text(factors) + " = " + std::to_string(p) + " bytes";
  return p;
}
}  // namespace size_detail

// The product of `factors` as a byte count for `what` (a formula in words, e.g. "pitch × height");
// throws SizeError when it wraps or exceeds `limit`.
inline std::uint64_t checked_bytes(std::string_view what, std::initializer_list<std::uint64_t> factors,
                                   std::uint64_t limit = kMaxBufferBytes) {
  std::string why;
  const std::uint64_t p = size_detail::product(factors, limit, why);
  if (!why.empty()) throw SizeError(std::string(what) + ": " + why + " exceeds " + size_detail::limit_text(limit));
  return p;
}

// The same for a number read from `file` at `offset`: throws InputError naming them.
inline std::uint64_t checked_bytes_in(const std::string& file, std::uint64_t offset, std::string_view what,
                                      std::initializer_list<std::uint64_t> factors, std::uint64_t limit = kMaxBufferBytes) {
  std::string why;
  const std::uint64_t p = size_detail::product(factors, limit, why);
  if (!why.empty()) throw InputError(file, offset, std::string(what) + " of at most " + size_detail::limit_text(limit), why);
  return p;
}

// a + b for a window [a, a + b) read from `file`; throws InputError when it wraps.
inline std::uint64_t checked_end_in(const std::string& file, std::uint64_t offset, std::string_view what, std::uint64_t a,
                                    std::uint64_t b) {
  const auto e = add_u64(a, b);
  if (!e)
    throw InputError(file, offset, std::string(what) + " ending within 2^64 bytes",
                     std::to_string(a) + " + " + std::to_string(b) + " (the sum wraps in 64 bits)");
  return *e;
}

}  // namespace rrswin
