// The ABI between the CPU device and the code its JIT makes from a SPIR-V kernel: one
// work-group function per kernel, called once per work-group, that runs every work-item of
// the group in loops over the local ids.
#pragma once

#include <cstdint>
#include <string>

namespace xpurt::cpu {

// One work-group's coordinates. The IR built in work_group_builder.cpp reads these fields by
// index: keep the two in step.
struct WorkGroupContext {
  uint64_t groupId[3];
  uint64_t localSize[3];          // this group's: smaller than enqueued for a last, partial group
  uint64_t enqueuedLocalSize[3];  // the launch's
  uint64_t globalSize[3];
  uint64_t globalOffset[3];
  uint64_t numGroups[3];
  uint32_t workDim;
  uint32_t divergent;   // set by the function: its work-items parted at a barrier
  uint64_t localBytes;  // the group's __local memory
  // Where a work-item's private memory is: `priv` (below) of this many bytes, and the stack
  // from the work-group function's stack pointer up to (not including) this address.
  uint64_t privateBytes;
  uint64_t stackTop;
};

// args[i] points to the value of argument i; for a __local pointer argument, to the uint64_t
// offset of its storage in `local`. `local` is the group's __local memory (static variables,
// then arguments), `priv` what its work-items keep across barriers; both are noalias.
using WorkGroupFunction = void (*)(void *const *args, WorkGroupContext *ctx, char *local,
                                   char *priv);

inline std::string workGroupFunctionName(const std::string &kernel) {
  return "xpurt.wg." + kernel;
}

}  // namespace xpurt::cpu
