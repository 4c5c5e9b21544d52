// The RMS norm pieces shared by the prologue norm (facts B4) and E20 (facts C8): the sum of squares
// with the kernel's reduction order, and the inverse.
#include <vector>

#include "layout/tables.hpp"
#include "model/layer.hpp"
#include "numerics/approx.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"

namespace enc5::golden {

namespace {

f16x2_t add2(f16x2_t a, f16x2_t b) { return f16x2_add(a, b); }

// The in-lane reduction of the 20 f16x2 pairs T[0..19] (one add.f16x2 per node; 19 adds).
// facts C8.2: the 20-term tree is undocumented; these are the readings (model/readings.hpp).
f16x2_t in_lane_tree(const f16x2_t T[20], SumTree tree) {
  auto q = [&](int a, int b, int c, int d) { return add2(add2(T[a], T[b]), add2(T[c], T[d])); };
  switch (tree) {
    case SumTree::even_odd_quads: {
      // The 20-term analogue of SWM's tree_norm2 (facts C8.2): even n-tiles in quads, then the
      // remaining pair; odd likewise; then even + odd.
      const f16x2_t even = add2(add2(q(0, 2, 4, 6), q(8, 10, 12, 14)), add2(T[16], T[18]));
      const f16x2_t odd = add2(add2(q(1, 3, 5, 7), q(9, 11, 13, 15)), add2(T[17], T[19]));
      return add2(even, odd);
    }
    case SumTree::planes: {
      // SWM's sibling-M prologue grouping (facts B4): per plane q (n-tiles 4q..4q+3) the k-lo
      // word's pairs (n-tiles 4q, 4q+2) and the k-hi word's (4q+1, 4q+3); planes combined as
      // ((p0+p1)+(p2+p3))+p4; then the two words.
      f16x2_t A[5], B[5];
      for (int p = 0; p < 5; ++p) {
        A[p] = add2(T[4 * p], T[4 * p + 2]);
        B[p] = add2(T[4 * p + 1], T[4 * p + 3]);
      }
      const f16x2_t a = add2(add2(add2(A[0], A[1]), add2(A[2], A[3])), A[4]);
      const f16x2_t b = add2(add2(add2(B[0], B[1]), add2(B[2], B[3])), B[4]);
      return add2(a, b);
    }
    case SumTree::sequential: {
      f16x2_t s = T[0];
      for (int i = 1; i < 20; ++i) s = add2(s, T[i]);
      return s;
    }
    case SumTree::pairwise: {
      std::vector<f16x2_t> level(T, T + 20);
      while (level.size() > 1) {
        std::vector<f16x2_t> next;
        for (std::size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(add2(level[i], level[i + 1]));
        if (level.size() % 2) next.push_back(level.back());
        level.swap(next);
      }
      return level[0];
    }
  }
  return 0;
}

}  // namespace

f16_t rms_sum_of_squares(const f16_t row[kChannels], SumTree tree) {
  f16x2_t s[4];
  for (int t = 0; t < 4; ++t) {
    f16x2_t T[20];
    for (int nt = 0; nt < 20; ++nt) {
      const f16_t a = row[8 * nt + 2 * t], b = row[8 * nt + 2 * t + 1];
      T[nt] = f16x2_pack(f16_mul(a, a), f16_mul(b, b));  // mul.f16 squares (facts C8.1)
    }
    s[t] = in_lane_tree(T, tree);
  }
  // Butterflies xor 1 then xor 2 (facts C8.3, verified enc0 order): lane t ends with
  // (s_t + s_t^1) + (s_t^2 + s_t^3); f16 addition is commutative, so all four lanes agree.
  const f16x2_t u0 = add2(s[0], s[1]), u2 = add2(s[2], s[3]);
  const f16x2_t v = add2(u0, u2);
  return f16_add(f16x2_lo(v), f16x2_hi(v));  // add.f16 of the two halves
}

f16_t rms_inverse(f16_t sum, f16_t eps) {
  // facts C8.4: inv = f16(rsqrt.approx.ftz.f32(f32(f16(sum + eps)))).
  return rsqrt_f16(f16_add(sum, eps));
}

E20Out e20_norm(const BlockContext& ctx, const F16Mat& d20) {
  // facts C8: sum of squares of each row of D20 (the 20 n-tiles the warp holds), + 2^-13 (the f16
  // 0x0800 materialised at s12820), rsqrt, then N = f16(x * f16(inv * g2[c])).
  const auto g2 = load_column_table(*ctx.weights, wmap::g2, ctx.readings->g2_chunk_order);
  constexpr f16_t kEps = 0x0800;  // 2^-13, facts C8.4 (CONFIRMED, appendix §3)
  E20Out out;
  out.n = F16Mat(d20.rows, kChannels);
  out.sum.resize(d20.rows);
  out.inv.resize(d20.rows);
  for (int r = 0; r < d20.rows; ++r) {
    const f16_t* row = &d20.v[static_cast<std::size_t>(r) * kChannels];
    out.sum[r] = rms_sum_of_squares(row, ctx.readings->e20_sum_tree);
    out.inv[r] = rms_inverse(out.sum[r], kEps);
    for (int c = 0; c < kChannels; ++c) out.n.at(r, c) = f16_mul(row[c], f16_mul(out.inv[r], g2[c]));
  }
  return out;
}

}  // namespace enc5::golden
