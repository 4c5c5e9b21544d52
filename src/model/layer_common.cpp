// Shared pieces of the golden model: the k-step through the numerics core, requantisation with
// statistics, weight-image operand gathers, column tables and trace helpers.
#include <array>

#include "layout/fragment.hpp"
#include "layout/tables.hpp"
#include "layout/weight_tile.hpp"
#include "model/layer.hpp"
#include "model/q8_stats.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/mma.hpp"

namespace rrswin::golden {

void LayerStats::add(const LayerStats& o) {
  e11_clamp_low += o.e11_clamp_low;
  e11_clamp_high += o.e11_clamp_high;
  p_quantised_zero += o.p_quantised_zero;
  act_clamp_low += o.act_clamp_low;
  act_clamp_high += o.act_clamp_high;
  e4m3_saturated += o.e4m3_saturated;
  f16_subnormal += o.f16_subnormal;
  arena_stores += o.arena_stores;
  arena_stores_dropped += o.arena_stores_dropped;
  pixels_written += o.pixels_written;
}

StageRef BlockContext::stage(const std::string& name, const std::string& description, int warps, int regs) const {
  if (!trace || !trace_request || !trace_request->wants(name)) return {};
  TraceStage st;
  st.name = name;
  st.description = description;
  st.warps = warps;
  st.lanes = 32;
  st.regs = regs;
  st.values.assign(static_cast<std::size_t>(warps) * 32 * regs, 0u);
  trace->stages.push_back(std::move(st));
  return StageRef(trace, trace->stages.size() - 1);
}

StageRef BlockContext::stage(const std::string& name, const std::string& description, StageKind kind) const {
  const StageShape sh = stage_shape(kind, layer());
  return stage(name, description, sh.warps, sh.regs);
}

f16_t mma_step(const Profile& p, const e4m3_t a_logical[32], const e4m3_t b_logical[32], f16_t c) {
  const auto& perm = layout::isa_k_of_pair_k();
  e4m3_t a[32], b[32];
  for (int k = 0; k < 32; ++k) {
    a[perm[k]] = a_logical[k];
    b[perm[k]] = b_logical[k];
  }
  return mma_dot(p, a, b, c);
}

void phase_step(const BlockContext& ctx, const E4Mat& a, int a_col0, const BTile& b, F16Mat& acc) {
  if (ctx.gemm_step) {
    (*ctx.gemm_step)(a, a_col0, b, acc);
    return;
  }
  for (int r = 0; r < acc.rows; ++r) {
    const e4m3_t* arow = &a.v[static_cast<std::size_t>(r) * a.cols + a_col0];
    for (int n = 0; n < acc.cols; ++n) acc.at(r, n) = mma_step(*ctx.profile, arow, b.col(n), acc.at(r, n));
  }
}

BTile load_b_waddr(const WeightImage& w, std::uint32_t base, int cols) {
  BTile t;
  t.cols = cols;
  t.v.resize(static_cast<std::size_t>(cols) * 32);
  for (int n = 0; n < cols; ++n)
    for (int k = 0; k < 32; ++k) t.v[static_cast<std::size_t>(n) * 32 + k] = w.byte(layout::waddr(base, k, n));
  return t;
}

BTile load_b_banded(const WeightImage& w, std::uint32_t base, int slice, int cols, int slices) {
  BTile t;
  t.cols = cols;
  t.v.resize(static_cast<std::size_t>(cols) * 32);
  for (int n = 0; n < cols; ++n)
    for (int k = 0; k < 32; ++k) t.v[static_cast<std::size_t>(n) * 32 + k] = w.byte(layout::waddr_banded(base, slice, k, n, slices));
  return t;
}

std::vector<f16_t> load_column_table(const WeightImage& w, std::uint32_t table, TableChunkOrder order, int channels) {
  // n-tile nt reads the 16-byte chunk chunk(nt) of the table (facts E3: u32 at table + 16nt + 4t
  // in the "nt" reading; HIP5's rotation (nt+19)%20 and the issue-order rotation (nt+1)%20 are the
  // alternatives, facts C6). At C = 128 (enc3, 16 n-tiles) the rotations are the same one chunk
  // back / forward, (nt+15)%16 and (nt+1)%16 (docs/readings.md §7 enc3-sum-trees' note).
  const int tiles = channels / 8;
  std::vector<f16_t> v(static_cast<std::size_t>(channels));
  for (int col = 0; col < channels; ++col) {
    const int nt = col >> 3;
    int chunk = nt;
    if (order == TableChunkOrder::nt_plus_19) chunk = (nt + tiles - 1) % tiles;
    if (order == TableChunkOrder::nt_plus_1) chunk = (nt + 1) % tiles;
    v[static_cast<std::size_t>(col)] = w.f16_at(layout::column_table_offset(table, 8 * chunk + (col & 7)));
  }
  return v;
}

void record_tile(TraceStage& st, int warp, const F16Mat& m, int row0, int reg_base, int nt_count, int col0) {
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, t = lane & 3;
    for (int nt = 0; nt < nt_count; ++nt)
      for (int rh = 0; rh < 2; ++rh) {
        const int r = row0 + g + 8 * rh, c = col0 + 8 * nt + 2 * t;
        st.at(warp, lane, reg_base + 2 * nt + rh) = f16x2_pack(m.at(r, c), m.at(r, c + 1));
      }
  }
}

}  // namespace rrswin::golden
