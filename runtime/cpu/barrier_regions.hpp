// Barriers on the CPU, the way PoCL does it: a kernel with barriers is cut at each barrier
// into regions; the work-group function runs one region for every work-item of the group (in
// a loop over the local ids, vectorisable like any other), then the next region. Values that
// live across a barrier are kept per work-item in the group's private memory; everything else
// stays in registers. Static __local variables move into the group's local memory.
#pragma once

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <vector>

namespace xpurt::cpu {

// Placeholders that the region functions call and the work-group builder resolves:
//   ptr xpurt.wi.local_base()                  the group's __local memory
//   ptr xpurt.wi.private_slot(i64 p, i64 size) this work-item's copy of a value that lives
//                                              across a barrier: base + p * items + id * size
//   ptr xpurt.wi.group_slot(i64 q, i64 p)     a value the same for all work-items, kept once:
//                                              base + q * items + p
inline constexpr const char *kLocalBase = "xpurt.wi.local_base";
inline constexpr const char *kPrivateSlot = "xpurt.wi.private_slot";
inline constexpr const char *kUniformSlot = "xpurt.wi.group_slot";

bool isBarrierName(llvm::StringRef name);
bool hasBarrier(const llvm::Function &kernel);

// A value the same for all work-items that lives across a barrier: kept once per group, at
// xpurt.wi.group_slot(slotArea, offset).
struct GroupValue {
  uint64_t slotArea, offset;
  llvm::Type *type;
};

struct Regions {
  // Region i starts at the kernel's entry (i = 0) or after barrier i - 1. Each takes the
  // kernel's arguments, then the group values as loaded before the region's work-items run,
  // and returns the region to run next, or -1 when the kernel is done.
  std::vector<llvm::Function *> functions;
  std::vector<GroupValue> groupValues;
  uint64_t privateBytesPerItem = 0;   // values kept per work-item
  uint64_t privateBytesPerGroup = 0;  // values the same for all, after the per-item ones
};

// `kernel` must be flat (everything it calls inlined). It is left in place, unused.
Regions splitAtBarriers(llvm::Function &kernel);

// Gives each static __local variable an offset in the group's local memory and rewrites its
// uses to local_base() + offset. Returns the bytes they take together.
uint64_t lowerStaticLocals(llvm::Module &module);

}  // namespace xpurt::cpu
