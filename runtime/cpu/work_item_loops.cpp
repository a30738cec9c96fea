#include "work_item_loops.hpp"

#include "barrier_regions.hpp"
#include "bounds_checks.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "loop_metadata.hpp"
#include "work_group.hpp"
#include "work_item_vectorizer.hpp"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace xpurt::cpu {
namespace {

using llvm::IRBuilder;
using llvm::Value;

// OpenCL's work-item functions, by their mangled names in modules read from SPIR-V.
enum class WorkItem {
  WorkDim,
  GlobalSize,
  GlobalId,
  LocalSize,
  EnqueuedLocalSize,
  LocalId,
  NumGroups,
  GroupId,
  GlobalOffset,
  GlobalLinearId,
  LocalLinearId
};

const std::map<std::string, WorkItem> &workItemFunctions() {
  static const std::map<std::string, WorkItem> names = {
      {"_Z12get_work_dimv", WorkItem::WorkDim},
      {"_Z15get_global_sizej", WorkItem::GlobalSize},
      {"_Z13get_global_idj", WorkItem::GlobalId},
      {"_Z14get_local_sizej", WorkItem::LocalSize},
      {"_Z23get_enqueued_local_sizej", WorkItem::EnqueuedLocalSize},
      {"_Z12get_local_idj", WorkItem::LocalId},
      {"_Z14get_num_groupsj", WorkItem::NumGroups},
      {"_Z12get_group_idj", WorkItem::GroupId},
      {"_Z17get_global_offsetj", WorkItem::GlobalOffset},
      {"_Z20get_global_linear_idv", WorkItem::GlobalLinearId},
      {"_Z19get_local_linear_idv", WorkItem::LocalLinearId},
  };
  return names;
}

// values[dim] for dim 0..2, `outside` for any other dimension (OpenCL: 0 for ids, 1 for sizes).
Value *byDimension(IRBuilder<> &b, Value *dim, Value *const values[3], uint64_t outside) {
  llvm::Type *i64 = b.getInt64Ty();
  if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(dim)) {
    uint64_t d = c->getZExtValue();
    return d < 3 ? values[d] : llvm::ConstantInt::get(i64, outside);
  }
  Value *result = llvm::ConstantInt::get(i64, outside);
  for (int d = 2; d >= 0; --d)
    result = b.CreateSelect(b.CreateICmpEQ(dim, b.getInt32(static_cast<uint32_t>(d))), values[d],
                            result);
  return result;
}

struct LoopIds {
  Value *local[3];
};

