#include "printf_vectors.hpp"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include <cctype>
#include <cstring>
#include <string>
#include <vector>

namespace xpurt::spirv {
namespace {

using llvm::IRBuilder;
using llvm::Value;

// One vector argument as C printf arguments: each element, promoted as C's varargs promote it.
void expandVector(IRBuilder<> &b, Value *v, char conversion, const std::string &length,
                  std::vector<Value *> &args) {
  auto *type = llvm::cast<llvm::FixedVectorType>(v->getType());
  bool isSigned = conversion == 'd' || conversion == 'i';
  for (unsigned e = 0; e < type->getNumElements(); ++e) {
    Value *x = b.CreateExtractElement(v, e);
    if (x->getType()->isFloatingPointTy()) {
      x = b.CreateFPExt(x, b.getDoubleTy());
    } else {
      unsigned bits = length == "l" ? 64 : 32;
      x = isSigned ? b.CreateSExtOrTrunc(x, b.getIntNTy(bits))
                   : b.CreateZExtOrTrunc(x, b.getIntNTy(bits));
    }
    args.push_back(x);
  }
}

// Rewrites `format` and `in` (the arguments after it) for C's printf. Returns false if the
// format cannot be followed (then the call is left as it is).
bool rewrite(IRBuilder<> &b, llvm::StringRef format, llvm::ArrayRef<Value *> in, std::string &out,
             std::vector<Value *> &args) {
  size_t next = 0;  // the next argument of `in`
  auto take = [&]() -> Value * { return next < in.size() ? in[next++] : nullptr; };
  for (size_t i = 0; i < format.size();) {
    char ch = format[i];
    if (ch != '%') {
      out += ch, ++i;
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      out += "%%", i += 2;
      continue;
    }
    size_t start = i++;
    std::string spec = "%";
    while (i < format.size() && std::strchr("-+ #0", format[i])) spec += format[i++];
    auto number = [&] {
      if (i < format.size() && format[i] == '*') {
        spec += format[i++];
        Value *a = take();
        if (!a) return false;
        args.push_back(a);
        return true;
      }
      while (i < format.size() && std::isdigit(static_cast<unsigned char>(format[i])))
        spec += format[i++];
      return true;
    };
    if (!number()) return false;
    if (i < format.size() && format[i] == '.') {
      spec += format[i++];
      if (!number()) return false;
    }
    unsigned width = 0;
    if (i < format.size() && format[i] == 'v') {
      ++i;
      while (i < format.size() && std::isdigit(static_cast<unsigned char>(format[i])))
        width = width * 10 + static_cast<unsigned>(format[i++] - '0');
      if (width == 0) return false;
    }
    std::string length;
    while (i < format.size() && std::strchr("hlLjzt", format[i])) length += format[i++];
    if (i >= format.size()) return false;
    char conversion = format[i++];
    Value *a = take();
    if (!a) return false;
    if (width == 0) {  // a scalar: as it is
      out += format.substr(start, i - start).str();
      args.push_back(a);
      continue;
    }
    auto *type = llvm::dyn_cast<llvm::FixedVectorType>(a->getType());
    if (!type || type->getNumElements() != width) return false;
    // OpenCL's vector length modifiers: hh char, h short (or half), hl int (or float), l long
    // (or double). C's: hh, h, none (int and double), l.
    std::string c = length == "hl" ? "" : length;
    if (type->getElementType()->isFloatingPointTy()) c = length == "l" ? "l" : "";
    for (unsigned e = 0; e < width; ++e) out += (e ? "," : "") + spec + c + conversion;
    expandVector(b, a, conversion, length, args);
  }
  return next == in.size();
}

}  // namespace

void expandPrintfVectors(llvm::Module &m) {
  llvm::Function *printf = m.getFunction("printf");
  if (!printf) return;
  std::vector<llvm::CallInst *> calls;
  for (llvm::User *u : printf->users())
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(u)) calls.push_back(call);
  int rewritten = 0;
  for (llvm::CallInst *call : calls) {
    bool hasVector = false;
    for (unsigned a = 1; a < call->arg_size(); ++a)
      hasVector = hasVector || call->getArgOperand(a)->getType()->isVectorTy();
    llvm::StringRef format;
    if (!hasVector || !llvm::getConstantStringInfo(call->getArgOperand(0), format)) continue;
    IRBuilder<> b(call);
    std::string out;
    std::vector<Value *> args;
    std::vector<Value *> in(call->arg_begin() + 1, call->arg_end());
    if (!rewrite(b, format, in, out, args)) continue;
    auto *text =
        b.CreateGlobalString(out, "printf.format." + std::to_string(rewritten++),
                             call->getArgOperand(0)->getType()->getPointerAddressSpace(), &m);
    args.insert(args.begin(), text);
    llvm::CallInst *scalar = b.CreateCall(printf->getFunctionType(), printf, args);
    scalar->setCallingConv(call->getCallingConv());
    call->replaceAllUsesWith(scalar);
    call->eraseFromParent();
  }
}

}  // namespace xpurt::spirv
