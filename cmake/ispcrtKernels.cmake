# ISPC's CMake functions for kernels (ISPCRT's ispc.cmake), as far as xpurt builds kernels:
#
#   add_ispc_library(<target> sources...)        ISPC's: lib<target>.so for the CPU and
#                                                 <target>.spv for other devices
#   add_ispc_kernel(<target> <source> <prefix>)  the older form: add_ispc_library(<prefix><target>)
#
# Sources in OpenCL C (.cl, ISPC's task model from <xpurt/task_model.h>) become the SPIR-V
# module <target>.spv, which every xpurt device runs (the CPU too); C or C++ sources (native
# CPU kernels, <xpurt/cpu_kernel.h>) become lib<target>.so, which the CPU prefers where both
# exist. .ispc sources need ISPC's compiler, which these functions do not run: they are
# refused with a message. The modules go to ISPC_TARGET_DIR (default: the current binary
# folder), as ISPC's do; with both kinds, the SPIR-V is built by <target>_gpu, as ISPC's is.
function(add_ispc_library target)
  set(spirv_sources "")
  set(native_sources "")
  foreach(src IN LISTS ARGN)
    get_filename_component(ext ${src} LAST_EXT)
    if(ext STREQUAL ".cl")
      list(APPEND spirv_sources ${src})
    elseif(ext MATCHES "^\\.(c|cc|cpp|cxx)$")
      list(APPEND native_sources ${src})
    elseif(ext STREQUAL ".ispc")
      message(FATAL_ERROR
              "add_ispc_library(${target}): ${src} is ISPC source, which needs ISPC's compiler; "
              "xpurt's ispcrt package builds kernels in OpenCL C (.cl, with "
              "<xpurt/task_model.h>) and native CPU kernels (.c/.cpp, with <xpurt/cpu_kernel.h>); "
              "for .ispc files use ISPC's own ispc.cmake to build the modules, then load them "
              "with xpurt")
    else()
      message(FATAL_ERROR "add_ispc_library(${target}): ${src}: not a kernel source "
                          "(.cl, .c, .cpp)")
    endif()
  endforeach()
  if(NOT spirv_sources AND NOT native_sources)
    message(FATAL_ERROR "add_ispc_library(${target}): no sources")
  endif()
  set(outdir ${ISPC_TARGET_DIR})
  if(NOT outdir)
    set(outdir ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set(spirv_target ${target})
  if(native_sources)
    xpurt_add_native_module(${target} SOURCES ${native_sources})
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${outdir})
    set(spirv_target ${target}_gpu)
  endif()
  if(spirv_sources)
    xpurt_add_spirv_module(${spirv_target} SOURCES ${spirv_sources} OUTPUT_DIRECTORY ${outdir}
                           OUTPUT_NAME ${target})
    if(native_sources)
      add_dependencies(${target} ${spirv_target})
    endif()
  endif()
endfunction()

function(add_ispc_kernel target source prefix)
  add_ispc_library(${prefix}${target} ${source})
endfunction()
