// One block of the kernel, part after part in the kernel's order (facts C0).
#include "model/layer.hpp"

namespace rrswin::golden {

void run_block(const BlockContext& ctx, const BlockIo& io) {
  const PrologueOut pro = prologue(ctx, io.input_arena);      // facts B
  const std::vector<HeadOut> heads = attention(ctx, pro.h1);  // phases 1..12, E10, E11
  if (ctx.last_phase && ctx.last_phase <= 12) return;         // a debug stage (facts F2)
  const OutProjOut proj = out_projection(ctx, pro, heads);    // E12, phases 13..20
  if (ctx.last_phase) return;
  const E20Out norm = e20_norm(ctx, proj.d20);  // E20
  record_norm_stages(ctx, norm);
  const MlpOut m = mlp(ctx, proj.d20, norm);                   // phases 21..60
  const E4Mat a61 = e60_scatter(ctx, m.d60, io.output_arena);  // E60
  const F16Mat d61 = phase61(ctx, a61);                        // phase 61
  e61(ctx, d61, *io.texture, *io.surface);                     // E61
}

}  // namespace rrswin::golden
