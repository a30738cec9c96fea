# Installs the build tree into a fresh prefix, then configures, builds and runs
# tests/install/consumer against it with find_package(xpurt).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(flags "")
if(SANITIZE)
  set(flags "-fsanitize=${SANITIZE}")
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
    -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER} "-DCMAKE_CXX_FLAGS=${flags}"
    "-DCMAKE_MODULE_LINKER_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)

# A project written for ISPCRT, built against the same installation (find_package(ispcrt)):
# its kernels native and as SPIR-V, both run.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/ispcrt_consumer -B ${WORK_DIR}/ispcrt_build
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
    -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER} "-DCMAKE_CXX_FLAGS=${flags}"
    "-DCMAKE_MODULE_LINKER_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/ispcrt_build)
run(${WORK_DIR}/ispcrt_build/host_simple)
run(${WORK_DIR}/ispcrt_build/host_simple xe_simple_spirv)
run(${WORK_DIR}/ispcrt_build/test_ispcrt)

