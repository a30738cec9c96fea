#include "nvptx_lowering.hpp"

#include <llvm/ADT/StringSet.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/Support/Error.h>

#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace xpurt::cuda {
namespace {

// A vector math function whose body is smaller per element keeps it (fabs, fmin, mad, exp,
// ...): there a call per element would be a large share of the work. Above it, calls cost a
// kernel of sin, cos and pow on float4 4.5 % (docs/history/performance-log.md, CUDA).
constexpr unsigned kMinInstructionsPerElement = 64;

// OpenCL C's math functions: each applies to a vector element by element (6.15.2), which the
// relational ones do not (a true vector comparison is -1, a scalar one 1).
bool isElementWiseMath(llvm::StringRef name) {
  static const llvm::StringSet<> math = {
      "acos",  "acosh",  "acospi",  "asin",      "asinh",    "asinpi",   "atan",  "atan2",
      "atanh", "atanpi", "atan2pi", "cbrt",      "ceil",     "copysign", "cos",   "cosh",
      "cospi", "erfc",   "erf",     "exp",       "exp2",     "exp10",    "expm1", "fabs",
      "fdim",  "floor",  "fma",     "fmax",      "fmin",     "fmod",     "fract", "frexp",
      "hypot", "ilogb",  "ldexp",   "lgamma",    "lgamma_r", "log",      "log2",  "log10",
      "log1p", "logb",   "mad",     "maxmag",    "minmag",   "modf",     "nan",   "nextafter",
      "pow",   "pown",   "powr",    "remainder", "remquo",   "rint",     "rootn", "round",
      "rsqrt", "sin",    "sincos",  "sinh",      "sinpi",    "sqrt",     "tan",   "tanh",
      "tanpi", "tgamma", "trunc"};
  name.consume_front("half_");
  name.consume_front("native_");
  return math.contains(name);
}

// A scalar element type as the demangler spells it.
llvm::Type *elementTypeNamed(llvm::LLVMContext &c, const std::string &name) {
  if (name == "float") return llvm::Type::getFloatTy(c);
  if (name == "double") return llvm::Type::getDoubleTy(c);
  if (name == "half") return llvm::Type::getHalfTy(c);
  if (name == "int" || name == "unsigned int") return llvm::Type::getInt32Ty(c);
  return nullptr;
}

// The demangled signatures of the library's scalar functions, built when the first vector
// function needs one (about 10 ms for libclc's 9,700 functions).
class ScalarOverloads {
 public:
  explicit ScalarOverloads(const llvm::Module &library) {
    for (const llvm::Function &f : library)
      if (!f.isDeclaration() && !f.getReturnType()->isVectorTy() && f.getName().startswith("_Z"))
        bySignature_.emplace(llvm::demangle(f.getName().str()), &f);
  }
  const llvm::Function *find(const std::string &signature) const {
    auto it = bySignature_.find(signature);
    return it == bySignature_.end() ? nullptr : it->second;
  }

