# The CUDA port of the layer (src/cuda, issue 13). CUDA is not a language of this project: when
# nvcc and ptxas are found, the kernel is compiled to PTX for sm_89 and the PTX through ptxas to
# cubins for sm_89, sm_90 and sm_120, each with its resource report (registers, spills, shared
# memory) printed at build time and written beside it; without them this is skipped with a
# message. The sm_89 PTX is checked in (src/cuda/generated/) so that the PTX-interpreter proof
# runs without nvcc; the test cuda_ptx_up_to_date regenerates and compares it when nvcc exists.
set(ENC5_CUDA_PTX_CHECKED_IN ${CMAKE_SOURCE_DIR}/src/cuda/generated/enc5_kernel.sm_89.ptx)
# enc4's port (src/cuda/enc4_kernel.cu, issue 21), built and checked in the same way.
set(ENC5_CUDA_ENC4_PTX_CHECKED_IN ${CMAKE_SOURCE_DIR}/src/cuda/generated/enc4_kernel.sm_89.ptx)
# The trace build (ENC5_CUDA_TRACE: stage values to a buffer, src/cuda/trace_stages.hpp).
set(ENC5_CUDA_TRACE_PTX_CHECKED_IN ${CMAKE_SOURCE_DIR}/src/cuda/generated/enc5_kernel_trace.sm_89.ptx)
set(ENC5_CUDA_ARCHS 89 90 120)
find_program(ENC5_NVCC nvcc HINTS ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES bin)
find_program(ENC5_PTXAS ptxas HINTS ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES bin)
set(ENC5_CUDA_DIR ${CMAKE_BINARY_DIR}/cuda)
if(ENC5_NVCC AND ENC5_PTXAS)
  message(STATUS "CUDA kernel: PTX sm_89 and cubins sm_${ENC5_CUDA_ARCHS} with ${ENC5_NVCC}")
  file(GLOB ENC5_CUDA_DEPS CONFIGURE_DEPENDS
    ${CMAKE_SOURCE_DIR}/src/cuda/*.cu ${CMAKE_SOURCE_DIR}/src/cuda/*.cuh ${CMAKE_SOURCE_DIR}/src/cuda/*.hpp
    ${CMAKE_SOURCE_DIR}/src/base/*.hpp ${CMAKE_SOURCE_DIR}/src/layout/*.hpp ${CMAKE_SOURCE_DIR}/src/model/*.hpp
    ${CMAKE_SOURCE_DIR}/src/numerics/types.hpp ${CMAKE_SOURCE_DIR}/src/numerics/mma_fragment.hpp)
  # No -lineinfo / -G: the PTX then holds no file paths and is the same in every checkout.
  set(ENC5_NVCC_FLAGS -std=c++20 -arch=sm_89 -ptx -I${CMAKE_SOURCE_DIR}/src)
  set(ENC5_CUDA_PTX ${ENC5_CUDA_DIR}/enc5_kernel.sm_89.ptx)
  add_custom_command(OUTPUT ${ENC5_CUDA_PTX}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${ENC5_CUDA_DIR}
    COMMAND ${ENC5_NVCC} ${ENC5_NVCC_FLAGS} ${CMAKE_SOURCE_DIR}/src/cuda/enc5_kernel.cu -o ${ENC5_CUDA_PTX}
    DEPENDS ${ENC5_CUDA_DEPS}
    COMMENT "nvcc: src/cuda/enc5_kernel.cu -> PTX sm_89"
    VERBATIM)
  set(ENC5_CUDA_TRACE_PTX ${ENC5_CUDA_DIR}/enc5_kernel_trace.sm_89.ptx)
  add_custom_command(OUTPUT ${ENC5_CUDA_TRACE_PTX}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${ENC5_CUDA_DIR}
    COMMAND ${ENC5_NVCC} ${ENC5_NVCC_FLAGS} -DENC5_CUDA_TRACE=1 ${CMAKE_SOURCE_DIR}/src/cuda/enc5_kernel.cu -o ${ENC5_CUDA_TRACE_PTX}
    DEPENDS ${ENC5_CUDA_DEPS}
    COMMENT "nvcc: src/cuda/enc5_kernel.cu (trace build) -> PTX sm_89"
    VERBATIM)
  set(ENC5_CUDA_ENC4_PTX ${ENC5_CUDA_DIR}/enc4_kernel.sm_89.ptx)
  add_custom_command(OUTPUT ${ENC5_CUDA_ENC4_PTX}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${ENC5_CUDA_DIR}
    COMMAND ${ENC5_NVCC} ${ENC5_NVCC_FLAGS} ${CMAKE_SOURCE_DIR}/src/cuda/enc4_kernel.cu -o ${ENC5_CUDA_ENC4_PTX}
    DEPENDS ${ENC5_CUDA_DEPS}
    COMMENT "nvcc: src/cuda/enc4_kernel.cu -> PTX sm_89"
    VERBATIM)
  set(ENC5_CUDA_OUTPUTS ${ENC5_CUDA_PTX} ${ENC5_CUDA_TRACE_PTX} ${ENC5_CUDA_ENC4_PTX})
  foreach(kernel enc5 enc4)
    foreach(arch ${ENC5_CUDA_ARCHS})
      set(ptx ${ENC5_CUDA_DIR}/${kernel}_kernel.sm_89.ptx)
      set(cubin ${ENC5_CUDA_DIR}/${kernel}_kernel.sm_${arch}.cubin)
      add_custom_command(OUTPUT ${cubin} ${ENC5_CUDA_DIR}/${kernel}_kernel.sm_${arch}.resources.txt
        COMMAND ${CMAKE_COMMAND} -DPTXAS=${ENC5_PTXAS} -DARCH=sm_${arch} -DPTX=${ptx} -DCUBIN=${cubin}
                -DREPORT=${ENC5_CUDA_DIR}/${kernel}_kernel.sm_${arch}.resources.txt -P ${CMAKE_SOURCE_DIR}/cmake/ptxas_report.cmake
        DEPENDS ${ptx} ${CMAKE_SOURCE_DIR}/cmake/ptxas_report.cmake
        COMMENT "ptxas: ${kernel} kernel PTX -> cubin sm_${arch}"
        VERBATIM)
      list(APPEND ENC5_CUDA_OUTPUTS ${cubin})
    endforeach()
  endforeach()
  add_custom_target(enc5_cuda_kernel ALL DEPENDS ${ENC5_CUDA_OUTPUTS})
  # Refreshes the checked-in PTX after a kernel change: cmake --build build/release -t enc5_cuda_update_ptx
  add_custom_target(enc5_cuda_update_ptx
    COMMAND ${CMAKE_COMMAND} -E copy ${ENC5_CUDA_PTX} ${ENC5_CUDA_PTX_CHECKED_IN}
    COMMAND ${CMAKE_COMMAND} -E copy ${ENC5_CUDA_TRACE_PTX} ${ENC5_CUDA_TRACE_PTX_CHECKED_IN}
    COMMAND ${CMAKE_COMMAND} -E copy ${ENC5_CUDA_ENC4_PTX} ${ENC5_CUDA_ENC4_PTX_CHECKED_IN}
    DEPENDS ${ENC5_CUDA_PTX} ${ENC5_CUDA_TRACE_PTX} ${ENC5_CUDA_ENC4_PTX}
    COMMENT "copy the regenerated PTX to src/cuda/generated/")
else()
  message(STATUS "CUDA kernel: nvcc/ptxas not found, its PTX and cubins are not built (the interpreter proof uses the checked-in src/cuda/generated/enc5_kernel.sm_89.ptx)")
endif()

# The GPU launcher (scripts/gpu-check.sh): plain C++ on the CUDA driver API, built when cuda.h and
# a libcuda (the driver's or the toolkit's link stub) are found.
find_path(ENC5_CUDA_INCLUDE cuda.h HINTS ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES include)
find_library(ENC5_LIBCUDA cuda HINTS ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES lib64 lib64/stubs lib/x86_64-linux-gnu)
if(ENC5_CUDA_INCLUDE AND ENC5_LIBCUDA)
  add_executable(enc5-gpu ${CMAKE_SOURCE_DIR}/src/cuda/enc5_gpu.cpp)
  target_include_directories(enc5-gpu PRIVATE ${ENC5_CUDA_INCLUDE})
  target_link_libraries(enc5-gpu PRIVATE enc5_cuda ${ENC5_LIBCUDA})
  add_dependencies(enc5-gpu enc5_layer_check)
  message(STATUS "GPU launcher enc5-gpu: ${ENC5_LIBCUDA}")
else()
  message(STATUS "GPU launcher enc5-gpu: cuda.h or libcuda not found, not built")
endif()
