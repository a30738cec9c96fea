#include "nvptx_lowering.hpp"

#include "spirv/printf_vectors.hpp"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include <cctype>
#include <cstring>
#include <optional>
#include <string>
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

// CUDA's vprintf does not take C's hh and h length modifiers (it reads such an argument as 8
// bytes): the format loses them, and the argument is narrowed to char or short width and
// widened back to int, sign-extended for %d and %i, zero-extended otherwise, which prints
// what C's printf prints. Returns the new format, or nothing if there is nothing to change;
// `narrow` gets, per argument after the format, the bits to keep (0: as it is) and whether
// they are signed.
std::optional<std::string> dropShortLengths(llvm::StringRef format,
                                            std::vector<std::pair<unsigned, bool>> &narrow) {
  std::string out;
  bool changed = false;
  size_t arg = 0;
  for (size_t i = 0; i < format.size();) {
    if (format[i] != '%') {
      out += format[i++];
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      out += "%%", i += 2;
      continue;
    }
    out += format[i++];
    while (i < format.size() && std::strchr("-+ #0", format[i])) out += format[i++];
    auto number = [&] {
      if (i < format.size() && format[i] == '*') {
        out += format[i++];
        ++arg;
        return;
      }
      while (i < format.size() && std::isdigit(static_cast<unsigned char>(format[i])))
        out += format[i++];
    };
    number();
    if (i < format.size() && format[i] == '.') {
      out += format[i++];
      number();
    }
    std::string length;
    while (i < format.size() && std::strchr("hlLjzt", format[i])) length += format[i++];
    if (i >= format.size()) return std::nullopt;
    char conversion = format[i++];
    if ((length == "h" || length == "hh") && std::strchr("diouxX", conversion)) {
      if (narrow.size() <= arg) narrow.resize(arg + 1, {0, false});
      narrow[arg] = {length == "hh" ? 8u : 16u, conversion == 'd' || conversion == 'i'};
      changed = true;
    } else {
      out += length;
    }
    out += conversion;
    ++arg;
  }
  if (!changed) return std::nullopt;
  return out;
}

// False if the call is left as it is.
bool lowerCall(llvm::CallInst *call, llvm::FunctionCallee vprintf) {
  llvm::Function &f = *call->getFunction();
  llvm::IRBuilder<> b(call);
  llvm::Value *format = call->getArgOperand(0);
  std::vector<std::pair<unsigned, bool>> narrow;
  llvm::StringRef text;
  if (llvm::getConstantStringInfo(format, text))
    if (std::optional<std::string> plain = dropShortLengths(text, narrow))
      format = b.CreateGlobalString(*plain, "printf.format.plain",
                                    format->getType()->getPointerAddressSpace(), f.getParent());
  std::vector<llvm::Value *> args;
  std::vector<llvm::Type *> fields;
  for (unsigned a = 1; a < call->arg_size(); ++a) {
    llvm::Value *v = call->getArgOperand(a);
    if (a - 1 < narrow.size() && narrow[a - 1].first && v->getType()->isIntegerTy()) {
      auto [bits, isSigned] = narrow[a - 1];
      llvm::Value *cut = b.CreateTrunc(v, b.getIntNTy(bits));
      v = isSigned ? b.CreateSExt(cut, b.getInt32Ty()) : b.CreateZExt(cut, b.getInt32Ty());
    }
    // Vectors are left only where the format does not describe them.
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
  spirv::expandPrintfVectors(m);  // OpenCL's vector conversions (%v4f), element by element
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
