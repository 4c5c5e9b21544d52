// E61 steps 4..6 in vector arithmetic (engine/kernels_avx512vnni.cpp e61_pixels_avx512: the one
// definition model/e61_pixel_impl.hpp on 16 AVX-512 lanes; engine/e61_avx2_impl.hpp
// e61_pixels_avx2: on 8 AVX2 lanes) against golden::e61_pixel (the same definition on
// src/numerics), and their hand-written roundings against src/numerics:
//  * the binary64 -> f16 rounding against f64_to_f16 (round_detail.hpp's exact 128-bit rule, an
//    independent code path) on every binade from below 2^-26 to above 2^17, the f16 midpoints
//    and their binary64 neighbours, ties to even, the overflow threshold 65520, zeros, Inf;
//  * fma.rn.f16 against f16_fma (itself tested against an exact integer oracle, f16_test.cpp) on
//    every a with b = 1 (every f16 sum, ties included) against c of every binade, on products
//    whose exact cancellation gives +-0, on every exponent difference, and on random patterns
//    (NaN, Inf, subnormals).
// And the vector add.ftz.f32 (and the avx2 mul.ftz.f32) against add_ftz_f32 (mul_ftz_f32). Each
// test runs every vector form the CPU has (avx512vnni, avx2) and is skipped only where it has none.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "assets/synthetic_inputs.hpp"
#include "engine/kernel_args.hpp"
#include "engine/simd.hpp"
#include "model/decoder_final.hpp"
#include "model/layer.hpp"
#include "model/layer_golden.hpp"
#include "model/readings.hpp"
#include "numerics/approx.hpp"
#include "numerics/f16.hpp"

