// Launch-dump folders (facts F5): one file per launch and argument, read into LaunchCaptures
// (docs/captures.md "Launch dumps").
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>

#include "base/errors.hpp"
#include "capture/capture.hpp"
#include "capture/capture_detail.hpp"
#include "io/files.hpp"
#include "io/links.hpp"

namespace rrswin::capture::detail {
namespace {

// Buffer shape (docs/captures.md): '-'-separated tokens; base0x<hex> (device address of the
// allocation), size<N> (its bytes, required, must equal the file size), off<N> (the argument's
// pointer minus the base: where the arena window starts, facts F4). Other tokens are ignored so
// that strings with more fields still read; a base/size/off token whose number does not read is an
// error, never skipped.
struct BufferTokens {
  std::optional<std::uint64_t> base, size;
  std::uint64_t offset = 0;
};

BufferTokens buffer_tokens(const std::string& file, const std::string& shape) {
  BufferTokens out;
  for (const std::string& t : split(shape, '-')) {
    std::uint64_t v = 0;
    if (t.rfind("base0x", 0) == 0) {
      if (!parse_u64(t.substr(6), v, 16))
        throw InputError(file, 0, "a hex device address in the shape token 'base0x…' (at most 16 hex digits)", "'" + t + "'");
      out.base = v;
    } else if (t.rfind("size", 0) == 0) {
      if (!parse_u64(t.substr(4), v))
        throw InputError(file, 0, "a decimal byte count below 2^64 in the shape token 'size<N>'", "'" + t + "'");
      out.size = v;
    } else if (t.rfind("off", 0) == 0) {
      if (!parse_u64(t.substr(3), v))
        throw InputError(file, 0, "a decimal pointer offset below 2^64 in the shape token 'off<N>'", "'" + t + "'");
      out.offset = v;
    }
  }
  return out;
}

void parse_buffer_shape(BufferArg& b) {
  const BufferTokens t = buffer_tokens(b.file, b.shape);
  if (!t.size) throw InputError(b.file, 0, "a buffer shape with a 'size<N>' token (the allocation's bytes, facts F5)", "'" + b.shape + "'");
  if (*t.size != b.bytes.size())
    throw InputError(b.file, std::min<std::uint64_t>(*t.size, b.bytes.size()),
                     std::to_string(*t.size) + " bytes (the size in the file name)",
                     std::to_string(b.bytes.size()) + " bytes (the file is truncated or the name is wrong)");
  if (t.base) b.base = *t.base;
  b.offset = t.offset;
}

using LaunchFiles = std::map<std::uint32_t, std::vector<const DumpFile*>>;

// The dumps of the kernels matching opt.kernel_filter, by launch number; none is an error naming
// (up to four of) the launches the folder has.
LaunchFiles matching_launches(const fs::path& dir, const std::vector<DumpFile>& files, const LoadOptions& opt) {
  LaunchFiles by_launch;
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
                             "); rrswin replays only " + kEnc5Kernel + " (--kernel SUBSTRING selects another name)");
  }
  return by_launch;
}

// The one dump of argument `arg` among a launch's files, of the given kind (buffer, texture,
// surface); a second one, one of another kind or none is an error.
const DumpFile& launch_arg(const fs::path& dir, std::uint32_t launch, const std::vector<const DumpFile*>& list, int arg, const char* kind) {
  const DumpFile* hit = nullptr;
  for (const DumpFile* f : list) {
    if (f->name.arg != arg) continue;
    if (f->name.kind != kind)
      throw InputError(f->path.string(), 0, std::string("a ") + kind + " dump for arg" + std::to_string(arg) + " (facts A4)",
                       "a " + f->name.kind + " dump");
    if (hit)
      throw InputError(f->path.string(), 0, "one dump per launch and argument",
                       "a second file for arg" + std::to_string(arg) + " (also " + hit->path.filename().string() + ")");
    hit = f;
  }
  if (!hit) {
    const std::string& kernel = list.front()->name.kernel;
    char b[64], a[16];
    std::snprintf(b, sizeof b, "launch-%03u-", launch);
    std::snprintf(a, sizeof a, "arg%03d", arg);
    throw std::runtime_error(dir.string() + ": launch " + std::to_string(launch) + " of " + kernel + " has no " + a + " " + kind +
                             " dump (expected a file " + b + kernel + "-" + a + "-" + kind + "-…-fmtN.bin; facts F5)");
  }
  return *hit;
}

