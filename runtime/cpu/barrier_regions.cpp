#include "barrier_regions.hpp"

#include "uniformity.hpp"
#include "work_item_loops.hpp"

#include <llvm/IR/CFG.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/ReplaceConstant.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/Local.h>

#include <array>
#include <map>
#include <set>

namespace xpurt::cpu {
namespace {

using BlockSet = std::set<const llvm::BasicBlock *>;

// The blocks reached from `starts` through `step` (successors or predecessors), starts
// included, never entering a block of `stop`.
template <class Starts, class Step>
BlockSet walk(const Starts &starts, Step step, const BlockSet &stop = {}) {
  BlockSet seen;
  std::vector<const llvm::BasicBlock *> work;
  auto visit = [&](const llvm::BasicBlock *b) {
    if (!stop.count(b) && seen.insert(b).second) work.push_back(b);
  };
  for (const llvm::BasicBlock *b : starts) visit(b);
  while (!work.empty()) {
    const llvm::BasicBlock *b = work.back();
    work.pop_back();
    for (const llvm::BasicBlock *next : step(b)) visit(next);
  }
  return seen;
}

auto successorsOf = [](const llvm::BasicBlock *b) { return llvm::successors(b); };
auto predecessorsOf = [](const llvm::BasicBlock *b) { return llvm::predecessors(b); };

// For each barrier: the blocks that can reach it and the blocks reachable after it.
struct BarrierReach {
  std::vector<const llvm::BasicBlock *> barriers;
  std::vector<BlockSet> before, after;

  // Could memory written in `def` be read in `use` after some barrier has been passed?
  bool crosses(const llvm::BasicBlock *def, const llvm::BasicBlock *use) const {
    for (size_t i = 0; i < before.size(); ++i)
      if (before[i].count(def) && after[i].count(use)) return true;
    return false;
  }

  // Could an SSA value defined in `def` reach `use` through a barrier? Only along paths that
  // do not run `def` again, which would define the value anew.
  bool valueCrosses(const llvm::BasicBlock *def, const llvm::BasicBlock *use) {
    auto [it, fresh] = valueReach_.try_emplace(def);
    if (fresh) {
      BlockSet skip{def};
      BlockSet first = walk(llvm::successors(def), successorsOf, skip);
      for (const llvm::BasicBlock *b : barriers)
        if (first.count(b)) {
          BlockSet later = walk(llvm::successors(b), successorsOf, skip);
          it->second.insert(later.begin(), later.end());
        }
    }
    return it->second.count(use) > 0;
  }

