// The fast engine against the golden model, byte for byte (issue "fast engine": proof that it is
// the same function). Three levels:
//  1. the fast f16 helpers against src/numerics (exhaustive where cheap, random + every rounding
//     boundary otherwise);
//  2. the GEMM kernels of every SIMD path this CPU has against golden::mma_step (mma_dot), both
//     profiles, random and extreme operands, special C values, NaN codes;
//  3. whole frames: output arena, surface and statistics, for random weight images and inputs,
//     odd extents, negative block offsets, frames smaller than a block, both profiles, every
//     value of every reading, every SIMD path, thread counts 1..3; NaN codes in weights and
//     inputs; traces (the fast engine runs a traced block with the golden model).
#include <gtest/gtest.h>
#include <algorithm>
#include <array>
#include <bit>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "engine/f16_bits.hpp"
#include "engine/gemm.hpp"
#include "engine/kernel_args.hpp"
#include "engine/simd.hpp"
#include "layout/fragment.hpp"
#include "model/layer.hpp"
#include "model/readings.hpp"
#include "model/weight_image.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"
#include "numerics/mma.hpp"

namespace rrswin {
namespace {

bool small_scale() {
  const char* s = std::getenv("RRSWIN_TEST_SCALE");
  return s && std::string(s) == "small";
}

// ---- 1. the engine's f16 conversions (engine/f16_bits.hpp) -------------------------------------
// The helpers every kernel and the scalar epilogues use, against src/numerics/f16.hpp (the golden
// model's own conversions, an independent construction with branches and integer rounding).

TEST(EngineF16, H2fExhaustive) {
  for (std::uint32_t i = 0; i < 65536; ++i) {
    const auto h = static_cast<f16_t>(i);
    ASSERT_EQ(std::bit_cast<std::uint32_t>(engine::h2f(h)), std::bit_cast<std::uint32_t>(f16_to_f32(h))) << std::hex << i;
  }
}

TEST(EngineF16, F2hAndD2hAtEveryRoundingBoundary) {
  // Every f16 value, the midpoints to its neighbours, and the f32 / f64 values one ulp around
  // them; plus random bit patterns. d2h is defined for finite binary64 only (its callers' sums).
  int checked = 0;
  auto check32 = [&](float x) {
    ASSERT_EQ(engine::f2h(x), f32_to_f16(x)) << std::hexfloat << x;
    ++checked;
  };
  auto check64 = [&](double x) {
    if (!std::isfinite(x)) return;
    ASSERT_EQ(engine::d2h(x), f64_to_f16(x)) << std::hexfloat << x;
    ++checked;
  };
  for (std::uint32_t i = 0; i < 0x7C00; ++i) {
    for (int sign = 0; sign < 2; ++sign) {
      const double a = f16_to_f64(static_cast<f16_t>(i | (sign << 15)));
      const double b = f16_to_f64(static_cast<f16_t>((i + 1) | (sign << 15)));  // 0x7C00 = Inf at the top
      const double mid = std::isinf(b) ? (sign ? -65520.0 : 65520.0) : (a + b) / 2;
      for (double x : {a, mid}) {
        check64(x);
        check64(std::nextafter(x, INFINITY));
        check64(std::nextafter(x, -INFINITY));
        const auto f = static_cast<float>(x);
        check32(f);
        check32(std::nextafter(f, INFINITY));
        check32(std::nextafter(f, -INFINITY));
      }
    }
  }
  SplitMix64 rng(42);
  for (int i = 0; i < (small_scale() ? 200000 : 4000000); ++i) {
    const std::uint64_t r = rng.next();
    check32(std::bit_cast<float>(static_cast<std::uint32_t>(r)));
    check64(std::bit_cast<double>(r));
    // Values near the f16 range: exponents 2^-30 .. 2^17.
    const auto e = static_cast<std::uint32_t>(97 + (r >> 59) % 48);
    check32(std::bit_cast<float>((static_cast<std::uint32_t>(r) & 0x807FFFFFu) | (e << 23)));
    check64(std::bit_cast<double>((r & 0x800FFFFFFFFFFFFFull) | (static_cast<std::uint64_t>(1023 - 30 + (r >> 58) % 48) << 52)));
  }
  for (float x : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 0x1p-149f, -0x1p-149f, 65504.0f, 65519.99f, 65520.0f}) check32(x);
  for (double x : {0.0, -0.0, 0x1p-1074, -0x1p-1074, 65504.0, 65519.999999, 65520.0, -65520.0, 0x1p-25, 0x1.8p-25}) check64(x);
  EXPECT_GT(checked, 1000000);
}

f16_t random_f16(SplitMix64& rng) {
  // Half uniform bit patterns (every class), half values near 1 whose sums and products round.
  const std::uint64_t r = rng.next();
  if (r & 1) return static_cast<f16_t>(r >> 16);
  return static_cast<f16_t>(((r >> 16) & 0x83FF) | ((10 + (r >> 40) % 10) << 10));
}

// The epilogues' f16 arithmetic (engine/epilogue_impl.hpp): an add or mul is the binary32
// operation between h2f's, rounded once by f2h (the double rounding of a sum is innocuous:
// 24 >= 2*11 + 2). A NaN result is canonical (f2h), as src/numerics' are.
TEST(EngineF16, EpilogueArithmeticMatchesNumerics) {
  auto add = [](f16_t a, f16_t b) { return engine::f2h(engine::h2f(a) + engine::h2f(b)); };
  auto mul = [](f16_t a, f16_t b) { return engine::f2h(engine::h2f(a) * engine::h2f(b)); };
  SplitMix64 rng(7);
  const int n = small_scale() ? 200000 : 3000000;
  for (int i = 0; i < n; ++i) {
    const f16_t a = random_f16(rng), b = random_f16(rng);
    ASSERT_EQ(add(a, b), f16_add(a, b)) << std::hex << a << " " << b;
    ASSERT_EQ(mul(a, b), f16_mul(a, b)) << std::hex << a << " " << b;
  }
  // Exhaustive add and mul of every f16 with a set of pivots (ties, subnormals, specials).
  for (f16_t b :
       {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x3C01, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x1400, 0x6800})
    for (std::uint32_t i = 0; i < 65536; ++i) {
      const auto a = static_cast<f16_t>(i);
      ASSERT_EQ(add(a, b), f16_add(a, b)) << std::hex << a << " " << b;
      ASSERT_EQ(mul(a, b), f16_mul(a, b)) << std::hex << a << " " << b;
    }
}

// The AVX-512 q8 (engine/kernels_avx512vnni.cpp q8_run_avx512: cvt.rn.satfinite.e4m3x2.f16x2 in
// integer arithmetic) against numerics' f16_to_e4m3 for every f16, under `ada` (a NaN gives 0x7F)
// and `zluda` (a NaN keeps its sign), on runs of every length 1..64 (the masked tail) and at every
// offset of the buffer. Runs where the CPU has the avx512vnni path.
TEST(EngineF16, Q8RunEqualsNumerics) {
  // Every vector form of q8 this CPU can run: the avx512vnni path's and the avx2 path's.
  using Run = void (*)(const f16_t*, e4m3_t*, std::size_t, bool);
  std::vector<std::pair<const char*, Run>> runs;
  if (engine::simd_supported(engine::SimdPath::avx512vnni)) runs.emplace_back("q8_run_avx512", engine::q8_run_avx512);
  if (engine::simd_supported(engine::SimdPath::avx2)) runs.emplace_back("q8_run_avx2", engine::q8_run_avx2);
  if (runs.empty()) GTEST_SKIP() << "no AVX2 on this CPU";
  std::vector<f16_t> h(65536 + 64);
  for (std::uint32_t i = 0; i < h.size(); ++i) h[i] = static_cast<f16_t>(i);
  for (const auto& [name, run] : runs)
    for (const Profile* p : {&profile_ada(), &profile_zluda()}) {
      std::vector<e4m3_t> out(h.size(), 0x55);
      run(h.data(), out.data(), 65536, p->e4m3_nan_keeps_sign);
      for (std::uint32_t i = 0; i < 65536; ++i)
        ASSERT_EQ(out[i], f16_to_e4m3(static_cast<f16_t>(i), *p)) << name << " " << p->name << " f16 0x" << std::hex << i;
      ASSERT_EQ(out[65536], 0x55) << name;  // nothing written past n
      for (std::size_t n = 1; n <= 64; ++n) {
        std::vector<e4m3_t> o(n + 8, 0x55);
        const std::size_t at = 0x7BE0 - n / 2;  // around 448 .. Inf .. NaN
        run(h.data() + at, o.data(), n, p->e4m3_nan_keeps_sign);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(o[i], f16_to_e4m3(h[at + i], *p)) << name << " " << n << " " << i;
        for (std::size_t i = n; i < n + 8; ++i) ASSERT_EQ(o[i], 0x55) << name << " written past n = " << n;
      }
    }
}

// ---- 2. GEMM kernels against mma_dot -----------------------------------------------------------

// Operand code generators (kinds): 0 uniform non-NaN, 1 wide exponent spread per row (big and tiny
// mixed: drives `ada` truncation), 2 subnormals and signed zeros, 3 saturating (+-448 and
// neighbours: overflow), 4 sparse (mostly +-0).
e4m3_t gen_code(SplitMix64& rng, int kind) {
  const std::uint64_t r = rng.next();
  const auto sign = static_cast<e4m3_t>((r >> 8) & 0x80);
  e4m3_t m = 0;
  switch (kind) {
    case 0: m = static_cast<e4m3_t>(r % 127); break;
    case 1: m = (r >> 20) & 1 ? static_cast<e4m3_t>(0x60 + (r >> 24) % 31) : static_cast<e4m3_t>((r >> 24) % 24); break;
    case 2: m = static_cast<e4m3_t>((r >> 24) % 9); break;
    case 3: m = static_cast<e4m3_t>(0x70 + (r >> 24) % 15); break;
    case 4: m = (r >> 20) % 8 == 0 ? static_cast<e4m3_t>((r >> 24) % 127) : 0; break;
  }
  return static_cast<e4m3_t>(sign | m);
}

f16_t gen_c(SplitMix64& rng, int kind) {
  const std::uint64_t r = rng.next();
  switch (kind % 4) {
    case 0: return 0;
    case 1: return random_f16(rng);  // includes Inf, NaN, subnormals, -0
    case 2: {
      const f16_t s[] = {0x8000, 0x0000, 0x7C00, 0xFC00, 0x7BFF, 0xFBFF, 0x0001, 0x8001, 0x7E00, 0x03FF};
      return s[r % 10];
    }
    default: return static_cast<f16_t>(((r >> 16) & 0x8000) | ((r % 0x7000) + 0x0400));
  }
}

// Every path's operand decoder against the code table (itself numerics.md's formula), for all
// 256 codes in every position of a run, and the NaN flag.
TEST(EngineGemm, EveryPathDecodesLikeTheCodeTable) {
  const engine::CodeTable& t = engine::code_table();
  std::vector<e4m3_t> codes(512);
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<e4m3_t>((i * 37 + i / 256) & 0xFF);
  for (engine::SimdPath path : engine::supported_simd_paths()) {
    const auto run = engine::kernels(path).decode_run;
    for (int with_nan = 0; with_nan < 2; ++with_nan) {
      std::vector<e4m3_t> src;
      for (e4m3_t c : codes)
        if (with_nan || (c & 0x7F) != 0x7F) src.push_back(c);
      src.resize(src.size() / 16 * 16);
      const int n = static_cast<int>(src.size());
      std::vector<double> v64(src.size());
      std::vector<float> v(src.size()), e(src.size());
      std::vector<std::int16_t> e16(src.size()), he16(src.size());
      const bool nan = run({src.data(), n, v64.data(), v.data(), e.data(), e16.data(), he16.data()});
      EXPECT_EQ(nan, with_nan == 1) << engine::to_string(path);
      for (int i = 0; i < n; ++i) {
        const e4m3_t c = src[static_cast<std::size_t>(i)];
        if ((c & 0x7F) == 0x7F) continue;  // values of NaN codes are unspecified
        ASSERT_EQ(std::bit_cast<std::uint32_t>(v[i]), std::bit_cast<std::uint32_t>(t.value[c]))
            << engine::to_string(path) << " code " << int(c);
        ASSERT_EQ(std::bit_cast<std::uint64_t>(v64[i]), std::bit_cast<std::uint64_t>(t.value64[c]))
            << engine::to_string(path) << " code " << int(c);
        ASSERT_EQ(e[i], t.ada_e[c]) << engine::to_string(path) << " code " << int(c);
        ASSERT_EQ(e16[i], static_cast<std::int16_t>(t.ada_e[c])) << engine::to_string(path) << " code " << int(c);
        // `hopper`: floor(log2|x|) of the value itself (std::ilogb, independent of the decoder), -64 for a zero.
        const int want_he = t.value[c] == 0.0f ? -64 : std::ilogb(t.value[c]);
        ASSERT_EQ(he16[i], want_he) << engine::to_string(path) << " code " << int(c);
      }
    }
  }
}

// isa_order_kstep (the A operands' ISA-order forms) against the fragment layout's own table
// (layout/fragment.hpp isa_k_of_pair_k, facts §0.4), on distinct codes in every position.
TEST(EngineGemm, IsaOrderOfAKStepIsTheFragmentTables) {
  const std::array<int, 32>& isa = layout::isa_k_of_pair_k();
  for (int seed = 0; seed < 4; ++seed) {
    std::array<e4m3_t, 32> row{}, perm{}, want{};
    for (int k = 0; k < 32; ++k) row[static_cast<std::size_t>(k)] = static_cast<e4m3_t>(7 * k + 64 * seed + 1);
    for (int k = 0; k < 32; ++k) want[static_cast<std::size_t>(isa[static_cast<std::size_t>(k)])] = row[static_cast<std::size_t>(k)];
    engine::isa_order_kstep(row.data(), perm.data());
    EXPECT_EQ(perm, want) << "seed " << seed;
  }
}

// The `ada` integer words (gemm.hpp: kDecodeAdaInt16; kernels_ada_int16_impl.hpp) of every code,
// from the scalar tables and from the avx512vnni decoder, against words built here from the code
// table's value and e(x): x = +-m 2^(e - 3). And the avx512vnni path's selection: operands
// without the words take the binary32 kernel there, with the same result as with them.
TEST(EngineGemm, AdaIntegerWordsAndTheirSelection) {
  const engine::CodeTable& t = engine::code_table();
  const int rows = 8, K = 64, N = 16;  // every code once in A and in B (NaN codes left out)
  std::vector<e4m3_t> a(static_cast<std::size_t>(rows) * K), b(static_cast<std::size_t>(N) * K);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<e4m3_t>((i * 7) & 0xFF);
    b[i] = static_cast<e4m3_t>((i * 11 + 3) & 0xFF);
    if ((a[i] & 0x7F) == 0x7F) a[i] = 0x80;
    if ((b[i] & 0x7F) == 0x7F) b[i] = 0x00;
  }
  auto mant = [&](e4m3_t c) { return static_cast<int>(std::ldexp(std::fabs(t.value[c]), 3 - static_cast<int>(t.ada_e[c]))); };
  const int* isa = layout::isa_k_of_pair_k().data();
  std::vector<engine::SimdPath> paths{engine::SimdPath::scalar};
  if (engine::simd_supported(engine::SimdPath::avx512vnni)) paths.push_back(engine::SimdPath::avx512vnni);
  for (engine::SimdPath path : paths) {
    engine::AOperand A;
    engine::BOperand B;
    A.assign(a.data(), rows, K, K, engine::kDecodeAll, path);
    B.assign_nk(b.data(), N, K, K, engine::kDecodeAll, path);
    for (int r = 0; r < rows; ++r)
      for (int k = 0; k < K; ++k) {
        const e4m3_t c = a[static_cast<std::size_t>(r) * K + k];
        const int want = mant(c) << 3 | 0x1000 | ((c & 0x80) ? 0xE000 : 0);
        ASSERT_EQ(static_cast<std::uint16_t>(A.aw16[static_cast<std::size_t>(r) * K + (k & ~31) + isa[k & 31]]), want)
            << engine::to_string(path) << " code " << int(c);
      }
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k) {
        const e4m3_t c = b[static_cast<std::size_t>(n) * K + k];
        const int ki = (k & ~31) + isa[k & 31];
        const std::size_t at = static_cast<std::size_t>(ki >> 1) * 2 * N + 2 * static_cast<std::size_t>(n) + (ki & 1);
        ASSERT_EQ(static_cast<std::uint16_t>(B.bw16[at]), mant(c) << 4 | ((c & 0x80) ? 0xE000 : 0)) << engine::to_string(path);
        ASSERT_EQ(B.beb16[at], static_cast<std::int16_t>(t.ada_e[c])) << engine::to_string(path);
      }
  }
  if (!engine::simd_supported(engine::SimdPath::avx512vnni)) return;
  const Profile& prof = profile_ada();
  const engine::SimdPath vnni = engine::SimdPath::avx512vnni;
  // The avx512vnni kernel's own forms (decode_for: A's words and exponents in one pass,
  // gemm.cpp / ada_forms_a_avx512) against the same words, e(x) and the NaN flag.
  {
    engine::AOperand F;
    F.assign(a.data(), rows, K, K, engine::decode_for(prof, vnni), vnni);
    EXPECT_FALSE(F.nan);
    for (int r = 0; r < rows; ++r)
      for (int k = 0; k < K; ++k) {
        const e4m3_t c = a[static_cast<std::size_t>(r) * K + k];
        const std::size_t at = static_cast<std::size_t>(r) * K + (k & ~31) + isa[k & 31];
        ASSERT_EQ(static_cast<std::uint16_t>(F.aw16[at]), mant(c) << 3 | 0x1000 | ((c & 0x80) ? 0xE000 : 0)) << "code " << int(c);
        ASSERT_EQ(F.e16[at], static_cast<std::int16_t>(t.ada_e[c])) << "code " << int(c);
      }
    engine::BOperand G;  // and B's (ada_pairs_b_avx512, without the int16 exponents)
    G.assign_nk(b.data(), N, K, K, engine::decode_for(prof, vnni), vnni);
    EXPECT_FALSE(G.nan);
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k) {
        const e4m3_t c = b[static_cast<std::size_t>(n) * K + k];
        const int ki = (k & ~31) + isa[k & 31];
        const std::size_t at = static_cast<std::size_t>(ki >> 1) * 2 * N + 2 * static_cast<std::size_t>(n) + (ki & 1);
        ASSERT_EQ(static_cast<std::uint16_t>(G.bw16[at]), mant(c) << 4 | ((c & 0x80) ? 0xE000 : 0)) << "code " << int(c);
        ASSERT_EQ(G.beb16[at], static_cast<std::int16_t>(t.ada_e[c])) << "code " << int(c);
      }
    for (const e4m3_t nan_code : {e4m3_t{0x7F}, e4m3_t{0xFF}}) {
      std::vector<e4m3_t> an = a, bn = b;
      an[static_cast<std::size_t>(3 * K + 45)] = nan_code;
      bn[static_cast<std::size_t>(5 * K + 17)] = nan_code;
      F.assign(an.data(), rows, K, K, engine::decode_for(prof, vnni), vnni);
      EXPECT_TRUE(F.nan) << int(nan_code);
      G.assign_nk(bn.data(), N, K, K, engine::decode_for(prof, vnni), vnni);
      EXPECT_TRUE(G.nan) << int(nan_code);
      G.assign_kn(bn.data(), K, N, N, engine::decode_for(prof, vnni), vnni);  // the other layout
      EXPECT_TRUE(G.nan) << int(nan_code);
    }
  }
  EXPECT_TRUE(engine::decode_for(prof, vnni) & engine::kDecodeAdaInt16);
  EXPECT_FALSE(engine::decode_for(profile_blackwell(), vnni) & engine::kDecodeAdaInt16);
  engine::AOperand with, without;
  engine::BOperand bwith, bwithout;
  with.assign(a.data(), rows, K, K, engine::decode_for(prof, vnni), vnni);
  bwith.assign_nk(b.data(), N, K, K, engine::decode_for(prof, vnni), vnni);
  without.assign(a.data(), rows, K, K, engine::decode_for(prof, engine::SimdPath::avx512), vnni);
  bwithout.assign_nk(b.data(), N, K, K, engine::decode_for(prof, engine::SimdPath::avx512), vnni);
  ASSERT_TRUE(without.aw16.empty());
  std::vector<f16_t> c0(static_cast<std::size_t>(rows) * N);
  for (std::size_t i = 0; i < c0.size(); ++i) c0[i] = static_cast<f16_t>((i * 0x1234 + 0x0400) & 0xBBFF);
  std::vector<f16_t> d1 = c0, d2 = c0;
  engine::gemm(prof, vnni, with, 0, bwith, 0, K / 32, rows, d1.data(), N);
  engine::gemm(prof, vnni, without, 0, bwithout, 0, K / 32, rows, d2.data(), N);
  for (int r = 0; r < rows; ++r)
    for (int n = 0; n < N; ++n) {
      f16_t want = c0[static_cast<std::size_t>(r) * N + n];
      for (int s = 0; s < K / 32; ++s) {
        e4m3_t av[32], bv[32];
        for (int k = 0; k < 32; ++k) {
          av[isa[k]] = a[static_cast<std::size_t>(r) * K + 32 * s + k];
          bv[isa[k]] = b[static_cast<std::size_t>(n) * K + 32 * s + k];
        }
        want = mma_dot(prof, av, bv, want);
      }
      ASSERT_EQ(d1[static_cast<std::size_t>(r) * N + n], want) << "r " << r << " n " << n;
      ASSERT_EQ(d2[static_cast<std::size_t>(r) * N + n], want) << "r " << r << " n " << n;
    }
}

