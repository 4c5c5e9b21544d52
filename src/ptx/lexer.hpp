// Internal to src/ptx: PTX text -> tokens (words, numbers, strings, punctuation), each with its
// line. The module parser (parser.cpp) reads them; every error names the file and line.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rrswin::ptx {

struct Tok {
  enum Kind { word, num, str, punct, end } kind = end;
  std::string_view text;
  std::uint32_t line = 0;
  bool is(char c) const { return kind == punct && text.size() == 1 && text[0] == c; }
  bool is(std::string_view w) const { return kind == word && text == w; }
};

// The tokens of s (the text of `file`, for messages), ending in one Tok::end.
std::vector<Tok> lex(std::string_view s, const std::string& file);

}  // namespace rrswin::ptx
