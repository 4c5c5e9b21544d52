// The k-step kernels and epilogues compiled for the scalar path (flags in CMakeLists.txt; see
// kernels_impl.hpp and epilogue_impl.hpp).
#include "engine/kernels_impl.hpp"

namespace rrswin::engine {
namespace {
// epilogue_impl.hpp's vector interface on the baseline ISA: 8 floats in a struct (a 32-byte GCC
// vector would change the ABI of these internal functions without AVX), software f16 conversions.
struct V8 {
  float x[8];
  float& operator[](int l) { return x[l]; }
  float operator[](int l) const { return x[l]; }
};
inline V8 operator+(V8 a, const V8& b) {
  for (int l = 0; l < 8; ++l) a.x[l] += b.x[l];
  return a;
}
inline V8 operator*(V8 a, const V8& b) {
  for (int l = 0; l < 8; ++l) a.x[l] *= b.x[l];
  return a;
}
inline V8 operator*(V8 a, float s) {
  for (int l = 0; l < 8; ++l) a.x[l] *= s;
  return a;
}
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

// An e4m3 code as the f16 bits of its value times 2^-8: sign to bit 15, the 7 magnitude bits
// (exponent field, 3 mantissa bits) shifted into the f16 fields. The e4m3 exponent bias 7 and f16
// bias 15 differ by 8 and e4m3 subnormals (m 2^-9) land on f16 subnormals (m 2^7 2^-24) alike, so
// value = f16 value * 256 exactly (numerics.md "Formats").
bool decode_run(const DecodeRun& d) {
  bool nan = false;
  for (int i = 0; i < d.n; ++i) {
    const unsigned c = d.src[i], m = c & 0x7Fu;
    const float value = h2f(static_cast<f16_t>(((c & 0x80u) << 8) | (m << 7))) * 256.0f;
    const int e = m == 0 ? -64 : (m >> 3) >= 1 ? static_cast<int>(m >> 3) - 7 : -6;
    // `hopper`: an e4m3 subnormal m 2^-9 is an f16 normal, floor(log2 m) - 9.
    const int he = m == 0 ? -64 : (m >> 3) >= 1 ? static_cast<int>(m >> 3) - 7 : m >= 4 ? -7 : m >= 2 ? -8 : -9;
    if (d.v64) d.v64[i] = value;
    if (d.v) d.v[i] = value;
    if (d.e) d.e[i] = static_cast<float>(e);
    if (d.e16) d.e16[i] = static_cast<std::int16_t>(e);
    if (d.he16) d.he16[i] = static_cast<std::int16_t>(he);
    nan |= m == 0x7Fu;
  }
  return nan;
}
}  // namespace
}  // namespace rrswin::engine

#include "engine/epilogue_impl.hpp"
#include "engine/kernels_blackwell_impl.hpp"
#include "engine/kernels_hopper_impl.hpp"

namespace rrswin::engine {
// The portable kernels; no vector form of E61's or the decoders' pixels (golden's per pixel).
KernelSet kernels_scalar() {
  return {.zluda = zluda_kstep,
          .ada = ada_kstep,
          .e11_rows = e11_rows,
          .rms_rows = rms_rows,
          .decode_run = decode_run,
          .add_rows = add_rows,
          .hopper = hopper_kstep,
          .blackwell = blackwell_kstep};
}
}  // namespace rrswin::engine
