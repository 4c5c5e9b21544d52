// One hand-worked mma dot product of the mma tests (hopper_mma_test.cpp, blackwell_mma_test.cpp):
// the 32 e4m3 codes of A's row and B's column in the PTX ISA's k order, and C; run under a
// profile, or under a profile with one reading changed (docs/readings.md §3).
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "model/readings.hpp"
#include "numerics/mma.hpp"
#include "numerics/profile.hpp"

namespace mma_case {

struct Dot {
  rrswin::e4m3_t a[32] = {};
  rrswin::e4m3_t b[32] = {};
  rrswin::f16_t c = 0;
};
inline rrswin::f16_t run(const rrswin::Profile& p, const Dot& d) { return rrswin::mma_dot(p, d.a, d.b, d.c); }
inline rrswin::Profile with(const rrswin::Profile& p, const char* assignment) {
  rrswin::Readings r;
  std::string err;
  EXPECT_TRUE(rrswin::set_reading(r, assignment, &err)) << err;
  return rrswin::with_readings(p, r);
}

}  // namespace mma_case
