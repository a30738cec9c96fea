#include "core/config.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "nvptx_lowering.hpp"
#include "ptx_compiler.hpp"
#include "spirv/builtin_lowering.hpp"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cctype>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>

#ifndef XPURT_LIBCLC_NVPTX
#define XPURT_LIBCLC_NVPTX ""
#endif
#ifndef XPURT_LIBDEVICE
#define XPURT_LIBDEVICE ""
#endif

namespace xpurt::cuda {
namespace {

// The function name in an OpenCL builtin's mangled name: "sincos" for _Z6sincosfPf.
std::optional<std::string_view> baseName(llvm::StringRef mangled) {
  if (!mangled.startswith("_Z")) return std::nullopt;
  size_t at = 2, length = 0;
  while (at < mangled.size() && std::isdigit(static_cast<unsigned char>(mangled[at])))
    length = length * 10 + static_cast<size_t>(mangled[at++] - '0');
  if (length == 0 || at + length > mangled.size()) return std::nullopt;
  return std::string_view(mangled.data() + at, length);
}

// A builtin's demangled signature with address spaces by role, the same for a SPIR-mangled
// name and a libclc NVPTX one: SPIR's generic (AS4), constant (AS2) and private pointers and
// NVPTX's unqualified ones are all "T*" (xpurt compiles SPIR's constant space as generic).
std::string signature(const std::string &mangled, bool spir) {
  std::string s = llvm::demangle(mangled);
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 3, " AS") == 0 && i + 4 < s.size() && s[i + 4] == '*') {
      char space = s[i + 3];
      if (spir && (space == '4' || space == '2'))
        out += "*";
      else if (spir ? space == '2' : space == '4')
        out += " __constant*";
      else if (space == '1')
        out += " __global*";
      else if (space == '3')
        out += " __local*";
      else
        out += s.substr(i, 5);
      i += 5;
      continue;
    }
    out += s[i++];
  }
  return out;
}

std::string libraryPath() {
  if (std::optional<std::string> path = core::envValue("XPURT_LIBCLC_NVPTX")) return *path;
  return XPURT_LIBCLC_NVPTX;
}

std::unique_ptr<llvm::Module> loadLibrary(llvm::LLVMContext &c, const std::string &name) {
  std::string path = libraryPath();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (path.empty() || !buffer)
    core::fail(XPURT_ERROR_INVALID_MODULE,
               "module '{}': libclc's NVPTX builtin library '{}' is missing: install libclc-15 "
               "(it provides nvptx64--nvidiacl.bc) or point XPURT_LIBCLC_NVPTX at that file",
               name, path.empty() ? "nvptx64--nvidiacl.bc" : path);
  auto module = llvm::getOwningLazyBitcodeModule(std::move(*buffer), c);
  if (!module)
    core::fail(XPURT_ERROR_INVALID_MODULE,
               "module '{}': libclc's NVPTX library '{}' is unreadable ({}): reinstall libclc-15",
               name, path, llvm::toString(module.takeError()));
  return std::move(*module);
}

// XPURT_LIBDEVICE names the file, or is "none" for libclc's math; else the one found at build
// time, if any.
std::string libdevicePath() {
  if (std::optional<std::string> path = core::envValue("XPURT_LIBDEVICE"))
    return *path == "none" ? std::string() : *path;
  return XPURT_LIBDEVICE;
}

// NVIDIA's libdevice, or nothing (said once in the log) where it is absent or unreadable.
std::unique_ptr<llvm::Module> loadLibdevice(llvm::LLVMContext &c) {
  std::string path = libdevicePath();
  std::unique_ptr<llvm::Module> module;
  std::string why = path.empty() ? "not used (XPURT_LIBDEVICE=none, or none found at build time)"
                                 : "not found (XPURT_LIBDEVICE names the file)";
  if (!path.empty())
    if (auto buffer = llvm::MemoryBuffer::getFile(path)) {
      auto parsed = llvm::getOwningLazyBitcodeModule(std::move(*buffer), c);
      if (parsed)
        module = std::move(*parsed);
      else
        why = "unreadable (" + llvm::toString(parsed.takeError()) + ")";
    }
  if (!module) {
    static std::once_flag said;
    std::call_once(said, [&] {
      core::log().info("CUDA: libdevice '{}' {}: math builtins use libclc's NVPTX library",
                       path.empty() ? "libdevice.10.bc" : path, why);
    });
  }
  return module;
}