namespace rrswin {
namespace {

// One vector form of the operations under test; the 16-lane add.ftz of avx2 is two 8-lane calls.
struct Form {
  const char* name;
  void (*f64_to_f16_x8)(const double*, f16_t*);
  void (*fma_x8)(const f16_t*, const f16_t*, const f16_t*, f16_t*);
  void (*add_ftz_x16)(const float*, const float*, float*);
  void (*mul_ftz_x16)(const float*, const float*, float*);  // null: none (the AVX-512 form calls mul_ftz_f32 per lane)
  golden::E61PixelsFn pixels;
  golden::DecoderPixelsFn decoder_pixels;  // the decoders' steps (c)..(h): softmax over 9, tap chains, gate, blend
};
void add_ftz_x16_avx2(const float* a, const float* b, float* r) {
  engine::add_ftz_x8_avx2(a, b, r);
  engine::add_ftz_x8_avx2(a + 8, b + 8, r + 8);
}
void mul_ftz_x16_avx2(const float* a, const float* b, float* r) {
  engine::mul_ftz_x8_avx2(a, b, r);
  engine::mul_ftz_x8_avx2(a + 8, b + 8, r + 8);
}
// Every vector form this CPU can run.
std::vector<Form> forms() {
  std::vector<Form> f;
  if (engine::simd_supported(engine::SimdPath::avx512vnni))
    f.push_back({"avx512vnni", engine::f64_to_f16_x8_avx512, engine::f16_fma_x8_avx512, engine::add_ftz_x16_avx512, nullptr,
                 engine::e61_pixels_avx512, engine::decoder_pixels_avx512});
  if (engine::simd_supported(engine::SimdPath::avx2))
    f.push_back({"avx2", engine::f64_to_f16_x8_avx2, engine::f16_fma_x8_avx2, add_ftz_x16_avx2, mul_ftz_x16_avx2, engine::e61_pixels_avx2,
                 engine::decoder_pixels_avx2});
  return f;
}
#define SKIP_WITHOUT_FORMS() \
  if (forms().empty()) GTEST_SKIP() << "no AVX2 or AVX512-VNNI on this CPU"

void expect_f64_rounding(const Form& form, const std::vector<double>& xs) {
  for (std::size_t i = 0; i < xs.size(); i += 8) {
    double x[8];
    for (int k = 0; k < 8; ++k) x[k] = xs[std::min(i + k, xs.size() - 1)];
    f16_t r[8];
    form.f64_to_f16_x8(x, r);
    for (int k = 0; k < 8; ++k) ASSERT_EQ(r[k], f64_to_f16(x[k])) << form.name << " " << std::hexfloat << x[k];
  }
}

TEST(EngineE61, F64ToF16EqualsNumerics) {
  SKIP_WITHOUT_FORMS();
  std::vector<double> xs = {0.0,       -0.0,    INFINITY,          -INFINITY,
                            NAN,       65504.0, 65519.99999999999, 65520.0,
                            0x1p16,    0x1p-24, 0x1p-25,           0x1.0000000000001p-25,
                            0x1.8p-24, 0x1p-14, 0x1.ff8p-15,       0x1.ffcp-15,
                            0x1p-1074, 0x1p1023};
  // Every f16 value's upper midpoint, and the binary64 values next to it on both sides.
  for (std::uint32_t h = 0; h < 0x7C00; ++h) {
    const double v = f16_to_f64(static_cast<f16_t>(h)), next = f16_to_f64(static_cast<f16_t>(h + 1));
    const double mid = (v + next) / 2;  // exact: both are multiples of 2^-25 within 2^17
    for (double s : {1.0, -1.0}) {
      xs.push_back(s * mid);
      xs.push_back(s * std::nextafter(mid, 0.0));
      xs.push_back(s * std::nextafter(mid, INFINITY));
      xs.push_back(s * v);
    }
  }
  SplitMix64 rng(61);
  for (int e = -1074; e <= 1023; ++e)  // every binade (the f16 range and far outside it) with random mantissas
    for (int k = 0; k < (e > -40 && e < 20 ? 2000 : 8); ++k) {
      const std::uint64_t r = rng.next();
      const double m = 1.0 + static_cast<double>(r >> 12) * 0x1p-52;
      xs.push_back(((r & 1) ? -1 : 1) * std::ldexp(m, e));
    }
  for (const Form& form : forms()) expect_f64_rounding(form, xs);
}

// add.ftz.f32: every pair of 40 special binary32 values (zeros, the subnormal range's ends,
// 2^-126 and its neighbours, sums that cancel into the subnormal range, FLT_MAX, Inf, NaN, both
// signs) and 2 M random pairs (random patterns, and pairs of nearby magnitudes), bit for bit; and
// mul.ftz.f32 on the same pairs where the form has a vector one.
TEST(EngineE61, AddFtzEqualsNumerics) {
  SKIP_WITHOUT_FORMS();
  std::vector<float> sp;
  for (std::uint32_t b :
       {0x00000000u, 0x00000001u, 0x007FFFFFu, 0x00800000u, 0x00800001u, 0x00C00000u, 0x01000000u, 0x3F800000u, 0x3F800001u, 0x7F7FFFFFu,
        0x7F800000u, 0x7FC00000u, 0x7F800001u, 0x7FFFFFFFu, 0x33800000u, 0x4B000000u, 0x00400000u, 0x01800000u, 0x00FFFFFFu, 0x7F000000u})
    for (std::uint32_t s : {0u, 0x80000000u}) sp.push_back(std::bit_cast<float>(b | s));
  std::vector<float> as, bs;
  for (float a : sp)
    for (float b : sp) as.push_back(a), bs.push_back(b);
  SplitMix64 rng(3061);
  for (int k = 0; k < 2000000; ++k) {
    const std::uint64_t r = rng.next();
    const auto a = static_cast<std::uint32_t>(r);
    as.push_back(std::bit_cast<float>(a));
    bs.push_back(std::bit_cast<float>(k % 2 ? static_cast<std::uint32_t>(r >> 32)
                                            : (a ^ 0x80000000u) + static_cast<std::uint32_t>((r >> 32) % 64) - 32));
  }
  while (as.size() % 16) as.push_back(0), bs.push_back(0);
  for (const Form& form : forms())
    for (std::size_t i = 0; i < as.size(); i += 16) {
      float r[16];
      form.add_ftz_x16(&as[i], &bs[i], r);
      for (int k = 0; k < 16; ++k)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(r[k]), std::bit_cast<std::uint32_t>(add_ftz_f32(as[i + k], bs[i + k])))
            << form.name << " " << std::hexfloat << as[i + k] << " + " << bs[i + k];
      if (!form.mul_ftz_x16) continue;
      form.mul_ftz_x16(&as[i], &bs[i], r);
      for (int k = 0; k < 16; ++k)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(r[k]), std::bit_cast<std::uint32_t>(mul_ftz_f32(as[i + k], bs[i + k])))
            << form.name << " " << std::hexfloat << as[i + k] << " * " << bs[i + k];
    }
}

struct Triple {
  f16_t a, b, c;
};

