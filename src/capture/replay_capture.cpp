// Replay captures (facts F6): manifest.txt, args.bin and alloc-N.bin, the state before the
// launch, and enc5's results/ extension (docs/captures.md "Replay captures"). Every number of the
// manifest goes through io/numbers.hpp with the line it came from.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include "base/errors.hpp"
#include "base/little_endian.hpp"
#include "capture/capture.hpp"
#include "capture/capture_detail.hpp"
#include "io/checked_size.hpp"
#include "io/files.hpp"
#include "io/links.hpp"
#include "io/numbers.hpp"

namespace rrswin::capture {

using namespace detail;

namespace {

// One manifest line: its words and where it starts (every error names manifest.txt and this offset).
struct Line {
  std::string text;
  std::uint64_t offset = 0;
  std::uint64_t number = 0;  // 1-based
  std::vector<std::string> words;
};

// Lines of the manifest without blanks and comments. A NUL byte is refused where it is: read as the
// end of a name it would make `surface-112.bin\0ignored` open surface-112.bin.
std::vector<Line> manifest_lines(const std::string& mpath, const std::string& text) {
  if (const auto nul = text.find('\0'); nul != std::string::npos)
    throw InputError(mpath, nul, "a text manifest without NUL bytes (facts F6)", "a NUL byte");
  std::vector<Line> lines;
  std::uint64_t number = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    Line l;
    l.offset = pos;
    l.number = ++number;
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    l.text = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (!l.text.empty() && l.text.back() == '\r') l.text.pop_back();
    std::istringstream ls(l.text);
    for (std::string w; ls >> w;) l.words.push_back(w);
    if (!l.words.empty() && l.words[0][0] != '#') lines.push_back(std::move(l));
  }
  return lines;
}

struct Alloc {
  std::uint64_t base = 0, size = 0, line_offset = 0;
};
struct Pointer {
  std::uint64_t id = 0, delta = 0, line_offset = 0;
};

// The manifest's directives, each checked on its own line.
struct Manifest {
  std::string path;
  std::uint64_t end = 0;  // its size: where a missing line is reported
  std::map<std::uint64_t, Alloc> allocs;
  std::map<std::uint64_t, Pointer> pointers;  // by parameter-block offset
  bool have_launch = false, have_tex = false, have_surf = false;

