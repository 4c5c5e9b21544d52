// Internal to src/ptx: the reconvergence points of a function's branches.
#pragma once
#include "ptx/ir.hpp"

namespace rrswin::ptx {

// Sets Inst::ipdom of every bra to the first instruction of its block's immediate post-dominator
// (kNoIndex when that is the exit), over the basic blocks of f.code.
void compute_reconvergence(Function& f);
// Sets Function::zero_init to the registers that some path may read before writing them (cfg.cpp).
void compute_zero_init(Function& f);

}  // namespace rrswin::ptx
