#include <gtest/gtest.h>

#include "layout/arena.hpp"

// The arena object places words exactly as spec E60(b)'s index formula says.
TEST(PlaneArena, WordIndexFollowsSpecFormula) {
  rrswin::layout::PlaneArena a{40, 23};
  EXPECT_EQ(a.plane_words(), 8u * 40 * 23);
  EXPECT_EQ(a.word_index(2, 5, 7, 3), 2u * 8 * 40 * 23 + 8u * 40 * 7 + 8u * 5 + 3);
  EXPECT_EQ(a.total_bytes(), 147200u);  // REC5 via facts A3: E60 scatters 147,200 bytes
}
