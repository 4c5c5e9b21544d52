#include "io/numbers.hpp"

#include <charconv>
#include <initializer_list>

namespace rrswin {

std::optional<std::uint64_t> parse_u64(std::string_view s, NumberBase base) {
  int radix = 10;
  const bool has_0x = s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  if (base == NumberBase::hex) radix = 16;
  if (base == NumberBase::dec_or_0x && has_0x) {
    radix = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return std::nullopt;
  // from_chars accepts no sign, blanks or prefix for unsigned types; the whole text must be used.
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, radix);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_i64(std::string_view s) {
  const bool neg = !s.empty() && s[0] == '-';
  const auto m = parse_u64(neg ? s.substr(1) : s);
  if (!m) return std::nullopt;
  if (neg) {
    if (*m > (1ull << 63)) return std::nullopt;
    return *m == (1ull << 63) ? INT64_MIN : -static_cast<std::int64_t>(*m);
  }
  if (*m > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<std::int64_t>(*m);
}

namespace {

const char* base_words(NumberBase base) {
  return base == NumberBase::hex ? "a hex number" : base == NumberBase::dec_or_0x ? "an integer (decimal or 0x hex)" : "an integer";
}

// Digits of the base (a number too large for 64 bits is out of range, not "not a number").
bool all_digits(std::string_view s, NumberBase base) {
  const bool has_0x = s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const bool hex = base == NumberBase::hex || (base == NumberBase::dec_or_0x && has_0x);
  if (base == NumberBase::dec_or_0x && has_0x) s.remove_prefix(2);
  if (!s.empty() && s[0] == '-' && base == NumberBase::dec) s.remove_prefix(1);
  if (s.empty()) return false;
  for (const char c : s)
    if (!(c >= '0' && c <= '9') && !(hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))) return false;
  return true;
}

// Messages are appended piece by piece: GCC 12 warns falsely (-Wrestrict) on long operator+ chains.
std::string join(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (const std::string_view p : parts) s.append(p);
  return s;
}

std::string range(std::int64_t lo, std::uint64_t hi) { return join({"[", std::to_string(lo), ", ", std::to_string(hi), "]"}); }
std::string range_i(std::int64_t lo, std::int64_t hi) { return join({"[", std::to_string(lo), ", ", std::to_string(hi), "]"}); }

}  // namespace

std::string number_range_text(std::int64_t lo, std::uint64_t hi, NumberBase base) {
  return join({base_words(base), " in ", range(lo, hi)});
}

std::uint64_t checked_u64(std::string_view what, std::string_view text, std::uint64_t lo, std::uint64_t hi, NumberBase base) {
  const auto v = parse_u64(text, base);
  if (!v && !all_digits(text, base)) throw NumberError(join({what, ": expected ", base_words(base), ", got '", text, "'"}));
  if (!v || *v < lo || *v > hi) throw NumberError(join({what, ": ", text, " is outside ", range(static_cast<std::int64_t>(lo), hi)}));
  return *v;
}

std::int64_t checked_i64(std::string_view what, std::string_view text, std::int64_t lo, std::int64_t hi) {
  const auto v = parse_i64(text);
  if (!v && !all_digits(text, NumberBase::dec)) throw NumberError(join({what, ": expected an integer, got '", text, "'"}));
  if (!v || *v < lo || *v > hi) throw NumberError(join({what, ": ", text, " is outside ", range_i(lo, hi)}));
  return *v;
}

std::uint64_t checked_u64_in(const std::string& file, std::uint64_t offset, std::string_view what, std::string_view text, std::uint64_t lo,
                             std::uint64_t hi, NumberBase base) {
  const auto v = parse_u64(text, base);
  if (!v || *v < lo || *v > hi)
    throw InputError(file, offset, join({what, ": ", number_range_text(static_cast<std::int64_t>(lo), hi, base)}), join({"'", text, "'"}));
  return *v;
}

}  // namespace rrswin
