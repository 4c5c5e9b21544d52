// Classification and comparison of the IEEE formats the PTX instructions read (f16, bf16, f32,
// f64), computed on the bit patterns: testp (PTX ISA 9.7.3.3 "testp"), the ordered and unordered
// comparisons of setp/set (9.7.6.1 "Comparison operators": eq ne lt le gt ge are false when an
// operand is NaN, equ neu ltu leu gtu geu true, num / nan test for NaN; -0 == +0), slct's sign
// test (9.7.8.3: c >= 0, -0 included, a NaN c is not), and .ftz on their inputs (a subnormal
// input is a zero of its sign). The interpreter (src/ptx) calls these and compares no float
// itself. Tests: tests/fp_class_test.cpp (host IEEE comparisons and std::fpclassify as the
// independent reference, plus values derived by hand from the manual's tables).
#pragma once
#include <cstdint>

namespace rrswin {

// The relation of a to b: exactly one of these (IEEE 754 §5.11: less, equal, greater, unordered).
inline constexpr std::uint8_t kFpLess = 1, kFpEqual = 2, kFpGreater = 4, kFpUnordered = 8;

// Which relations each comparison operator accepts (PTX ISA "Comparison operators"; .lo/.ls/.hi/
// .hs are integer-only and have none here): a comparison holds when relation & mask != 0.
enum class FpCompare : std::uint8_t { eq, ne, lt, le, gt, ge, equ, neu, ltu, leu, gtu, geu, num, nan };
std::uint8_t fp_compare_mask(FpCompare c);

// The relation of a to b; ftz: a subnormal operand counts as the zero of its sign (.ftz on setp /
// set / slct; f64 has no .ftz).
std::uint8_t f16_relation(std::uint16_t a, std::uint16_t b, bool ftz);
std::uint8_t bf16_relation(std::uint16_t a, std::uint16_t b, bool ftz);
std::uint8_t f32_relation(std::uint32_t a, std::uint32_t b, bool ftz);
std::uint8_t f64_relation(std::uint64_t a, std::uint64_t b);

// slct.f32's selector test (9.7.8.3): c >= 0 (so -0 and, with .ftz, a negative subnormal select
// a); a NaN c does not.
bool f32_slct_selects_a(std::uint32_t c, bool ftz);

// testp.op (9.7.3.3): finite (not Inf, not NaN), infinite, number (not NaN), notanumber, normal
// (finite, nonzero, not subnormal), subnormal (nonzero with a zero exponent field).
enum class FpTest : std::uint8_t { finite, infinite, number, notanumber, normal, subnormal };
bool f32_testp(std::uint32_t a, FpTest t);
bool f64_testp(std::uint64_t a, FpTest t);

}  // namespace rrswin
