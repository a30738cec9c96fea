#include "nvptx_lowering.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include <vector>

namespace xpurt::cuda {
namespace {

// One printf argument as vprintf's buffer holds it: C's default promotions (float to double,
// small integers to int) if the compiler did not apply them, pointers as generic ones.
llvm::Value *promote(llvm::IRBuilder<> &b, llvm::Value *v) {
  llvm::Type *t = v->getType();
  if (t->isHalfTy() || t->isFloatTy()) return b.CreateFPExt(v, b.getDoubleTy());
  if (t->isIntegerTy() && t->getIntegerBitWidth() < 32) return b.CreateSExt(v, b.getInt32Ty());
  if (t->isPointerTy() && t->getPointerAddressSpace() != 0)
    return b.CreateAddrSpaceCast(v, b.getPtrTy(0));
  return v;
}

// False if the call is left as it is.
bool lowerCall(llvm::CallInst *call, llvm::FunctionCallee vprintf) {
  llvm::Function &f = *call->getFunction();
  llvm::IRBuilder<> b(call);
  std::vector<llvm::Value *> args;
  std::vector<llvm::Type *> fields;
  for (unsigned a = 1; a < call->arg_size(); ++a) {
    llvm::Value *v = call->getArgOperand(a);
    // OpenCL's vector conversions (%v4f) have no vprintf counterpart.
    if (v->getType()->isVectorTy() || v->getType()->isAggregateType()) return false;
    args.push_back(promote(b, v));
    fields.push_back(args.back()->getType());
  }
  llvm::Value *buffer = llvm::ConstantPointerNull::get(b.getPtrTy(0));
  if (!args.empty()) {
    // A plain struct aligns each field to its size, as vprintf reads them.
    auto *type = llvm::StructType::get(b.getContext(), fields);
    llvm::IRBuilder<> entry(&f.getEntryBlock(), f.getEntryBlock().begin());
    auto *slot = entry.CreateAlloca(type, nullptr, "printf.args");
    for (unsigned i = 0; i < args.size(); ++i)
      b.CreateStore(args[i], b.CreateStructGEP(type, slot, i));
    buffer = slot;
  }
  llvm::Value *format = call->getArgOperand(0);
  if (format->getType()->getPointerAddressSpace() != 0)
    format = b.CreateAddrSpaceCast(format, b.getPtrTy(0));
  llvm::Value *result = b.CreateCall(vprintf, {format, buffer});
  // OpenCL's printf returns 0, or -1 on failure; vprintf a count or a negative number.
  if (!call->use_empty()) {
    llvm::Value *failed = b.CreateICmpSLT(result, b.getInt32(0));
    call->replaceAllUsesWith(b.CreateSelect(failed, b.getInt32(-1), b.getInt32(0)));
  }
  call->eraseFromParent();
  return true;
}

}  // namespace

llvm::Function *lowerPrintfToVprintf(llvm::Module &m) {
  llvm::Function *printf = m.getFunction("printf");
  if (!printf) return nullptr;
  llvm::LLVMContext &c = m.getContext();
  llvm::FunctionCallee vprintf = m.getOrInsertFunction(
      "vprintf",
      llvm::FunctionType::get(llvm::Type::getInt32Ty(c),
                              {llvm::PointerType::get(c, 0), llvm::PointerType::get(c, 0)}, false));
  std::vector<llvm::CallInst *> calls;
  for (llvm::User *u : printf->users())
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(u); call && call->getCalledFunction() == printf)
      calls.push_back(call);
  for (llvm::CallInst *call : calls) lowerCall(call, vprintf);
  if (!printf->use_empty()) return printf;
  printf->eraseFromParent();
  return nullptr;
}

}  // namespace xpurt::cuda
