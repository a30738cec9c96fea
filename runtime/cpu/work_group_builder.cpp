#include "work_group_builder.hpp"

#include "barrier_regions.hpp"
#include "bounds_checks.hpp"
#include "builtin_library.hpp"
#include "core/error.hpp"
#include "printf_lowering.hpp"
#include "spirv/builtin_lowering.hpp"
#include "spirv/missing_builtins.hpp"
#include "work_group.hpp"
#include "work_item_loops.hpp"

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

#include <algorithm>
#include <map>
#include <set>

namespace xpurt::cpu {
namespace {

using llvm::IRBuilder;
using llvm::Value;

// Work-item functions and barriers are answered by the work-group loops, not by a library:
// give their declarations names of our own before the library is linked.
void renameWorkItemFunctions(llvm::Module &m) {
  for (llvm::Function &f : m) {
    if (!f.isDeclaration() || f.getName().startswith(kWorkItemPrefix)) continue;
    std::string name = f.getName().str();
    if (!answeredByLoops(name) && !isBarrierName(name)) continue;
    // A library linked later declares them again: one declaration serves both.
    if (llvm::Function *renamed = m.getFunction(kWorkItemPrefix + name)) {
      f.replaceAllUsesWith(renamed);
      continue;  // left without uses; removed with the other unused declarations
    }
    f.setName(kWorkItemPrefix + name);
  }
}

// Whether the kernel (its calls inlined) calls no work-item function but the global ones.
bool asksOnlyGlobalIds(const llvm::Function &kernel) {
  for (const llvm::Instruction &i : llvm::instructions(kernel))
    if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i)) {
      const llvm::Function *callee = call->getCalledFunction();
      if (!callee) continue;
      llvm::StringRef name = callee->getName();
      // Sub-group and work-group builtins name their group; local ids and sizes, and __local
      // variables (kLocalBase), say local.
      if ((name.consume_front(kWorkItemPrefix) && !isGlobalWorkItemFunction(name.str())) ||
          name.contains("group") || name.contains("local") || name.contains("barrier"))
        return false;
    }
  return true;
}

