#include "work_item_vectorizer.hpp"

#include "core/config.hpp"
#include "work_item_loops.hpp"
#include "work_item_vectorizer_impl.hpp"

#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/LoopPassManager.h>
#include <llvm/Transforms/Scalar/LoopRotation.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/LCSSA.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Transforms/Utils/LowerSwitch.h>
#include <llvm/Transforms/Utils/UnifyFunctionExitNodes.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace xpurt::cpu {
namespace wfv {

// SSA form, one return, branches for switches, loops with a preheader, one latch and exits
// of their own, values leaving a loop through phis in its exits.
static void prepare(llvm::Function &f) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::SROAPass());
  fpm.addPass(llvm::EarlyCSEPass());
  // Folds the translator's <3 x i64> of work-item ids back to the one id used.
  fpm.addPass(llvm::InstCombinePass());
  fpm.addPass(llvm::LowerSwitchPass());
  fpm.addPass(llvm::UnifyFunctionExitNodesPass());
  fpm.addPass(llvm::LoopSimplifyPass());
  fpm.addPass(llvm::LCSSAPass());
  // Loops tested at the bottom: a loop all work-items run alike is then one stretch of code
  // that every lane in it runs, with no masks (emitLoop).
  fpm.addPass(llvm::createFunctionToLoopPassAdaptor(llvm::LoopRotatePass()));
  fpm.addPass(llvm::LoopSimplifyPass());
  fpm.addPass(llvm::LCSSAPass());
  fpm.run(f, fam);
  llvm::removeUnreachableBlocks(f);
}

llvm::Function *Vectorizer::run(const std::string &name) {
  check();
  auto *type = f_.getFunctionType();
  g_ = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, name, f_.getParent());
  try {
    emitFunction();
  } catch (...) {
    g_->eraseFromParent();
    throw;
  }
  return g_;
}

void Vectorizer::emitFunction() {
  g_->copyAttributesFrom(&f_);
  for (auto [from, to] : llvm::zip(f_.args(), g_->args())) scalars_[&from] = &to;
  auto *entry = BasicBlock::Create(g_->getContext(), "wfv.entry", g_);
  b_.SetInsertPoint(entry);
  dummy_ = b_.CreateAlloca(b_.getInt8Ty(), b_.getInt64(256), "wfv.dummy");
  dummy_->setAlignment(llvm::Align(64));
  emitNodes(order(nullptr));
  if (f_.getReturnType()->isVoidTy())
    b_.CreateRetVoid();
  else
    b_.CreateRet(returned_);
}

