// A replay capture of any kernel (bridge/kernel_capture.hpp).
#include "bridge/kernel_capture.hpp"

#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>

#include "base/errors.hpp"
#include "bridge/launch.hpp"
#include "io/checked_size.hpp"
#include "io/files.hpp"
#include "io/links.hpp"
#include "io/numbers.hpp"

namespace rrswin::ptx {

namespace {

namespace fs = std::filesystem;

bool parse_num(const std::string& s, std::uint64_t& v) {
  const auto r = parse_u64(s, NumberBase::dec_or_0x);  // io/numbers.hpp
  if (r) v = *r;
  return r.has_value();
}

// A file the capture names: a plain name inside the folder (no '/', not "." or ".."); read with
// read_file_no_link, so never through a symbolic link (io/links.hpp, docs/captures.md "Files stay
// inside the capture").
std::string capture_file(const std::string& dir, const std::string& name, const std::string& from, std::uint64_t offset) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
    throw InputError(from, offset, "a plain file name inside the capture folder " + dir, "'" + name + "'");
  return (fs::path(dir) / name).string();
}

std::string hex(std::uint64_t v) {
  std::ostringstream o;
  o << "0x" << std::hex << v;
  return o.str();
}

}  // namespace

bool is_other_kernel_capture(const std::string& dir) {
  const fs::path m = fs::path(dir) / "manifest.txt";
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(m, ec))) return false;
  const auto bytes = read_file_no_link(m.string());
  std::istringstream in(std::string(bytes.begin(), bytes.end()));
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line);
    std::string w, k;
    if (ls >> w && w == "kernel" && ls >> k) return k.find("swin_enc5") == std::string::npos;
  }
  return false;
}

namespace {

// The manifest of a replay capture of any kernel (facts F6), line by line: one method per line
// kind, the cross-line checks (one launch line, unique ids and offsets, the allocations' total)
// in the parser's state, and the pointer lines kept until args.bin is read.
class ManifestParser {
 public:
  ManifestParser(const std::string& dir, KernelCapture& c) : dir_(dir), c_(c), mpath_(capture_file(dir, "manifest.txt", dir, 0)) {}

  void parse() {
    const auto mbytes = read_file_no_link(mpath_);
    const std::string text(mbytes.begin(), mbytes.end());
    // A NUL byte is refused where it is: read as the end of a name it would make
    // `tex.bin\0ignored` open tex.bin (as capture/replay_capture.cpp).
    if (const auto nul = text.find('\0'); nul != std::string::npos)
      throw InputError(mpath_, nul, "a text manifest without NUL bytes (facts F6)", "a NUL byte");
    std::size_t pos = 0;
    while (pos < text.size()) {
      line_start_ = pos;
      ++line_number_;
      std::size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) nl = text.size();
      line_ = text.substr(pos, nl - pos);
      pos = nl + 1;
      if (!line_.empty() && line_.back() == '\r') line_.pop_back();
      std::istringstream ls(line_);
      t_.clear();
      for (std::string w; ls >> w;) t_.push_back(w);
      if (t_.empty() || t_[0][0] == '#') continue;
      if (t_[0] == "kernel")
        kernel_line();
      else if (t_[0] == "launch")
        launch_line();
      else if (t_[0] == "alloc")
        alloc_line();
      else if (t_[0] == "pointer")
        pointer_line();
      else if (t_[0] == "texture" || t_[0] == "surface")
        image_line();
      else
        throw bad("a line starting with kernel, launch, alloc, pointer, texture or surface (facts F6)");
    }
    if (!have_launch_) throw InputError(mpath_, text.size(), "a 'launch gx gy gz bx by bz shared' line", "none");
  }

