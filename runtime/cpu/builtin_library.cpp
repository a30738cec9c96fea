#include "builtin_library.hpp"

#include "spirv/spirv_reader.hpp"

extern "C" const char xpurt_builtin_bitcode_begin[];
extern "C" const char xpurt_builtin_bitcode_end[];

namespace xpurt::cpu {

std::unique_ptr<llvm::Module> loadBuiltinLibrary(llvm::LLVMContext &context) {
  return spirv::loadEmbeddedBitcode(xpurt_builtin_bitcode_begin, xpurt_builtin_bitcode_end,
                                    "OpenCL builtin library", context);
}

}  // namespace xpurt::cpu
