// OpenEXR RGBA HALF images, written and read from the OpenEXR file layout description
// (docs/formats.md "Texture and surface" summarises the subset used here).
#include "io/exr.hpp"

#include <algorithm>
#include <stdexcept>

#include "io/byte_reader.hpp"
#include "io/files.hpp"

namespace rrswin {
namespace {

using io_detail::ByteReader;

// Layout constants (OpenEXR file layout: "Magic Number", "Version Field").
constexpr std::uint32_t kMagic = 20000630;        // bytes 76 2f 31 01
constexpr std::uint32_t kVersion = 2;             // low 8 bits of the version field
constexpr std::uint32_t kFlagTiled = 0x200;       // bit 9: single-part tiled file
constexpr std::uint32_t kFlagLongNames = 0x400;   // bit 10: names up to 255 characters
constexpr std::uint32_t kFlagNonImage = 0x800;    // bit 11: deep data
constexpr std::uint32_t kFlagMultiPart = 0x1000;  // bit 12

enum PixelType : std::int32_t { kUint = 0, kHalf = 1, kFloat = 2 };
constexpr int kNoCompression = 0;
constexpr int kIncreasingY = 0, kDecreasingY = 1;
constexpr f16_t kHalfOne = 0x3C00;
constexpr int kMaxExtent = 1 << 24;

const char* compression_name(int c) {
  static const char* const names[] = {"NO_COMPRESSION",    "RLE_COMPRESSION", "ZIPS_COMPRESSION", "ZIP_COMPRESSION",  "PIZ_COMPRESSION",
                                      "PXR24_COMPRESSION", "B44_COMPRESSION", "B44A_COMPRESSION", "DWAA_COMPRESSION", "DWAB_COMPRESSION"};
  return c >= 0 && c < 10 ? names[c] : "an unknown compression";
}

const char* pixel_type_name(std::int32_t t) {
  switch (t) {
    case kUint: return "UINT (0)";
    case kHalf: return "HALF (1)";
    case kFloat: return "FLOAT (2)";
    default: return "an unknown pixel type";
  }
}

int pixel_type_bytes(std::int32_t t) { return t == kHalf ? 2 : 4; }

// --- writing -----------------------------------------------------------------------------------

void put_attribute_header(std::vector<std::uint8_t>& out, const char* name, const char* type, std::uint32_t size) {
  io_detail::put_cstring(out, name);
  io_detail::put_cstring(out, type);
  io_detail::put_u32(out, size);
}

void put_box2i(std::vector<std::uint8_t>& out, const char* name, int w, int h) {
  put_attribute_header(out, name, "box2i", 16);
  io_detail::put_i32(out, 0);      // xMin
  io_detail::put_i32(out, 0);      // yMin
  io_detail::put_i32(out, w - 1);  // xMax (inclusive)
  io_detail::put_i32(out, h - 1);  // yMax (inclusive)
}

// The file stores each scan line's channels in alphabetical order of their names: A, B, G, R.
// kStoredOrder[i] = the RGBA component (r = 0 .. a = 3) stored i-th.
constexpr int kStoredOrder[4] = {3, 2, 1, 0};
constexpr const char* kStoredNames[4] = {"A", "B", "G", "R"};

// --- reading -----------------------------------------------------------------------------------

struct Channel {
  std::string name;
  std::int32_t type = kHalf;
  std::size_t entry_offset = 0;  // where its chlist entry starts (for messages)
};

struct Header {
  bool have_channels = false, have_compression = false, have_data_window = false, have_line_order = false;
  std::vector<Channel> channels;
  std::size_t channels_at = 0;  // offset of the 'channels' attribute (for messages)
  int compression = kNoCompression;
  std::int32_t xmin = 0, ymin = 0, xmax = -1, ymax = -1;
  int line_order = kIncreasingY;
};

void expect_size(const ByteReader& r, std::size_t size_at, const std::string& attr, std::uint32_t size, std::uint32_t expected) {
  if (size != expected)
    r.fail(size_at, "attribute '" + attr + "' of " + std::to_string(expected) + " bytes", std::to_string(size) + " bytes");
}

void read_chlist(ByteReader& r, std::size_t end, Header& h) {
  while (true) {
    if (r.offset() >= end) r.fail(r.offset(), "a channel name or the chlist's terminating NUL", "the end of the attribute");
    const std::size_t entry = r.offset();
    std::string name = r.cstring(255, "a channel name");
    if (name.empty()) break;
    const std::size_t type_at = r.offset();
    const std::int32_t type = r.i32("the pixel type of channel " + name);
    r.u8("the pLinear flag of channel " + name);
    r.fixed_string(3, "reserved bytes of channel " + name);
    const std::size_t sampling_at = r.offset();
    const std::int32_t xs = r.i32("the x sampling of channel " + name);
    const std::int32_t ys = r.i32("the y sampling of channel " + name);
    if (r.offset() > end) r.fail(end, "channel " + name + " to lie within the chlist attribute", "it runs past the attribute's end");
    if (type != kUint && type != kHalf && type != kFloat)
      r.fail(type_at, "a pixel type UINT (0), HALF (1) or FLOAT (2) for channel " + name, std::to_string(type));
    if (xs != 1 || ys != 1)
      r.fail(sampling_at, "x and y sampling 1 for channel " + name + " (subsampled channels are not supported)",
             std::to_string(xs) + " and " + std::to_string(ys));
    for (const Channel& c : h.channels)
      if (c.name == name) r.fail(entry, "distinct channel names", "channel " + name + " twice");
    h.channels.push_back({name, type, entry});
  }
  if (r.offset() != end)
    r.fail(r.offset(), "the chlist to end where its size says (byte " + std::to_string(end) + ")",
           "its terminating NUL at byte " + std::to_string(r.offset() - 1));
}

// The magic number and the version field (OpenEXR file layout, "Version Field"); returns the
// longest attribute name the flags allow.
std::size_t read_version(ByteReader& r) {
  const std::uint32_t magic = r.u32("the OpenEXR magic number");
  if (magic != kMagic) r.fail(0, "the OpenEXR magic number 76 2f 31 01 (20000630)", io_detail::hex_bytes(r.bytes().subspan(0, 4)));
  const std::uint32_t version = r.u32("the OpenEXR version field");
  if ((version & 0xFF) != kVersion) r.fail(4, "file format version 2 (low byte of the version field)", std::to_string(version & 0xFF));
  if (version & kFlagTiled) r.fail(4, "a scan-line image (version flag bit 9 clear)", "a tiled image (bit 9 set)");
  if (version & kFlagNonImage) r.fail(4, "a flat image (version flag bit 11 clear)", "deep data (bit 11 set)");
  if (version & kFlagMultiPart) r.fail(4, "a single-part file (version flag bit 12 clear)", "a multi-part file (bit 12 set)");
  if (version & ~(0xFFu | kFlagTiled | kFlagLongNames | kFlagNonImage | kFlagMultiPart)) {
    char b[32];
    std::snprintf(b, sizeof b, "version field 0x%08x", version);
    r.fail(4, "only the version flags defined by the layout (bits 9-12)", b);
  }
  return (version & kFlagLongNames) ? 255 : 31;
}

// One attribute's name, type and size, read before its value.
struct Attribute {
  std::string name, type;
  std::size_t at = 0, size_at = 0, value_at = 0, end = 0;
  std::uint32_t size = 0;
};

void expect_type(const ByteReader& r, const Attribute& a, const char* type) {
  if (a.type != type) r.fail(a.at, "attribute '" + a.name + "' of type " + type, "type " + a.type);
}

// The value of one of the attributes that say how the pixels are stored; every other attribute
// (displayWindow, pixelAspectRatio, screenWindow*, chromaticities, user metadata ...) does not
// change that and is skipped by the caller.
void read_attribute_value(ByteReader& r, const Attribute& a, Header& h) {
  if (a.name == "channels") {
    expect_type(r, a, "chlist");
    h.channels_at = a.at;
    read_chlist(r, a.end, h);
    h.have_channels = true;
  } else if (a.name == "compression") {
    expect_type(r, a, "compression");
    expect_size(r, a.size_at, a.name, a.size, 1);
    h.compression = r.u8("the compression");
    if (h.compression != kNoCompression)
      r.fail(a.value_at, "NO_COMPRESSION (0); rrswin reads uncompressed files only (re-save without compression)",
             std::string(compression_name(h.compression)) + " (" + std::to_string(h.compression) + ")");
    h.have_compression = true;
  } else if (a.name == "dataWindow") {
    expect_type(r, a, "box2i");
    expect_size(r, a.size_at, a.name, a.size, 16);
    h.xmin = r.i32("dataWindow.xMin");
    h.ymin = r.i32("dataWindow.yMin");
    h.xmax = r.i32("dataWindow.xMax");
    h.ymax = r.i32("dataWindow.yMax");
    const std::int64_t w = std::int64_t{h.xmax} - h.xmin + 1, hh = std::int64_t{h.ymax} - h.ymin + 1;
    if (w < 1 || hh < 1 || w > kMaxExtent || hh > kMaxExtent) {
      char box[96];
      std::snprintf(box, sizeof box, "(%d, %d) - (%d, %d)", int{h.xmin}, int{h.ymin}, int{h.xmax}, int{h.ymax});
      r.fail(a.value_at, "a data window of 1 to 2^24 pixels in x and in y", box);
    }
    h.have_data_window = true;
  } else if (a.name == "lineOrder") {
    expect_type(r, a, "lineOrder");
    expect_size(r, a.size_at, a.name, a.size, 1);
    h.line_order = r.u8("the line order");
    if (h.line_order != kIncreasingY && h.line_order != kDecreasingY)
      r.fail(a.value_at, "INCREASING_Y (0) or DECREASING_Y (1) for a scan-line image", std::to_string(h.line_order));
    h.have_line_order = true;
  } else if (a.name == "type") {
    // Only multi-part/deep files need it; a single-part file may still say "scanlineimage".
    const std::string t = r.fixed_string(a.size, "the part type");
    if (t.c_str() != std::string("scanlineimage")) r.fail(a.value_at, "part type \"scanlineimage\"", "\"" + std::string(t.c_str()) + "\"");
  }
}

Header read_header(ByteReader& r) {
  Header h;
  const std::size_t max_name = read_version(r);
  while (true) {
    Attribute a;
    a.at = r.offset();
    a.name = r.cstring(max_name, "an attribute name");
    if (a.name.empty()) break;  // the header ends with a NUL byte where a name would start
    a.type = r.cstring(max_name, "the type name of attribute '" + a.name + "'");
    // A name followed by an empty type is no attribute: most often the header's terminating NUL
    // byte is missing and the offset table is being read as attributes.
    if (a.type.empty())
      r.fail(a.at, "the NUL byte that ends the header, or an attribute with a type name",
             "'" + a.name + "' followed by an empty type name (is the header's end byte missing?)");
    a.size_at = r.offset();
    const std::int32_t size_signed = r.i32("the size of attribute '" + a.name + "'");
    if (size_signed < 0) r.fail(a.size_at, "a non-negative attribute size", std::to_string(size_signed));
    a.size = static_cast<std::uint32_t>(size_signed);
    r.need(a.size, "the value of attribute '" + a.name + "'");
    a.value_at = r.offset();
    a.end = a.value_at + a.size;
    read_attribute_value(r, a, h);
    r.seek(a.end, "the end of attribute '" + a.name + "'");
  }
  const std::size_t header_end = r.offset();
  auto require = [&](bool have, const char* attr) {
    if (!have)
      r.fail(header_end - 1, std::string("the required attribute '") + attr + "' in the header", "the end of the header without it");
  };
  require(h.have_channels, "channels");
  require(h.have_compression, "compression");
  require(h.have_data_window, "dataWindow");
  require(h.have_line_order, "lineOrder");
  return h;
}

}  // namespace

std::vector<std::uint8_t> encode_exr_rgba_half(int width, int height, const f16_t* rgba) {
  if (width < 1 || height < 1 || width > kMaxExtent || height > kMaxExtent)
    throw std::invalid_argument("EXR image size " + std::to_string(width) + "x" + std::to_string(height) +
                                ": both extents must be in [1, 2^24]");
  std::vector<std::uint8_t> out;
  const std::size_t line_bytes = static_cast<std::size_t>(width) * 8;
  out.reserve(400 + static_cast<std::size_t>(height) * (16 + line_bytes));
  io_detail::put_u32(out, kMagic);
  io_detail::put_u32(out, kVersion);  // no flags: single-part scan-line file, short names

  // Header: the eight attributes every OpenEXR file must have, in alphabetical order as the
  // reference library writes them.
  put_attribute_header(out, "channels", "chlist", 4 * (2 + 16) + 1);
  for (const char* name : kStoredNames) {
    io_detail::put_cstring(out, name);
    io_detail::put_i32(out, kHalf);
    io_detail::put_u8(out, 0);  // pLinear
    io_detail::put_u8(out, 0);  // reserved
    io_detail::put_u8(out, 0);
    io_detail::put_u8(out, 0);
    io_detail::put_i32(out, 1);  // xSampling
    io_detail::put_i32(out, 1);  // ySampling
  }
  io_detail::put_u8(out, 0);  // end of the channel list
  put_attribute_header(out, "compression", "compression", 1);
  io_detail::put_u8(out, kNoCompression);
  put_box2i(out, "dataWindow", width, height);
  put_box2i(out, "displayWindow", width, height);
  put_attribute_header(out, "lineOrder", "lineOrder", 1);
  io_detail::put_u8(out, kIncreasingY);
  put_attribute_header(out, "pixelAspectRatio", "float", 4);
  io_detail::put_f32(out, 1.0f);
  put_attribute_header(out, "screenWindowCenter", "v2f", 8);
  io_detail::put_f32(out, 0.0f);
  io_detail::put_f32(out, 0.0f);
  put_attribute_header(out, "screenWindowWidth", "float", 4);
  io_detail::put_f32(out, 1.0f);
  io_detail::put_u8(out, 0);  // end of the header

  // Line offset table: uncompressed files hold one scan line per block, so one u64 per line,
  // each the absolute offset of that line's block (y, byte count, pixel data).
  const std::size_t table_at = out.size();
  const std::size_t block_bytes = 8 + line_bytes;
  for (int y = 0; y < height; ++y)
    io_detail::put_u64(out, table_at + static_cast<std::size_t>(height) * 8 + static_cast<std::size_t>(y) * block_bytes);
  for (int y = 0; y < height; ++y) {
    io_detail::put_i32(out, y);
    io_detail::put_i32(out, static_cast<std::int32_t>(line_bytes));
    const f16_t* row = rgba + static_cast<std::size_t>(y) * width * 4;
    for (int comp : kStoredOrder)
      for (int x = 0; x < width; ++x) io_detail::put_u16(out, row[static_cast<std::size_t>(x) * 4 + comp]);
  }
  return out;
}

void write_exr_rgba_half(const std::string& path, int width, int height, const f16_t* rgba) {
  write_file_atomic(path, encode_exr_rgba_half(width, height, rgba));
}

RgbaHalfImage decode_exr_rgba_half(std::span<const std::uint8_t> bytes, const std::string& name) {
  ByteReader r(bytes, name);
  const Header h = read_header(r);

  // Where each of R, G, B, A sits within a scan line's pixel data: channels follow each other,
  // each a run of `width` samples, in the chlist's order.
  const std::int64_t width = std::int64_t{h.xmax} - h.xmin + 1;
  const std::int64_t height = std::int64_t{h.ymax} - h.ymin + 1;
  std::int64_t line_bytes = 0;
  std::int64_t comp_at[4] = {-1, -1, -1, -1};  // byte offset of component r,g,b,a within a line
  static const char* const kRgba[4] = {"R", "G", "B", "A"};
  for (const Channel& c : h.channels) {
    for (int k = 0; k < 4; ++k) {
      if (c.name != kRgba[k]) continue;
      if (c.type != kHalf) r.fail(c.entry_offset, std::string("channel ") + kRgba[k] + " of pixel type HALF (1)", pixel_type_name(c.type));
      comp_at[k] = line_bytes;
    }
    line_bytes += width * pixel_type_bytes(c.type);
  }
  for (int k = 0; k < 3; ++k)
    if (comp_at[k] < 0)
      r.fail(
          h.channels_at, std::string("a HALF channel named ") + kRgba[k] + " (an RGB or RGBA image)",
          h.channels.empty() ? std::string("no channels") : "channels " + [&] {
            std::string s;
            for (const Channel& c : h.channels) s += (s.empty() ? "" : ",") + c.name;
            return s;
          }());

  // The offset table: one entry per scan line, indexed by y - yMin whatever the line order.
  const std::size_t table_at = r.offset();
  r.need(static_cast<std::uint64_t>(height) * 8, "the line offset table (" + std::to_string(height) + " entries)");
  const std::uint64_t table_end = table_at + static_cast<std::uint64_t>(height) * 8;
  // Every block holds 8 bytes of framing plus a line: reject impossible sizes before allocating.
  if (static_cast<std::uint64_t>(line_bytes) > bytes.size() ||
      static_cast<std::uint64_t>(height) * (8 + static_cast<std::uint64_t>(line_bytes)) > bytes.size() - table_end)
    r.fail(bytes.size(), std::to_string(height) + " scan-line blocks of " + std::to_string(8 + line_bytes) + " bytes",
           "a file of " + std::to_string(bytes.size()) + " bytes");

  RgbaHalfImage img;
  img.width = static_cast<int>(width);
  img.height = static_cast<int>(height);
  img.rgba.assign(static_cast<std::size_t>(width * height * 4), kHalfOne);
  for (std::int64_t i = 0; i < height; ++i) {
    r.seek(table_at + static_cast<std::uint64_t>(i) * 8, "the line offset table");
    const std::size_t entry_at = r.offset();
    const std::uint64_t off = r.u64("a line offset");
    if (off < table_end || off > bytes.size())
      r.fail(entry_at,
             "the offset of scan line " + std::to_string(h.ymin + i) + "'s block, in [" + std::to_string(table_end) + ", " +
                 std::to_string(bytes.size()) + "]",
             std::to_string(off));
    r.seek(off, "a scan-line block");
    const std::int32_t y = r.i32("the y coordinate of a scan-line block");
    if (y != h.ymin + i)
      r.fail(off, "the block of scan line " + std::to_string(h.ymin + i) + " (offset table entry " + std::to_string(i) + ")",
             "a block of scan line " + std::to_string(y));
    const std::int32_t size = r.i32("the pixel data size of a scan-line block");
    if (size != line_bytes)
      r.fail(off + 4, std::to_string(line_bytes) + " bytes of uncompressed pixel data for scan line " + std::to_string(y),
             std::to_string(size) + " bytes");
    r.need(static_cast<std::uint64_t>(line_bytes), "pixel data of scan line " + std::to_string(y));
    const std::uint8_t* line = bytes.data() + r.offset();
    f16_t* dst = img.rgba.data() + static_cast<std::size_t>(i * width * 4);
    for (int k = 0; k < 4; ++k) {
      if (comp_at[k] < 0) continue;  // A absent: stays 1.0
      const std::uint8_t* src = line + comp_at[k];
      for (std::int64_t x = 0; x < width; ++x) dst[x * 4 + k] = static_cast<f16_t>(src[2 * x] | (src[2 * x + 1] << 8));
    }
  }
  return img;
}

RgbaHalfImage read_exr_rgba_half(const std::string& path) {
  const std::vector<std::uint8_t> bytes = read_file_bytes(path);
  return decode_exr_rgba_half(bytes, path);
}

}  // namespace rrswin
