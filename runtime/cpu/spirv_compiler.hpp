// The CPU JIT's compiler: SPIR-V -> LLVM -> work-group functions -> optimised machine code.
// checkSpirvForCpu runs only xpurt's own checks and SPIRV-Tools' validator; compileSpirvForCpu
// runs LLVM and the SPIR-V translator, which abort on some malformed input, so the runtime
// calls it in a JIT worker process (core/jit_worker.hpp) unless told not to.
#pragma once

#include "core/backend.hpp"
#include "jit_cache.hpp"
#include "spirv/spirv_binary.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace xpurt::cpu {

// The module's words and preamble once every check before translation has passed (else an
// Error); the validator's warnings are logged.
spirv::CheckedModule checkSpirvForCpu(std::span<const std::byte> bytes, const std::string &name);

// Translation, lowering, optimisation and code generation of checked words; work-items
// vectorised where XPURT_CPU_VECTORIZE allows and `vectorize` is set. The kernels are compiled
// in parts at once, an object each (module_parts.hpp, XPURT_JIT_THREADS), unless oneObject.
CacheEntry compileSpirvForCpu(const std::vector<uint32_t> &words, const std::string &name,
                              const core::ModuleOptions &options, bool vectorize = true,
                              bool oneObject = false);

}  // namespace xpurt::cpu
