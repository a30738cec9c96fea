// Which values of a kernel are the same for every work-item of a work-group: what depends on
// neither the local id nor a branch that work-items may take differently. A uniform value
// that lives across a barrier is kept once per group instead of once per work-item.
#pragma once

#include <llvm/IR/Function.h>

#include <set>

namespace xpurt::cpu {

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
