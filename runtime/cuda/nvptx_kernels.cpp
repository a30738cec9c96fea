#include "core/error.hpp"
#include "nvptx_lowering.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <map>
#include <set>
#include <vector>

namespace xpurt::cuda {
namespace {

using Kind = core::KernelParam::Kind;

void annotate(llvm::Module &m, llvm::Function *kernel, const char *key, uint32_t value) {
  llvm::LLVMContext &c = m.getContext();
  llvm::Metadata *fields[] = {
      llvm::ValueAsMetadata::get(kernel), llvm::MDString::get(c, key),
      llvm::ValueAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(c), value))};
  m.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(c, fields));
}

llvm::GlobalVariable *dynamicShared(llvm::Module &m) {
  if (auto *g = m.getGlobalVariable(kDynamicSharedName)) return g;
  auto *type = llvm::ArrayType::get(llvm::Type::getInt8Ty(m.getContext()), 0);
  auto *g =
      new llvm::GlobalVariable(m, type, false, llvm::GlobalValue::ExternalLinkage, nullptr,
                               kDynamicSharedName, nullptr, llvm::GlobalValue::NotThreadLocal, 3);
  g->setAlignment(llvm::Align(16));
  return g;
}

// For each launch value's global, the functions that read it (kLaunchValues' readers), and
// their callers, transitively.
std::map<std::string, std::set<const llvm::Function *>> launchValueReaders(llvm::Module &m) {
  std::map<std::string, std::set<const llvm::Function *>> result;
  for (const LaunchValue &value : kLaunchValues) {
    llvm::GlobalVariable *global = m.getGlobalVariable(value.global, true);
    if (!global) continue;
    std::set<const llvm::Function *> &readers = result[value.global];
    std::vector<const llvm::Function *> work;
    for (const llvm::User *u : global->users()) {
      // A global is read through a constant expression as often as not.
      std::vector<const llvm::User *> users{u};
      if (llvm::isa<llvm::ConstantExpr>(u)) users.assign(u->user_begin(), u->user_end());
      for (const llvm::User *user : users)
        if (auto *i = llvm::dyn_cast<llvm::Instruction>(user))
          if (readers.insert(i->getFunction()).second) work.push_back(i->getFunction());
    }
    while (!work.empty()) {
      const llvm::Function *f = work.back();
      work.pop_back();
      for (const llvm::User *u : f->users())
        if (auto *call = llvm::dyn_cast<llvm::CallBase>(u))
          if (readers.insert(call->getFunction()).second) work.push_back(call->getFunction());
    }
  }
  return result;
}