void Vectorizer::check() {
  for (Instruction &i : llvm::instructions(f_)) {
    if (llvm::isa<llvm::AllocaInst>(i))
      throw Unsupported{
          "a private variable that stays in memory (an array, or one whose address "
          "is taken)"};
    if (llvm::isa<llvm::InvokeInst>(i) || llvm::isa<llvm::IndirectBrInst>(i) ||
        llvm::isa<llvm::CallBrInst>(i) || llvm::isa<llvm::SwitchInst>(i) ||
        llvm::isa<llvm::UnreachableInst>(i))
      throw Unsupported{"control flow it does not handle"};
    if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i)) {
      const llvm::Function *callee = call->getCalledFunction();
      if (!callee) throw Unsupported{"an indirect call"};
      llvm::StringRef name = callee->getName();
      if (name.consume_front(kWorkItemPrefix) && (name == kGroupScratch || name == kGroupRound))
        throw Unsupported{"work-group or sub-group functions"};
    }
    Shape s = shapes_.of(&i);
    if (s.kind != Shape::Uniform && !i.getType()->isVoidTy()) {
      llvm::Type *t = i.getType();
      if (!variesPerLane(t)) {
        std::string text;
        llvm::raw_string_ostream out(text);
        i.print(out);
        throw Unsupported{"an aggregate or a vector of addresses that differs between work-items:" +
                          text};
      }
    }
  }
  if (!f_.getReturnType()->isVoidTy())
    for (BasicBlock &b : f_)
      if (auto *ret = llvm::dyn_cast<llvm::ReturnInst>(b.getTerminator()))
        if (!shapes_.uniform(ret->getReturnValue()))
          throw Unsupported{"work-items that may return different values"};
  // Loops that all work-items leave together after a known number of turns are LLVM's: it
  // unrolls them and vectorises the loop over work-items. A loop whose count is known only at
  // run time stays a loop, and LLVM vectorises innermost loops only: then this vectoriser's.
  bool divergentLoop = false, unknownCount = false;
  llvm::TargetLibraryInfo libraryInfo(libraryInfo_);
  llvm::AssumptionCache assumptions(f_);
  llvm::ScalarEvolution evolution(f_, libraryInfo, assumptions, dt_, loops_);
  for (llvm::Loop *loop : loops_.getLoopsInPreorder()) {
    divergentLoop = divergentLoop || shapes_.divergent(loop->getHeader());
    unknownCount = unknownCount || evolution.getSmallConstantTripCount(loop) == 0;
  }
  if (!divergentLoop && !anyBody_) {
    if (!unknownCount)
      throw Unsupported{
          "its loops run alike for all work-items a known number of times, which LLVM unrolls "
          "and vectorises as they are"};
    // A work-item walking its own row (in[i * n + k]) is better vectorised along the loop.
    for (Instruction &i : llvm::instructions(f_)) {
      Value *address = nullptr;
      if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&i)) address = load->getPointerOperand();
      if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&i)) address = store->getPointerOperand();
      if (address && loops_.getLoopFor(i.getParent()) && shapes_.of(address).kind == Shape::Varying)
        throw Unsupported{
            "its loops run alike for all work-items and reach memory at addresses that differ "
            "between work-items by no fixed step, which LLVM vectorises along the loop"};
    }
  }
  for (llvm::Loop *loop : loops_.getLoopsInPreorder()) {
    if (!loop->getLoopPreheader() || !loop->getLoopLatch() || !loop->hasDedicatedExits())
      throw Unsupported{"a loop not in simplified form"};
    llvm::SmallVector<BasicBlock *, 4> exits;
    loop->getExitBlocks(exits);
    for (BasicBlock *e : exits)
      if (loops_.getLoopFor(e) != loop->getParentLoop())
        throw Unsupported{"a loop exit that leaves more than one loop"};
  }
}

// The blocks and loops directly in `loop` (or the function), each after everything that can
// reach it without a back edge; a loop's header first.
std::vector<Node> Vectorizer::order(llvm::Loop *loop) {
  std::vector<BasicBlock *> blocks;
  if (loop) {
    blocks.assign(loop->block_begin(), loop->block_end());
  } else {
    for (BasicBlock &b : f_) blocks.push_back(&b);
  }
  // Each block stands for itself, or for the loop directly inside `loop` that holds it.
  auto nodeOf = [&](BasicBlock *b) -> std::pair<BasicBlock *, llvm::Loop *> {
    llvm::Loop *l = loops_.getLoopFor(b);
    if (l == loop) return {b, nullptr};
    while (l && l->getParentLoop() != loop) l = l->getParentLoop();
    if (!l) return {nullptr, nullptr};  // outside `loop`
    return {l->getHeader(), l};
  };
  // Nodes in the function's block order, never by address: the same module must compile to
  // the same code (the disk cache checks it).
  std::map<BasicBlock *, std::set<BasicBlock *>> preds;  // node (its block or header) -> preds
  std::vector<BasicBlock *> nodes;
  std::map<BasicBlock *, llvm::Loop *> loopOf;
  for (BasicBlock *b : blocks) {
    auto [n, l] = nodeOf(b);
    if (!n) continue;
    if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
    if (l) loopOf[n] = l;
    for (BasicBlock *s : llvm::successors(b)) {
      auto [sn, sl] = nodeOf(s);
      if (!sn || sn == n) continue;                  // leaves `loop`, or stays in the node
      if (loop && s == loop->getHeader()) continue;  // the back edge
      preds[sn].insert(n);
    }
  }
  std::vector<Node> result;
  std::set<BasicBlock *> placed;
  BasicBlock *first = loop ? loop->getHeader() : &f_.getEntryBlock();
  std::vector<BasicBlock *> ready{first};
  while (!ready.empty()) {
    BasicBlock *n = ready.back();
    ready.pop_back();
    if (!placed.insert(n).second) continue;
    result.push_back(loopOf.count(n) ? Node{nullptr, loopOf[n]} : Node{n, nullptr});
    for (BasicBlock *m : nodes) {
      if (placed.count(m) || !preds[m].count(n)) continue;
      bool all = true;
      for (BasicBlock *p : preds[m]) all = all && placed.count(p);
      if (all) ready.push_back(m);
    }
  }
  if (placed.size() != nodes.size()) throw Unsupported{"irreducible control flow"};
  return result;
}

