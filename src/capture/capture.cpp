// Reading and writing d4r's captures (facts §F5 launch dumps, §F6 replay dumps). Everything the
// facts leave unstated is decided here once and documented in docs/captures.md; a file enc5 cannot
// read is an InputError naming the file and byte offset.
#include "capture/capture.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

#include "capture/debug_stage.hpp"
#include "io/arena_io.hpp"
#include "io/checked_size.hpp"
#include "io/errors.hpp"
#include "io/files.hpp"
#include "model/synthetic_inputs.hpp"
#include "model/weight_image.hpp"

namespace enc5::capture {
namespace {

namespace fs = std::filesystem;

bool parse_u64(std::string_view s, std::uint64_t& v, int base = 10) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  return ec == std::errc() && end == s.data() + s.size();
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
  if (s == "clamp") m = AddressMode::clamp;
  else if (s == "border") m = AddressMode::border_zero;
  else if (s == "wrap") m = AddressMode::wrap;
  else if (s == "mirror") m = AddressMode::mirror;
  else return false;
  return true;
}

std::uint32_t rd32(const std::uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<std::uint32_t>(p[3]) << 24; }
std::uint64_t rd64(const std::uint8_t* p) { return rd32(p) | static_cast<std::uint64_t>(rd32(p + 4)) << 32; }
void wr32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> 8 * i);
}
void wr64(std::uint8_t* p, std::uint64_t v) {
  wr32(p, static_cast<std::uint32_t>(v));
  wr32(p + 4, static_cast<std::uint32_t>(v >> 32));
}

// Buffer shape (docs/captures.md): '-'-separated tokens; base0x<hex> (device address of the
// allocation), size<N> (its bytes, required, must equal the file size), off<N> (the argument's
// pointer minus the base: where the arena window starts, facts F4). Other tokens are ignored so
// that strings with more fields still read; a base/size/off token whose number does not read is an
// error, never skipped.
void parse_buffer_shape(BufferArg& b) {
  bool have_size = false;
  for (const std::string& t : split(b.shape, '-')) {
    std::uint64_t v = 0;
    if (t.rfind("base0x", 0) == 0) {
      if (!parse_u64(t.substr(6), v, 16)) throw InputError(b.file, 0, "a hex device address in the shape token 'base0x…' (at most 16 hex digits)", "'" + t + "'");
      b.base = v;
    } else if (t.rfind("size", 0) == 0) {
      if (!parse_u64(t.substr(4), v))
        throw InputError(b.file, 0, "a decimal byte count below 2^64 in the shape token 'size<N>'", "'" + t + "'");
      if (v != b.bytes.size())
        throw InputError(b.file, std::min<std::uint64_t>(v, b.bytes.size()),
                         std::to_string(v) + " bytes (the size in the file name)", std::to_string(b.bytes.size()) + " bytes (the file is truncated or the name is wrong)");
      have_size = true;
    } else if (t.rfind("off", 0) == 0) {
      if (!parse_u64(t.substr(3), v)) throw InputError(b.file, 0, "a decimal pointer offset below 2^64 in the shape token 'off<N>'", "'" + t + "'");
      b.offset = v;
    }
  }
  if (!have_size)
    throw InputError(b.file, 0, "a buffer shape with a 'size<N>' token (the allocation's bytes, facts F5)", "'" + b.shape + "'");
}

// The image limits (docs/captures.md): width and height in 1..kMaxImageSide texels, pitch at least
// 8·width and pitch·height within kMaxBufferBytes. Checked in 64 bits, so no number can wrap.
constexpr std::uint64_t kMaxImageSide = 65536;

void set_image_geometry(ImageArg& a, std::uint64_t w, std::uint64_t h, std::optional<std::uint64_t> pitch, const std::string& file,
                        std::uint64_t offset) {
  if (w == 0 || h == 0 || w > kMaxImageSide || h > kMaxImageSide)
    throw InputError(file, offset, "a width and height in 1.." + std::to_string(kMaxImageSide) + " texels (enc5's image limit)",
                     std::to_string(w) + "×" + std::to_string(h));
  const std::uint64_t row = 8 * w;  // RGBA16F: 8 bytes per texel; w <= 2^16 cannot wrap
  const std::uint64_t p = pitch.value_or(row);
  if (p < row)
    throw InputError(file, offset, "a pitch of at least 8·width = " + std::to_string(row) + " bytes", std::to_string(p));
  checked_bytes_in(file, offset, "pitch × height = " + std::to_string(p) + " × " + std::to_string(h), {p, h});
  a.width = static_cast<int>(w);
  a.height = static_cast<int>(h);
  a.pitch = static_cast<std::size_t>(p);
}

// Image shape: <W>x<H> first, then optional pitch<P> (bytes per row; default 8·W) and, for a
// texture, an address mode clamp|border|wrap|mirror (default clamp). Any other token is an error:
// an unknown mode read as clamp would silently change what E61 samples.
void parse_image_shape(ImageArg& a, bool texture) {
  const auto tokens = split(a.shape, '-');
  const auto x = tokens[0].find('x');
  std::uint64_t w = 0, h = 0;
  if (x == std::string::npos || !parse_u64(tokens[0].substr(0, x), w) || !parse_u64(tokens[0].substr(x + 1), h))
    throw InputError(a.file, 0, "a shape starting with <width>x<height> (e.g. 40x23)", "'" + a.shape + "'");
  std::optional<std::uint64_t> pitch;
  bool have_mode = false;
  for (std::size_t i = 1; i < tokens.size(); ++i) {
    std::uint64_t v = 0;
    const std::string& t = tokens[i];
    if (t.rfind("pitch", 0) == 0) {
      if (pitch || !parse_u64(t.substr(5), v))
        throw InputError(a.file, 0, "one shape token 'pitch<P>' with a decimal byte count below 2^64", "'" + t + "' in '" + a.shape + "'");
      pitch = v;
    } else if (texture && !have_mode && parse_mode(t, a.mode)) {
      have_mode = true;
    } else {
      throw InputError(a.file, 0,
                       texture ? "texture shape tokens pitch<P> and one address mode clamp|border|wrap|mirror" : "surface shape tokens pitch<P> only",
                       "'" + t + "' in '" + a.shape + "'");
    }
  }
  set_image_geometry(a, w, h, pitch, a.file, 0);
}