  InputError bad(const Line& l, const std::string& expected) const { return InputError(path, l.offset, expected, "'" + l.text + "'"); }
  // Word i of the line as a number in [lo, hi], decimal or 0x hex; the message names the field
  // and the directive's form.
  std::uint64_t num(const Line& l, std::size_t i, const std::string& field, std::uint64_t lo = 0, std::uint64_t hi = UINT64_MAX) const {
    const std::string& d = l.words[0];
    const char* form = d == "launch"    ? "launch gx gy gz bx by bz shared"
                       : d == "alloc"   ? "alloc id base size"
                       : d == "pointer" ? "pointer off id delta"
                       : d == "texture" ? "texture off width height fmt mode file"
                                        : "surface off width height fmt pitch file";
    return checked_u64_in(path, l.offset, field + " of '" + form + "'", l.words.at(i), lo, hi, NumberBase::dec_or_0x);
  }
  void launch(const Line& l, LaunchCapture& c);
  void alloc(const Line& l);
  void pointer(const Line& l);
  void image(const Line& l, const fs::path& dir, LaunchCapture& c);
};

void Manifest::launch(const Line& l, LaunchCapture& c) {
  if (l.words.size() != 8) throw bad(l, "'launch gx gy gz bx by bz shared' (decimal)");
  if (have_launch) throw bad(l, "one launch line (rrswin replays one launch per capture folder)");
  const auto gx = num(l, 1, "gx"), gy = num(l, 2, "gy");
  if (gx == 0 || gy == 0 || gx > 0xFFFFFFFFu || gy > 0xFFFFFFFFu)
    throw InputError(path, l.offset, "a grid gx, gy in 1..2^32-1 (CUDA's gridDim)", "grid " + l.words[1] + " × " + l.words[2]);
  c.grid_x = static_cast<std::uint32_t>(gx);
  c.grid_y = static_cast<std::uint32_t>(gy);
  c.grid_file = path;
  c.grid_offset = l.offset;
  const auto gz = num(l, 3, "gz"), bx = num(l, 4, "bx"), by = num(l, 5, "by"), bz = num(l, 6, "bz");
  num(l, 7, "shared");
  // facts A2: rrswin runs 32x1x8 threads per block on a 2D grid; another shape is another kernel.
  if (gz != 1 || bx != 32 || by != 1 || bz != 8)
    throw InputError(path, l.offset, "enc5's launch shape: gz 1, block 32 1 8 (facts A2)",
                     "gz " + l.words[3] + ", block " + l.words[4] + " " + l.words[5] + " " + l.words[6] + " (a launch of another kernel?)");
  have_launch = true;
}

void Manifest::alloc(const Line& l) {
  if (l.words.size() != 4) throw bad(l, "'alloc id base size' (base hex 0x… or decimal)");
  const auto id = num(l, 1, "id");
  if (allocs.count(id))
    throw bad(l, "one alloc line per id (alloc " + l.words[1] + " is also at byte offset " + std::to_string(allocs[id].line_offset) + ")");
  allocs[id] = Alloc{num(l, 2, "base"), num(l, 3, "size", 0, kMaxBufferBytes), l.offset};
}

void Manifest::pointer(const Line& l) {
  if (l.words.size() != 4) throw bad(l, "'pointer off id delta' (decimal)");
  // A u64 within the 144-byte parameter block (facts A4): off + 8 <= 144, checked without a sum.
  const auto off = num(l, 1, "off (a u64 pointer's offset in the 144-byte parameter block, facts A4)", 0, kParamBlockBytes - 8);
  if (pointers.count(off))
    throw bad(l, "one pointer line per offset (pointer " + l.words[1] + " is also at byte offset " +
                     std::to_string(pointers[off].line_offset) + ")");
  pointers[off] = Pointer{num(l, 2, "id"), num(l, 3, "delta"), l.offset};
}

void Manifest::image(const Line& l, const fs::path& dir, LaunchCapture& c) {
  const bool tex = l.words[0] == "texture";
  const std::string e =
      tex ? "'texture off width height fmt mode file' (mode clamp|border|wrap|mirror)" : "'surface off width height fmt pitch file'";
  if (l.words.size() != 7) throw bad(l, e);
  if (tex ? have_tex : have_surf) throw bad(l, "one " + l.words[0] + " line");
  const std::uint64_t arg = tex ? kArgTexture : kArgSurface;
  num(l, 1, "off (the " + l.words[0] + "'s parameter-block offset, facts A4)", arg, arg);
  ImageArg a;
  // rrswin reads RGBA16F only (CU_AD_FORMAT_HALF = 16, docs/captures.md "fmt codes"): refused here, on
  // the manifest's line, not later against the texel file.
  a.fmt = static_cast<int>(num(l, 4, "fmt (CUarray_format; rrswin reads 16 = CU_AD_FORMAT_HALF, RGBA16F)", kFmtHalf, kFmtHalf));
  std::optional<std::uint64_t> pitch;
  if (tex) {
    if (!parse_mode(l.words[5], a.mode)) throw bad(l, e);
  } else {
    pitch = num(l, 5, "pitch");
  }
  set_image_geometry(a, num(l, 2, "width"), num(l, 3, "height"), pitch, path, l.offset);
  a.file = capture_file(dir, l.words[6], path, l.offset);
  a.bytes = read_file_no_link(a.file);
  a.shape = image_shape(a, tex);
  (tex ? c.texture : c.surface) = std::move(a);
  (tex ? have_tex : have_surf) = true;
}

Manifest read_manifest(const fs::path& dir, LaunchCapture& c) {
  Manifest m;
  m.path = capture_file(dir, "manifest.txt", dir.string(), 0);
  const auto bytes = read_file_no_link(m.path);
  const std::string text(bytes.begin(), bytes.end());
  m.end = text.size();
  for (const Line& l : manifest_lines(m.path, text)) {
    const std::string& d = l.words[0];
    if (d == "kernel") {
      if (l.words.size() != 2) throw m.bad(l, "'kernel NAME'");
      check_kernel_name(l.words[1], m.path, l.offset, l.number);  // it names the outputs
      c.kernel = l.words[1];
    } else if (d == "launch") {
      m.launch(l, c);
    } else if (d == "alloc") {
      m.alloc(l);
    } else if (d == "pointer") {
      m.pointer(l);
    } else if (d == "texture" || d == "surface") {
      m.image(l, dir, c);
    } else {
      throw m.bad(l, "a line starting with kernel, launch, alloc, pointer, texture or surface (facts F6)");
    }
  }
  if (c.kernel.find("swin_enc5") == std::string::npos)
    throw InputError(m.path, 0, std::string("a capture of ") + kEnc5Kernel, "kernel " + c.kernel);
  if (!m.have_launch) throw InputError(m.path, m.end, "a 'launch gx gy gz bx by bz shared' line", "none");
  if (!m.have_tex) throw InputError(m.path, m.end, "a 'texture 88 …' line (the texture E61 samples)", "none");
  if (!m.have_surf) throw InputError(m.path, m.end, "a 'surface 112 …' line (the surface E61 writes)", "none");
  return m;
}

// args.bin: the raw parameter block (facts A4): extents at +0/+4, block offsets at +80/+82.
std::vector<std::uint8_t> read_args(const fs::path& dir, const Manifest& m, LaunchCapture& c) {
  const std::string apath = capture_file(dir, "args.bin", m.path, 0);
  auto args = read_file_no_link(apath);
  if (args.size() != kParamBlockBytes)
    throw InputError(apath, std::min(args.size(), kParamBlockBytes), "the 144-byte parameter block (facts A4)",
                     std::to_string(args.size()) + " bytes");
  c.ex = load_le32(&args[0]);
  c.ey = load_le32(&args[4]);
  c.ox = static_cast<std::uint16_t>(args[80] | args[81] << 8);
  c.oy = static_cast<std::uint16_t>(args[82] | args[83] << 8);
  if (c.ex == 0 || c.ey == 0 || c.ex > 65536 || c.ey > 65536)
    throw InputError(apath, 0, "token-grid extents ex, ey in 1..65536 (u32 at +0, +4)", std::to_string(c.ex) + ", " + std::to_string(c.ey));
  return args;
}

// The buffer the pointer at parameter offset `off` names: its allocation's file, checked against
// the manifest's size and the pointer value in args.bin.
BufferArg pointer_buffer(const fs::path& dir, const Manifest& m, const std::vector<std::uint8_t>& args, int off, const char* what,
                         std::map<std::uint64_t, std::vector<std::uint8_t>>& loaded) {
  const std::string apath = (dir / "args.bin").string();
  const auto it = m.pointers.find(static_cast<std::uint64_t>(off));
  if (it == m.pointers.end())
    throw InputError(m.path, m.end, "a 'pointer " + std::to_string(off) + " id delta' line (" + what + ")", "none");
  const Pointer& p = it->second;
  const auto a = m.allocs.find(p.id);
  if (a == m.allocs.end())
    throw InputError(m.path, p.line_offset, "an 'alloc " + std::to_string(p.id) + " …' line for the pointer at +" + std::to_string(off),
                     "none");
  const std::uint64_t want = checked_end_in(m.path, p.line_offset, "the pointer alloc base + delta", a->second.base, p.delta);
  const std::uint64_t value = load_le64(&args[static_cast<std::size_t>(off)]);
  if (value != want)
    throw InputError(apath, static_cast<std::uint64_t>(off),
                     "the pointer alloc " + std::to_string(p.id) + " base + delta = " + hex(want) + " (manifest)", hex(value));
  BufferArg b;
  b.file = capture_file(dir, "alloc-" + std::to_string(p.id) + ".bin", m.path, p.line_offset);
  b.base = a->second.base;
  b.offset = p.delta;
  auto l = loaded.find(p.id);
  if (l == loaded.end()) l = loaded.emplace(p.id, read_file_no_link(b.file)).first;
  b.bytes = l->second;
  if (b.bytes.size() != a->second.size)
    throw InputError(b.file, std::min<std::uint64_t>(b.bytes.size(), a->second.size),
                     std::to_string(a->second.size) + " bytes (the manifest's alloc size)", std::to_string(b.bytes.size()) + " bytes");
  b.shape = buffer_shape(b.base, b.bytes.size(), b.offset);
  return b;
}

// enc5's extension: results/ holds the original's outputs after the launch in launch-dump naming.
std::optional<ReplayOutputs> read_results(const fs::path& dir, const Manifest& m, const LaunchCapture& c) {
  const fs::path res = dir / "results";
  refuse_link(res.string());
  if (!fs::is_directory(res)) return std::nullopt;
  ReplayOutputs r{c.output.bytes, c.surface.bytes};
  bool any = false;
  auto read = [&](const DumpFile& f, std::vector<std::uint8_t>& to, std::size_t size, const char* what) {
    to = read_file_no_link(capture_file(dir, "results/" + f.path.filename().string(), m.path, 0));
    if (to.size() != size)
      throw InputError(f.path.string(), std::min(to.size(), size), std::to_string(size) + " bytes (" + what + ")",
                       std::to_string(to.size()) + " bytes");
    any = true;
  };
  for (const DumpFile& f : dump_files(res)) {
    if (f.name.arg == kArgOutput && f.name.kind == "buffer")
      read(f, r.output_alloc, c.output.bytes.size(), "alloc size");
    else if (f.name.arg == kArgSurface && f.name.kind == "surface")
      read(f, r.surface_bytes, c.surface.bytes.size(), "pitch × height");
  }
  if (!any) return std::nullopt;
  return r;
}

}  // namespace

// --- replay captures (facts F6) ------------------------------------------------------------------

LaunchCapture load_replay_capture(const std::string& dir_s) {
  const fs::path dir(dir_s);
  LaunchCapture c;
  c.source = dir_s;
  c.form = Form::replay;
  const Manifest m = read_manifest(dir, c);
  const auto args = read_args(dir, m, c);
  std::map<std::uint64_t, std::vector<std::uint8_t>> loaded;
  c.input = pointer_buffer(dir, m, args, kArgInput, "the input arena", loaded);
  c.weights = pointer_buffer(dir, m, args, kArgWeights, "the weight image", loaded);
  c.output = pointer_buffer(dir, m, args, kArgOutput, "the output arena", loaded);
  validate(c);
  c.results = read_results(dir, m, c);
  return c;
}

}  // namespace rrswin::capture
