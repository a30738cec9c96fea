#include "work_group_builder.hpp"

#include "barrier_regions.hpp"
#include "bounds_checks.hpp"
#include "builtin_library.hpp"
#include "builtin_lowering.hpp"
#include "core/error.hpp"
#include "missing_builtins.hpp"
#include "printf_lowering.hpp"
#include "work_group.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <map>
#include <set>

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

constexpr const char *kWorkItemPrefix = "xpurt.wi.";
// What the builtin library's collectives ask of the work-group function (collectives.cl).
constexpr const char *kGroupScratch = "xpurt_group_scratch";
constexpr const char *kSubGroupSize = "xpurt_sub_group_size";
constexpr const char *kIsLocal = "xpurt_is_local";  // does a generic pointer point to __local?
constexpr const char *kGroupRound = "xpurt_group_round";  // which run of a region this is
constexpr uint64_t kGroupScratchBytesPerItem = 128;
// Marks the accesses of the work-item loop that do depend on the work-item before (the bounds
// of the regions the items chose): not part of the loop's parallel accesses.
constexpr const char *kSerialAccess = "xpurt.serial";

// Work-item functions and barriers are answered by the work-group loops, not by a library:
// give their declarations names of our own before the library is linked.
void renameWorkItemFunctions(llvm::Module &m) {
  for (llvm::Function &f : m) {
    if (!f.isDeclaration() || f.getName().startswith(kWorkItemPrefix)) continue;
    std::string name = f.getName().str();
    if (!workItemFunctions().count(name) && !isBarrierName(name) && name != kGroupScratch &&
        name != kSubGroupSize && name != kIsLocal && name != kGroupRound)
      continue;
    // A library linked later declares them again: one declaration serves both.
    if (llvm::Function *renamed = m.getFunction(kWorkItemPrefix + name)) {
      f.replaceAllUsesWith(renamed);
      continue;  // left without uses; removed with the other unused declarations
    }
    f.setName(kWorkItemPrefix + name);
  }
}

// The fields of WorkGroupContext as the IR sees them.
struct ContextValues {
  Value *groupId[3], *localSize[3], *enqueuedLocalSize[3], *globalSize[3], *globalOffset[3],
      *numGroups[3], *workDim, *localMemory, *privateMemory, *localBytes;
  Value *groupScratch = nullptr;  // the collectives' exchange memory, if the kernel has any
  Value *round = nullptr;         // i32 alloca: counts the runs of regions
  uint32_t subGroupSize = 0;
};

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
  // The group's local and private memory come as noalias arguments of the work-group
  // function (see work_group.hpp): set by the caller.
  v.localMemory = nullptr;
  v.privateMemory = nullptr;
  return v;
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

// Work-items of a group are independent between barriers: tell the vectoriser that the loop
// over them carries no memory dependence.
// vectorise = false: the loop runs rarely (the checked copy that only groups straddling a
// bound take); keep it scalar rather than spend compile time on vector code for it.
void markParallel(llvm::LLVMContext &c, const std::vector<llvm::BasicBlock *> &body,
                  llvm::BranchInst *latchBranch, bool vectorise = true) {
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
  std::vector<llvm::Metadata *> properties{nullptr, parallel};
  if (!vectorise) {
    properties.push_back(
        llvm::MDNode::get(c, {llvm::MDString::get(c, "llvm.loop.vectorize.enable"),
                              llvm::ConstantAsMetadata::get(llvm::ConstantInt::getFalse(c))}));
    properties.push_back(
        llvm::MDNode::get(c, {llvm::MDString::get(c, "llvm.loop.unroll.disable")}));
  }
  auto loopId = llvm::MDNode::getDistinct(c, properties);
  loopId->replaceOperandWith(0, loopId);
  latchBranch->setMetadata(llvm::LLVMContext::MD_loop, loopId);
}

// Emits, at the end of `from`, loops z, y, x over the group's local ids around a call of
// `body` (the kernel or one of its regions) and inlines it. If `result` is given, each
// work-item stores what body returns there. Returns the block after the loops.
// What the loops of one region record about the regions the work-items go to next.
struct RegionChoices {
  Value *lowest = nullptr, *highest = nullptr;  // i32 allocas: the smallest and largest choice
  Value *states = nullptr;      // i32 per work-item: its next region (-1: done), or nullptr
  Value *onlyRegion = nullptr;  // i32: run only the work-items whose state is this, or nullptr
};