// Replaces the work-item function calls in `blocks` (a kernel or region inlined into a loop
// nest whose induction variables are `ids`).
void replaceWorkItemCalls(const std::vector<llvm::BasicBlock *> &blocks, const ContextValues &ctx,
                          const LoopIds &ids) {
  std::vector<llvm::CallInst *> calls;
  for (llvm::BasicBlock *bb : blocks)
    for (llvm::Instruction &i : *bb)
      if (auto *call = llvm::dyn_cast<llvm::CallInst>(&i))
        if (auto *callee = call->getCalledFunction();
            callee && callee->getName().startswith(kWorkItemPrefix))
          calls.push_back(call);
  for (llvm::CallInst *call : calls) {
    IRBuilder<> b(call);
    llvm::StringRef callee = call->getCalledFunction()->getName();
    if (callee == kLocalBase || callee == kPrivateSlot || callee == kUniformSlot) {
      Value *p = ctx.localMemory;
      const auto &e = ctx.enqueuedLocalSize;
      Value *items = callee == kLocalBase ? nullptr : b.CreateMul(b.CreateMul(e[0], e[1]), e[2]);
      if (callee == kUniformSlot) {
        Value *offset =
            b.CreateAdd(b.CreateMul(call->getArgOperand(0), items), call->getArgOperand(1));
        p = b.CreateInBoundsGEP(b.getInt8Ty(), ctx.privateMemory, offset);
      } else if (callee == kPrivateSlot) {
        // Structure of arrays: a work-item's copies are consecutive, so vectors load them.
        Value *item = b.CreateAdd(
            b.CreateMul(b.CreateAdd(b.CreateMul(ids.local[2], e[1]), ids.local[1]), e[0]),
            ids.local[0]);
        Value *offset = b.CreateAdd(b.CreateMul(call->getArgOperand(0), items),
                                    b.CreateMul(item, call->getArgOperand(1)));
        p = b.CreateInBoundsGEP(b.getInt8Ty(), ctx.privateMemory, offset);
      }
      call->replaceAllUsesWith(p);
      call->eraseFromParent();
      continue;
    }
    std::string mangled = callee.substr(9).str();
    if (mangled == kIsLocal) {
      Value *p = b.CreatePtrToInt(call->getArgOperand(0), b.getInt64Ty());
      Value *base = b.CreatePtrToInt(ctx.localMemory, b.getInt64Ty());
      Value *inside = b.CreateICmpULT(b.CreateSub(p, base), ctx.localBytes);
      call->replaceAllUsesWith(b.CreateZExt(inside, call->getType()));
      call->eraseFromParent();
      continue;
    }
    if (mangled == kIsPrivate) {
      // In the group's private memory, or in the stack below the caller of the work-group
      // function: where this work-item's variables and those of the functions it calls are.
      // A function that calls none keeps its variables in the 128 bytes below the stack
      // pointer (x86-64's red zone): the stack begins there.
      Value *p = b.CreatePtrToInt(call->getArgOperand(0), b.getInt64Ty());
      Value *base = b.CreatePtrToInt(ctx.privateMemory, b.getInt64Ty());
      Value *sp = b.CreateSub(b.CreatePtrToInt(b.CreateCall(llvm::Intrinsic::getDeclaration(
                                                   call->getModule(), llvm::Intrinsic::stacksave)),
                                               b.getInt64Ty()),
                              b.getInt64(128));
      Value *inside =
          b.CreateOr(b.CreateICmpULT(b.CreateSub(p, base), ctx.privateBytes),
                     b.CreateICmpULT(b.CreateSub(p, sp), b.CreateSub(ctx.stackTop, sp)));
      call->replaceAllUsesWith(b.CreateZExt(inside, call->getType()));
      call->eraseFromParent();
      continue;
    }
    if (mangled == kGroupRound) {
      call->replaceAllUsesWith(b.CreateLoad(b.getInt32Ty(), ctx.round));
      call->eraseFromParent();
      continue;
    }
    if (mangled == kGroupScratch || mangled == kSubGroupSize) {
      Value *v = mangled == kSubGroupSize
                     ? static_cast<Value *>(b.getInt32(ctx.subGroupSize))
                     : b.CreateAddrSpaceCast(ctx.groupScratch, call->getType());
      call->replaceAllUsesWith(v);
      call->eraseFromParent();
      continue;
    }
    auto known = workItemFunctions().find(mangled);
    if (known == workItemFunctions().end())
      core::fail(XPURT_ERROR_UNSUPPORTED, "'{}' cannot be used here by the CPU JIT", mangled);
    WorkItem kind = known->second;
    Value *dim = call->arg_size() > 0 ? call->getArgOperand(0) : nullptr;
    Value *globalId[3];
    for (int d = 0; d < 3; ++d)
      globalId[d] = b.CreateAdd(
          b.CreateAdd(b.CreateMul(ctx.groupId[d], ctx.enqueuedLocalSize[d]), ids.local[d]),
          ctx.globalOffset[d]);
    Value *result = nullptr;
    switch (kind) {
      case WorkItem::WorkDim:
        result = ctx.workDim;
        break;
      case WorkItem::GlobalSize:
        result = byDimension(b, dim, ctx.globalSize, 1);
        break;
      case WorkItem::GlobalId:
        result = byDimension(b, dim, globalId, 0);
        break;
      case WorkItem::LocalSize:
        result = byDimension(b, dim, ctx.localSize, 1);
        break;
      case WorkItem::EnqueuedLocalSize:
        result = byDimension(b, dim, ctx.enqueuedLocalSize, 1);
        break;
      case WorkItem::LocalId:
        result = byDimension(b, dim, ids.local, 0);
        break;
      case WorkItem::NumGroups:
        result = byDimension(b, dim, ctx.numGroups, 1);
        break;
      case WorkItem::GroupId:
        result = byDimension(b, dim, ctx.groupId, 0);
        break;
      case WorkItem::GlobalOffset:
        result = byDimension(b, dim, ctx.globalOffset, 0);
        break;
      case WorkItem::GlobalLinearId: {
        Value *g[3];
        for (int d = 0; d < 3; ++d) g[d] = b.CreateSub(globalId[d], ctx.globalOffset[d]);
        result = b.CreateAdd(
            b.CreateMul(b.CreateAdd(b.CreateMul(g[2], ctx.globalSize[1]), g[1]), ctx.globalSize[0]),
            g[0]);
        break;
      }
      case WorkItem::LocalLinearId:
        result = b.CreateAdd(
            b.CreateMul(b.CreateAdd(b.CreateMul(ids.local[2], ctx.localSize[1]), ids.local[1]),
                        ctx.localSize[0]),
            ids.local[0]);
        break;
    }
    if (result->getType() != call->getType()) result = b.CreateZExtOrTrunc(result, call->getType());
    call->replaceAllUsesWith(result);
    call->eraseFromParent();
  }
}

