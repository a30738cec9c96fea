#include "nvptx_lowering.hpp"
#include "spirv/spirv_reader.hpp"

extern "C" const char xpurt_cuda_builtin_bitcode_begin[];
extern "C" const char xpurt_cuda_builtin_bitcode_end[];
extern "C" const char xpurt_cuda_libdevice_math_bitcode_begin[];
extern "C" const char xpurt_cuda_libdevice_math_bitcode_end[];

namespace xpurt::cuda {
namespace {

std::unique_ptr<llvm::Module> loadEmbedded(const char *begin, const char *end, const char *what,
                                           llvm::LLVMContext &context) {
  std::unique_ptr<llvm::Module> module = spirv::loadEmbeddedBitcode(begin, end, what, context);
  // Built for one GPU; the kernels' PTX target decides. Functions whose target attributes
  // differ from their callers' would not be inlined.
  for (llvm::Function &f : *module) {
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
  }
  return module;
}

}  // namespace

std::unique_ptr<llvm::Module> loadCudaBuiltinLibrary(llvm::LLVMContext &context) {
  return loadEmbedded(xpurt_cuda_builtin_bitcode_begin, xpurt_cuda_builtin_bitcode_end,
                      "CUDA builtin library", context);
}

std::unique_ptr<llvm::Module> loadLibdeviceMathLibrary(llvm::LLVMContext &context) {
  return loadEmbedded(xpurt_cuda_libdevice_math_bitcode_begin,
                      xpurt_cuda_libdevice_math_bitcode_end, "CUDA libdevice math library",
                      context);
}

}  // namespace xpurt::cuda