llvm::BasicBlock *emitWorkItemLoops(llvm::Function &wg, llvm::BasicBlock *from,
                                    const ContextValues &ctx, llvm::Function &body,
                                    llvm::ArrayRef<Value *> args, Value *result,
                                    const RegionChoices *choices = nullptr) {
  llvm::LLVMContext &c = wg.getContext();
  llvm::Type *i64 = llvm::Type::getInt64Ty(c);
  IRBuilder<> b(from);
  LoopIds ids{};
  llvm::BasicBlock *exits[3], *latches[3];
  llvm::PHINode *phis[3];
  llvm::BasicBlock *current = from;
  for (int d = 2; d >= 0; --d) {
    auto *header = llvm::BasicBlock::Create(c, "wi.header", &wg);
    auto *inner = llvm::BasicBlock::Create(c, "wi.body", &wg);
    latches[d] = llvm::BasicBlock::Create(c, "wi.latch", &wg);
    exits[d] = llvm::BasicBlock::Create(c, "wi.exit", &wg);
    b.SetInsertPoint(current);
    b.CreateBr(header);
    b.SetInsertPoint(header);
    phis[d] = b.CreatePHI(i64, 2, "local.id");
    phis[d]->addIncoming(b.getInt64(0), current);
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
  llvm::CallInst *call = b.CreateCall(&body, args);
  if (result) b.CreateStore(call, result);
  if (stateSlot) b.CreateStore(call, stateSlot);
  if (choices && choices->lowest) {  // the lowest and highest region any work-item chose
    llvm::MDNode *serial = llvm::MDNode::get(c, {});
    auto update = [&](Value *slot, llvm::Intrinsic::ID op) {
      auto *old = b.CreateLoad(call->getType(), slot);
      auto *store = b.CreateStore(b.CreateBinaryIntrinsic(op, old, call), slot);
      old->setMetadata(kSerialAccess, serial);
      store->setMetadata(kSerialAccess, serial);
    };
    update(choices->lowest, llvm::Intrinsic::smin);
    update(choices->highest, llvm::Intrinsic::smax);
  }
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
    if (d == 0) innerLatchBranch = br;
    b.SetInsertPoint(exits[d]);
  }
  llvm::InlineFunctionInfo inlineInfo;
  if (!llvm::InlineFunction(*call, inlineInfo).isSuccess())
    core::fail(XPURT_ERROR_UNKNOWN, "'{}' could not be inlined into its work-item loop",
               body.getName().str());
  auto blocks = loopBody(innerBody, latches[0]);
  replaceWorkItemCalls(blocks, ctx, ids);
  std::optional<LoopCopy> unchecked;
  if (!join) unchecked = splitBoundsChecks(blocks, phis[0], latches[0], ctx.localSize[0]);
  if (unchecked) markParallel(c, unchecked->body, unchecked->latchBranch);
  // A masked loop runs only while work-items wait at different regions: rare, so kept scalar.
  markParallel(c, blocks, innerLatchBranch, !unchecked && !join);
  return exits[2];
}

// At `at`: the earliest region (lowest number) that a work-item of the group waits at, as a
// switch to be given a case per region; none left (all done) goes to `exit`. Work-items are
// read where the loops keep their states: item (z * e1 + y) * e0 + x of the enqueued size.
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

