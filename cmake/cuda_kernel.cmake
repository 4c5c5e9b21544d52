# The CUDA port of the layer (src/cuda, issue 13). CUDA is not a language of this project: when
# nvcc and ptxas are found, each kernel is compiled to PTX for sm_89 and the PTX through ptxas to
# cubins for sm_89, sm_90 and sm_120, each with its resource report (registers, spills, shared
# memory) printed at build time and written beside it; without them this is skipped with a
# message. The sm_89 PTX is checked in (src/cuda/generated/) so that the PTX-interpreter proof
# runs without nvcc; a test per PTX (tests/CMakeLists.txt) regenerates and compares it when nvcc
# exists.
set(RRSWIN_CUDA_ARCHS 89 90 120)
set(RRSWIN_CUDA_GENERATED ${CMAKE_SOURCE_DIR}/src/cuda/generated)
find_program(RRSWIN_NVCC nvcc HINTS ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES bin)
find_program(RRSWIN_PTXAS ptxas HINTS ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES bin)
set(RRSWIN_CUDA_DIR ${CMAKE_BINARY_DIR}/cuda)

# One PTX build of a kernel source: nvcc -> ${RRSWIN_CUDA_DIR}/STEM.sm_89.ptx (checked in as
# src/cuda/generated/STEM.sm_89.ptx, compared by the test named TEST); DEFINES go to nvcc; with
# CUBINS also ptxas to a cubin and resource report per RRSWIN_CUDA_ARCHS. Records the outputs in the
# global properties RRSWIN_CUDA_OUTPUTS, RRSWIN_CUDA_PTX_BUILT, RRSWIN_CUDA_PTX_CHECKED_IN and
# RRSWIN_CUDA_PTX_TESTS (one entry per build, in the same order).
function(rrswin_cuda_ptx stem source)
  cmake_parse_arguments(arg "CUBINS" "TEST" "DEFINES" ${ARGN})
  set(ptx ${RRSWIN_CUDA_DIR}/${stem}.sm_89.ptx)
  set(what "src/cuda/${source}")
  if(arg_DEFINES)
    set(what "${what} (${arg_DEFINES})")
  endif()
  # No -lineinfo / -G: the PTX then holds no file paths and is the same in every checkout.
  add_custom_command(OUTPUT ${ptx}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${RRSWIN_CUDA_DIR}
    COMMAND ${RRSWIN_NVCC} -std=c++20 -arch=sm_89 -ptx -I${CMAKE_SOURCE_DIR}/src ${arg_DEFINES} ${CMAKE_SOURCE_DIR}/src/cuda/${source} -o ${ptx}
    DEPENDS ${RRSWIN_CUDA_DEPS}
    COMMENT "nvcc: ${what} -> PTX sm_89"
    VERBATIM)
  set_property(GLOBAL APPEND PROPERTY RRSWIN_CUDA_OUTPUTS ${ptx})
  set_property(GLOBAL APPEND PROPERTY RRSWIN_CUDA_PTX_BUILT ${ptx})
  set_property(GLOBAL APPEND PROPERTY RRSWIN_CUDA_PTX_CHECKED_IN ${RRSWIN_CUDA_GENERATED}/${stem}.sm_89.ptx)
  set_property(GLOBAL APPEND PROPERTY RRSWIN_CUDA_PTX_TESTS ${arg_TEST})
  if(NOT arg_CUBINS)
    return()
  endif()
  foreach(arch ${RRSWIN_CUDA_ARCHS})
    set(cubin ${RRSWIN_CUDA_DIR}/${stem}.sm_${arch}.cubin)
    set(report ${RRSWIN_CUDA_DIR}/${stem}.sm_${arch}.resources.txt)
    add_custom_command(OUTPUT ${cubin} ${report}
      COMMAND ${CMAKE_COMMAND} -DPTXAS=${RRSWIN_PTXAS} -DARCH=sm_${arch} -DPTX=${ptx} -DCUBIN=${cubin} -DREPORT=${report}
              -P ${CMAKE_SOURCE_DIR}/cmake/ptxas_report.cmake
      DEPENDS ${ptx} ${CMAKE_SOURCE_DIR}/cmake/ptxas_report.cmake
      COMMENT "ptxas: ${stem} PTX -> cubin sm_${arch}"
      VERBATIM)
    set_property(GLOBAL APPEND PROPERTY RRSWIN_CUDA_OUTPUTS ${cubin})
  endforeach()
endfunction()

