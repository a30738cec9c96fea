#include "printf_lowering.hpp"

#include "spirv/printf_vectors.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include <vector>

namespace xpurt::cpu {

void lowerPrintf(llvm::Module &m) {
  spirv::expandPrintfVectors(m);
  llvm::Function *printf = m.getFunction("printf");
  if (!printf) return;
  std::vector<llvm::CallInst *> calls;
  for (llvm::User *u : printf->users())
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(u)) calls.push_back(call);
  for (llvm::CallInst *result : calls) {
    if (result->use_empty()) continue;
    llvm::IRBuilder<> b(result->getNextNode());
    llvm::Type *t = result->getType();
    auto *failed = llvm::cast<llvm::Instruction>(
        b.CreateICmpSLT(result, llvm::ConstantInt::get(t, 0), "printf.failed"));
    llvm::Value *mapped =
        b.CreateSelect(failed, llvm::ConstantInt::get(t, -1, true), llvm::ConstantInt::get(t, 0));
    result->replaceUsesWithIf(mapped, [&](llvm::Use &use) { return use.getUser() != failed; });
  }
}

}  // namespace xpurt::cpu
