// The whole-function vectoriser's state (work_item_vectorizer.hpp), shared by its two parts:
// the control flow (work_item_vectorizer.cpp) and the instructions (work_item_vector_code.cpp).
#pragma once

#include "vector_math_library.hpp"
#include "work_item_shapes.hpp"

#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <map>
#include <string>
#include <vector>

namespace xpurt::cpu::wfv {

using llvm::BasicBlock;
using llvm::Instruction;
using llvm::IRBuilder;
using llvm::Value;

struct Unsupported {
  std::string why;
};

// A step of the linear order: a block, or a whole loop.
struct Node {
  BasicBlock *block = nullptr;
  llvm::Loop *loop = nullptr;
};

class Vectorizer {
 public:
  Vectorizer(llvm::Function &f, unsigned width, bool anyBody)
      : f_(f),
        w_(width),
        anyBody_(anyBody),
        shapes_(f),
        dt_(f),
        postDominators_(f),
        loops_(dt_),
        layout_(f.getParent()->getDataLayout()),
        libraryInfo_(llvm::Triple(f.getParent()->getTargetTriple())) {
    addVectorMath(libraryInfo_, width >= 16);  // 16 lanes: AVX-512 (vectorWidthFor)
  }

  llvm::Function *run(const std::string &name);
  void emitFunction();

 private:
  // ---- checks and order
  void check();
  std::vector<Node> order(llvm::Loop *loop);
  // ---- emission
  void emitNodes(const std::vector<Node> &nodes);
  void emitBlock(BasicBlock *b);
  void emitLoop(llvm::Loop *loop);
  void emitInstruction(Instruction &i);
  void emitPhi(llvm::PHINode &phi);
  void emitMemory(Instruction &i);
  void emitCall(llvm::CallBase &call);
  void scalarize(Instruction &i);
  // ---- values
  // A value of every lane: `width` of a scalar type; a vector type's lanes packed one after
  // the other (lane l's element j at l * n + j), as `width` consecutive vectors lie in memory.
  llvm::Type *vectorOf(llvm::Type *t) {
    if (auto *v = llvm::dyn_cast<llvm::FixedVectorType>(t))
      return llvm::FixedVectorType::get(v->getElementType(), w_ * v->getNumElements());
    return llvm::FixedVectorType::get(t, w_);
  }
  // A vector of integers or floating-point values: lanes of it pack one after the other.
  static bool packable(llvm::Type *t) {
    auto *v = llvm::dyn_cast<llvm::FixedVectorType>(t);
    return v && (v->getElementType()->isIntegerTy() || v->getElementType()->isFloatingPointTy());
  }
  // A type whose value can differ between work-items: one per lane (vectorOf), or a packed vector.
  static bool variesPerLane(llvm::Type *t) {
    return t->isIntegerTy() || t->isFloatingPointTy() || t->isPointerTy() || packable(t);
  }
  // Elements per lane of a value of type `t` (1 for a scalar).
  static unsigned elementsOf(llvm::Type *t) {
    auto *v = llvm::dyn_cast<llvm::FixedVectorType>(t);
    return v ? v->getNumElements() : 1;
  }
  // A mask of lanes for a value of every lane of type `laneType`: each lane's bit repeated
  // for each of its elements.
  Value *maskFor(Value *mask, llvm::Type *laneType);
  Value *selectLanes(Value *mask, Value *a, Value *b, llvm::Type *laneType) {
    return b_.CreateSelect(maskFor(mask, laneType), a, b);
  }
  // `packed` with lane l replaced by `laneValue` (of the lane's own type).
  Value *withLane(Value *packed, Value *laneValue, unsigned l);
  void emitVectorElements(Instruction &i);
  Value *scalar(Value *v);
  Value *vector(Value *v);
  Value *base(Value *v);
  Value *lane(Value *v, unsigned l);
  Value *allTrue() { return llvm::Constant::getAllOnesValue(vectorOf(b_.getInt1Ty())); }
  Value *allFalse() { return llvm::Constant::getNullValue(vectorOf(b_.getInt1Ty())); }
  static bool isAllTrue(Value *m) {
    auto *c = llvm::dyn_cast<llvm::Constant>(m);
    return c && c->isAllOnesValue();
  }
  Value *any(Value *m) {
    if (isAllTrue(m)) return b_.getTrue();
    return b_.CreateOrReduce(m);
  }
  // Lanes that do not run a block may hold poison (a masked load's, a value no lane computed):
  // masks combine as selects, which do not pass it on, so that no branch tests poison.
  Value *andMask(Value *a, Value *b) {
    if (isAllTrue(a)) return b_.CreateFreeze(b);
    return b_.CreateLogicalAnd(a, b);
  }
  Value *orMask(Value *a, Value *b) {
    if (!a) return b;
    if (isAllTrue(a) || isAllTrue(b)) return allTrue();
    return b_.CreateLogicalOr(a, b);
  }
  Value *edge(BasicBlock *from, BasicBlock *to) { return edges_.at({from, to}); }
  Value *maskOf(BasicBlock *b);
  Value *safeAddress(Value *address);

  llvm::Function &f_;
  unsigned w_;
  bool anyBody_;  // vectorise bodies without divergent loops too
  WorkItemShapes shapes_;
  llvm::DominatorTree dt_;
  llvm::PostDominatorTree postDominators_;
  llvm::LoopInfo loops_;
  const llvm::DataLayout &layout_;
  llvm::Function *g_ = nullptr;
  IRBuilder<> b_{f_.getContext()};
  llvm::ValueToValueMapTy args_;
  std::map<const Value *, Value *> scalars_, vectors_, bases_;
  std::map<std::pair<BasicBlock *, BasicBlock *>, Value *> edges_;  // lanes taking an edge
  std::map<BasicBlock *, Value *> masks_;
  Value *returned_ = nullptr;
  llvm::AllocaInst *dummy_ = nullptr;  // where a load no work-item needs reads
  Value *mask_ = nullptr;              // the lanes running the block being emitted
  // A loop's exit edge: the lanes that left through it so far, and what each kept of the
  // values its exit block's phis take from it.
  struct Exit {
    BasicBlock *from, *to;
    llvm::PHINode *left;  // in the loop's header
    Value *leftNext = nullptr;
    std::vector<std::pair<llvm::PHINode *, llvm::PHINode *>> kept;  // exit phi -> header phi
    std::vector<Value *> keptNext;
    // Every lane in the loop leaves by this edge in the same iteration, the last: the values
    // of that iteration are the ones kept, with no select per iteration.
    bool allAtOnce = false;
  };
  std::map<BasicBlock *, std::vector<Exit *>> exitsFrom_;
  llvm::TargetLibraryInfoImpl libraryInfo_;
  void leaveThrough(BasicBlock *b);
};

}  // namespace xpurt::cpu::wfv
