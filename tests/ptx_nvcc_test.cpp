// nvcc's PTX run by the interpreter (tests/ptx/kernels.cu -> kernels.ptx, checked in). Every
// kernel's output is compared with the same computation written here in C++ (integer and IEEE f32
// code) or with src/numerics and the frame API's Texture/Surface (the seed's inline PTX). When
// nvcc is installed, the checked-in PTX is also regenerated and compared.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "api/frame.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/mma.hpp"
#include "numerics/warp.hpp"
#include "ptx/ptx.hpp"
#include "test_util.hpp"

using namespace rrswin::ptx;

namespace {

std::string kernels_path() { return std::string(RRSWIN_TESTS_DIR) + "/ptx/kernels.ptx"; }

std::string read(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

const Module& kernels() {
  static const auto m = load_module(kernels_path());
  return *m;
}

template <class T>
std::span<std::uint8_t> bytes(std::vector<T>& v) {
  return {reinterpret_cast<std::uint8_t*>(v.data()), v.size() * sizeof(T)};
}

struct Params {
  std::vector<std::uint8_t> b;
  template <class T>
  Params& add(T v) {
    const std::size_t a = sizeof(T);
    b.resize((b.size() + a - 1) / a * a);
    const std::size_t o = b.size();
    b.resize(o + a);
    std::memcpy(b.data() + o, &v, a);
    return *this;
  }
};

std::uint32_t int_mix_ref(std::uint32_t x) {
  std::uint32_t h = x * 2654435761u;
  h ^= h >> 13;
  if (x & 1)
    h += static_cast<std::uint32_t>(std::popcount(x)) * 7u;
  else if (x % 3 == 0)
    h = (h << 5) | (h >> 27);
  else
    h -= static_cast<std::uint32_t>(std::countl_zero(x | 1u));
  std::uint32_t acc = 0;
  for (std::uint32_t k = 0; k < (x & 15u); ++k) acc += (h >> k) & 0xFFu;
  const std::uint64_t wide = static_cast<std::uint64_t>(x) * 0x9E3779B97F4A7C15ull + acc;
  const std::int32_t s = static_cast<std::int32_t>(x) / 7 - static_cast<std::int32_t>(h % 1000u);
  std::uint32_t br = 0;
  for (int i = 0; i < 32; ++i) br |= ((acc >> i) & 1u) << (31 - i);
  std::uint32_t r = static_cast<std::uint32_t>(wide >> 29) ^ static_cast<std::uint32_t>(s) ^ br;
  r += static_cast<std::uint32_t>(std::min(static_cast<int>(x & 0xFFFF), 3000)) + std::max(h & 0xFFu, 17u);
  return r;
}

TEST(PtxNvcc, IntegerKernelWithDivergenceAndLoops) {
  const int n = 1000;  // not a multiple of the block: the tail warps exit early
  std::vector<std::uint32_t> in(n), out(n, 0);
  std::mt19937 g(1);
  for (auto& x : in) x = g();
  in[0] = 0;
  in[1] = 0xFFFFFFFFu;
  in[2] = 0x80000000u;
  in[3] = 3;
  Device dev;
  const auto a = dev.add_global_readonly("in", bytes(in));
  const auto o = dev.add_global("out", bytes(out));
  Params p;
  p.add(a).add(o).add(static_cast<std::int32_t>(n));
  RunOptions opt;
  opt.threads = 2;
  const RunStats st = run(kernels(), "int_mix", {8, 1, 1}, {128, 1, 1}, p.b, dev, opt);
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], int_mix_ref(in[i])) << i << " x=" << in[i];
  EXPECT_GT(st.lane_instructions, 20000u);
}

TEST(PtxNvcc, SharedMemoryBarriersAndShuffles) {
  const int blocks = 6;
  std::vector<std::uint32_t> in(blocks * 256), out(blocks, 0);
  std::mt19937 g(2);
  for (auto& x : in) x = g();
  Device dev;
  const auto a = dev.add_global_readonly("in", bytes(in));
  const auto o = dev.add_global("out", bytes(out));
  Params p;
  p.add(a).add(o);
  run(kernels(), "block_sum", {blocks, 1, 1}, {256, 1, 1}, p.b, dev, {});
  for (int b = 0; b < blocks; ++b) {
    // The tree folds 256 values into 32, then the shuffle xor over offsets 8, 4, 2, 1 sums lanes
    // within groups of 16: lane 0 holds the sum of buf[0..15] after the tree.
    std::uint32_t buf[256];
    for (int t = 0; t < 256; ++t) buf[t] = in[b * 256 + t] & 0xFFFFu;
    for (int s = 128; s > 16; s >>= 1)
      for (int t = 0; t < s; ++t) buf[t] += buf[t + s];
    std::uint32_t want = 0;
    for (int t = 0; t < 16; ++t) want += buf[t];
    EXPECT_EQ(out[b], want) << b;
  }
}

