// A lowered module's kernels in parts that are optimised and compiled at once, each on a thread
// of its own: a part is the module with one work-group function as its only entry point, and
// the functions and constants that function reaches, as bitcode (an LLVM context is not shared
// between threads, so each thread reads its part into one of its own). Code is the same as the
// whole module's: the optimiser sees every function a kernel calls, as it would there.
#pragma once

#include <llvm/IR/Module.h>

#include <cstddef>
#include <string>
#include <vector>

namespace xpurt::cpu {

struct ModulePart {
  std::string bitcode;
  size_t instructions = 0;  // of its function definitions: what compiling it costs, roughly
};

// The parts of module, largest first; none where the module compiles whole: fewer than two
// work-group functions, or a variable that is not constant (the kernels may share it, and each
// part would have its own copy).
std::vector<ModulePart> splitByKernel(const llvm::Module &module);

}  // namespace xpurt::cpu