  // args.bin, then every pointer line checked against it and its allocation, and every image
  // handle's slot inside the block.
  void read_args() {
    const std::string apath = capture_file(dir_, "args.bin", mpath_, 0);
    c_.args = read_file_no_link(apath);
    for (const PointerLine& p : pointer_lines_) {
      const auto a = alloc_index_.find(p.id);
      if (a == alloc_index_.end())
        throw InputError(mpath_, p.line, "an 'alloc " + std::to_string(p.id) + " …' line for the pointer at +" + std::to_string(p.off),
                         "none");
      if (p.off + 8 > c_.args.size())
        throw InputError(apath, c_.args.size(), "a parameter block holding the pointer at +" + std::to_string(p.off) + " (8 bytes)",
                         std::to_string(c_.args.size()) + " bytes");
      std::uint64_t value = 0;
      for (int b = 0; b < 8; ++b) value |= static_cast<std::uint64_t>(c_.args[p.off + b]) << (8 * b);
      const KernelCapture::Alloc& al = c_.allocs[a->second];
      if (p.delta > al.bytes.size() || value != al.base + p.delta)
        throw InputError(apath, p.off,
                         "the pointer alloc " + std::to_string(p.id) + " base + delta = " + hex(al.base + p.delta) +
                             " (manifest), within the allocation",
                         hex(value));
      c_.pointers.push_back({static_cast<std::uint32_t>(p.off), a->second, p.delta});
    }
    for (const auto& im : c_.images)
      if (im.offset + 8 > c_.args.size())
        throw InputError(apath, c_.args.size(),
                         "a parameter block holding the object handle at +" + std::to_string(im.offset) + " (8 bytes)",
                         std::to_string(c_.args.size()) + " bytes");
  }

 private:
  struct PointerLine {
    std::uint64_t off, id, delta, line;
  };

  InputError bad(const std::string& expected) const { return InputError(mpath_, line_start_, expected, "'" + line_ + "'"); }
  std::uint64_t num(std::size_t i, const std::string& expected) const {
    std::uint64_t v = 0;
    if (i >= t_.size() || !parse_num(t_[i], v)) throw bad(expected);
    return v;
  }
  std::uint32_t offset(std::size_t i, const std::string& e, const std::string& what) {
    const std::uint64_t off = num(i, e);
    if (off > 999)
      throw InputError(mpath_, line_start_, "a parameter offset of at most 999 (the three digits of argNNN, facts F5)", "offset " + t_[i]);
    if (!used_offsets_.emplace(off, what).second)
      throw InputError(mpath_, line_start_, "one argument per parameter offset",
                       "offset " + t_[i] + " again (first: " + used_offsets_[off] + ")");
    return static_cast<std::uint32_t>(off);
  }