// void xpurt.wg.<kernel>(ptr args, ptr ctx). Without barriers: one loop nest over the
// work-items with the kernel inside. With barriers: a loop over the kernel's regions, each
// region run for every work-item before the next one starts.
KernelLayout buildWorkGroupFunction(llvm::Module &m, llvm::Function &kernel,
                                    const spirv::KernelInfo &info) {
  llvm::LLVMContext &c = m.getContext();
  llvm::Type *ptr = llvm::PointerType::get(c, 0);
  llvm::Type *i64 = llvm::Type::getInt64Ty(c);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(c), {ptr, ptr, ptr, ptr}, false);
  auto *wg = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                    workGroupFunctionName(info.name), m);
  wg->addFnAttr(llvm::Attribute::NoUnwind);
  // Nothing else points into a group's local or private memory: say so, so that values kept
  // there stay in registers and loops over them vectorise.
  wg->addParamAttr(2, llvm::Attribute::NoAlias);
  wg->addParamAttr(3, llvm::Attribute::NoAlias);
  Value *argsPtr = wg->getArg(0), *ctxPtr = wg->getArg(1);

  auto *entry = llvm::BasicBlock::Create(c, "entry", wg);
  IRBuilder<> b(entry);
  ContextValues ctx = loadContext(b, ctxPtr);
  ctx.localMemory = wg->getArg(2);
  ctx.privateMemory = wg->getArg(3);
  ctx.subGroupSize = info.requiredSubGroupSize ? info.requiredSubGroupSize : kDefaultSubGroupSize;
  std::vector<Value *> args;
  for (const llvm::Argument &a : kernel.args()) {
    unsigned i = a.getArgNo();
    Value *slot = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, argsPtr, i));
    Value *v;
    if (info.args[i].kind == spirv::KernelArg::Kind::Struct) {
      v = slot;  // byval: inlining gives each work-item its own copy
    } else if (info.args[i].kind == spirv::KernelArg::Kind::LocalPointer) {
      v = b.CreateInBoundsGEP(b.getInt8Ty(), ctx.localMemory, b.CreateLoad(i64, slot));
    } else {
      v = b.CreateLoad(a.getType(), slot);
    }
    if (v->getType() != a.getType()) v = b.CreatePointerBitCastOrAddrSpaceCast(v, a.getType());
    args.push_back(v);
  }

  KernelLayout layout;
  if (!hasBarrier(kernel)) {
    llvm::BasicBlock *done = emitWorkItemLoops(*wg, entry, ctx, kernel, args, nullptr);
    IRBuilder<>(done).CreateRetVoid();
    return layout;
  }
  bool collectives = false;
  Value *states = nullptr, *groupItems = nullptr;
  for (const llvm::Instruction &i : llvm::instructions(kernel))
    if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i))
      if (auto *callee = call->getCalledFunction())
        collectives =
            collectives || callee->getName() == std::string(kWorkItemPrefix) + kGroupScratch;
  Regions regions = splitAtBarriers(kernel);
  layout.privateBytesPerItem = regions.privateBytesPerItem;
  layout.privateBytesPerGroup = regions.privateBytesPerGroup;
  if (collectives) {
    // After the per-item and per-group slots: 128 bytes per work-item (a double16), aligned to
    // 128 at run time, for which the group area grows by 128.
    Value *items = b.CreateMul(b.CreateMul(ctx.enqueuedLocalSize[0], ctx.enqueuedLocalSize[1]),
                               ctx.enqueuedLocalSize[2]);
    Value *offset = b.CreateAdd(b.CreateMul(items, b.getInt64(layout.privateBytesPerItem)),
                                b.getInt64(layout.privateBytesPerGroup + 127));
    offset = b.CreateAnd(offset, b.getInt64(~uint64_t{127}));
    ctx.groupScratch = b.CreateInBoundsGEP(b.getInt8Ty(), ctx.privateMemory, offset, "scratch");
    // After the scratch: a tag per work-item (the run in which it published, see
    // collectives.cl), then its state (the region it waits at).
    states = b.CreateInBoundsGEP(b.getInt8Ty(), ctx.groupScratch,
                                 b.CreateMul(items, b.getInt64(kGroupScratchBytesPerItem + 4)),
                                 "states");
    ctx.round = b.CreateAlloca(b.getInt32Ty(), nullptr, "round");
    b.CreateStore(b.getInt32(0), ctx.round);
    // No tag may match a run of this group before the work-item publishes in it: the memory
    // holds the tags of the group the thread ran before.
    Value *tags = b.CreateInBoundsGEP(b.getInt8Ty(), ctx.groupScratch,
                                      b.CreateMul(items, b.getInt64(kGroupScratchBytesPerItem)));
    b.CreateMemSet(tags, b.getInt8(0xff), b.CreateMul(items, b.getInt64(4)), llvm::MaybeAlign(4));
    groupItems = items;
    layout.privateBytesPerItem += kGroupScratchBytesPerItem + 8;
    layout.privateBytesPerGroup += 128;
  }
  layout.regions = static_cast<uint32_t>(regions.functions.size());
  Value *next = b.CreateAlloca(b.getInt32Ty(), nullptr, "next.region");
  b.CreateStore(b.getInt32(0), next);
  auto *dispatch = llvm::BasicBlock::Create(c, "dispatch", wg);
  auto *exit = llvm::BasicBlock::Create(c, "exit", wg);
  RegionChoices choices{b.CreateAlloca(b.getInt32Ty(), nullptr, "lowest.region"),
                        b.CreateAlloca(b.getInt32Ty(), nullptr, "highest.region")};
  auto *diverged = llvm::BasicBlock::Create(c, "diverged", wg);
  {
    static_assert(offsetof(WorkGroupContext, divergent) == 18 * 8 + 4);
    IRBuilder<> d(diverged);
    Value *flag = d.CreateConstInBoundsGEP1_64(d.getInt8Ty(), ctxPtr, 18 * 8 + 4);
    d.CreateStore(d.getInt32(1), flag);
    d.CreateRetVoid();
  }
  b.CreateBr(dispatch);
  b.SetInsertPoint(dispatch);
  unsigned count = static_cast<unsigned>(regions.functions.size());
  auto *sw = b.CreateSwitch(b.CreateLoad(b.getInt32Ty(), next), exit, count);
  // Kernels with collectives may part: a sub-group function in a branch that only some
  // sub-groups take is legal, unlike a barrier. Once the work-items of a run chose different
  // regions, every work-item keeps its own state, and each run takes the earliest region some
  // work-items wait at, for those only.
  // They can part only after a region that can end at more than one barrier; a kernel with
  // none (collectives in straight-line code) needs no masked copies, which double its code.
  auto endsOf = [](llvm::Function &region) {
    std::set<Value *> ends;
    for (llvm::BasicBlock &bb : region)
      if (auto *ret = llvm::dyn_cast<llvm::ReturnInst>(bb.getTerminator()))
        ends.insert(ret->getReturnValue());
    return ends.size();
  };
  bool mayPart = false;
  for (llvm::Function *region : regions.functions) mayPart = mayPart || endsOf(*region) > 1;
  bool tracked = collectives && mayPart;
  llvm::SwitchInst *maskedSwitch = nullptr;
  auto *masked = llvm::BasicBlock::Create(c, "masked.dispatch", wg);
  if (tracked)
    maskedSwitch = emitEarliestState(*wg, masked, ctx, states, groupItems, exit, count);
  else
    IRBuilder<>(masked).CreateUnreachable();
  for (size_t r = 0; r < count; ++r) {
    auto *start = llvm::BasicBlock::Create(c, "region", wg);
    sw->addCase(b.getInt32(static_cast<uint32_t>(r)), start);
    if (ctx.round) {
      IRBuilder<> s(start);
      s.CreateStore(s.CreateAdd(s.CreateLoad(s.getInt32Ty(), ctx.round), s.getInt32(1)), ctx.round);
    }
    // A region that can end at more than one place (a barrier in a loop or a branch) checks
    // that every work-item chose the same: OpenCL makes a barrier that only some reach
    // undefined, and running on would give wrong results silently.
    if (endsOf(*regions.functions[r]) < 2 && !tracked) {
      llvm::BasicBlock *done =
          emitWorkItemLoops(*wg, start, ctx, *regions.functions[r], args, next);
      IRBuilder<>(done).CreateBr(dispatch);
      continue;
    }
    IRBuilder<> s(start);
    s.CreateStore(s.getInt32(INT32_MAX), choices.lowest);
    s.CreateStore(s.getInt32(INT32_MIN), choices.highest);
    RegionChoices recorded = choices;
    if (tracked) recorded.states = states;
    llvm::BasicBlock *done =
        emitWorkItemLoops(*wg, start, ctx, *regions.functions[r], args, next, &recorded);
    IRBuilder<> d(done);
    Value *parted = d.CreateICmpNE(d.CreateLoad(d.getInt32Ty(), choices.lowest),
                                   d.CreateLoad(d.getInt32Ty(), choices.highest));
    d.CreateCondBr(parted, tracked ? masked : diverged, dispatch);
    if (!tracked) continue;
    auto *maskedStart = llvm::BasicBlock::Create(c, "masked.region", wg);
    maskedSwitch->addCase(d.getInt32(static_cast<uint32_t>(r)), maskedStart);
    IRBuilder<> ms(maskedStart);
    ms.CreateStore(ms.CreateAdd(ms.CreateLoad(ms.getInt32Ty(), ctx.round), ms.getInt32(1)),
                   ctx.round);
    RegionChoices only;
    only.states = states;
    only.onlyRegion = ms.getInt32(static_cast<uint32_t>(r));
    llvm::BasicBlock *maskedDone =
        emitWorkItemLoops(*wg, maskedStart, ctx, *regions.functions[r], args, nullptr, &only);
    IRBuilder<>(maskedDone).CreateBr(masked);
  }
  IRBuilder<>(exit).CreateRetVoid();
  return layout;
}