void expect_fma(const Form& form, const std::vector<Triple>& ts) {
  for (std::size_t i = 0; i < ts.size(); i += 8) {
    f16_t a[8], b[8], c[8], r[8];
    for (int k = 0; k < 8; ++k) {
      const Triple& t = ts[std::min(i + k, ts.size() - 1)];
      a[k] = t.a, b[k] = t.b, c[k] = t.c;
    }
    form.fma_x8(a, b, c, r);
    for (int k = 0; k < 8; ++k)
      ASSERT_EQ(r[k], f16_fma(a[k], b[k], c[k])) << form.name << " " << std::hex << a[k] << " " << b[k] << " " << c[k];
  }
}

TEST(EngineE61, FmaEqualsNumerics) {
  SKIP_WITHOUT_FORMS();
  std::vector<Triple> ts;
  // a * 1 + c: every f16 sum of a with c of every binade, both signs (ties, cancellation, Inf).
  for (std::uint32_t a = 0; a < 65536; ++a)
    for (f16_t c : {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x1000, 0x2C00, 0x3800, 0x3C00, 0xBC00,
                    0x3C01, 0x4000, 0x5000, 0x6000, 0x7800, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00})
      ts.push_back({static_cast<f16_t>(a), 0x3C00, c});
  SplitMix64 rng(1961);
  for (int k = 0; k < 2000000; ++k) {
    const std::uint64_t r = rng.next();
    const auto a = static_cast<f16_t>(r), b = static_cast<f16_t>(r >> 16);
    ts.push_back({a, b, static_cast<f16_t>(r >> 32)});  // random patterns
    const double p = f16_to_f64(a) * f16_to_f64(b);     // exact
    const f16_t q = f64_to_f16(-p);                     // cancellation: exact +-0, or the product's residue
    ts.push_back({a, b, q});
    ts.push_back({a, b, static_cast<f16_t>(q ^ 1)});
    // c at every exponent difference from the product (2^d |p|, d = -40..40)
    const int d = static_cast<int>((r >> 48) % 81) - 40;
    ts.push_back({a, b, f64_to_f16(std::ldexp(p, d) * ((r >> 60) & 1 ? -1 : 1))});
  }
  for (const Form& form : forms()) expect_fma(form, ts);
}

// Random logits: wide patterns (NaN, Inf, subnormals) or realistic spreads (|l| < 32), and taps
// of both kinds.
f16_t gen_f16(SplitMix64& rng, bool wide) {
  const std::uint64_t r = rng.next();
  if (wide) return static_cast<f16_t>(r);
  return f64_to_f16(static_cast<double>(static_cast<std::int64_t>(r % 65536) - 32768) / 1024.0);
}

TEST(EngineE61, PixelsEqualGoldenUnderEveryReading) {
  SKIP_WITHOUT_FORMS();
  std::vector<float> table(65536);
  for (std::uint32_t h = 0; h < 65536; ++h) table[h] = golden::e61_exp(static_cast<f16_t>(h));
  SplitMix64 rng(2061);
  constexpr int kN = 37;  // full vectors and a partial one (16 + 16 + 5 lanes, 4 x 8 + 5)
  std::vector<golden::E61Inputs> in(kN);
  for (int logits = 0; logits < 2; ++logits)
    for (int rounding = 0; rounding < 2; ++rounding)
      for (int order = 0; order < 3; ++order)
        for (int product = 0; product < 2; ++product)
          for (int pairing = 0; pairing < 2; ++pairing) {
            Readings rd;
            rd.e61_logits = static_cast<E61Logits>(logits);
            rd.e61_exp_rounding = static_cast<E61ExpRounding>(rounding);
            rd.e61_sum_order = static_cast<E61SumOrder>(order);
            rd.e61_weight_product = static_cast<E61WeightProduct>(product);
            rd.e61_pairing = static_cast<E61Pairing>(pairing);
            for (int rep = 0; rep < 40; ++rep) {
              for (golden::E61Inputs& x : in) {
                const bool wide_l = rng.next() % 8 == 0, wide_t = rng.next() % 8 == 0;
                for (f16_t& l : x.l) l = gen_f16(rng, wide_l);
                for (auto& t : x.tv)
                  for (f16_t& v : t) v = gen_f16(rng, wide_t);
              }
              for (const Form& form : forms()) {
                std::vector<golden::E61Pixel> out(kN);
                form.pixels(rd, in.data(), kN, table.data(), out.data());
                for (int i = 0; i < kN; ++i) {
                  const golden::E61Pixel g = golden::e61_pixel(rd, in[i], nullptr);
                  ASSERT_EQ(std::bit_cast<std::uint32_t>(out[i].sum), std::bit_cast<std::uint32_t>(g.sum)) << form.name << " " << i;
                  ASSERT_EQ(std::bit_cast<std::uint32_t>(out[i].rinv), std::bit_cast<std::uint32_t>(g.rinv)) << form.name << " " << i;
                  ASSERT_EQ(out[i].w, g.w) << form.name << " " << i;
                  ASSERT_EQ(out[i].out, g.out) << form.name << " " << i;
                }
              }
            }
          }
}