TEST(EngineGemm, EveryPathMatchesMmaDot) {
  int cases = 0;
  for (engine::SimdPath path : engine::supported_simd_paths())
    for (const Profile* prof : all_profiles())
      for (int N : {16, 32, 96, 160})
        for (int akind = 0; akind < 5; ++akind)
          for (int bkind = 0; bkind < 5; ++bkind) {
            // Row counts that leave every kernel's remainder tiles (6, 4, 2 and 1 rows on avx2's
            // integer `zluda` kernel; 4, 8 elsewhere) some rows.
            const int rows = N == 96 ? 13 : N == 160 ? 15 : N == 32 ? 10 : 12;
            if (small_scale() && (akind + bkind) % 2) continue;
            SplitMix64 rng(1000 * akind + 100 * bkind + N);
            const int K = 64;  // two chained k-steps
            std::vector<e4m3_t> a(static_cast<std::size_t>(rows) * K), b(static_cast<std::size_t>(N) * K);
            for (auto& c : a) c = gen_code(rng, akind);
            for (auto& c : b) c = gen_code(rng, bkind);
            const bool inject_nan = (akind * 5 + bkind) % 7 == 3;
            if (inject_nan) a[5] = 0x7F, b[3 * K + 40] = 0xFF;
            std::vector<f16_t> c(static_cast<std::size_t>(rows) * N);
            for (auto& v : c) v = gen_c(rng, akind + bkind);
            engine::AOperand A;
            engine::BOperand B;
            // Operands decoded by the path's decoder, with every form or only those the path's
            // kernel reads, through both B entry points.
            const unsigned forms = (akind + bkind) % 2 ? engine::decode_for(*prof, path) : engine::kDecodeAll;
            A.assign(a.data(), rows, K, K, forms, path);
            if ((akind + N / 16) % 2)
              B.assign_nk(b.data(), N, K, K, forms, path);
            else {  // the [k][n] entry point too
              std::vector<e4m3_t> kn(b.size());
              for (int n = 0; n < N; ++n)
                for (int k = 0; k < K; ++k) kn[static_cast<std::size_t>(k) * N + n] = b[static_cast<std::size_t>(n) * K + k];
              B.assign_kn(kn.data(), K, N, N, forms, path);
            }
            std::vector<f16_t> d = c;
            engine::gemm(*prof, path, A, 0, B, 0, 2, rows, d.data(), N);
            for (int r = 0; r < rows; ++r)
              for (int n = 0; n < N; ++n) {
                f16_t want = c[static_cast<std::size_t>(r) * N + n];
                for (int s = 0; s < 2; ++s)
                  want = golden::mma_step(*prof, &a[static_cast<std::size_t>(r) * K + 32 * s], &b[static_cast<std::size_t>(n) * K + 32 * s],
                                          want);
                ASSERT_EQ(d[static_cast<std::size_t>(r) * N + n], want) << engine::to_string(path) << " " << prof->name << " N " << N
                                                                        << " kinds " << akind << "," << bkind << " r " << r << " n " << n;
                ++cases;
              }
          }
  std::printf("gemm differential: %d output elements (2 chained k-steps each)\n", cases);
}

