// The PTX tests' common launch: one CTA of the entry `k(.param .u64 out, .param .u64 in)` with
// `out` and `in` as global buffers (in read-only), CTAs on one thread unless the options say
// otherwise. The kernels and their expected values stay in each test.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "ptx/ptx.hpp"

namespace rrswin::ptx::test {

inline RunOptions one_thread() {
  RunOptions o;
  o.threads = 1;
  return o;
}

template <class O, class I>
RunStats run_out_in(const Module& m, std::vector<O>& out, const std::vector<I>& in, const RunOptions& opt = one_thread(),
                    Device* dev_in = nullptr, Dim3 grid = {1, 1, 1}, Dim3 block = {32, 1, 1}) {
  Device local;
  Device& dev = dev_in ? *dev_in : local;
  const std::uint64_t a_out = dev.add_global("out", {reinterpret_cast<std::uint8_t*>(out.data()), out.size() * sizeof(O)});
  const std::uint64_t a_in = dev.add_global_readonly("in", {reinterpret_cast<const std::uint8_t*>(in.data()), in.size() * sizeof(I)});
  std::uint8_t params[16];
  std::memcpy(params, &a_out, 8);
  std::memcpy(params + 8, &a_in, 8);
  return run(m, "k", grid, block, params, dev, opt);
}

}  // namespace rrswin::ptx::test
