// Kernels that call builtins the device lacks: left out of the module's code, with a message
// for whoever asks for them, so that the module's other kernels load and run.
#pragma once

#include "spirv_reader.hpp"

#include <llvm/IR/Module.h>

#include <map>
#include <string>
#include <vector>

namespace xpurt::spirv {

// The kernels that reach one of `missing` (builtins without a body) through their calls are
// removed from `m`; returns, per such kernel, a message naming the builtins in OpenCL C
// spelling ("ctz(uint4)"). `device` names the device in the messages.
std::map<std::string, std::string> dropKernelsCallingMissing(
    llvm::Module &m, const std::vector<spirv::KernelInfo> &kernels,
    const std::vector<llvm::Function *> &missing, const std::string &device = "CPU");

}  // namespace xpurt::spirv