void check_image(const ImageArg& a, const char* what) {
  if (a.fmt != kFmtHalf)
    throw InputError(a.file, 0, std::string("fmt16 (CU_AD_FORMAT_HALF, RGBA16F) for the ") + what, "fmt" + std::to_string(a.fmt));
  // set_image_geometry bounded width, height and pitch·height; check again here (every image passes)
  // so that no caller can reach the copies with an unchecked product.
  if (a.width <= 0 || a.height <= 0 || a.pitch < 8u * static_cast<std::uint64_t>(a.width))
    throw InputError(a.file, 0, "a positive width and height and a pitch of at least 8·width", std::to_string(a.width) + "×" + std::to_string(a.height) + ", pitch " + std::to_string(a.pitch));
  const std::uint64_t need = checked_bytes_in(a.file, 0, "pitch × height", {a.pitch, static_cast<std::uint64_t>(a.height)});
  if (a.bytes.size() != need)
    throw InputError(a.file, std::min<std::uint64_t>(need, a.bytes.size()),
                     std::to_string(need) + " bytes (pitch " + std::to_string(a.pitch) + " × height " + std::to_string(a.height) + ")",
                     std::to_string(a.bytes.size()) + " bytes");
}

void check_window(const BufferArg& b, std::size_t need, const std::string& what) {
  if (b.offset > b.bytes.size() || b.bytes.size() - b.offset < need) {
    const auto end = add_u64(b.offset, need);
    throw InputError(b.file, b.bytes.size(),
                     (end ? "at least " + std::to_string(*end) + " bytes" : std::string("a window ending within 2^64 bytes")) + " (" + what +
                         " of " + std::to_string(need) + " bytes at pointer offset " + std::to_string(b.offset) + ")",
                     std::to_string(b.bytes.size()) + " bytes");
  }
}

}  // namespace

void check_covers_frame(const std::string& file, int width, int height, std::uint32_t ex, std::uint32_t ey, const char* what) {
  // E61 fetches texels around, and stores one texel at, every frame pixel (facts C14.5/C14.7).
  if (width < 0 || height < 0 || static_cast<std::uint32_t>(width) < ex || static_cast<std::uint32_t>(height) < ey)
    throw InputError(file, 0, std::string("a ") + what + " of at least ex×ey = " + std::to_string(ex) + "×" + std::to_string(ey) + " texels",
                     std::to_string(width) + "×" + std::to_string(height));
}