// Operands built in the ISA k order (the order the `ada` halves and the `hopper` groups are
// defined in), stored in the logical order gemm() and mma_step take; then every path's gemm on
// them (decoded with the path's own forms) against mma_step, element by element, 2 k-steps.
void expect_gemm_matches_isa_operands(const Profile& prof, const std::vector<std::array<e4m3_t, 64>>& rows_isa,
                                      const std::vector<std::array<e4m3_t, 64>>& cols_isa, const std::vector<f16_t>& c,
                                      const std::string& what) {
  const int rows = static_cast<int>(rows_isa.size()), N = static_cast<int>(cols_isa.size()), K = 64;
  const int* isa = layout::isa_k_of_pair_k().data();
  std::vector<e4m3_t> a(static_cast<std::size_t>(rows) * K), b(static_cast<std::size_t>(N) * K);
  for (int s = 0; s < 2; ++s)
    for (int kp = 0; kp < 32; ++kp) {
      for (int r = 0; r < rows; ++r) a[static_cast<std::size_t>(r) * K + 32 * s + kp] = rows_isa[r][32 * s + isa[kp]];
      for (int n = 0; n < N; ++n) b[static_cast<std::size_t>(n) * K + 32 * s + kp] = cols_isa[n][32 * s + isa[kp]];
    }
  for (engine::SimdPath path : engine::supported_simd_paths()) {
    engine::AOperand A;
    engine::BOperand B;
    A.assign(a.data(), rows, K, K, engine::decode_for(prof, path), path);
    B.assign_nk(b.data(), N, K, K, engine::decode_for(prof, path), path);
    std::vector<f16_t> d = c;
    engine::gemm(prof, path, A, 0, B, 0, 2, rows, d.data(), N);
    for (int r = 0; r < rows; ++r)
      for (int n = 0; n < N; ++n) {
        f16_t want = c[static_cast<std::size_t>(r) * N + n];
        for (int s = 0; s < 2; ++s)
          want = golden::mma_step(prof, &a[static_cast<std::size_t>(r) * K + 32 * s], &b[static_cast<std::size_t>(n) * K + 32 * s], want);
        ASSERT_EQ(d[static_cast<std::size_t>(r) * N + n], want) << what << " " << engine::to_string(path) << " r " << r << " n " << n;
      }
  }
}

