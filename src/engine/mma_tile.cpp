// engine/mma_tile.hpp: one m16n8k32 tile through the engine's k-step kernels.
//
// The kernels want N a multiple of 16 and the tile has N = 8, so they run the transposed product:
// D^T = B^T A^T, i.e. the kernels' A operand is B's 8 columns (rows of K = 32) and their B operand
// is A's 16 rows (N = 16), C^T on entry. Every profile's dot product is symmetric in its two factors
// (numerics.md "mma": the products a*b, the exponents e(a) + e(b), the NaN and zero-sign rules of
// numerics/mma.cpp all treat a and b alike), and the k order is the same for both, so D^T[n][m] =
// mma_dot(B[.][n], A[m][.], C[m][n]) = D[m][n].
//
// The operands are decoded straight from the registers into the arrays the kernels read, in the
// layouts AOperand / BOperand give them (gemm.hpp: values and exponents in the ISA k order inside
// the k-step, binary64 values and codes in the logical pair order), through flat tables built once:
// where each register byte goes (layout/fragment.hpp's element maps composed with
// layout::isa_k_of_pair_k), then decoded by the path's decode_run (the decoder of every operand).
// No allocation, no resizing, one byte permutation per form order.
#include "engine/mma_tile.hpp"

#include <bit>
#include <cstdint>
#include <cstring>

#include "engine/gemm.hpp"
#include "layout/fragment.hpp"

