// OpenCL printf's vector conversions in C's terms, for every backend that prints through a C
// printf (the CPU's, CUDA's vprintf).
#pragma once

#include <llvm/IR/Module.h>

namespace xpurt::spirv {

// Rewrites every printf call of `m` that passes vectors: a vector conversion (`%v4hld`,
// `%v2hlf`) becomes one conversion per element, separated by commas, with the vector's
// elements as arguments (floats and halves promoted to double), and OpenCL's length
// modifiers become C's. A call whose format is not a constant, or that the format does not
// describe, is left as it is.
void expandPrintfVectors(llvm::Module &m);

}  // namespace xpurt::spirv