# The release build makes them; the sanitizer and fuzz presets, whose builds are instrumented C++,
# turn this off: nvcc and ptxas would make the same files again (CMakePresets.json).
option(RRSWIN_CUDA_KERNELS "Build the CUDA ports' PTX and cubins (and their up-to-date tests) when nvcc is found" ON)
if(RRSWIN_CUDA_KERNELS AND RRSWIN_NVCC AND RRSWIN_PTXAS)
  message(STATUS "CUDA kernel: PTX sm_89 and cubins sm_${RRSWIN_CUDA_ARCHS} with ${RRSWIN_NVCC}")
  file(GLOB RRSWIN_CUDA_DEPS CONFIGURE_DEPENDS
    ${CMAKE_SOURCE_DIR}/src/cuda/*.cu ${CMAKE_SOURCE_DIR}/src/cuda/*.cuh ${CMAKE_SOURCE_DIR}/src/cuda/*.hpp
    ${CMAKE_SOURCE_DIR}/src/base/*.hpp ${CMAKE_SOURCE_DIR}/src/layout/*.hpp ${CMAKE_SOURCE_DIR}/src/model/*.hpp
    ${CMAKE_SOURCE_DIR}/src/numerics/types.hpp ${CMAKE_SOURCE_DIR}/src/numerics/mma_fragment.hpp)
  rrswin_cuda_ptx(enc5_kernel enc5_kernel.cu CUBINS TEST cuda_ptx_up_to_date)
  # The trace build (RRSWIN_CUDA_TRACE: stage values to a buffer, src/cuda/trace_stages.hpp).
  rrswin_cuda_ptx(enc5_kernel_trace enc5_kernel.cu DEFINES -DRRSWIN_CUDA_TRACE=1 TEST cuda_trace_ptx_up_to_date)
  # enc4's port (src/cuda/enc4_kernel.cu, issue 21).
  rrswin_cuda_ptx(enc4_kernel enc4_kernel.cu CUBINS TEST cuda_enc4_ptx_up_to_date)
  # enc3's and enc2's ports (src/cuda/enc3_kernel.cu, enc2_kernel.cu, issue 37): the same parts at
  # their dimensions.
  rrswin_cuda_ptx(enc3_kernel enc3_kernel.cu CUBINS TEST cuda_enc3_ptx_up_to_date)
  rrswin_cuda_ptx(enc2_kernel enc2_kernel.cu CUBINS TEST cuda_enc2_ptx_up_to_date)
  # enc1's port (src/cuda/enc1_kernel.cu, issue 37): the same parts in one warp (serial heads, the
  # register merge, the one-warp final).
  rrswin_cuda_ptx(enc1_kernel enc1_kernel.cu CUBINS TEST cuda_enc1_ptx_up_to_date)
  # enc0's port (src/cuda/enc0_kernel.cu): its embedding front, then enc1's one-warp parts at C = 32.
  rrswin_cuda_ptx(enc0_kernel enc0_kernel.cu CUBINS TEST cuda_enc0_ptx_up_to_date)
  # The decoders' ports (src/cuda/dec4_kernel.cu, dec3_kernel.cu, dec2_kernel.cu, dec1_kernel.cu,
  # issue 37): the decoders' front and final around the same parts, at each layer's dimensions.
  rrswin_cuda_ptx(dec4_kernel dec4_kernel.cu CUBINS TEST cuda_dec4_ptx_up_to_date)
  rrswin_cuda_ptx(dec3_kernel dec3_kernel.cu CUBINS TEST cuda_dec3_ptx_up_to_date)
  rrswin_cuda_ptx(dec2_kernel dec2_kernel.cu CUBINS TEST cuda_dec2_ptx_up_to_date)
  rrswin_cuda_ptx(dec1_kernel dec1_kernel.cu CUBINS TEST cuda_dec1_ptx_up_to_date)
  # dec0's port (src/cuda/dec0_kernel.cu): the front in one warp, enc1's serial heads, E19.
  rrswin_cuda_ptx(dec0_kernel dec0_kernel.cu CUBINS TEST cuda_dec0_ptx_up_to_date)
  get_property(outputs GLOBAL PROPERTY RRSWIN_CUDA_OUTPUTS)
  get_property(built GLOBAL PROPERTY RRSWIN_CUDA_PTX_BUILT)
  get_property(checked_in GLOBAL PROPERTY RRSWIN_CUDA_PTX_CHECKED_IN)
  add_custom_target(rrswin_cuda_kernel ALL DEPENDS ${outputs})
  # Refreshes the checked-in PTX after a kernel change: cmake --build build/release -t rrswin_cuda_update_ptx
  set(copies)
  foreach(new old IN ZIP_LISTS built checked_in)
    list(APPEND copies COMMAND ${CMAKE_COMMAND} -E copy ${new} ${old})
  endforeach()
  add_custom_target(rrswin_cuda_update_ptx ${copies} DEPENDS ${built} COMMENT "copy the regenerated PTX to src/cuda/generated/")
elseif(NOT RRSWIN_CUDA_KERNELS)
  message(STATUS "CUDA kernel: RRSWIN_CUDA_KERNELS=OFF, its PTX and cubins are not built (the release preset builds them)")
else()
  message(STATUS "CUDA kernel: nvcc/ptxas not found, its PTX and cubins are not built (the interpreter proof uses the checked-in src/cuda/generated/*.sm_89.ptx)")
endif()

# The GPU launcher (scripts/gpu-check.sh): plain C++ on the CUDA driver API, built when cuda.h and
# a libcuda (the driver's or the toolkit's link stub) are found.
find_path(RRSWIN_CUDA_INCLUDE cuda.h HINTS ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES include)
find_library(RRSWIN_LIBCUDA cuda HINTS ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES lib64 lib64/stubs lib/x86_64-linux-gnu)
if(RRSWIN_CUDA_INCLUDE AND RRSWIN_LIBCUDA)
  add_executable(rrswin-gpu ${CMAKE_SOURCE_DIR}/src/gpu/rrswin_gpu.cpp)
  target_include_directories(rrswin-gpu PRIVATE ${RRSWIN_CUDA_INCLUDE})
  target_link_libraries(rrswin-gpu PRIVATE rrswin_bridge rrswin_cuda ${RRSWIN_LIBCUDA})
  add_dependencies(rrswin-gpu rrswin_tier_check)
  message(STATUS "GPU launcher rrswin-gpu: ${RRSWIN_LIBCUDA}")
else()
  message(STATUS "GPU launcher rrswin-gpu: cuda.h or libcuda not found, not built")
endif()
