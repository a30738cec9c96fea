#include "spirv_reader.hpp"

#include "core/error.hpp"
#include "spec_constants.hpp"

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <sstream>

namespace xpurt::spirv {

namespace {

// The translator reads get_global_size(d) (and its kin) with a run-time d as one call per
// dimension 0..2 gathered into a vector, then an extract at d: out of range, that extract is
// poison, where OpenCL wants 1 for sizes and 0 for ids. Give the call d itself instead, so the
// work-item function answers every dimension.
void foldDynamicWorkItemExtracts(llvm::Module &m) {
  std::vector<llvm::ExtractElementInst *> extracts;
  for (llvm::Function &f : m)
    for (llvm::BasicBlock &bb : f)
      for (llvm::Instruction &i : bb)
        if (auto *e = llvm::dyn_cast<llvm::ExtractElementInst>(&i))
          if (!llvm::isa<llvm::ConstantInt>(e->getIndexOperand())) extracts.push_back(e);
  for (llvm::ExtractElementInst *e : extracts) {
    llvm::Function *callee = nullptr;
    bool lanes[3] = {false, false, false};
    llvm::Value *v = e->getVectorOperand();
    while (auto *insert = llvm::dyn_cast<llvm::InsertElementInst>(v)) {
      auto *lane = llvm::dyn_cast<llvm::ConstantInt>(insert->getOperand(2));
      auto *call = llvm::dyn_cast<llvm::CallInst>(insert->getOperand(1));
      if (!lane || lane->getZExtValue() > 2 || !call || call->arg_size() != 1) break;
      auto *dim = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(0));
      if (!dim || dim->getZExtValue() != lane->getZExtValue()) break;
      if (callee && call->getCalledFunction() != callee) break;
      callee = call->getCalledFunction();
      lanes[lane->getZExtValue()] = true;
      v = insert->getOperand(0);
    }
    if (!callee || !lanes[0] || !lanes[1] || !lanes[2] || !llvm::isa<llvm::UndefValue>(v) ||
        !callee->getName().startswith("_Z") || callee->getReturnType() != e->getType())
      continue;
    llvm::IRBuilder<> b(e);
    llvm::Type *dimType = callee->getFunctionType()->getParamType(0);
    llvm::CallInst *call =
        b.CreateCall(callee, {b.CreateZExtOrTrunc(e->getIndexOperand(), dimType)});
    call->setCallingConv(callee->getCallingConv());
    e->replaceAllUsesWith(call);
    e->eraseFromParent();
  }
}

}  // namespace

std::unique_ptr<llvm::Module> readModule(
    llvm::LLVMContext &context, std::span<const uint32_t> words,
    std::span<const std::pair<uint32_t, uint64_t>> specConstants, const std::string &name) {
  SPIRV::TranslatorOpts opts;
  opts.enableAllExtensions();
  for (auto [id, value] : checkSpecConstants(words, specConstants, name))
    opts.setSpecConst(id, value);
  std::string bytes(reinterpret_cast<const char *>(words.data()), words.size_bytes());
  std::istringstream in(bytes);
  // The translator's own lowering passes need typed pointers (with opaque ones they assert on
  // builtins such as the atomics): read into a typed-pointer context, then move the module into
  // the caller's opaque-pointer context through bitcode, which upgrades it.
  llvm::LLVMContext typed;
  typed.setOpaquePointers(false);
  llvm::Module *raw = nullptr;
  std::string error;
  if (!llvm::readSpirv(typed, opts, in, raw, error) || !raw)
    core::fail(XPURT_ERROR_INVALID_MODULE, "SPIR-V module '{}' could not be read: {}", name,
               error.empty() ? "the translator gave no reason" : error);
  std::unique_ptr<llvm::Module> module(raw);
  llvm::SmallVector<char, 0> bitcode;
  llvm::raw_svector_ostream out(bitcode);
  llvm::WriteBitcodeToFile(*module, out);
  module.reset();
  auto upgraded = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()), name), context);
  if (!upgraded)
    core::fail(XPURT_ERROR_INVALID_MODULE, "SPIR-V module '{}' could not be read: {}", name,
               llvm::toString(upgraded.takeError()));
  foldDynamicWorkItemExtracts(**upgraded);
  return std::move(*upgraded);
}

static std::string metadataString(const llvm::Function &f, const char *kind, unsigned i) {
  auto *node = f.getMetadata(kind);
  if (!node || i >= node->getNumOperands()) return {};
  if (auto *s = llvm::dyn_cast_or_null<llvm::MDString>(node->getOperand(i)))
    return s->getString().str();
  return {};
}

std::vector<KernelInfo> reflectKernels(const llvm::Module &module) {
  std::vector<KernelInfo> kernels;
  const llvm::DataLayout &layout = module.getDataLayout();
  for (const llvm::Function &f : module) {
    if (f.getCallingConv() != llvm::CallingConv::SPIR_KERNEL || f.isDeclaration()) continue;
    KernelInfo info;
    info.name = f.getName().str();
    for (const llvm::Argument &arg : f.args()) {
      KernelArg a{};
      a.typeName = metadataString(f, "kernel_arg_type", arg.getArgNo());
      llvm::Type *type = arg.getType();
      if (arg.hasByValAttr()) {
        a.kind = KernelArg::Kind::Struct;
        a.size = static_cast<uint32_t>(layout.getTypeAllocSize(arg.getParamByValType()));
      } else if (auto *ptr = llvm::dyn_cast<llvm::PointerType>(type)) {
        unsigned as = ptr->getAddressSpace();
        a.kind = as == 3   ? KernelArg::Kind::LocalPointer
                 : as == 2 ? KernelArg::Kind::ConstantPointer
                           : KernelArg::Kind::GlobalPointer;
        a.size = 8;
      } else {
        a.kind = KernelArg::Kind::Value;
        a.size = static_cast<uint32_t>(layout.getTypeAllocSize(type));
      }
      info.args.push_back(std::move(a));
    }
    if (auto *node = f.getMetadata("reqd_work_group_size"))
      for (unsigned d = 0; d < 3 && d < node->getNumOperands(); ++d)
        if (auto *c = llvm::mdconst::dyn_extract<llvm::ConstantInt>(node->getOperand(d)))
          info.requiredLocalSize[d] = static_cast<uint32_t>(c->getZExtValue());
    // SPIR-V's SubgroupSize execution mode (OpenCL's intel_reqd_sub_group_size).
    if (auto *node = f.getMetadata("intel_reqd_sub_group_size"); node && node->getNumOperands())
      if (auto *c = llvm::mdconst::dyn_extract<llvm::ConstantInt>(node->getOperand(0)))
        info.requiredSubGroupSize = static_cast<uint32_t>(c->getZExtValue());
    kernels.push_back(std::move(info));
  }
  return kernels;
}

std::unique_ptr<llvm::Module> loadEmbeddedBitcode(const char *begin, const char *end,
                                                  const char *what, llvm::LLVMContext &context) {
  llvm::StringRef bytes(begin, static_cast<size_t>(end - begin));
  auto module = llvm::getOwningLazyBitcodeModule(
      llvm::MemoryBuffer::getMemBuffer(bytes, what, false), context);
  if (!module)
    core::fail(XPURT_ERROR_UNKNOWN, "the embedded {} is unreadable: {}", what,
               llvm::toString(module.takeError()));
  return std::move(*module);
}

}  // namespace xpurt::spirv