void Vectorizer::emitNodes(const std::vector<Node> &nodes) {
  for (const Node &n : nodes) {
    if (n.loop)
      emitLoop(n.loop);
    else
      emitBlock(n.block);
  }
}

// The lanes that reach `b`: those taking its incoming edges (a loop's exits: those that left
// through them, over every iteration).
Value *Vectorizer::maskOf(BasicBlock *b) {
  if (b == &f_.getEntryBlock()) return allTrue();
  Value *mask = nullptr;
  for (BasicBlock *p : llvm::predecessors(b)) {
    llvm::Loop *l = loops_.getLoopFor(b);
    if (l && l->getHeader() == b && l->contains(p)) continue;  // back edges: the loop's phi
    mask = orMask(mask, edge(p, b));
  }
  return mask ? mask : allFalse();
}

void Vectorizer::emitBlock(BasicBlock *bb) {
  auto *g = BasicBlock::Create(g_->getContext(), bb->getName() + ".wfv", g_);
  b_.CreateBr(g);
  b_.SetInsertPoint(g);
  llvm::Loop *loop = loops_.getLoopFor(bb);
  bool header = loop && loop->getHeader() == bb;
  // A header's mask is its loop's. A block outside loops that every path from the entry
  // passes runs on every lane: then memory is accessed without masks.
  if (!header)
    masks_[bb] =
        !loop && postDominators_.dominates(bb, &f_.getEntryBlock()) ? allTrue() : maskOf(bb);
  Value *mask = mask_ = masks_[bb];
  for (Instruction &i : *bb) {
    if (auto *phi = llvm::dyn_cast<llvm::PHINode>(&i)) {
      if (!header && !scalars_.count(phi) && !vectors_.count(phi)) emitPhi(*phi);
      continue;
    }
    if (auto *br = llvm::dyn_cast<llvm::BranchInst>(&i)) {
      if (br->isUnconditional() || br->getSuccessor(0) == br->getSuccessor(1)) {
        edges_[{bb, br->getSuccessor(0)}] = mask;
      } else {
        Value *c = vector(br->getCondition());
        edges_[{bb, br->getSuccessor(0)}] = andMask(mask, c);
        edges_[{bb, br->getSuccessor(1)}] = andMask(mask, b_.CreateNot(c));
      }
      continue;
    }
    if (auto *ret = llvm::dyn_cast<llvm::ReturnInst>(&i)) {
      if (Value *v = ret->getReturnValue()) returned_ = scalar(v);
      continue;
    }
    emitInstruction(i);
  }
  leaveThrough(bb);
}

// A phi outside loop headers: each work-item takes the value of the edge it came by.
void Vectorizer::emitPhi(llvm::PHINode &phi) {
  if (shapes_.uniform(&phi)) {
    // All work-items that run here came by the same edge.
    Value *v = nullptr;
    for (unsigned k = phi.getNumIncomingValues(); k-- > 0;) {
      Value *in = scalar(phi.getIncomingValue(k));
      v = v ? b_.CreateSelect(any(edge(phi.getIncomingBlock(k), phi.getParent())), in, v) : in;
    }
    scalars_[&phi] = v;
    return;
  }
  Value *v = nullptr;
  for (unsigned k = phi.getNumIncomingValues(); k-- > 0;) {
    Value *in = vector(phi.getIncomingValue(k));
    v = v ? selectLanes(edge(phi.getIncomingBlock(k), phi.getParent()), in, v, phi.getType()) : in;
  }
  vectors_[&phi] = v;
}

