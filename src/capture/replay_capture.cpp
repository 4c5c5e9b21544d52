// Replay captures (facts F6): manifest.txt, args.bin and alloc-N.bin, the state before the
// launch, and enc5's results/ extension (docs/captures.md "Replay captures").
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>

#include "base/errors.hpp"
#include "capture/capture.hpp"
#include "capture/capture_detail.hpp"
#include "io/files.hpp"

namespace enc5::capture {

using namespace detail;

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

}  // namespace enc5::capture
