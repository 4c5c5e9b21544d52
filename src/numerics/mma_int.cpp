// The integer mma (mma_int.hpp).
#include "numerics/mma_int.hpp"

#include <algorithm>

namespace rrswin {

namespace {

int k_of(MmaIntShape s) { return s == MmaIntShape::m16n8k32 ? 32 : 16; }

std::int64_t element(std::uint32_t reg, int byte, bool is_signed) {
  const std::uint32_t v = (reg >> (8 * byte)) & 0xFFu;
  return is_signed ? static_cast<std::int64_t>(static_cast<std::int8_t>(v)) : static_cast<std::int64_t>(v);
}

}  // namespace

int mma_int_a_regs(MmaIntShape s) { return s == MmaIntShape::m8n8k16 ? 1 : s == MmaIntShape::m16n8k16 ? 2 : 4; }
int mma_int_b_regs(MmaIntShape s) { return s == MmaIntShape::m16n8k32 ? 2 : 1; }
int mma_int_cd_regs(MmaIntShape s) { return s == MmaIntShape::m8n8k16 ? 2 : 4; }

MmaIntRegs mma_int(const MmaIntForm& f, const MmaIntRegs& a, const MmaIntRegs& b, const MmaIntRegs& c) {
  const int kk = k_of(f.shape);
  std::int64_t A[16][32] = {}, B[32][8] = {}, C[16][8] = {};
  const int ar = mma_int_a_regs(f.shape), br = mma_int_b_regs(f.shape), cr = mma_int_cd_regs(f.shape);
  // The row (A, C/D) and k offset (A, B) of register `reg` (mma_int.hpp's layouts).
  const auto a_row = [&](int g, int reg) { return f.shape == MmaIntShape::m8n8k16 ? g : g + 8 * (reg & 1); };
  const auto a_k0 = [&](int t, int reg) { return 4 * t + (f.shape == MmaIntShape::m16n8k32 ? 16 * (reg >> 1) : 0); };
  const auto cd_row = [&](int g, int reg) { return g + 8 * (reg >> 1); };
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, t = lane & 3;
    for (int reg = 0; reg < ar; ++reg)
      for (int j = 0; j < 4; ++j) A[a_row(g, reg)][a_k0(t, reg) + j] = element(a.r[lane][reg], j, f.a_signed);
    for (int reg = 0; reg < br; ++reg)
      for (int j = 0; j < 4; ++j) B[4 * t + j + 16 * reg][g] = element(b.r[lane][reg], j, f.b_signed);
    for (int reg = 0; reg < cr; ++reg) C[cd_row(g, reg)][2 * t + (reg & 1)] = static_cast<std::int32_t>(c.r[lane][reg]);
  }
  MmaIntRegs d;
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, t = lane & 3;
    for (int reg = 0; reg < cr; ++reg) {
      const int row = cd_row(g, reg), col = 2 * t + (reg & 1);
      std::int64_t sum = C[row][col];  // exact: |sum| < 2^31 + 32 * 2^16
      for (int k = 0; k < kk; ++k) sum += A[row][k] * B[k][col];
      if (f.satfinite) sum = std::clamp<std::int64_t>(sum, INT32_MIN, INT32_MAX);
      d.r[lane][reg] = static_cast<std::uint32_t>(static_cast<std::uint64_t>(sum));  // wraps modulo 2^32
    }
  }
  return d;
}

}  // namespace rrswin
