// glibc's vector math (libmvec) as the CPU JIT's vectorisers see it: sin, cos, exp, log and pow
// of 4 and 8 floats and 2 and 4 doubles (SSE and AVX2), and on a CPU with AVX-512 of 16 floats
// and 8 doubles, so that a loop of math calls runs as wide as the rest of the code.
//
// Vectors of float sin, cos, exp and log are xpurt's own (xpurt.vsinf.N and so on, which
// defineVectorMath gives a body), always inlined: libmvec's float log is off by up to 3.65 ulp
// (near 0.886), past OpenCL's 3, and a call to libmvec's AVX-512 functions saves and restores
// every live vector register. Arguments past the range each body is exact for (large ones for
// sin and cos, those whose exp overflows or is subnormal, infinities, NaN) take a branch to
// libmvec's function of the same width.
#pragma once

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Module.h>

namespace xpurt::cpu {

// Adds the vector functions to libraryInfo; those of AVX-512 where avx512 (the JIT compiles
// with AVX-512 on).
void addVectorMath(llvm::TargetLibraryInfoImpl &libraryInfo, bool avx512);

// Gives a body to each of xpurt's own vector functions that the vectorisers called in module,
// after they have run (always inlined); whether there was one. avx512: the code may use
// AVX-512 (with its 128- and 256-bit forms).
bool defineVectorMath(llvm::Module &module, bool avx512);

// Once every call has been inlined: deletes the bodies, which the loop vectoriser listed in
// llvm.compiler.used and code generation would otherwise compile.
void dropVectorMathBodies(llvm::Module &module);

}  // namespace xpurt::cpu
