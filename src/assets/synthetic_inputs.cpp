#include "assets/synthetic_inputs.hpp"

#include <stdexcept>

#include "layout/arena.hpp"

namespace rrswin {

namespace {

// An e4m3 code with magnitude exponent field in [lo, hi] (value about 2^(field-7)), random sign
// and mantissa; never 0x7F/0xFF.
std::uint8_t code_in(SplitMix64& rng, int lo, int hi) {
  const int e = lo + static_cast<int>(rng.below(static_cast<std::uint32_t>(hi - lo + 1)));
  int mag = (e << 3) | static_cast<int>(rng.below(8));
  if (mag >= 0x7F) mag = 0x7E;
  return static_cast<std::uint8_t>(mag | (rng.below(2) << 7));
}

}  // namespace

SyntheticFrame make_synthetic_frame(int ex, int ey, std::uint64_t seed, bool stress, int planes) {
  if (ex <= 0 || ey <= 0) throw std::invalid_argument("make_synthetic_frame: extents must be positive");
  if (planes <= 0 || planes > layout::PlaneArena::kPlanes) throw std::invalid_argument("make_synthetic_frame: planes outside 1..5");
  SyntheticFrame f;
  f.ex = ex;
  f.ey = ey;
  const layout::PlaneArena pa{ex, ey, planes};
  f.input_arena.assign(pa.total_bytes(), 0);
  SplitMix64 rng(seed ^ (stress ? 0x5354524553535354ull : 0x44454641554C5431ull));
  // Token kinds (stress only): 0 ordinary, 1 all zero, 2 huge (saturating codes), 3 tiny
  // (e4m3 subnormals), 4 wide (every exponent).
  std::vector<int> kind(static_cast<std::size_t>(ex) * ey, 0);
  if (stress)
    for (auto& k : kind) {
      const std::uint32_t r = rng.below(16);
      k = r < 9 ? 0 : r < 10 ? 1 : r < 12 ? 2 : r < 14 ? 3 : 4;
    }
  // Bytes are generated per arena byte; which token a byte belongs to depends on the arena order
  // reading, so the token kind is taken from the pixel the byte is stored at.
  for (int q = 0; q < planes; ++q)
    for (int y = 0; y < ey; ++y)
      for (int x = 0; x < ex; ++x)
        for (int d = 0; d < 8; ++d)
          for (int j = 0; j < 4; ++j) {
            std::uint8_t c = 0;
            switch (kind[static_cast<std::size_t>(y) * ex + x]) {
              case 0: c = code_in(rng, 3, 8); break;  // about 2^-4 .. 2^2
              case 1: c = 0; break;
              case 2: c = rng.below(4) == 0 ? static_cast<std::uint8_t>(0x7E | (rng.below(2) << 7)) : code_in(rng, 12, 15); break;
              case 3: c = static_cast<std::uint8_t>(rng.below(8) | (rng.below(2) << 7)); break;  // subnormal or zero
              case 4: c = code_in(rng, 0, 15); break;
            }
            f.input_arena[4 * pa.word_index(q, x, y, d) + j] = c;
          }
  f.texture.width = ex;
  f.texture.height = ey;
  f.texture.mode = AddressMode::clamp;
  f.texture.rgba.resize(static_cast<std::size_t>(ex) * ey * 4);
  for (auto& h : f.texture.rgba) {
    if (!stress) {
      // [0, 1): exponent 0x01..0x0E with random mantissa, or exactly 0 now and then.
      const std::uint32_t r = rng.below(64);
      h = r == 0 ? f16_t{0} : static_cast<f16_t>(((1 + rng.below(14)) << 10) | rng.below(1024));
    } else {
      const std::uint32_t r = rng.below(8);
      const f16_t sign = static_cast<f16_t>(rng.below(2) << 15);
      if (r == 0)
        h = static_cast<f16_t>(sign | (1 + rng.below(1023)));  // subnormal
      else if (r == 1)
        h = static_cast<f16_t>(sign | ((25 + rng.below(5)) << 10) | rng.below(1024));  // 512..65504
      else if (r == 2)
        h = sign;  // +-0
      else
        h = static_cast<f16_t>(sign | ((1 + rng.below(15)) << 10) | rng.below(1024));
    }
  }
  return f;
}

}  // namespace rrswin