// Blocks of the innermost loop's body: from `body` up to, not including, `latch`.
std::vector<llvm::BasicBlock *> loopBody(llvm::BasicBlock *body, llvm::BasicBlock *latch) {
  std::vector<llvm::BasicBlock *> blocks{body};
  std::set<llvm::BasicBlock *> seen{body, latch};
  for (size_t i = 0; i < blocks.size(); ++i)
    for (llvm::BasicBlock *next : llvm::successors(blocks[i]))
      if (seen.insert(next).second) blocks.push_back(next);
  return blocks;
}

}  // namespace

bool answeredByLoops(const std::string &name) {
  return workItemFunctions().count(name) || name == kGroupScratch || name == kSubGroupSize ||
         name == kIsLocal || name == kIsPrivate || name == kGroupRound;
}

bool isGlobalWorkItemFunction(const std::string &name) {
  auto known = workItemFunctions().find(name);
  if (known == workItemFunctions().end()) return false;
  switch (known->second) {
    case WorkItem::GlobalId:
    case WorkItem::GlobalSize:
    case WorkItem::GlobalOffset:
    case WorkItem::WorkDim:
    case WorkItem::GlobalLinearId:
      return true;
    default:
      return false;
  }
}

ContextValues loadContext(IRBuilder<> &b, Value *ctx) {
  llvm::Type *i64 = b.getInt64Ty();
  auto field = [&](unsigned index, const char *name) {
    return b.CreateLoad(i64, b.CreateConstInBoundsGEP1_64(i64, ctx, index), name);
  };
  ContextValues v{};
  for (unsigned d = 0; d < 3; ++d) {
    v.groupId[d] = field(0 + d, "group.id");
    v.localSize[d] = field(3 + d, "local.size");
    v.enqueuedLocalSize[d] = field(6 + d, "enqueued.local.size");
    v.globalSize[d] = field(9 + d, "global.size");
    v.globalOffset[d] = field(12 + d, "global.offset");
    v.numGroups[d] = field(15 + d, "num.groups");
  }
  static_assert(offsetof(WorkGroupContext, workDim) == 18 * 8);
  v.workDim = b.CreateLoad(b.getInt32Ty(), b.CreateConstInBoundsGEP1_64(i64, ctx, 18), "work.dim");
  static_assert(offsetof(WorkGroupContext, localBytes) == 19 * 8);
  v.localBytes = field(19, "local.bytes");
  static_assert(offsetof(WorkGroupContext, stackTop) == 21 * 8);
  v.privateBytes = field(20, "private.bytes");
  v.stackTop = field(21, "stack.top");
  // The group's local and private memory come as noalias arguments of the work-group
  // function (see work_group.hpp): set by the caller.
  v.localMemory = nullptr;
  v.privateMemory = nullptr;
  return v;
}