  void kernel_line() {
    if (t_.size() != 2) throw bad("'kernel NAME'");
    if (!c_.kernel.empty()) throw bad("one kernel line");
    capture::check_kernel_name(t_[1], mpath_, line_start_, line_number_);  // it names the outputs
    c_.kernel = t_[1];
  }
  void launch_line() {
    const std::string e = "'launch gx gy gz bx by bz shared' (decimal)";
    if (t_.size() != 8) throw bad(e);
    if (have_launch_) throw bad("one launch line");
    const auto dim = [&](std::size_t i, bool block, const char* what) {
      try {
        return parse_dim3(t_[i] + "," + t_[i + 1] + "," + t_[i + 2], what, block);
      } catch (const LaunchError& x) {
        throw InputError(mpath_, line_start_, std::string("a ") + what + " within CUDA's limits", x.what());
      }
    };
    c_.grid = dim(1, false, "grid");
    c_.block = dim(4, true, "block");
    c_.shared = num(7, e);
    if (c_.shared > kMaxDynamicShared)
      throw InputError(mpath_, line_start_, "dynamic shared memory of at most " + std::to_string(kMaxDynamicShared) + " bytes", t_[7]);
    have_launch_ = true;
  }
  void alloc_line() {
    const std::string e = "'alloc id base size' (base hex 0x… or decimal)";
    if (t_.size() != 4) throw bad(e);
    KernelCapture::Alloc a;
    a.id = num(1, e);
    a.base = num(2, e);
    const std::uint64_t size = num(3, e);
    if (alloc_index_.count(a.id)) throw bad("one alloc line per id");
    const auto sum = add_u64(total_, size);
    if (size == 0 || !sum || *sum > kMaxBufferBytes)
      throw InputError(mpath_, line_start_, "allocations of 1 byte or more, at most 16 GiB together", "size " + t_[3]);
    total_ = *sum;
    a.file = capture_file(dir_, "alloc-" + std::to_string(a.id) + ".bin", mpath_, line_start_);
    a.bytes = read_file_no_link(a.file);
    if (a.bytes.size() != size)
      throw InputError(a.file, std::min<std::uint64_t>(a.bytes.size(), size), std::to_string(size) + " bytes (the manifest's alloc size)",
                       std::to_string(a.bytes.size()) + " bytes");
    alloc_index_[a.id] = c_.allocs.size();
    c_.allocs.push_back(std::move(a));
  }
  void pointer_line() {
    const std::string e = "'pointer off id delta' (decimal)";
    if (t_.size() != 4) throw bad(e);
    const std::uint32_t off = offset(1, e, "a pointer");
    pointer_lines_.push_back({off, num(2, e), num(3, e), line_start_});
  }
  void image_line() {
    const bool tex = t_[0] == "texture";
    const std::string e =
        tex ? "'texture off width height fmt mode file' (mode clamp|border|wrap|mirror)" : "'surface off width height fmt pitch file'";
    if (t_.size() != 7) throw bad(e);
    KernelCapture::Image im;
    im.offset = offset(1, e, "a " + t_[0]);
    im.texture = tex;
    const std::uint64_t fmt = num(4, e);
    // Each field parsed here, where it is read (issue 38, F8): a malformed width, height, mode or
    // pitch is this line's error, never a token glued into a shape string the image reader would
    // take apart again (or accept: "1-pitch64").
    const std::uint64_t width = num(2, e), height = num(3, e);
    std::string tail;
    if (tex) {
      static const char* const kModes[] = {"clamp", "border", "wrap", "mirror"};
      bool known = false;
      for (const char* m : kModes) known = known || t_[5] == m;
      if (!known) throw InputError(mpath_, line_start_, "a texture address mode clamp|border|wrap|mirror", "'" + t_[5] + "'");
      tail = t_[5];
    } else {
      tail = "pitch" + std::to_string(num(5, e));
    }
    const std::string shape = std::to_string(width) + "x" + std::to_string(height) + "-" + tail;
    im.image = capture::load_image_arg(capture_file(dir_, t_[6], mpath_, line_start_), shape,
                                       static_cast<int>(std::min<std::uint64_t>(fmt, 1000000)), tex ? "texture" : "surface");
    c_.images.push_back(std::move(im));
  }

  const std::string dir_;
  KernelCapture& c_;
  const std::string mpath_;
  std::string line_;
  std::vector<std::string> t_;
  std::uint64_t line_start_ = 0, line_number_ = 0;
  std::vector<PointerLine> pointer_lines_;
  std::map<std::uint64_t, std::size_t> alloc_index_;
  std::map<std::uint64_t, std::string> used_offsets_;  // offset -> what, for duplicates
  bool have_launch_ = false;
  std::uint64_t total_ = 0;
};

}  // namespace

KernelCapture load_kernel_capture(const std::string& dir) {
  KernelCapture c;
  c.source = dir;
  ManifestParser p(dir, c);
  p.parse();
  p.read_args();
  return c;
}

