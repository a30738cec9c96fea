#include "loop_metadata.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>

namespace xpurt::cpu {

llvm::MDNode *loopFlag(llvm::LLVMContext &c, const char *name) {
  return llvm::MDNode::get(c, {llvm::MDString::get(c, name)});
}

llvm::MDNode *noVectorize(llvm::LLVMContext &c) {
  return llvm::MDNode::get(c, {llvm::MDString::get(c, "llvm.loop.vectorize.enable"),
                               llvm::ConstantAsMetadata::get(llvm::ConstantInt::getFalse(c))});
}

void setLoopProperties(llvm::BranchInst *latchBranch, llvm::ArrayRef<llvm::Metadata *> properties) {
  llvm::LLVMContext &c = latchBranch->getContext();
  std::vector<llvm::Metadata *> operands{nullptr};
  operands.insert(operands.end(), properties.begin(), properties.end());
  auto loopId = llvm::MDNode::getDistinct(c, operands);
  loopId->replaceOperandWith(0, loopId);
  latchBranch->setMetadata(llvm::LLVMContext::MD_loop, loopId);
}

void markOuter(llvm::LLVMContext &c, llvm::BranchInst *latchBranch) {
  setLoopProperties(latchBranch, {loopFlag(c, "llvm.loop.unroll.runtime.disable")});
}

void markParallel(llvm::LLVMContext &c, const std::vector<llvm::BasicBlock *> &body,
                  llvm::BranchInst *latchBranch, bool bodyHasLoops, bool vectorise) {
  llvm::MDNode *group = llvm::MDNode::getDistinct(c, {});
  for (llvm::BasicBlock *bb : body)
    for (llvm::Instruction &i : *bb) {
      bool plain = (llvm::isa<llvm::LoadInst>(i) && !llvm::cast<llvm::LoadInst>(i).isAtomic() &&
                    !llvm::cast<llvm::LoadInst>(i).isVolatile()) ||
                   (llvm::isa<llvm::StoreInst>(i) && !llvm::cast<llvm::StoreInst>(i).isAtomic() &&
                    !llvm::cast<llvm::StoreInst>(i).isVolatile());
      if (plain && !i.getMetadata(kSerialAccess))
        i.setMetadata(llvm::LLVMContext::MD_access_group, group);
    }
  llvm::MDNode *parallel =
      llvm::MDNode::get(c, {llvm::MDString::get(c, "llvm.loop.parallel_accesses"), group});
  std::vector<llvm::Metadata *> properties{parallel};
  if (vectorise) {
    properties.push_back(llvm::MDNode::get(
        c, {llvm::MDString::get(c, "llvm.loop.interleave.count"),
            llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(c), 1))}));
    properties.push_back(
        llvm::MDNode::get(c, {llvm::MDString::get(c, "llvm.loop.vectorize.followup_all"),
                              loopFlag(c, "llvm.loop.unroll.disable")}));
    if (!bodyHasLoops) properties.push_back(loopFlag(c, "llvm.loop.unroll.runtime.disable"));
  } else {
    properties.push_back(noVectorize(c));
    properties.push_back(loopFlag(c, "llvm.loop.unroll.disable"));
  }
  setLoopProperties(latchBranch, properties);
}

void markDone(llvm::LLVMContext &c, llvm::BranchInst *latchBranch) {
  setLoopProperties(latchBranch, {noVectorize(c)});
}

}  // namespace xpurt::cpu