namespace {

// What decides which vectoriser takes a body. Loops of its own keep LLVM's loop vectoriser,
// which takes innermost loops only, off the loop over work-items; a body whose branches only
// leave or repeat loops (no if or else) is one this vectoriser runs without masking both
// sides of a branch.
struct BodyBranches {
  bool loops = false, onlyLoopBranches = true;
};

BodyBranches branchesOf(llvm::Function &body) {
  llvm::DominatorTree dt(body);
  llvm::LoopInfo loopInfo(dt);
  BodyBranches result;
  result.loops = !loopInfo.empty();
  for (llvm::BasicBlock &b : body) {
    auto *branch = llvm::dyn_cast<llvm::BranchInst>(b.getTerminator());
    llvm::Loop *loop = loopInfo.getLoopFor(&b);
    if (branch ? branch->isConditional() && (!loop || !loop->isLoopExiting(&b))
               : !llvm::isa<llvm::ReturnInst>(b.getTerminator()))
      result.onlyLoopBranches = false;
  }
  return result;
}

// What a call of a region's body records: its result, and the lowest and highest region
// chosen. stateSlot: where the work-item's own choice goes, or null.
void recordCall(IRBuilder<> &b, llvm::CallInst *call, Value *result, Value *stateSlot,
                const RegionChoices *choices) {
  if (result) b.CreateStore(call, result);
  if (stateSlot) b.CreateStore(call, stateSlot);
  if (choices && choices->lowest) {
    llvm::MDNode *serial = llvm::MDNode::get(b.getContext(), {});
    auto update = [&](Value *slot, llvm::Intrinsic::ID op) {
      auto *old = b.CreateLoad(call->getType(), slot);
      auto *store = b.CreateStore(b.CreateBinaryIntrinsic(op, old, call), slot);
      old->setMetadata(kSerialAccess, serial);
      store->setMetadata(kSerialAccess, serial);
    };
    update(choices->lowest, llvm::Intrinsic::smin);
    update(choices->highest, llvm::Intrinsic::smax);
  }
}

void inlineInto(llvm::CallInst *call, llvm::Function &callee) {
  llvm::InlineFunctionInfo info;
  if (!llvm::InlineFunction(*call, info).isSuccess())
    core::fail(XPURT_ERROR_UNKNOWN, "'{}' could not be inlined into its work-item loop",
               callee.getName().str());
}

// The loops around a body vectorised across x that has loops of its own: z, then x in steps
// of the width, then y innermost, so that what the body's loops read that varies with x alone
// (sgemm's bs[k][col], the same for every row of work-items) is loaded once per step of x and
// kept in registers while the rows run, rather than loaded again for each row. The work-items
// past the last whole step of x run after, one at a time (y, then x). Work-items of a group
// are independent between barriers, so any order is theirs.
llvm::BasicBlock *emitColumnsFirst(llvm::Function &wg, llvm::BasicBlock *from,
                                   const ContextValues &ctx, llvm::Function &body,
                                   llvm::Function &vectorBody, llvm::ArrayRef<Value *> args,
                                   Value *result, const RegionChoices *choices) {
  llvm::LLVMContext &c = wg.getContext();
  IRBuilder<> b(from);
  auto block = [&](const char *name) { return llvm::BasicBlock::Create(c, name, &wg); };
  auto counter = [&](const char *name, llvm::BasicBlock *entry, Value *start) {
    llvm::PHINode *phi = b.CreatePHI(b.getInt64Ty(), 2, name);
    phi->addIncoming(start, entry);
    return phi;
  };
  // Ends the loop of `phi` at `latch`: its next value, and back to the loop's first block
  // (the phi's) while below `end`, else on to `exit`.
  auto latchTo = [&](llvm::BasicBlock *latch, llvm::PHINode *phi, uint64_t step, Value *end,
                     llvm::BasicBlock *exit) {
    b.SetInsertPoint(latch);
    Value *next = b.CreateAdd(phi, b.getInt64(step), "", true, true);
    phi->addIncoming(next, latch);
    return b.CreateCondBr(b.CreateICmpULT(next, end), phi->getParent(), exit);
  };
  // From the current block into `at`, which calls `callee`, records, and goes on to `latch`.
  auto callIn = [&](llvm::BasicBlock *at, llvm::Function &callee, llvm::BasicBlock *latch) {
    b.CreateBr(at);
    b.SetInsertPoint(at);
    llvm::CallInst *call = b.CreateCall(&callee, args);
    recordCall(b, call, result, nullptr, choices);
    b.CreateBr(latch);
    return call;
  };
  uint64_t width = ctx.vectorWidth;
  llvm::BasicBlock *zHeader = block("wi.header"), *zLatch = block("wi.latch"),
                   *exit = block("wi.exit");
  b.CreateBr(zHeader);
  b.SetInsertPoint(zHeader);
  llvm::PHINode *z = counter("local.id.z", from, b.getInt64(0));
  // x in steps of the width while a whole step fits; y within each step.
  llvm::BasicBlock *xHeader = block("wi.vector.header"), *yHeader = block("wi.vector.y"),
                   *vectorBlock = block("wi.vector.body"), *yLatch = block("wi.vector.y.latch"),
                   *xLatch = block("wi.vector.latch"), *rest = block("wi.rest");
  b.CreateBr(xHeader);
  b.SetInsertPoint(xHeader);
  llvm::PHINode *x = counter("local.id.vector", zHeader, b.getInt64(0));
  b.CreateCondBr(b.CreateICmpULE(b.CreateAdd(x, b.getInt64(width)), ctx.localSize[0]), yHeader,
                 rest);
  b.SetInsertPoint(yHeader);
  llvm::PHINode *y = counter("local.id.y", xHeader, b.getInt64(0));
  llvm::CallInst *vectorCall = callIn(vectorBlock, vectorBody, yLatch);
  llvm::BranchInst *yBack = latchTo(yLatch, y, 1, ctx.localSize[1], xLatch);
  b.SetInsertPoint(xLatch);
  Value *xNext = b.CreateAdd(x, b.getInt64(width), "", true, true);
  x->addIncoming(xNext, xLatch);
  llvm::BranchInst *xBack = b.CreateBr(xHeader);
  // The rest of x, one work-item at a time.
  llvm::BasicBlock *restY = block("wi.rest.y"), *restX = block("wi.rest.x"),
                   *scalarBlock = block("wi.body"), *restXLatch = block("wi.rest.x.latch"),
                   *restYLatch = block("wi.rest.y.latch");
  b.SetInsertPoint(rest);
  b.CreateCondBr(b.CreateICmpULT(x, ctx.localSize[0]), restY, zLatch);
  b.SetInsertPoint(restY);
  llvm::PHINode *ry = counter("local.id.rest.y", rest, b.getInt64(0));
  b.CreateBr(restX);
  b.SetInsertPoint(restX);
  llvm::PHINode *rx = counter("local.id.rest.x", restY, x);
  llvm::CallInst *call = callIn(scalarBlock, body, restXLatch);
  llvm::BranchInst *rxBack = latchTo(restXLatch, rx, 1, ctx.localSize[0], restYLatch);
  markOuter(c, latchTo(restYLatch, ry, 1, ctx.localSize[1], zLatch));
  markOuter(c, latchTo(zLatch, z, 1, ctx.localSize[2], exit));

  inlineInto(call, body);
  std::vector<llvm::BasicBlock *> scalarBlocks = loopBody(scalarBlock, restXLatch);
  replaceWorkItemCalls(scalarBlocks, ctx, LoopIds{{rx, ry, z}});
  markParallel(c, scalarBlocks, rxBack, true, false);
  inlineInto(vectorCall, vectorBody);
  replaceWorkItemCalls(loopBody(vectorBlock, yLatch), ctx, LoopIds{{x, y, z}});
  // The rows: neither vectorised again nor unrolled by a run-time count (see markOuter).
  setLoopProperties(yBack, {noVectorize(c), loopFlag(c, "llvm.loop.unroll.runtime.disable")});
  markDone(c, xBack);
  vectorBody.eraseFromParent();
  b.SetInsertPoint(exit);
  return exit;
}

}  // namespace

