// RRSWIN_HD marks the layout and index functions that the CUDA kernel (src/cuda/) compiles for the
// device as well: one definition serves the golden model, the fast engine and the kernel, so the
// GPU code has no second hand-written copy of a fragment map or a weight address (issue 13).
#pragma once
#if defined(__CUDACC__)
#define RRSWIN_HD __host__ __device__
#else
#define RRSWIN_HD
#endif
