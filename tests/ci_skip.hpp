// A test that needs something outside the checkout (../shared's data, the CUDA toolkit's
// cuda_fp8.hpp, the OpenEXR library) skips where it is missing, so that a newcomer's build passes;
// in CI (environment variable CI=true, set by .ci/run) the same missing piece is a failure, so
// that a CI machine without it can never pass by skipping the independent references.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace rrswin_test {
inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}
}  // namespace rrswin_test

// Use as a statement, like GTEST_SKIP(): RRSWIN_SKIP_UNLESS_CI() << "why"; it returns from the test
// (or SetUp) as a skip, or under CI=true as a fatal failure with the same message.
#define RRSWIN_SKIP_UNLESS_CI()                                                               \
  return GTEST_MESSAGE_(::rrswin_test::in_ci() ? "CI=true, so this skip is a failure: " : "", \
                        ::rrswin_test::in_ci() ? ::testing::TestPartResult::kFatalFailure : ::testing::TestPartResult::kSkip)