llvm::BasicBlock *emitWorkItemLoops(llvm::Function &wg, llvm::BasicBlock *from,
                                    const ContextValues &ctx, llvm::Function &body,
                                    llvm::ArrayRef<Value *> args, Value *result,
                                    const RegionChoices *choices) {
  llvm::LLVMContext &c = wg.getContext();
  llvm::Type *i64 = llvm::Type::getInt64Ty(c);
  // Bodies with loops of their own run `width` work-items per call where it can (masked and
  // tracked region runs keep to the scalar loop). So do regions between barriers whose only
  // branches are loops': the vectoriser keeps a transpose's strided reads of __local memory
  // as gathers, needs no run-time alias checks, and runs sgemm's k loop once per vector of
  // work-items. Regions with an if or else stay with LLVM's loop vectoriser, which keeps a
  // branch that all work-items take alike as a branch, where this vectoriser would run both
  // sides under masks.
  llvm::Function *vectorBody = nullptr;
  bool tracked = choices && (choices->states || choices->onlyRegion);
  BodyBranches branches = branchesOf(body);
  bool loops = branches.loops, onlyLoopBranches = result && branches.onlyLoopBranches;
  if (ctx.vectorWidth > 1 && !tracked && (loops || onlyLoopBranches)) {
    std::string why;
    vectorBody = vectorizeWorkItems(body, ctx.vectorWidth, onlyLoopBranches, why);
    if (vectorBody)
      core::log().debug("work-items of '{}' run {} at a time", body.getName().str(),
                        ctx.vectorWidth);
    else
      core::log().debug("work-items of '{}' run one at a time: {}", body.getName().str(), why);
  }
  if (vectorBody && loops)
    return emitColumnsFirst(wg, from, ctx, body, *vectorBody, args, result, choices);
  IRBuilder<> b(from);
  LoopIds ids{};
  llvm::BasicBlock *exits[3], *latches[3];
  llvm::PHINode *phis[3];
  llvm::BasicBlock *current = from;
  llvm::PHINode *vectorX = nullptr;
  llvm::BasicBlock *vectorBlock = nullptr, *vectorHeader = nullptr;
  for (int d = 2; d >= 0; --d) {
    auto *header = llvm::BasicBlock::Create(c, "wi.header", &wg);
    auto *inner = llvm::BasicBlock::Create(c, "wi.body", &wg);
    latches[d] = llvm::BasicBlock::Create(c, "wi.latch", &wg);
    exits[d] = llvm::BasicBlock::Create(c, "wi.exit", &wg);
    b.SetInsertPoint(current);
    Value *start = b.getInt64(0);
    if (d == 0 && vectorBody) {
      // x in steps of the width while a whole step fits, then one at a time.
      vectorHeader = llvm::BasicBlock::Create(c, "wi.vector.header", &wg);
      vectorBlock = llvm::BasicBlock::Create(c, "wi.vector.body", &wg);
      auto *vectorDone = llvm::BasicBlock::Create(c, "wi.vector.done", &wg);
      b.CreateBr(vectorHeader);
      b.SetInsertPoint(vectorHeader);
      vectorX = b.CreatePHI(i64, 2, "local.id.vector");
      vectorX->addIncoming(b.getInt64(0), current);
      Value *end = b.CreateAdd(vectorX, b.getInt64(ctx.vectorWidth));
      b.CreateCondBr(b.CreateICmpULE(end, ctx.localSize[0]), vectorBlock, vectorDone);
      b.SetInsertPoint(vectorDone);
      start = vectorX;
      current = vectorDone;
      b.CreateCondBr(b.CreateICmpULT(start, ctx.localSize[0]), header, exits[0]);
    } else {
      b.CreateBr(header);
    }
    b.SetInsertPoint(header);
    phis[d] = b.CreatePHI(i64, 2, "local.id");
    phis[d]->addIncoming(start, current);
    b.CreateBr(inner);
    ids.local[d] = phis[d];
    current = inner;
  }
  b.SetInsertPoint(current);
  Value *stateSlot = nullptr;
  llvm::BasicBlock *join = nullptr;
  if (choices && choices->states) {
    const auto &e = ctx.enqueuedLocalSize;
    Value *item =
        b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(ids.local[2], e[1]), ids.local[1]), e[0]),
                    ids.local[0]);
    stateSlot = b.CreateInBoundsGEP(b.getInt32Ty(), choices->states, item);
  }
  if (choices && choices->onlyRegion) {  // the work-items waiting at this region only
    auto *run = llvm::BasicBlock::Create(c, "wi.run", &wg);
    join = llvm::BasicBlock::Create(c, "wi.join", &wg);
    Value *state = b.CreateLoad(b.getInt32Ty(), stateSlot);
    b.CreateCondBr(b.CreateICmpEQ(state, choices->onlyRegion), run, join);
    b.SetInsertPoint(run);
  }
  auto record = [&](llvm::CallInst *call) { recordCall(b, call, result, stateSlot, choices); };
  llvm::CallInst *call = b.CreateCall(&body, args);
  record(call);
  if (join) {
    b.CreateBr(join);
    b.SetInsertPoint(join);
  }
  llvm::BasicBlock *innerBody = current;
  llvm::BranchInst *innerLatchBranch = nullptr;
  for (int d = 0; d < 3; ++d) {
    b.CreateBr(latches[d]);
    b.SetInsertPoint(latches[d]);
    Value *next = b.CreateAdd(phis[d], b.getInt64(1), "", true, true);
    phis[d]->addIncoming(next, latches[d]);
    auto *br =
        b.CreateCondBr(b.CreateICmpULT(next, ctx.localSize[d]), phis[d]->getParent(), exits[d]);
    if (d == 0)
      innerLatchBranch = br;
    else
      markOuter(c, br);
    b.SetInsertPoint(exits[d]);
  }
  llvm::BasicBlock *after = exits[2];
  inlineInto(call, body);
  auto blocks = loopBody(innerBody, latches[0]);
  replaceWorkItemCalls(blocks, ctx, ids);
  if (vectorBody) {
    b.SetInsertPoint(vectorBlock);
    llvm::CallInst *vectorCall = b.CreateCall(vectorBody, args);
    record(vectorCall);
    Value *next = b.CreateAdd(vectorX, b.getInt64(ctx.vectorWidth), "", true, true);
    vectorX->addIncoming(next, b.GetInsertBlock());
    llvm::BranchInst *back = b.CreateBr(vectorHeader);
    inlineInto(vectorCall, *vectorBody);
    LoopIds vectorIds{{vectorX, ids.local[1], ids.local[2]}};
    replaceWorkItemCalls(loopBody(vectorBlock, vectorHeader), ctx, vectorIds);
    markDone(c, back);
    vectorBody->eraseFromParent();
    // The rest, fewer than the width: one at a time, not vectorised again.
    markParallel(c, blocks, innerLatchBranch, loops, false);
    return after;
  }
  std::optional<LoopCopy> unchecked;
  if (!join) unchecked = splitBoundsChecks(blocks, phis[0], latches[0], ctx.localSize[0]);
  if (unchecked) markParallel(c, unchecked->body, unchecked->latchBranch, loops);
  // A masked loop runs only while work-items wait at different regions: rare, so kept scalar.
  markParallel(c, blocks, innerLatchBranch, loops, !unchecked && !join);
  return after;
}

