// Reading a validated SPIR-V module into LLVM IR (LLVMSPIRVLib) and reflecting its kernels.
#pragma once

#include "core/kernel_signature.hpp"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace xpurt::spirv {

// A kernel's parameters, as every backend checks launches against them.
using KernelArg = core::KernelParam;

struct KernelInfo {
  std::string name;
  std::vector<KernelArg> args;
  std::array<uint32_t, 3> requiredLocalSize{0, 0, 0};  // reqd_work_group_size; 0 if none
  uint32_t requiredSubGroupSize = 0;                   // intel_reqd_sub_group_size; 0 if none

  core::KernelSignature signature() const { return {args, requiredLocalSize}; }
};

// Throws INVALID_MODULE with the translator's message if the module cannot be read.
std::unique_ptr<llvm::Module> readModule(
    llvm::LLVMContext &context, std::span<const uint32_t> words,
    std::span<const std::pair<uint32_t, uint64_t>> specConstants, const std::string &name);

std::vector<KernelInfo> reflectKernels(const llvm::Module &module);

// A builtin library embedded in libxpurt as bitcode ([begin, end)), lazily materialised in
// `context`: linking it with LinkOnlyNeeded reads only the functions kernels use. `what`
// names it in the error (UNKNOWN) if it cannot be read.
std::unique_ptr<llvm::Module> loadEmbeddedBitcode(const char *begin, const char *end,
                                                  const char *what, llvm::LLVMContext &context);

}  // namespace xpurt::spirv