// libdevice asks __nvvm_reflect for OpenCL's precision rules: denormals kept (no __CUDA_FTZ)
// and a correctly rounded sqrt (__CUDA_PREC_SQRT), on which its hypot, asinh and acosh build.
// LLVM's NVVMReflect pass, which the optimiser runs first, answers only __CUDA_FTZ and
// __CUDA_ARCH (left to it: it knows the PTX target).
void answerReflections(llvm::Module &m) {
  llvm::Function *reflect = m.getFunction("__nvvm_reflect");
  if (!reflect) return;
  std::vector<llvm::CallInst *> calls;
  for (llvm::User *u : reflect->users())
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(u)) calls.push_back(call);
  for (llvm::CallInst *call : calls) {
    auto *string =
        llvm::dyn_cast<llvm::GlobalVariable>(call->getArgOperand(0)->stripPointerCasts());
    auto *data = string && string->hasInitializer()
                     ? llvm::dyn_cast<llvm::ConstantDataSequential>(string->getInitializer())
                     : nullptr;
    if (!data || !data->isCString()) continue;
    llvm::StringRef name = data->getAsCString();
    if (name != "__CUDA_FTZ" && name != "__CUDA_PREC_SQRT") continue;
    call->replaceAllUsesWith(llvm::ConstantInt::get(call->getType(), name == "__CUDA_PREC_SQRT"));
    call->eraseFromParent();
  }
}

// What LLVM 15 compiles differently from NVIDIA's compiler in libdevice's code: nvvm.round is
// rint (halves to even: libdevice's __nv_rintf is that call alone, and nvcc selects it as
// cvt.rni), which LLVM 15's InstCombine takes for C's round (halves away from zero) and then
// expands into a trunc, a compare and a select; so each becomes llvm.rint, which the NVPTX back
// end selects as cvt.rni. And libdevice's accuracy is NVIDIA's compiler's, with multiplies and
// adds contracted to fma as nvcc does by default, which LLVM does only where an instruction
// allows it.
void adaptLibdevice(llvm::Module &m, const std::set<std::string> &libdeviceFunctions) {
  for (const char *name : {"llvm.nvvm.round.f", "llvm.nvvm.round.ftz.f", "llvm.nvvm.round.d"}) {
    llvm::Function *round = m.getFunction(name);
    if (!round) continue;
    // The ftz variant is reached only where __CUDA_FTZ is answered 1 (answerReflections answers
    // 0); rint of a denormal is a zero of its sign either way.
    round->replaceAllUsesWith(
        llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::rint, {round->getReturnType()}));
    round->eraseFromParent();
  }
  for (llvm::Function &f : m)
    if (libdeviceFunctions.count(f.getName().str()))
      for (llvm::Instruction &i : llvm::instructions(f))
        if (i.getOpcode() == llvm::Instruction::FAdd || i.getOpcode() == llvm::Instruction::FSub ||
            i.getOpcode() == llvm::Instruction::FMul)
          i.setHasAllowContract(true);
}

// work_group_barrier as bar.sync, which orders the block's shared and global memory accesses
// as barrier() must. (The other work-item functions are the CUDA builtin library's.)
void defineWorkGroupBarrier(llvm::Module &m) {
  for (llvm::Function &f : m) {
    if (!f.isDeclaration() || f.use_empty() || !f.getName().startswith("_Z18work_group_barrierj"))
      continue;
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(m.getContext(), "entry", &f));
    b.CreateCall(llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::nvvm_barrier0));
    b.CreateRetVoid();
    f.setLinkage(llvm::GlobalValue::InternalLinkage);
    f.addFnAttr(llvm::Attribute::AlwaysInline);
  }
}

