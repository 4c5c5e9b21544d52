// E11 steps 1..5 in vector form (engine/kernels_avx512vnni.cpp e11_expval16, binary32 lanes)
// against golden::e11_expval (src/numerics' f16_mul, f16_max, f16_min, f16_fma) on every one of
// the 65536 f16 score patterns: the vector form's roundings that are not argued there (m by
// Veltkamp's split, step 4's double rounding) are proved by this exhaustive comparison. Run where
// the CPU has the avx512vnni path.
#include <gtest/gtest.h>

#include <cstdint>

#include "engine/kernel_args.hpp"
#include "engine/simd.hpp"
#include "model/layer.hpp"

namespace enc5 {
namespace {

TEST(EngineE11, ExpvalEqualsGoldenOnEveryPattern) {
  if (!engine::simd_supported(engine::SimdPath::avx512vnni)) GTEST_SKIP() << "no AVX512-VNNI on this CPU";
  for (std::uint32_t base = 0; base < 0x10000; base += 16) {
    f16_t s[16], e[16];
    for (int k = 0; k < 16; ++k) s[k] = static_cast<f16_t>(base + k);
    engine::e11_expval_x16_avx512(s, e);
    for (int k = 0; k < 16; ++k) ASSERT_EQ(e[k], golden::e11_expval(s[k])) << std::hex << "score 0x" << s[k];
  }
}

}  // namespace
}  // namespace enc5