// e4m3 code of +-2^j (j = -9 .. 8), exact.
e4m3_t pow2_code(int j, bool neg) {
  const int m = j >= -6 ? (j + 7) << 3 : 1 << (j + 9);
  return static_cast<e4m3_t>((neg ? 0x80 : 0) | m);
}

// `hopper`'s edges (numerics.md "hopper"; kernels_hopper_impl.hpp): each HMMA group's window
// (a product of exponent E is exact when E >= maxE - 19, truncated below; the accumulator p1
// when E(p1) >= maxE - 15), sums far above 2^24 truncation units whose f16 rounding is a tie or
// one unit off a tie (the binary32 round-to-odd of the AVX-512 kernel), p1 overflowing to Inf,
// Inf - Inf in the final add of C, cancellations to zero and f16 subnormal results.
TEST(EngineGemm, HopperWindowsTiesAndOverflow) {
  const Profile& prof = profile_hopper();
  SplitMix64 rng(77);
  const int trials = small_scale() ? 4 : 24;
  for (int trial = 0; trial < trials; ++trial) {
    const int rows = 8, N = 32;
    std::vector<std::array<e4m3_t, 64>> A(rows), B(N);
    // B columns: mostly +1, a few k at powers of two (so that a row's products are its own values
    // shifted), per column a different pattern.
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < 64; ++k) {
        const std::uint64_t r = rng.next();
        B[n][k] = r % 4 != 0 ? pow2_code(0, false) : pow2_code(static_cast<int>((r >> 8) % 18) - 9, (r >> 16) & 1);
        if (n == 0) B[n][k] = pow2_code(0, false);
      }
    for (int r = 0; r < rows; ++r) {
      // A big leading exponent, then terms placed around the window's edges relative to it.
      const int lead = static_cast<int>(rng.next() % 18) - 9;
      for (int k = 0; k < 64; ++k) {
        const std::uint64_t x = rng.next();
        const int kind = static_cast<int>(x % 8);
        int j = lead;
        if (kind == 1) j = lead - 11;                                       // the f16 tie bit of a lead-sized sum
        if (kind == 2) j = lead - 10;                                       // its last kept bit
        if (kind == 3) j = lead - 19 + static_cast<int>((x >> 8) % 3) - 1;  // the product window's edge
        if (kind == 4) j = lead - 15 + static_cast<int>((x >> 8) % 3) - 1;  // the accumulator's window edge
        if (kind == 5) j = -9;                                              // the smallest operand
        j = std::clamp(j, -9, 8);
        e4m3_t code = pow2_code(j, (x >> 12) % 5 == 0);
        if (kind == 6) code = static_cast<e4m3_t>(((x >> 20) & 0x80) | (0x70 + (x >> 24) % 15));  // +-256..448: p1 overflows
        if (kind == 7) code = static_cast<e4m3_t>(((x >> 20) & 0x80) | ((x >> 24) % 127));        // anything
        if (trial % 3 == 2 && kind >= 6) code = 0;                                                // some rows without overflow
        A[r][k] = code;
      }
    }
    std::vector<f16_t> c(static_cast<std::size_t>(rows) * N);
    for (auto& v : c) {
      const std::uint64_t x = rng.next();
      const f16_t specials[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7BFF, 0xFBFF, 0x0001, 0x8001, 0x03FF, 0x3C00};
      v = x % 3 == 0 ? specials[(x >> 8) % 10] : static_cast<f16_t>(x >> 16);
      if ((v & 0x7C00) == 0x7C00 && (v & 0x3FF) != 0) v = 0x7C00;  // NaN C: covered by EveryPathMatchesMmaDot
    }
    expect_gemm_matches_isa_operands(prof, A, B, c, "trial " + std::to_string(trial));
  }
  // Hand-made: 448 * 1 sixteen times in a group (p1 = Inf), the other group -448 sixteen times:
  // Inf stays; with C = -Inf the final add is Inf - Inf = NaN (0x7FFF). And a sum of 2^25+ units
  // exactly on an f16 tie plus or minus one truncation unit.
  std::vector<std::array<e4m3_t, 64>> A(4), B(16);  // gemm's N is a multiple of 16
  for (int k = 0; k < 64; ++k) {
    const bool g0 = ((k >> 1) & 1) == 0;
    A[0][k] = g0 ? 0x7E : 0xFE;
    A[1][k] = 0;
    A[2][k] = 0;
    A[3][k] = 0;
    for (auto& col : B) col[k] = pow2_code(0, false);
  }
  // Row 1, step 0, group 0 (k = 0, 1, 4, 5, 8, ...): 3 * 448 + 0.5 = 1344.5, the f16 tie between
  // 1344 and 1345 (ulp 1 in [1024, 2048)), plus 2^-9 * 2^-8 = 2^-17 in column 1: one unit of
  // q = 2^(8 - 25) above the tie, S = 1344.5 * 2^17 + 1 > 2^24.
  A[1][0] = A[1][1] = A[1][4] = 0x7E;  // 448 each
  A[1][5] = pow2_code(-1, false);      // 0.5: exactly the tie of 1344 + 0.5 at f16 ulp 1
  A[1][8] = pow2_code(-9, false);      // 2^-9, times B = 2^-8 in column 1: 2^-17 = one unit of q = 2^(8 - 25)
  B[1][8] = pow2_code(-8, false);
  A[2] = A[1];
  A[2][8] = pow2_code(-9, true);  // one unit below the tie
  A[3] = A[1];
  A[3][8] = 0;  // exactly on the tie
  std::vector<f16_t> c(4 * 16, 0x0000);
  c[1] = 0xFC00;   // row 0: Inf - Inf in column 1
  c[2] = 0x7C00;   // Inf + Inf
  c[16] = 0x8000;  // -0 + the sums
  c[33] = 0x8000;
  expect_gemm_matches_isa_operands(prof, A, B, c, "hand-made");
}

// The shift sh of a nonzero e4m3 value v = M 2^(sh - 9) (gemm.hpp: AOperand::i16), from the value
// itself: a normal has M in [8, 16), so ilogb(v) = sh - 6; a subnormal has sh = 0.
int shift_of(double v) { return std::max(std::ilogb(v) + 6, 0); }