// Renames the module's builtin declarations to the libraries' names for the same signatures
// (where several libraries define one, the last one's); declarations that meet under one name
// (a private and a generic pointer variant) merge. The two manglings share one namespace
// (SPIR's generic PU3AS4 is NVPTX's constant PU3AS4), so every declaration is first moved out
// of the way; those without a match get their name back.
void renameToLibrary(llvm::Module &m, std::initializer_list<llvm::Module *> libraries) {
  std::vector<std::pair<llvm::Function *, std::string>> declared;
  std::set<std::string, std::less<>> bases;
  for (llvm::Function &f : m)
    if (f.isDeclaration() && !f.use_empty() && !f.isIntrinsic())
      if (auto base = baseName(f.getName())) {
        bases.emplace(*base);
        declared.emplace_back(&f, f.getName().str());
      }
  std::map<std::string, std::string> bySignature;
  for (llvm::Module *library : libraries)
    for (llvm::Function &f : *library)
      if (auto base = baseName(f.getName()); base && bases.count(*base) && !f.isDeclaration())
        bySignature[signature(f.getName().str(), false)] = f.getName().str();
  for (auto &[f, name] : declared) f->setName("xpurt.spir." + name);
  for (auto &[f, name] : declared) {
    auto it = bySignature.find(signature(name, true));
    if (it == bySignature.end()) {
      f->setName(name);
    } else if (llvm::Function *existing = m.getFunction(it->second)) {
      if (existing->getFunctionType() == f->getFunctionType()) {
        f->replaceAllUsesWith(existing);
        f->eraseFromParent();
      } else {
        f->setName(name);
      }
    } else {
      f->setName(it->second);
    }
  }
}

// libclc's native_* functions use llvm.sin, llvm.exp2 and the like, which LLVM 15's NVPTX back
// end cannot select: their calls become calls of the library's OpenCL functions (per element,
// half through float). Returns whether any call changed.
bool replaceUnselectableMath(llvm::Module &m) {
  static const std::map<llvm::Intrinsic::ID, const char *> names = {
      {llvm::Intrinsic::sin, "3sin"},     {llvm::Intrinsic::cos, "3cos"},
      {llvm::Intrinsic::exp, "3exp"},     {llvm::Intrinsic::exp2, "4exp2"},
      {llvm::Intrinsic::log, "3log"},     {llvm::Intrinsic::log2, "4log2"},
      {llvm::Intrinsic::log10, "5log10"}, {llvm::Intrinsic::pow, "3pow"}};
  std::vector<llvm::CallInst *> calls;
  for (llvm::Function &f : m)
    if (f.isIntrinsic() && names.count(f.getIntrinsicID()))
      for (llvm::User *u : f.users())
        if (auto *call = llvm::dyn_cast<llvm::CallInst>(u)) calls.push_back(call);
  for (llvm::CallInst *call : calls) {
    llvm::IRBuilder<> b(call);
    llvm::Type *type = call->getType();
    llvm::Type *element = type->getScalarType();
    llvm::Type *t = element->isDoubleTy() ? element : b.getFloatTy();
    unsigned arity = call->arg_size();
    std::string name = std::string("_Z") + names.at(call->getIntrinsicID()) +
                       std::string(arity, t->isDoubleTy() ? 'd' : 'f');
    auto callee = m.getOrInsertFunction(
        name, llvm::FunctionType::get(t, std::vector<llvm::Type *>(arity, t), false));
    auto scalar = [&](std::vector<llvm::Value *> args) {
      for (llvm::Value *&a : args) a = b.CreateFPCast(a, t);
      return b.CreateFPCast(b.CreateCall(callee, args), element);
    };
    llvm::Value *result = nullptr;
    if (auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(type)) {
      result = llvm::PoisonValue::get(type);
      for (unsigned e = 0; e < vector->getNumElements(); ++e) {
        std::vector<llvm::Value *> args;
        for (llvm::Value *a : call->args()) args.push_back(b.CreateExtractElement(a, e));
        result = b.CreateInsertElement(result, scalar(args), e);
      }
    } else {
      result = scalar(std::vector<llvm::Value *>(call->arg_begin(), call->arg_end()));
    }
    call->replaceAllUsesWith(result);
    call->eraseFromParent();
  }
  return !calls.empty();
}