 private:
  std::map<const llvm::BasicBlock *, BlockSet> valueReach_;
};

const llvm::BasicBlock *useBlock(const llvm::Use &u) {
  auto *user = llvm::cast<llvm::Instruction>(u.getUser());
  if (auto *phi = llvm::dyn_cast<llvm::PHINode>(user)) return phi->getIncomingBlock(u);
  return user->getParent();
}

// Blocks where the memory of an alloca is touched, through any chain of address computations.
std::vector<const llvm::BasicBlock *> accessBlocks(llvm::AllocaInst &a) {
  std::vector<const llvm::BasicBlock *> blocks;
  std::vector<llvm::Value *> work{&a};
  std::set<llvm::Value *> seen{&a};
  while (!work.empty()) {
    llvm::Value *v = work.back();
    work.pop_back();
    for (llvm::User *u : v->users()) {
      auto *i = llvm::dyn_cast<llvm::Instruction>(u);
      if (!i) continue;
      blocks.push_back(i->getParent());
      if ((llvm::isa<llvm::GetElementPtrInst>(i) || llvm::isa<llvm::CastInst>(i) ||
           llvm::isa<llvm::PHINode>(i) || llvm::isa<llvm::SelectInst>(i)) &&
          seen.insert(i).second)
        work.push_back(i);
    }
  }
  return blocks;
}

// Is `v` computed from work-item functions, the kernel's arguments and constants alone, by at
// most `budget` instructions that touch no memory? Such a value is the same wherever a
// work-item computes it, so it is computed again after a barrier instead of being kept in
// memory: the vectoriser then still sees that get_local_id(0) is consecutive and
// get_group_id uniform.
bool recomputable(const llvm::Value *v, unsigned &budget, std::set<const llvm::Value *> &seen) {
  auto *i = llvm::dyn_cast<llvm::Instruction>(v);
  if (!i || seen.count(i)) return true;
  if (budget == 0) return false;
  --budget;
  seen.insert(i);
  if (auto *call = llvm::dyn_cast<llvm::CallInst>(i)) {
    const llvm::Function *callee = call->getCalledFunction();
    if (!callee) return false;
    llvm::StringRef name = callee->getName();
    bool workItem = name.consume_front(kWorkItemPrefix) && answeredByLoops(name.str()) &&
                    name != kGroupRound;  // counts the runs of regions: not the same after
    bool pure = callee->isIntrinsic() && call->doesNotAccessMemory() && !call->mayHaveSideEffects();
    if (!workItem && !pure) return false;
    for (const llvm::Value *arg : call->args())
      if (!recomputable(arg, budget, seen)) return false;
    return true;
  }
  if (!llvm::isa<llvm::BinaryOperator>(i) && !llvm::isa<llvm::UnaryOperator>(i) &&
      !llvm::isa<llvm::CastInst>(i) && !llvm::isa<llvm::CmpInst>(i) &&
      !llvm::isa<llvm::SelectInst>(i) && !llvm::isa<llvm::GetElementPtrInst>(i) &&
      !llvm::isa<llvm::ExtractElementInst>(i) && !llvm::isa<llvm::InsertElementInst>(i) &&
      !llvm::isa<llvm::ShuffleVectorInst>(i))
    return false;
  for (const llvm::Value *op : i->operands())
    if (!recomputable(op, budget, seen)) return false;
  return true;
}

// A copy of the recomputable `v` before `at`, sharing the copies in `made`.
llvm::Value *recompute(llvm::Value *v, llvm::Instruction *at,
                       std::map<llvm::Value *, llvm::Value *> &made) {
  auto *i = llvm::dyn_cast<llvm::Instruction>(v);
  if (!i) return v;
  if (auto it = made.find(i); it != made.end()) return it->second;
  llvm::Instruction *copy = i->clone();
  for (unsigned k = 0; k < copy->getNumOperands(); ++k)
    copy->setOperand(k, recompute(i->getOperand(k), at, made));
  copy->insertBefore(at);
  copy->setName(i->getName() + ".again");
  made[i] = copy;
  return copy;
}

llvm::Function *placeholder(llvm::Module &m, const char *name,
                            llvm::ArrayRef<llvm::Type *> params) {
  auto *type = llvm::FunctionType::get(llvm::PointerType::get(m.getContext(), 0), params, false);
  auto callee = m.getOrInsertFunction(name, type);
  auto *f = llvm::cast<llvm::Function>(callee.getCallee());
  f->setDoesNotThrow();
  f->setOnlyAccessesInaccessibleMemory();
  return f;
}

// In a region's function: the group values come from its trailing parameters into copies of
// the work-item's own, which its loads read; its stores write both the copy and the slot.
void readGroupValuesOnce(llvm::Function &region, size_t kernelParams,
                         const std::vector<llvm::Instruction *> &slots,
                         llvm::ValueToValueMapTy &map) {
  llvm::IRBuilder<> b(&*region.getEntryBlock().getFirstInsertionPt());
  for (size_t j = 0; j < slots.size(); ++j) {
    llvm::Value *param = region.getArg(static_cast<unsigned>(kernelParams + j));
    auto mapped = map.find(slots[j]);
    if (mapped == map.end() || !mapped->second) continue;
    llvm::Value *slot = mapped->second;
    llvm::AllocaInst *own = b.CreateAlloca(param->getType(), nullptr, "group.value");
    b.CreateStore(param, own);
    for (llvm::User *u : llvm::make_early_inc_range(slot->users())) {
      if (auto *load = llvm::dyn_cast<llvm::LoadInst>(u)) {
        load->setOperand(load->getPointerOperandIndex(), own);
      } else if (auto *store = llvm::dyn_cast<llvm::StoreInst>(u)) {
        llvm::IRBuilder<>(store).CreateStore(store->getValueOperand(), own);
      }
    }
  }
}

}  // namespace

bool isBarrierName(llvm::StringRef name) {
  name.consume_front("xpurt.wi.");
  return name == "_Z7barrierj" || name.startswith("_Z18work_group_barrier") ||
         name.startswith("__spirv_ControlBarrier");
}

static bool isBarrierCall(const llvm::Instruction &i) {
  auto *call = llvm::dyn_cast<llvm::CallBase>(&i);
  auto *callee = call ? call->getCalledFunction() : nullptr;
  return callee && isBarrierName(callee->getName());
}

bool hasBarrier(const llvm::Function &kernel) {
  for (const llvm::Instruction &i : llvm::instructions(kernel))
    if (isBarrierCall(i)) return true;
  return false;
}

Regions splitAtBarriers(llvm::Function &kernel) {
  llvm::Module &m = *kernel.getParent();
  llvm::LLVMContext &c = m.getContext();
  const llvm::DataLayout &layout = m.getDataLayout();

  // Each barrier gets a block of its own, which later becomes the end of a region.
  std::vector<llvm::CallBase *> calls;
  for (llvm::Instruction &i : llvm::instructions(kernel))
    if (isBarrierCall(i)) calls.push_back(llvm::cast<llvm::CallBase>(&i));
  std::vector<llvm::BasicBlock *> barriers;
  for (llvm::CallBase *call : calls) {
    llvm::BasicBlock *block = call->getParent()->splitBasicBlock(call, "barrier");
    block->splitBasicBlock(call->getNextNode(), "after.barrier");
    call->eraseFromParent();
    barriers.push_back(block);
  }

  // An edge into a block with phis gets a block of its own where its source branches
  // elsewhere too: a demoted phi's value is then stored only right before its block runs
  // (see the reloads below).
  std::vector<std::pair<llvm::BasicBlock *, llvm::BasicBlock *>> critical;
  for (llvm::BasicBlock &b : kernel)
    if (llvm::isa<llvm::PHINode>(b.front()))
      for (llvm::BasicBlock *p : llvm::predecessors(&b))
        if (p->getTerminator()->getNumSuccessors() > 1) critical.emplace_back(p, &b);
  for (auto [from, to] : critical) llvm::SplitEdge(from, to);

  BarrierReach reach;
  for (llvm::BasicBlock *b : barriers) {
    reach.barriers.push_back(b);
    reach.before.push_back(
        walk(std::array{static_cast<const llvm::BasicBlock *>(b)}, predecessorsOf));
    reach.after.push_back(walk(std::array{b->getSingleSuccessor()}, successorsOf));
  }

  // Values the same for every work-item are kept once per group.
  Uniformity uniformity(kernel);
  std::set<const llvm::Value *> analysed;
  for (llvm::Instruction &i : llvm::instructions(kernel)) analysed.insert(&i);
  std::set<const llvm::AllocaInst *> uniformAllocas;
  auto isUniform = [&](const llvm::Instruction &i) {
    if (analysed.count(&i)) return uniformity.uniform(&i);
    // Made by the demotion below: a reload of a group-wide value is group-wide.
    auto *load = llvm::dyn_cast<llvm::LoadInst>(&i);
    auto *from = load ? llvm::dyn_cast<llvm::AllocaInst>(load->getPointerOperand()) : nullptr;
    return from && uniformAllocas.count(from);
  };

  // SSA values used after a barrier that may separate them from their definition go to memory.
  // Until none is left: the reload of a demoted phi is itself a value that may cross.
  // Values recomputed after the barriers instead are copied to each use that crosses one.
  llvm::Instruction *allocaPoint = &*kernel.getEntryBlock().getFirstInsertionPt();
  // A demoted phi's slot is written only at the ends of blocks that go straight to the phi's
  // block, where it is reloaded: wherever the reload is live, the slot still holds it. So a
  // reload used across a barrier is loaded again there, rather than copied to a slot of its
  // own in every run of the phi's block.
  std::set<llvm::AllocaInst *> phiSlots;
  auto reloadOfPhiSlot = [&](llvm::Instruction &i) -> llvm::AllocaInst * {
    auto *load = llvm::dyn_cast<llvm::LoadInst>(&i);
    auto *slot = load ? llvm::dyn_cast<llvm::AllocaInst>(load->getPointerOperand()) : nullptr;
    if (!slot || !phiSlots.count(slot)) return nullptr;
    for (llvm::User *u : slot->users()) {
      auto *store = llvm::dyn_cast<llvm::StoreInst>(u);
      if (!store) {
        if (!llvm::isa<llvm::LoadInst>(u)) return nullptr;
        continue;
      }
      auto *branch = llvm::dyn_cast<llvm::BranchInst>(store->getParent()->getTerminator());
      if (store->getPointerOperand() != slot || !branch || branch->isConditional() ||
          branch->getSuccessor(0) != load->getParent())
        return nullptr;
    }
    return slot;
  };
  for (;;) {
    std::vector<llvm::Instruction *> crossing;
    std::vector<std::pair<llvm::Instruction *, llvm::Use *>> recomputed;
    for (llvm::Instruction &i : llvm::instructions(kernel)) {
      if (llvm::isa<llvm::AllocaInst>(i) || i.use_empty()) continue;
      std::vector<llvm::Use *> crossingUses;
      for (llvm::Use &u : i.uses()) {
        const llvm::BasicBlock *use = useBlock(u);
        // A use later in the defining block (or a phi fed from the end of it) never sees
        // another execution of the definition.
        auto *user = llvm::cast<llvm::Instruction>(u.getUser());
        bool sameBlockAfter =
            use == i.getParent() && (llvm::isa<llvm::PHINode>(user) || i.comesBefore(user));
        if (!sameBlockAfter && reach.valueCrosses(i.getParent(), use)) crossingUses.push_back(&u);
      }
      if (crossingUses.empty()) continue;
      if (llvm::AllocaInst *slot = reloadOfPhiSlot(i)) {
        for (llvm::Use *u : crossingUses) {
          auto *user = llvm::cast<llvm::Instruction>(u->getUser());
          llvm::Instruction *at = user;
          if (auto *phi = llvm::dyn_cast<llvm::PHINode>(user))
            at = phi->getIncomingBlock(*u)->getTerminator();
          // Before the slot's own store, where the use is in a block with one (a phi that
          // takes another phi's value: a swap).
          for (llvm::Instruction &x : *at->getParent()) {
            if (&x == at) break;
            if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&x);
                store && store->getPointerOperand() == slot) {
              at = store;
              break;
            }
          }
          u->set(new llvm::LoadInst(i.getType(), slot, i.getName() + ".again", at));
        }
        continue;
      }
      unsigned budget = 32;
      std::set<const llvm::Value *> seen;
      if (recomputable(&i, budget, seen)) {
        for (llvm::Use *u : crossingUses) recomputed.emplace_back(&i, u);
      } else {
        crossing.push_back(&i);
      }
    }
    for (auto [i, u] : recomputed) {
      auto *user = llvm::cast<llvm::Instruction>(u->getUser());
      llvm::Instruction *at = user;
      if (auto *phi = llvm::dyn_cast<llvm::PHINode>(user))
        at = phi->getIncomingBlock(*u)->getTerminator();
      std::map<llvm::Value *, llvm::Value *> made;
      u->set(recompute(i, at, made));
    }
    if (crossing.empty()) break;
    for (llvm::Instruction *i : crossing) {
      bool uniform = isUniform(*i);
      llvm::AllocaInst *slot = nullptr;
      if (auto *phi = llvm::dyn_cast<llvm::PHINode>(i)) {
        slot = llvm::DemotePHIToStack(phi, allocaPoint);
        if (slot) phiSlots.insert(slot);
      } else
        slot = llvm::DemoteRegToStack(*i, false, allocaPoint);
      if (uniform && slot) uniformAllocas.insert(slot);
    }
  }

  // Private variables touched on both sides of a barrier get a slot per work-item; demoted
  // group-wide values one slot per group, after the per-work-item slots.
  Regions regions;
  llvm::Type *i64 = llvm::Type::getInt64Ty(c);
  llvm::Function *slot = placeholder(m, kPrivateSlot, {i64, i64});
  llvm::Function *groupSlot = placeholder(m, kUniformSlot, {i64, i64});
  std::vector<llvm::AllocaInst *> allocas, groupWide;
  for (llvm::Instruction &i : llvm::instructions(kernel))
    if (auto *a = llvm::dyn_cast<llvm::AllocaInst>(&i)) allocas.push_back(a);
  auto replace = [](llvm::AllocaInst *a, llvm::Function *with, uint64_t x, uint64_t y) {
    llvm::IRBuilder<> b(a);
    llvm::Value *p = b.CreateCall(with, {b.getInt64(x), b.getInt64(y)});
    if (p->getType() != a->getType()) p = b.CreatePointerBitCastOrAddrSpaceCast(p, a->getType());
    a->replaceAllUsesWith(p);
    a->eraseFromParent();
  };
  auto sizeOf = [&](llvm::AllocaInst *a) {
    auto size = a->getAllocationSizeInBits(layout);
    return size ? *size / 8 : 8;
  };
  // A group-wide slot holds a value the same for all work-items. Each region reads it once,
  // before its work-items run (an argument of the region's function), and a work-item reads
  // its own writes from a copy of its own: within a region, a work-item must not see what the
  // ones before it wrote. That takes loads and stores of one type, as demotion makes them.
  auto valueType = [](llvm::AllocaInst *a) -> llvm::Type * {
    for (const llvm::User *u : a->users()) {
      if (auto *load = llvm::dyn_cast<llvm::LoadInst>(u);
          load && load->isSimple() && load->getType() == a->getAllocatedType())
        continue;
      if (auto *store = llvm::dyn_cast<llvm::StoreInst>(u);
          store && store->isSimple() && store->getPointerOperand() == a &&
          store->getValueOperand()->getType() == a->getAllocatedType())
        continue;
      return nullptr;
    }
    return a->getAllocatedType();
  };
  for (llvm::AllocaInst *a : allocas) {
    auto blocks = accessBlocks(*a);
    bool crosses = false;
    for (const llvm::BasicBlock *x : blocks)
      for (const llvm::BasicBlock *y : blocks) crosses = crosses || reach.crosses(x, y);
    if (!crosses) continue;
    if (uniformAllocas.count(a) && valueType(a)) {
      groupWide.push_back(a);
      continue;
    }
    uint64_t bytes = sizeOf(a), align = std::max<uint64_t>(a->getAlign().value(), 4);
    uint64_t at = (regions.privateBytesPerItem + align - 1) / align * align;
    replace(a, slot, at, bytes);
    regions.privateBytesPerItem = at + bytes;
  }
  // The group-wide slots start at privateBytesPerItem * items: a multiple of 128 keeps that
  // start aligned for any value (a double16), as each slot is within the area.
  regions.privateBytesPerItem = (regions.privateBytesPerItem + 127) / 128 * 128;
  std::vector<llvm::Instruction *> groupSlots;  // in the kernel's entry, one per group value
  for (llvm::AllocaInst *a : groupWide) {
    uint64_t align = std::max<uint64_t>(a->getAlign().value(), 16);
    uint64_t at = (regions.privateBytesPerGroup + align - 1) / align * align;
    regions.privateBytesPerGroup = at + sizeOf(a);
    regions.groupValues.push_back({regions.privateBytesPerItem, at, a->getAllocatedType()});
    llvm::IRBuilder<> b(a);
    groupSlots.push_back(
        b.CreateCall(groupSlot, {b.getInt64(regions.privateBytesPerItem), b.getInt64(at)}));
    a->replaceAllUsesWith(groupSlots.back());
    a->eraseFromParent();
  }

  // One function per region: the kernel's body entered at the region's first block, each
  // barrier turned into "return the next region", the end of the kernel into "return -1".
  // Its parameters: the kernel's, then the group values as the region starts.
  std::vector<llvm::Type *> params(kernel.getFunctionType()->params());
  for (const GroupValue &v : regions.groupValues) params.push_back(v.type);
  auto *type = llvm::FunctionType::get(llvm::Type::getInt32Ty(c), params, false);
  for (size_t r = 0; r <= barriers.size(); ++r) {
    auto *f = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                     kernel.getName() + ".region" + std::to_string(r), m);
    llvm::ValueToValueMapTy map;
    for (auto [from, to] : llvm::zip(kernel.args(), f->args())) map[&from] = &to;
    llvm::SmallVector<llvm::ReturnInst *, 4> returns;
    llvm::CloneFunctionInto(f, &kernel, map, llvm::CloneFunctionChangeType::LocalChangesOnly,
                            returns);
    for (llvm::ReturnInst *ret : returns) {
      llvm::ReturnInst::Create(c, llvm::ConstantInt::getSigned(llvm::Type::getInt32Ty(c), -1), ret);
      ret->eraseFromParent();
    }
    for (size_t i = 0; i < barriers.size(); ++i) {
      auto *block = llvm::cast<llvm::BasicBlock>(map[barriers[i]]);
      block->getTerminator()->eraseFromParent();
      llvm::ReturnInst::Create(c, llvm::ConstantInt::get(llvm::Type::getInt32Ty(c), i + 1), block);
    }
    if (r > 0) {
      // A new entry that keeps the private variables and private slots, then jumps in.
      llvm::BasicBlock *oldEntry = &f->getEntryBlock();
      auto *entry = llvm::BasicBlock::Create(c, "region.entry", f, oldEntry);
      std::vector<llvm::Instruction *> keep;
      std::set<llvm::Value *> kept;
      for (llvm::Instruction &i : *oldEntry) {
        auto *call = llvm::dyn_cast<llvm::CallInst>(&i);
        bool cast = llvm::isa<llvm::CastInst>(i) && kept.count(i.getOperand(0));
        bool placed =
            call && (call->getCalledFunction() == slot || call->getCalledFunction() == groupSlot);
        if (llvm::isa<llvm::AllocaInst>(i) || placed || cast) {
          keep.push_back(&i);
          kept.insert(&i);
        }
      }
      for (llvm::Instruction *i : keep) i->moveBefore(*entry, entry->end());
      llvm::BranchInst::Create(
          llvm::cast<llvm::BasicBlock>(map[barriers[r - 1]->getSingleSuccessor()]), entry);
    }
    readGroupValuesOnce(*f, kernel.arg_size(), groupSlots, map);
    llvm::removeUnreachableBlocks(*f);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    regions.functions.push_back(f);
  }
  return regions;
}