namespace {

void validate(const LaunchCapture& c) {
  if (c.ex == 0 || c.ey == 0) throw InputError(c.source, 0, "non-zero extents (ex, ey)", std::to_string(c.ex) + "×" + std::to_string(c.ey));
  const std::string ext = "ex×ey = " + std::to_string(c.ex) + "×" + std::to_string(c.ey);
  const std::uint64_t arena = checked_bytes_in(c.source, 0, "the plane arena 5·ey·ex·32 (" + ext + ")", {5, c.ey, c.ex, 32});
  check_window(c.input, arena, "the input plane arena 5·ey·ex·32, " + ext);
  check_window(c.output, arena, "the output plane arena 5·ey·ex·32, " + ext);
  check_window(c.weights, kWeightImageBytes, "the weight image");
  check_image(c.texture, "texture");
  check_image(c.surface, "surface");
  check_covers_frame(c.texture.file, c.texture.width, c.texture.height, c.ex, c.ey, "texture");
  check_covers_frame(c.surface.file, c.surface.width, c.surface.height, c.ex, c.ey, "surface");
  // A grid far beyond the frame is a damaged capture (api/frame.hpp grid_problem).
  if (const auto why = grid_problem(c.ex, c.ey, c.ox, c.oy, c.grid_x, c.grid_y))
    throw InputError(c.grid_file.empty() ? c.source : c.grid_file, c.grid_offset, "a launch grid the frame can use", *why);
}

// A file a capture names (manifest.txt's texture and surface lines, alloc-N.bin, a dump in the
// folder): it must resolve inside the capture folder, symbolic links followed (docs/captures.md
// "Files stay inside the capture"), so that a hostile capture cannot make enc5 read /etc/passwd
// or another user's files. `from`/`offset` name where the name was read.
std::string capture_file(const fs::path& dir, const std::string& name, const std::string& from, std::uint64_t offset) {
  const fs::path rel(name);
  const std::string expected = "a file name inside the capture folder " + dir.string();
  if (name.empty() || rel.is_absolute()) throw InputError(from, offset, expected, "'" + name + "' (an absolute path)");
  for (const auto& part : rel)
    if (part == "..") throw InputError(from, offset, expected, "'" + name + "' (a '..' component leaves the folder)");
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(dir, ec);
  const fs::path full = dir / rel;
  if (ec || !fs::exists(full, ec)) return full.string();  // read_file_bytes says it cannot open it
  const fs::path real = fs::weakly_canonical(full, ec);
  if (ec) return full.string();
  const auto [r_end, f_end] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
  if (r_end != root.end())
    throw InputError(from, offset, expected, "'" + name + "', a link to " + real.string() + " outside it");
  return full.string();
}

// --- launch dumps (facts F5) -------------------------------------------------------------------

struct DumpFile {
  DumpName name;
  fs::path path;
};

std::vector<LaunchCapture> load_launch_dumps(const fs::path& dir, const std::vector<DumpFile>& files, const LoadOptions& opt) {
  std::map<std::uint32_t, std::vector<const DumpFile*>> by_launch;
  std::vector<std::string> other;
  for (const DumpFile& f : files) {
    if (f.name.kernel.find(opt.kernel_filter) == std::string::npos) {
      other.push_back("launch " + std::to_string(f.name.launch) + " of " + f.name.kernel);
      continue;
    }
    by_launch[f.name.launch].push_back(&f);
  }
  if (by_launch.empty()) {
    std::sort(other.begin(), other.end());
    other.erase(std::unique(other.begin(), other.end()), other.end());
    std::string found;
    for (std::size_t i = 0; i < other.size() && i < 4; ++i) found += (i ? ", " : "") + other[i];
    throw std::runtime_error(dir.string() + ": no launch of a kernel matching '" + opt.kernel_filter + "' (found " + found +
                             "); enc5 replays only " + kEnc5Kernel + " (--kernel SUBSTRING selects another name)");
  }
  std::vector<LaunchCapture> out;
  for (const auto& entry : by_launch) {
    const std::uint32_t launch = entry.first;  // not a structured binding: lambdas below capture it (clang 14)
    const auto& list = entry.second;
    LaunchCapture c;
    c.source = dir.string();
    c.form = Form::launch_dump;
    c.launch = launch;
    c.kernel = list.front()->name.kernel;
    auto find = [&](int arg, const char* kind) -> const DumpFile& {
      const DumpFile* hit = nullptr;
      for (const DumpFile* f : list) {
        if (f->name.arg != arg) continue;
        if (f->name.kind != kind)
          throw InputError(f->path.string(), 0, std::string("a ") + kind + " dump for arg" + std::to_string(arg) + " (facts A4)", "a " + f->name.kind + " dump");
        if (hit) throw InputError(f->path.string(), 0, "one dump per launch and argument", "a second file for arg" + std::to_string(arg) + " (also " + hit->path.filename().string() + ")");
        hit = f;
      }
      if (!hit) {
        char b[64], a[16];
        std::snprintf(b, sizeof b, "launch-%03u-", launch);
        std::snprintf(a, sizeof a, "arg%03d", arg);
        throw std::runtime_error(dir.string() + ": launch " + std::to_string(launch) + " of " + c.kernel + " has no " + a + " " + kind +
                                 " dump (expected a file " + b + c.kernel + "-" + a + "-" + kind + "-…-fmtN.bin; facts F5)");
      }
      return *hit;
    };
    auto buffer = [&](int arg) {
      const DumpFile& f = find(arg, "buffer");
      BufferArg b;
      b.file = capture_file(dir, f.path.filename().string(), dir.string(), 0);
      b.shape = f.name.shape;
      b.bytes = read_file_bytes(b.file);
      parse_buffer_shape(b);
      return b;
    };
    auto image = [&](int arg, const char* kind) {
      const DumpFile& f = find(arg, kind);
      return load_image_arg(capture_file(dir, f.path.filename().string(), dir.string(), 0), f.name.shape, f.name.fmt, kind);
    };
    c.input = buffer(kArgInput);
    c.weights = buffer(kArgWeights);
    c.output = buffer(kArgOutput);
    c.texture = image(kArgTexture, "texture");
    c.surface = image(kArgSurface, "surface");
    // Launch dumps carry no parameter block: the extents are the surface's (E61 writes one texel
    // per token, enc4's surface is ex×ey, facts A3) unless --ex/--ey say otherwise; the block
    // offsets are 0 unless --block-offset says otherwise (docs/captures.md).
    c.ex = opt.ex > 0 ? opt.ex : c.surface.width;
    c.ey = opt.ey > 0 ? opt.ey : c.surface.height;
    c.ox = static_cast<std::uint16_t>(opt.ox >= 0 ? opt.ox : 0);
    c.oy = static_cast<std::uint16_t>(opt.oy >= 0 ? opt.oy : 0);
    validate(c);
    c.results = ReplayOutputs{c.output.bytes, c.surface.bytes};
    for (const DumpFile* f : list)
      if (f->name.arg != kArgOutput && f->name.arg != kArgSurface) c.passthrough.push_back(f->path.string());
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<DumpFile> dump_files(const fs::path& dir) {
  std::vector<DumpFile> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string n = e.path().filename().string();
    if (n.rfind("launch-", 0) != 0) continue;
    auto parsed = parse_dump_name(n);
    if (!parsed)
      throw InputError(e.path().string(), 0, "a launch dump name launch-NNN-<kernel>-argNNN-{buffer,surface,texture}-<shape>-fmtN.bin (facts F5)", "'" + n + "'");
    files.push_back({*parsed, e.path()});
  }
  std::sort(files.begin(), files.end(), [](const DumpFile& a, const DumpFile& b) { return a.path < b.path; });
  return files;
}

}  // namespace

// --- names ---------------------------------------------------------------------------------------

// launch-<digits>-<kernel>-arg<3 digits>-<kind>-<shape>-fmt<digits>.bin (docs/captures.md): the
// kernel is the shortest non-empty prefix after which "-argNNN-<kind>-" and a non-empty shape
// follow; the shape runs to the last "-fmt". Parsed by hand, in linear passes: no backtracking
// regular expression on a name that comes from someone else's disk.
std::optional<DumpName> parse_dump_name(const std::string& file_name) {
  const std::string_view n(file_name);
  auto digits = [](std::string_view d) { return !d.empty() && std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; }); };
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
  char b[64];
  std::snprintf(b, sizeof b, "launch-%03u-", n.launch);
  char a[16];
  std::snprintf(a, sizeof a, "-arg%03d-", n.arg);
  return b + n.kernel + a + n.kind + "-" + n.shape + "-fmt" + std::to_string(n.fmt) + ".bin";
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

