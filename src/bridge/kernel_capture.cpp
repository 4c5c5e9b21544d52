// A replay capture of any kernel (bridge/kernel_capture.hpp).
#include "bridge/kernel_capture.hpp"

#include <filesystem>
#include <map>
#include <sstream>

#include "base/errors.hpp"
#include "bridge/launch.hpp"
#include "io/checked_size.hpp"
#include "io/files.hpp"
#include "io/links.hpp"
#include "io/numbers.hpp"

namespace enc5::ptx {

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

KernelCapture load_kernel_capture(const std::string& dir) {
  KernelCapture c;
  c.source = dir;
  const std::string mpath = capture_file(dir, "manifest.txt", dir, 0);
  const auto mbytes = read_file_no_link(mpath);
  const std::string text(mbytes.begin(), mbytes.end());
  struct PointerLine {
    std::uint64_t off, id, delta, line;
  };
  std::vector<PointerLine> pointer_lines;
  std::map<std::uint64_t, std::size_t> alloc_index;
  std::map<std::uint64_t, std::string> used_offsets;  // offset -> what, for duplicates
  bool have_launch = false;
  std::uint64_t total = 0;
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
    const auto bad = [&](const std::string& expected) { return InputError(mpath, line_start, expected, "'" + line + "'"); };
    const auto num = [&](std::size_t i, const std::string& expected) {
      std::uint64_t v = 0;
      if (i >= t.size() || !parse_num(t[i], v)) throw bad(expected);
      return v;
    };
    const auto offset = [&](std::size_t i, const std::string& e, const std::string& what) {
      const std::uint64_t off = num(i, e);
      if (off > 999) throw InputError(mpath, line_start, "a parameter offset of at most 999 (the three digits of argNNN, facts F5)", "offset " + t[i]);
      if (!used_offsets.emplace(off, what).second)
        throw InputError(mpath, line_start, "one argument per parameter offset", "offset " + t[i] + " again (first: " + used_offsets[off] + ")");
      return static_cast<std::uint32_t>(off);
    };
    if (t[0] == "kernel") {
      if (t.size() != 2) throw bad("'kernel NAME'");
      c.kernel = t[1];
    } else if (t[0] == "launch") {
      const std::string e = "'launch gx gy gz bx by bz shared' (decimal)";
      if (t.size() != 8) throw bad(e);
      if (have_launch) throw bad("one launch line");
      const auto dim = [&](std::size_t i, bool block, const char* what) {
        try {
          return parse_dim3(t[i] + "," + t[i + 1] + "," + t[i + 2], what, block);
        } catch (const LaunchError& x) {
          throw InputError(mpath, line_start, std::string("a ") + what + " within CUDA's limits", x.what());
        }
      };
      c.grid = dim(1, false, "grid");
      c.block = dim(4, true, "block");
      c.shared = num(7, e);
      if (c.shared > kMaxDynamicShared)
        throw InputError(mpath, line_start, "dynamic shared memory of at most " + std::to_string(kMaxDynamicShared) + " bytes", t[7]);
      have_launch = true;
    } else if (t[0] == "alloc") {
      const std::string e = "'alloc id base size' (base hex 0x… or decimal)";
      if (t.size() != 4) throw bad(e);
      KernelCapture::Alloc a;
      a.id = num(1, e);
      a.base = num(2, e);
      const std::uint64_t size = num(3, e);
      if (alloc_index.count(a.id)) throw bad("one alloc line per id");
      const auto sum = add_u64(total, size);
      if (size == 0 || !sum || *sum > kMaxBufferBytes)
        throw InputError(mpath, line_start, "allocations of 1 byte or more, at most 16 GiB together", "size " + t[3]);
      total = *sum;
      a.file = capture_file(dir, "alloc-" + std::to_string(a.id) + ".bin", mpath, line_start);
      a.bytes = read_file_no_link(a.file);
      if (a.bytes.size() != size)
        throw InputError(a.file, std::min<std::uint64_t>(a.bytes.size(), size), std::to_string(size) + " bytes (the manifest's alloc size)",
                         std::to_string(a.bytes.size()) + " bytes");
      alloc_index[a.id] = c.allocs.size();
      c.allocs.push_back(std::move(a));
    } else if (t[0] == "pointer") {
      const std::string e = "'pointer off id delta' (decimal)";
      if (t.size() != 4) throw bad(e);
      pointer_lines.push_back({offset(1, e, "a pointer"), num(2, e), num(3, e), line_start});
    } else if (t[0] == "texture" || t[0] == "surface") {
      const bool tex = t[0] == "texture";
      const std::string e = tex ? "'texture off width height fmt mode file' (mode clamp|border|wrap|mirror)" : "'surface off width height fmt pitch file'";
      if (t.size() != 7) throw bad(e);
      KernelCapture::Image im;
      im.offset = offset(1, e, "a " + t[0]);
      im.texture = tex;
      const std::uint64_t fmt = num(4, e);
      const std::string shape = t[2] + "x" + t[3] + "-" + (tex ? t[5] : "pitch" + std::to_string(num(5, e)));
      im.image = capture::load_image_arg(capture_file(dir, t[6], mpath, line_start), shape, static_cast<int>(std::min<std::uint64_t>(fmt, 1000000)),
                                         tex ? "texture" : "surface");
      c.images.push_back(std::move(im));
    } else {
      throw bad("a line starting with kernel, launch, alloc, pointer, texture or surface (facts F6)");
    }
  }
  if (!have_launch) throw InputError(mpath, text.size(), "a 'launch gx gy gz bx by bz shared' line", "none");
  const std::string apath = capture_file(dir, "args.bin", mpath, 0);
  c.args = read_file_no_link(apath);
  for (const PointerLine& p : pointer_lines) {
    const auto a = alloc_index.find(p.id);
    if (a == alloc_index.end()) throw InputError(mpath, p.line, "an 'alloc " + std::to_string(p.id) + " …' line for the pointer at +" + std::to_string(p.off), "none");
    if (p.off + 8 > c.args.size())
      throw InputError(apath, c.args.size(), "a parameter block holding the pointer at +" + std::to_string(p.off) + " (8 bytes)",
                       std::to_string(c.args.size()) + " bytes");
    std::uint64_t value = 0;
    for (int b = 0; b < 8; ++b) value |= static_cast<std::uint64_t>(c.args[p.off + b]) << (8 * b);
    const KernelCapture::Alloc& al = c.allocs[a->second];
    if (p.delta > al.bytes.size() || value != al.base + p.delta)
      throw InputError(apath, p.off, "the pointer alloc " + std::to_string(p.id) + " base + delta = " + hex(al.base + p.delta) + " (manifest), within the allocation",
                       hex(value));
    c.pointers.push_back({static_cast<std::uint32_t>(p.off), a->second, p.delta});
  }
  for (const auto& im : c.images)
    if (im.offset + 8 > c.args.size())
      throw InputError(apath, c.args.size(), "a parameter block holding the object handle at +" + std::to_string(im.offset) + " (8 bytes)",
                       std::to_string(c.args.size()) + " bytes");
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
      put(im.offset, dev.bind_texture(&textures.back()));
    } else {
      Surface s;
      s.width = im.image.width;
      s.height = im.image.height;
      s.pitch = im.image.pitch;
      s.bytes = im.image.bytes;
      surfaces.push_back(std::move(s));
      put(im.offset, dev.bind_surface(&surfaces.back()));
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

std::vector<std::pair<std::string, std::vector<std::uint8_t>>> kernel_capture_outputs(const KernelCapture& c, const std::string& kernel) {
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> out;
  const std::string k = c.kernel.empty() ? kernel : c.kernel;
  for (const auto& p : c.pointers) {
    const auto& a = c.allocs[p.alloc];
    capture::DumpName n{0, k, static_cast<int>(p.offset), "buffer", capture::buffer_shape(a.base, a.bytes.size(), p.delta), capture::kFmtBuffer};
    out.emplace_back(capture::format_dump_name(n), a.bytes);
  }
  for (const auto& im : c.images) {
    capture::DumpName n{0, k, static_cast<int>(im.offset), im.texture ? "texture" : "surface", capture::image_shape(im.image, im.texture),
                        im.image.fmt};
    out.emplace_back(capture::format_dump_name(n), im.image.bytes);
  }
  return out;
}

}  // namespace enc5::ptx
