// The CPU backend: one device, the host's cores, on a oneTBB arena.
#pragma once

#include "core/backend.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xpurt::cpu {

std::unique_ptr<core::Backend> createCpuBackend();

// The CPU JIT as the JIT worker process runs it (a core::Compiler): checked SPIR-V words to a
// compiled module, serialized as a disk cache entry's payload.
std::string compileSpirvForCpuSerialized(const std::vector<uint32_t> &words,
                                         const std::string &name,
                                         const core::ModuleOptions &options);
// The same with work-items one at a time, never vectorised across (kCpuScalarCompiler).
std::string compileSpirvForCpuScalarSerialized(const std::vector<uint32_t> &words,
                                               const std::string &name,
                                               const core::ModuleOptions &options);
inline constexpr std::string_view kCpuScalarCompiler = "cpu_scalar";

}  // namespace xpurt::cpu
