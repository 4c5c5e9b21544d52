// The ISA fragment maps of numerics/mma_fragment.hpp (numerics.md "mma").
#include "numerics/mma_fragment.hpp"

#include <stdexcept>
#include <string>

namespace rrswin::mma_fragment {

void check_index(int v, int lo, int hi_exclusive, const char* what) {
  if (v < lo || v >= hi_exclusive)
    throw std::out_of_range(std::string("fragment: ") + what + " = " + std::to_string(v) + " is outside [" + std::to_string(lo) + ", " +
                            std::to_string(hi_exclusive) + ")");
}

RowK a_element_isa(int lane, int reg, int byte) {
  check_index(lane, 0, 32, "lane");
  check_index(reg, 0, 4, "A register");
  check_index(byte, 0, 4, "byte");
  return {a_row(lane >> 2, reg), isa_k(lane & 3, byte, reg >> 1)};
}

KCol b_element_isa(int lane, int reg, int byte) {
  check_index(lane, 0, 32, "lane");
  check_index(reg, 0, 2, "B register");
  check_index(byte, 0, 4, "byte");
  return {isa_k(lane & 3, byte, reg), lane >> 2};
}

RowCol cd_element(int lane, int reg, int half) {
  check_index(lane, 0, 32, "lane");
  check_index(reg, 0, 2, "C/D register");
  check_index(half, 0, 2, "f16 half");
  return {(lane >> 2) + 8 * reg, 2 * (lane & 3) + half};
}

}  // namespace rrswin::mma_fragment