ImageArg load_image_arg(const std::string& file, const std::string& shape, int fmt, const char* what) {
  ImageArg a;
  a.file = file;
  a.shape = shape;
  a.fmt = fmt;
  parse_image_shape(a, std::string(what) == "texture");
  a.bytes = read_file_bytes(a.file);
  check_image(a, what);
  return a;
}


LaunchInputs launch_inputs(const LaunchCapture& c) {
  return LaunchInputs{WeightImage(std::vector<std::uint8_t>(c.weights.bytes.begin() + c.weights.offset,
                                                            c.weights.bytes.begin() + c.weights.offset + kWeightImageBytes),
                                  c.weights.file),
                      texture_of(c.texture)};
}

// --- replay captures (facts F6) ------------------------------------------------------------------

LaunchCapture load_replay_capture(const std::string& dir_s) {
  const fs::path dir(dir_s);
  const std::string mpath = capture_file(dir, "manifest.txt", dir_s, 0);
  const auto mbytes = read_file_bytes(mpath);
  const std::string text(mbytes.begin(), mbytes.end());
  LaunchCapture c;
  c.source = dir_s;
  c.form = Form::replay;
  struct Alloc {
    std::uint64_t base = 0, size = 0;
  };
  std::map<std::uint64_t, Alloc> allocs;
  struct Pointer {
    std::uint64_t id = 0, delta = 0, line_offset = 0;
  };
  std::map<int, Pointer> pointers;
  bool have_launch = false, have_tex = false, have_surf = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t line_start = pos;
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::istringstream ls(line);
    std::vector<std::string> t;
    for (std::string w; ls >> w;) t.push_back(w);
    if (t.empty() || t[0][0] == '#') continue;
    auto bad = [&](const std::string& expected) { return InputError(mpath, line_start, expected, "'" + line + "'"); };
    auto num = [&](std::size_t i, const std::string& expected) {
      std::uint64_t v = 0;
      const std::string& s = t.at(i);
      const bool ok = s.rfind("0x", 0) == 0 ? parse_u64(s.substr(2), v, 16) : parse_u64(s, v);
      if (!ok) throw bad(expected);
      return v;
    };
    if (t[0] == "kernel") {
      if (t.size() != 2) throw bad("'kernel NAME'");
      c.kernel = t[1];
    } else if (t[0] == "launch") {
      const std::string e = "'launch gx gy gz bx by bz shared' (decimal)";
      if (t.size() != 8) throw bad(e);
      if (have_launch) throw bad("one launch line (enc5 replays one launch per capture folder)");
      const auto gx = num(1, e), gy = num(2, e);
      if (gx == 0 || gy == 0 || gx > 0xFFFFFFFFu || gy > 0xFFFFFFFFu)
        throw InputError(mpath, line_start, "a grid gx, gy in 1..2^32-1 (CUDA's gridDim)", "grid " + t[1] + " × " + t[2]);
      c.grid_x = static_cast<std::uint32_t>(gx);
      c.grid_y = static_cast<std::uint32_t>(gy);
      c.grid_file = mpath;
      c.grid_offset = line_start;
      const auto gz = num(3, e), bx = num(4, e), by = num(5, e), bz = num(6, e);
      num(7, e);
      // facts A2: enc5 runs 32x1x8 threads per block on a 2D grid; another shape is another kernel.
      if (gz != 1 || bx != 32 || by != 1 || bz != 8)
        throw InputError(mpath, line_start, "enc5's launch shape: gz 1, block 32 1 8 (facts A2)",
                         "gz " + t[3] + ", block " + t[4] + " " + t[5] + " " + t[6] + " (a launch of another kernel?)");
      have_launch = true;
    } else if (t[0] == "alloc") {
      const std::string e = "'alloc id base size' (base hex 0x… or decimal)";
      if (t.size() != 4) throw bad(e);
      allocs[num(1, e)] = Alloc{num(2, e), num(3, e)};
    } else if (t[0] == "pointer") {
      const std::string e = "'pointer off id delta' (decimal)";
      if (t.size() != 4) throw bad(e);
      const auto off = num(1, e);
      if (off + 8 > kParamBlockBytes)
        throw InputError(mpath, line_start, "a pointer offset within the 144-byte parameter block (facts A4)", "offset " + t[1]);
      pointers[static_cast<int>(off)] = Pointer{num(2, e), num(3, e), line_start};
    } else if (t[0] == "texture" || t[0] == "surface") {
      const bool tex = t[0] == "texture";
      const std::string e = tex ? "'texture off width height fmt mode file' (mode clamp|border|wrap|mirror)"
                                : "'surface off width height fmt pitch file'";
      if (t.size() != 7) throw bad(e);
      const auto off = num(1, e);
      if (off != static_cast<std::uint64_t>(tex ? kArgTexture : kArgSurface))
        throw InputError(mpath, line_start, std::string("the ") + t[0] + " at param offset " + std::to_string(tex ? kArgTexture : kArgSurface) + " (facts A4)", "offset " + t[1]);
      ImageArg a;
      a.fmt = static_cast<int>(std::min<std::uint64_t>(num(4, e), 1000000));
      std::optional<std::uint64_t> pitch;
      if (tex) {
        if (!parse_mode(t[5], a.mode)) throw bad(e);
      } else {
        pitch = num(5, e);
      }
      set_image_geometry(a, num(2, e), num(3, e), pitch, mpath, line_start);
      a.file = capture_file(dir, t[6], mpath, line_start);
      a.bytes = read_file_bytes(a.file);
      a.shape = image_shape(a, tex);
      (tex ? c.texture : c.surface) = std::move(a);
      (tex ? have_tex : have_surf) = true;
    } else {
      throw bad("a line starting with kernel, launch, alloc, pointer, texture or surface (facts F6)");
    }
  }
  if (c.kernel.find("swin_enc5") == std::string::npos)
    throw InputError(mpath, 0, std::string("a capture of ") + kEnc5Kernel, "kernel " + c.kernel);
  if (!have_launch) throw InputError(mpath, text.size(), "a 'launch gx gy gz bx by bz shared' line", "none");
  if (!have_tex) throw InputError(mpath, text.size(), "a 'texture 88 …' line (the texture E61 samples)", "none");
  if (!have_surf) throw InputError(mpath, text.size(), "a 'surface 112 …' line (the surface E61 writes)", "none");

  const std::string apath = capture_file(dir, "args.bin", mpath, 0);
  const auto args = read_file_bytes(apath);
  if (args.size() != kParamBlockBytes)
    throw InputError(apath, std::min(args.size(), kParamBlockBytes), "the 144-byte parameter block (facts A4)", std::to_string(args.size()) + " bytes");
  c.ex = rd32(&args[0]);
  c.ey = rd32(&args[4]);
  c.ox = static_cast<std::uint16_t>(args[80] | args[81] << 8);
  c.oy = static_cast<std::uint16_t>(args[82] | args[83] << 8);
  if (c.ex == 0 || c.ey == 0 || c.ex > 65536 || c.ey > 65536)
    throw InputError(apath, 0, "token-grid extents ex, ey in 1..65536 (u32 at +0, +4)", std::to_string(c.ex) + ", " + std::to_string(c.ey));

  std::map<std::uint64_t, std::vector<std::uint8_t>> loaded;
  auto buffer = [&](int off, const char* what) {
    const auto it = pointers.find(off);
    if (it == pointers.end()) throw InputError(mpath, text.size(), "a 'pointer " + std::to_string(off) + " id delta' line (" + what + ")", "none");
    const Pointer& p = it->second;
    const auto a = allocs.find(p.id);
    if (a == allocs.end()) throw InputError(mpath, p.line_offset, "an 'alloc " + std::to_string(p.id) + " …' line for the pointer at +" + std::to_string(off), "none");
    const std::uint64_t value = rd64(&args[off]);
    if (value != a->second.base + p.delta)
      throw InputError(apath, off, "the pointer alloc " + std::to_string(p.id) + " base + delta = " + hex(a->second.base + p.delta) + " (manifest)", hex(value));
    BufferArg b;
    b.file = capture_file(dir, "alloc-" + std::to_string(p.id) + ".bin", mpath, p.line_offset);
    b.base = a->second.base;
    b.offset = p.delta;
    auto l = loaded.find(p.id);
    if (l == loaded.end()) l = loaded.emplace(p.id, read_file_bytes(b.file)).first;
    b.bytes = l->second;
    if (b.bytes.size() != a->second.size)
      throw InputError(b.file, std::min<std::uint64_t>(b.bytes.size(), a->second.size), std::to_string(a->second.size) + " bytes (the manifest's alloc size)",
                       std::to_string(b.bytes.size()) + " bytes");
    b.shape = buffer_shape(b.base, b.bytes.size(), b.offset);
    return b;
  };
  c.input = buffer(kArgInput, "the input arena");
  c.weights = buffer(kArgWeights, "the weight image");
  c.output = buffer(kArgOutput, "the output arena");
  validate(c);

  // enc5's extension: results/ holds the original's outputs after the launch in launch-dump naming.
  const fs::path res = dir / "results";
  if (fs::is_directory(res)) {
    ReplayOutputs r{c.output.bytes, c.surface.bytes};
    bool any = false;
    for (const DumpFile& f : dump_files(res)) {
      if (f.name.arg == kArgOutput && f.name.kind == "buffer") {
        r.output_alloc = read_file_bytes(capture_file(dir, "results/" + f.path.filename().string(), mpath, 0));
        if (r.output_alloc.size() != c.output.bytes.size())
          throw InputError(f.path.string(), std::min(r.output_alloc.size(), c.output.bytes.size()), std::to_string(c.output.bytes.size()) + " bytes (alloc size)", std::to_string(r.output_alloc.size()) + " bytes");
        any = true;
      } else if (f.name.arg == kArgSurface && f.name.kind == "surface") {
        r.surface_bytes = read_file_bytes(capture_file(dir, "results/" + f.path.filename().string(), mpath, 0));
        if (r.surface_bytes.size() != c.surface.bytes.size())
          throw InputError(f.path.string(), std::min(r.surface_bytes.size(), c.surface.bytes.size()), std::to_string(c.surface.bytes.size()) + " bytes (pitch × height)", std::to_string(r.surface_bytes.size()) + " bytes");
        any = true;
      }
    }
    if (any) c.results = std::move(r);
  }
  return c;
}