// void xpurt.wg.<kernel>(ptr args, ptr ctx). Without barriers: one loop nest over the
// work-items with the kernel inside. With barriers: a loop over the kernel's regions, each
// region run for every work-item before the next one starts.
KernelLayout buildWorkGroupFunction(llvm::Module &m, llvm::Function &kernel,
                                    const spirv::KernelInfo &info, unsigned vectorWidth) {
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
  ctx.vectorWidth = vectorWidth;
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
      // Argument values are 8-byte aligned (core::KernelArgs); a long16's ABI asks for 128.
      llvm::Align abi = m.getDataLayout().getABITypeAlign(a.getType());
      v = b.CreateAlignedLoad(a.getType(), slot, std::min(abi, llvm::Align(8)));
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
  // A region's arguments: the kernel's, then the group values as loaded before its loops.
  auto regionArgs = [&](llvm::BasicBlock *at) {
    std::vector<Value *> all = args;
    IRBuilder<> g(at);
    const auto &e = ctx.enqueuedLocalSize;
    Value *items = g.CreateMul(g.CreateMul(e[0], e[1]), e[2]);
    for (const GroupValue &v : regions.groupValues) {
      Value *offset = g.CreateAdd(g.CreateMul(g.getInt64(v.slotArea), items), g.getInt64(v.offset));
      all.push_back(
          g.CreateLoad(v.type, g.CreateInBoundsGEP(g.getInt8Ty(), ctx.privateMemory, offset)));
    }
    return all;
  };
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
  // How many places each region can end at (barriers, or the kernel's end). A region with
  // more than one may send work-items different ways: OpenCL makes a barrier that only some
  // reach undefined, so the group stops with an error; but a sub-group function in a branch
  // only some sub-groups take is legal. So in a kernel with collectives, once the work-items
  // of a run chose different regions, every work-item keeps its own state, and each run takes
  // the earliest region some work-items wait at, for those only. A kernel whose regions all
  // end at one place needs no masked copies, which double its code.
  std::vector<size_t> ends;
  for (llvm::Function *region : regions.functions) {
    std::set<Value *> returned;
    for (llvm::BasicBlock &bb : *region)
      if (auto *ret = llvm::dyn_cast<llvm::ReturnInst>(bb.getTerminator()))
        returned.insert(ret->getReturnValue());
    ends.push_back(returned.size());
  }
  bool mayPart = std::any_of(ends.begin(), ends.end(), [](size_t n) { return n > 1; });
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
    if (ends[r] < 2 && !tracked) {
      llvm::BasicBlock *done =
          emitWorkItemLoops(*wg, start, ctx, *regions.functions[r], regionArgs(start), next);
      IRBuilder<>(done).CreateBr(dispatch);
      continue;
    }
    IRBuilder<> s(start);
    s.CreateStore(s.getInt32(INT32_MAX), choices.lowest);
    s.CreateStore(s.getInt32(INT32_MIN), choices.highest);
    RegionChoices recorded = choices;
    if (tracked) recorded.states = states;
    llvm::BasicBlock *done = emitWorkItemLoops(*wg, start, ctx, *regions.functions[r],
                                               regionArgs(start), next, &recorded);
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
    llvm::BasicBlock *maskedDone = emitWorkItemLoops(*wg, maskedStart, ctx, *regions.functions[r],
                                                     regionArgs(maskedStart), nullptr, &only);
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

// Vector loads and stores through global, constant and generic pointers keep only their
// element's alignment. OpenCL lets the compiler assume a float8 is 32-byte aligned, but the
// memory may be the application's (a DEVICE view over a std::vector, at an offset), and x86's
// aligned vector moves fault where the unaligned ones cost nothing extra on aligned data.
void relaxVectorAlignments(llvm::Module &m, const llvm::DataLayout &layout) {
  auto relax = [&](auto *access, llvm::Type *type, unsigned addressSpace) {
    auto *vector = llvm::dyn_cast<llvm::VectorType>(type);
    if (!vector || (addressSpace != 1 && addressSpace != 2 && addressSpace != 4)) return;
    llvm::Align element = layout.getABITypeAlign(vector->getElementType());
    if (access->getAlign() > element) access->setAlignment(element);
  };
  for (llvm::Function &f : m)
    for (llvm::Instruction &i : llvm::instructions(f)) {
      if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&i))
        relax(load, load->getType(), load->getPointerAddressSpace());
      else if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&i))
        relax(store, store->getValueOperand()->getType(), store->getPointerAddressSpace());
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
                                           const llvm::Triple &triple, const std::string &name,
                                           unsigned vectorWidth) {
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

  spirv::defineVectorizableMath(m);
  lowerPrintf(m);
  spirv::defineMissingBuiltins(m, /*beforeLibrary=*/true);
  // Reading the library costs milliseconds: only when the kernels call a builtin it may have.
  auto linkLibrary = [&] {
    if (spirv::callsLibraryBuiltins(m) &&
        llvm::Linker::linkModules(m, loadBuiltinLibrary(m.getContext()),
                                  llvm::Linker::LinkOnlyNeeded))
      core::fail(XPURT_ERROR_UNKNOWN, "linking module '{}' with the OpenCL builtin library failed",
                 name);
  };
  linkLibrary();
  // What the library defines only for named address spaces (and what its own functions call
  // on generic pointers) goes to the __global variant, linked in another pass; those may call
  // generic variants in turn (the library's half builtins call its float ones).
  for (int pass = 0; pass < 4 && spirv::redirectGenericPointers(m); ++pass) linkLibrary();
  // Library functions may use work-item functions and barriers too.
  renameWorkItemFunctions(m);
  inlineWorkItemUsers(m);
  WorkGroupFunctions result;
  result.unavailable = spirv::dropKernelsCallingMissing(
      m, kernels, spirv::defineMissingBuiltins(m, /*beforeLibrary=*/false));
  runAlwaysInliner(m);
  relaxVectorAlignments(m, layout);
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
    bool onlyGlobalIds = asksOnlyGlobalIds(*kernel);
    KernelLayout kl = buildWorkGroupFunction(m, *kernel, info, vectorWidth);
    kl.staticLocalBytes = staticLocalBytes;
    kl.groupsMayMerge = onlyGlobalIds && kl.regions == 1;
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
