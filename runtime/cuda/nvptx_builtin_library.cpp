#include "core/error.hpp"
#include "nvptx_lowering.hpp"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

extern "C" const char xpurt_cuda_builtin_bitcode_begin[];
extern "C" const char xpurt_cuda_builtin_bitcode_end[];

namespace xpurt::cuda {

std::unique_ptr<llvm::Module> loadCudaBuiltinLibrary(llvm::LLVMContext &context) {
  llvm::StringRef bytes(
      xpurt_cuda_builtin_bitcode_begin,
      static_cast<size_t>(xpurt_cuda_builtin_bitcode_end - xpurt_cuda_builtin_bitcode_begin));
  auto module = llvm::getOwningLazyBitcodeModule(
      llvm::MemoryBuffer::getMemBuffer(bytes, "xpurt-cuda-builtins", false), context);
  if (!module)
    core::fail(XPURT_ERROR_UNKNOWN, "the embedded CUDA builtin library is unreadable: {}",
               llvm::toString(module.takeError()));
  // Built for one GPU; the kernels' PTX target decides. Functions whose target attributes
  // differ from their callers' would not be inlined.
  for (llvm::Function &f : **module) {
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
  }
  return std::move(*module);
}

}  // namespace xpurt::cuda