// The decoders' final epilogue (golden::decoder_pixel: the softmax over 9 logits, one fma chain of 9
// taps per channel from zero, the sigmoid gate, the blend with +96 and the NaN-guarded add of +104)
// in the same lanes, under every reading it reads. golden::decoder_pixel itself is checked against
// hand-computed pixels in tests/decoder_final_test.cpp.
TEST(EngineE61, DecoderPixelsEqualGoldenUnderEveryReading) {
  SKIP_WITHOUT_FORMS();
  std::vector<float> table(65536);
  std::vector<f16_t> sigmoid(65536);
  for (std::uint32_t h = 0; h < 65536; ++h) {
    table[h] = golden::e61_exp(static_cast<f16_t>(h));
    sigmoid[h] = golden::e62_sigmoid(static_cast<f16_t>(h));
  }
  const golden::DecoderTables tab{table.data(), sigmoid.data(), nullptr, nullptr};
  SplitMix64 rng(2062);
  constexpr int kN = 37;
  std::vector<golden::DecoderPixelInputs> in(kN);
  int nan_adds = 0;
  for (int rounding = 0; rounding < 2; ++rounding)
    for (int order = 0; order < 3; ++order)
      for (int product = 0; product < 2; ++product)
        for (golden::DecoderGateLogit gate : {golden::DecoderGateLogit::raw, golden::DecoderGateLogit::centred}) {
          Readings rd;
          rd.e61_exp_rounding = static_cast<E61ExpRounding>(rounding);
          rd.e61_sum_order = static_cast<E61SumOrder>(order);
          rd.e61_weight_product = static_cast<E61WeightProduct>(product);
          golden::DecoderFinalReadings dr;
          dr.gate_logit = gate;
          for (int rep = 0; rep < 40; ++rep) {
            for (golden::DecoderPixelInputs& x : in) {
              const bool wide_l = rng.next() % 8 == 0, wide_t = rng.next() % 8 == 0;
              for (f16_t& l : x.in.l) l = gen_f16(rng, wide_l);
              for (auto& t : x.in.tv)
                for (f16_t& v : t) v = gen_f16(rng, wide_t);
              for (f16_t& v : x.t96) v = gen_f16(rng, wide_t);
              for (f16_t& v : x.t104) {
                v = gen_f16(rng, wide_t);
                const std::uint64_t pick = rng.next() % 16;
                if (pick == 0) v = static_cast<f16_t>(0x7E00 | (rng.next() & 0x81FF));  // a NaN: the add is skipped
                if (pick == 1) v = static_cast<f16_t>(0x7C00 | (rng.next() & 0x8000));  // an Inf: added
                nan_adds += (v & 0x7FFF) > 0x7C00;
              }
            }
            for (const Form& form : forms()) {
              std::vector<golden::DecoderPixel> out(kN);
              form.decoder_pixels(rd, dr, in.data(), kN, tab, out.data());
              for (int i = 0; i < kN; ++i) {
                const golden::DecoderPixel g = golden::decoder_pixel(rd, dr, in[i]);
                ASSERT_EQ(std::bit_cast<std::uint32_t>(out[i].sum), std::bit_cast<std::uint32_t>(g.sum)) << form.name << " " << i;
                ASSERT_EQ(std::bit_cast<std::uint32_t>(out[i].rinv), std::bit_cast<std::uint32_t>(g.rinv)) << form.name << " " << i;
                ASSERT_EQ(out[i].w, g.w) << form.name << " " << i;
                ASSERT_EQ(out[i].acc, g.acc) << form.name << " " << i;
                ASSERT_EQ(out[i].sigma, g.sigma) << form.name << " " << i;
                ASSERT_EQ(out[i].out, g.out) << form.name << " " << i;
              }
            }
          }
        }
  EXPECT_GT(nan_adds, 100);  // the skipped add was exercised
}

}  // namespace
}  // namespace rrswin
