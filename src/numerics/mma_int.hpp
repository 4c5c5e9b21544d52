// The integer mma (PTX ISA 9.7.14.5.14 "mma", "Integer operations"): D = A * B + C with .s8/.u8
// multiplicands and .s32 accumulators, exact by definition. ".satfinite ... on overflow, the
// accumulated value is limited to the range MIN_INT32..MAX_INT32 ... If .satfinite is not
// specified, the accumulated value is wrapped instead." rrswin computes each element's sum exactly
// (64-bit) and then clamps or wraps it once (docs/readings.md "ptx-mma-int-satfinite": whether the
// hardware saturates partial sums is not documented; for |c| < 2^31 - 2^19 no partial sum can
// overflow, so the readings agree there). The fragment layouts are the ISA's (9.7.14.5.x "Matrix
// Fragments for mma.m8n8k16 / mma.m16n8k16 with integer type / mma.m16n8k32"), g = lane >> 2,
// t = lane & 3:
//   m8n8k16:  A 1 reg (row g, k 4t+j), B 1 reg (k 4t+j, col g), C/D 2 regs (row g, col 2t+i)
//   m16n8k16: A 2 regs (reg o: row g+8o, k 4t+j), B 1 reg, C/D 4 regs (reg i: row g+8(i>>1),
//             col 2t+(i&1))
//   m16n8k32: A 4 regs (reg o: row g+8(o&1), k 4t+j+16(o>>1)), B 2 regs (reg b: k 4t+j+16b, col g),
//             C/D 4 regs
// (j: the byte of the register, low first). Tests: tests/ptx_conformance_test.cpp
// PtxConformance.IntegerMma (an independent matrix product).
#pragma once
#include <cstdint>

namespace rrswin {

enum class MmaIntShape : std::uint8_t { m8n8k16, m16n8k16, m16n8k32 };

struct MmaIntForm {
  MmaIntShape shape = MmaIntShape::m16n8k32;
  bool a_signed = true, b_signed = true;  // .s8 or .u8
  bool satfinite = false;
};

// Registers per lane of each operand.
int mma_int_a_regs(MmaIntShape s);
int mma_int_b_regs(MmaIntShape s);
int mma_int_cd_regs(MmaIntShape s);

// One warp's mma: a[lane][reg], b[lane][reg], c[lane][reg] as the lanes hold them (unused registers
// ignored); returns d[lane][reg].
struct MmaIntRegs {
  std::uint32_t r[32][4] = {};
};
MmaIntRegs mma_int(const MmaIntForm& f, const MmaIntRegs& a, const MmaIntRegs& b, const MmaIntRegs& c);

}  // namespace rrswin
