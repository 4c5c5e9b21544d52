// The one parser of numbers that come from outside: command-line options, launch-dump file names,
// manifest fields, shape tokens. Digits only (no sign unless the range is signed, no blanks, no
// octal), the whole text, checked against a range before anything is sized from it; the error
// names the option or field, the text as given and the range (issue 18: no `stoi`/`stoull` text
// ever reaches a user, and no number is silently cut or wrapped).
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "base/errors.hpp"

namespace rrswin {

// How a number may be written: decimal digits, hex digits (no prefix: the caller's token holds it,
// e.g. base0x…), or decimal unless it starts with 0x/0X (manifest fields, seeds).
enum class NumberBase { dec, hex, dec_or_0x };

// The value of `text`, or nothing when it is empty, holds anything but digits of `base`, or is
// above 2^64 - 1.
std::optional<std::uint64_t> parse_u64(std::string_view text, NumberBase base = NumberBase::dec);
// The same with an optional leading '-' (|value| <= 2^63).
std::optional<std::int64_t> parse_i64(std::string_view text);

// A number out of its range or not a number at all: "<what>: expected …, got '<text>'" or
// "<what>: <text> is outside [lo, hi]".
struct NumberError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a number in [lo, hi] looks like, in words ("a decimal integer in [1, 65536]").
std::string number_range_text(std::int64_t lo, std::uint64_t hi, NumberBase base = NumberBase::dec);

// `text` as a number in [lo, hi]; throws NumberError naming `what` (an option, a field) otherwise.
std::uint64_t checked_u64(std::string_view what, std::string_view text, std::uint64_t lo, std::uint64_t hi,
                          NumberBase base = NumberBase::dec);
std::int64_t checked_i64(std::string_view what, std::string_view text, std::int64_t lo, std::int64_t hi);

// The same for a number read from `file` at `offset`: throws InputError naming the file, the offset,
// the field (`what`), its range and the text found.
std::uint64_t checked_u64_in(const std::string& file, std::uint64_t offset, std::string_view what, std::string_view text, std::uint64_t lo,
                             std::uint64_t hi, NumberBase base = NumberBase::dec);

}  // namespace rrswin
