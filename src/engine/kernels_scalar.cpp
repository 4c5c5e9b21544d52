// The k-step kernels and epilogues compiled for the scalar path (flags in CMakeLists.txt; see
// kernels_impl.hpp and epilogue_impl.hpp).
#include "engine/kernels_impl.hpp"

// V8 below is a GCC vector wider than the baseline ISA's registers; it only ever crosses calls to
// internal inline functions, so the ABI note is irrelevant.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace enc5::engine {
namespace {
// epilogue_impl.hpp's vector interface on the baseline ISA: GCC vectors, software f16 conversions.
typedef float V8 __attribute__((vector_size(32)));
inline float from_h(f16_t h) { return h2f(h); }
inline f16_t to_h(float x) { return f2h(x); }  // NaN -> 0x7FFF
inline V8 load_h8(const f16_t* p) {
  V8 v;
  for (int l = 0; l < 8; ++l) v[l] = h2f(p[l]);
  return v;
}
inline V8 rnd(V8 x) {
  for (int l = 0; l < 8; ++l) x[l] = h2f(f2h(x[l]));
  return x;
}
inline void store_h8(f16_t* p, V8 x) {
  for (int l = 0; l < 8; ++l) p[l] = f2h(x[l]);
}
}  // namespace
}  // namespace enc5::engine

#include "engine/epilogue_impl.hpp"

namespace enc5::engine {
KernelSet kernels_scalar() { return {zluda_kstep, ada_kstep, e11_rows, rms_rows}; }
}  // namespace enc5::engine