// The PTX entry `info.name`: the kernel's parameters (__local pointers as i32 offsets into the
// dynamic shared memory) passed on to its body, which becomes an ordinary function (kernels
// may call kernels, and a PTX entry cannot be called); with `launchValues`, kLaunchValues'
// parameters after those, of which it stores those its code reads (`readers`).
void buildEntry(llvm::Module &m, llvm::Function &body, const spirv::KernelInfo &info,
                bool launchValues,
                const std::map<std::string, std::set<const llvm::Function *>> &readers) {
  llvm::LLVMContext &c = m.getContext();
  if (info.args.size() != body.arg_size())
    core::fail(XPURT_ERROR_INVALID_MODULE,
               "module '{}': kernel '{}' has {} parameters in its code but {} in its reflection",
               m.getModuleIdentifier(), info.name, body.arg_size(), info.args.size());
  body.setName("xpurt.kernel." + info.name);
  std::vector<llvm::Type *> params;
  for (unsigned i = 0; i < body.arg_size(); ++i)
    params.push_back(info.args[i].kind == Kind::LocalPointer ? llvm::Type::getInt32Ty(c)
                                                             : body.getArg(i)->getType());
  if (launchValues)
    for (const LaunchValue &value : kLaunchValues)
      params.insert(params.end(), value.count, llvm::Type::getIntNTy(c, value.bits));
  auto *entry =
      llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(c), params, false),
                             llvm::GlobalValue::ExternalLinkage, info.name, m);
  entry->setCallingConv(llvm::CallingConv::PTX_Kernel);
  entry->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", entry));
  if (launchValues) {
    // Every work-item stores the same values: it reads back its own stores, whatever the order.
    auto next = static_cast<unsigned>(body.arg_size());
    for (const LaunchValue &value : kLaunchValues) {
      llvm::GlobalVariable *global = m.getGlobalVariable(value.global, true);
      auto read = readers.find(value.global);
      if (read == readers.end() || !read->second.count(&body)) global = nullptr;
      for (unsigned d = 0; d < value.count; ++d) {
        llvm::Argument *a = entry->getArg(next++);
        a->setName(value.reader);
        if (global)
          b.CreateStore(a, b.CreateConstInBoundsGEP2_32(global->getValueType(), global, 0, d));
      }
    }
  }
  std::vector<llvm::Value *> args;
  for (unsigned i = 0; i < body.arg_size(); ++i) {
    llvm::Argument *a = entry->getArg(i);
    a->setName(body.getArg(i)->getName());
    if (info.args[i].kind == Kind::LocalPointer) {
      llvm::Value *offset = b.CreateZExt(a, b.getInt64Ty());
      args.push_back(b.CreateGEP(b.getInt8Ty(), dynamicShared(m), offset));
    } else {
      entry->addParamAttrs(i, llvm::AttrBuilder(c, body.getAttributes().getParamAttrs(i)));
      args.push_back(a);
    }
  }
  body.setLinkage(llvm::GlobalValue::InternalLinkage);
  body.removeFnAttr(llvm::Attribute::NoInline);
  body.removeFnAttr(llvm::Attribute::OptimizeNone);
  body.addFnAttr(llvm::Attribute::AlwaysInline);
  // The call takes the body's parameter attributes, not a `noinline` the reader gave the body:
  // the body is inlined into its entry, as nvcc inlines a kernel's code.
  auto *call = b.CreateCall(body.getFunctionType(), &body, args);
  call->setAttributes(body.getAttributes());
  call->removeFnAttr(llvm::Attribute::NoInline);
  b.CreateRetVoid();
  annotate(m, entry, "kernel", 1);
  const char *axes[] = {"reqntidx", "reqntidy", "reqntidz"};
  if (info.requiredLocalSize[0] != 0)
    for (int d = 0; d < 3; ++d)
      annotate(m, entry, axes[d], std::max(info.requiredLocalSize[d], 1u));
}

// Every call of kSubGroupWidthName becomes the sub-group size of the kernel whose launch runs
// it: 16 for the entries in `narrow`, 32 for the others. The functions both kinds of kernels
// reach are cloned for the kernels of 16, so each copy folds to one constant.
void specialiseSubGroupWidth(llvm::Module &m, const std::set<llvm::Function *> &narrow) {
  llvm::Function *width = m.getFunction(kSubGroupWidthName);
  if (!width) return;
  std::set<llvm::Function *> readers;  // the callers of `width`, transitively
  std::vector<llvm::Function *> work{width};
  while (!work.empty()) {
    llvm::Function *f = work.back();
    work.pop_back();
    for (llvm::User *u : f->users())
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(u))
        if (readers.insert(call->getFunction()).second) work.push_back(call->getFunction());
  }
  std::map<llvm::Function *, llvm::Function *> clones;
  std::set<llvm::Function *> narrowCode;  // what runs only in sub-groups of 16
  for (llvm::Function *entry : narrow)
    if (readers.count(entry)) narrowCode.insert(entry);
  if (!narrowCode.empty()) {
    for (llvm::Function *f : readers)
      if (f->getCallingConv() != llvm::CallingConv::PTX_Kernel && !f->isDeclaration()) {
        llvm::ValueToValueMapTy map;
        llvm::Function *copy = llvm::CloneFunction(f, map);
        copy->setName(f->getName() + ".sub_groups_of_16");
        clones[f] = copy;
        narrowCode.insert(copy);
      }
    for (llvm::Function *f : narrowCode)
      for (llvm::Instruction &i : llvm::instructions(*f))
        if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i))
          if (auto it = clones.find(call->getCalledFunction()); it != clones.end())
            call->setCalledFunction(it->second);
  }
  std::vector<llvm::CallBase *> calls;
  for (llvm::User *u : width->users())
    if (auto *call = llvm::dyn_cast<llvm::CallBase>(u)) calls.push_back(call);
  for (llvm::CallBase *call : calls) {
    uint32_t size = narrowCode.count(call->getFunction()) ? 16 : 32;
    call->replaceAllUsesWith(llvm::ConstantInt::get(call->getType(), size));
    call->eraseFromParent();
  }
  if (width->use_empty()) width->eraseFromParent();
}

}  // namespace

