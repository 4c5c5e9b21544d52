// A launch of any entry on the PTX interpreter (bridge/launch.hpp; docs/ptx.md "Launching any kernel").
#include "bridge/launch.hpp"

#include <cerrno>
#include <cfenv>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <new>
#include <set>

#include "io/checked_size.hpp"
#include "io/numbers.hpp"
#include "numerics/f16.hpp"

namespace rrswin::ptx {

namespace {

[[noreturn]] void bad(const std::string& what, std::string_view text, const std::string& why) {
  throw LaunchError(what + " '" + std::string(text) + "': " + why);
}

// Digits in base 10 or 16 (after "0x"), at most 2^64 - 1; nothing else (io/numbers.hpp, the one
// parser of numbers from outside).
bool parse_magnitude(std::string_view s, std::uint64_t& v) {
  const auto r = parse_u64(s, NumberBase::dec_or_0x);
  if (r) v = *r;
  return r.has_value();
}

bool is_hex(std::string_view s) { return s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'); }

// An integer of `bits` bits: u (unsigned), s (signed), b (either). Decimal values must fit the
// type's range (b: -2^(n-1) .. 2^n - 1); a hex value without a sign is a bit pattern of n bits.
std::uint64_t parse_integer(char kind, int bits, std::string_view v, const std::string& what, std::string_view text) {
  const bool neg = !v.empty() && v[0] == '-';
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) v.remove_prefix(1);
  std::uint64_t mag = 0;
  if (!parse_magnitude(v, mag)) bad(what, text, "expected a decimal or 0x hex integer after the type, at most 2^64 - 1 in magnitude");
  const std::uint64_t umax = bits == 64 ? ~0ull : (1ull << bits) - 1;
  const std::uint64_t smax = (1ull << (bits - 1)) - 1;  // largest positive signed value
  const std::string type = std::string(1, kind) + std::to_string(bits);
  const auto range = [&](const std::string& lo, const std::string& hi) {
    bad(what, text, "the value is outside " + type + "'s range [" + lo + ", " + hi + "]");
  };
  std::string smin_s = "-";  // (not "-" + to_string: GCC 12's -Wrestrict misfires on that form)
  smin_s += std::to_string(smax + 1);
  const std::string smax_s = std::to_string(smax), umax_s = std::to_string(umax);
  if (neg) {
    if (kind == 'u') range("0", umax_s);
    if (mag > smax + 1) range(smin_s, kind == 's' ? smax_s : umax_s);
    return (0 - mag) & umax;
  }
  if (mag > umax) range(kind == 'u' ? "0" : smin_s, kind == 's' && !is_hex(v) ? smax_s : umax_s);
  if (kind == 's' && !is_hex(v) && mag > smax) range(smin_s, smax_s + " (or a 0x bit pattern)");
  return mag;
}

// Decimal -> f16 rounded once (to nearest, ties to even): the nearest double is exact unless it
// lies exactly halfway between two f16 values, where the decimal's side of that midpoint decides
// (read again rounding down and up: equal results mean the decimal is the double itself).
f16_t decimal_to_f16(const std::string& s, double d) {
  const f16_t h = f64_to_f16(d);
  const f16_t lo = f64_to_f16(std::nextafter(d, -INFINITY)), hi = f64_to_f16(std::nextafter(d, INFINITY));
  if (lo == hi) return h;  // not at a midpoint: one rounding is the correct one
  const int saved = std::fegetround();
  std::fesetround(FE_DOWNWARD);
  const double down = std::strtod(s.c_str(), nullptr);
  std::fesetround(FE_UPWARD);
  const double up = std::strtod(s.c_str(), nullptr);
  std::fesetround(saved);
  if (down == up) return h;    // exactly the midpoint: ties to even, as f64_to_f16 did
  return down == d ? hi : lo;  // above the midpoint rounds up, below it down
}

std::uint64_t parse_float(int bits, std::string_view v, const std::string& what, std::string_view text) {
  std::string type = "f";
  type += std::to_string(bits);
  if (is_hex(v) || (v.size() > 3 && v[0] == '-' && is_hex(v.substr(1)))) {
    if (v[0] == '-') bad(what, text, "a 0x value of " + type + " is its bit pattern, without a sign");
    std::uint64_t b = 0;
    if (!parse_magnitude(v, b) || (bits < 64 && b >> bits))
      bad(what, text, "expected a bit pattern of at most " + std::to_string(bits) + " bits after 0x");
    return b;
  }
  const std::string s(v);
  if (s.empty() || s.find_first_not_of("0123456789+-.eEinfatyINFATY") != std::string::npos)
    bad(what, text, "expected a decimal number (or inf, nan) or a 0x bit pattern after the type");
  char* end = nullptr;
  errno = 0;
  const double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) bad(what, text, "expected a decimal number (or inf, nan) or a 0x bit pattern after the type");
  const bool named_inf = s.find_first_of("iI") != std::string::npos;
  if (std::isinf(d) && !named_inf) bad(what, text, "the value is beyond " + type + "'s largest finite value");
  if (bits == 64) return std::bit_cast<std::uint64_t>(d);
  if (bits == 32) {
    errno = 0;
    const float f = std::strtof(s.c_str(), nullptr);  // correctly rounded from the decimal itself
    if (std::isinf(f) && !named_inf) bad(what, text, "the value is beyond f32's largest finite value (3.4028235e38)");
    return std::bit_cast<std::uint32_t>(f);
  }
  const f16_t h = decimal_to_f16(s, d);
  if ((h & 0x7FFF) == 0x7C00 && !named_inf) bad(what, text, "the value is beyond f16's largest finite value (65504)");
  return h;
}

void check_dim_limit(const std::string& what, std::string_view text, char axis, std::uint64_t v, std::uint64_t hi) {
  if (v == 0 || v > hi) bad(what, text, std::string(1, axis) + " = " + std::to_string(v) + " is outside [1, " + std::to_string(hi) + "]");
}

}  // namespace

