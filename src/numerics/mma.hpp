// mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 (numerics.md "mma"): the profile decides
// the accumulation; everything here is exact otherwise.
#pragma once
#include <array>

#include "numerics/profile.hpp"
#include "numerics/types.hpp"

namespace rrswin {

// One output element: a[k], b[k] for k = 0..31 in the ISA's k order (PTX ISA fragment layout:
// k 0..15 is the first half the `ada` model accumulates), c the f16 accumulator input.
f16_t mma_dot(const Profile& p, const e4m3_t a[32], const e4m3_t b[32], f16_t c);

// Plain matrices, ISA k order: A is 16x32 row-major, B is 32x8 (B[k][n]), C and D are 16x8.
struct MmaA {
  e4m3_t v[16][32];
};
struct MmaB {
  e4m3_t v[32][8];
};
struct MmaC {
  f16_t v[16][8];
};
MmaC mma_m16n8k32(const Profile& p, const MmaA& a, const MmaB& b, const MmaC& c);

// Fragment form: the registers of all 32 lanes, exactly as the instruction sees them
// (numerics/mma_fragment.hpp maps them to matrix elements).
struct MmaFragA {
  std::array<std::array<std::uint32_t, 4>, 32> reg;
};  // [lane][reg]
struct MmaFragB {
  std::array<std::array<std::uint32_t, 2>, 32> reg;
};
struct MmaFragC {
  std::array<std::array<f16x2_t, 2>, 32> reg;
};
MmaFragC mma_m16n8k32(const Profile& p, const MmaFragA& a, const MmaFragB& b, const MmaFragC& c);

}  // namespace rrswin