// `zluda`'s integer form (the AVX512-VNNI kernel's operands) on every path that decodes it, against
// the code table's values: i16 2^(base - 9) = value, l1 / max, and "no int16 form" exactly where
// the nonzero shifts of a k-step span more than 12 values (the band edge: 12 fits, 13 does not).
TEST(EngineGemm, ZludaIntegerFormMatchesTheCodeTable) {
  const engine::CodeTable& t = engine::code_table();
  SplitMix64 rng(5);
  int fits = 0, wide = 0;
  for (engine::SimdPath path : engine::supported_simd_paths())
    for (int trial = 0; trial < 40; ++trial) {
      const int rows = 8, N = 32, K = 64;
      // Rows whose shifts span exactly lo .. lo + w - 1 for w around the edge, or anything.
      std::vector<e4m3_t> a(static_cast<std::size_t>(rows) * K), b(static_cast<std::size_t>(N) * K);
      auto code_in_span = [&](int lo, int w) {
        const std::uint64_t x = rng.next();
        const int sh = lo + static_cast<int>((x >> 8) % static_cast<unsigned>(w));
        const int m = sh == 0 && x % 2 ? static_cast<int>((x >> 16) % 16) : ((sh + 1) << 3) | static_cast<int>((x >> 16) % 8);
        const int mag = m == 0x7F ? 0x7E : m;  // no NaN code
        return static_cast<e4m3_t>(((x >> 24) & 0x80) | mag);
      };
      for (int r = 0; r < rows; ++r)
        for (int s = 0; s < 2; ++s) {
          const int w = 11 + static_cast<int>(rng.next() % 4);  // 11 .. 14
          const int lo = static_cast<int>(rng.next() % static_cast<unsigned>(16 - w));
          for (int k = 0; k < 32; ++k)
            a[static_cast<std::size_t>(r) * K + 32 * s + k] = trial % 4 == 3 ? gen_code(rng, k % 5) : code_in_span(lo, w);
          // pin both ends of the span
          a[static_cast<std::size_t>(r) * K + 32 * s + 3] = static_cast<e4m3_t>(lo == 0 ? 0x08 : (lo + 1) << 3);
          a[static_cast<std::size_t>(r) * K + 32 * s + 7] = static_cast<e4m3_t>(0x80 | ((lo + w) << 3));
        }
      const int wb = 11 + trial % 3, lob = trial % 3;
      for (int n = 0; n < N; ++n)
        for (int k = 0; k < K; ++k) b[static_cast<std::size_t>(n) * K + k] = code_in_span(lob, wb);
      b[5] = static_cast<e4m3_t>((lob + 1) << 3);
      b[K + 6] = static_cast<e4m3_t>((lob + wb) << 3);
      engine::AOperand A;
      engine::BOperand B;
      A.assign(a.data(), rows, K, K, engine::kDecodeInt16 | engine::kDecodeF64, path);
      B.assign_nk(b.data(), N, K, K, engine::kDecodeInt16 | engine::kDecodeF64, path);
      const std::string where = std::string(engine::to_string(path)) + " trial " + std::to_string(trial);
      for (int r = 0; r < rows; ++r)
        for (int s = 0; s < 2; ++s) {
          int lo = 99, hi = -1;
          for (int k = 0; k < 32; ++k) {
            const double v = t.value64[a[static_cast<std::size_t>(r) * K + 32 * s + k]];
            if (v != 0) lo = std::min(lo, shift_of(std::fabs(v))), hi = std::max(hi, shift_of(std::fabs(v)));
          }
          const std::int32_t l1 = A.i16_l1[static_cast<std::size_t>(r) * 2 + s];
          ASSERT_EQ(l1 < 0, hi - lo >= 12) << where << " r " << r << " s " << s;
          if (l1 < 0) {
            ++wide;
            continue;
          }
          ++fits;
          const int base = A.i16_base[static_cast<std::size_t>(r) * 2 + s];
          std::int64_t sum = 0;
          for (int k = 0; k < 32; ++k) {
            const std::size_t i = static_cast<std::size_t>(r) * K + 32 * s + k;
            ASSERT_EQ(std::ldexp(static_cast<double>(A.i16[i]), base - 9), t.value64[a[i]]) << where << " r " << r << " k " << k;
            sum += std::abs(A.i16[i]);
          }
          ASSERT_EQ(sum, l1) << where;
        }
      for (int s = 0; s < 2; ++s) {
        int lo = 99, hi = -1;
        for (int n = 0; n < N; ++n)
          for (int k = 0; k < 32; ++k) {
            const double v = t.value64[b[static_cast<std::size_t>(n) * K + 32 * s + k]];
            if (v != 0) lo = std::min(lo, shift_of(std::fabs(v))), hi = std::max(hi, shift_of(std::fabs(v)));
          }
        ASSERT_EQ(B.i16_max[static_cast<std::size_t>(s)] < 0, hi - lo >= 12) << where << " B step " << s;
        if (B.i16_max[static_cast<std::size_t>(s)] < 0) continue;
        int mx = 0;
        for (int n = 0; n < N; ++n)
          for (int k = 0; k < 32; ++k) {
            const std::int16_t v =
                B.i16[static_cast<std::size_t>(32) * N * s + static_cast<std::size_t>(2) * N * (k >> 1) + 2 * n + (k & 1)];
            ASSERT_EQ(std::ldexp(static_cast<double>(v), B.i16_base[static_cast<std::size_t>(s)] - 9),
                      t.value64[b[static_cast<std::size_t>(n) * K + 32 * s + k]])
                << where << " B n " << n << " k " << k;
            mx = std::max(mx, std::abs(static_cast<int>(v)));
          }
        ASSERT_EQ(mx, B.i16_max[static_cast<std::size_t>(s)]) << where;
      }
    }
  EXPECT_GT(fits, 100);
  EXPECT_GT(wide, 100);
  // The integer form alone (the VNNI path decodes nothing else) still flags NaN codes, also where
  // the NaN's bit pattern would fit the band (0x7F looks like M = 15, sh = 14 next to 448s), and
  // the GEMM then gives mma_dot's NaN.
  for (engine::SimdPath path : engine::supported_simd_paths()) {
    std::vector<e4m3_t> a(4 * 32, 0x7E), b(16 * 32, 0x7A);
    for (int nan_in = 0; nan_in < 3; ++nan_in) {
      std::vector<e4m3_t> aa = a, bb = b;
      if (nan_in == 1) aa[37] = 0x7F;
      if (nan_in == 2) bb[100] = 0xFF;
      engine::AOperand A;
      engine::BOperand B;
      const unsigned forms = engine::decode_for(profile_zluda(), path) | engine::kDecodeInt16;  // the VNNI path's: the form alone
      A.assign(aa.data(), 4, 32, 32, forms, path);
      B.assign_nk(bb.data(), 16, 32, 32, forms, path);
      EXPECT_EQ(A.nan, nan_in == 1) << engine::to_string(path);
      EXPECT_EQ(B.nan, nan_in == 2) << engine::to_string(path);
      std::vector<f16_t> d(4 * 16, 0);
      engine::gemm(profile_zluda(), path, A, 0, B, 0, 1, 4, d.data(), 16);
      for (int r = 0; r < 4; ++r)
        for (int n = 0; n < 16; ++n)
          ASSERT_EQ(d[static_cast<std::size_t>(r) * 16 + n],
                    golden::mma_step(profile_zluda(), &aa[static_cast<std::size_t>(r) * 32], &bb[static_cast<std::size_t>(n) * 32], 0))
              << engine::to_string(path) << " nan_in " << nan_in;
    }
  }
}

// The VNNI `zluda` kernel's edges, every path against mma_step: sums of the same sign whose exact
// integer value is just below and far above 2^31 (the int32 bound l1 max < 2^31 decides the
// binary64 step), spans of 12 and 13 shifts, and the zero signs (C = -0 with every product -0, or
// with a cancellation, or with +0 products).
TEST(EngineGemm, ZludaIntegerBoundsAndZeroSigns) {
  const Profile& prof = profile_zluda();
  std::vector<std::array<e4m3_t, 64>> A(12), B(32);
  // B: every column 32 values 448 (M = 14, sh = 14), except one small value that sets the base
  // (step 0: sh 3, so 448 -> 14 << 11 = 28672 = max; step 1: sh 2, a span of 13: binary64).
  for (int n = 0; n < 32; ++n)
    for (int k = 0; k < 64; ++k) B[n][k] = 0x7E;
  for (int n = 0; n < 32; ++n) B[n][9] = 0x20;
  for (int n = 0; n < 32; ++n) B[n][32 + 9] = 0x18;
  // A rows (the kernel decides per 4-row tile): 0..3 around the int32 bound, 4..7 the zero signs,
  // 8 far above the bound (448 everywhere: l1 max ~ 2^34.7), 9..11 zero.
  for (auto& row : A) row.fill(0);
  // 2^31 / 28672 = 74898.3. Row 0: l1 = 2 x 28672 + 8 x 2048 + 8 = 73736, l1 max < 2^31 (the
  // integer step; its exact sum, ~2.11e9, is just below 2^31 too). Row 1: l1 = 3 x 28672 + 7 x 512
  // + 8 + 9 x 1024 = 98808: the binary64 step, and the exact integer sum (~2.8e9, all terms
  // positive) would wrap in int32. Row 2: row 1 with a negative 448. Row 3: small values.
  for (int k : {0, 1}) A[0][k] = 0x7E;
  for (int k = 2; k < 10; ++k) A[0][k] = 0x60;  // sh 11: 8 << 8 = 2048
  for (int k : {0, 1, 2}) A[1][k] = 0x7E;
  for (int k = 3; k < 10; ++k) A[1][k] = 0x50;   // sh 9: 8 << 6 = 512
  A[0][10] = A[1][10] = 0x20;                    // sh 3: the base 3
  for (int k = 11; k < 20; ++k) A[1][k] = 0x58;  // sh 10: 8 << 7 = 1024
  A[2] = A[1];
  A[2][20] = 0xFE;
  for (int k = 0; k < 64; ++k) A[3][k] = static_cast<e4m3_t>(k % 8);
  // Zero signs: row 4 -0 products on C = -0 (-0), row 5 +1 - 1 on -0 (+0), row 6 +0 products on
  // +-0, row 7 -0 products on +-0 and small C.
  for (int k = 0; k < 64; ++k) A[4][k] = 0x80, A[7][k] = 0x80;
  A[5][0] = 0x38, A[5][1] = 0xB8;
  for (int k = 0; k < 64; ++k) A[8][k] = 0x7E;
  A[8][9] = 0x20;
  std::vector<f16_t> c(12 * 32, 0x0000);
  for (int n = 0; n < 32; ++n) {
    c[4 * 32 + n] = 0x8000;
    c[5 * 32 + n] = 0x8000;
    c[6 * 32 + n] = n % 2 ? 0x8000 : 0x0000;
    c[7 * 32 + n] = static_cast<f16_t>(n % 3 == 0 ? 0x8000 : n % 3 == 1 ? 0x0000 : 0x8001 + n);
  }
  expect_gemm_matches_isa_operands(prof, A, B, c, "bounds");
}

