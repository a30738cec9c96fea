#include "builtin_library.hpp"

#include "core/error.hpp"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

extern "C" const char xpurt_builtin_bitcode_begin[];
extern "C" const char xpurt_builtin_bitcode_end[];

namespace xpurt::cpu {

std::unique_ptr<llvm::Module> loadBuiltinLibrary(llvm::LLVMContext &context) {
  llvm::StringRef bytes(
      xpurt_builtin_bitcode_begin,
      static_cast<size_t>(xpurt_builtin_bitcode_end - xpurt_builtin_bitcode_begin));
  auto module = llvm::getOwningLazyBitcodeModule(
      llvm::MemoryBuffer::getMemBuffer(bytes, "xpurt-builtins", false), context);
  if (!module)
    core::fail(XPURT_ERROR_UNKNOWN, "the embedded OpenCL builtin library is unreadable: {}",
               llvm::toString(module.takeError()));
  return std::move(*module);
}

}  // namespace xpurt::cpu
