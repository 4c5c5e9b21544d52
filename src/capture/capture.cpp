// Reading and writing d4r's captures (facts §F5 launch dumps, §F6 replay dumps). Everything the
// facts leave unstated is decided here once and documented in docs/captures.md; a file rrswin cannot
// read is an InputError naming the file and byte offset.
//
// This file: the checks every capture passes (image geometry, windows, files inside the folder),
// load_captures, and the replay itself with the replay folder it writes. Names are dump_name.cpp,
// the two readers launch_dump.cpp and replay_capture.cpp, the synthetic writer synthetic_capture.cpp.
#include "capture/capture.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <stdexcept>

#include "base/errors.hpp"
#include "capture/capture_detail.hpp"
#include "io/checked_size.hpp"
#include "io/files.hpp"
#include "io/links.hpp"
#include "io/output_set.hpp"
#include "model/weight_image.hpp"

namespace rrswin::capture {
namespace detail {

// The image limits (docs/captures.md): width and height in 1..kMaxImageSide texels, pitch at least
// 8·width and pitch·height within kMaxBufferBytes. Checked in 64 bits, so no number can wrap.
void set_image_geometry(ImageArg& a, std::uint64_t w, std::uint64_t h, std::optional<std::uint64_t> pitch, const std::string& file,
                        std::uint64_t offset) {
  if (w == 0 || h == 0 || w > kMaxImageSide || h > kMaxImageSide)
    throw InputError(file, offset, "a width and height in 1.." + std::to_string(kMaxImageSide) + " texels (enc5's image limit)",
                     std::to_string(w) + "×" + std::to_string(h));
  const std::uint64_t row = 8 * w;  // RGBA16F: 8 bytes per texel; w <= 2^16 cannot wrap
  const std::uint64_t p = pitch.value_or(row);
  if (p < row) throw InputError(file, offset, "a pitch of at least 8·width = " + std::to_string(row) + " bytes", std::to_string(p));
  checked_bytes_in(file, offset, "pitch × height = " + std::to_string(p) + " × " + std::to_string(h), {p, h});
  a.width = static_cast<int>(w);
  a.height = static_cast<int>(h);
  a.pitch = static_cast<std::size_t>(p);
}

namespace {

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
      throw InputError(
          a.file, 0,
          texture ? "texture shape tokens pitch<P> and one address mode clamp|border|wrap|mirror" : "surface shape tokens pitch<P> only",
          "'" + t + "' in '" + a.shape + "'");
    }
  }
  set_image_geometry(a, w, h, pitch, a.file, 0);
}

void check_image(const ImageArg& a, const char* what, bool allow_float) {
  // A replay capture's surface may be RGBA32F (dec0's +144, sust.p of four f32: kFmtFloat).
  if (a.fmt != kFmtHalf && !(allow_float && a.fmt == kFmtFloat))
    throw InputError(a.file, 0,
                     std::string(allow_float ? "fmt16 (CU_AD_FORMAT_HALF, RGBA16F) or fmt32 (CU_AD_FORMAT_FLOAT, RGBA32F) for the "
                                             : "fmt16 (CU_AD_FORMAT_HALF, RGBA16F) for the ") +
                         what,
                     "fmt" + std::to_string(a.fmt));
  // set_image_geometry bounded width, height and pitch·height; check again here (every image passes)
  // so that no caller can reach the copies with an unchecked product.
  const std::uint64_t texel = a.fmt == kFmtFloat ? 16u : 8u;
  if (a.width <= 0 || a.height <= 0 || a.pitch < texel * static_cast<std::uint64_t>(a.width))
    throw InputError(a.file, 0,
                     a.fmt == kFmtFloat ? "a positive width and height and a pitch of at least 16·width"
                                        : "a positive width and height and a pitch of at least 8·width",
                     std::to_string(a.width) + "×" + std::to_string(a.height) + ", pitch " + std::to_string(a.pitch));
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
                     (end ? "at least " + std::to_string(*end) + " bytes" : std::string("a window ending within 2^64 bytes")) + " (" +
                         what + " of " + std::to_string(need) + " bytes at pointer offset " + std::to_string(b.offset) + ")",
                     std::to_string(b.bytes.size()) + " bytes");
  }
}

}  // namespace