// LLVM's saturating add and subtract on 8- and 16-bit elements, which modules import from the
// translator (llvm.sadd.sat.i8, ...), computed in 32 bits and clamped: LLVM 15's NVPTX back end
// expands the narrow intrinsics wrongly (the sum of -128 and -128 as a char gave 0), as the
// CUDA builtin library's add_sat avoids for OpenCL's (builtins/conversions.cl).
void widenNarrowSaturation(llvm::Module &m) {
  std::vector<llvm::CallInst *> calls;
  for (llvm::Function &f : m) {
    llvm::Intrinsic::ID id = f.getIntrinsicID();
    if (id != llvm::Intrinsic::sadd_sat && id != llvm::Intrinsic::ssub_sat &&
        id != llvm::Intrinsic::uadd_sat && id != llvm::Intrinsic::usub_sat)
      continue;
    if (f.getReturnType()->getScalarSizeInBits() >= 32) continue;
    for (llvm::User *u : f.users())
      if (auto *call = llvm::dyn_cast<llvm::CallInst>(u)) calls.push_back(call);
  }
  for (llvm::CallInst *call : calls) {
    llvm::Intrinsic::ID id = call->getIntrinsicID();
    bool isSigned = id == llvm::Intrinsic::sadd_sat || id == llvm::Intrinsic::ssub_sat;
    bool isAdd = id == llvm::Intrinsic::sadd_sat || id == llvm::Intrinsic::uadd_sat;
    llvm::IRBuilder<> b(call);
    llvm::Type *type = call->getType();
    unsigned bits = type->getScalarSizeInBits();
    llvm::Type *wide = type->getWithNewBitWidth(32);
    auto extend = [&](llvm::Value *v) {
      return isSigned ? b.CreateSExt(v, wide) : b.CreateZExt(v, wide);
    };
    llvm::Value *x = extend(call->getArgOperand(0)), *y = extend(call->getArgOperand(1));
    llvm::Value *r = isAdd ? b.CreateAdd(x, y) : b.CreateSub(x, y);
    llvm::APInt lo = isSigned ? llvm::APInt::getSignedMinValue(bits).sext(32) : llvm::APInt(32, 0);
    llvm::APInt hi = isSigned ? llvm::APInt::getSignedMaxValue(bits).sext(32)
                              : llvm::APInt::getMaxValue(bits).zext(32);
    llvm::Value *loV = llvm::ConstantInt::get(wide, lo), *hiV = llvm::ConstantInt::get(wide, hi);
    r = b.CreateSelect(b.CreateICmpSLT(r, loV), loV, r);
    r = b.CreateSelect(b.CreateICmpSGT(r, hiV), hiV, r);
    call->replaceAllUsesWith(b.CreateTrunc(r, type));
    call->eraseFromParent();
  }
}

}  // namespace

std::string libdeviceIdentity() {
  std::string path = libdevicePath();
  llvm::sys::fs::file_status status;
  if (path.empty() || llvm::sys::fs::status(path, status) || !llvm::sys::fs::exists(status))
    return "no libdevice";
  return fmt::format("libdevice {} {} {}", path, status.getSize(),
                     status.getLastModificationTime().time_since_epoch().count());
}

void defineLaunchValueReaders(llvm::Module &m) {
  llvm::LLVMContext &c = m.getContext();
  for (const LaunchValue &value : kLaunchValues) {
    llvm::Function *f = m.getFunction(value.reader);
    if (!f || !f->isDeclaration()) continue;
    llvm::Type *element = llvm::Type::getIntNTy(c, value.bits);
    llvm::ArrayType *type = llvm::ArrayType::get(element, value.count);
    llvm::GlobalVariable *global = m.getGlobalVariable(value.global, true);
    if (!global) {
      global = new llvm::GlobalVariable(m, type, false, llvm::GlobalValue::InternalLinkage,
                                        llvm::UndefValue::get(type), value.global, nullptr,
                                        llvm::GlobalValue::NotThreadLocal, 3);
      global->setAlignment(llvm::Align(value.bits / 8));
    }
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", f));
    llvm::Value *index = b.getInt64(0);
    if (value.count > 1) {  // an index past the array reads element 0, not other memory
      llvm::Value *d = f->getArg(0);
      index = b.CreateZExt(
          b.CreateSelect(b.CreateICmpULT(d, b.getInt32(value.count)), d, b.getInt32(0)),
          b.getInt64Ty());
    }
    llvm::Value *v =
        b.CreateLoad(element, b.CreateInBoundsGEP(type, global, {b.getInt64(0), index}));
    b.CreateRet(b.CreateZExtOrTrunc(v, f->getReturnType()));
    f->setLinkage(llvm::GlobalValue::InternalLinkage);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
  }
}

