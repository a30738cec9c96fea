// The steps that turn the LLVM IR the SPIR-V reader makes (SPIR address spaces, spir_kernel
// functions, SPIR-mangled OpenCL builtins) into IR the NVPTX back end compiles: used by
// ptx_compiler.cpp in this order.
#pragma once

#include "spirv/spirv_reader.hpp"

#include <llvm/IR/Module.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace xpurt::cuda {

// SPIR's address space numbers as NVPTX's: generic 4 -> 0 (NVPTX's generic, which private
// pointers share), constant 2 -> 4; global 1 and local 3 stay.
unsigned nvptxAddressSpace(unsigned spirAddressSpace);

// The module rebuilt with every type, global, function and constant in NVPTX address spaces;
// casts that became same-space casts are dropped. Debug information is not carried over.
std::unique_ptr<llvm::Module> retargetAddressSpaces(llvm::Module &spir, const std::string &name);

// Gives the used OpenCL builtins their bodies: xpurt's target-neutral ones, then libclc's NVPTX
// library (its names differ from SPIR's where pointers are __constant or generic, so builtins
// are matched by demangled signature), linked lazily. Returns the builtins nobody provides.
std::vector<llvm::Function *> linkBuiltins(llvm::Module &m, const std::string &name);

// printf as CUDA's vprintf(format, argument buffer). A call it cannot lower (a format that is
// not a constant string, a vector conversion it cannot follow) is left calling `printf`, which
// is returned for the caller to treat as a missing builtin (nullptr if none).
llvm::Function *lowerPrintfToVprintf(llvm::Module &m);

// Makes the available kernels PTX entry points named as the SPIR-V kernels, each taking the
// kernel's parameters with __local pointers as i32 byte offsets into kDynamicSharedName;
// everything else becomes internal, plain C calling convention.
void lowerKernels(llvm::Module &m, const std::vector<spirv::KernelInfo> &kernels,
                  const std::map<std::string, std::string> &unavailable);

// The launch's dynamic shared memory (PTX `.extern .shared .align 16 .b8 []`).
inline constexpr const char *kDynamicSharedName = "xpurt_dynamic_shared";

}  // namespace xpurt::cuda
