// One mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 in fragment form (the registers of its
// 32 lanes) through the fast engine's GEMM kernels: the 128 outputs of the tile at once, with the
// SIMD path's kernel of the profile. Bit-identical to numerics' mma_m16n8k32 (mma_dot per element)
// under every profile and corner reading: profiles whose corners the kernels do not implement,
// and operands with NaN codes, run mma_m16n8k32 itself. The PTX interpreter's `mma` runs this.
#pragma once
#include "engine/kernel_args.hpp"
#include "numerics/mma.hpp"
#include "numerics/profile.hpp"

namespace rrswin::engine {

MmaFragC mma_fragment(const Profile& p, SimdPath path, const MmaFragA& a, const MmaFragB& b, const MmaFragC& c);

}  // namespace rrswin::engine
