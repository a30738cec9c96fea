// Turns the kernels of a module read from SPIR-V into work-group functions for the host CPU
// (see work_group.hpp): work-item functions become arithmetic on the loop indices and the
// group's context, the loop over x is marked parallel so LLVM vectorises across work-items,
// and the OpenCL builtin library is linked in.
#pragma once

#include "spirv/spirv_reader.hpp"

#include <llvm/ADT/Triple.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Module.h>

namespace xpurt::cpu {

// Throws UNSUPPORTED for what the CPU JIT cannot run (named), INVALID_MODULE for bad input.
void buildWorkGroupFunctions(llvm::Module &module, const std::vector<spirv::KernelInfo> &kernels,
                             const llvm::DataLayout &layout, const llvm::Triple &triple,
                             const std::string &name);

}  // namespace xpurt::cpu
