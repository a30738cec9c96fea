#include "nvptx_lowering.hpp"
#include "spirv/spirv_reader.hpp"

extern "C" const char xpurt_cuda_builtin_bitcode_begin[];
extern "C" const char xpurt_cuda_builtin_bitcode_end[];

namespace xpurt::cuda {

std::unique_ptr<llvm::Module> loadCudaBuiltinLibrary(llvm::LLVMContext &context) {
  std::unique_ptr<llvm::Module> module =
      spirv::loadEmbeddedBitcode(xpurt_cuda_builtin_bitcode_begin, xpurt_cuda_builtin_bitcode_end,
                                 "CUDA builtin library", context);
  // Built for one GPU; the kernels' PTX target decides. Functions whose target attributes
  // differ from their callers' would not be inlined.
  for (llvm::Function &f : *module) {
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
  }
  return module;
}

}  // namespace xpurt::cuda
