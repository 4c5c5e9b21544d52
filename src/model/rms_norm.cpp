// The RMS norm pieces shared by the prologue norm (facts B4) and E20 (facts C8): the sum of squares
// with the kernel's reduction order, and the inverse.
#include <vector>

#include "layout/tables.hpp"
#include "model/layer.hpp"
#include "model/sum_tree.hpp"
#include "numerics/approx.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"

namespace enc5::golden {

namespace {

f16x2_t add2(f16x2_t a, f16x2_t b) { return f16x2_add(a, b); }

}  // namespace

f16_t rms_sum_of_squares(const f16_t row[kChannels], SumTree tree) {
  f16x2_t s[4];
  for (int t = 0; t < 4; ++t) {
    f16x2_t T[20];
    for (int nt = 0; nt < 20; ++nt) {
      const f16_t a = row[8 * nt + 2 * t], b = row[8 * nt + 2 * t + 1];
      T[nt] = f16x2_pack(f16_mul(a, a), f16_mul(b, b));  // mul.f16 squares (facts C8.1)
    }
    s[t] = reduce_in_lane(T, tree, add2);
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