void check_object_name(std::string_view name, const std::string& what) {
  const bool ok = !name.empty() && name.size() <= 100 && name[0] != '.' && name[0] != '-' &&
                  name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == std::string_view::npos;
  if (!ok)
    throw LaunchError(what + ": the name '" + std::string(name) +
                      "' is not 1-100 letters, digits, '_', '.' or '-' (not starting with '.' or '-'): it names the output file NAME.bin");
}

std::uint64_t parse_bytes(std::string_view text, const std::string& what, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t v = 0;
  if (!parse_magnitude(text, v)) bad(what, text, "expected a byte count (decimal or 0x hex)");
  if (v < lo || v > hi) bad(what, text, "the byte count is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

Dim3 parse_dim3(std::string_view text, const std::string& what, bool block) {
  std::uint64_t v[3] = {1, 1, 1};
  std::size_t n = 0, pos = 0;
  while (true) {
    const std::size_t comma = text.find(',', pos);
    const std::string_view part = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (n == 3) bad(what, text, "expected X,Y,Z (at most three numbers)");
    if (!parse_magnitude(part, v[n])) bad(what, text, "expected X,Y,Z: positive integers separated by commas");
    ++n;
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  if (block) {
    check_dim_limit(what, text, 'x', v[0], kMaxBlockXY);
    check_dim_limit(what, text, 'y', v[1], kMaxBlockXY);
    check_dim_limit(what, text, 'z', v[2], kMaxBlockZ);
    if (v[0] * v[1] * v[2] > kMaxBlockThreads)
      bad(what, text, std::to_string(v[0] * v[1] * v[2]) + " threads per block exceed CUDA's " + std::to_string(kMaxBlockThreads));
  } else {
    check_dim_limit(what, text, 'x', v[0], kMaxGridX);
    check_dim_limit(what, text, 'y', v[1], kMaxGridYZ);
    check_dim_limit(what, text, 'z', v[2], kMaxGridYZ);
    const auto ctas = mul_u64(v[0] * v[1], v[2]);  // x*y < 2^47: no wrap there
    if (!ctas || *ctas > kMaxCtas)
      bad(what, text,
          std::to_string(v[0]) + " × " + std::to_string(v[1]) + " × " + std::to_string(v[2]) + " CTAs exceed the interpreter's " +
              std::to_string(kMaxCtas) + " per launch");
  }
  return {static_cast<std::uint32_t>(v[0]), static_cast<std::uint32_t>(v[1]), static_cast<std::uint32_t>(v[2])};
}

ParamArg parse_param_arg(std::string_view text, const std::string& what) {
  ParamArg p;
  p.text = std::string(text);
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) bad(what, text, "expected TYPE:VALUE (u8..u64, s8..s64, b8..b64, f16, f32, f64) or ptr:NAME");
  p.type = std::string(text.substr(0, colon));
  const std::string_view v = text.substr(colon + 1);
  if (p.type == "ptr") {
    const std::size_t plus = v.find('+');
    p.object = std::string(v.substr(0, plus));
    check_object_name(p.object, what + " '" + p.text + "'");
    if (plus != std::string_view::npos) {
      if (!parse_magnitude(v.substr(plus + 1), p.offset)) bad(what, text, "expected ptr:NAME or ptr:NAME+OFFSET (decimal or 0x)");
    }
    p.size = 8;
    return p;
  }
  const char kind = p.type.empty() ? '?' : p.type[0];
  int bits = 0;
  if (p.type.size() > 1) std::from_chars(p.type.data() + 1, p.type.data() + p.type.size(), bits);
  const bool int_ok = (kind == 'u' || kind == 's' || kind == 'b') && (bits == 8 || bits == 16 || bits == 32 || bits == 64);
  const bool float_ok = kind == 'f' && (bits == 16 || bits == 32 || bits == 64);
  if (!(int_ok || float_ok) || p.type != std::string(1, kind) + std::to_string(bits))
    bad(what, text, "unknown type '" + p.type + "' (u8, u16, u32, u64, s8, s16, s32, s64, b8, b16, b32, b64, f16, f32, f64, ptr)");
  p.size = static_cast<std::uint32_t>(bits / 8);
  p.bits = int_ok ? parse_integer(kind, bits, v, what, text) : parse_float(bits, v, what, text);
  return p;
}

namespace {

// The entry exists in the module; else the error lists the entries it has.
void check_entry(const Module& m, const std::string& entry) {
  bool found = false;
  std::string entries;
  for (const std::string& n : entry_names(m)) {
    found = found || n == entry;
    entries += (entries.empty() ? "" : ", ") + n;
  }
  if (!found)
    throw LaunchError("--entry '" + entry + "': the file has no such entry (entries: " + (entries.empty() ? "none" : entries) + ")");
}

// Grid and block (parse_dim3 checked the strings; a caller building Dim3 itself is checked here),
// dynamic shared memory alone and with the entry's static shared bytes.
void check_geometry(const LaunchSpec& s, const EntryStats& es) {
  const auto dim = [](Dim3 d) { return std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z); };
  parse_dim3(dim(s.grid), "--grid", false);
  parse_dim3(dim(s.block), "--block", true);
  if (s.dynamic_shared > kMaxDynamicShared)
    throw LaunchError("--shared " + std::to_string(s.dynamic_shared) + ": dynamic shared memory beyond " +
                      std::to_string(kMaxDynamicShared) + " bytes (227 KiB, CUDA's largest per-block opt-in, sm_90)");
  if (es.shared_bytes + s.dynamic_shared > kMaxDynamicShared)
    throw LaunchError("--shared " + std::to_string(s.dynamic_shared) + ": with the entry's " + std::to_string(es.shared_bytes) +
                      " static shared bytes the block needs more than " + std::to_string(kMaxDynamicShared) + " bytes (227 KiB)");
}

using ObjectKinds = std::map<std::string, std::string>;  // name -> "buffer" | "texture" | "surface"

// Objects: valid names unique across buffers, textures and surfaces, none empty, all together
// within kMaxBufferBytes; a texture's texels and a surface's bytes match its shape. Returns each
// name's kind.
ObjectKinds check_objects(const LaunchSpec& s) {
  ObjectKinds kind;
  std::uint64_t total = 0;
  const auto add = [&](const std::string& name, const char* k, const std::string& what, std::uint64_t bytes) {
    check_object_name(name, what);
    if (!kind.emplace(name, k).second)
      throw LaunchError(what + ": the name '" + name + "' is already a " + kind[name] +
                        " of this launch (names are unique: each is one NAME.bin)");
    if (bytes == 0) throw LaunchError(what + ": an empty " + k + " (0 bytes): give at least one byte");
    const auto t = add_u64(total, bytes);
    if (!t || *t > kMaxBufferBytes)
      throw LaunchError(what + ": the launch's buffers, textures and surfaces together exceed " + std::to_string(kMaxBufferBytes) +
                        " bytes (16 GiB, enc5's limit)");
    total = *t;
  };
  for (const auto& b : s.buffers) add(b.name, "buffer", b.what.empty() ? "--buffer " + b.name : b.what, b.bytes.size());
  for (const auto& t : s.textures) add(t.name, "texture", t.what.empty() ? "--texture " + t.name : t.what, t.texture.rgba.size() * 2);
  for (const auto& t : s.surfaces) add(t.name, "surface", t.what.empty() ? "--surface " + t.name : t.what, t.surface.bytes.size());
  for (const auto& t : s.textures)
    if (t.texture.width <= 0 || t.texture.height <= 0 ||
        t.texture.rgba.size() != static_cast<std::size_t>(t.texture.width) * t.texture.height * 4)
      throw LaunchError((t.what.empty() ? "--texture " + t.name : t.what) + ": its texels do not match its width × height");
  for (const auto& t : s.surfaces)
    if (t.surface.width <= 0 || t.surface.height <= 0 || t.surface.pitch < 8 * static_cast<std::size_t>(t.surface.width) ||
        t.surface.bytes.size() != t.surface.pitch * t.surface.height)
      throw LaunchError((t.what.empty() ? "--surface " + t.name : t.what) + ": its bytes do not match pitch × height");
  return kind;
}

// Parameters: one per declared parameter, each of its size; a ptr names an object (a buffer with
// an offset inside it, a texture or surface without one); every object is passed by some ptr.
void check_params(const LaunchSpec& s, const EntryStats& es, const ObjectKinds& kind) {
  std::string decl;
  for (const ParamInfo& p : es.params)
    decl += (decl.empty() ? "" : ", ") + p.name + " (+" + std::to_string(p.offset) + ", " + std::to_string(p.size) + " bytes)";
  if (s.params.size() != es.params.size())
    throw LaunchError("--param: entry " + s.entry + " declares " + std::to_string(es.params.size()) + " parameter" +
                      (es.params.size() == 1 ? "" : "s") + (decl.empty() ? "" : ": " + decl) + "; " + std::to_string(s.params.size()) +
                      " given");
  std::set<std::string> used;
  for (std::size_t i = 0; i < s.params.size(); ++i) {
    const ParamArg& a = s.params[i];
    const ParamInfo& p = es.params[i];
    const std::string what = "--param #" + std::to_string(i + 1) + " '" + a.text + "'";
    if (a.size != p.size)
      throw LaunchError(what + ": parameter " + std::to_string(i + 1) + " of " + s.entry + ", " + p.name + ", is " +
                        std::to_string(p.size) + " bytes; " + a.type + " is " + std::to_string(a.size) +
                        (a.type == "ptr" ? " (a 64-bit address or handle)" : ""));
    if (a.type != "ptr") continue;
    const auto k = kind.find(a.object);
    if (k == kind.end())
      throw LaunchError(what + ": no buffer, texture or surface is named '" + a.object +
                        "' (give it with --buffer, --texture or --surface)");
    if (k->second != "buffer" && a.offset)
      throw LaunchError(what + ": '" + a.object + "' is a " + k->second + ": its handle takes no +OFFSET");
    for (const auto& b : s.buffers)
      if (b.name == a.object && a.offset > b.bytes.size())
        throw LaunchError(what + ": +" + std::to_string(a.offset) + " lies beyond the end of buffer " + b.name + " (" +
                          std::to_string(b.bytes.size()) + " bytes)");
    used.insert(a.object);
  }
  for (const auto& [name, k] : kind)
    if (!used.count(name))
      throw LaunchError("--" + k + " " + name + ": no --param ptr:" + name + " passes it to the kernel (it could not be read or written)");
}

}  // namespace

// The checks in the order their errors are reported: entry, geometry, objects, parameters.
std::vector<ParamInfo> check_launch(const Module& m, const LaunchSpec& s) {
  check_entry(m, s.entry);
  const EntryStats es = entry_stats(m, s.entry);
  check_geometry(s, es);
  const ObjectKinds kind = check_objects(s);
  check_params(s, es, kind);
  return es.params;
}

RunStats run_launch(const Module& m, LaunchSpec& s, const RunOptions& options) {
  const std::vector<ParamInfo> params = check_launch(m, s);
  const EntryStats es = entry_stats(m, s.entry);
  Device dev;
  std::map<std::string, std::uint64_t> address;
  for (auto& b : s.buffers) address[b.name] = dev.add_global("buffer " + b.name, b.bytes);
  for (auto& t : s.textures) address[t.name] = dev.bind_texture(&t.texture);
  for (auto& t : s.surfaces) address[t.name] = dev.bind_surface(&t.surface);
  const auto block =
      build_param_block(params, es.param_bytes, s.params, [&](const ParamArg& a) { return address.at(a.object) + a.offset; });
  RunOptions o = options;
  o.dynamic_shared_bytes = static_cast<std::uint32_t>(s.dynamic_shared);
  return run(m, s.entry, s.grid, s.block, block, dev, o);
}

}  // namespace rrswin::ptx