std::set<std::string> lowerKernels(llvm::Module &m, const std::vector<spirv::KernelInfo> &kernels,
                                   const std::map<std::string, std::string> &unavailable) {
  // Every function and call: the plain calling convention (SPIR's spir_func and spir_kernel
  // mean nothing to NVPTX, and a call must match its callee's).
  for (llvm::Function &f : m) {
    f.setCallingConv(llvm::CallingConv::C);
    for (llvm::Instruction &i : llvm::instructions(f))
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i))
        call->setCallingConv(llvm::CallingConv::C);
    if (!f.isDeclaration()) {
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
      f.setComdat(nullptr);
    }
  }
  std::map<std::string, std::set<const llvm::Function *>> readers = launchValueReaders(m);
  std::set<std::string> takingLaunchValues;
  std::set<llvm::Function *> narrow;  // the entries of kernels that require sub-groups of 16
  for (const spirv::KernelInfo &info : kernels) {
    if (unavailable.count(info.name)) continue;
    llvm::Function *body = m.getFunction(info.name);
    if (!body || body->isDeclaration())
      core::fail(XPURT_ERROR_INVALID_MODULE,
                 "module '{}': kernel '{}' vanished while compiling it to PTX",
                 m.getModuleIdentifier(), info.name);
    bool launchValues = false;
    for (const auto &[global, functions] : readers) launchValues |= functions.count(body) != 0;
    if (launchValues) takingLaunchValues.insert(info.name);
    buildEntry(m, *body, info, launchValues, readers);
    if (info.requiredSubGroupSize == 16) narrow.insert(m.getFunction(info.name));
  }
  specialiseSubGroupWidth(m, narrow);
  return takingLaunchValues;
}

void forwardLaunchValues(llvm::Module &m) {
  auto isLaunchValue = [](const llvm::GlobalVariable *g) {
    if (!g || g->getAddressSpace() != 3) return false;
    for (const LaunchValue &value : kLaunchValues)
      if (g->getName().startswith(value.global)) return true;  // or a piece GlobalOpt split off
    return false;
  };
  std::set<llvm::GlobalVariable *> touched;
  for (llvm::Function &f : m) {
    if (f.getCallingConv() != llvm::CallingConv::PTX_Kernel || f.isDeclaration()) continue;
    std::map<llvm::Value *, llvm::Value *> stored;  // address -> the parameter stored there
    for (llvm::Instruction &i : f.getEntryBlock())
      if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&i))
        if (llvm::isa<llvm::Argument>(store->getValueOperand()) &&
            isLaunchValue(llvm::dyn_cast<llvm::GlobalVariable>(
                store->getPointerOperand()->stripPointerCasts())))
          stored.emplace(store->getPointerOperand(), store->getValueOperand());
    std::vector<llvm::LoadInst *> loads;
    for (llvm::Instruction &i : llvm::instructions(f))
      if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&i))
        if (auto it = stored.find(load->getPointerOperand());
            it != stored.end() && it->second->getType() == load->getType())
          loads.push_back(load);
    for (llvm::LoadInst *load : loads) {
      touched.insert(
          llvm::cast<llvm::GlobalVariable>(load->getPointerOperand()->stripPointerCasts()));
      load->replaceAllUsesWith(stored[load->getPointerOperand()]);
      load->eraseFromParent();
    }
  }
  // A value nothing loads any more needs no stores; one that a function outside the entries
  // still loads (a call that was not inlined) keeps them.
  for (llvm::GlobalVariable *g : touched) {
    std::vector<llvm::StoreInst *> stores;
    bool loaded = false;
    std::vector<llvm::User *> work(g->user_begin(), g->user_end());
    while (!work.empty() && !loaded) {
      llvm::User *u = work.back();
      work.pop_back();
      if (auto *store = llvm::dyn_cast<llvm::StoreInst>(u); store && store->getValueOperand() != g)
        stores.push_back(store);
      else if (llvm::isa<llvm::ConstantExpr>(u))
        work.insert(work.end(), u->user_begin(), u->user_end());
      else
        loaded = true;
    }
    if (loaded) continue;
    for (llvm::StoreInst *store : stores) store->eraseFromParent();
    g->removeDeadConstantUsers();
    if (g->use_empty()) g->eraseFromParent();
  }
}

}  // namespace xpurt::cuda
