// The k-step kernels compiled for the scalar path (flags in CMakeLists.txt; see kernels_impl.hpp).
#include "engine/kernels_impl.hpp"

namespace enc5::engine {
KernelSet kernels_scalar() { return {zluda_kstep, ada_kstep}; }
}  // namespace enc5::engine
