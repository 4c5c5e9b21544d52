#include "cuda_fp8_ref.hpp"

#include <cuda_fp8.h>

namespace enc5::ref {

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

}  // namespace enc5::ref
