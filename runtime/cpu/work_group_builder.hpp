// Turns the kernels of a module read from SPIR-V into work-group functions for the host CPU
// (see work_group.hpp): work-item functions become arithmetic on the loop indices and the
// group's context, the loop over x is marked parallel so LLVM vectorises across work-items,
// and the OpenCL builtin library is linked in.
#pragma once

#include "spirv/spirv_reader.hpp"

#include <llvm/ADT/Triple.h>

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Module.h>
#include <map>

namespace xpurt::cpu {

// Sub-groups: consecutive work-items in local linear order, as many as the kernel requires
// (intel_reqd_sub_group_size, at most kMaxSubGroupSize: ballots are 128 bits), else
// kDefaultSubGroupSize: one AVX-512 vector of floats, two AVX2 ones.
inline constexpr uint32_t kDefaultSubGroupSize = 16;
inline constexpr uint32_t kMaxSubGroupSize = 128;

// The memory a kernel's work-groups need besides their arguments' __local memory.
struct KernelLayout {
  uint64_t staticLocalBytes = 0;      // static __local variables, at the start of local memory
  uint64_t privateBytesPerItem = 0;   // values kept per work-item across barriers
  uint64_t privateBytesPerGroup = 0;  // values the same for all work-items, kept once
  uint32_t regions = 1;               // 1 + the number of barriers
  // The kernel asks for nothing of its group (no local id or size, group id or count, barrier,
  // sub-group or __local variable; global ids and sizes only): consecutive groups along x may
  // run as one larger group, with the same results.
  bool groupsMayMerge = false;
};

struct WorkGroupFunctions {
  std::map<std::string, KernelLayout> layouts;     // per kernel built
  std::map<std::string, std::string> unavailable;  // per kernel not built: why, for its user
};

// A kernel that calls a builtin the CPU device lacks is left out (named in `unavailable`); the
// module's other kernels are built. Throws UNSUPPORTED for what the CPU JIT cannot run at all,
// INVALID_MODULE for bad input.
// vectorWidth: work-items per call where bodies with loops of their own are vectorised
// across x (work_item_vectorizer.hpp); 0 never.
WorkGroupFunctions buildWorkGroupFunctions(llvm::Module &module,
                                           const std::vector<spirv::KernelInfo> &kernels,
                                           const llvm::DataLayout &layout,
                                           const llvm::Triple &triple, const std::string &name,
                                           unsigned vectorWidth);

}  // namespace xpurt::cpu