// A loop runs while any lane is in it: the header's phis and the active lanes come from the
// preheader first and from the latch after; each exit edge collects the lanes that left
// through it and the values they left with.
void Vectorizer::emitLoop(llvm::Loop *loop) {
  llvm::LLVMContext &c = g_->getContext();
  BasicBlock *header = loop->getHeader(), *pre = loop->getLoopPreheader();
  BasicBlock *latch = loop->getLoopLatch();
  auto *guard = BasicBlock::Create(c, "wfv.guard", g_);
  auto *headerG = BasicBlock::Create(c, "wfv.loop", g_);
  auto *after = BasicBlock::Create(c, "wfv.loop.done", g_);
  b_.CreateBr(guard);
  b_.SetInsertPoint(guard);
  Value *entering = edge(pre, header);
  std::vector<std::pair<llvm::PHINode *, Value *>> headerPhis;  // F's phi, its entry value
  for (llvm::PHINode &phi : header->phis()) {
    Value *in = phi.getIncomingValueForBlock(pre);
    headerPhis.emplace_back(&phi, shapes_.uniform(&phi) ? scalar(in) : vector(in));
  }
  b_.CreateCondBr(any(entering), headerG, after);

  b_.SetInsertPoint(headerG);
  llvm::Type *maskType = vectorOf(b_.getInt1Ty());
  auto *active = b_.CreatePHI(maskType, 2, "wfv.active");
  active->addIncoming(entering, guard);
  // A loop that all lanes leave together runs on the lanes that reached its preheader (they
  // all entered, as it runs at all) in every iteration.
  bool together = !shapes_.divergent(header);
  masks_[header] = together ? masks_[pre] : active;
  // Such a loop left only at its latch, on a condition the same for all lanes, goes round on
  // that condition, which keeps its trip count in sight (LLVM unrolls sgemm's k loop).
  auto *latchBranch = llvm::dyn_cast<llvm::BranchInst>(latch->getTerminator());
  bool leftAtLatchAlike = together && loop->getExitingBlock() == latch && latchBranch &&
                          latchBranch->isConditional() &&
                          shapes_.uniform(latchBranch->getCondition());
  std::vector<llvm::PHINode *> phisG;
  for (auto [phi, in] : headerPhis) {
    auto *g = b_.CreatePHI(in->getType(), 2, phi->getName());
    g->addIncoming(in, guard);
    (shapes_.uniform(phi) ? scalars_ : vectors_)[phi] = g;
    phisG.push_back(g);
  }
  llvm::SmallVector<std::pair<BasicBlock *, BasicBlock *>, 4> exitEdges;
  loop->getExitEdges(exitEdges);
  std::vector<std::unique_ptr<Exit>> exits;
  for (auto [from, to] : exitEdges) {
    auto exit = std::make_unique<Exit>();
    exit->from = const_cast<BasicBlock *>(from);
    exit->to = const_cast<BasicBlock *>(to);
    exit->allAtOnce = leftAtLatchAlike;
    exit->left = b_.CreatePHI(maskType, 2, "wfv.left");
    exit->left->addIncoming(allFalse(), guard);
    for (llvm::PHINode &phi : exit->to->phis()) {
      llvm::Type *t = phi.getType();
      auto *kept = b_.CreatePHI(shapes_.uniform(&phi) ? t : vectorOf(t), 2, phi.getName());
      kept->addIncoming(llvm::Constant::getNullValue(kept->getType()), guard);
      exit->kept.emplace_back(&phi, kept);
    }
    exitsFrom_[exit->from].push_back(exit.get());
    exits.push_back(std::move(exit));
  }
  emitNodes(order(loop));

  // The end of an iteration: on while any lane goes round again.
  Value *again = edge(latch, header);
  BasicBlock *end = b_.GetInsertBlock();
  std::vector<Value *> nextValues;
  for (auto [phi, in] : headerPhis) {
    Value *next = phi->getIncomingValueForBlock(latch);
    nextValues.push_back(shapes_.uniform(phi) ? scalar(next) : vector(next));
  }
  Value *repeat = nullptr;
  if (leftAtLatchAlike) {
    Value *cond = scalar(latchBranch->getCondition());
    repeat = latchBranch->getSuccessor(0) == header ? cond : b_.CreateNot(cond);
  }
  b_.CreateCondBr(repeat ? repeat : any(again), headerG, after);
  active->addIncoming(again, end);
  for (size_t k = 0; k < phisG.size(); ++k) phisG[k]->addIncoming(nextValues[k], end);
  b_.SetInsertPoint(after);
  // Per exit phi, in the order of the exits: (lanes that left by the edge, their values).
  std::vector<std::pair<llvm::PHINode *, std::vector<std::pair<Value *, Value *>>>> exitValues;
  for (auto &exit : exits) {
    exit->left->addIncoming(exit->leftNext, end);
    auto *left = b_.CreatePHI(maskType, 2, "wfv.left.all");
    left->addIncoming(allFalse(), guard);
    left->addIncoming(exit->leftNext, end);
    edges_[{exit->from, exit->to}] = left;
    for (size_t k = 0; k < exit->kept.size(); ++k) {
      auto [phi, kept] = exit->kept[k];
      kept->addIncoming(exit->keptNext[k], end);
      auto *value = b_.CreatePHI(kept->getType(), 2, phi->getName());
      value->addIncoming(llvm::Constant::getNullValue(kept->getType()), guard);
      value->addIncoming(exit->keptNext[k], end);
      auto known = std::find_if(exitValues.begin(), exitValues.end(),
                                [phi = phi](const auto &e) { return e.first == phi; });
      if (known == exitValues.end()) known = exitValues.insert(exitValues.end(), {phi, {}});
      known->second.emplace_back(left, value);
    }
    exitsFrom_[exit->from].clear();
  }
  // An exit block's phi: the value each lane left with, by the edge it left through.
  for (auto &[phi, values] : exitValues) {
    Value *v = values.front().second;
    bool u = shapes_.uniform(phi);
    for (size_t k = 1; k < values.size(); ++k)
      v = b_.CreateSelect(u ? any(values[k].first) : maskFor(values[k].first, phi->getType()),
                          values[k].second, v);
    (u ? scalars_ : vectors_)[phi] = v;
  }
}