std::vector<LaunchCapture> load_captures(const std::string& path, const LoadOptions& opt) {
  const fs::path dir(path);
  if (!fs::is_directory(dir))
    throw InputError(path, 0, "a capture folder (d4r launch dumps or a replay capture with manifest.txt)", fs::exists(dir) ? "a file" : "nothing (no such folder)");
  if (fs::exists(dir / "manifest.txt")) return {load_replay_capture(path)};
  // A replay capture's other files without its manifest: say so, rather than reading the folder as
  // a sequence (whose error would speak of its results/ sub-folder).
  for (const char* f : {"args.bin", "alloc-0.bin", "texture-088.bin", "surface-112.bin"})
    if (fs::exists(dir / f))
      throw InputError((dir / "manifest.txt").string(), 0, "the manifest of the replay capture that " + (dir / f).string() + " belongs to (facts F6)",
                       "no manifest.txt");
  const auto files = dump_files(dir);
  if (!files.empty()) return load_launch_dumps(dir, files, opt);
  // A sequence: sub-folders that are captures, in name order.
  std::vector<fs::path> subs;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory()) subs.push_back(e.path());
  std::sort(subs.begin(), subs.end());
  std::vector<LaunchCapture> out;
  for (const fs::path& s : subs) {
    if (fs::exists(s / "manifest.txt")) {
      out.push_back(load_replay_capture(s.string()));
      out.back().subdir = s.filename().string();
    } else if (!dump_files(s).empty()) {
      for (auto& c : load_launch_dumps(s, dump_files(s), opt)) {
        c.subdir = s.filename().string();
        out.push_back(std::move(c));
      }
    }
  }
  if (out.empty())
    throw std::runtime_error(path + ": no capture found: expected manifest.txt (a d4r replay capture, facts F6), launch-NNN-…-fmtN.bin files "
                             "(launch dumps, F5), or sub-folders holding either");
  return out;
}

