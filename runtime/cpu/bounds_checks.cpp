#include "bounds_checks.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <set>

namespace xpurt::cpu {
namespace {

struct Loop {
  std::set<const llvm::BasicBlock *> blocks;
  llvm::PHINode *id;
  bool inside(const llvm::Value *v) const {
    auto *i = llvm::dyn_cast<llvm::Instruction>(v);
    return i && blocks.count(i->getParent());
  }
  bool dependsOnId(const llvm::Value *v, int depth = 0) const {
    if (v == id) return true;
    auto *i = llvm::dyn_cast<llvm::Instruction>(v);
    if (!i || !inside(i) || depth > 8) return false;
    for (const llvm::Value *op : i->operands())
      if (dependsOnId(op, depth + 1)) return true;
    return false;
  }
};

// `v` with the induction variable replaced by `at`, built before the loop; null unless v is
// the id, plus or minus loop-invariant values, through integer casts: an expression that grows
// with the id.
llvm::Value *rebuild(const Loop &loop, llvm::Value *v, llvm::Value *at, llvm::IRBuilder<> &b) {
  if (v == loop.id) return at;
  if (!loop.inside(v)) return v;  // defined before the loop
  auto *i = llvm::cast<llvm::Instruction>(v);
  if (!loop.dependsOnId(i)) {
    // Computed in the loop but the same in every iteration (the work-item arithmetic is
    // placed where the kernel asked for it): recompute it before the loop if it is plain math.
    if (!llvm::isa<llvm::BinaryOperator>(i) && !llvm::isa<llvm::CastInst>(i) &&
        !llvm::isa<llvm::CmpInst>(i) && !llvm::isa<llvm::SelectInst>(i))
      return nullptr;
    llvm::Instruction *copy = i->clone();
    for (unsigned k = 0; k < copy->getNumOperands(); ++k) {
      llvm::Value *op = rebuild(loop, copy->getOperand(k), at, b);
      if (!op) {
        copy->deleteValue();
        return nullptr;
      }
      copy->setOperand(k, op);
    }
    return b.Insert(copy);
  }
  switch (i->getOpcode()) {
    case llvm::Instruction::Add:
    case llvm::Instruction::Sub: {
      llvm::Value *l = i->getOperand(0), *r = i->getOperand(1);
      if (loop.dependsOnId(l) == loop.dependsOnId(r)) return nullptr;
      if (i->getOpcode() == llvm::Instruction::Sub && loop.dependsOnId(r)) return nullptr;
      llvm::Value *nl = rebuild(loop, l, at, b), *nr = rebuild(loop, r, at, b);
      if (!nl || !nr) return nullptr;
      return b.CreateBinOp(static_cast<llvm::Instruction::BinaryOps>(i->getOpcode()), nl, nr);
    }
    case llvm::Instruction::ZExt:
    case llvm::Instruction::SExt:
    case llvm::Instruction::Trunc: {
      llvm::Value *x = rebuild(loop, i->getOperand(0), at, b);
      return x ? b.CreateCast(static_cast<llvm::Instruction::CastOps>(i->getOpcode()), x,
                              i->getType())
               : nullptr;
    }
    default:
      return nullptr;
  }
}

}  // namespace

std::optional<LoopCopy> splitBoundsChecks(const std::vector<llvm::BasicBlock *> &body,
                                          llvm::PHINode *id, llvm::BasicBlock *latch,
                                          llvm::Value *count) {
  llvm::BasicBlock *header = id->getParent(), *preheader = id->getIncomingBlock(0);
  llvm::Instruction *before = preheader->getTerminator();
  Loop loop{{body.begin(), body.end()}, id};
  loop.blocks.insert(header);
  llvm::Value *allChecks = nullptr;
  std::vector<llvm::ICmpInst *> hoisted;
  std::vector<llvm::ICmpInst *> checks;
  for (llvm::BasicBlock *bb : body)
    for (llvm::Instruction &i : *bb)
      if (auto *cmp = llvm::dyn_cast<llvm::ICmpInst>(&i)) checks.push_back(cmp);
  llvm::IRBuilder<> b(before);
  llvm::Value *lastId = nullptr;
  for (llvm::ICmpInst *cmp : checks) {
    llvm::Value *v = cmp->getOperand(0), *bound = cmp->getOperand(1);
    llvm::CmpInst::Predicate p = cmp->getPredicate();
    if (loop.dependsOnId(bound)) {
      std::swap(v, bound);
      p = llvm::CmpInst::getSwappedPredicate(p);
    }
    bool below = p == llvm::CmpInst::ICMP_ULT || p == llvm::CmpInst::ICMP_ULE ||
                 p == llvm::CmpInst::ICMP_SLT || p == llvm::CmpInst::ICMP_SLE;
    if (!below || loop.dependsOnId(bound) || !loop.dependsOnId(v)) continue;
    if (!lastId) lastId = b.CreateSub(count, llvm::ConstantInt::get(count->getType(), 1));
    llvm::Value *first = rebuild(loop, v, llvm::ConstantInt::get(id->getType(), 0), b);
    llvm::Value *last = first ? rebuild(loop, v, lastId, b) : nullptr;
    bound = last ? rebuild(loop, bound, lastId, b) : nullptr;
    if (!first || !last || !bound) continue;  // what was built is dead and optimised away
    // True at both ends and no wrap-around in between: true for every work-item.
    llvm::Value *ordered =
        b.CreateICmp(llvm::CmpInst::isSigned(p) ? llvm::CmpInst::ICMP_SLE : llvm::CmpInst::ICMP_ULE,
                     first, last);
    llvm::Value *all =
        b.CreateAnd(b.CreateAnd(b.CreateICmp(p, first, bound), b.CreateICmp(p, last, bound)),
                    ordered, "group.in.bounds");
    allChecks = allChecks ? b.CreateAnd(allChecks, all) : all;
    hoisted.push_back(cmp);
  }
  if (!allChecks) return std::nullopt;

  // The copy: header, body and latch cloned; the preheader picks one of the two loops.
  std::vector<llvm::BasicBlock *> blocks{header};
  blocks.insert(blocks.end(), body.begin(), body.end());
  blocks.push_back(latch);
  llvm::ValueToValueMapTy map;
  llvm::SmallVector<llvm::BasicBlock *, 16> copies;
  for (llvm::BasicBlock *bb : blocks) {
    llvm::BasicBlock *copy = llvm::CloneBasicBlock(bb, map, ".unchecked", header->getParent());
    map[bb] = copy;
    copies.push_back(copy);
  }
  llvm::remapInstructionsInBlocks(copies, map);
  for (llvm::ICmpInst *cmp : hoisted) {
    auto *copy = llvm::cast<llvm::Instruction>(map[cmp]);
    copy->replaceAllUsesWith(llvm::ConstantInt::getTrue(copy->getContext()));
    copy->eraseFromParent();
  }
  before->eraseFromParent();
  llvm::BranchInst::Create(llvm::cast<llvm::BasicBlock>(map[header]), header, allChecks, preheader);
  LoopCopy result;
  result.body.assign(copies.begin() + 1, copies.end() - 1);
  result.latchBranch = llvm::cast<llvm::BranchInst>(copies.back()->getTerminator());
  return result;
}

}  // namespace xpurt::cpu
