// Thin wrappers over the OpenEXR library's general InputFile/OutputFile interface (not the RGBA
// convenience layer, which could convert colours): raw HALF bits go in and come out unchanged.
#include "openexr_ref.hpp"

#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfInputFile.h>
#include <ImfOutputFile.h>

#include <exception>

namespace rrswin::ref {

bool openexr_read_rgba_half(const std::string& path, ExrRefImage* out, std::string* error) {
  try {
    Imf::InputFile file(path.c_str());
    const Imf::Header& h = file.header();
    const Imath::Box2i dw = h.dataWindow();
    out->width = dw.max.x - dw.min.x + 1;
    out->height = dw.max.y - dw.min.y + 1;
    out->xmin = dw.min.x;
    out->ymin = dw.min.y;
    out->compression = static_cast<int>(h.compression());
    out->line_order = static_cast<int>(h.lineOrder());
    out->channels.clear();
    for (auto it = h.channels().begin(); it != h.channels().end(); ++it) out->channels.push_back(it.name());
    out->rgba.assign(static_cast<std::size_t>(out->width) * out->height * 4, 0);
    Imf::FrameBuffer fb;
    const char* names[4] = {"R", "G", "B", "A"};
    for (int c = 0; c < 4; ++c) {
      char* base = reinterpret_cast<char*>(out->rgba.data() + c);
      fb.insert(names[c], Imf::Slice::Make(Imf::HALF, base, dw, 8, static_cast<std::size_t>(out->width) * 8, 1, 1, c == 3 ? 1.0 : 0.0));
    }
    file.setFrameBuffer(fb);
    file.readPixels(dw.min.y, dw.max.y);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
}

bool openexr_write_rgba_half(const std::string& path, int width, int height, const std::uint16_t* rgba, const ExrRefWriteOptions& opt,
                             std::string* error) {
  try {
    const Imath::Box2i dw(Imath::V2i(opt.xmin, opt.ymin), Imath::V2i(opt.xmin + width - 1, opt.ymin + height - 1));
    Imf::Header h(dw, dw);
    h.compression() = static_cast<Imf::Compression>(opt.compression);
    h.lineOrder() = opt.decreasing_y ? Imf::DECREASING_Y : Imf::INCREASING_Y;
    const char* names[4] = {"R", "G", "B", "A"};
    for (int c = 0; c < (opt.alpha ? 4 : 3); ++c) h.channels().insert(names[c], Imf::Channel(Imf::HALF));
    std::vector<float> z;
    if (opt.extra_float_z) {
      h.channels().insert("Z", Imf::Channel(Imf::FLOAT));
      z.resize(static_cast<std::size_t>(width) * height);
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) z[static_cast<std::size_t>(y) * width + x] = static_cast<float>(x + 1000 * y);
    }
    Imf::OutputFile file(path.c_str(), h);
    Imf::FrameBuffer fb;
    for (int c = 0; c < (opt.alpha ? 4 : 3); ++c) {
      char* base = const_cast<char*>(reinterpret_cast<const char*>(rgba + c));
      fb.insert(names[c], Imf::Slice::Make(Imf::HALF, base, dw, 8, static_cast<std::size_t>(width) * 8));
    }
    if (opt.extra_float_z) fb.insert("Z", Imf::Slice::Make(Imf::FLOAT, z.data(), dw, 4, static_cast<std::size_t>(width) * 4));
    file.setFrameBuffer(fb);
    file.writePixels(height);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
}

}  // namespace rrswin::ref