namespace rrswin::engine {
namespace {

constexpr int kA = 32 * 4 * 4, kB = 32 * 2 * 4, kCD = 32 * 2 * 2;  // register bytes / halves of a tile

// Register byte j of a b32 register is bits 8j..8j+7, i.e. byte j in memory on this little-endian
// host, so a fragment is read as a flat byte array in (lane, reg, byte) order.
struct Maps {
  std::uint16_t a_isa[kA], a_logical[kA];  // A byte -> the kernels' B operand [k][16]: k * 16 + row
  std::uint16_t a_codes[kA];               // A byte -> the codes of that operand, [row][32]: row * 32 + k
  std::uint16_t b_isa[kB], b_logical[kB];  // B byte -> the kernels' A operand [n][32]: n * 32 + k
  std::uint16_t cd[kCD];                   // C/D half -> [n][16]: col * 16 + row
};
const Maps& maps() {
  static const Maps m = [] {
    Maps t{};
    const int* isa = layout::isa_k_of_pair_k().data();
    for (int lane = 0; lane < 32; ++lane) {
      for (int reg = 0; reg < 4; ++reg)
        for (int byte = 0; byte < 4; ++byte) {
          const layout::RowK e = layout::a_element_pair(lane, reg, byte);
          const int i = (lane * 4 + reg) * 4 + byte;
          t.a_logical[i] = static_cast<std::uint16_t>(e.k * 16 + e.row);
          t.a_isa[i] = static_cast<std::uint16_t>(isa[e.k] * 16 + e.row);
          t.a_codes[i] = static_cast<std::uint16_t>(e.row * 32 + e.k);
        }
      for (int reg = 0; reg < 2; ++reg)
        for (int byte = 0; byte < 4; ++byte) {
          const layout::KCol e = layout::b_element_pair(lane, reg, byte);
          const int i = (lane * 2 + reg) * 4 + byte;
          t.b_logical[i] = static_cast<std::uint16_t>(e.col * 32 + e.k);
          t.b_isa[i] = static_cast<std::uint16_t>(e.col * 32 + isa[e.k]);
        }
      for (int reg = 0; reg < 2; ++reg)
        for (int half = 0; half < 2; ++half) {
          const layout::RowCol e = layout::cd_element(lane, reg, half);
          t.cd[(lane * 2 + reg) * 2 + half] = static_cast<std::uint16_t>(e.col * 16 + e.row);
        }
    }
    return t;
  }();
  return m;
}

// Whether some byte of the n bytes is a NaN code (0x7F / 0xFF): y = (x & 0x7F7F7F7F) ^
// 0x7F7F7F7F has a zero byte exactly there, and its bytes are <= 0x7F, so the classic zero-byte
// test is exact.
bool has_nan_code(const std::uint8_t* bytes, int n) {
  std::uint32_t any = 0;
  for (int i = 0; i < n; i += 4) {
    std::uint32_t x;
    std::memcpy(&x, bytes + i, 4);
    const std::uint32_t y = (x & 0x7F7F7F7Fu) ^ 0x7F7F7F7Fu;
    any |= (y - 0x01010101u) & ~y & 0x80808080u;
  }
  return any != 0;
}

}  // namespace

namespace {

// The kernels' operands of one tile: "ka" = B^T (8 rows of K = 32), "kb" = A^T (K = 32 x N = 16),
// in every form a kernel may read (only those `forms` names are filled).
struct TileOperands {
  alignas(64) float ka_v[8 * 32], ka_e[8 * 32], kb_v[32 * 16], kb_e[32 * 16];
  alignas(64) double ka_v64[8 * 32], kb_v64[32 * 16];
  alignas(64) std::int16_t ka_e16[8 * 32], kb_e16[32 * 16], ka_he16[8 * 32], kb_he16[32 * 16];
  alignas(64) e4m3_t ka_isa[8 * 32], kb_isa[32 * 16];                           // the codes where the ISA-order forms go
  alignas(64) e4m3_t ka_codes[8 * 32], kb_logical[32 * 16], kb_codes[16 * 32];  // logical k order
  unsigned forms = 0;
};

// Permutes the register bytes into each form's order and decodes them with the path's decoder.
void decode_operands(const Profile& p, SimdPath path, const std::uint8_t (&ab)[kA], const std::uint8_t (&bb)[kB], TileOperands& o) {
  const Maps& map = maps();
  // The forms the profile's kernel reads (gemm.hpp: decode_for); the VNNI `zluda` kernel takes
  // the binary64 values where an operand has no integer form (kernels_avx512vnni.cpp), so a tile
  // gets those instead of the integer form.
  o.forms = decode_for(p, path);
  if (o.forms & kDecodeInt16) o.forms = (o.forms & ~static_cast<unsigned>(kDecodeInt16)) | kDecodeF64;
  // The avx512vnni `ada` kernel's integer words are not built for one tile: it takes the avx512
  // kernel's forms (and that kernel, kstep_for), the same values.
  if (o.forms & kDecodeAdaInt16) o.forms = kDecodeF32 | kDecodeExponent16;
  const auto run = kernels(path).decode_run;
  const unsigned forms = o.forms;
  if (forms & (kDecodeF32 | kDecodeExponent | kDecodeExponent16 | kDecodeHopperExponent16)) {
    for (int i = 0; i < kB; ++i) o.ka_isa[map.b_isa[i]] = bb[i];
    for (int i = 0; i < kA; ++i) o.kb_isa[map.a_isa[i]] = ab[i];
    const bool f32 = forms & kDecodeF32, e = forms & kDecodeExponent, e16 = forms & kDecodeExponent16,
               he16 = forms & kDecodeHopperExponent16;
    run({o.ka_isa, 8 * 32, nullptr, f32 ? o.ka_v : nullptr, e ? o.ka_e : nullptr, e16 ? o.ka_e16 : nullptr, he16 ? o.ka_he16 : nullptr});
    run({o.kb_isa, 32 * 16, nullptr, f32 ? o.kb_v : nullptr, e ? o.kb_e : nullptr, e16 ? o.kb_e16 : nullptr, he16 ? o.kb_he16 : nullptr});
  }
  if (forms & kDecodeF64) {
    for (int i = 0; i < kB; ++i) o.ka_codes[map.b_logical[i]] = bb[i];
    for (int i = 0; i < kA; ++i) o.kb_logical[map.a_logical[i]] = ab[i];
    for (int i = 0; i < kA; ++i) o.kb_codes[map.a_codes[i]] = ab[i];
    run({o.ka_codes, 8 * 32, o.ka_v64, nullptr, nullptr, nullptr, nullptr});
    run({o.kb_logical, 32 * 16, o.kb_v64, nullptr, nullptr, nullptr, nullptr});
  }
}

// The profile's kernel and the arguments gemm() gives it (gemm.cpp) for one k-step of 8 rows.
KStepKernel kstep_for(const Profile& p, SimdPath path, TileOperands& o, f16_t* dt, KStepArgs& g) {
  const KernelSet kern = kernels(path);
  const bool blackwell = p.mma == MmaAccumulation::blackwell_fused_sum;
  const bool hopper = p.mma == MmaAccumulation::hopper_two_hmma;
  const bool ada = p.mma == MmaAccumulation::ada_truncated_halves || blackwell;
  KStepKernel kernel = kern.zluda;
  if (hopper) {
    kernel = kern.hopper;
    g.a = o.ka_v;
    g.b = o.kb_v;
    if (o.forms & kDecodeHopperExponent16) {
      g.hea16 = o.ka_he16;
      g.heb16 = o.kb_he16;
    }
  } else if (ada) {
    kernel = blackwell ? kern.blackwell : path == SimdPath::avx512vnni ? kernels(SimdPath::avx512).ada : kern.ada;
    g.a = o.ka_v;
    g.b = o.kb_v;
    if (o.forms & kDecodeExponent) {
      g.ea = o.ka_e;
      g.eb = o.kb_e;
    }
    if (o.forms & kDecodeExponent16) {
      g.ea16 = o.ka_e16;
      g.eb16 = o.kb_e16;
    }
  } else {
    g.a64 = o.ka_v64;
    g.b64 = o.kb_v64;
    g.a_codes = o.ka_codes;
    g.b_codes = o.kb_codes;
    g.ldb_codes = 32;
    g.value64 = code_table().value64;
  }
  g.lda = 32;
  g.N = 16;
  g.d = dt;
  g.ldd = 16;
  g.rows = 8;
  g.ksteps = 1;
  return kernel;
}

}  // namespace

MmaFragC mma_fragment(const Profile& p, SimdPath path, const MmaFragA& a, const MmaFragB& b, const MmaFragC& c) {
  if (!native(p)) return mma_m16n8k32(p, a, b, c);
  static_assert(std::endian::native == std::endian::little);
  static_assert(sizeof(MmaFragA) == kA && sizeof(MmaFragB) == kB && sizeof(MmaFragC) == 2 * kCD);
  std::uint8_t ab[kA], bb[kB];
  std::memcpy(ab, &a, sizeof ab);
  std::memcpy(bb, &b, sizeof bb);
  if (has_nan_code(ab, kA) || has_nan_code(bb, kB)) return mma_m16n8k32(p, a, b, c);  // the exact scalar path
  const Maps& map = maps();
  std::uint16_t cb[kCD];
  std::memcpy(cb, &c, sizeof cb);
  alignas(64) f16_t dt[8 * 16];  // C^T, then D^T ([n][m])
  for (int i = 0; i < kCD; ++i) dt[map.cd[i]] = cb[i];
  TileOperands o;
  decode_operands(p, path, ab, bb, o);
  KStepArgs g{};
  kstep_for(p, path, o, dt, g)(g);
  MmaFragC d;
  for (int i = 0; i < kCD; ++i) cb[i] = dt[map.cd[i]];
  std::memcpy(&d, cb, sizeof d);
  return d;
}

}  // namespace rrswin::engine
