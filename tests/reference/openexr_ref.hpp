// The OpenEXR library itself (Debian's libopenexr-dev), the independent reference for io/exr: it
// must read enc5's files bit for bit, and enc5 must read the files it writes. Compiled only when
// the library is found (RRSWIN_HAVE_OPENEXR_REF); the interface below needs none of its headers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rrswin::ref {

struct ExrRefImage {
  int width = 0, height = 0;
  int xmin = 0, ymin = 0;  // data window origin
  int compression = -1;    // Imf::Compression value
  int line_order = -1;     // Imf::LineOrder value
  std::vector<std::string> channels;
  std::vector<std::uint16_t> rgba;  // HALF bits, r first; a missing A reads as 0x3C00
};

// Reads any file the library reads, as HALF R, G, B, A slices. false + *error on failure.
bool openexr_read_rgba_half(const std::string& path, ExrRefImage* out, std::string* error);

struct ExrRefWriteOptions {
  int compression = 0;         // Imf::Compression: 0 none, 1 RLE, 3 ZIP, ...
  bool decreasing_y = false;   // Imf::DECREASING_Y instead of INCREASING_Y
  int xmin = 0, ymin = 0;      // data window origin
  bool alpha = true;           // write an A channel
  bool extra_float_z = false;  // add a FLOAT channel "Z" (value x + 1000 y)
};
bool openexr_write_rgba_half(const std::string& path, int width, int height, const std::uint16_t* rgba, const ExrRefWriteOptions& opt,
                             std::string* error);

}  // namespace rrswin::ref
