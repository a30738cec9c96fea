// OpenCL builtins that libclc's SPIR-V library leaves to its consumer (sqrt, fabs, mad, fmin,
// select, isnan, min/max, clamp, mul_hi, conversions, ...): bodies made of LLVM intrinsics, so
// they vectorise with the kernel. Target-neutral LLVM IR: any backend that compiles SPIR-V
// through LLVM can use them.
#pragma once

#include <llvm/IR/Module.h>

#include <string>
#include <vector>

namespace xpurt::spirv {

// Builtins on generic pointers (OpenCL C 2.0: vload/vstore, sincos, frexp, ... on
// `__generic T *`), which libclc's SPIR-V library lacks, call its __global variants: only for
// targets where every address space is the same memory (the CPU). Run after linking the builtin
// library, which then needs linking again: returns whether any call was redirected.
bool redirectGenericPointers(llvm::Module &m);

// sin, cos, exp, log and pow become LLVM intrinsics rather than libclc's scalar code: the
// vectoriser maps those to glibc's libmvec (within OpenCL's ulp limits). Run before linking the
// builtin library.
void defineVectorizableMath(llvm::Module &m);

// Whether `m` calls a builtin that only a builtin library defines: a mangled OpenCL one, or a
// name reserved to the implementation (the SPIR-V reader's __to_global and the like).
bool callsLibraryBuiltins(const llvm::Module &m);

// Gives a body to every used OpenCL builtin that is only declared in `m`. Before the library
// is linked (beforeLibrary) it defines only what libclc leaves to its consumer anyway, so a
// kernel that needs nothing else skips reading the library; after, it returns the builtins it
// cannot provide (left declared): the kernels that call them are unavailable, not the module.
std::vector<llvm::Function *> defineMissingBuiltins(llvm::Module &m, bool beforeLibrary);

}  // namespace xpurt::spirv