// One launch's capture: its five arguments read, the extents and block offsets set, validated.
LaunchCapture load_launch(const fs::path& dir, std::uint32_t launch, const std::vector<const DumpFile*>& list, const LoadOptions& opt) {
  LaunchCapture c;
  c.source = dir.string();
  c.form = Form::launch_dump;
  c.launch = launch;
  c.kernel = list.front()->name.kernel;
  const auto buffer = [&](int arg) {
    const DumpFile& f = launch_arg(dir, launch, list, arg, "buffer");
    BufferArg b;
    b.file = capture_file(dir, f.path.filename().string(), dir.string(), 0);
    b.shape = f.name.shape;
    b.bytes = read_file_no_link(b.file);
    parse_buffer_shape(b);
    return b;
  };
  const auto image = [&](int arg, const char* kind) {
    const DumpFile& f = launch_arg(dir, launch, list, arg, kind);
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
  return c;
}

}  // namespace

// --- launch dumps (facts F5) -------------------------------------------------------------------

std::vector<LaunchCapture> load_launch_dumps(const fs::path& dir, const std::vector<DumpFile>& files, const LoadOptions& opt) {
  std::vector<LaunchCapture> out;
  for (const auto& [launch, list] : matching_launches(dir, files, opt)) out.push_back(load_launch(dir, launch, list, opt));
  return out;
}

std::vector<DumpFile> dump_files(const fs::path& dir) {
  std::vector<DumpFile> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("launch-", 0) != 0) continue;
    refuse_link(e.path().string());  // a dump that is a link is refused by name (io/links.hpp)
    if (!e.is_regular_file()) continue;
    auto parsed = parse_dump_name(n);
    if (!parsed)
      throw InputError(e.path().string(), 0,
                       "a launch dump name launch-NNN-<kernel>-argNNN-{buffer,surface,texture}-<shape>-fmtN.bin (facts F5)", "'" + n + "'");
    files.push_back({*parsed, e.path()});
  }
  std::sort(files.begin(), files.end(), [](const DumpFile& a, const DumpFile& b) { return a.path < b.path; });
  return files;
}

}  // namespace rrswin::capture::detail

namespace rrswin::capture {

std::vector<DumpedLaunch> load_dumped_launches(const std::string& dir, const std::string& kernel_substring) {
  using namespace detail;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir, 0, "a folder of launch dumps (facts F5)", "no such folder");
  std::map<std::uint32_t, DumpedLaunch> by_launch;
  for (const DumpFile& f : dump_files(dir)) {
    if (f.name.kernel.find(kernel_substring) == std::string::npos) continue;
    DumpedLaunch& l = by_launch[f.name.launch];
    if (!l.kernel.empty() && l.kernel != f.name.kernel)
      throw InputError(f.path.string(), 0,
                       "one kernel per launch number (launch " + std::to_string(f.name.launch) + " is " + l.kernel + ")",
                       "a dump of " + f.name.kernel);
    l.dir = dir;
    l.kernel = f.name.kernel;
    l.launch = f.name.launch;
    for (const auto& b : l.buffers)
      if (b.first == f.name.arg)
        throw InputError(f.path.string(), 0, "one dump per launch and argument", "a second file for this argument");
    for (const auto& im : l.images)
      if (im.arg == f.name.arg) throw InputError(f.path.string(), 0, "one dump per launch and argument", "a second file for this argument");
    const std::string file = capture_file(dir, f.path.filename().string(), dir, 0);
    if (f.name.kind == "buffer") {
      BufferArg b;
      b.file = file;
      b.shape = f.name.shape;
      b.bytes = read_file_no_link(b.file);
      parse_buffer_shape(b);
      l.buffers.emplace_back(f.name.arg, std::move(b));
    } else {
      const bool texture = f.name.kind == "texture";
      l.images.push_back({f.name.arg, texture, load_image_arg(file, f.name.shape, f.name.fmt, texture ? "texture" : "surface")});
    }
  }
  if (by_launch.empty())
    throw std::runtime_error(dir + ": no launch dump of a kernel matching '" + kernel_substring + "' (facts F5 naming)");
  std::vector<DumpedLaunch> out;
  for (auto& [n, l] : by_launch) out.push_back(std::move(l));
  return out;
}

std::uint64_t buffer_offset(const std::string& file, const std::string& shape) { return detail::buffer_tokens(file, shape).offset; }

}  // namespace rrswin::capture
