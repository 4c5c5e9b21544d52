// The f16 epilogues that dominate a block's fixed cost (E11's row sums and probabilities, the RMS
// norms of the prologue and E20), written once over 8-lane vectors and compiled per ISA like the
// GEMM kernels (kernels_scalar.cpp, kernels_avx2.cpp; the AVX-512 path uses the AVX2 set, whose
// F16C conversions are what matters here). The including translation unit defines, in its
// anonymous namespace, before including this file:
//   V8 load_h8(const f16_t* p)       8 f16 -> 8 binary32, exact
//   V8 rnd(V8 x)                     every lane rounded to f16 (RNE, subnormals kept, overflow to
//                                    Inf) and back; NaN stays NaN (payload unspecified)
//   void store_h8(f16_t* p, V8 x)    the f16 bits, NaN -> the canonical 0x7FFF
//   f16_t to_h(float x), float from_h(f16_t h)   the same for one value
//
// Why this is bit-identical to the golden model (numerics.md "f16 arithmetic", f16_bits.hpp):
// an f16 add or mul is the binary32 operation followed by one rounding to f16 (24 >= 2*11 + 2,
// so the double rounding of a sum is innocuous; a product of two 11-bit significands is exact in
// binary32). The golden code adds f16x2 registers lane by lane; lane l of the f16x2 that holds
// columns (8i + 2t, 8i + 2t + 1) is column 8i + l of the row (l = 2t or 2t + 1), so the golden
// per-lane trees over n-tiles i become the same trees over the 8-column vectors X_i = row[8i ..
// 8i + 7], lane for lane; only the final f16x2 -> f16 combination mixes lanes, and it is done
// here in the golden order. A NaN anywhere stays a NaN (any payload); it is made canonical
// before it is used as a table index or stored, as f16_add / f16_mul do.
#include <cstdint>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <utility>

#include "engine/kernel_args.hpp"
#include "model/layer.hpp"
#include "model/q8_stats.hpp"
#include "model/sum_tree.hpp"