TEST(PtxNvcc, FloatKernelIsIeeeExact) {
  const int n = 512;
  std::vector<float> in(2 * n), out(n, 0);
  std::mt19937 g(3);
  std::uniform_real_distribution<float> d(-50.0f, 50.0f);
  for (auto& x : in) x = d(g);
  Device dev;
  const auto a = dev.add_global_readonly("in", bytes(in));
  const auto o = dev.add_global("out", bytes(out));
  Params p;
  p.add(a).add(o).add(static_cast<std::int32_t>(n));
  run(kernels(), "float_mix", {4, 1, 1}, {128, 1, 1}, p.b, dev, {});
  for (int i = 0; i < n; ++i) {
    const float x = in[i], y = in[n + i];
    float r = std::fma(x, y, 1.0f);
    r = r + x * 0.5f;
    r = r / (std::fabs(y) + 1.0f);
    r += std::sqrt(std::fabs(x));
    const float xs = x * 100.0f;
    const int q = static_cast<int>(std::trunc(xs));
    const float want = std::max(r, -1000.0f) + static_cast<float>(q & 7);
    ASSERT_EQ(std::bit_cast<std::uint32_t>(out[i]), std::bit_cast<std::uint32_t>(want)) << i;
  }
}

TEST(PtxNvcc, SeedInstructionsAsInlineAsm) {
  const int blocks = 3;
  std::vector<std::uint32_t> in(blocks * 32 * 8), out(blocks * 32 * 8, 0);
  std::mt19937 g(4);
  for (std::size_t i = 0; i < in.size(); ++i) {
    std::uint32_t x = g();
    if (i % 8 >= 6)
      x = (x & 0x33FF33FFu) | 0x30003000u;  // C: moderate f16 values
    else
      for (int k = 0; k < 4; ++k)
        if (((x >> (8 * k)) & 0x7F) == 0x7F) x &= ~(1u << (8 * k));  // no e4m3 NaN codes
    in[i] = x;
  }
  rrswin::Texture tex;
  tex.width = 4;
  tex.height = 5;
  for (int i = 0; i < 4 * 5 * 4; ++i) tex.rgba.push_back(static_cast<rrswin::f16_t>(0x4000 + 3 * i));
  rrswin::Surface surf = rrswin::Surface::make(blocks * 32 - 5, 1);  // the last 5 stores are dropped (.zero)
  Device dev;
  const auto a = dev.add_global_readonly("in", bytes(in));
  const auto o = dev.add_global("out", bytes(out));
  Params p;
  p.add(a).add(o).add(dev.bind_texture(&tex)).add(dev.bind_surface(&surf));
  for (const rrswin::Profile* prof : {&rrswin::profile_ada(), &rrswin::profile_zluda()}) {
    RunOptions opt;
    opt.profile = prof;
    run(kernels(), "seed_ops", {blocks, 1, 1}, {32, 1, 1}, p.b, dev, opt);
    for (int b = 0; b < blocks; ++b) {
      rrswin::MmaFragA fa;
      rrswin::MmaFragB fb;
      rrswin::MmaFragC fc;
      for (int l = 0; l < 32; ++l) {
        const std::uint32_t* w = &in[(b * 32 + l) * 8];
        fa.reg[l] = {w[0], w[1], w[2], w[3]};
        fb.reg[l] = {w[4], w[5]};
        fc.reg[l] = {w[6], w[7]};
      }
      const rrswin::MmaFragC d = rrswin::mma_m16n8k32(*prof, fa, fb, fc);
      rrswin::WarpReg d0;
      for (int l = 0; l < 32; ++l) d0[l] = d.reg[l][0];
      const rrswin::WarpReg t = rrswin::movmatrix_trans(d0);
      const rrswin::WarpReg s = rrswin::shfl_bfly(t, 3);
      for (int l = 0; l < 32; ++l) {
        const std::uint32_t* r = &out[(b * 32 + l) * 8];
        ASSERT_EQ(r[0], d.reg[l][0]);
        ASSERT_EQ(r[1], d.reg[l][1]);
        ASSERT_EQ(r[2], t[l]);
        ASSERT_EQ(r[3], s[l]);
        ASSERT_EQ(r[4], rrswin::cvt_e4m3x2_f16x2(d.reg[l][1], *prof));
        const auto texel = tex.fetch(l % 6 - 1, l / 6 - 1);
        ASSERT_EQ(r[5], texel[0] | (static_cast<std::uint32_t>(texel[1]) << 16));
        ASSERT_EQ(r[6], texel[2] | (static_cast<std::uint32_t>(texel[3]) << 16));
        const int px = b * 32 + l;
        if (px < surf.width) {
          for (int c = 0; c < 4; ++c) ASSERT_EQ(surf.bytes[px * 8 + 2 * c] | (surf.bytes[px * 8 + 2 * c + 1] << 8), texel[c]);
        }
      }
    }
  }
  const EntryStats st = entry_stats(kernels(), "seed_ops");
  EXPECT_EQ(st.mma, 1u);
  EXPECT_EQ(st.histogram.at("tex.base.2d.v4.f16.s32"), 1u);
}

