// OpenCL's printf on the process's printf.
#pragma once

#include <llvm/IR/Module.h>

namespace xpurt::cpu {

// Rewrites every printf call of `m` for the C library's printf: vector conversions
// (`%v4hld`, `%v2hlf`) become one conversion per element, separated by commas, with the
// vector's elements as arguments (floats and halves promoted to double); OpenCL's length
// modifiers become C's. The result becomes OpenCL's: 0 on success, -1 on failure (C's printf
// returns the number of characters).
void lowerPrintf(llvm::Module &m);

}  // namespace xpurt::cpu
