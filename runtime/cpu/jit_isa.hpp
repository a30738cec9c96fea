// The instruction sets the CPU JIT compiles for. XPURT_CPU_ISA=native (the default) uses every
// feature the CPU has; avx2 turns AVX-512 (and AMX) off on a CPU that has them, so that code is
// as on an AVX2 CPU: 8 work-items per vector, libmvec's AVX2 functions. A CPU without AVX2
// cannot be limited to it.
#pragma once

#include "core/error.hpp"

#include <map>
#include <string>

namespace xpurt::cpu {

enum class JitIsa { Native, Avx2 };

// The CPU's features (LLVM's names, as llvm::sys::getHostCPUFeatures gives them) that the JIT
// uses under isa; XPURT_ERROR_UNSUPPORTED if the CPU lacks what isa asks for.
inline std::map<std::string, bool> jitFeatures(std::map<std::string, bool> host, JitIsa isa) {
  if (isa == JitIsa::Native) return host;
  auto avx2 = host.find("avx2");
  if (avx2 == host.end() || !avx2->second)
    throw core::Error(XPURT_ERROR_UNSUPPORTED,
                      "XPURT_CPU_ISA=avx2, but this CPU has no AVX2; unset XPURT_CPU_ISA (or set "
                      "it to native) to compile for the CPU as it is");
  for (auto &[name, on] : host)
    if (name.rfind("avx512", 0) == 0 || name.rfind("amx", 0) == 0) on = false;
  return host;
}

}  // namespace xpurt::cpu
