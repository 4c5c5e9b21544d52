// Operand decoding and the chained-k-step driver of the fast engine's GEMMs (gemm.hpp).
#include "engine/gemm.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>
#include <utility>

#include "layout/fragment.hpp"
#include "numerics/mma.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rrswin::engine {

const CodeTable& code_table() {
  static const CodeTable t = [] {
    CodeTable c{};
    for (int code = 0; code < 256; ++code) {
      const int m = code & 0x7F;
      // numerics.md "Formats": m >= 8 -> (8 + (m&7)) 2^((m>>3) - 10); m < 8 -> m 2^-9.
      const float mag =
          m >= 8 ? static_cast<float>(8 + (m & 7)) * static_cast<float>(1 << (m >> 3)) * 0x1p-10f : static_cast<float>(m) * 0x1p-9f;
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
  // The kernels implement the default corners (kernels_impl.hpp, kernels_hopper_impl.hpp), and
  // `blackwell` its own profile's (kernels_blackwell_impl.hpp: a zero sum is +0).
  if (p.mma == MmaAccumulation::blackwell_fused_sum) return p.corners == profile_blackwell().corners;
  return p.corners == MmaCorners{};
}

namespace {
bool blackwell_forms(const Profile& p) { return p.mma == MmaAccumulation::blackwell_fused_sum; }
}  // namespace

unsigned decode_for(const Profile& p, SimdPath path) {
  const bool avx512 = path == SimdPath::avx512 || path == SimdPath::avx512vnni;
  if (p.mma == MmaAccumulation::hopper_two_hmma)  // the portable (scalar) kernel reads e(x) from the values' exponent field
    return path != SimdPath::scalar ? kDecodeF32 | kDecodeHopperExponent16 : kDecodeF32;
  // `ada` and `blackwell` read the same forms (values and ada exponents)
  const bool ada_forms = p.mma == MmaAccumulation::ada_truncated_halves || p.mma == MmaAccumulation::blackwell_fused_sum;
  if (!ada_forms)  // the integer kernels (avx2, also the avx512 path's, avx512vnni): their binary64 steps read the codes
    return path != SimdPath::scalar ? kDecodeInt16 : kDecodeF64;
  if (path == SimdPath::avx512vnni && !blackwell_forms(p)) return kDecodeExponent16 | kDecodeAdaInt16;  // kernels_ada_int16_impl.hpp
  // the AVX2 blackwell kernel, also the AVX-512 paths', also reads the zluda integer form
  // (kernels_blackwell_int16_avx2_impl.hpp; the avx512 path decodes it with the AVX2 decoders)
  if (path != SimdPath::scalar && blackwell_forms(p)) return kDecodeF32 | kDecodeExponent16 | kDecodeInt16;
  // the AVX2 kernels read the int16 exponents as the AVX-512 ones do
  return avx512 || path == SimdPath::avx2 ? kDecodeF32 | kDecodeExponent16 : kDecodeF32 | kDecodeExponent;
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

// The `ada` integer words of one code (gemm.hpp: AOperand::aw16, BOperand::bw16).
struct AdaWords {
  std::int16_t a[256], b[256];
};
const AdaWords& ada_words() {
  static const AdaWords t = [] {
    AdaWords w{};
    for (int code = 0; code < 256; ++code) {
      const int m = code & 0x7F;
      const int mant = m >= 8 ? 8 + (m & 7) : m;  // numerics.md "Formats": x = mant 2^(e(x) - 3)
      const unsigned sign = (code & 0x80) ? 0xE000u : 0u;
      w.a[code] = static_cast<std::int16_t>(static_cast<std::uint16_t>(mant << 3 | 0x1000 | sign));
      w.b[code] = static_cast<std::int16_t>(static_cast<std::uint16_t>(mant << 4 | sign));
    }
    return w;
  }();
  return t;
}

// The `zluda` integer form of one code (gemm.hpp: AOperand::i16): value = sign M 2^(sh - 9).
struct IntCode {
  std::int8_t sh;
  std::int16_t m;  // signed M, 0 for a zero (NaN codes never reach the kernels)
};
const std::array<IntCode, 256>& int_codes() {
  static const std::array<IntCode, 256> t = [] {
    std::array<IntCode, 256> c{};
    for (int code = 0; code < 256; ++code) {
      const int m = code & 0x7F, e = m >> 3;
      const int mag = e >= 1 ? 8 + (m & 7) : m;
      c[static_cast<std::size_t>(code)] = {static_cast<std::int8_t>(e >= 1 ? e - 1 : 0),
                                           static_cast<std::int16_t>((code & 0x80) ? -mag : mag)};
    }
    return c;
  }();
  return t;
}

// One k-step's integer form (32 k x `width` elements at src(k, j)): the base shift, and the values
// written by put(k, j, v); returns {base, l1 or max |v| (max_abs), or -1 when the shifts of the
// nonzero values span more than 12}.
template <class Src, class Put>
std::pair<int, std::int32_t> int16_kstep(int width, bool max_abs, Src src, Put put) {
  const auto& t = int_codes();
  int lo = 99, hi = -1;
  for (int k = 0; k < 32; ++k)
    for (int j = 0; j < width; ++j) {
      const IntCode c = t[src(k, j)];
      if (c.m == 0) continue;
      lo = std::min(lo, static_cast<int>(c.sh));
      hi = std::max(hi, static_cast<int>(c.sh));
    }
  if (hi < 0) lo = 0;               // no nonzero value: every value 0, any base
  const bool fits = hi - lo <= 11;  // 15 << 11 = 30720 fits int16, 15 << 12 does not
  std::int32_t acc = 0;
  for (int k = 0; k < 32; ++k)
    for (int j = 0; j < width; ++j) {
      const IntCode c = t[src(k, j)];
      const int v = fits && c.m != 0 ? c.m * (1 << (c.sh - lo)) : 0;
      put(k, j, static_cast<std::int16_t>(v));
      const std::int32_t mag = v < 0 ? -v : v;
      acc = max_abs ? std::max(acc, mag) : acc + mag;
    }
  return {lo, fits ? acc : -1};
}

}  // namespace

// One k-step's 32 codes in the ISA k order: perm[isa_k(kp)] = row[kp] (layout/fragment.hpp). As
// isa_k(kp) = 4 ((kp & 15) >> 1) + (kp & 1) + 2 (kp >> 4), the ISA order is the code pairs of the
// step's first 16 k interleaved with those of its last 16: one unpack of 16-bit words (SSE2, in
// the baseline x86-64 ISA; EngineGemm.IsaOrderOfAKStepIsTheFragmentTables checks it against the table).
void isa_order_kstep(const e4m3_t* row, e4m3_t* perm) {
#if defined(__SSE2__)
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row));
  const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 16));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(perm), _mm_unpacklo_epi16(lo, hi));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(perm + 16), _mm_unpackhi_epi16(lo, hi));
