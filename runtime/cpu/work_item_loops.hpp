// The loops over a work-group's work-items that the CPU JIT wraps around a kernel or one of
// its regions (see work_group_builder.hpp): work-item functions become arithmetic on the loop
// indices and the group's context, and the x loop is marked parallel for the vectoriser.
#pragma once

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include <cstdint>
#include <string>

namespace xpurt::cpu {

// Declarations the loops answer are renamed to this prefix first (work_group_builder.cpp).
inline constexpr const char *kWorkItemPrefix = "xpurt.wi.";
// What the builtin library's collectives ask of the work-group function (collectives.cl).
inline constexpr const char *kGroupScratch = "xpurt_group_scratch";
inline constexpr const char *kSubGroupSize = "xpurt_sub_group_size";
// Does a generic pointer point into the group's __local memory, or a work-item's private one?
inline constexpr const char *kIsLocal = "xpurt_is_local";
inline constexpr const char *kIsPrivate = "xpurt_is_private";
// Which run of a region this is (the collectives' tags).
inline constexpr const char *kGroupRound = "xpurt_group_round";
inline constexpr uint64_t kGroupScratchBytesPerItem = 128;

// Is `name` one of the functions or placeholders the loops answer?
bool answeredByLoops(const std::string &name);

// Is `name` (without kWorkItemPrefix) a work-item function that its group does not change:
// get_global_id, get_global_size, get_global_offset, get_work_dim, get_global_linear_id?
bool isGlobalWorkItemFunction(const std::string &name);

// The fields of WorkGroupContext as the IR sees them.
struct ContextValues {
  llvm::Value *groupId[3], *localSize[3], *enqueuedLocalSize[3], *globalSize[3], *globalOffset[3],
      *numGroups[3], *workDim, *localMemory, *privateMemory, *localBytes, *privateBytes, *stackTop;
  llvm::Value *groupScratch = nullptr;  // the collectives' exchange memory, if any
  llvm::Value *round = nullptr;         // i32 alloca: counts the runs of regions
  uint32_t subGroupSize = 0;
  // Work-items per call of a body vectorised across x (work_item_vectorizer.hpp), for bodies
  // with loops of their own; 0: never.
  unsigned vectorWidth = 0;
};

ContextValues loadContext(llvm::IRBuilder<> &b, llvm::Value *ctx);

// What the loops of one region record about the regions the work-items go to next.
struct RegionChoices {
  // i32 allocas: the smallest and largest region a work-item chose.
  llvm::Value *lowest = nullptr, *highest = nullptr;
  // i32 per work-item: its next region (-1: done), or nullptr.
  llvm::Value *states = nullptr;
  // i32: run only the work-items whose state is this, or nullptr for all.
  llvm::Value *onlyRegion = nullptr;
};

// Emits, at the end of `from`, loops z, y, x over the group's local ids around a call of
// `body` (the kernel or one of its regions) and inlines it; z, x, y where the body, vectorised
// across x, has loops of its own (what those loops read that varies with x alone then stays
// in registers from one row of work-items to the next). If `result` is given, each work-item
// stores what body returns there. Returns the block after the loops.
llvm::BasicBlock *emitWorkItemLoops(llvm::Function &wg, llvm::BasicBlock *from,
                                    const ContextValues &ctx, llvm::Function &body,
                                    llvm::ArrayRef<llvm::Value *> args, llvm::Value *result,
                                    const RegionChoices *choices = nullptr);

// At `at`: the earliest region (lowest number) that a work-item of the group waits at, as a
// switch to be given a case per region; none left (all done) goes to `exit`. Work-items are
// read where the loops keep their states: item (z * e1 + y) * e0 + x of the enqueued size.
llvm::SwitchInst *emitEarliestState(llvm::Function &wg, llvm::BasicBlock *at,
                                    const ContextValues &ctx, llvm::Value *states,
                                    llvm::Value *items, llvm::BasicBlock *exit, unsigned cases);

}  // namespace xpurt::cpu