 private:
  std::map<std::string, const llvm::Function *> bySignature_;
};

// The element type a vector pointer parameter points to ("int vector[16]*" -> i32), one per
// parameter (nullptr where a parameter is no pointer); nullopt if one is not understood.
std::optional<std::vector<llvm::Type *>> pointeeElements(llvm::LLVMContext &c,
                                                         const std::string &signature,
                                                         size_t params) {
  size_t open = signature.find('('), close = signature.rfind(')');
  if (open == std::string::npos || close == std::string::npos) return std::nullopt;
  std::vector<llvm::Type *> out;
  std::string list = signature.substr(open + 1, close - open - 1);
  static const std::regex pointer(R"(^\s*(.*?) vector\[\d+\](?: AS\d)?\*$)");
  for (size_t start = 0; start <= list.size();) {
    size_t comma = list.find(',', start);
    std::string param =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::smatch match;
    llvm::Type *element = nullptr;
    if (param.find('*') != std::string::npos &&
        !(std::regex_match(param, match, pointer) && (element = elementTypeNamed(c, match[1]))))
      return std::nullopt;
    out.push_back(element);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.size() != params) return std::nullopt;
  return out;
}

// Gives `vector` (a declaration in m) a body that calls `scalar` once per element; leaves m
// unchanged where the two do not correspond element by element.
void defineByElements(llvm::Module &m, llvm::Function &vector, const llvm::Function &scalar,
                      const std::vector<llvm::Type *> &pointees) {
  auto *type = llvm::dyn_cast<llvm::FixedVectorType>(vector.getReturnType());
  llvm::FunctionType *scalarType = scalar.getFunctionType();
  if (!type || scalarType->getReturnType() != type->getElementType() ||
      scalarType->getNumParams() != vector.arg_size())
    return;
  unsigned lanes = type->getNumElements();
  for (unsigned p = 0; p < vector.arg_size(); ++p) {
    llvm::Type *from = vector.getArg(p)->getType(), *to = scalarType->getParamType(p);
    auto *lanesOf = llvm::dyn_cast<llvm::FixedVectorType>(from);
    bool fits = pointees[p] ? from == to && from->isPointerTy()
                : lanesOf   ? lanesOf->getNumElements() == lanes && lanesOf->getElementType() == to
                            : from == to;
    if (!fits) return;
  }
  llvm::FunctionCallee callee = m.getOrInsertFunction(scalar.getName(), scalarType);
  auto *entry = llvm::BasicBlock::Create(m.getContext(), "entry", &vector);
  llvm::IRBuilder<> b(entry);
  llvm::Value *result = llvm::PoisonValue::get(type);
  for (unsigned lane = 0; lane < lanes; ++lane) {
    std::vector<llvm::Value *> args;
    for (unsigned p = 0; p < vector.arg_size(); ++p) {
      llvm::Value *a = vector.getArg(p);
      if (pointees[p])
        args.push_back(b.CreateConstInBoundsGEP1_32(pointees[p], a, lane));
      else if (a->getType()->isVectorTy())
        args.push_back(b.CreateExtractElement(a, lane));
      else
        args.push_back(a);
    }
    llvm::CallInst *call = b.CreateCall(callee, args);
    // One body per element is what this avoids: the scalar function stays a function here,
    // wherever else it is inlined.
    call->addFnAttr(llvm::Attribute::NoInline);
    result = b.CreateInsertElement(result, call, lane);
  }
  b.CreateRet(result);
  vector.setLinkage(llvm::GlobalValue::InternalLinkage);
  vector.addFnAttr(llvm::Attribute::AlwaysInline);
}

}  // namespace

void callScalarMathPerElement(llvm::Module &m, llvm::Module &library) {
  static const std::regex lanes(R"( vector\[\d+\])");
  std::optional<ScalarOverloads> scalars;
  for (llvm::Function &f : m) {
    if (!f.isDeclaration() || f.use_empty() || !f.getReturnType()->isVectorTy()) continue;
    llvm::Function *body = library.getFunction(f.getName());
    if (!body || body->isDeclaration()) continue;
    std::string signature = llvm::demangle(f.getName().str());
    std::string name = signature.substr(0, signature.find('('));
    if (!isElementWiseMath(name)) continue;
    unsigned elements = llvm::cast<llvm::FixedVectorType>(f.getReturnType())->getNumElements();
    // The library is read lazily: its size is known once the body is read.
    if (llvm::Error error = body->materialize()) {
      llvm::consumeError(std::move(error));
      continue;
    }
    if (body->getInstructionCount() < elements * kMinInstructionsPerElement) continue;
    if (!scalars) scalars.emplace(library);
    const llvm::Function *scalar = scalars->find(std::regex_replace(signature, lanes, ""));
    auto pointees = pointeeElements(m.getContext(), signature, f.arg_size());
    if (scalar && pointees) defineByElements(m, f, *scalar, *pointees);
  }
}

}  // namespace xpurt::cuda
