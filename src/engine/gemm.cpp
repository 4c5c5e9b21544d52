// Operand decoding and the chained-k-step driver of the fast engine's GEMMs (gemm.hpp).
#include "engine/gemm.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

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
      c.value64[code] = c.value[code];
      // numerics.md `ada`: e(x) = max(floor(log2|x|), -6); a zero never raises the maximum.
      c.ada_e[code] = m == 0 ? kZeroExponent : m >= 8 ? static_cast<float>((m >> 3) - 7) : -6.0f;
    }
    return c;
  }();
  return t;
}

bool native(const Profile& p) {
  // The kernels implement the default corners (kernels_impl.hpp, kernels_hopper_impl.hpp).
  return p.corners == MmaCorners{};
}

unsigned decode_for(const Profile& p, SimdPath path) {
  if (p.mma == MmaAccumulation::hopper_two_hmma)  // the portable kernel reads e(x) from the values' exponent field
    return path == SimdPath::avx512 ? kDecodeF32 | kDecodeHopperExponent16 : kDecodeF32;
  if (p.mma != MmaAccumulation::ada_truncated_halves) return kDecodeF64;
  return path == SimdPath::avx512 ? kDecodeF32 | kDecodeExponent16 : kDecodeF32 | kDecodeExponent;
}

namespace {

// Resizes the decoded arrays an operand gets (the others are emptied, so that a kernel reading a
// form it was not given fails loudly under the sanitizers rather than reading stale values).
template <class Op>
void size_forms(std::size_t size, unsigned decode, Op& o) {
  o.v.resize(decode & kDecodeF32 ? size : 0);
  o.v64.resize(decode & kDecodeF64 ? size : 0);
  o.e.resize(decode & kDecodeExponent ? size : 0);
  o.e16.resize(decode & kDecodeExponent16 ? size : 0);
  o.he16.resize(decode & kDecodeHopperExponent16 ? size : 0);
}

}  // namespace

void AOperand::assign(const e4m3_t* src, int rows_, int K_, int ld, unsigned decode, SimdPath path) {
  rows = rows_;
  K = K_;
  const std::size_t size = static_cast<std::size_t>(rows) * K;
  size_forms(size, decode, *this);
  codes.resize(size);
  nan = false;
  const auto run = kernels(path).decode_run;
  const int* isa = layout::isa_k_of_pair_k().data();
  const bool isa_forms = (decode & (kDecodeF32 | kDecodeExponent | kDecodeExponent16 | kDecodeHopperExponent16)) != 0;
  for (int r = 0; r < rows; ++r) {
    const e4m3_t* row = src + static_cast<std::size_t>(r) * ld;
    const std::size_t at = static_cast<std::size_t>(r) * K;
    std::copy(row, row + K, codes.begin() + static_cast<std::ptrdiff_t>(at));
    // binary64: logical order, the whole row at once
    if (decode & kDecodeF64) nan |= run({row, K, v64.data() + at, nullptr, nullptr, nullptr, nullptr});
    if (!isa_forms) continue;
    // binary32 and exponents: ISA order inside each k-step
    for (int k0 = 0; k0 < K; k0 += 32) {
      e4m3_t perm[32];
      for (int kp = 0; kp < 32; ++kp) perm[isa[kp]] = row[k0 + kp];
      const std::size_t a = at + k0;
      nan |= run({perm, 32, nullptr, v.empty() ? nullptr : v.data() + a, e.empty() ? nullptr : e.data() + a,
                  e16.empty() ? nullptr : e16.data() + a, he16.empty() ? nullptr : he16.data() + a});
    }
  }
}

