#include "uniformity.hpp"

#include <llvm/Analysis/PostDominators.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>

namespace xpurt::cpu {
namespace {

// The work-item functions whose result differs between the work-items of a group.
bool perWorkItem(llvm::StringRef callee) {
  if (!callee.consume_front("xpurt.wi.")) return false;
  return callee == "_Z12get_local_idj" || callee == "_Z13get_global_idj" ||
         callee == "_Z19get_local_linear_idv" || callee == "_Z20get_global_linear_idv";
}

}  // namespace

bool Uniformity::varies(const llvm::Instruction &i,
                        const std::set<const llvm::BasicBlock *> &divergent,
                        const std::set<const llvm::BasicBlock *> &joins) const {
  auto anyVarying = [&](const llvm::User &u) {
    for (const llvm::Value *op : u.operands())
      if (varying_.count(op)) return true;
    return false;
  };
  if (llvm::isa<llvm::AllocaInst>(i) || llvm::isa<llvm::AtomicRMWInst>(i) ||
      llvm::isa<llvm::AtomicCmpXchgInst>(i))
    return true;
  if (auto *phi = llvm::dyn_cast<llvm::PHINode>(&i))
    return divergent.count(phi->getParent()) || joins.count(phi->getParent()) || anyVarying(i);
  if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&i))
    // The same address gives every work-item the same value: a write by another work-item
    // in between without a barrier would be a data race.
    return !load->isSimple() || varying_.count(load->getPointerOperand());
  if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i)) {
    const llvm::Function *callee = call->getCalledFunction();
    if (!callee) return true;
    if (callee->getName().startswith("xpurt.wi.")) return perWorkItem(callee->getName());
    if (!call->onlyReadsMemory() || call->mayHaveSideEffects()) return true;
  }
  return anyVarying(i);
}

Divergence divergentBlocks(llvm::Function &f, const llvm::PostDominatorTree &postDominators,
                           const std::function<bool(const llvm::Value *)> &varies) {
  Divergence d;
  for (llvm::BasicBlock &b : f) {
    const llvm::Instruction *t = b.getTerminator();
    const llvm::Value *cond = nullptr;
    if (auto *br = llvm::dyn_cast<llvm::BranchInst>(t); br && br->isConditional())
      cond = br->getCondition();
    if (auto *sw = llvm::dyn_cast<llvm::SwitchInst>(t)) cond = sw->getCondition();
    if (!cond || !varies(cond)) continue;
    auto *node = postDominators.getNode(&b);
    const llvm::BasicBlock *meet = node && node->getIDom() ? node->getIDom()->getBlock() : nullptr;
    if (meet) d.joins.insert(meet);
    std::vector<const llvm::BasicBlock *> work(llvm::succ_begin(&b), llvm::succ_end(&b));
    while (!work.empty()) {
      const llvm::BasicBlock *x = work.back();
      work.pop_back();
      if (x == meet || !d.divergent.insert(x).second) continue;
      for (const llvm::BasicBlock *next : llvm::successors(x)) work.push_back(next);
    }
  }
  return d;
}

Uniformity::Uniformity(llvm::Function &kernel) {
  llvm::PostDominatorTree postDominators(kernel);
  for (bool changed = true; changed;) {
    changed = false;
    auto [divergent, joins] = divergentBlocks(
        kernel, postDominators, [&](const llvm::Value *cond) { return varying_.count(cond) > 0; });
    for (llvm::Instruction &i : llvm::instructions(kernel))
      if (!varying_.count(&i) && varies(i, divergent, joins)) {
        varying_.insert(&i);
        changed = true;
      }
  }
}

}  // namespace xpurt::cpu