// `blackwell`'s kernel against mma_dot on the operands its proof is about (kernels_blackwell_impl.hpp):
// 32 products of 1.875^2 at the block maximum (a truncated sum near 2^32 units of q, more than one
// int32 holds, for a result of 112.5 that f16 holds), halves that cancel, one large product over
// tiny ones (truncation below the 25-bit window), a subnormal operand in the largest product, C
// setting the maximum, f16 ties, overflow, and special C values. Every path, 4 chained k-steps.
TEST(EngineGemm, BlackwellAdversarialOperands) {
  const int rows = 13, N = 48, K = 128;
  SplitMix64 rng(5090);
  std::vector<e4m3_t> a(static_cast<std::size_t>(rows) * K), b(static_cast<std::size_t>(N) * K);
  auto pick = [&](std::initializer_list<e4m3_t> v) { return *(v.begin() + rng.next() % v.size()); };
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < K; ++k) {
      e4m3_t& x = a[static_cast<std::size_t>(r) * K + k];
      const int kk = k % 32;
      switch (r % 7) {
        case 0: x = r == 0 ? e4m3_t{0x3F} : pick({0x3F, 0x3F, 0xBF}); break;               // 1.875 (sum past int32)
        case 1: x = kk == 5 ? 0x77 : pick({0x01, 0x02, 0x81, 0x08}); break;                // one large, tiny rest
        case 2: x = kk < 16 ? pick({0x40, 0x48, 0x3C}) : pick({0xC0, 0xC8, 0xBC}); break;  // halves cancel
        case 3: x = kk == 0 ? 0x01 : pick({0x08, 0x00, 0x04}); break;                      // subnormal in the largest product
        case 4: x = pick({0x7E, 0xFE, 0x7D}); break;                                       // overflow
        case 5: x = pick({0x00, 0x80, 0x20, 0x10}); break;                                 // small: C sets the maximum
        default:
          x = static_cast<e4m3_t>(rng.next() % 256);
          if ((x & 0x7F) == 0x7F) x = 0x38;
          break;
      }
    }
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      b[static_cast<std::size_t>(n) * K + k] = n % 3 == 0   ? e4m3_t{0x3F}
                                               : n % 3 == 1 ? pick({0x7E, 0x38, 0x3F, 0xB8})
                                                            : static_cast<e4m3_t>(pick({0x38, 0x40, 0x01, 0x30}) | (rng.next() & 0x80));
  std::vector<f16_t> c(static_cast<std::size_t>(rows) * N);
  for (auto& v : c) {
    const f16_t s[] = {0x0000, 0x8000, 0x6C00, 0x7BFF, 0xFBFF, 0x0001, 0x7C00, 0xFC00, 0x7E00, 0x5C01, 0x3C00};
    v = s[rng.next() % 11];
  }
  const Profile& prof = profile_blackwell();
  int checked = 0;
  for (engine::SimdPath path : engine::supported_simd_paths()) {
    engine::AOperand A;
    engine::BOperand B;
    A.assign(a.data(), rows, K, K, engine::decode_for(prof, path), path);
    B.assign_nk(b.data(), N, K, K, engine::decode_for(prof, path), path);
    std::vector<f16_t> d = c;
    engine::gemm(prof, path, A, 0, B, 0, K / 32, rows, d.data(), N);
    for (int r = 0; r < rows; ++r)
      for (int n = 0; n < N; ++n) {
        f16_t want = c[static_cast<std::size_t>(r) * N + n];
        for (int s = 0; s < K / 32; ++s)
          want = golden::mma_step(prof, &a[static_cast<std::size_t>(r) * K + 32 * s], &b[static_cast<std::size_t>(n) * K + 32 * s], want);
        ASSERT_EQ(d[static_cast<std::size_t>(r) * N + n], want) << engine::to_string(path) << " r " << r << " n " << n;
        ++checked;
      }
  }
  // not vacuous: row 0 x column 0 is 32 x 1.875^2 = 112.5 (0x5708) per k-step, whose truncated
  // sum (32 x 225 x 2^19 units of q = 2^-25) is past what one int32 holds
  EXPECT_EQ(golden::mma_step(prof, a.data(), b.data(), 0x0000), 0x5708);
  EXPECT_EQ(checked, static_cast<int>(engine::supported_simd_paths().size()) * rows * N);
}

// The window check of the avx2 path's integer `blackwell` kernel (kernels_blackwell_int16_avx2_impl.hpp):
// three sums on an f16 tie at 1024.5 (0x6400 by RNE) plus a sliver that the model truncates away,
// so that a kernel summing exactly where the model truncates gives 0x6401, each one past its
// bound by one: the span check (spans 10 + 10 = 20; a product of E = -10 = maxE - 20), the lower
// bound on C (C of E(C) = -6 = maxE - 16, the spans 11 + 5 within 19: P = 10 = max(f, 1) + 1) and
// the upper bound (C = 1024 sets maxE = 10 above the products, bases 1 + 1: f = 25 = 1 + 1 + 22 + 1).
// Each on 8 rows (tiles of 6 and 2) and 16 columns, signs mixed.
TEST(EngineGemm, BlackwellWindowChecksOfTheIntegerPath) {
  const Profile& prof = profile_blackwell();
  struct Case {
    const char* what;
    std::vector<e4m3_t> a, b;
    f16_t c;
  };
  const Case cases[] = {
      {"product below the window", {0x60, 0x30, 0x90, 0x11}, {0x60, 0x38, 0x12, 0x11}, 0x0000},  // 1024 + 0.5 - 40 q + 40.5 q (q = 2^-15)
      {"C below the window", {0x60, 0x30, 0x88}, {0x60, 0x38, 0x38}, 0x2401},                    // 1024 + 0.5 - 2^-6 + 2^-6 (1 + 2^-10)
      {"C above the products", {0x30, 0x90, 0x11}, {0x38, 0x12, 0x11}, 0x6400},                  // 1024 + 0.5 - 40 q + 40.5 q
  };
  for (const Case& t : cases) {
    std::array<e4m3_t, 32> a{}, b{};
    std::copy(t.a.begin(), t.a.end(), a.begin());
    std::copy(t.b.begin(), t.b.end(), b.begin());
    ASSERT_EQ(golden::mma_step(prof, a.data(), b.data(), t.c), 0x6400) << t.what;  // the premise: the model truncates
    std::vector<std::array<e4m3_t, 64>> A(8), B(16);
    for (int r = 0; r < 8; ++r) {
      A[r].fill(0);
      for (int k = 0; k < 32; ++k) A[r][k] = static_cast<e4m3_t>(a[k] ^ (a[k] && r % 3 == 1 ? 0x80 : 0));  // -sum: the tie mirrored
    }
    for (int n = 0; n < 16; ++n) {
      B[n].fill(0);
      for (int k = 0; k < 32; ++k) B[n][k] = b[k];
    }
    std::vector<f16_t> c(8 * 16);
    for (int r = 0; r < 8; ++r)
      for (int n = 0; n < 16; ++n) c[r * 16 + n] = static_cast<f16_t>(t.c ^ (t.c && r % 3 == 1 ? 0x8000 : 0));
    expect_gemm_matches_isa_operands(prof, A, B, c, t.what);
  }
}

// e4m3 code of +-(8 + f) 2^(j - 3) (a normal, -6 <= j <= 8, 0 <= f <= 7, not the NaN 0x7F), or
// of the subnormal +-m 2^-9 (j < -6: m = max(1, f)).
e4m3_t ada_code(int j, int f, bool neg) {
  const int m = j >= -6 ? ((j + 7) << 3) | f : std::max(1, f & 7);
  return static_cast<e4m3_t>((neg ? 0x80 : 0) | (m == 0x7F ? 0x7E : m));
}

