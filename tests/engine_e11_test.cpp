// E11 steps 1..5 in vector form (engine/kernels_avx512vnni.cpp e11_expval16, binary32 lanes)
// against golden::e11_expval (src/numerics' f16_mul, f16_max, f16_min, f16_fma) on every one of
// the 65536 f16 score patterns: the vector form's roundings that are not argued there (m by
// Veltkamp's split, step 4's double rounding) are proved by this exhaustive comparison; and the
// avx2 path's form of the same arithmetic (engine/epilogue_avx2_impl.hpp). Each runs where the CPU
// has its path.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "engine/kernel_args.hpp"
#include "engine/simd.hpp"
#include "model/layer.hpp"

namespace enc5 {
namespace {

TEST(EngineE11, ExpvalEqualsGoldenOnEveryPattern) {
  bool ran = false;
  if (engine::simd_supported(engine::SimdPath::avx512vnni)) {
    ran = true;
    for (std::uint32_t base = 0; base < 0x10000; base += 16) {
      f16_t s[16], e[16];
      for (int k = 0; k < 16; ++k) s[k] = static_cast<f16_t>(base + k);
      engine::e11_expval_x16_avx512(s, e);
      for (int k = 0; k < 16; ++k) ASSERT_EQ(e[k], golden::e11_expval(s[k])) << std::hex << "avx512 score 0x" << s[k];
    }
  }
  if (engine::simd_supported(engine::SimdPath::avx2)) {
    ran = true;
    // the avx2 form (engine/epilogue_avx2_impl.hpp) on all 65536 at once, then on short runs
    // (its padded tail) around the clamp
    std::vector<f16_t> s(0x10000), e(0x10000 + 8, 0x5555);
    for (std::uint32_t i = 0; i < 0x10000; ++i) s[i] = static_cast<f16_t>(i);
    engine::e11_expval_run_avx2(s.data(), e.data(), s.size());
    for (std::uint32_t i = 0; i < 0x10000; ++i) ASSERT_EQ(e[i], golden::e11_expval(s[i])) << std::hex << "avx2 score 0x" << s[i];
    ASSERT_EQ(e[0x10000], 0x5555);  // nothing written past n
    for (std::size_t n = 1; n <= 24; ++n) {
      std::vector<f16_t> o(n + 8, 0x5555);
      engine::e11_expval_run_avx2(s.data() + 0x5800, o.data(), n);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(o[i], golden::e11_expval(s[0x5800 + i])) << n << " " << i;
      for (std::size_t i = n; i < n + 8; ++i) ASSERT_EQ(o[i], 0x5555) << "written past n = " << n;
    }
  }
  if (!ran) GTEST_SKIP() << "no AVX2 on this CPU";
}

}  // namespace
}  // namespace enc5
