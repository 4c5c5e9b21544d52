// The RMS norm pieces shared by the prologue norm (facts B4) and E20 (facts C8): the sum of squares
// with the kernel's reduction order, and the inverse.
#include <stdexcept>
#include <vector>

#include "layout/tables.hpp"
#include "model/layer.hpp"
#include "model/sum_tree.hpp"
#include "numerics/approx.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"

namespace rrswin::golden {

namespace {

f16x2_t add2(f16x2_t a, f16x2_t b) { return f16x2_add(a, b); }

}  // namespace

namespace {

// One lane's in-lane tree over its N = C/8 n-tile squares (facts C8.2; N = 16 at C = 128, 12 at
// C = 96, 8 at C = 64, 4 at C = 32: the readings enc3-sum-trees, enc2-sum-trees, dec1-sum-trees;
// C = 32's tree is HIP-e0's verified one).
template <int N>
f16x2_t lane_sum(const f16_t* row, int t, SumTree tree) {
  f16x2_t T[N];
  for (int nt = 0; nt < N; ++nt) {
    const f16_t a = row[8 * nt + 2 * t], b = row[8 * nt + 2 * t + 1];
    T[nt] = f16x2_pack(f16_mul(a, a), f16_mul(b, b));  // mul.f16 squares (facts C8.1)
  }
  return reduce_in_lane(T, tree, add2);
}

}  // namespace

f16_t rms_sum_of_squares(const f16_t* row, SumTree tree, int channels) {
  f16x2_t s[4];
  for (int t = 0; t < 4; ++t) switch (channels) {
      case 160: s[t] = lane_sum<20>(row, t, tree); break;
      case 128: s[t] = lane_sum<16>(row, t, tree); break;
      case 96: s[t] = lane_sum<12>(row, t, tree); break;
      case 64: s[t] = lane_sum<8>(row, t, tree); break;
      case 32: s[t] = lane_sum<4>(row, t, tree); break;
      default: throw std::invalid_argument("rms_sum_of_squares: C is not 160, 128, 96, 64 or 32");
    }
  // Butterflies xor 1 then xor 2 (facts C8.3; DOC3 E14: the same two steps), then add.f16 of the two halves.
  return fold_lanes(s, add2, [](f16x2_t v) { return f16_add(f16x2_lo(v), f16x2_hi(v)); });
}

f16_t rms_inverse(f16_t sum, f16_t eps) {
  // facts C8.4: inv = f16(rsqrt.approx.ftz.f32(f32(f16(sum + eps)))).
  return rsqrt_f16(f16_add(sum, eps));
}

void rms_norm_rows(const NormSpec& spec, const f16_t* x, f16_t* out, int rows) {
  const int C = static_cast<int>(spec.gain.size());
  for (int r = 0; r < rows; ++r) {
    const f16_t* row = x + static_cast<std::size_t>(r) * C;
    const f16_t inv = rms_inverse(rms_sum_of_squares(row, spec.tree, C), spec.eps);
    for (int c = 0; c < C; ++c) out[static_cast<std::size_t>(r) * C + c] = f16_mul(row[c], f16_mul(inv, spec.gain[c]));
  }
}

NormSpec e20_norm_spec(const BlockContext& ctx) {
  // facts C8: sum of squares of each row of D20 (the 20 n-tiles the warp holds) in the reading
  // mlp-norm-sum-tree, + kE20Eps, rsqrt, then N = f16(x * f16(inv * g2[c])). enc3's E14 (DOC3 §3/E14):
  // the same over 16 n-tiles, + 2^-13 (%fd1, DOC3 §1.2), the gain at g2 = 98816.
  const int C = ctx.layer().channels;
  return NormSpec{ctx.readings->e20_sum_tree, kE20Eps,
                  load_column_table(*ctx.weights, ctx.weight_map().g2(), ctx.readings->g2_chunk_order, C)};
}

E20Out e20_norm(const BlockContext& ctx, const F16Mat& d20) {
  const NormSpec spec = e20_norm_spec(ctx);
  const int C = static_cast<int>(spec.gain.size());
  E20Out out;
  out.n = F16Mat(d20.rows, C);
  rms_norm_rows(spec, d20.v.data(), out.n.v.data(), d20.rows);
  // The per-row sums and inverses again, for the trace stages e20.sum / e20.inv.
  out.sum.resize(d20.rows);
  out.inv.resize(d20.rows);
  for (int r = 0; r < d20.rows; ++r) {
    out.sum[r] = rms_sum_of_squares(&d20.v[static_cast<std::size_t>(r) * C], spec.tree, C);
    out.inv[r] = rms_inverse(out.sum[r], spec.eps);
  }
  return out;
}

void record_norm_stages(const BlockContext& ctx, const E20Out& norm) {
  // Named after the epilogue: e20.* for enc5/enc4, e14.* for enc3 (the norm after the last
  // projection phase).
  const int e = ctx.layer().last_projection(), C = norm.n.cols;
  if (StageRef st = ctx.stage(cat("e", e, ".sum"), cat("E", e, " row sums: reg rh = f16 sum of squares of row 16z+g+8rh in both halves"),
                              StageKind::norm_row))
    for (int z = 0; z < 4; ++z)
      for (int lane = 0; lane < 32; ++lane)
        for (int rh = 0; rh < 2; ++rh) {
          const f16_t s = norm.sum[16 * z + (lane >> 2) + 8 * rh];
          st->at(z, lane, rh) = f16x2_pack(s, s);
        }
  if (StageRef st =
          ctx.stage(cat("e", e, ".inv"), cat("E", e, " inverses: reg rh = f16 rsqrt(sum + 2^-13) of row 16z+g+8rh in both halves"),
                    StageKind::norm_row))
    for (int z = 0; z < 4; ++z)
      for (int lane = 0; lane < 32; ++lane)
        for (int rh = 0; rh < 2; ++rh) {
          const f16_t s = norm.inv[16 * z + (lane >> 2) + 8 * rh];
          st->at(z, lane, rh) = f16x2_pack(s, s);
        }
  if (StageRef st = ctx.stage(cat("e", e, ".n"),
                              cat("E", e, " normalised tile N (f16, before q8): reg 2nt+rh = f16x2 (row 16z+g+8rh, cols 8nt+2t, +1)"),
                              StageKind::row_tile))
    for (int z = 0; z < 4; ++z) record_tile(*st, z, norm.n, 16 * z, 0, C / 8);
}

}  // namespace rrswin::golden
