// Operand decoding and the chained-k-step driver of the fast engine's GEMMs (gemm.hpp).
#include "engine/gemm.hpp"

#include <array>

#include "layout/fragment.hpp"
#include "numerics/mma.hpp"

namespace enc5::engine {

const CodeTable& code_table() {
  static const CodeTable t = [] {
    CodeTable c{};
    for (int code = 0; code < 256; ++code) {
      const int m = code & 0x7F;
      // numerics.md "Formats": m >= 8 -> (8 + (m&7)) 2^((m>>3) - 10); m < 8 -> m 2^-9.
      const float mag = m >= 8 ? static_cast<float>(8 + (m & 7)) * static_cast<float>(1 << (m >> 3)) * 0x1p-10f
                               : static_cast<float>(m) * 0x1p-9f;
      c.nan[code] = m == 0x7F;
      c.value[code] = c.nan[code] ? __builtin_nanf("") : (code & 0x80) ? -mag : mag;
      // numerics.md `ada`: e(x) = max(floor(log2|x|), -6); a zero never raises the maximum.
      c.ada_e[code] = m == 0 ? kZeroExponent : m >= 8 ? static_cast<float>((m >> 3) - 7) : -6.0f;
    }
    return c;
  }();
  return t;
}

const int* isa_of_pair() {
  static const std::array<int, 32> k = [] {
    std::array<int, 32> m{};
    for (int kp = 0; kp < 32; ++kp) m[kp] = layout::isa_k_from_pair_k(kp);
    return m;
  }();
  return k.data();
}

void AOperand::assign(const e4m3_t* src, int rows_, int K_, int ld) {
  rows = rows_;
  K = K_;
  const std::size_t size = static_cast<std::size_t>(rows) * K;
  v.resize(size);
  v64.resize(size);
  e.resize(size);
  codes.resize(size);
  nan = false;
  const CodeTable& t = code_table();
  const int* isa = isa_of_pair();
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < K; ++k) {
      const e4m3_t c = src[static_cast<std::size_t>(r) * ld + k];
      const std::size_t at = static_cast<std::size_t>(r) * K + (k & ~31) + isa[k & 31];
      v[at] = t.value[c];
      v64[at] = t.value[c];
      e[at] = t.ada_e[c];
      codes[static_cast<std::size_t>(r) * K + k] = c;
      nan |= t.nan[c];
    }
}

void BOperand::assign_nk(const e4m3_t* src, int N_, int K_, int ld) {
  N = N_;
  K = K_;
  const std::size_t size = static_cast<std::size_t>(N) * K;
  v.resize(size);
  v64.resize(size);
  e.resize(size);
  codes.resize(size);
  nan = false;
  const CodeTable& t = code_table();
  const int* isa = isa_of_pair();
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) {
      const e4m3_t c = src[static_cast<std::size_t>(n) * ld + k];
      const std::size_t at = static_cast<std::size_t>((k & ~31) + isa[k & 31]) * N + n;
      v[at] = t.value[c];
      v64[at] = t.value[c];
      e[at] = t.ada_e[c];
      codes[static_cast<std::size_t>(n) * K + k] = c;
      nan |= t.nan[c];
    }
}

void BOperand::assign_kn(const e4m3_t* src, int K_, int N_, int ld) {
  std::vector<e4m3_t> nk(static_cast<std::size_t>(N_) * K_);
  for (int k = 0; k < K_; ++k)
    for (int n = 0; n < N_; ++n) nk[static_cast<std::size_t>(n) * K_ + k] = src[static_cast<std::size_t>(k) * ld + n];
  assign_nk(nk.data(), N_, K_, K_);
}

KernelSet kernels(SimdPath path) {
  switch (path) {
    case SimdPath::avx512:
      return kernels_avx512();
    case SimdPath::avx2:
      return kernels_avx2();
    case SimdPath::scalar:
      break;
  }
  return kernels_scalar();
}

void gemm(const Profile& p, SimdPath path, const AOperand& a, int a_k0, const BOperand& b, int b_k0, int ksteps,
          int rows, f16_t* d, int ldd) {
  if (a.nan || b.nan) {
    // NaN codes (possible in weight files and input arenas): the numerics core itself, element by
    // element, in the ISA k order (as golden's mma_step does).
    const int* isa = isa_of_pair();
    for (int s = 0; s < ksteps; ++s)
      for (int r = 0; r < rows; ++r)
        for (int n = 0; n < b.N; ++n) {
          e4m3_t av[32], bv[32];
          for (int k = 0; k < 32; ++k) {
            av[isa[k]] = a.codes[static_cast<std::size_t>(r) * a.K + a_k0 + 32 * s + k];
            bv[isa[k]] = b.codes[static_cast<std::size_t>(n) * b.K + b_k0 + 32 * s + k];
          }
          f16_t& out = d[static_cast<std::size_t>(r) * ldd + n];
          out = mma_dot(p, av, bv, out);
        }
    return;
  }
  const KernelSet ks = kernels(path);
  const KStepKernel kernel = p.mma == MmaAccumulation::ada_truncated_halves ? ks.ada : ks.zluda;
  for (int s = 0; s < ksteps; ++s) {
    KStepArgs g;
    g.a = a.v.data() + a_k0 + 32 * s;
    g.a64 = a.v64.data() + a_k0 + 32 * s;
    g.ea = a.e.data() + a_k0 + 32 * s;
    g.lda = a.K;
    g.b = b.v.data() + static_cast<std::size_t>(b_k0 + 32 * s) * b.N;
    g.b64 = b.v64.data() + static_cast<std::size_t>(b_k0 + 32 * s) * b.N;
    g.eb = b.e.data() + static_cast<std::size_t>(b_k0 + 32 * s) * b.N;
    g.N = b.N;
    g.d = d;
    g.ldd = ldd;
    g.rows = rows;
    kernel(g);
  }
}

}  // namespace enc5::engine
