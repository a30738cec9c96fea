// The SPIR-V capabilities the CPU JIT runs: every OpenCL kernel capability xpurt's compilers
// take (spirv/opencl_capabilities.hpp).
#pragma once

#include "spirv/opencl_capabilities.hpp"

namespace xpurt::cpu {

inline constexpr const auto &kCpuCapabilities = spirv::kOpenClKernelCapabilities;

}  // namespace xpurt::cpu