llvm::SwitchInst *emitEarliestState(llvm::Function &wg, llvm::BasicBlock *at,
                                    const ContextValues &ctx, Value *states, Value *items,
                                    llvm::BasicBlock *exit, unsigned cases) {
  llvm::LLVMContext &c = wg.getContext();
  auto *header = llvm::BasicBlock::Create(c, "scan.header", &wg);
  auto *body = llvm::BasicBlock::Create(c, "scan.body", &wg);
  auto *done = llvm::BasicBlock::Create(c, "scan.done", &wg);
  IRBuilder<> b(at);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  auto *i = b.CreatePHI(b.getInt64Ty(), 2, "scan.item");
  auto *best = b.CreatePHI(b.getInt32Ty(), 2, "scan.best");
  i->addIncoming(b.getInt64(0), at);
  best->addIncoming(b.getInt32(INT32_MAX), at);
  b.CreateCondBr(b.CreateICmpULT(i, items), body, done);
  b.SetInsertPoint(body);
  const auto &e = ctx.enqueuedLocalSize;
  Value *x = b.CreateURem(i, e[0]), *rest = b.CreateUDiv(i, e[0]);
  Value *y = b.CreateURem(rest, e[1]), *z = b.CreateUDiv(rest, e[1]);
  Value *valid = b.CreateAnd(
      b.CreateAnd(b.CreateICmpULT(x, ctx.localSize[0]), b.CreateICmpULT(y, ctx.localSize[1])),
      b.CreateICmpULT(z, ctx.localSize[2]));
  Value *state = b.CreateLoad(b.getInt32Ty(), b.CreateInBoundsGEP(b.getInt32Ty(), states, i));
  Value *waiting = b.CreateAnd(valid, b.CreateICmpSGE(state, b.getInt32(0)));
  Value *better =
      b.CreateSelect(waiting, b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, best, state), best);
  best->addIncoming(better, body);
  i->addIncoming(b.CreateAdd(i, b.getInt64(1)), body);
  b.CreateBr(header);
  b.SetInsertPoint(done);
  return b.CreateSwitch(best, exit, cases);
}

}  // namespace xpurt::cpu
