# cmake -DOUTPUT=<header> -DSOURCES=<a;b;...> -P XpurtBuildId.cmake
# Writes a header defining XPURT_JIT_BUILD_ID, a hash of the sources that shape the CPU JIT's
# output, so the JIT's disk cache never serves code made by another build. The header is only
# rewritten when the hash changes.
set(all "")
foreach(f IN LISTS SOURCES)
  file(SHA256 ${f} h)
  string(APPEND all ${h})
endforeach()
string(SHA256 id "${all}")
string(SUBSTRING ${id} 0 16 id)
set(text "#pragma once\n#define XPURT_JIT_BUILD_ID \"${id}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUTPUT} "${text}")
endif()