// --- replay --------------------------------------------------------------------------------------

Texture texture_of(const ImageArg& a) {
  Texture tex;
  tex.width = a.width;
  tex.height = a.height;
  tex.mode = a.mode;
  tex.rgba.resize(static_cast<std::size_t>(tex.width) * tex.height * 4);
  for (int y = 0; y < tex.height; ++y)
    for (int i = 0; i < tex.width * 4; ++i) {
      const std::uint8_t* p = &a.bytes[y * a.pitch + 2 * i];
      tex.rgba[static_cast<std::size_t>(y) * tex.width * 4 + i] = static_cast<f16_t>(p[0] | p[1] << 8);
    }
  return tex;
}

Surface surface_before_launch(const LaunchCapture& c) {
  Surface s;
  s.width = c.surface.width;
  s.height = c.surface.height;
  s.pitch = c.surface.pitch;
  s.bytes = c.surface.bytes;
  for (std::uint32_t y = 0; y < c.ey; ++y) std::fill_n(s.bytes.begin() + y * s.pitch, 8 * c.ex, 0);
  return s;
}

std::vector<std::uint8_t> output_before_launch(const LaunchCapture& c) {
  std::vector<std::uint8_t> out = c.output.bytes;
  std::fill_n(out.begin() + c.output.offset, arena_window_bytes(c), 0);
  return out;
}

ReplayOutputs replay_launch(const LaunchCapture& c, const RunOptions& options) {
  const std::size_t n = arena_window_bytes(c);
  const LaunchInputs in = launch_inputs(c);
  const WeightImage& weights = in.weights;
  const Texture& tex = in.texture;
  ReplayOutputs r;
  r.output_alloc = output_before_launch(c);
  Surface s = surface_before_launch(c);

  LaunchParams p;
  p.ex = c.ex;
  p.ey = c.ey;
  p.input_arena = std::span<const std::uint8_t>(c.input.bytes).subspan(c.input.offset, n);
  p.weights = &weights;
  p.output_arena = std::span<std::uint8_t>(r.output_alloc).subspan(c.output.offset, n);
  p.block_offset_x = c.ox;
  p.block_offset_y = c.oy;
  p.texture = &tex;
  p.surface = &s;
  p.grid_x = c.grid_x;
  p.grid_y = c.grid_y;
  run_frame(p, options);
  r.surface_bytes = std::move(s.bytes);
  return r;
}

namespace {

// The bytes of the read-only buffer [base, base + size) as they are after enc5's launch: where
// its addresses overlap the output allocation (one object dumped under two arguments, facts F4 /
// U6), enc5's output bytes; std::nullopt when there is no overlap (the capture's file is right).
std::optional<std::vector<std::uint8_t>> overlay_output(const std::string& file, std::uint64_t base, std::uint64_t size,
                                                        const LaunchCapture& c, const ReplayOutputs& r) {
  const std::uint64_t ob = c.output.base, osize = r.output_alloc.size();
  // Addresses that would wrap cannot name real device memory: nothing overlaps them.
  if (size == 0 || osize == 0 || base > UINT64_MAX - size || ob > UINT64_MAX - osize) return std::nullopt;
  const std::uint64_t lo = std::max(base, ob), hi = std::min(base + size, ob + osize);
  if (lo >= hi) return std::nullopt;
  std::vector<std::uint8_t> bytes = read_file_bytes(file);
  if (bytes.size() != size) throw InputError(file, std::min<std::uint64_t>(bytes.size(), size), std::to_string(size) + " bytes", std::to_string(bytes.size()) + " bytes");
  std::copy(r.output_alloc.begin() + (lo - ob), r.output_alloc.begin() + (hi - ob), bytes.begin() + (lo - base));
  return bytes;
}

// dst gets src's bytes: a hard link where the file system allows (the read-only arguments are
// large and unchanged), else a copy; both through a temporary name and a rename (no partial file).
void link_or_copy(const fs::path& src, const fs::path& dst) {
  std::error_code ec;
  if (fs::exists(dst, ec) && fs::equivalent(src, dst, ec)) return;  // already that file (e.g. -o CAPTURE)
  const fs::path tmp = dst.string() + ".tmp." + std::to_string(::getpid());
  fs::remove(tmp, ec);
  fs::create_hard_link(src, tmp, ec);
  if (ec) {
    write_file_atomic(dst.string(), read_file_bytes(src.string()));
    return;
  }
  fs::rename(tmp, dst, ec);
  if (ec) {
    fs::remove(tmp, ec);
    write_file_atomic(dst.string(), read_file_bytes(src.string()));
  }
}

}  // namespace