uint64_t lowerStaticLocals(llvm::Module &m) {
  llvm::LLVMContext &c = m.getContext();
  const llvm::DataLayout &layout = m.getDataLayout();
  llvm::Function *base = nullptr;
  uint64_t total = 0;
  std::vector<llvm::GlobalVariable *> locals;
  for (llvm::GlobalVariable &g : m.globals())
    if (g.getAddressSpace() == 3) locals.push_back(&g);
  for (llvm::GlobalVariable *g : locals) {
    if (!base) base = placeholder(m, kLocalBase, {});
    uint64_t align = std::max<uint64_t>(g->getAlign() ? g->getAlign()->value() : 16, 16);
    uint64_t offset = (total + align - 1) / align * align;
    total = offset + layout.getTypeAllocSize(g->getValueType());
    // Constant expressions over the variable become instructions, which can use a call.
    for (llvm::User *u : llvm::make_early_inc_range(g->users()))
      if (auto *ce = llvm::dyn_cast<llvm::ConstantExpr>(u))
        for (llvm::User *cu : llvm::make_early_inc_range(ce->users()))
          if (auto *i = llvm::dyn_cast<llvm::Instruction>(cu))
            llvm::convertConstantExprsToInstructions(i, ce);
    for (llvm::Use &u : llvm::make_early_inc_range(g->uses())) {
      auto *i = llvm::dyn_cast<llvm::Instruction>(u.getUser());
      if (!i) continue;
      llvm::Instruction *at = i;
      if (auto *phi = llvm::dyn_cast<llvm::PHINode>(i))
        at = phi->getIncomingBlock(u)->getTerminator();
      llvm::IRBuilder<> b(at);
      llvm::Value *p = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), b.CreateCall(base), offset);
      p = b.CreatePointerBitCastOrAddrSpaceCast(p, g->getType());
      u.set(p);
    }
    if (g->use_empty()) g->eraseFromParent();
  }
  (void)c;
  return total;
}

}  // namespace xpurt::cpu
