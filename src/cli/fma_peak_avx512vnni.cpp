// The AVX-512 VNNI int16 dot-product peak loop (fma_peak.hpp): vpdpwssd, the instruction of the
// avx512vnni path's int16 kernels; compiled with -mavx512f -mavx512vnni (CMakeLists.txt).
#include <immintrin.h>

#include "cli/fma_chains_impl.hpp"
#include "cli/fma_peak.hpp"

namespace rrswin::bench {

namespace {

__m512i set1_w(double v) { return _mm512_set1_epi16(static_cast<short>(v * 1000 + 0.5)); }
__m512i dot_w(__m512i acc, __m512i a, __m512i b) { return _mm512_dpwssd_epi32(acc, a, b); }
__m512i add_d(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }

}  // namespace

double i16_dot_loop_avx512vnni(std::int64_t iters) { return _mm512_reduce_add_epi32(chains<__m512i, set1_w, dot_w, add_d>(iters)); }

}  // namespace rrswin::bench