namespace {

// Shared by assign_nk / assign_kn: src[n * n_stride + k * k_stride]. Row k of B (N codes) is
// gathered once (a transpose for [n][k] sources) and decoded as one run into row k (binary64,
// logical order) resp. row 32 (k / 32) + isa(k % 32) (the ISA-order forms) of the [k][N] arrays.
void assign_b(BOperand& b, const e4m3_t* src, std::ptrdiff_t n_stride, std::ptrdiff_t k_stride, unsigned decode, SimdPath path) {
  const std::size_t size = static_cast<std::size_t>(b.N) * b.K;
  size_forms(size, decode, b);
  b.codes.resize(size);
  b.nan = false;
  const auto run = kernels(path).decode_run;
  const int* isa = layout::isa_k_of_pair_k().data();
  thread_local std::vector<e4m3_t> gathered;
  gathered.resize(static_cast<std::size_t>(b.N));
  for (int k = 0; k < b.K; ++k) {
    const e4m3_t* rowk = src + k * k_stride;
    if (n_stride != 1) {
      for (int n = 0; n < b.N; ++n) gathered[static_cast<std::size_t>(n)] = rowk[n * n_stride];
      rowk = gathered.data();
    }
    for (int n = 0; n < b.N; ++n) b.codes[static_cast<std::size_t>(n) * b.K + k] = rowk[n];
    const std::size_t logical = static_cast<std::size_t>(k) * b.N;
    const std::size_t in_isa = static_cast<std::size_t>((k & ~31) + isa[k & 31]) * b.N;
    b.nan |= run({rowk, b.N, b.v64.empty() ? nullptr : b.v64.data() + logical, b.v.empty() ? nullptr : b.v.data() + in_isa,
                  b.e.empty() ? nullptr : b.e.data() + in_isa, b.e16.empty() ? nullptr : b.e16.data() + in_isa,
                  b.he16.empty() ? nullptr : b.he16.data() + in_isa});
  }
}

}  // namespace

void BOperand::assign_nk(const e4m3_t* src, int N_, int K_, int ld, unsigned decode, SimdPath path) {
  N = N_;
  K = K_;
  assign_b(*this, src, ld, 1, decode, path);
}

void BOperand::assign_kn(const e4m3_t* src, int K_, int N_, int ld, unsigned decode, SimdPath path) {
  N = N_;
  K = K_;
  assign_b(*this, src, 1, ld, decode, path);
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
  if (a.nan || b.nan || !native(p)) {
    // NaN codes (possible in weight files and input arenas), and the mma corners the kernels do
    // not implement: the numerics core itself, element by element, in the ISA k order (as
    // golden's mma_step does).
    const int* isa = layout::isa_k_of_pair_k().data();
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
  const KernelSet kern = kernels(path);
  const bool ada = p.mma == MmaAccumulation::ada_truncated_halves;
  const bool hopper = p.mma == MmaAccumulation::hopper_two_hmma;
  const KStepKernel kernel = hopper ? kern.hopper : ada ? kern.ada : kern.zluda;
  KStepArgs g{};
  if (hopper) {
    g.a = a.v.data() + a_k0;
    g.b = b.v.data() + static_cast<std::size_t>(b_k0) * b.N;
    g.hea16 = a.he16.empty() ? nullptr : a.he16.data() + a_k0;
    g.heb16 = b.he16.empty() ? nullptr : b.he16.data() + static_cast<std::size_t>(b_k0) * b.N;
  } else if (ada) {
    g.a = a.v.data() + a_k0;
    g.ea = a.e.empty() ? nullptr : a.e.data() + a_k0;
    g.ea16 = a.e16.empty() ? nullptr : a.e16.data() + a_k0;
    g.b = b.v.data() + static_cast<std::size_t>(b_k0) * b.N;
    g.eb = b.e.empty() ? nullptr : b.e.data() + static_cast<std::size_t>(b_k0) * b.N;
    g.eb16 = b.e16.empty() ? nullptr : b.e16.data() + static_cast<std::size_t>(b_k0) * b.N;
  } else {
    g.a64 = a.v64.data() + a_k0;
    g.b64 = b.v64.data() + static_cast<std::size_t>(b_k0) * b.N;
  }
  g.lda = a.K;
  g.N = b.N;
  g.d = d;
  g.ldd = ldd;
  g.rows = rows;
  g.ksteps = ksteps;
  kernel(g);
}

}  // namespace enc5::engine
