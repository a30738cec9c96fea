# xpurt_add_native_module(<name> SOURCES ...)
#
# Builds lib<name>.so, a native CPU kernel module: C or C++ that exports
# <kernel>_cpu_entry_point(void *params, int d0, int d1, int d2) for each kernel, in the
# calling convention of ISPC's CPU output. ISPCLaunch/ISPCAlloc/ISPCSync stay undefined in the
# module; the xpurt runtime that loads it provides them.
function(xpurt_add_native_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  add_library(${name} MODULE ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES PREFIX "lib")
  if(CMAKE_RUNTIME_OUTPUT_DIRECTORY)
    # Next to the programs, where loading a module by name finds it.
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY
                                             ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
  endif()
  if(TARGET xpurt_kernel_headers)
    target_link_libraries(${name} PRIVATE xpurt_kernel_headers)
  elseif(TARGET xpurt::kernel_headers)
    target_link_libraries(${name} PRIVATE xpurt::kernel_headers)
  endif()
endfunction()