// Every function that reaches a work-item function, directly or through its callees, must end
// up inside a work-group loop: mark them all for inlining.
void inlineWorkItemUsers(llvm::Module &m) {
  auto reaches = [](const llvm::Function &f) {
    for (const llvm::Instruction &i : llvm::instructions(f))
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i))
        if (const llvm::Function *callee = call->getCalledFunction())
          if (callee->getName().startswith(kWorkItemPrefix) ||
              (!callee->isDeclaration() && callee->hasFnAttribute(llvm::Attribute::AlwaysInline)))
            return true;
    return false;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (llvm::Function &f : m)
      if (!f.isDeclaration() && !f.hasFnAttribute(llvm::Attribute::AlwaysInline) && reaches(f)) {
        f.removeFnAttr(llvm::Attribute::NoInline);
        f.addFnAttr(llvm::Attribute::AlwaysInline);
        changed = true;
      }
  }
}

void runAlwaysInliner(llvm::Module &m) {
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
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::AlwaysInlinerPass());
  mpm.run(m, mam);
}

}  // namespace

WorkGroupFunctions buildWorkGroupFunctions(llvm::Module &m,
                                           const std::vector<spirv::KernelInfo> &kernels,
                                           const llvm::DataLayout &layout,
                                           const llvm::Triple &triple, const std::string &name) {
  renameWorkItemFunctions(m);

  // The kernel's own functions are inlined into it, so that the work-item calls all end up
  // inside the work-group loops.
  // SPIR-V's DontInline function control (icpx puts it on every kernel body) reaches both the
  // function and its call sites.
  for (llvm::Function &f : m) {
    if (f.isDeclaration()) continue;
    f.removeFnAttr(llvm::Attribute::NoInline);
    f.removeFnAttr(llvm::Attribute::OptimizeNone);
    f.addFnAttr(llvm::Attribute::AlwaysInline);
    for (llvm::Instruction &i : llvm::instructions(f))
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i))
        call->removeFnAttr(llvm::Attribute::NoInline);
  }

  defineVectorizableMath(m);
  lowerPrintf(m);
  defineMissingBuiltins(m, /*beforeLibrary=*/true);
  // Reading the library costs milliseconds: only when the kernels call a builtin it may have.
  auto linkLibrary = [&] {
    bool needed = false;
    for (const llvm::Function &f : m)
      needed = needed || (f.isDeclaration() && !f.use_empty() && f.getName().startswith("_Z"));
    if (needed && llvm::Linker::linkModules(m, loadBuiltinLibrary(m.getContext()),
                                            llvm::Linker::LinkOnlyNeeded))
      core::fail(XPURT_ERROR_UNKNOWN, "linking module '{}' with the OpenCL builtin library failed",
                 name);
  };
  linkLibrary();
  // What the library defines only for named address spaces (and what its own functions call
  // on generic pointers) goes to the __global variant, linked in another pass; those may call
  // generic variants in turn (the library's half builtins call its float ones).
  for (int pass = 0; pass < 4 && redirectGenericPointers(m); ++pass) linkLibrary();
  // Library functions may use work-item functions and barriers too.
  renameWorkItemFunctions(m);
  inlineWorkItemUsers(m);
  WorkGroupFunctions result;
  result.unavailable =
      dropKernelsCallingMissing(m, kernels, defineMissingBuiltins(m, /*beforeLibrary=*/false));
  runAlwaysInliner(m);
  uint64_t staticLocalBytes = lowerStaticLocals(m);

  for (const spirv::KernelInfo &info : kernels) {
    if (result.unavailable.count(info.name)) continue;
    if (info.requiredSubGroupSize > kMaxSubGroupSize) {
      result.unavailable[info.name] = fmt::format(
          "kernel '{}' requires sub-groups of {} work-items; the CPU device's are at most {}",
          info.name, info.requiredSubGroupSize, kMaxSubGroupSize);
      continue;
    }
    llvm::Function *kernel = m.getFunction(info.name);
    if (!kernel) core::fail(XPURT_ERROR_UNKNOWN, "kernel '{}' vanished from its module", info.name);
    KernelLayout kl = buildWorkGroupFunction(m, *kernel, info);
    kl.staticLocalBytes = staticLocalBytes;
    result.layouts[info.name] = kl;
  }

  // Only the work-group functions are entry points; everything else may be optimised away.
  for (llvm::Function &f : m) {
    f.setCallingConv(llvm::CallingConv::C);
    for (llvm::User *u : f.users())
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(u))
        call->setCallingConv(llvm::CallingConv::C);
    if (!f.isDeclaration() && !f.getName().startswith("xpurt.wg.")) {
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
      f.setComdat(nullptr);
    }
  }
  m.setDataLayout(layout);
  m.setTargetTriple(triple.str());
  std::string problems;
  llvm::raw_string_ostream out(problems);
  if (llvm::verifyModule(m, &out))
    core::fail(XPURT_ERROR_UNKNOWN, "the CPU JIT built invalid code for module '{}': {}", name,
               problems);
  return result;
}

}  // namespace xpurt::cpu