// `ada`'s window edges (numerics.md `ada`; kernels_impl.hpp; docs/performance.md "ada"): per half,
// q = 2^(maxE - 13), a product ma mb 2^(E - 6) is exact for E >= maxE - 7, loses its low bits for
// maxE - 14 <= E <= maxE - 8 (when ma mb is odd at maxE - 8; only ma mb >= 128 survives at
// maxE - 14) and vanishes below; the accumulator is exact for E(acc) >= maxE - 3. The operands are
// built in the ISA k order around those edges (odd mantissas, both signs, +-0, subnormals), each
// row with its own lead and each column with its own exponents, so that the elements of one
// kernel tile have different windows; C takes every special value. Every path's gemm against
// numerics' mma_dot itself (src/numerics/mma.cpp: independent of the engine), 2 chained k-steps.
TEST(EngineGemm, AdaWindowEdgesZeroSignsAndOverflow) {
  const Profile& prof = profile_ada();
  const int rows = 13, N = 48, K = 64;
  SplitMix64 rng(4090);
  std::vector<std::array<e4m3_t, 64>> A(rows), B(N);  // ISA k order
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) {
      const std::uint64_t x = rng.next();
      // column 0: +1; others mostly +-1 with odd mantissas, some exponents -3..3, zeros, subnormals
      int kind = static_cast<int>(x % 10);
      if (n == 0) kind = 0;
      e4m3_t code = 0x38;
      if (kind >= 1 && kind <= 5) code = ada_code(0, static_cast<int>((x >> 8) % 8) | 1, (x >> 12) & 1);
      if (kind == 6 || kind == 7) code = ada_code(static_cast<int>((x >> 16) % 7) - 3, static_cast<int>((x >> 8) % 8), (x >> 12) & 1);
      if (kind == 8) code = (x >> 12) & 1 ? 0x80 : 0x00;
      if (kind == 9) code = ada_code(-7, static_cast<int>((x >> 8) % 8), (x >> 12) & 1);
      B[n][k] = code;
    }
  for (int r = 0; r < rows; ++r)
    for (int half = 0; half < 4; ++half) {
      // A lead at k = 16 half + (some position), the other terms placed at the window's edges below it.
      const int lead = r == 12 ? 8 : static_cast<int>(rng.next() % 11) - 2;  // row 12: overflow
      const int at = static_cast<int>(rng.next() % 16);
      for (int j = 0; j < 16; ++j) {
        const std::uint64_t x = rng.next();
        const bool neg = (x >> 20) & 1;
        const int f = static_cast<int>((x >> 8) % 4) * 2 + 1;  // odd mantissa 9, 11, 13, 15
        static constexpr int kBelow[] = {0, 1, 3, 4, 7, 8, 8, 13, 14, 14, 15, 16};
        int d = kBelow[(x >> 24) % 12];
        e4m3_t code = ada_code(lead - d, f, neg);
        if ((x >> 32) % 9 == 0) code = (x >> 40) & 1 ? 0x80 : 0x00;                         // +-0
        if ((x >> 32) % 9 == 1) code = ada_code(-7, static_cast<int>((x >> 44) % 8), neg);  // subnormal
        if (j == at) code = ada_code(lead, f, (x >> 48) & 1);
        if (r == 12) code = ada_code(8, 6, false);  // 16 x 448 x b: overflow
        if (r == 11) code = 0x80;                   // -0 only: -0 with a -0 C and +b only (column 0), +0 or C elsewhere
        A[r][16 * half + j] = code;
      }
    }
  // Row 0 x column 0, first half (hand-computed, the reference's own check below): 1 x 1, then
  // fifteen (15 x 2^-7)^2 = 225 2^-14, each 112.5 q (q = 2^-13) truncated to 112 q: the sum is
  // 1 + 1680 2^-13 = 1 + 210 2^-10, f16 0x3CD2 (the exact sum, 1 + 210.9375 2^-10, would round to
  // 0x3CD3). The second half is zero (acc alone, exact).
  for (int k = 0; k < 32; ++k) A[0][k] = B[0][k] = k == 0 ? 0x38 : k < 16 ? ada_code(-4, 7, false) : 0x00;
  std::vector<f16_t> c(static_cast<std::size_t>(rows) * N);
  for (auto& v : c) {
    const std::uint64_t x = rng.next();
    const f16_t specials[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE01, 0x7BFF, 0xFBFF, 0x0001, 0x8001, 0x03FF, 0x3C00, 0x4A01};
    v = x % 3 == 0 ? specials[(x >> 8) % 13] : static_cast<f16_t>(x >> 16);
  }
  c[0] = 0x0000;
  c[static_cast<std::size_t>(11) * N] = 0x8000;  // row 11 x column 0 (+1): -0 + (+0 or -0 products)
  // the reference itself on the hand-computed element
  EXPECT_EQ(mma_dot(prof, A[0].data(), B[0].data(), 0x0000), 0x3CD2);
  // ISA order -> the logical (pair) order gemm() takes
  const int* isa = layout::isa_k_of_pair_k().data();
  std::vector<e4m3_t> a(static_cast<std::size_t>(rows) * K), b(static_cast<std::size_t>(N) * K);
  for (int s = 0; s < 2; ++s)
    for (int kp = 0; kp < 32; ++kp) {
      for (int r = 0; r < rows; ++r) a[static_cast<std::size_t>(r) * K + 32 * s + kp] = A[r][32 * s + isa[kp]];
      for (int n = 0; n < N; ++n) b[static_cast<std::size_t>(n) * K + 32 * s + kp] = B[n][32 * s + isa[kp]];
    }
  std::vector<f16_t> want(c.size());
  int truncated = 0, overflow = 0, negative_zero = 0;
  for (int r = 0; r < rows; ++r)
    for (int n = 0; n < N; ++n) {
      f16_t w = c[static_cast<std::size_t>(r) * N + n];
      for (int s = 0; s < 2; ++s) {
        const f16_t before = w;
        w = mma_dot(prof, A[r].data() + 32 * s, B[n].data() + 32 * s, w);
        // not vacuous: the model's result differs from zluda's exact sum (same operands) here
        truncated += (w & 0x7FFF) <= 0x7C00 && w != mma_dot(profile_zluda(), A[r].data() + 32 * s, B[n].data() + 32 * s, before);
      }
      overflow += (w & 0x7FFF) == 0x7C00;
      negative_zero += w == 0x8000;
      want[static_cast<std::size_t>(r) * N + n] = w;
    }
  EXPECT_GT(truncated, rows * N / 8);
  EXPECT_GT(overflow, 0);
  EXPECT_GT(negative_zero, 0);
  for (engine::SimdPath path : engine::supported_simd_paths()) {
    engine::AOperand ao;
    engine::BOperand bo;
    ao.assign(a.data(), rows, K, K, engine::decode_for(prof, path), path);
    bo.assign_nk(b.data(), N, K, K, engine::decode_for(prof, path), path);
    std::vector<f16_t> d = c;
    engine::gemm(prof, path, ao, 0, bo, 0, 2, rows, d.data(), N);
    for (int r = 0; r < rows; ++r)
      for (int n = 0; n < N; ++n)
        ASSERT_EQ(d[static_cast<std::size_t>(r) * N + n], want[static_cast<std::size_t>(r) * N + n])
            << engine::to_string(path) << " r " << r << " n " << n;
  }
}

// ---- 3. whole frames ---------------------------------------------------------------------------

struct Output {
  std::vector<std::uint8_t> arena;
  std::vector<std::uint8_t> surface;
  golden::LayerStats stats;
};

struct FrameCase {
  const SyntheticFrame* frame;
  const WeightImage* weights;
  const Profile* profile;
  Readings readings;
  std::uint16_t ox = 0, oy = 0;
};

Output run(const FrameCase& c, Engine engine, std::string_view simd, int threads, bool with_stats = true) {
  Output o;
  o.arena.assign(c.frame->input_arena.size(), 0xA5);
  Surface s = Surface::make(c.frame->ex, c.frame->ey);
  std::fill(s.bytes.begin(), s.bytes.end(), 0x5A);
  LaunchParams p = frame_launch(static_cast<std::uint32_t>(c.frame->ex), static_cast<std::uint32_t>(c.frame->ey), c.frame->input_arena,
                                *c.weights, o.arena, c.frame->texture, s);
  p.block_offset_x = c.ox;
  p.block_offset_y = c.oy;
  RunOptions opt;
  opt.profile = c.profile;
  opt.readings = c.readings;
  opt.engine = engine;
  opt.simd = simd;
  opt.threads = threads;
  opt.stats = with_stats ? &o.stats : nullptr;
  run_frame(p, opt);
  o.surface = std::move(s.bytes);
  return o;
}

void expect_same(const Output& a, const Output& b, const std::string& what) {
  EXPECT_EQ(a.arena, b.arena) << what;
  EXPECT_EQ(a.surface, b.surface) << what;
  EXPECT_EQ(std::memcmp(&a.stats, &b.stats, sizeof a.stats), 0) << what;
}

// The SIMD paths a frame test runs: every supported one, for every profile (avx512vnni differs
// from avx512 in `zluda`'s kernel and, for every profile, in E11 and the q8 loops: engine/block.cpp
// Quantiser, kernels_avx512vnni.cpp).
std::vector<engine::SimdPath> frame_paths(const Profile*) { return engine::supported_simd_paths(); }

// Golden once, fast on every SIMD path (threads 1..3 on the widest path).
int compare_all_paths(const FrameCase& c, const std::string& what) {
  const Output want = run(c, Engine::golden, {}, 2);
  int runs = 0;
  for (engine::SimdPath path : frame_paths(c.profile)) {
    const std::string name(engine::to_string(path));
    expect_same(want, run(c, Engine::fast, name, 1), what + " simd " + name);
    // Without statistics the engine takes other loops (engine/block.cpp Quantiser: no counts, the
    // vector q8 of the avx512vnni path): the same bytes.
    const Output bare = run(c, Engine::fast, name, 1, false);
    EXPECT_EQ(want.arena, bare.arena) << what << " simd " << name << " without statistics";
    EXPECT_EQ(want.surface, bare.surface) << what << " simd " << name << " without statistics";
    runs += 2;
  }
  if (!small_scale())
    for (int threads : {2, 3}) {
      expect_same(want, run(c, Engine::fast, {}, threads), what + " threads " + std::to_string(threads));
      ++runs;
    }
  return runs;
}

TEST(EngineFrame, RandomWeightsAndInputsOddExtentsAndOffsets) {
  struct Geo {
    int ex, ey;
    std::uint16_t ox, oy;
  };
  // Odd extents, negative block offsets, frames smaller than a block, several blocks.
  const Geo geos[] = {{13, 9, 0, 0}, {5, 3, 0, 0}, {1, 1, 7, 7}, {9, 11, 3, 5}, {16, 8, 2, 0}};
  int runs = 0;
  const int seeds = small_scale() ? 2 : 6;
  for (int seed = 0; seed < seeds; ++seed) {
    const bool stress = seed % 2 == 1;
    const WeightImage w = make_synthetic_weights({.seed = static_cast<std::uint64_t>(100 + seed), .stress = stress});
    const Geo& g = geos[seed % 5];
    const SyntheticFrame f = make_synthetic_frame(g.ex, g.ey, 200 + seed, stress);
    for (const Profile* prof : all_profiles()) {
      FrameCase c{&f, &w, prof, {}, g.ox, g.oy};
      runs += compare_all_paths(c, "seed " + std::to_string(seed) + " " + std::string(prof->name) + " " + std::to_string(g.ex) + "x" +
                                       std::to_string(g.ey) + "+" + std::to_string(g.ox) + "," + std::to_string(g.oy));
    }
  }
  std::printf("frame differential: %d fast runs\n", runs);
}

