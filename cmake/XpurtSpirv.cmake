# xpurt_add_spirv_module(<name> SOURCES a.cl [b.cl ...] [INCLUDE_DIRECTORIES ...]
#                        [DEFINITIONS ...] [OUTPUT_DIRECTORY dir] [OUTPUT_NAME module]
#                        [OPENCL_STD CL3.0] [COMPILE_OPTIONS ...] [TRANSLATOR_OPTIONS ...])
#
# Compiles OpenCL C to <name>.spv (<module>.spv with OUTPUT_NAME) at build time and checks it: clang-15 (OpenCL C 2.0 unless
# OPENCL_STD says otherwise, spir64) -> opt-15 -> llvm-spirv-15 -> spirv-val. Kernels see
# xpurt's task-model header (#include <xpurt/task_model.h>). COMPILE_OPTIONS go to clang
# (e.g. -Xclang -cl-ext=...), TRANSLATOR_OPTIONS to llvm-spirv (e.g. --spirv-ext=+all, which
# kernels using sub-groups or integer dot products need).
#
# clang runs at -O0 with optnone disabled, followed only by SROA, early CSE and instcombine:
# with clang's own -O1/-O2, llvm-spirv-15 emits modules that spirv-val rejects (blocks placed
# before their dominators, IDs used before their definitions). The consumer (a driver, or
# xpurt's JIT) optimises the kernel anyway.
find_program(XPURT_CLANG NAMES clang-15)
find_program(XPURT_LLVM_LINK NAMES llvm-link-15)
find_program(XPURT_OPT NAMES opt-15)
find_program(XPURT_LLVM_SPIRV NAMES llvm-spirv-15 llvm-spirv)
find_program(XPURT_SPIRV_VAL NAMES spirv-val)
if(NOT XPURT_KERNEL_INCLUDE_DIR)
  set(XPURT_KERNEL_INCLUDE_DIR ${CMAKE_CURRENT_LIST_DIR}/../kernels/include)
endif()

function(xpurt_add_spirv_module name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY;OUTPUT_NAME;OPENCL_STD"
                        "SOURCES;INCLUDE_DIRECTORIES;DEFINITIONS;COMPILE_OPTIONS;TRANSLATOR_OPTIONS"
                        ${ARGN})
  if(NOT ARG_OPENCL_STD)
    set(ARG_OPENCL_STD CL2.0)
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "xpurt_add_spirv_module(${name}): no SOURCES")
  endif()
  foreach(tool XPURT_CLANG XPURT_LLVM_LINK XPURT_OPT XPURT_LLVM_SPIRV XPURT_SPIRV_VAL)
    if(NOT ${tool})
      message(FATAL_ERROR "xpurt_add_spirv_module(${name}): ${tool} not found; install clang-15, "
                          "llvm-15, llvm-spirv-15 and spirv-tools")
    endif()
  endforeach()
  set(outdir ${ARG_OUTPUT_DIRECTORY})
  if(NOT outdir)
    set(outdir ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
  endif()
  if(NOT outdir)
    set(outdir ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set(work ${CMAKE_CURRENT_BINARY_DIR}/${name}.spirv.dir)
  set(flags -cl-std=${ARG_OPENCL_STD} -target spir64 -emit-llvm -Xclang -finclude-default-header
            -O0 -Xclang -disable-O0-optnone -I${XPURT_KERNEL_INCLUDE_DIR} ${ARG_COMPILE_OPTIONS})
  foreach(dir IN LISTS ARG_INCLUDE_DIRECTORIES)
    list(APPEND flags -I${dir})
  endforeach()
  foreach(def IN LISTS ARG_DEFINITIONS)
    list(APPEND flags -D${def})
  endforeach()

  set(bitcodes "")
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(abs ${src} ABSOLUTE)
    get_filename_component(stem ${src} NAME_WE)
    set(bc ${work}/${stem}.bc)
    add_custom_command(
      OUTPUT ${bc}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${work}
      COMMAND ${XPURT_CLANG} ${flags} -MD -MF ${bc}.d -c ${abs} -o ${bc}
      DEPENDS ${abs}
      DEPFILE ${bc}.d
      COMMENT "OpenCL C -> LLVM: ${src}"
      VERBATIM)
    list(APPEND bitcodes ${bc})
  endforeach()

  set(module ${name})
  if(ARG_OUTPUT_NAME)
    set(module ${ARG_OUTPUT_NAME})
  endif()
  set(spv ${outdir}/${module}.spv)
  add_custom_command(
    OUTPUT ${spv}
    COMMAND ${XPURT_LLVM_LINK} ${bitcodes} -o ${work}/${name}.linked.bc
    COMMAND ${XPURT_OPT} -passes=sroa,early-cse,instcombine ${work}/${name}.linked.bc
            -o ${work}/${name}.opt.bc
    COMMAND ${XPURT_LLVM_SPIRV} ${ARG_TRANSLATOR_OPTIONS} ${work}/${name}.opt.bc -o ${spv}
    COMMAND ${XPURT_SPIRV_VAL} ${spv}
    DEPENDS ${bitcodes}
    COMMENT "SPIR-V module ${module}.spv"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${spv})
  set_target_properties(${name} PROPERTIES XPURT_SPIRV_FILE ${spv})
  # Every module of the build, for checks over all of them (Intel's offline compiler).
  set_property(GLOBAL APPEND PROPERTY XPURT_SPIRV_MODULES ${spv})
endfunction()