std::uint32_t mix_ref(std::uint32_t a, std::uint32_t b) { return a * 3u + (b ^ 0x55u); }
std::uint32_t clamp_mix_ref(std::uint32_t a, std::uint32_t b) {
  std::uint32_t v = mix_ref(a, b);
  if (v & 4u) v = mix_ref(v, a) >> 3;
  for (std::uint32_t k = 0; k < (b & 3u); ++k) v ^= v << 1;
  return v;
}

TEST(PtxNvcc, DeviceFunctionCallsAreInlined) {
  const int n = 256;
  std::vector<std::uint32_t> in(n), out(n, 0);
  std::mt19937 g(5);
  for (auto& x : in) x = g();
  Device dev;
  const auto a = dev.add_global_readonly("in", bytes(in));
  const auto o = dev.add_global("out", bytes(out));
  Params p;
  p.add(a).add(o);
  run(kernels(), "calls", {2, 1, 1}, {128, 1, 1}, p.b, dev, {});
  for (int t = 0; t < n; ++t) {
    std::uint32_t v = clamp_mix_ref(in[t], static_cast<std::uint32_t>(t));
    if (t & 1) v = mix_ref(v, 7u);
    ASSERT_EQ(out[t], v + std::bit_cast<std::uint32_t>(static_cast<float>(t) * 0.5f)) << t;
  }
  // The calls were inlined: more decoded instructions than statements of the entry body.
  const EntryStats st = entry_stats(kernels(), "calls");
  EXPECT_GT(st.instructions, st.statements + 20);
}

// The PTX nvcc writes today for kernels.cu equals the checked-in file, header comments aside
// (they name the toolkit build). A different toolkit release may legitimately emit other code:
// then the test reports itself skipped, naming both versions.
TEST(PtxNvcc, CheckedInPtxMatchesNvcc) {
  if (test_util::shell("command -v nvcc").status != 0) GTEST_SKIP() << "nvcc not installed: the checked-in kernels.ptx is used as is";
  test_util::TempDir tmp;
  const std::string cu = std::string(RRSWIN_TESTS_DIR) + "/ptx/kernels.cu";
  const auto r = test_util::shell("nvcc -arch=sm_89 -ptx -O3 '" + cu + "' -o '" + tmp.file("k.ptx") + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  auto split = [](const std::string& text, std::string& version) {
    std::istringstream is(text);
    std::string line, body;
    while (std::getline(is, line)) {
      if (line.rfind("//", 0) == 0) {
        if (line.find("Cuda compilation tools") != std::string::npos) version = line;
        continue;
      }
      body += line + "\n";
    }
    return body;
  };
  std::string v_new, v_old;
  const std::string now = split(read(tmp.file("k.ptx")), v_new), old = split(read(kernels_path()), v_old);
  if (v_new != v_old) GTEST_SKIP() << "toolkit differs (checked in: '" << v_old << "', installed: '" << v_new << "')";
  EXPECT_EQ(now, old) << "regenerate tests/ptx/kernels.ptx: nvcc -arch=sm_89 -ptx -O3 kernels.cu -o kernels.ptx";
}

}  // namespace