#else
  const int* isa = layout::isa_k_of_pair_k().data();
  for (int kp = 0; kp < 32; ++kp) perm[isa[kp]] = row[kp];
#endif
}

void AOperand::assign(const e4m3_t* src, int rows_, int K_, int ld, unsigned decode, SimdPath path) {
  rows = rows_;
  K = K_;
  const std::size_t size = static_cast<std::size_t>(rows) * K;
  size_forms(size, decode, *this);
  codes.resize(size);
  nan = false;
  const auto run = kernels(path).decode_run;
  const bool isa_forms = (decode & (kDecodeF32 | kDecodeExponent | kDecodeExponent16 | kDecodeHopperExponent16 | kDecodeAdaInt16)) != 0;
  aw16.resize(decode & kDecodeAdaInt16 ? size : 0);
  const std::int16_t* const word = ada_words().a;
  // The avx512vnni `ada` kernel's forms alone (decode_for): words and exponents in one pass.
  const bool ada_vnni = path == SimdPath::avx512vnni && decode == (kDecodeExponent16 | kDecodeAdaInt16);
  static const std::array<std::int16_t, 32> isa_source = [] {
    std::array<std::int16_t, 32> t{};
    for (int ki = 0; ki < 32; ++ki) t[static_cast<std::size_t>(ki)] = static_cast<std::int16_t>(layout::pair_k_from_isa_k(ki));
    return t;
  }();
  // The binary32 and exponent forms are in ISA order inside each k-step: every k-step of every row
  // permuted into one buffer, then decoded in one run (a run per row's k-step was a call and its
  // set-up per 32 codes: 8 % of an `ada` network run's instructions went to operand forms).
  thread_local std::vector<e4m3_t> perm;
  if (isa_forms && !ada_vnni) perm.resize(size);
  for (int r = 0; r < rows; ++r) {
    const e4m3_t* row = src + static_cast<std::size_t>(r) * ld;
    const std::size_t at = static_cast<std::size_t>(r) * K;
    std::copy(row, row + K, codes.begin() + static_cast<std::ptrdiff_t>(at));
    if (ada_vnni) {
      nan |= ada_forms_a_avx512(row, K, isa_source.data(), aw16.data() + at, e16.data() + at);
      continue;
    }
    // binary64: logical order, the whole row at once
    if (decode & kDecodeF64) nan |= run({row, K, v64.data() + at, nullptr, nullptr, nullptr, nullptr});
    if (isa_forms)
      for (int k0 = 0; k0 < K; k0 += 32) isa_order_kstep(row + k0, perm.data() + at + k0);
  }
  if (isa_forms && !ada_vnni && size > 0) {
    nan |= run({perm.data(), static_cast<int>(size), nullptr, v.empty() ? nullptr : v.data(), e.empty() ? nullptr : e.data(),
                e16.empty() ? nullptr : e16.data(), he16.empty() ? nullptr : he16.data()});
    if (!aw16.empty())
      for (std::size_t i = 0; i < size; ++i) aw16[i] = word[perm[i]];
  }
  const std::size_t steps = static_cast<std::size_t>(rows) * (K / 32);
  i16.resize(decode & kDecodeInt16 ? size : 0);
  i16_base.resize(decode & kDecodeInt16 ? steps : 0);
  i16_l1.resize(decode & kDecodeInt16 ? steps : 0);
  if ((decode & kDecodeInt16) && path == SimdPath::avx512vnni) {
    nan |= int16_form_a_avx512(codes.data(), rows * (K / 32), i16.data(), i16_base.data(), i16_l1.data());
  } else if ((decode & kDecodeInt16) && (path == SimdPath::avx2 || path == SimdPath::avx512)) {
    nan |= int16_form_a_avx2(codes.data(), rows * (K / 32), i16.data(), i16_base.data(), i16_l1.data());
  } else if (decode & kDecodeInt16)
    for (int r = 0; r < rows; ++r)
      for (int s = 0; s < K / 32; ++s) {
        const e4m3_t* c = codes.data() + static_cast<std::size_t>(r) * K + 32 * s;
        std::int16_t* out = i16.data() + static_cast<std::size_t>(r) * K + 32 * s;
        const auto [base, l1] = int16_kstep(
            1, false, [&](int k, int) { return c[k]; }, [&](int k, int, std::int16_t v) { out[k] = v; });
        i16_base[static_cast<std::size_t>(r) * (K / 32) + s] = static_cast<std::int8_t>(base);
        i16_l1[static_cast<std::size_t>(r) * (K / 32) + s] = l1;
        for (int k = 0; k < 32; ++k) nan |= (c[k] & 0x7F) == 0x7F;  // the form alone still flags NaN codes
      }
}

