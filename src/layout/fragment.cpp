// The m16n8k32 fragment maps of layout/fragment.hpp (the ISA maps themselves: numerics/mma_fragment.cpp).
//
// Sources: PTX ISA "Matrix Fragments for mma.m16n8k32" as restated in numerics.md ("mma"), and
// facts §0.4 for the kernel's pair order. g = lane >> 2, t = lane & 3 throughout.
//   ISA order   (numerics.md): A reg o byte j holds row g + 8(o&1), k = 4t + j + 16(o>>1);
//                              B reg b byte j holds column g,       k = 4t + j + 16b.
//   pair order  (facts §0.4):  A reg o byte j holds row g + 8(o&1), k = 2t + (j&1) + 16((j>>1)&1) + 8(o>>1);
//                              B reg b byte j holds column g,       k = 2t + (j&1) + 16((j>>1)&1) + 8b.
//   C/D         (facts §0.4, numerics.md): reg r half h holds row g + 8r, column 2t + h.
// Every argument is range-checked: a wrong index here would silently permute a whole layer.
#include "layout/fragment.hpp"

#include <stdexcept>
#include <string>

namespace rrswin::layout {
namespace {

void check(int v, int lo, int hi_exclusive, const char* what) { mma_fragment::check_index(v, lo, hi_exclusive, what); }

// Within one k-step, both labellings split k by the same four fields of a byte position:
// t (lane & 3), j (byte), and the register's k-half bit h (A: o >> 1, B: b): isa_k / pair_k of
// fragment.hpp.

}  // namespace

RowK a_element_pair(int lane, int reg, int byte) {
  check(lane, 0, 32, "lane");
  check(reg, 0, 4, "A register");
  check(byte, 0, 4, "byte");
  return {a_row(lane >> 2, reg), pair_k(lane & 3, byte, reg >> 1)};
}

KCol b_element_pair(int lane, int reg, int byte) {
  check(lane, 0, 32, "lane");
  check(reg, 0, 2, "B register");
  check(byte, 0, 4, "byte");
  return {pair_k(lane & 3, byte, reg), lane >> 2};
}

// facts §0.4: "natural index 4a+b (a=0..7, b=0..3) <-> pair index 2a + (b&1) + 16(b>>1)".
// With a = t + 4h and b = j this is exactly pair_k(t, j, h) for isa_k(t, j, h) = 4a + b.
int pair_k_from_isa_k(int k_isa) {
  check(k_isa, 0, 32, "ISA k");
  const int a = k_isa >> 2, b = k_isa & 3;
  return 2 * a + (b & 1) + 16 * (b >> 1);
}

// The inverse: in 2a + (b&1) + 16(b>>1), 2a + (b&1) < 16 fills bits 0..3 and b>>1 is bit 4.
int isa_k_from_pair_k(int k_pair) {
  check(k_pair, 0, 32, "pair k");
  const int a = (k_pair & 15) >> 1;
  const int b = (k_pair & 1) | ((k_pair >> 4) << 1);
  return 4 * a + b;
}

const APairTable& a_element_pair_table() {
  static const APairTable m = [] {
    APairTable t{};
    for (int lane = 0; lane < 32; ++lane)
      for (int o = 0; o < 4; ++o)
        for (int j = 0; j < 4; ++j) t[lane][o][j] = a_element_pair(lane, o, j);
    return t;
  }();
  return m;
}

const std::array<int, 32>& isa_k_of_pair_k() {
  static const std::array<int, 32> k = [] {
    std::array<int, 32> m{};
    for (int kp = 0; kp < 32; ++kp) m[kp] = isa_k_from_pair_k(kp);
    return m;
  }();
  return k;
}

// Field decomposition of a pair-order k: pair_k(t, j, h) = 2t + (j&1) + 16(j>>1) + 8h, so
// bit 0 = j&1, bits 1..2 = t, bit 3 = h, bit 4 = j>>1.
LaneRegByte a_location_pair(int row, int k_pair) {
  check(row, 0, 16, "A row");
  check(k_pair, 0, 32, "pair k");
  const int t = (k_pair >> 1) & 3, j = (k_pair & 1) | ((k_pair >> 4) << 1), h = (k_pair >> 3) & 1;
  return {4 * (row & 7) + t, (row >> 3) + 2 * h, j};
}

LaneRegByte b_location_pair(int k_pair, int col) {
  check(k_pair, 0, 32, "pair k");
  check(col, 0, 8, "B column");
  const int t = (k_pair >> 1) & 3, j = (k_pair & 1) | ((k_pair >> 4) << 1), h = (k_pair >> 3) & 1;
  return {4 * col + t, h, j};
}

LaneRegByte cd_location(int row, int col) {
  check(row, 0, 16, "C/D row");
  check(col, 0, 8, "C/D column");
  return {4 * (row & 7) + (col >> 1), row >> 3, col & 1};
}

}  // namespace rrswin::layout
