// The OpenCL builtin library the CPU JIT links kernels against (libclc, embedded).
#pragma once

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>

namespace xpurt::cpu {

// A lazily materialised copy of the library in `context`: linking it with LinkOnlyNeeded reads
// only the functions a kernel uses.
std::unique_ptr<llvm::Module> loadBuiltinLibrary(llvm::LLVMContext &context);

}  // namespace xpurt::cpu
