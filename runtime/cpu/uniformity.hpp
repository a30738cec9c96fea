// Which values of a kernel are the same for every work-item of a work-group: what depends on
// neither the local id nor a branch that work-items may take differently. A uniform value
// that lives across a barrier is kept once per group instead of once per work-item.
#pragma once

#include <llvm/Analysis/PostDominators.h>
#include <llvm/IR/Function.h>

#include <functional>

#include <set>

namespace xpurt::cpu {

// Blocks that only some work-items may run (between a branch on a condition for which
// `varies` holds and its immediate post-dominator, where all paths meet again), and those
// meeting points.
struct Divergence {
  std::set<const llvm::BasicBlock *> divergent, joins;
};
Divergence divergentBlocks(llvm::Function &f, const llvm::PostDominatorTree &postDominators,
                           const std::function<bool(const llvm::Value *)> &varies);

class Uniformity {
 public:
  // `kernel` is flat (its callees inlined), its work-item functions named xpurt.wi.*.
  explicit Uniformity(llvm::Function &kernel);
  bool uniform(const llvm::Value *v) const { return !varying_.count(v); }

 private:
  bool varies(const llvm::Instruction &i, const std::set<const llvm::BasicBlock *> &divergent,
              const std::set<const llvm::BasicBlock *> &joins) const;
  std::set<const llvm::Value *> varying_;
};

}  // namespace xpurt::cpu
