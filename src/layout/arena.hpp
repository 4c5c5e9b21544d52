// The plane arena (spec E60(b), facts B3/C13): 5 planes of 32 channels (C/32 for another layer of
// the template: enc3's arenas at C = 128 have 4, DOC3 §3/E46(b)); plane q is an
// [ey][ex][8 u32] array; word index idx = q*(8*ex*ey) + 8*ex*y + 8*x + d.
// Which channels each of a pixel's 8 words hold is an open question (facts C13.4): see the reading
// "arena-order" in model/readings.hpp; this object only places words.
#pragma once
#include <cstddef>
#include <cstdint>

#include "base/hd.hpp"

namespace rrswin::layout {

struct PlaneArena {
  int ex = 0;
  int ey = 0;
  static constexpr int kPlanes = 5;
  static constexpr int kWordsPerPixel = 8;
  int planes = kPlanes;  // C/32

  RRSWIN_HD constexpr std::size_t plane_words() const { return static_cast<std::size_t>(8) * ex * ey; }
  RRSWIN_HD constexpr std::size_t total_words() const { return static_cast<std::size_t>(planes) * plane_words(); }
  RRSWIN_HD constexpr std::size_t total_bytes() const { return 4 * total_words(); }
  RRSWIN_HD constexpr bool in_frame(int x, int y) const { return x >= 0 && y >= 0 && x < ex && y < ey; }
  // Word index of word d (0..7) of pixel (x, y) in plane q. Precondition: in_frame(x, y).
  RRSWIN_HD constexpr std::size_t word_index(int q, int x, int y, int d) const {
    return q * plane_words() + static_cast<std::size_t>(8) * ex * y + 8 * static_cast<std::size_t>(x) + d;
  }
};

}  // namespace rrswin::layout
