// E11 steps 1..5 in vector form (engine/kernels_avx512vnni.cpp e11_expval16, binary32 lanes)
// against golden::e11_expval (src/numerics' f16_mul, f16_max, f16_min, f16_fma) on every one of
// the 65536 f16 score patterns: the vector form's roundings that are not argued there (m by
// Veltkamp's split, step 4's double rounding) are proved by this exhaustive comparison; and the
// avx2 path's form of the same arithmetic (engine/epilogue_avx2_impl.hpp). Each runs where the CPU
// has its path.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "engine/gemm.hpp"
#include "engine/kernel_args.hpp"
#include "engine/prepared.hpp"
#include "engine/simd.hpp"
#include "model/layer.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"
#include "numerics/profile.hpp"

namespace rrswin {
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

// E11 on whole rows (KernelSet::e11_rows: epilogue_impl.hpp's four, two and one rows at a time on
// the scalar path, the avx2 and avx512 paths' e11_rows_avx2 the same in registers, the avx512vnni
// path's e11_rows_x2 on two register pairs per step with one-pair and one-row tails) against the
// golden model's e11_expval, e11_row and q8 on every path this CPU has, both q8 NaN rules, and row
// counts that reach every tail; the scores hold NaN, Inf, zeros and values past both clamps.
TEST(EngineE11, RowsEqualGoldenOnEveryPathAndRowCount) {
  const engine::EpilogueTables& tab = engine::epilogue_tables();
  std::mt19937 rng(5);
  for (const engine::SimdPath path : engine::supported_simd_paths()) {
    const engine::KernelSet k = engine::kernels(path);
    for (const Profile* prof : {&profile_ada(), &profile_zluda()})
      for (const int rows : {1, 2, 3, 4, 5, 6, 7, 9, 64}) {
        std::vector<f16_t> s(static_cast<std::size_t>(rows) * 96);
        for (auto& v : s) {
          const unsigned u = rng();
          v = static_cast<f16_t>((u & 0x8000) | (0x4000 + (u >> 16) % 0x2400));  // about 2 .. 2^9: past the clamps
          if (u % 7 == 0) v = static_cast<f16_t>(u >> 8);                        // any pattern (NaN, Inf, zeros)
        }
        // the vector helpers block.cpp gives the path (Quantiser, e11_expval_run_avx2)
        const auto q8_run = path == engine::SimdPath::avx512vnni ? engine::q8_run_avx512
                            : path != engine::SimdPath::scalar   ? engine::q8_run_avx2
                                                                 : nullptr;
        const auto expval_run = path == engine::SimdPath::avx2 || path == engine::SimdPath::avx512 ? engine::e11_expval_run_avx2 : nullptr;
        const e4m3_t* const q8_table = prof->e4m3_nan_keeps_sign ? tab.q8_zluda.data() : tab.q8_ada.data();
        std::vector<e4m3_t> got(s.size() + 8, 0x55);
        k.e11_rows({s.data(), got.data(), rows, tab.e11.data(), tab.e11_clamp.data(), tab.rcp.data(), q8_table, nullptr, q8_run,
                    prof->e4m3_nan_keeps_sign, expval_run});
        for (int r = 0; r < rows; ++r) {
          std::array<f16_t, 96> e;
          for (int c = 0; c < 96; ++c) e[static_cast<std::size_t>(c)] = golden::e11_expval(s[static_cast<std::size_t>(r) * 96 + c]);
          const golden::E11Row row = golden::e11_row(e);
          for (int c = 0; c < 96; ++c)
            ASSERT_EQ(got[static_cast<std::size_t>(r) * 96 + c], f16_to_e4m3(row.p[static_cast<std::size_t>(c)], *prof))
                << engine::to_string(path) << " " << prof->name << " rows " << rows << " row " << r << " col " << c;
        }
        for (std::size_t i = s.size(); i < got.size(); ++i) ASSERT_EQ(got[i], 0x55) << "written past the rows";
      }
  }
}

// The RMS norm kernels (epilogue_impl.hpp rms_rows, two rows at a time with a one-row tail; the
// avx512vnni path's rms_rows_x2, two register pairs per step with one-pair and one-row tails) against
// golden::rms_norm_rows on every path this CPU has, every row length the kernels are instantiated
// for (kernel_args.hpp kFusedNTiles: C = 160, 128, 96), every sum tree and odd and even row counts;
// the rows hold values whose squares overflow, subnormals, zeros, Inf and NaN (rows 3..5, whose
// inverse is 0 or NaN), and the others a scale of their own, so that each row's own inverse (not its
// neighbour's) is checked.
TEST(EngineRms, RowsEqualGoldenOnEveryPathTreeRowLengthAndRowCount) {
  std::mt19937 rng(11);
  const SumTree trees[] = {SumTree::even_odd_quads, SumTree::planes, SumTree::sequential, SumTree::pairwise};
  for (const engine::SimdPath path : engine::supported_simd_paths()) {
    const engine::KernelSet k = engine::kernels(path);
    for (const int n_tiles : engine::kFusedNTiles)
      for (const SumTree tree : trees)
        for (const int rows : {1, 2, 3, 4, 5, 8, 9}) {
          const int C = 8 * n_tiles;
          golden::NormSpec spec{tree, static_cast<f16_t>(0x1400 + (rng() & 0xFF)), std::vector<f16_t>(static_cast<std::size_t>(C))};
          for (auto& gv : spec.gain) gv = static_cast<f16_t>(0x3400 + (rng() & 0x7FF));
          std::vector<f16_t> x(static_cast<std::size_t>(rows) * C), got(x.size() + 8, 0x5555), want(x.size());
          for (int r = 0; r < rows; ++r)
            for (int c = 0; c < C; ++c) {
              // a scale per row (rows differ in their sums), rare large / tiny / special values
              const unsigned u = rng();
              f16_t v = static_cast<f16_t>(((u & 0x8000) | ((0x2000 + 0x400 * (r % 8)) + (u >> 20 & 0x7FF))) & 0xFFFF);
              if (r == 5 && c == 33) v = static_cast<f16_t>(0x7000 | (u & 0x83FF));  // its square overflows
              if (u % 89 == 0) v = static_cast<f16_t>(u & 0x83FF);                   // zero or subnormal
              if (r == 3 && c == 7) v = 0x7C00;                                      // Inf
              if (r == 4 && c == C - 60) v = 0x7E01;                                 // NaN
              x[static_cast<std::size_t>(r) * C + c] = v;
            }
          golden::rms_norm_rows(spec, x.data(), want.data(), rows);
          k.rms_rows({x.data(), got.data(), rows, static_cast<int>(tree), spec.eps, spec.gain.data(), C});
          for (std::size_t i = 0; i < x.size(); ++i)
            ASSERT_EQ(got[i], want[i]) << std::hex << engine::to_string(path) << " tree " << static_cast<int>(tree) << std::dec << " C "
                                       << C << " rows " << rows << " row " << i / C << " col " << i % C;
          for (std::size_t i = x.size(); i < got.size(); ++i) ASSERT_EQ(got[i], 0x5555) << "C " << C << ": written past the rows";
        }
  }
}

// The C seeds' kernel (add_rows: phase 13's and 22's f16(T + x)) at every row length the fused block
// runs, against numerics' f16_add, with NaN, Inf and subnormal operands.
TEST(EngineRms, AddRowsEqualsF16AddOnEveryPathAndRowLength) {
  std::mt19937 rng(12);
  for (const engine::SimdPath path : engine::supported_simd_paths()) {
    const engine::KernelSet k = engine::kernels(path);
    for (const int n_tiles : engine::kFusedNTiles) {
      const int C = 8 * n_tiles, rows = 5;
      std::vector<f16_t> t(static_cast<std::size_t>(C)), x(static_cast<std::size_t>(rows) * C), got(x.size() + 8, 0x5555);
      for (auto& v : t) v = static_cast<f16_t>(rng() & 0xFFFF);
      for (auto& v : x) v = static_cast<f16_t>(rng() & 0xFFFF);
      k.add_rows({t.data(), x.data(), got.data(), rows, C});
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < C; ++c) {
          const f16_t want = f16_add(t[static_cast<std::size_t>(c)], x[static_cast<std::size_t>(r) * C + c]);
          ASSERT_EQ(got[static_cast<std::size_t>(r) * C + c], want)
              << engine::to_string(path) << " C " << C << " row " << r << " col " << c;
        }
      for (std::size_t i = x.size(); i < got.size(); ++i) ASSERT_EQ(got[i], 0x5555) << "C " << C << ": written past the rows";
    }
  }
}

}  // namespace
}  // namespace rrswin
