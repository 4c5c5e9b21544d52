// engine/mma_tile.hpp: one m16n8k32 tile through gemm().
//
// gemm() wants N a multiple of 16 and the tile has N = 8, so it runs the transposed product:
// D^T = B^T A^T, i.e. gemm's A operand is B's 8 columns (rows of K = 32) and its B operand is A's
// 16 rows (N = 16), C^T on entry. Every profile's dot product is symmetric in its two factors
// (numerics.md "mma": the products a*b, the exponents e(a) + e(b), the NaN and zero-sign rules of
// numerics/mma.cpp all treat a and b alike), and the k order is the same for both, so D^T[n][m] =
// mma_dot(B[.][n], A[m][.], C[m][n]) = D[m][n]. The operands are gathered from the registers in the
// kernel's pair order (layout::a_element_pair / b_element_pair), which is what AOperand /
// BOperand take (they permute into the ISA order the kernels read: gemm.hpp).
#include "engine/mma_tile.hpp"

#include <bit>
#include <cstdint>
#include <cstring>

#include "engine/gemm.hpp"
#include "layout/fragment.hpp"

namespace enc5::engine {
namespace {

// Where each register byte / half goes, as flat tables built once from layout/fragment.hpp: the
// registers are read as bytes (byte j of a b32 register is bits 8j..8j+7, i.e. byte j in memory
// on this little-endian host) and written straight into the arrays gemm's operands take.
struct Maps {
  std::uint16_t a[32 * 4 * 4];  // A byte (lane, reg, byte) -> akn index k_pair * 16 + row
  std::uint16_t b[32 * 2 * 4];  // B byte (lane, reg, byte) -> bnk index col * 32 + k_pair
  std::uint16_t cd[32 * 2 * 2]; // C/D half (lane, reg, half) -> dt index col * 16 + row
};
const Maps& maps() {
  static const Maps m = [] {
    Maps t{};
    for (int lane = 0; lane < 32; ++lane) {
      for (int reg = 0; reg < 4; ++reg)
        for (int byte = 0; byte < 4; ++byte) {
          const layout::RowK e = layout::a_element_pair(lane, reg, byte);
          t.a[(lane * 4 + reg) * 4 + byte] = static_cast<std::uint16_t>(e.k * 16 + e.row);
        }
      for (int reg = 0; reg < 2; ++reg)
        for (int byte = 0; byte < 4; ++byte) {
          const layout::KCol e = layout::b_element_pair(lane, reg, byte);
          t.b[(lane * 2 + reg) * 4 + byte] = static_cast<std::uint16_t>(e.col * 32 + e.k);
        }
      for (int reg = 0; reg < 2; ++reg)
        for (int half = 0; half < 2; ++half) {
          const layout::RowCol e = layout::cd_element(lane, reg, half);
          t.cd[(lane * 2 + reg) * 2 + half] = static_cast<std::uint16_t>(e.col * 16 + e.row);
        }
    }
    return t;
  }();
  return m;
}

}  // namespace

MmaFragC mma_fragment(const Profile& p, SimdPath path, const MmaFragA& a, const MmaFragB& b, const MmaFragC& c) {
  if (!native(p)) return mma_m16n8k32(p, a, b, c);
  static_assert(std::endian::native == std::endian::little);
  static_assert(sizeof(MmaFragA) == 32 * 4 * 4 && sizeof(MmaFragB) == 32 * 2 * 4 && sizeof(MmaFragC) == 32 * 2 * 4);
  const Maps& map = maps();
  std::uint8_t ab[sizeof(MmaFragA)], bb[sizeof(MmaFragB)];
  std::uint16_t cb[sizeof(MmaFragC) / 2];
  std::memcpy(ab, &a, sizeof ab);
  std::memcpy(bb, &b, sizeof bb);
  std::memcpy(cb, &c, sizeof cb);
  e4m3_t akn[32 * 16];  // A[m][k_pair] as [k][m]: the B operand of the transposed product (K x N = 16)
  e4m3_t bnk[8 * 32];   // B[k_pair][n] as [n][k]: the A operand (8 rows of K = 32)
  f16_t dt[8 * 16];     // C^T, then D^T ([n][m])
  for (int i = 0; i < 32 * 4 * 4; ++i) akn[map.a[i]] = ab[i];
  for (int i = 0; i < 32 * 2 * 4; ++i) bnk[map.b[i]] = bb[i];
  for (int i = 0; i < 32 * 2 * 2; ++i) dt[map.cd[i]] = cb[i];
  // Operand storage reused per thread (the interpreter runs CTAs on several threads).
  thread_local AOperand ga;
  thread_local BOperand gb;
  const unsigned forms = decode_for(p, path);
  ga.assign(bnk, 8, 32, 32, forms, path);
  gb.assign_kn(akn, 32, 16, 16, forms, path);
  if (ga.nan || gb.nan) return mma_m16n8k32(p, a, b, c);  // NaN codes: the exact scalar path
  gemm(p, path, ga, 0, gb, 0, 1, 8, dt, 16);
  MmaFragC d;
  for (int i = 0; i < 32 * 2 * 2; ++i) cb[i] = dt[map.cd[i]];
  std::memcpy(&d, cb, sizeof d);
  return d;
}

}  // namespace enc5::engine