std::vector<std::string> write_replay_outputs(const std::string& out_dir, const LaunchCapture& c, const ReplayOutputs& r) {
  // A sequence's captures each get their own sub-folder: their launch numbers may coincide.
  const std::string dir = c.subdir.empty() ? out_dir : (fs::path(out_dir) / c.subdir).string();
  fs::create_directories(dir);
  DumpName a{c.launch, c.kernel, kArgOutput, "buffer", c.output.shape, kFmtBuffer};
  DumpName s{c.launch, c.kernel, kArgSurface, "surface", c.surface.shape, c.surface.fmt};
  const std::string pa = (fs::path(dir) / format_dump_name(a)).string(), ps = (fs::path(dir) / format_dump_name(s)).string();
  write_file_atomic(pa, r.output_alloc);
  write_file_atomic(ps, r.surface_bytes);
  std::vector<std::string> written{pa, ps};
  // The read-only arguments, named exactly as in the capture (launch dumps) or canonically (replay
  // captures, whose inputs are alloc-N.bin and texture-088.bin: the same bytes).
  auto carry = [&](const fs::path& src, const std::string& name, std::optional<std::uint64_t> base) {
    const fs::path dst = fs::path(dir) / name;
    std::optional<std::vector<std::uint8_t>> patched;
    if (base) {
      std::error_code ec;
      const auto size = fs::file_size(src, ec);
      if (ec) throw InputError(src.string(), 0, "a readable file", ec.message());
      patched = overlay_output(src.string(), *base, size, c, r);
    }
    if (patched) write_file_atomic(dst.string(), *patched);
    else link_or_copy(src, dst);
    written.push_back(dst.string());
  };
  if (c.form == Form::launch_dump) {
    for (const std::string& f : c.passthrough) {
      const fs::path src(f);
      const auto n = parse_dump_name(src.filename().string());
      carry(src, src.filename().string(), n && n->kind == "buffer" ? shape_base(n->shape) : std::nullopt);
    }
  } else {
    carry(c.input.file, format_dump_name({c.launch, c.kernel, kArgInput, "buffer", c.input.shape, kFmtBuffer}), c.input.base);
    carry(c.weights.file, format_dump_name({c.launch, c.kernel, kArgWeights, "buffer", c.weights.shape, kFmtBuffer}), c.weights.base);
    carry(c.texture.file, format_dump_name({c.launch, c.kernel, kArgTexture, "texture", c.texture.shape, c.texture.fmt}), std::nullopt);
  }
  return written;
}

// --- synthetic captures --------------------------------------------------------------------------