void validate(const LaunchCapture& c) {
  if (c.ex == 0 || c.ey == 0) throw InputError(c.source, 0, "non-zero extents (ex, ey)", std::to_string(c.ex) + "×" + std::to_string(c.ey));
  const std::string ext = "ex×ey = " + std::to_string(c.ex) + "×" + std::to_string(c.ey);
  const std::uint64_t arena = checked_bytes_in(c.source, 0, "the plane arena 5·ey·ex·32 (" + ext + ")", {5, c.ey, c.ex, 32});
  check_window(c.input, arena, "the input plane arena 5·ey·ex·32, " + ext);
  check_window(c.output, arena, "the output plane arena 5·ey·ex·32, " + ext);
  check_window(c.weights, kWeightImageBytes, "the weight image");
  check_image(c.texture, "texture", false);
  check_image(c.surface, "surface", false);
  check_covers_frame(c.texture.file, c.texture.width, c.texture.height, c.ex, c.ey, "texture");
  check_covers_frame(c.surface.file, c.surface.width, c.surface.height, c.ex, c.ey, "surface");
  // A grid far beyond the frame is a damaged capture (api/frame.hpp grid_problem).
  if (const auto why = grid_problem(c.ex, c.ey, c.ox, c.oy, c.grid_x, c.grid_y))
    throw InputError(c.grid_file.empty() ? c.source : c.grid_file, c.grid_offset, "a launch grid the frame can use", *why);
}

// A file a capture names (manifest.txt's texture and surface lines, alloc-N.bin, a dump in the
// folder, results/…): a relative name inside the capture folder, no '..', no NUL byte, and no
// symbolic link on the way (docs/captures.md "Files stay inside the capture"; io/links.hpp), so that
// a hostile capture cannot make rrswin read /etc/passwd or another user's files. `from`/`offset` name
// where the name was read.
std::string capture_file(const fs::path& dir, const std::string& name, const std::string& from, std::uint64_t offset) {
  const fs::path rel(name);
  const std::string expected = "a file name inside the capture folder " + dir.string();
  if (name.empty() || rel.is_absolute()) throw InputError(from, offset, expected, "'" + name + "' (an absolute path)");
  if (name.find('\0') != std::string::npos) throw InputError(from, offset, expected + " without NUL bytes", "'" + name + "'");
  for (const auto& part : rel)
    if (part == "..") throw InputError(from, offset, expected, "'" + name + "' (a '..' component leaves the folder)");
  refuse_links_below(dir.string(), name);
  return (dir / rel).string();
}

}  // namespace detail

using namespace detail;

void check_covers_frame(const std::string& file, int width, int height, std::uint32_t ex, std::uint32_t ey, const char* what) {
  // E61 fetches texels around, and stores one texel at, every frame pixel (facts C14.5/C14.7).
  if (width < 0 || height < 0 || static_cast<std::uint32_t>(width) < ex || static_cast<std::uint32_t>(height) < ey)
    throw InputError(file, 0,
                     std::string("a ") + what + " of at least ex×ey = " + std::to_string(ex) + "×" + std::to_string(ey) + " texels",
                     std::to_string(width) + "×" + std::to_string(height));
}

ImageArg load_image_arg(const std::string& file, const std::string& shape, int fmt, const char* what) {
  ImageArg a;
  a.file = file;
  a.shape = shape;
  a.fmt = fmt;
  parse_image_shape(a, std::string(what) == "texture");
  a.bytes = read_file_no_link(a.file);
  check_image(a, what, std::string(what) == "surface");
  return a;
}

ImageArg image_geometry(const std::string& file, const std::string& shape, bool texture) {
  ImageArg a;
  a.file = file;
  a.shape = shape;
  parse_image_shape(a, texture);
  return a;
}

LaunchInputs launch_inputs(const LaunchCapture& c) {
  return LaunchInputs{WeightImage(std::vector<std::uint8_t>(c.weights.bytes.begin() + c.weights.offset,
                                                            c.weights.bytes.begin() + c.weights.offset + kWeightImageBytes),
                                  c.weights.file),
                      texture_of(c.texture)};
}

namespace {
// Whether a name is there at all (a link counts, dangling or not: the reader then refuses it).
bool present(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}
}  // namespace

