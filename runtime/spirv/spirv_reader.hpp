// Reading a validated SPIR-V module into LLVM IR (LLVMSPIRVLib) and reflecting its kernels.
#pragma once

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

struct KernelArg {
  enum class Kind : uint8_t {
    GlobalPointer,    // __global T *: the runtime passes a device address
    ConstantPointer,  // __constant T *
    LocalPointer,     // __local T *: the runtime gives each work-group `size` bytes
    Value,            // a scalar or vector by value
    Struct,           // a struct by value (byval pointer in the IR)
  };
  Kind kind;
  uint32_t size;         // bytes of the value (pointers: 8)
  std::string typeName;  // as the source spelled it (kernel_arg_type), if known
};

const char *argKindName(KernelArg::Kind kind);

struct KernelInfo {
  std::string name;
  std::vector<KernelArg> args;
  std::array<uint32_t, 3> requiredLocalSize{0, 0, 0};  // reqd_work_group_size; 0 if none
  uint32_t requiredSubGroupSize = 0;                   // intel_reqd_sub_group_size; 0 if none
};

// Throws INVALID_MODULE with the translator's message if the module cannot be read.
std::unique_ptr<llvm::Module> readModule(
    llvm::LLVMContext &context, std::span<const uint32_t> words,
    std::span<const std::pair<uint32_t, uint64_t>> specConstants, const std::string &name);

std::vector<KernelInfo> reflectKernels(const llvm::Module &module);

}  // namespace xpurt::spirv
