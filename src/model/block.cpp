// One block of the kernel, part after part in the kernel's order (facts C0).
#include "model/layer.hpp"

namespace enc5::golden {

void run_block(const BlockContext& ctx, const BlockIo& io) {
  const PrologueOut pro = prologue(ctx, io.input_arena);             // facts B
  const std::array<HeadOut, kHeads> heads = attention(ctx, pro.h1);  // phases 1..12, E10, E11
  if (ctx.last_phase && ctx.last_phase <= 12) return;                // a debug stage (facts F2)
  const OutProjOut proj = out_projection(ctx, pro, heads);           // E12, phases 13..20
  if (ctx.last_phase) return;
  const E20Out norm = e20_norm(ctx, proj.d20);  // E20
  if (StageRef st = ctx.stage("e20.sum", "E20 row sums: reg rh = f16 sum of squares of row 16z+g+8rh in both halves", 4, 2))
    for (int z = 0; z < 4; ++z)
      for (int lane = 0; lane < 32; ++lane)
        for (int rh = 0; rh < 2; ++rh) {
          const f16_t s = norm.sum[16 * z + (lane >> 2) + 8 * rh];
          st->at(z, lane, rh) = f16x2_pack(s, s);
        }
  if (StageRef st = ctx.stage("e20.inv", "E20 inverses: reg rh = f16 rsqrt(sum + 2^-13) of row 16z+g+8rh in both halves", 4, 2))
    for (int z = 0; z < 4; ++z)
      for (int lane = 0; lane < 32; ++lane)
        for (int rh = 0; rh < 2; ++rh) {
          const f16_t s = norm.inv[16 * z + (lane >> 2) + 8 * rh];
          st->at(z, lane, rh) = f16x2_pack(s, s);
        }
  if (StageRef st =
          ctx.stage("e20.n", "E20 normalised tile N (f16, before q8): reg 2nt+rh = f16x2 (row 16z+g+8rh, cols 8nt+2t, +1)", 4, 40))
    for (int z = 0; z < 4; ++z) record_tile(*st, z, norm.n, 16 * z, 0, 20);
  const MlpOut m = mlp(ctx, proj.d20, norm);                   // phases 21..60
  const E4Mat a61 = e60_scatter(ctx, m.d60, io.output_arena);  // E60
  const F16Mat d61 = phase61(ctx, a61);                        // phase 61
  e61(ctx, d61, *io.texture, *io.surface);                     // E61
}

}  // namespace enc5::golden
