// Two one-instruction helpers of the AVX2 k-step kernels (kernels_avx2.cpp's `ada`,
// kernels_blackwell_impl.hpp's and kernels_hopper_impl.hpp's AVX2 sections): acc += t (vpaddd,
// int32 lanes) and m = max(m, t) (vpmaxsw, int16 lanes) with acc's / m's register as the
// destination. GCC otherwise writes t's register and copies it back (a vmovdqa per vector in the
// k loops), and reassociates chains of integer adds. Included only by translation units compiled
// with -mavx2; internal linkage (kernel_args.hpp says why).
#pragma once
#include <immintrin.h>

namespace rrswin::engine {
namespace {
namespace avx2_asm {

inline void add_into(__m256i& acc, __m256i t) { __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(t)); }
inline void max_into(__m256i& m, __m256i t) { __asm__("vpmaxsw %1, %0, %0" : "+x"(m) : "x"(t)); }

}  // namespace avx2_asm
}  // namespace
}  // namespace rrswin::engine