namespace rrswin::engine {
namespace {

// The cross-lane fold of the golden trees (model/sum_tree.hpp fold_lanes) on the 8-column vector
// S (already f16 values): lane pair t of the f16x2 that lane t holds is (S[2t], S[2t+1]); each
// f16x2 add is two binary32 adds rounded to f16; the two halves are added last (add.f16).
struct Pair {
  float lo, hi;
};
inline f16_t fold_lanes(V8 S) {
  const Pair s[4] = {{S[0], S[1]}, {S[2], S[3]}, {S[4], S[5]}, {S[6], S[7]}};
  auto add = [](Pair a, Pair b) { return Pair{from_h(to_h(a.lo + b.lo)), from_h(to_h(a.hi + b.hi))}; };
  return rrswin::fold_lanes(s, add, [](Pair v) { return to_h(v.lo + v.hi); });
}

// Counts of a q8 (golden::quantise's statistics, model/q8_stats.hpp) for one f16.
inline void count_q8(f16_t h, EpilogueCounts& n) {
  n.f16_subnormal += golden::q8_counts_subnormal(h);
  n.e4m3_saturated += golden::q8_counts_saturated(h);
}

// E11 (facts C4) for `rows` score rows of 96 keys: e = e11(s), the row sum (golden tree), its
// reciprocal, p = e * rcp, q8(p); with the statistics the golden model counts there. Everything
// the loop reads is held in locals: a byte store of a code (through `unsigned char`, which may
// alias anything) would otherwise make the compiler reload g's pointers after every element.
// Without statistics, several rows at a time: a row is one long chain of dependent roundings (the
// sum tree, the fold, the reciprocal, the products), and the second row's chain fills the first's
// latencies (avx2, Zen 3: E11 70.9 -> 63.1 us per block; docs/performance.md "Zen 3 (AVX2 only)");
// four rows where there are four (avx2 on Zen 4: 51.5 -> 49.3 us, docs/performance.md "Zen 4"), then
// two, then one.
void e11_rows(const E11Args& g) {
  const f16_t* const s = g.s;
  e4m3_t* const p = g.p;
  const int rows = g.rows;
  const f16_t* const e11 = g.e11;
  const std::uint8_t* const e11_clamp = g.e11_clamp;
  const f16_t* const rcp_table = g.rcp;
  const e4m3_t* const q8 = g.q8;
  EpilogueCounts* const counts = g.counts;
  const auto q8_run = g.q8_run;
  const bool nan_keeps_sign = g.q8_nan_keeps_sign;
  const auto expval_run = g.expval_run;
  // steps 1..5 (e = e11(s)) of one row into 12 vectors
  auto exps = [&](const f16_t* srow, V8(&E)[12]) {
    alignas(32) f16_t e[96];
    if (expval_run)
      expval_run(srow, e, 96);
    else
      for (int c = 0; c < 96; ++c) e[c] = e11[srow[c]];
    for (int i = 0; i < 12; ++i) E[i] = load_h8(e + 8 * i);
  };
  // steps 6..9: the row sum, its reciprocal
  auto reciprocal = [&](const V8(&E)[12]) { return from_h(rcp_table[fold_lanes(e11_in_lane(E, [](V8 a, V8 b) { return rnd(a + b); }))]); };
  // the probabilities p = e * rcp and their codes, without statistics
  auto codes = [&](const V8(&E)[12], float rf, e4m3_t* prow) {
    alignas(32) f16_t pv[96];
    for (int i = 0; i < 12; ++i) store_h8(pv + 8 * i, E[i] * rf);
    if (q8_run) {
      q8_run(pv, prow, 96, nan_keeps_sign);
      return;
    }
    for (int c = 0; c < 96; c += 8) {  // 8 codes, one store
      std::uint64_t w = 0;
      for (int l = 0; l < 8; ++l) w |= static_cast<std::uint64_t>(q8[pv[c + l]]) << (8 * l);
      std::memcpy(prow + c, &w, 8);
    }
  };
  // R rows per step without statistics (the rows' chains overlap)
  auto step = [&]<int R>(int r0) {
    V8 E[R][12];
    for (int u = 0; u < R; ++u) exps(s + (r0 + u) * 96, E[u]);
    float rf[R];
    for (int u = 0; u < R; ++u) rf[u] = reciprocal(E[u]);
    for (int u = 0; u < R; ++u) codes(E[u], rf[u], p + (r0 + u) * 96);
  };
  int r = 0;
  if (!counts) {
    for (; r + 4 <= rows; r += 4) step.template operator()<4>(r);
    for (; r + 2 <= rows; r += 2) step.template operator()<2>(r);
  }
  for (; r < rows; ++r) {
    const f16_t* srow = s + r * 96;
    V8 E[12];
    exps(srow, E);
    const float rf = reciprocal(E);
    e4m3_t* const prow = p + r * 96;
    if (!counts) {
      codes(E, rf, prow);
      continue;
    }
    for (int c = 0; c < 96; ++c) {
      const unsigned f = e11_clamp[srow[c]];
      counts->e11_clamp_low += f & 1u;
      counts->e11_clamp_high += (f >> 1) & 1u;
    }
    alignas(32) f16_t pv[96];
    for (int i = 0; i < 12; ++i) store_h8(pv + 8 * i, E[i] * rf);
    for (int c = 0; c < 96; ++c) {
      prow[c] = q8[pv[c]];
      count_q8(pv[c], *counts);
      counts->p_quantised_zero += golden::q8_counts_quantised_zero(pv[c], prow[c]);
    }
  }
}

// Calls f.template operator()<NT>() with NT = n_tiles, an entry of kFusedNTiles (kernel_args.hpp):
// each kernel below is instantiated once per entry of that one list, and selected per call by the
// layer's C / 8. Another count is a logic error (engine/layer_engine.cpp routes such a layer to
// the golden parts).
template <class F, std::size_t... I>
void with_n_tiles_impl(int n_tiles, F& f, std::index_sequence<I...>) {
  const bool found = ((n_tiles == kFusedNTiles[I] ? (f.template operator()<kFusedNTiles[I]>(), true) : false) || ...);
  if (!found) throw std::logic_error("engine: an epilogue kernel for C/8 outside kFusedNTiles");
}
template <class F>
void with_n_tiles(int n_tiles, F&& f) {
  with_n_tiles_impl(n_tiles, f, std::make_index_sequence<std::size(kFusedNTiles)>{});
}

// RMS norm rows of C = 8 NT channels (facts B4, C8): out = x * (inv * gain), inv = golden::rms_inverse
// of the sum of squares (the golden model's rsqrt(f16(sum + eps)), called once per row), the
// in-lane tree the NT-term reduce_in_lane (model/sum_tree.hpp: 20 terms at C = 160, 16 at 128, 12
// at 96, as golden::rms_sum_of_squares picks it). Two rows at a time, as E11: a row is one chain
// of dependent roundings (the tree, the fold, the inverse, the gains), and the second row's chain
// fills the first's latencies.
template <int NT>
void rms_rows_nt(const RmsArgs& g) {
  constexpr int C = 8 * NT;
  const auto tree = static_cast<SumTree>(g.tree);
  auto squares = [](const f16_t* row, V8(&X)[NT], V8(&T)[NT]) {
    for (int i = 0; i < NT; ++i) {
      X[i] = load_h8(row + 8 * i);
      T[i] = rnd(X[i] * X[i]);
    }
  };
  // the golden definition of the inverse, once per row
  auto inverse = [tree, &g](const V8(&T)[NT]) {
    return golden::rms_inverse(fold_lanes(reduce_in_lane(T, tree, [](V8 a, V8 b) { return rnd(a + b); })), g.eps);
  };
  auto scaled = [&g](const V8(&X)[NT], f16_t inv, f16_t* out) {
    const float fi = from_h(inv);
    for (int i = 0; i < NT; ++i) store_h8(out + 8 * i, X[i] * rnd(load_h8(g.gain + 8 * i) * fi));
  };
  int r = 0;
  for (; r + 2 <= g.rows; r += 2) {
    V8 X0[NT], T0[NT], X1[NT], T1[NT];
    squares(g.x + r * C, X0, T0);
    squares(g.x + (r + 1) * C, X1, T1);
    const f16_t inv0 = inverse(T0), inv1 = inverse(T1);
    scaled(X0, inv0, g.out + r * C);
    scaled(X1, inv1, g.out + (r + 1) * C);
  }
  for (; r < g.rows; ++r) {
    V8 X[NT], T[NT];
    squares(g.x + r * C, X, T);
    scaled(X, inverse(T), g.out + r * C);
  }
}
void rms_rows(const RmsArgs& g) {
  with_n_tiles(g.channels / 8, [&]<int NT>() { rms_rows_nt<NT>(g); });
}

// out = f16_add(t[c], x[r][c]) on `rows` rows of C (phase 13's and 22's C seeds, facts C6 / C9).
void add_rows(const AddRowsArgs& g) {
  const int C = g.channels;
  for (int r = 0; r < g.rows; ++r)
    for (int i = 0; i < C; i += 8) store_h8(g.out + r * C + i, load_h8(g.t + i) + load_h8(g.x + r * C + i));
}

}  // namespace
}  // namespace rrswin::engine