RunStats run_kernel_capture(const Module& m, const std::string& entry, KernelCapture& c, const RunOptions& o) {
  const EntryStats es = entry_stats(m, entry);
  if (c.args.size() != es.param_bytes)
    throw LaunchError(c.source + "/args.bin: " + std::to_string(c.args.size()) + " bytes; entry " + entry + " takes " +
                      std::to_string(es.param_bytes) + " parameter bytes");
  Device dev;
  std::vector<std::uint64_t> address;
  for (auto& a : c.allocs) address.push_back(dev.add_global("alloc " + std::to_string(a.id) + " (" + a.file + ")", a.bytes));
  std::vector<std::uint8_t> block = c.args;
  const auto put = [&](std::uint32_t off, std::uint64_t v) {
    for (int b = 0; b < 8; ++b) block[off + b] = static_cast<std::uint8_t>(v >> (8 * b));
  };
  for (const auto& p : c.pointers) put(p.offset, address[p.alloc] + p.delta);
  std::vector<Texture> textures;
  std::vector<Surface> surfaces;
  textures.reserve(c.images.size());
  surfaces.reserve(c.images.size());
  for (const auto& im : c.images) {
    if (im.texture) {
      textures.push_back(capture::texture_of(im.image));
      put(im.offset, dev.bind_texture(&textures.back(), im.sampler));
    } else {
      Surface s;
      s.width = im.image.width;
      s.height = im.image.height;
      s.pitch = im.image.pitch;
      s.bytes = im.image.bytes;
      surfaces.push_back(std::move(s));
      put(im.offset, dev.bind_surface(&surfaces.back(), im.image.fmt == capture::kFmtFloat ? Device::SurfaceFormat::rgba32f
                                                                                           : Device::SurfaceFormat::rgba16f));
    }
  }
  RunOptions ro = o;
  ro.dynamic_shared_bytes = static_cast<std::uint32_t>(c.shared);
  const RunStats st = run(m, entry, c.grid, c.block, block, dev, ro);
  std::size_t k = 0;
  for (auto& im : c.images)
    if (!im.texture) im.image.bytes = std::move(surfaces[k++].bytes);
  return st;
}

std::vector<std::pair<std::string, std::vector<std::uint8_t>>> kernel_capture_outputs(const KernelCapture& c, const std::string& kernel,
                                                                                      std::uint32_t launch) {
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> out;
  const std::string k = c.kernel.empty() ? kernel : c.kernel;
  for (const auto& p : c.pointers) {
    const auto& a = c.allocs[p.alloc];
    capture::DumpName n{
        launch, k, static_cast<int>(p.offset), "buffer", capture::buffer_shape(a.base, a.bytes.size(), p.delta), capture::kFmtBuffer};
    out.emplace_back(capture::format_dump_name(n), a.bytes);
  }
  for (const auto& im : c.images) {
    capture::DumpName n{
        launch,      k, static_cast<int>(im.offset), im.texture ? "texture" : "surface", capture::image_shape(im.image, im.texture),
        im.image.fmt};
    out.emplace_back(capture::format_dump_name(n), im.image.bytes);
  }
  return out;
}

SamplerOption parse_sampler_option(const std::string& value) {
  const auto bad = [&] { return std::invalid_argument("--sampler: expected OFFSET=point|linear, got '" + value + "'"); };
  const auto eq = value.find('=');
  if (eq == std::string::npos || eq == 0 || eq > 3) throw bad();
  SamplerOption o;
  for (std::size_t i = 0; i < eq; ++i) {
    if (value[i] < '0' || value[i] > '9') throw bad();
    o.offset = o.offset * 10 + static_cast<std::uint32_t>(value[i] - '0');
  }
  const std::string mode = value.substr(eq + 1);
  if (mode == "linear")
    o.filter = TextureFilter::linear;
  else if (mode != "point")
    throw bad();
  return o;
}

void apply_sampler_option(KernelCapture& c, const SamplerOption& o) {
  bool found = false;
  for (auto& im : c.images)
    if (im.texture && im.offset == o.offset) {
      im.sampler.filter = o.filter;
      found = true;
    }
  if (!found)
    throw std::invalid_argument("--sampler " + std::to_string(o.offset) + "=...: the capture " + c.source + " has no texture at +" +
                                std::to_string(o.offset));
}

}  // namespace rrswin::ptx