TEST(EngineFrame, EveryValueOfEveryReading) {
  // One block with a negative offset over a frame smaller than a block (every border rule acts),
  // stress assets (every nonlinear branch), both profiles, every value of every reading.
  const SyntheticFrame f = make_synthetic_frame(7, 6, 31, true);
  const WeightImage w = make_synthetic_weights({.seed = 9, .stress = true});
  int runs = 0;
  for (const ReadingInfo& info : reading_registry()) {
    if (is_instruction_reading(info.name)) continue;  // the mma corners: EngineFrame.MmaCornerReadings
    for (const std::string& value : info.values)
      for (const Profile* prof : all_profiles()) {
        if (small_scale() && prof == &profile_zluda() && value == info.default_value) continue;
        // hopper differs from ada only inside gemm(): the defaults, and (full scale) the first
        // non-default value of each reading.
        // The same for blackwell.
        const bool gemm_only = prof == &profile_hopper() || prof == &profile_blackwell();
        if (gemm_only && value != info.default_value && (small_scale() || value != info.values[1])) continue;
        if (gemm_only && value == info.default_value && &info != &reading_registry().front()) continue;
        Readings rd;
        std::string err;
        ASSERT_TRUE(set_reading(rd, info.name, value, &err)) << err;
        FrameCase c{&f, &w, prof, rd, 1, 2};
        const Output want = run(c, Engine::golden, {}, 1);
        for (engine::SimdPath path : frame_paths(prof)) {
          // Under the sanitizers' small scale (RRSWIN_TEST_SCALE=small): ada on every SIMD path, the
          // other profiles on the widest. Every value of every reading still runs on every path
          // (ada's) and under both profiles; zluda's kernels on every path run under the sanitizers
          // in RandomWeightsAndInputsOddExtentsAndOffsets and NaNCodesInWeightsAndInputs. The
          // release suite runs every profile on every path.
          if (small_scale() && prof != &profile_ada() && path != engine::best_simd_path()) continue;
          const std::string name(engine::to_string(path));
          expect_same(want, run(c, Engine::fast, name, 1), info.name + "=" + value + " " + std::string(prof->name) + " " + name);
          ++runs;
        }
      }
  }
  std::printf("reading differential: %d fast runs\n", runs);
}

TEST(EngineFrame, MmaCornerReadings) {
  // The mma-* readings (docs/readings.md §3) on a frame whose weights hold NaN codes, every
  // profile: the values that differ from the kernels' defaults run gemm()'s element-wise path.
  std::vector<std::uint8_t> bytes(default_weights().bytes().begin(), default_weights().bytes().end());
  for (std::uint32_t off : {wmap::wq(1) + 5, wmap::w1(2) + 300, wmap::w2(3) + 77}) bytes[off] = (off & 1) ? 0xFF : 0x7F;
  const WeightImage w(bytes);
  const SyntheticFrame f = make_synthetic_frame(7, 6, 32, true);
  int runs = 0;
  for (const char* assignment :
       {"mma-zero-sign=plus", "mma-nan-operand=nonzero-partner", "mma-nan-payload=quiet-c", "mma-overflow=saturate", "mma-zero-sign=ieee"})
    for (const Profile* prof : all_profiles()) {
      Readings rd;
      std::string err;
      ASSERT_TRUE(set_reading(rd, assignment, &err)) << err;
      FrameCase c{&f, &w, prof, rd, 1, 2};
      expect_same(run(c, Engine::golden, {}, 1), run(c, Engine::fast, {}, 1), std::string(assignment) + " " + std::string(prof->name));
      ++runs;
    }
  std::printf("mma corner readings: %d fast runs\n", runs);
}

TEST(EngineFrame, NaNCodesInWeightsAndInputs) {
  // Weight files and input arenas can hold 0x7F / 0xFF: the engine must treat them as golden does.
  std::vector<std::uint8_t> bytes(default_weights().bytes().begin(), default_weights().bytes().end());
  for (std::uint32_t off : {wmap::wq(0) + 17, wmap::wv(3) + 900, wmap::wo(5) + 33, wmap::w1(4) + 100, wmap::w2(7) + 2000, wmap::w61 + 5})
    bytes[off] = (off & 1) ? 0xFF : 0x7F;
  const WeightImage w(bytes);
  SyntheticFrame f = make_synthetic_frame(11, 9, 5, false);
  for (std::size_t i = 3; i < f.input_arena.size(); i += 997) f.input_arena[i] = (i & 1) ? 0x7F : 0xFF;
  for (const Profile* prof : all_profiles()) {
    compare_all_paths({&f, &w, prof, {}, 0, 0}, std::string("NaN codes ") + std::string(prof->name));
    compare_all_paths({&f, &default_weights(), prof, {}, 0, 0}, std::string("NaN inputs ") + std::string(prof->name));
  }
}

TEST(EngineFrame, TracedBlockFallsBackToGolden) {
  const SyntheticFrame f = make_synthetic_frame(16, 9, 3, false);
  TraceRequest req;
  req.stages = {"all"};
  req.block_x = 1;
  req.block_y = 0;
  Trace tg, tf;
  auto go = [&](Engine e, Trace* t) {
    std::vector<std::uint8_t> arena(f.input_arena.size());
    Surface s = Surface::make(f.ex, f.ey);
    LaunchParams p = frame_launch(16, 9, f.input_arena, default_weights(), arena, f.texture, s);
    RunOptions o;
    o.engine = e;
    o.trace = t ? &req : nullptr;
    o.trace_out = t;
    run_frame(p, o);
    return std::make_pair(arena, s.bytes);
  };
  // The traced block runs the golden model in both engines, so comparing the two traces would
  // compare golden with golden. What can fail: the traced fast run (golden for block (1, 0), fast
  // for the others) gives the bytes of the untraced fast run (fast everywhere) and of golden, and
  // the trace is recorded.
  const auto a = go(Engine::golden, &tg);
  const auto b = go(Engine::fast, &tf);
  const auto c = go(Engine::fast, nullptr);
  EXPECT_EQ(a, b);
  EXPECT_EQ(c, b);
  EXPECT_FALSE(tf.stages.empty());
  EXPECT_EQ(tf.block_x, 1);
  EXPECT_EQ(tf.block_y, 0);
}

TEST(EngineSimd, ForcedPathsAndValidation) {
  EXPECT_TRUE(engine::simd_supported(engine::SimdPath::scalar));
  EXPECT_EQ(engine::parse_simd_path("avx2"), engine::SimdPath::avx2);
  EXPECT_FALSE(engine::parse_simd_path("sse9").has_value());
  const SyntheticFrame f = make_synthetic_frame(4, 4, 1, false);
  FrameCase c{&f, &default_weights(), nullptr, {}, 0, 0};
  EXPECT_THROW(run(c, Engine::fast, "sse9", 1), std::invalid_argument);
  setenv("RRSWIN_SIMD", "scalar", 1);
  EXPECT_EQ(engine::default_simd_path(), engine::SimdPath::scalar);
  // RRSWIN_SIMD=avx512 turns the VNNI path off; it exists only where the CPU has the instructions
  // (checked here with the compiler's CPU model, independent of simd.cpp's CPUID reading).
  setenv("RRSWIN_SIMD", "avx512", 1);
  EXPECT_LE(static_cast<int>(engine::default_simd_path()), static_cast<int>(engine::SimdPath::avx512));
  unsetenv("RRSWIN_SIMD");
  EXPECT_EQ(engine::parse_simd_path("avx512vnni"), engine::SimdPath::avx512vnni);
  if (engine::simd_supported(engine::SimdPath::avx512vnni)) {
    EXPECT_TRUE(__builtin_cpu_supports("avx512vnni"));
    EXPECT_TRUE(engine::simd_supported(engine::SimdPath::avx512));
    // Its GEMM kernels are avx512's except `zluda`'s and `ada`'s; E11 is its own (two rows per register).
    const engine::KernelSet v = engine::kernels(engine::SimdPath::avx512vnni), w = engine::kernels(engine::SimdPath::avx512);
    EXPECT_NE(v.ada, w.ada);
    EXPECT_EQ(v.hopper, w.hopper);
    EXPECT_EQ(v.blackwell, w.blackwell);
    EXPECT_EQ(v.decode_run, w.decode_run);
    EXPECT_NE(v.zluda, w.zluda);
    EXPECT_NE(v.e11_rows, w.e11_rows);
  } else {
    EXPECT_FALSE(__builtin_cpu_supports("avx512vnni") && engine::simd_supported(engine::SimdPath::avx512));
  }
  unsetenv("RRSWIN_SIMD");
  EXPECT_EQ(engine::default_simd_path(), engine::best_simd_path());
}

}  // namespace
}  // namespace rrswin