// After a block of a loop that has exit edges: the lanes leaving now, and their values.
void Vectorizer::leaveThrough(BasicBlock *bb) {
  auto found = exitsFrom_.find(bb);
  if (found == exitsFrom_.end()) return;
  for (Exit *exit : found->second) {
    Value *now = edge(exit->from, exit->to);
    exit->leftNext = orMask(exit->left, now);
    exit->keptNext.clear();
    for (auto [phi, kept] : exit->kept) {
      Value *in = phi->getIncomingValueForBlock(exit->from);
      bool u = shapes_.uniform(phi);
      if (exit->allAtOnce)
        exit->keptNext.push_back(u ? scalar(in) : vector(in));
      else
        exit->keptNext.push_back(u ? b_.CreateSelect(any(now), scalar(in), kept)
                                   : selectLanes(now, vector(in), kept, phi->getType()));
    }
  }
}

}  // namespace wfv

bool workItemVectorizerEnabled() {
  // Read each time: the JIT worker reads its own environment, the cache key the application's.
  return core::envChoice("XPURT_CPU_VECTORIZE", {"0", "off", "false", "1", "on", "true"}, 4) >= 3;
}

unsigned vectorWidthFor(const std::string &features) {
  if (features.find("+avx512f") != std::string::npos) return 16;
  if (features.find("+avx") != std::string::npos) return 8;
  return 4;
}

llvm::Function *vectorizeWorkItems(llvm::Function &body, unsigned width, bool anyBody,
                                   std::string &why) {
  llvm::ValueToValueMapTy map;
  llvm::Function *prepared = llvm::CloneFunction(&body, map);
  prepared->setName(body.getName() + ".wfv.prepared");
  llvm::Function *result = nullptr;
  try {
    wfv::prepare(*prepared);
    wfv::Vectorizer v(*prepared, width, anyBody);
    result = v.run((body.getName() + ".x" + std::to_string(width)).str());
  } catch (const wfv::Unsupported &u) {
    why = u.why;
  }
  prepared->eraseFromParent();
  return result;
}

}  // namespace xpurt::cpu
