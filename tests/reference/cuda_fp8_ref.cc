#include "cuda_fp8_ref.hpp"

#include <cuda_fp8.h>

namespace rrswin::ref {

std::uint16_t nv_cvt_f16x2_to_e4m3x2_satfinite(std::uint32_t f16x2_bits) {
  __half2_raw in;
  in.x = static_cast<unsigned short>(f16x2_bits & 0xFFFFu);
  in.y = static_cast<unsigned short>(f16x2_bits >> 16);
  return static_cast<std::uint16_t>(__nv_cvt_halfraw2_to_fp8x2(in, __NV_SATFINITE, __NV_E4M3));
}

std::uint32_t nv_cvt_e4m3x2_to_f16x2(std::uint16_t e4m3x2) {
  const __half2_raw out = __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(e4m3x2), __NV_E4M3);
  return static_cast<std::uint32_t>(out.x) | (static_cast<std::uint32_t>(out.y) << 16);
}

std::uint8_t nv_cvt_float_to_e4m3_satfinite(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3); }
std::uint8_t nv_cvt_float_to_e5m2_satfinite(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2); }
std::uint8_t nv_cvt_half_to_e5m2_satfinite(std::uint16_t h) {
  __half_raw r;
  r.x = h;
  return __nv_cvt_halfraw_to_fp8(r, __NV_SATFINITE, __NV_E5M2);
}
std::uint16_t nv_cvt_e5m2_to_half(std::uint8_t c) { return __nv_cvt_fp8_to_halfraw(c, __NV_E5M2).x; }
std::uint16_t nv_float2bfloat16_rn(float x) {
  const __nv_bfloat16_raw r = __float2bfloat16_rn(x);
  return r.x;
}
float nv_bfloat162float(std::uint16_t b) {
  __nv_bfloat16_raw r;
  r.x = b;
  return __bfloat162float(__nv_bfloat16(r));
}

}  // namespace rrswin::ref
