// engine::mma_fragment (the PTX interpreter's `mma`: one m16n8k32 tile through the engine's GEMM
// kernels) against numerics' fragment form (mma_dot per element, through the ISA fragment maps),
// bit for bit: every SIMD path this CPU has, every profile, the mma-* corner readings (which take
// the exact scalar path), random register contents with special C values, NaN codes, and the
// operand patterns of the kernels' proofs.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "engine/mma_tile.hpp"
#include "engine/simd.hpp"
#include "model/readings.hpp"
#include "numerics/mma.hpp"
#include "numerics/profile.hpp"

namespace rrswin {
namespace {

struct Gen {
  std::mt19937_64 rng;
  explicit Gen(std::uint64_t s) : rng(s) {}
  std::uint32_t word(int kind) {
    std::uint32_t w = 0;
    for (int byte = 0; byte < 4; ++byte) {
      const unsigned r = static_cast<unsigned>(rng());
      unsigned code = 0;
      switch (kind) {
        case 0:
          code = r & 0xFF;
          if ((code & 0x7F) == 0x7F) code ^= 1;
          break;                                                          // any finite code
        case 1: code = (r & 0x80) | (0x30 + (r >> 8) % 16); break;        // near 1: ties, cancellation
        case 2: code = (r >> 8) % 4 == 0 ? (r & 0xFF) % 0x7F : 0; break;  // mostly zero
        case 3: code = (r & 0x80) | (0x70 + (r >> 8) % 15); break;        // large: overflow
        case 4: code = (r & 0x80) | ((r >> 8) % 9); break;                // subnormal
        default: code = 0x3F; break;                                      // 1.875: int32-sized sums
      }
      w |= code << (8 * byte);
    }
    return w;
  }
  f16_t c16() {
    const unsigned r = static_cast<unsigned>(rng());
    const f16_t s[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7BFF, 0x0001, 0x3C00, 0x6C00, 0x7E00};
    return r % 3 == 0 ? s[(r >> 4) % 9] : static_cast<f16_t>(((r >> 8) & 0x8000) | ((r >> 12) % 0x7C00));
  }
};

Profile with(const Profile& p, const char* assignment) {
  Readings r;
  std::string err;
  EXPECT_TRUE(set_reading(r, assignment, &err)) << err;
  return with_readings(p, r);
}

TEST(EngineMmaTile, EqualsNumericsFragmentFormOnEveryPathAndProfile) {
  std::vector<Profile> profiles;
  for (const Profile* p : all_profiles()) {
    profiles.push_back(*p);
    profiles.push_back(with(*p, "mma-zero-sign=ieee"));
    profiles.push_back(with(*p, "mma-overflow=saturate"));
  }
  const int tiles = std::getenv("RRSWIN_TEST_SCALE") && std::string(std::getenv("RRSWIN_TEST_SCALE")) == "small" ? 60 : 600;
  long elements = 0;
  for (engine::SimdPath path : engine::supported_simd_paths())
    for (const Profile& p : profiles) {
      Gen g(0xA11 + static_cast<std::uint64_t>(path));
      for (int t = 0; t < tiles; ++t) {
        MmaFragA fa;
        MmaFragB fb;
        MmaFragC fc;
        const int ka = t % 6, kb = (t / 6) % 6;
        for (int l = 0; l < 32; ++l) {
          for (int r = 0; r < 4; ++r) fa.reg[l][r] = g.word(ka);
          for (int r = 0; r < 2; ++r) fb.reg[l][r] = g.word(kb);
          for (int r = 0; r < 2; ++r) fc.reg[l][r] = f16x2_pack(g.c16(), g.c16());
        }
        if (t % 17 == 5) fa.reg[t % 32][t % 4] |= 0x7Fu << (8 * (t % 4));  // a NaN code
        if (t % 23 == 7) fb.reg[(t * 7) % 32][1] |= 0xFFu;
        const MmaFragC want = mma_m16n8k32(p, fa, fb, fc);
        const MmaFragC got = engine::mma_fragment(p, path, fa, fb, fc);
        for (int l = 0; l < 32; ++l)
          for (int r = 0; r < 2; ++r)
            ASSERT_EQ(got.reg[l][r], want.reg[l][r])
                << engine::to_string(path) << " " << p.name << " tile " << t << " lane " << l << " reg " << r;
        elements += 128;
      }
    }
  std::printf("[mma tile ] %ld output elements equal\n", elements);
}

}  // namespace
}  // namespace rrswin
