// d4r's launch-dump names (facts F5) and the shape strings inside them, parsed and written
// (docs/captures.md "Launch dumps", "Canonical shapes"), and the small parsers the other capture
// files share.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "base/errors.hpp"
#include "capture/capture.hpp"
#include "capture/capture_detail.hpp"
#include "io/arena_io.hpp"
#include "io/numbers.hpp"

namespace rrswin::capture {
namespace detail {

bool parse_u64(std::string_view s, std::uint64_t& v, int base) {
  // The one number parser (io/numbers.hpp); here only the yes/no, the caller names the token.
  const auto r = rrswin::parse_u64(s, base == 16 ? NumberBase::hex : NumberBase::dec);
  if (r) v = *r;
  return r.has_value();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

const char* mode_name(AddressMode m) {
  switch (m) {
    case AddressMode::clamp: return "clamp";
    case AddressMode::border_zero: return "border";
    case AddressMode::wrap: return "wrap";
    case AddressMode::mirror: return "mirror";
  }
  return "clamp";
}

bool parse_mode(const std::string& s, AddressMode& m) {
  if (s == "clamp")
    m = AddressMode::clamp;
  else if (s == "border")
    m = AddressMode::border_zero;
  else if (s == "wrap")
    m = AddressMode::wrap;
  else if (s == "mirror")
    m = AddressMode::mirror;
  else
    return false;
  return true;
}

}  // namespace detail

using namespace detail;

// --- names ---------------------------------------------------------------------------------------

// launch-<digits>-<kernel>-arg<3 digits>-<kind>-<shape>-fmt<digits>.bin (docs/captures.md): the
// kernel is the shortest non-empty prefix after which "-argNNN-<kind>-" and a non-empty shape
// follow; the shape runs to the last "-fmt". Parsed by hand, in linear passes: no backtracking
// regular expression on a name that comes from someone else's disk.
std::optional<DumpName> parse_dump_name(const std::string& file_name) {
  const std::string_view n(file_name);
  auto digits = [](std::string_view d) {
    return !d.empty() && std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (n.rfind("launch-", 0) != 0 || n.size() < 4 || n.substr(n.size() - 4) != ".bin") return std::nullopt;
  const std::string_view body = n.substr(7, n.size() - 11);  // without "launch-" and ".bin"
  const auto dash = body.find('-');
  if (dash == std::string_view::npos || !digits(body.substr(0, dash))) return std::nullopt;
  const auto fmt_at = body.rfind("-fmt");
  if (fmt_at == std::string_view::npos || fmt_at <= dash || !digits(body.substr(fmt_at + 4))) return std::nullopt;
  const std::string_view mid = body.substr(dash + 1, fmt_at - dash - 1);  // kernel-argNNN-kind-shape
  DumpName out;
  bool found = false;
  for (std::size_t i = 1; i + 5 < mid.size() && !found; ++i) {
    if (mid.compare(i, 4, "-arg") != 0 || !digits(mid.substr(i + 4, 3)) || i + 7 >= mid.size() || mid[i + 7] != '-') continue;
    for (const char* kind : {"buffer", "surface", "texture"}) {
      const std::size_t k = i + 8, len = std::strlen(kind);
      if (mid.compare(k, len, kind) == 0 && k + len < mid.size() && mid[k + len] == '-' && k + len + 1 < mid.size()) {
        out.kernel = std::string(mid.substr(0, i));
        out.arg = (mid[i + 4] - '0') * 100 + (mid[i + 5] - '0') * 10 + (mid[i + 6] - '0');
        out.kind = kind;
        out.shape = std::string(mid.substr(k + len + 1));
        found = true;
        break;
      }
    }
  }
  if (!found) return std::nullopt;
  std::uint64_t v = 0;
  if (!parse_u64(body.substr(0, dash), v) || v > 0xFFFFFFFFu) return std::nullopt;
  out.launch = static_cast<std::uint32_t>(v);
  if (!parse_u64(body.substr(fmt_at + 4), v) || v > 1000000) return std::nullopt;
  out.fmt = static_cast<int>(v);
  return out;
}

std::string format_dump_name(const DumpName& n) {
  // The backstop of check_kernel_name: whatever a caller passes, the name stays one file name.
  for (const std::string* part : {&n.kernel, &n.kind, &n.shape})
    if (part->empty() || part->find('/') != std::string::npos || part->find('\0') != std::string::npos)
      throw std::invalid_argument("a launch-dump name of kernel '" + printable(n.kernel) + "', kind '" + printable(n.kind) + "', shape '" +
                                  printable(n.shape) + "' would not be one plain file name (an empty part, a '/' or a NUL byte)");
  char b[64];
  std::snprintf(b, sizeof b, "launch-%03u-", n.launch);
  char a[16];
  std::snprintf(a, sizeof a, "-arg%03d-", n.arg);
  return b + n.kernel + a + n.kind + "-" + n.shape + "-fmt" + std::to_string(n.fmt) + ".bin";
}

bool is_ptx_identifier(const std::string& name) {
  // ASCII only, whatever the locale.
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  const auto follow = [&](char c) { return letter(c) || (c >= '0' && c <= '9') || c == '_' || c == '$'; };
  if (name.empty() || !std::all_of(name.begin() + 1, name.end(), follow)) return false;
  return letter(name[0]) || ((name[0] == '_' || name[0] == '$' || name[0] == '%') && name.size() > 1);
}

void check_kernel_name(const std::string& name, const std::string& file, std::uint64_t offset, std::uint64_t line) {
  if (name.size() <= kMaxKernelNameBytes && is_ptx_identifier(name)) return;
  const std::string shown = name.size() > 200 ? name.substr(0, 200) + "… (" + std::to_string(name.size()) + " bytes)" : name;
  throw InputError(
      file, offset,
      "on line " + std::to_string(line) + " 'kernel NAME' with NAME a PTX identifier (a letter, then letters, digits, '_' or '$'; or " +
          "'_', '$' or '%' and at least one more) of at most " + std::to_string(kMaxKernelNameBytes) + " bytes (it names the output files)",
      "kernel '" + shown + "'");
}

std::string strip_base(const std::string& shape) {
  std::string out;
  for (const std::string& t : split(shape, '-')) {
    if (t.rfind("base0x", 0) == 0) continue;
    out += (out.empty() ? "" : "-") + t;
  }
  return out;
}

std::string dump_key(const DumpName& n) {
  char a[16];
  std::snprintf(a, sizeof a, "arg%03d", n.arg);
  return n.kernel + " " + a + " " + n.kind + " " + strip_base(n.shape) + " fmt" + std::to_string(n.fmt);
}

const char* address_mode_name(AddressMode m) { return detail::mode_name(m); }

std::string buffer_shape(std::uint64_t base, std::size_t size, std::uint64_t offset) {
  std::string s = "base" + hex(base) + "-size" + std::to_string(size);
  if (offset) s += "-off" + std::to_string(offset);
  return s;
}

std::string image_shape(const ImageArg& a, bool texture) {
  std::string s = std::to_string(a.width) + "x" + std::to_string(a.height);
  if (a.pitch != 8u * a.width) s += "-pitch" + std::to_string(a.pitch);
  if (texture) s += std::string("-") + mode_name(a.mode);
  return s;
}

std::size_t arena_window_bytes(const LaunchCapture& c) { return plane_arena_bytes(c.ex, c.ey); }

std::optional<std::uint64_t> shape_base(const std::string& shape) {
  for (const std::string& t : split(shape, '-')) {
    std::uint64_t v = 0;
    if (t.rfind("base0x", 0) == 0 && parse_u64(t.substr(6), v, 16)) return v;
  }
  return std::nullopt;
}

}  // namespace rrswin::capture