std::vector<LaunchCapture> load_captures(const std::string& path, const LoadOptions& opt) {
  const fs::path dir(path);
  if (!fs::is_directory(dir))
    throw InputError(path, 0, "a capture folder (d4r launch dumps or a replay capture with manifest.txt)",
                     fs::exists(dir) ? "a file" : "nothing (no such folder)");
  if (present(dir / "manifest.txt")) return {load_replay_capture(path)};
  // A replay capture's other files without its manifest: say so, rather than reading the folder as
  // a sequence (whose error would speak of its results/ sub-folder).
  for (const char* f : {"args.bin", "alloc-0.bin", "texture-088.bin", "surface-112.bin"})
    if (present(dir / f))
      throw InputError((dir / "manifest.txt").string(), 0,
                       "the manifest of the replay capture that " + (dir / f).string() + " belongs to (facts F6)", "no manifest.txt");
  const auto files = dump_files(dir);
  if (!files.empty()) return load_launch_dumps(dir, files, opt);
  // A sequence: sub-folders that are captures, in name order.
  std::vector<fs::path> subs;
  for (const auto& e : fs::directory_iterator(dir)) {
    // A member that is a link to a capture elsewhere is refused by name (io/links.hpp); a killed
    // run's staging folder (io/output_set.hpp) is no member.
    if (e.path().filename().string().rfind(".rrswin-partial-", 0) == 0) continue;
    refuse_link(e.path().string());
    if (e.is_directory()) subs.push_back(e.path());
  }
  std::sort(subs.begin(), subs.end());
  std::vector<LaunchCapture> out;
  for (const fs::path& s : subs) {
    if (present(s / "manifest.txt")) {
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
    throw std::runtime_error(path +
                             ": no capture found: expected manifest.txt (a d4r replay capture, facts F6), launch-NNN-…-fmtN.bin files "
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

  LaunchParams p = frame_launch(c.ex, c.ey, std::span<const std::uint8_t>(c.input.bytes).subspan(c.input.offset, n), weights,
                                std::span<std::uint8_t>(r.output_alloc).subspan(c.output.offset, n), tex, s);
  p.block_offset_x = c.ox;
  p.block_offset_y = c.oy;
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
  std::vector<std::uint8_t> bytes = read_file_no_link(file);
  if (bytes.size() != size)
    throw InputError(file, std::min<std::uint64_t>(bytes.size(), size), std::to_string(size) + " bytes",
                     std::to_string(bytes.size()) + " bytes");
  std::copy(r.output_alloc.begin() + (lo - ob), r.output_alloc.begin() + (hi - ob), bytes.begin() + (lo - base));
  return bytes;
}

}  // namespace

std::vector<std::string> write_replay_outputs(OutputSet& out, const LaunchCapture& c, const ReplayOutputs& r) {
  // A sequence's captures each get their own sub-folder: their launch numbers may coincide.
  const fs::path sub = c.subdir;
  DumpName a{c.launch, c.kernel, kArgOutput, "buffer", c.output.shape, kFmtBuffer};
  DumpName s{c.launch, c.kernel, kArgSurface, "surface", c.surface.shape, c.surface.fmt};
  std::vector<std::string> written;
  auto put = [&](const std::string& name, std::span<const std::uint8_t> bytes) {
    out.write((sub / name).string(), bytes);
    written.push_back(out.final_path((sub / name).string()));
  };
  put(format_dump_name(a), r.output_alloc);
  put(format_dump_name(s), r.surface_bytes);
  // The read-only arguments, named exactly as in the capture (launch dumps) or canonically (replay
  // captures, whose inputs are alloc-N.bin and texture-088.bin: the same bytes). None is ever a
  // link (io/links.hpp), and none becomes one in the output folder.
  auto carry = [&](const fs::path& src, const std::string& name, std::optional<std::uint64_t> base) {
    refuse_link(src.string());
    std::optional<std::vector<std::uint8_t>> patched;
    if (base) {
      std::error_code ec;
      const auto size = fs::file_size(src, ec);
      if (ec) throw InputError(src.string(), 0, "a readable file", ec.message());
      patched = overlay_output(src.string(), *base, size, c, r);
    }
    if (patched) {
      put(name, *patched);
    } else {
      out.link_or_copy(src.string(), (sub / name).string());
      written.push_back(out.final_path((sub / name).string()));
    }
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

std::vector<std::string> write_replay_outputs(const std::string& dir, const LaunchCapture& c, const ReplayOutputs& r) {
  OutputSet out(dir);
  write_replay_outputs(out, c, r);
  return out.commit();
}

}  // namespace rrswin::capture