namespace {

// Shared by assign_nk / assign_kn: src[n * n_stride + k * k_stride]. Row k of B (N codes) is
// gathered once (a transpose for [n][k] sources) and decoded as one run into row k (binary64,
// logical order) resp. row 32 (k / 32) + isa(k % 32) (the ISA-order forms) of the [k][N] arrays.
void assign_b(BOperand& b, const e4m3_t* src, std::ptrdiff_t n_stride, std::ptrdiff_t k_stride, unsigned decode, SimdPath path) {
  const std::size_t size = static_cast<std::size_t>(b.N) * b.K;
  // The avx512vnni `ada` kernel's forms alone (decode_for): its B is the words and exponents of
  // ada_pairs_b_avx512 (which flags the NaN codes); the int16 exponents are A's only.
  const bool ada_vnni = path == SimdPath::avx512vnni && decode == (kDecodeExponent16 | kDecodeAdaInt16);
  if (ada_vnni) decode = kDecodeAdaInt16;
  size_forms(size, decode, b);
  b.codes.resize(size);
  b.nan = false;
  const auto run = kernels(path).decode_run;
  const int* isa = layout::isa_k_of_pair_k().data();
  thread_local std::vector<e4m3_t> gathered;
  gathered.resize(static_cast<std::size_t>(b.N));
  // Pointers and extents in locals: a byte store may alias anything (char), which would make the
  // compiler reload the vectors' data pointers and b's extents after every code copied.
  e4m3_t* const gath = gathered.data();
  e4m3_t* const codes = b.codes.data();
  const int N = b.N, K = b.K;
  const bool ada_int16 = (decode & kDecodeAdaInt16) != 0;
  b.bw16.resize(ada_int16 ? size : 0);
  b.beb16.resize(ada_int16 ? size : 0);
  const std::int16_t* const word = ada_words().b;
  const float* const ada_e = code_table().ada_e;
  thread_local std::vector<e4m3_t> isa_rows;
  if (ada_int16 && path == SimdPath::avx512vnni) isa_rows.resize(size);
  // Only the codes and the `zluda` integer form (the avx2 and avx512vnni `zluda` kernels'), from an
  // [n][k] source: the codes' rows are the source's, copied whole (the integer form's decoders
  // below read them and flag the NaN codes).
  const bool k_rows =
      (decode & (kDecodeF32 | kDecodeF64 | kDecodeExponent | kDecodeExponent16 | kDecodeHopperExponent16 | kDecodeAdaInt16)) != 0;
  if (!k_rows && (decode & kDecodeInt16) && k_stride == 1)
    for (int n = 0; n < N; ++n) std::copy(src + n * n_stride, src + n * n_stride + K, codes + static_cast<std::size_t>(n) * K);
  else
    for (int k = 0; k < K; ++k) {
      const e4m3_t* rowk = src + k * k_stride;
      if (n_stride != 1) {
        for (int n = 0; n < N; ++n) gath[n] = rowk[n * n_stride];
        rowk = gath;
      }
      if (ada_int16 && path == SimdPath::avx512vnni) {  // the rows in the ISA order, paired below
        const int ki = (k & ~31) + isa[k & 31];
        std::copy(rowk, rowk + N, isa_rows.data() + static_cast<std::size_t>(ki) * N);
      } else if (ada_int16) {  // ISA k pairs: (k, n) at 2 N (k / 2) + 2 n + (k & 1), k in the ISA order
        const int ki = (k & ~31) + isa[k & 31];
        const std::size_t at = static_cast<std::size_t>(ki >> 1) * 2 * N + (ki & 1);
        std::int16_t* const w = b.bw16.data() + at;
        std::int16_t* const e = b.beb16.data() + at;
        for (int n = 0; n < N; ++n) {
          w[2 * n] = word[rowk[n]];
          e[2 * n] = static_cast<std::int16_t>(ada_e[rowk[n]]);
        }
      }
      for (int n = 0; n < N; ++n) codes[static_cast<std::size_t>(n) * K + k] = rowk[n];
      if (ada_vnni) continue;
      const std::size_t logical = static_cast<std::size_t>(k) * b.N;
      const std::size_t in_isa = static_cast<std::size_t>((k & ~31) + isa[k & 31]) * b.N;
      b.nan |= run({rowk, b.N, b.v64.empty() ? nullptr : b.v64.data() + logical, b.v.empty() ? nullptr : b.v.data() + in_isa,
                    b.e.empty() ? nullptr : b.e.data() + in_isa, b.e16.empty() ? nullptr : b.e16.data() + in_isa,
                    b.he16.empty() ? nullptr : b.he16.data() + in_isa});
    }
  if (ada_int16 && path == SimdPath::avx512vnni)
    for (int k = 0; k < K; k += 2) {
      const std::size_t at = static_cast<std::size_t>(k) * N;
      b.nan |= ada_pairs_b_avx512(isa_rows.data() + at, isa_rows.data() + at + N, N, b.bw16.data() + at, b.beb16.data() + at);
    }
  const bool int16 = (decode & kDecodeInt16) != 0;
  b.i16.resize(int16 ? size : 0);
  b.i16_base.resize(int16 ? static_cast<std::size_t>(b.K / 32) : 0);
  b.i16_max.resize(int16 ? static_cast<std::size_t>(b.K / 32) : 0);
  if (int16 && path == SimdPath::avx512vnni) {
    for (int s = 0; s < b.K / 32; ++s)
      b.nan |= int16_form_b_avx512(b.codes.data() + 32 * s, b.N, b.K, b.i16.data() + static_cast<std::size_t>(32) * b.N * s,
                                   b.i16_base.data() + s, b.i16_max.data() + s);
  } else if (int16 && (path == SimdPath::avx2 || path == SimdPath::avx512)) {
    for (int s = 0; s < b.K / 32; ++s)
      b.nan |= int16_form_b_avx2(b.codes.data() + 32 * s, b.N, b.K, b.i16.data() + static_cast<std::size_t>(32) * b.N * s,
                                 b.i16_base.data() + s, b.i16_max.data() + s);
  } else if (int16)
    for (int s = 0; s < b.K / 32; ++s) {
      // k pairs: element (k, n) of the step at 2 N (k / 2) + 2 n + (k & 1)
      std::int16_t* out = b.i16.data() + static_cast<std::size_t>(32) * b.N * s;
      const auto [base, mx] = int16_kstep(
          b.N, true, [&](int k, int n) { return b.codes[static_cast<std::size_t>(n) * b.K + 32 * s + k]; },
          [&](int k, int n, std::int16_t v) { out[static_cast<std::size_t>(2) * b.N * (k >> 1) + 2 * n + (k & 1)] = v; });
      b.i16_base[static_cast<std::size_t>(s)] = static_cast<std::int8_t>(base);
      b.i16_max[static_cast<std::size_t>(s)] = mx;
      for (int n = 0; n < b.N; ++n)
        for (int k = 0; k < 32; ++k) b.nan |= (b.codes[static_cast<std::size_t>(n) * b.K + 32 * s + k] & 0x7F) == 0x7F;
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
    case SimdPath::avx512vnni: return kernels_avx512vnni();
    case SimdPath::avx512: return kernels_avx512();
    case SimdPath::avx2: return kernels_avx2();
    case SimdPath::scalar: break;
  }
  return kernels_scalar();
}

void gemm(const Profile& p, SimdPath path, const AOperand& a, int a_k0, const BOperand& b, int b_k0, int ksteps, int rows, f16_t* d,
          int ldd) {
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
  const KStepArgs g = kstep_args(p, path, a, a_k0, b, b_k0, ksteps, rows, d, ldd);
  kstep_kernel(p, path, kernels(path), g)(g);
}

KStepArgs kstep_args(const Profile& p, SimdPath path, const AOperand& a, int a_k0, const BOperand& b, int b_k0, int ksteps, int rows,
                     f16_t* d, int ldd) {
  const bool blackwell = p.mma == MmaAccumulation::blackwell_fused_sum;
  const bool ada = p.mma == MmaAccumulation::ada_truncated_halves || blackwell;  // the same operand forms
  const bool hopper = p.mma == MmaAccumulation::hopper_two_hmma;
  KStepArgs g{};
  // An operand form that was not decoded is an empty vector: its pointer stays null (an offset
  // added to a null data() is undefined behaviour, found by fuzz_launch).
  auto at = [](const auto& v, std::size_t off) { return v.empty() ? nullptr : v.data() + off; };
  if (hopper) {
    g.a = at(a.v, a_k0);
    g.b = at(b.v, static_cast<std::size_t>(b_k0) * b.N);
    g.hea16 = a.he16.empty() ? nullptr : a.he16.data() + a_k0;
    g.heb16 = b.he16.empty() ? nullptr : b.he16.data() + static_cast<std::size_t>(b_k0) * b.N;
  } else if (ada) {
    g.a = at(a.v, a_k0);  // empty where only the integer words were decoded (kDecodeAdaInt16)
    g.ea = a.e.empty() ? nullptr : a.e.data() + a_k0;
    g.ea16 = a.e16.empty() ? nullptr : a.e16.data() + a_k0;
    g.b = at(b.v, static_cast<std::size_t>(b_k0) * b.N);
    g.eb = b.e.empty() ? nullptr : b.e.data() + static_cast<std::size_t>(b_k0) * b.N;
    g.eb16 = b.e16.empty() ? nullptr : b.e16.data() + static_cast<std::size_t>(b_k0) * b.N;
    if (!a.aw16.empty() && !b.bw16.empty()) {  // the integer form (kDecodeAdaInt16)
      g.aw16 = a.aw16.data() + a_k0;
      g.bw16 = b.bw16.data() + static_cast<std::size_t>(b_k0) * b.N;
      g.beb16 = b.beb16.data() + static_cast<std::size_t>(b_k0) * b.N;
    }
  }
  const bool zluda = !ada && !hopper;
  if (blackwell || zluda) {                  // the zluda integer form: the AVX2 blackwell kernel reads it too
    if (!a.i16.empty() && !b.i16.empty()) {  // the integer form (kDecodeInt16), at k-step granularity
      g.a16 = a.i16.data() + a_k0;
      g.a16_base = a.i16_base.data() + a_k0 / 32;
      g.a16_l1 = a.i16_l1.data() + a_k0 / 32;
      g.b16 = b.i16.data() + static_cast<std::size_t>(b_k0) * b.N;
      g.b16_base = b.i16_base.data() + b_k0 / 32;
      g.b16_max = b.i16_max.data() + b_k0 / 32;
    }
  }
  if (zluda) {
    if (!a.v64.empty()) g.a64 = a.v64.data() + a_k0;
    if (!b.v64.empty()) g.b64 = b.v64.data() + static_cast<std::size_t>(b_k0) * b.N;
    g.a_codes = a.codes.data() + a_k0;
    g.b_codes = b.codes.data() + b_k0;
    g.ldb_codes = b.K;
    g.value64 = code_table().value64;
  }
  if (ada && !g.aw16 && (!g.a || !g.b))  // both operands decoded for the kernel, or neither reads them
    throw std::logic_error("engine::gemm: ada operands decoded without the binary32 form the kernel reads");
  if (ada && path == SimdPath::avx2 && (!g.ea16 || !g.eb16))  // the AVX2 kernels read the int16 exponents
    throw std::logic_error("engine::gemm: ada operands decoded without the int16 exponents the avx2 kernels read");
  g.lda = a.K;
  g.N = b.N;
  g.d = d;
  g.ldd = ldd;
  g.rows = rows;
  g.ksteps = ksteps;
  return g;
}

KStepKernel kstep_kernel(const Profile& p, SimdPath path, const KernelSet& kern, const KStepArgs& g) {
  if (p.mma == MmaAccumulation::blackwell_fused_sum) return kern.blackwell;
  if (p.mma == MmaAccumulation::hopper_two_hmma) return kern.hopper;
  if (p.mma != MmaAccumulation::ada_truncated_halves) return kern.zluda;
  // Operands decoded without the `ada` integer form (e.g. by another path's decode_for) take the
  // avx512 path's binary32 kernel, which computes the same values.
  return path == SimdPath::avx512vnni && !g.aw16 ? kernels(SimdPath::avx512).ada : kern.ada;
}

}  // namespace rrswin::engine
