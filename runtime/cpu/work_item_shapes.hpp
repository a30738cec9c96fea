// How the values of a work-item body differ between consecutive work-items in x, for the
// whole-function vectoriser (work_item_vectorizer.hpp): the same for all (uniform), the first
// one's plus a constant step per work-item (consecutive: get_local_id(0), &a[get_global_id(0)]),
// or anything (varying). And which blocks only some of them may run.
#pragma once

#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>

#include <cstdint>
#include <map>
#include <set>

namespace xpurt::cpu {

struct Shape {
  enum Kind { Uniform, Consecutive, Varying } kind = Uniform;
  int64_t stride = 0;  // Consecutive: per work-item, in elements (integers) or bytes (pointers)
  bool operator==(const Shape &o) const { return kind == o.kind && stride == o.stride; }
};

class WorkItemShapes {
 public:
  // `body` is flat, in LCSSA form, its work-item functions named xpurt.wi.*.
  explicit WorkItemShapes(llvm::Function &body);
  Shape of(const llvm::Value *v) const;
  bool uniform(const llvm::Value *v) const { return of(v).kind == Shape::Uniform; }
  // Blocks that only some work-items may run, and the blocks where their paths meet again.
  bool divergent(const llvm::BasicBlock *b) const { return divergent_.count(b) > 0; }
  bool join(const llvm::BasicBlock *b) const { return joins_.count(b) > 0; }

 private:
  Shape compute(const llvm::Instruction &i) const;
  std::map<const llvm::Value *, Shape> shapes_;
  std::set<const llvm::BasicBlock *> divergent_, joins_;
};

// Work-item functions whose value steps by one from one work-item to the next in x.
bool isConsecutiveWorkItemCall(const llvm::CallBase &call);

}  // namespace xpurt::cpu