std::vector<llvm::Function *> linkBuiltins(llvm::Module &m, const std::string &name) {
  defineWorkGroupBarrier(m);
  widenNarrowSaturation(m);
  if (spirv::callsLibraryBuiltins(m)) {
    std::unique_ptr<llvm::Module> library = loadLibrary(m.getContext(), name);
    std::unique_ptr<llvm::Module> own = loadCudaBuiltinLibrary(m.getContext());
    std::unique_ptr<llvm::Module> libdevice = loadLibdevice(m.getContext());
    std::unique_ptr<llvm::Module> libdeviceMath =
        libdevice ? loadLibdeviceMathLibrary(m.getContext()) : nullptr;
    // xpurt's builtins win where both define one, and its libdevice math over both. Their own
    // calls of libclc's builtins already have libclc's names (all are OpenCL C for NVPTX).
    if (libdeviceMath)
      renameToLibrary(m, {library.get(), own.get(), libdeviceMath.get()});
    else
      renameToLibrary(m, {library.get(), own.get()});
    // The library's own triple and layout, so that linking does not warn of a mismatch.
    std::string triple = m.getTargetTriple();
    llvm::DataLayout layout = m.getDataLayout();
    m.setTargetTriple(library->getTargetTriple());
    m.setDataLayout(library->getDataLayout());
    for (llvm::Module *other : {own.get(), libdevice.get(), libdeviceMath.get()}) {
      if (!other) continue;
      other->setTargetTriple(library->getTargetTriple());
      other->setDataLayout(library->getDataLayout());
    }
    auto link = [&](std::unique_ptr<llvm::Module> lib, const char *what) {
      if (llvm::Linker::linkModules(m, std::move(lib), llvm::Linker::LinkOnlyNeeded))
        core::fail(XPURT_ERROR_INVALID_MODULE, "module '{}': linking it with {} failed", name,
                   what);
    };
    // The libdevice functions replace xpurt's own ones of the same name (spirv/builtins/math.cl
    // corrects some of libclc's, which libdevice replaces too).
    if (libdeviceMath)
      for (llvm::Function &f : *libdeviceMath)
        if (llvm::Function *mine = own->getFunction(f.getName());
            mine && !mine->isDeclaration() && !f.isDeclaration() && !f.hasLocalLinkage())
          mine->deleteBody();
    link(std::move(own), "xpurt's CUDA builtin library");
    defineLaunchValueReaders(m);
    // After xpurt's library, whose half and native_ functions call the float ones.
    if (libdeviceMath) {
      link(std::move(libdeviceMath), "xpurt's libdevice math library");
      std::set<std::string> libdeviceFunctions;
      for (llvm::Function &f : *libdevice)
        if (!f.isDeclaration()) libdeviceFunctions.insert(f.getName().str());
      link(std::move(libdevice), "NVIDIA's libdevice");
      answerReflections(m);
      adaptLibdevice(m, libdeviceFunctions);
    }
    callScalarMathPerElement(m, *library);
    link(std::move(library), "libclc's NVPTX builtin library");
    if (replaceUnselectableMath(m))
      link(loadLibrary(m.getContext(), name), "libclc's NVPTX builtin library");
    m.setTargetTriple(triple);
    m.setDataLayout(layout);
  }
  // What the library lacks: xpurt's target-neutral bodies (C11 atomics, directed-rounding
  // conversions, ...); the rest is missing, as is any other function without a body.
  std::vector<llvm::Function *> missing = spirv::defineMissingBuiltins(m, false);
  std::set<llvm::Function *> known(missing.begin(), missing.end());
  for (llvm::Function &f : m)
    if (f.isDeclaration() && !f.use_empty() && !f.isIntrinsic() && f.getName() != "vprintf" &&
        f.getName() != "printf" && f.getName() != kSubGroupWidthName &&
        f.getName() != "__nvvm_reflect" && !known.count(&f))
      missing.push_back(&f);
  return missing;
}

}  // namespace xpurt::cuda