std::vector<std::string> write_synthetic_capture(const std::string& dir_s, Form form, const SyntheticCaptureOptions& o) {
  const fs::path dir(dir_s);
  fs::create_directories(dir);
  const SyntheticFrame frame = make_synthetic_frame(o.ex, o.ey, o.seed, o.stress);
  const WeightImage weights = (o.seed == 1 && !o.stress) ? default_weights() : make_synthetic_weights(SyntheticOptions{o.seed, o.stress});

  // Device addresses are made up (only deltas matter); the window bytes around the output arena
  // hold a fixed pattern so that a reader that ignores the offset fails loudly (facts F4).
  const std::uint64_t base_in = 0x7f0000000000ull, base_w = 0x7f0000400000ull, base_out = 0x7f0000800000ull;
  const std::size_t n = plane_arena_bytes(o.ex, o.ey);
  LaunchCapture c;
  c.source = dir_s;
  c.launch = o.launch;
  c.ex = o.ex;
  c.ey = o.ey;
  c.ox = static_cast<std::uint16_t>(o.ox);
  c.oy = static_cast<std::uint16_t>(o.oy);
  c.input = BufferArg{"", buffer_shape(base_in, n, 0), base_in, 0, frame.input_arena};
  c.weights = BufferArg{"", buffer_shape(base_w, kWeightImageBytes, 0), base_w, 0,
                        std::vector<std::uint8_t>(weights.bytes().begin(), weights.bytes().end())};
  std::size_t window_after = o.window_after;
  std::optional<DebugWindow> debug;
  if (o.stage) {
    // The payload lies beyond the arena (facts F1's base 4,000,000 >> 147,200 arena bytes); the
    // allocation grows to hold it, bounded so a synthetic capture stays a reasonable file.
    constexpr std::uint64_t kMaxSyntheticAlloc = 1ull << 28;
    debug = debug_window(*o.stage, o.debug_base, (o.ex + o.ox + 7) / 8, (o.ey + o.oy + 7) / 8);
    if (o.debug_base < n || o.debug_base > kMaxSyntheticAlloc || o.window_before + o.debug_base + debug->bytes > kMaxSyntheticAlloc)
      throw std::runtime_error("--debug-base " + std::to_string(o.debug_base) + ": a synthetic debug capture needs a base of at least the arena's " +
                               std::to_string(n) + " bytes (the payload must not overlap it) and an allocation below 2^28 bytes");
    window_after = std::max<std::size_t>(window_after, o.debug_base + debug->bytes - n);
  }
  std::vector<std::uint8_t> out(o.window_before + n + window_after, 0);
  for (std::size_t i = 0; i < o.window_before; ++i) out[i] = static_cast<std::uint8_t>(0xA5 ^ i);
  for (std::size_t i = 0; i < window_after; ++i) out[o.window_before + n + i] = static_cast<std::uint8_t>(0x5A ^ i);
  c.output = BufferArg{"", buffer_shape(base_out, out.size(), o.window_before), base_out, o.window_before, out};
  c.texture.width = frame.texture.width;
  c.texture.height = frame.texture.height;
  c.texture.pitch = 8u * frame.texture.width;
  c.texture.mode = frame.texture.mode;
  c.texture.bytes.resize(c.texture.pitch * c.texture.height);
  for (std::size_t i = 0; i < frame.texture.rgba.size(); ++i) {
    c.texture.bytes[2 * i] = static_cast<std::uint8_t>(frame.texture.rgba[i]);
    c.texture.bytes[2 * i + 1] = static_cast<std::uint8_t>(frame.texture.rgba[i] >> 8);
  }
  c.texture.shape = image_shape(c.texture, true);
  c.surface.width = o.ex;
  c.surface.height = o.ey;
  c.surface.pitch = 8u * o.ex;
  c.surface.bytes.assign(c.surface.pitch * o.ey, 0);
  c.surface.shape = image_shape(c.surface, false);

  RunOptions ro;
  ro.profile = o.profile;
  ro.readings = o.readings;
  ro.engine = o.engine;
  ro.threads = o.threads;
  ReplayOutputs r = replay_launch(c, ro);
  // The debug oracle's stores of warp 0 of every block (facts F1), from enc5's own trace.
  if (o.stage) store_stage_payload(r.output_alloc, o.window_before, compute_stage_payload(c, *o.stage, o.debug_base, ro), dir_s);

  std::vector<std::string> written;
  auto put = [&](const fs::path& p, std::span<const std::uint8_t> bytes) {
    write_file_atomic(p.string(), bytes);
    written.push_back(p.string());
  };
  auto put_dumps = [&](const fs::path& d, bool inputs) {
    fs::create_directories(d);
    auto name = [&](int arg, const char* kind, const std::string& shape, int fmt) {
      return d / format_dump_name(DumpName{c.launch, c.kernel, arg, kind, shape, fmt});
    };
    if (inputs) {
      put(name(kArgInput, "buffer", c.input.shape, kFmtBuffer), c.input.bytes);
      put(name(kArgWeights, "buffer", c.weights.shape, kFmtBuffer), c.weights.bytes);
      put(name(kArgTexture, "texture", c.texture.shape, kFmtHalf), c.texture.bytes);
    }
    put(name(kArgOutput, "buffer", c.output.shape, kFmtBuffer), r.output_alloc);
    put(name(kArgSurface, "surface", c.surface.shape, kFmtHalf), r.surface_bytes);
  };
  if (form == Form::launch_dump) {
    put_dumps(dir, true);
    return written;
  }
  // Replay form (facts F6): the state before the launch, plus enc5's results/ extension.
  const std::uint32_t gx = (o.ex + o.ox + 7) / 8, gy = (o.ey + o.oy + 7) / 8;
  std::string m = "# enc5 synthetic replay capture (docs/captures.md)\n";
  m += std::string("kernel ") + c.kernel + "\n";
  m += "launch " + std::to_string(gx) + " " + std::to_string(gy) + " 1 32 1 8 0\n";
  m += "alloc 0 " + hex(base_in) + " " + std::to_string(n) + "\n";
  m += "alloc 1 " + hex(base_w) + " " + std::to_string(kWeightImageBytes) + "\n";
  m += "alloc 2 " + hex(base_out) + " " + std::to_string(out.size()) + "\n";
  m += "pointer 8 0 0\npointer 40 1 0\npointer 48 2 " + std::to_string(o.window_before) + "\n";
  m += "texture 88 " + std::to_string(c.texture.width) + " " + std::to_string(c.texture.height) + " 16 " + mode_name(c.texture.mode) + " texture-088.bin\n";
  m += "surface 112 " + std::to_string(o.ex) + " " + std::to_string(o.ey) + " 16 " + std::to_string(c.surface.pitch) + " surface-112.bin\n";
  write_text_atomic((dir / "manifest.txt").string(), m);
  written.push_back((dir / "manifest.txt").string());
  std::vector<std::uint8_t> args(kParamBlockBytes, 0);
  wr32(&args[0], o.ex);
  wr32(&args[4], o.ey);
  wr64(&args[8], base_in);
  wr64(&args[40], base_w);
  wr64(&args[48], base_out + o.window_before);
  args[80] = static_cast<std::uint8_t>(o.ox);
  args[81] = static_cast<std::uint8_t>(o.ox >> 8);
  args[82] = static_cast<std::uint8_t>(o.oy);
  args[83] = static_cast<std::uint8_t>(o.oy >> 8);
  wr64(&args[88], 1);   // texture object handle: opaque
  wr64(&args[112], 2);  // surface object handle: opaque
  put(dir / "args.bin", args);
  put(dir / "alloc-0.bin", c.input.bytes);
  put(dir / "alloc-1.bin", c.weights.bytes);
  put(dir / "alloc-2.bin", c.output.bytes);
  put(dir / "texture-088.bin", c.texture.bytes);
  put(dir / "surface-112.bin", c.surface.bytes);
  // results/ is the state after the launch, every argument (the read-only ones unchanged), so that
  // d4r's comparison of results/ with a replay folder sees the same keys on both sides.
  put_dumps(dir / "results", true);
  return written;
}

}  // namespace enc5::capture
