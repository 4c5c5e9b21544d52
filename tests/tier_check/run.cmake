# The tier check (cmake/check_tiers.cmake) refuses what it must and passes what it may: run on the
# fixture trees here, it must fail on bad/ naming each file, line and both tiers, and pass good/.
#   cmake -DCHECKER=cmake/check_tiers.cmake -DFIXTURES=tests/tier_check -P tests/tier_check/run.cmake
cmake_minimum_required(VERSION 3.22)
execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${FIXTURES}/bad -P ${CHECKER} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "the tier check passed bad/, which includes against the tier order:\n${out}")
endif()
foreach(expected
    "src/model/upward.cpp:5: #include \"io/files.hpp\": tier model may not include tier io"
    "src/gadgets/new_folder.hpp: folder src/gadgets/ is not a tier")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the tier check's report on bad/ lacks \"${expected}\":\n${out}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${FIXTURES}/good -P ${CHECKER} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the tier check refused good/, whose includes the order allows:\n${out}")
endif()
message(STATUS "tier check: refuses bad/ (file, line, both tiers), passes good/")
