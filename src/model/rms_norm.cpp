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
  // Butterflies xor 1 then xor 2 (facts C8.3), then add.f16 of the two halves.
  return fold_lanes(s, add2, [](f16x2_t v) { return f16_add(f16x2_lo(v), f16x2_hi(v)); });
}

f16_t rms_inverse(f16_t sum, f16_t eps) {
  // facts C8.4: inv = f16(rsqrt.approx.ftz.f32(f32(f16(sum + eps)))).
  return rsqrt_f16(f16_add(sum, eps));
}

void rms_norm_rows(const NormSpec& spec, const f16_t* x, f16_t* out, int rows) {
  for (int r = 0; r < rows; ++r) {
    const f16_t* row = x + static_cast<std::size_t>(r) * kChannels;
    const f16_t inv = rms_inverse(rms_sum_of_squares(row, spec.tree), spec.eps);
    for (int c = 0; c < kChannels; ++c) out[static_cast<std::size_t>(r) * kChannels + c] = f16_mul(row[c], f16_mul(inv, spec.gain[c]));
  }
}

NormSpec e20_norm_spec(const BlockContext& ctx) {
  // facts C8: sum of squares of each row of D20 (the 20 n-tiles the warp holds) in the reading
  // e20-sum-tree, + kE20Eps, rsqrt, then N = f16(x * f16(inv * g2[c])).
  return NormSpec{ctx.readings->e20_sum_tree, kE20Eps, load_column_table(*ctx.weights, wmap::g2, ctx.readings->g2_chunk_order)};
}

E20Out e20_norm(const BlockContext& ctx, const F16Mat& d20) {
  const NormSpec spec = e20_norm_spec(ctx);
  E20Out out;
  out.n = F16Mat(d20.rows, kChannels);
  rms_norm_rows(spec, d20.v.data(), out.n.v.data(), d20.rows);
  // The per-row sums and inverses again, for the trace stages e20.sum / e20.inv.
  out.sum.resize(d20.rows);
  out.inv.resize(d20.rows);
  for (int r = 0; r < d20.rows; ++r) {
    out.sum[r] = rms_sum_of_squares(&d20.v[static_cast<std::size_t>(r) * kChannels], spec.tree);
    out.inv[r] = rms_inverse(out.sum[r], spec.eps);
  }
  return out;
}

}  // namespace enc5::golden
