// Bounds checks in the loop over work-items: `if (get_global_id(0) < n)` is true for every
// work-item of a group when it is true for the first and the last. The check gets that answer
// computed before the loop, and a copy of the loop without the checks runs when they all hold;
// it vectorises without masked loads and stores. Only a group that straddles a bound runs the
// checked loop.
#pragma once

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Instructions.h>

#include <optional>
#include <vector>

namespace xpurt::cpu {

struct LoopCopy {
  std::vector<llvm::BasicBlock *> body;
  llvm::BranchInst *latchBranch = nullptr;
};

// body: the blocks of the x loop's body; id: its induction variable (0 to count - 1), in the
// loop's header; latch: the block that steps it. Returns the unchecked copy's body and latch
// branch, or nothing if the loop has no such check.
std::optional<LoopCopy> splitBoundsChecks(const std::vector<llvm::BasicBlock *> &body,
                                          llvm::PHINode *id, llvm::BasicBlock *latch,
                                          llvm::Value *count);

}  // namespace xpurt::cpu
