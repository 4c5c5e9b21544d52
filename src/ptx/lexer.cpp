// The PTX lexer (lexer.hpp).
#include "ptx/lexer.hpp"

#include <cctype>
#include <cstring>

#include "ptx/ptx.hpp"

namespace rrswin::ptx {

namespace {

bool word_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.'; }
bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; }

// A directive word whose first part is a state space (or `.ptr`) followed by more '.' parts is
// those parts, each its own word (PTX ISA 5.1: each is a directive or type of its own).
void split_directive(Tok t, std::vector<Tok>& out, const std::string& file) {
  static constexpr std::string_view kSpaces[] = {".reg", ".param", ".shared", ".global", ".local", ".const", ".ptr"};
  const std::string_view w = t.text;
  const std::size_t dot = w.find('.', 1);
  bool space = false;
  if (dot != std::string_view::npos) {
    std::string_view head = w.substr(0, dot);
    if (const std::size_t colons = head.find("::"); colons != std::string_view::npos) head = head.substr(0, colons);
    for (std::string_view sp : kSpaces) space |= head == sp;
  }
  if (!space) {
    out.push_back(t);
    return;
  }
  std::size_t b = 0;
  while (b < w.size()) {
    std::size_t e = w.find('.', b + 1);
    if (e == std::string_view::npos) e = w.size();
    Tok part = t;
    part.text = w.substr(b, e - b);
    if (part.text.size() < 2) throw PtxError(file + ":" + std::to_string(t.line) + ": empty directive part in '" + std::string(w) + "'");
    out.push_back(part);
    b = e;
  }
}

}  // namespace

std::vector<Tok> lex(std::string_view s, const std::string& file) {
  std::vector<Tok> out;
  std::uint32_t line = 1;
  std::size_t i = 0;
  auto fail = [&](const std::string& m) { throw PtxError(file + ":" + std::to_string(line) + ": " + m); };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const std::uint32_t start = line;
      i += 2;
      while (i + 1 < s.size() && !(s[i] == '*' && s[i + 1] == '/')) {
        if (s[i] == '\n') ++line;
        ++i;
      }
      if (i + 1 >= s.size()) {
        line = start;
        fail("unterminated /* comment");
      }
      i += 2;
      continue;
    }
    Tok t;
    t.line = line;
    const std::size_t b = i;
    if (c == '"') {
      ++i;
      while (i < s.size() && s[i] != '"' && s[i] != '\n') ++i;
      if (i >= s.size() || s[i] != '"') fail("unterminated string");
      ++i;
      t.kind = Tok::str;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      const bool hexlike = c == '0' && i + 1 < s.size() && std::strchr("xXfFdD", s[i + 1]) != nullptr;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == '_' ||
                              (!hexlike && (s[i] == '+' || s[i] == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E'))))
        ++i;
      t.kind = Tok::num;
    } else if (word_start(c)) {
      ++i;
      while (i < s.size()) {
        if (word_char(s[i])) {
          ++i;
          continue;
        }
        if (s[i] == ':' && i + 2 < s.size() && s[i + 1] == ':' && word_char(s[i + 2])) {
          i += 2;
          continue;
        }
        break;
      }
      t.kind = Tok::word;
    } else if (std::strchr(",;:{}[]()+-@!|<>=", c)) {
      ++i;
      t.kind = Tok::punct;
    } else {
      fail(std::string("unexpected character '") + c + "'");
    }
    t.text = s.substr(b, i - b);
    if (t.kind == Tok::word && t.text[0] == '.') {
      // A state space and a type written without a space (`.param.u64 x`, `.reg.u64 t`,
      // `.shared.u32 s`, `.param .u64 .ptr.global.align 8 p`): one directive word per '.' part.
      split_directive(t, out, file);
      continue;
    }
    out.push_back(t);
  }
  Tok e;
  e.kind = Tok::end;
  e.line = line;
  out.push_back(e);
  return out;
}

}  // namespace rrswin::ptx
