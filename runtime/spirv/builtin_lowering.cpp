#include "builtin_lowering.hpp"

#include "core/error.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include <cctype>
#include <functional>
#include <map>
#include <optional>

namespace xpurt::spirv {
namespace {

using llvm::IRBuilder;
using llvm::Value;

// The parts of an Itanium-mangled OpenCL builtin name that the bodies below need.
struct Mangled {
  std::string name;
  std::vector<char> elementCodes;  // per parameter: 'f', 'd', 'h'(alf: 'H'), 'i', 'j', ...
};

// Parses one parameter type at `at`, appending its element code; substitutions (S_, S0_)
// repeat earlier vector types.
bool parseType(const std::string &s, size_t &at, std::vector<std::string> &subs,
               std::vector<char> &codes) {
  size_t start = at;
  if (at >= s.size()) return false;
  if (s.compare(at, 2, "Dv") == 0) {  // Dv<N>_<element>
    at += 2;
    while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at]))) ++at;
    if (at >= s.size() || s[at] != '_') return false;
    ++at;
    std::vector<char> inner;
    if (!parseType(s, at, subs, inner)) return false;
    codes.push_back(inner.back());
    subs.push_back(s.substr(start, at - start));
    return true;
  }
  if (s.compare(at, 2, "Dh") == 0) {
    at += 2;
    codes.push_back('H');
    return true;
  }
  if (s[at] == 'S') {  // S_ is substitution 0, S<n>_ is n + 1 (base 36)
    size_t end = s.find('_', at);
    if (end == std::string::npos) return false;
    size_t index = end == at + 1 ? 0 : std::stoul(s.substr(at + 1, end - at - 1), nullptr, 36) + 1;
    at = end + 1;
    if (index >= subs.size()) return false;
    size_t sub = 0;
    std::vector<std::string> unused;
    return parseType(subs[index], sub, unused, codes);
  }
  // Pointers, qualifiers and vendor qualifiers (U3AS1 for address spaces, U7_Atomic): each is a
  // substitution candidate of its own, after the type it qualifies.
  if (s[at] == 'P' || s[at] == 'K' || s[at] == 'V' || s[at] == 'U') {
    if (s[at++] == 'U') {
      size_t len = 0;
      while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at])))
        len = len * 10 + static_cast<size_t>(s[at++] - '0');
      at += len;
    }
    bool ok = parseType(s, at, subs, codes);
    subs.push_back(s.substr(start, at - start));
    return ok;
  }
  codes.push_back(s[at++]);
  return true;
}

std::optional<Mangled> demangle(llvm::StringRef full) {
  std::string s = full.str();
  if (s.rfind("_Z", 0) != 0) return std::nullopt;
  size_t at = 2, len = 0;
  while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at])))
    len = len * 10 + static_cast<size_t>(s[at++] - '0');
  if (len == 0 || at + len > s.size()) return std::nullopt;
  Mangled m;
  m.name = s.substr(at, len);
  at += len;
  std::vector<std::string> subs;
  while (at < s.size() && s.compare(at, 1, "v") != 0)
    if (!parseType(s, at, subs, m.elementCodes)) return std::nullopt;
  return m;
}

bool isSignedCode(char c) {
  return c == 'a' || c == 'c' || c == 's' || c == 'i' || c == 'l';
}

llvm::Type *elementType(llvm::Type *t) {
  return t->getScalarType();
}

// A comparison result as OpenCL returns it: 1/0 for scalars, -1/0 for vectors.
Value *relational(IRBuilder<> &b, Value *cond, llvm::Type *resultType) {
  return resultType->isVectorTy() ? b.CreateSExt(cond, resultType) : b.CreateZExt(cond, resultType);
}

Value *intrinsic(IRBuilder<> &b, llvm::Intrinsic::ID id, llvm::ArrayRef<Value *> args) {
  return b.CreateIntrinsic(id, {args[0]->getType()}, args);
}

Value *msbSet(IRBuilder<> &b, Value *v) {
  return b.CreateICmpSLT(v, llvm::Constant::getNullValue(v->getType()));
}

using Body = std::function<Value *(IRBuilder<> &, llvm::Function &, const Mangled &)>;

Value *arg(llvm::Function &f, unsigned i) {
  return f.getArg(i);
}

Value *mulHi(IRBuilder<> &b, Value *x, Value *y, bool isSigned) {
  auto *t = x->getType();
  unsigned bits = elementType(t)->getIntegerBitWidth();
  llvm::Type *wide = llvm::IntegerType::get(b.getContext(), 2 * bits);
  if (auto *v = llvm::dyn_cast<llvm::VectorType>(t))
    wide = llvm::VectorType::get(wide, v->getElementCount());
  auto ext = [&](Value *a) { return isSigned ? b.CreateSExt(a, wide) : b.CreateZExt(a, wide); };
  Value *product = b.CreateMul(ext(x), ext(y));
  return b.CreateTrunc(b.CreateLShr(product, llvm::ConstantInt::get(wide, bits)), t);
}

// OpenCL 1.x atomics (atomic_*, atom_*) and the C11-style ones (atomic_fetch_*, atomic_load,
// atomic_store, atomic_exchange, atomic_compare_exchange_*), sequentially consistent: on x86
// every locked read-modify-write is a full barrier anyway.
Value *atomic(IRBuilder<> &b, llvm::Function &f, const Mangled &m) {
  std::string name = m.name;
  if (name.rfind("atom_", 0) == 0) name = "atomic_" + name.substr(5);
  if (name.size() > 9 && name.compare(name.size() - 9, 9, "_explicit") == 0)
    name = name.substr(0, name.size() - 9);
  auto order = llvm::AtomicOrdering::SequentiallyConsistent;
  Value *p = arg(f, 0);
  bool isSigned = isSignedCode(m.elementCodes.at(0));
  llvm::Type *t = f.getReturnType();
  auto rmw = [&](llvm::AtomicRMWInst::BinOp op, Value *v) -> Value * {
    return b.CreateAtomicRMW(op, p, v, llvm::MaybeAlign(), order);
  };
  using Op = llvm::AtomicRMWInst::BinOp;
  static const std::map<std::string, std::pair<Op, Op>> binary = {
      {"add", {Op::Add, Op::Add}},    {"sub", {Op::Sub, Op::Sub}},
      {"xchg", {Op::Xchg, Op::Xchg}}, {"exchange", {Op::Xchg, Op::Xchg}},
      {"and", {Op::And, Op::And}},    {"or", {Op::Or, Op::Or}},
      {"xor", {Op::Xor, Op::Xor}},    {"min", {Op::Min, Op::UMin}},
      {"max", {Op::Max, Op::UMax}}};
  std::string op = name.rfind("atomic_fetch_", 0) == 0 ? name.substr(13) : name.substr(7);
  if (auto it = binary.find(op); it != binary.end()) {
    Value *v = arg(f, 1);
    Op o = isSigned ? it->second.first : it->second.second;
    if (v->getType()->isFloatingPointTy()) {  // cl_ext_float_atomics, SPV_EXT_shader_atomic_float
      static const std::map<Op, Op> floating = {
          {Op::Add, Op::FAdd},  {Op::Sub, Op::FSub}, {Op::Xchg, Op::Xchg}, {Op::Min, Op::FMin},
          {Op::UMin, Op::FMin}, {Op::Max, Op::FMax}, {Op::UMax, Op::FMax}};
      auto fo = floating.find(o);
      return fo == floating.end() ? nullptr : rmw(fo->second, v);
    }
    return rmw(o, v);
  }
  if (op == "inc") return rmw(Op::Add, llvm::ConstantInt::get(t, 1));
  if (op == "dec") return rmw(Op::Sub, llvm::ConstantInt::get(t, 1));
  if (op == "cmpxchg") {
    auto *x = b.CreateAtomicCmpXchg(p, arg(f, 1), arg(f, 2), llvm::MaybeAlign(), order, order);
    return b.CreateExtractValue(x, 0);
  }
  return nullptr;
}

// C11-style atomics that need more than one instruction.
Value *atomicC11(IRBuilder<> &b, llvm::Function &f, const Mangled &m) {
  std::string name = m.name;
  auto order = llvm::AtomicOrdering::SequentiallyConsistent;
  if (name.rfind("atomic_load", 0) == 0) {
    auto *load = b.CreateLoad(f.getReturnType(), arg(f, 0));
    load->setAtomic(order);
    load->setAlignment(llvm::Align(f.getReturnType()->getPrimitiveSizeInBits() / 8));
    return load;
  }
  if (name.rfind("atomic_store", 0) == 0 || name == "atomic_init") {
    auto *store = b.CreateStore(arg(f, 1), arg(f, 0));
    store->setAtomic(order);
    store->setAlignment(llvm::Align(arg(f, 1)->getType()->getPrimitiveSizeInBits() / 8));
    return llvm::UndefValue::get(f.getReturnType());  // void: replaced by ret void
  }
  if (name.rfind("atomic_compare_exchange_", 0) == 0) {
    // bool atomic_compare_exchange_*(object, expected*, desired, ...): on failure *expected
    // receives the current value.
    Value *expectedPtr = arg(f, 1);
    llvm::Type *t = arg(f, 2)->getType();
    Value *expected = b.CreateLoad(t, expectedPtr);
    auto *x =
        b.CreateAtomicCmpXchg(arg(f, 0), expected, arg(f, 2), llvm::MaybeAlign(), order, order);
    Value *ok = b.CreateExtractValue(x, 1);
    b.CreateStore(b.CreateExtractValue(x, 0), expectedPtr);
    return b.CreateZExt(ok, f.getReturnType());
  }
  return nullptr;
}

enum class Rounding { Nearest, TowardZero, Down, Up };

Rounding roundingOf(const std::string &name, Rounding otherwise) {
  if (name.find("_rte") != std::string::npos) return Rounding::Nearest;
  if (name.find("_rtz") != std::string::npos) return Rounding::TowardZero;
  if (name.find("_rtn") != std::string::npos) return Rounding::Down;
  if (name.find("_rtp") != std::string::npos) return Rounding::Up;
  return otherwise;
}

// An integer to floating point with directed rounding: the magnitude is cut to the
// destination's significant digits in integer arithmetic (rounding up by one unit in the last
// kept place where the mode asks and bits were dropped), which then converts exactly.
Value *intToFloatDirected(IRBuilder<> &b, Value *x, llvm::Type *to, bool isSigned, Rounding mode) {
  llvm::Type *it = x->getType();
  unsigned bits = elementType(it)->getIntegerBitWidth();
  unsigned digits = static_cast<unsigned>(elementType(to)->getFPMantissaWidth());
  if (bits - (isSigned ? 1 : 0) <= digits)  // every value is exact
    return isSigned ? b.CreateSIToFP(x, to) : b.CreateUIToFP(x, to);
  auto c = [&](llvm::Type *t, uint64_t v) { return llvm::ConstantInt::get(t, v); };
  Value *zero = llvm::Constant::getNullValue(it);
  Value *negative = isSigned ? b.CreateICmpSLT(x, zero)
                             : llvm::Constant::getNullValue(b.CreateICmpSLT(x, zero)->getType());
  // |x| as an unsigned number: -INT_MIN wraps to 2^(bits-1), its magnitude.
  Value *magnitude = isSigned ? b.CreateSelect(negative, b.CreateSub(zero, x), x) : x;
  Value *leading = b.CreateIntrinsic(llvm::Intrinsic::ctlz, {it}, {magnitude, b.getFalse()});
  Value *shift = intrinsic(b, llvm::Intrinsic::usub_sat, {c(it, bits - digits), leading});
  Value *mask = b.CreateSub(b.CreateShl(c(it, 1), shift), c(it, 1));
  Value *dropped = b.CreateICmpNE(b.CreateAnd(magnitude, mask), zero);
  Value *kept = b.CreateAnd(magnitude, b.CreateNot(mask));
  Value *away = mode == Rounding::Up     ? b.CreateNot(negative)
                : mode == Rounding::Down ? negative
                                         : llvm::Constant::getNullValue(negative->getType());
  // kept and one unit in its last place (a power of two) both convert exactly, and so does
  // their sum, even where it carries into a new power of two.
  Value *unit = b.CreateUIToFP(b.CreateAdd(mask, c(it, 1)), to);
  Value *r = b.CreateFAdd(b.CreateUIToFP(kept, to), b.CreateSelect(b.CreateAnd(away, dropped), unit,
                                                                   llvm::ConstantFP::get(to, 0.0)));
  // Past the largest finite value (half only): infinity if rounding away from zero, else the
  // largest finite value.
  Value *inf = llvm::ConstantFP::getInfinity(to);
  Value *largest =
      llvm::ConstantFP::get(to, llvm::APFloat::getLargest(elementType(to)->getFltSemantics()));
  r = b.CreateSelect(b.CreateAnd(b.CreateNot(away), b.CreateFCmpOEQ(r, inf)), largest, r);
  return b.CreateSelect(negative, b.CreateFNeg(r), r);
}

// A narrowing floating-point conversion with directed rounding: to nearest, then one step
// toward the mode's direction where that went the wrong way.
Value *narrowDirected(IRBuilder<> &b, Value *x, llvm::Type *to, Rounding mode) {
  Value *r = b.CreateFPTrunc(x, to);
  Value *back = b.CreateFPExt(r, x->getType());
  llvm::Type *it = llvm::IntegerType::get(
      b.getContext(), static_cast<unsigned>(elementType(to)->getPrimitiveSizeInBits()));
  if (auto *v = llvm::dyn_cast<llvm::VectorType>(to))
    it = llvm::VectorType::get(it, v->getElementCount());
  Value *bits = b.CreateBitCast(r, it);
  Value *one = llvm::ConstantInt::get(it, 1);
  Value *zero = llvm::ConstantFP::get(to, 0.0);
  Value *fix = nullptr, *stepped = nullptr;
  switch (mode) {
    case Rounding::TowardZero:  // |r| > |x|: one step toward zero
      fix = b.CreateFCmpOGT(intrinsic(b, llvm::Intrinsic::fabs, {back}),
                            intrinsic(b, llvm::Intrinsic::fabs, {x}));
      stepped = b.CreateSub(bits, one);
      break;
    case Rounding::Down:  // r > x: one step down
      fix = b.CreateFCmpOGT(back, x);
      stepped =
          b.CreateSelect(b.CreateFCmpOGT(r, zero), b.CreateSub(bits, one), b.CreateAdd(bits, one));
      break;
    case Rounding::Up:  // r < x: one step up
      fix = b.CreateFCmpOLT(back, x);
      stepped =
          b.CreateSelect(b.CreateFCmpOLT(r, zero), b.CreateSub(bits, one), b.CreateAdd(bits, one));
      break;
    case Rounding::Nearest:
      return r;
  }
  // -0.0 stepped up is the smallest positive denormal, not a negative one.
  if (mode == Rounding::Up) stepped = b.CreateSelect(b.CreateFCmpOEQ(r, zero), one, stepped);
  return b.CreateSelect(fix, b.CreateBitCast(stepped, to), r);
}

// convert_<type>[_sat][_rte|_rtz|_rtp|_rtn]: the destination is the function's return type.
Value *convert(IRBuilder<> &b, llvm::Function &f, const Mangled &m) {
  Value *x = arg(f, 0);
  llvm::Type *to = f.getReturnType();
  std::string name = m.name;
  bool sat = name.find("_sat") != std::string::npos;
  bool toSigned = name.rfind("convert_u", 0) != 0;
  bool fromSigned = isSignedCode(m.elementCodes.at(0));
  llvm::Type *fromElem = elementType(x->getType()), *toElem = elementType(to);
  // The default: to nearest into floating point, toward zero into an integer.
  Rounding mode =
      roundingOf(name, toElem->isFloatingPointTy() ? Rounding::Nearest : Rounding::TowardZero);
  if (fromElem->isFloatingPointTy() && toElem->isFloatingPointTy()) {
    if (toElem->getPrimitiveSizeInBits() < fromElem->getPrimitiveSizeInBits() &&
        mode != Rounding::Nearest)
      return narrowDirected(b, x, to, mode);
    return b.CreateFPCast(x, to);
  }
  if (fromElem->isIntegerTy() && toElem->isFloatingPointTy()) {
    if (mode != Rounding::Nearest) return intToFloatDirected(b, x, to, fromSigned, mode);
    return fromSigned ? b.CreateSIToFP(x, to) : b.CreateUIToFP(x, to);
  }
  if (fromElem->isFloatingPointTy()) {  // to an integer: round as asked
    static const std::map<Rounding, llvm::Intrinsic::ID> rounding = {
        {Rounding::Nearest, llvm::Intrinsic::rint},
        {Rounding::TowardZero, llvm::Intrinsic::trunc},
        {Rounding::Down, llvm::Intrinsic::floor},
        {Rounding::Up, llvm::Intrinsic::ceil}};
    Value *r = intrinsic(b, rounding.at(mode), {x});
    if (sat)
      return b.CreateIntrinsic(toSigned ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat,
                               {to, x->getType()}, {r});
    return toSigned ? b.CreateFPToSI(r, to) : b.CreateFPToUI(r, to);
  }
  // Integer to integer; with _sat, clamp to the destination's range first.
  unsigned fromBits = fromElem->getIntegerBitWidth(), toBits = toElem->getIntegerBitWidth();
  if (sat) {
    unsigned bits = std::max(fromBits, toBits) + 1;
    llvm::Type *wide = x->getType()->getWithNewBitWidth(bits);
    Value *w = fromSigned ? b.CreateSExt(x, wide) : b.CreateZExt(x, wide);
    llvm::APInt lo =
        toSigned ? llvm::APInt::getSignedMinValue(toBits).sext(bits) : llvm::APInt::getZero(bits);
    llvm::APInt hi = toSigned ? llvm::APInt::getSignedMaxValue(toBits).sext(bits)
                              : llvm::APInt::getMaxValue(toBits).zext(bits);
    w = intrinsic(b, llvm::Intrinsic::smax, {w, llvm::ConstantInt::get(wide, lo)});
    w = intrinsic(b, llvm::Intrinsic::smin, {w, llvm::ConstantInt::get(wide, hi)});
    return b.CreateTrunc(w, to);
  }
  if (toBits <= fromBits) return b.CreateTrunc(x, to);
  return fromSigned ? b.CreateSExt(x, to) : b.CreateZExt(x, to);
}

const std::map<std::string, Body> &bodies() {
  using I = llvm::Intrinsic::ID;
  auto unary = [](I id) {
    return Body([id](IRBuilder<> &b, llvm::Function &f, const Mangled &) {
      return intrinsic(b, id, {arg(f, 0)});
    });
  };
  auto binary = [](I id) {
    return Body([id](IRBuilder<> &b, llvm::Function &f, const Mangled &) {
      return intrinsic(b, id, {arg(f, 0), arg(f, 1)});
    });
  };
  auto integer = [](I signedId, I unsignedId) {
    return Body([=](IRBuilder<> &b, llvm::Function &f, const Mangled &m) {
      return intrinsic(b, isSignedCode(m.elementCodes.at(0)) ? signedId : unsignedId,
                       {arg(f, 0), arg(f, 1)});
    });
  };
  static const std::map<std::string, Body> table = {
      {"sqrt", unary(llvm::Intrinsic::sqrt)},
      {"fabs", unary(llvm::Intrinsic::fabs)},
      {"floor", unary(llvm::Intrinsic::floor)},
      {"ceil", unary(llvm::Intrinsic::ceil)},
      {"trunc", unary(llvm::Intrinsic::trunc)},
      {"rint", unary(llvm::Intrinsic::rint)},
      {"round", unary(llvm::Intrinsic::round)},
      {"copysign", binary(llvm::Intrinsic::copysign)},
      {"fmin", binary(llvm::Intrinsic::minnum)},
      {"fmax", binary(llvm::Intrinsic::maxnum)},
      {"fma",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &) {
         return intrinsic(b, llvm::Intrinsic::fma, {arg(f, 0), arg(f, 1), arg(f, 2)});
       }},
      {"mad",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &) {
         return intrinsic(b, llvm::Intrinsic::fmuladd, {arg(f, 0), arg(f, 1), arg(f, 2)});
       }},
      {"rsqrt",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &) {
         Value *x = arg(f, 0);
         return b.CreateFDiv(llvm::ConstantFP::get(x->getType(), 1.0),
                             intrinsic(b, llvm::Intrinsic::sqrt, {x}));
       }},
      {"native_recip",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &) {
         return b.CreateFDiv(llvm::ConstantFP::get(arg(f, 0)->getType(), 1.0), arg(f, 0));
       }},
      {"native_divide", [](IRBuilder<> &b, llvm::Function &f,
                           const Mangled &) { return b.CreateFDiv(arg(f, 0), arg(f, 1)); }},
      {"nextafter",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &) -> Value * {
         llvm::Type *t = arg(f, 0)->getType();
         if (t->isVectorTy()) return nullptr;
         const char *libm = t->isDoubleTy() ? "nextafter" : "nextafterf";
         auto callee = f.getParent()->getOrInsertFunction(libm, t, t, t);
         return b.CreateCall(callee, {arg(f, 0), arg(f, 1)});
       }},
      {"isnan",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &) {
         return relational(b, b.CreateFCmpUNO(arg(f, 0), arg(f, 0)), f.getReturnType());
       }},
      {"isinf",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &) {
         Value *x = arg(f, 0);
         Value *inf = llvm::ConstantFP::getInfinity(x->getType());
         return relational(b, b.CreateFCmpOEQ(intrinsic(b, llvm::Intrinsic::fabs, {x}), inf),
                           f.getReturnType());
       }},
      {"select",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &) {
         Value *c = arg(f, 2);
         Value *cond = c->getType()->isVectorTy()
                           ? msbSet(b, c)
                           : b.CreateICmpNE(c, llvm::Constant::getNullValue(c->getType()));
         return b.CreateSelect(cond, arg(f, 1), arg(f, 0));
       }},
      {"all",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &) {
         Value *m = msbSet(b, arg(f, 0));
         if (m->getType()->isVectorTy()) m = b.CreateAndReduce(m);
         return b.CreateZExt(m, f.getReturnType());
       }},
      {"any",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &) {
         Value *m = msbSet(b, arg(f, 0));
         if (m->getType()->isVectorTy()) m = b.CreateOrReduce(m);
         return b.CreateZExt(m, f.getReturnType());
       }},
      {"min", integer(llvm::Intrinsic::smin, llvm::Intrinsic::umin)},
      {"max", integer(llvm::Intrinsic::smax, llvm::Intrinsic::umax)},
      {"add_sat", integer(llvm::Intrinsic::sadd_sat, llvm::Intrinsic::uadd_sat)},
      {"sub_sat", integer(llvm::Intrinsic::ssub_sat, llvm::Intrinsic::usub_sat)},
      {"clamp",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &m) {
         Value *x = arg(f, 0), *lo = arg(f, 1), *hi = arg(f, 2);
         if (elementType(x->getType())->isFloatingPointTy())
           return intrinsic(b, llvm::Intrinsic::minnum,
                            {intrinsic(b, llvm::Intrinsic::maxnum, {x, lo}), hi});
         bool s = isSignedCode(m.elementCodes.at(0));
         Value *low = intrinsic(b, s ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, {x, lo});
         return intrinsic(b, s ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, {low, hi});
       }},
      {"abs",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &m) -> Value * {
         Value *x = arg(f, 0);
         if (!isSignedCode(m.elementCodes.at(0))) return x;
         return b.CreateIntrinsic(llvm::Intrinsic::abs, {x->getType()}, {x, b.getFalse()});
       }},
      {"clz",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &) -> Value * {
         Value *x = arg(f, 0);
         return b.CreateIntrinsic(llvm::Intrinsic::ctlz, {x->getType()}, {x, b.getFalse()});
       }},
      {"popcount", unary(llvm::Intrinsic::ctpop)},
      // The work-items of a group run one after another on one thread: only other threads
      // (other groups) can observe the order, and a full fence orders everything for them.
      {"atomic_work_item_fence",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &) -> Value * {
         b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
         return llvm::UndefValue::get(f.getReturnType());
       }},
      {"mul_hi",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &m) {
         return mulHi(b, arg(f, 0), arg(f, 1), isSignedCode(m.elementCodes.at(0)));
       }},
      {"upsample",
       [](IRBuilder<> &b, llvm::Function &f, const Mangled &) {
         llvm::Type *to = f.getReturnType();
         unsigned bits = elementType(arg(f, 0)->getType())->getIntegerBitWidth();
         Value *hi = b.CreateShl(b.CreateZExt(arg(f, 0), to), llvm::ConstantInt::get(to, bits));
         return b.CreateOr(hi, b.CreateZExt(arg(f, 1), to));
       }},
  };
  return table;
}

}  // namespace

bool redirectGenericPointers(llvm::Module &m) {
  std::vector<llvm::Function *> generic;
  for (llvm::Function &f : m)
    if (f.isDeclaration() && !f.use_empty() && f.getName().startswith("_Z") &&
        f.getName().contains("PU3AS4"))
      generic.push_back(&f);
  for (llvm::Function *f : generic) {
    std::string name = f->getName().str();
    for (size_t at; (at = name.find("PU3AS4")) != std::string::npos;) name[at + 5] = '1';
    std::vector<llvm::Type *> params;
    for (llvm::Type *t : f->getFunctionType()->params())
      params.push_back(t->isPointerTy() && t->getPointerAddressSpace() == 4
                           ? llvm::PointerType::get(m.getContext(), 1)
                           : t);
    auto global = m.getOrInsertFunction(
        name, llvm::FunctionType::get(f->getReturnType(), params, false), f->getAttributes());
    auto *entry = llvm::BasicBlock::Create(m.getContext(), "entry", f);
    IRBuilder<> b(entry);
    std::vector<Value *> args;
    for (llvm::Argument &a : f->args())
      args.push_back(a.getType()->isPointerTy() && a.getType()->getPointerAddressSpace() == 4
                         ? b.CreateAddrSpaceCast(&a, llvm::PointerType::get(m.getContext(), 1))
                         : static_cast<Value *>(&a));
    Value *r = b.CreateCall(global, args);
    if (f->getReturnType()->isVoidTy())
      b.CreateRetVoid();
    else
      b.CreateRet(r);
    f->setLinkage(llvm::GlobalValue::InternalLinkage);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
  }
  return !generic.empty();
}

void defineVectorizableMath(llvm::Module &m) {
  static const std::map<std::string, llvm::Intrinsic::ID> math = {{"sin", llvm::Intrinsic::sin},
                                                                  {"cos", llvm::Intrinsic::cos},
                                                                  {"exp", llvm::Intrinsic::exp},
                                                                  {"log", llvm::Intrinsic::log},
                                                                  {"pow", llvm::Intrinsic::pow}};
  for (llvm::Function &f : m) {
    if (!f.isDeclaration() || f.use_empty()) continue;
    auto mangled = demangle(f.getName());
    if (!mangled) continue;
    auto it = math.find(mangled->name);
    if (it == math.end() || !elementType(f.getReturnType())->isFloatingPointTy() ||
        elementType(f.getReturnType())->isHalfTy())
      continue;
    auto *entry = llvm::BasicBlock::Create(m.getContext(), "entry", &f);
    IRBuilder<> b(entry);
    std::vector<Value *> args;
    for (llvm::Argument &a : f.args()) args.push_back(&a);
    b.CreateRet(b.CreateIntrinsic(it->second, {f.getReturnType()}, args));
    f.setLinkage(llvm::GlobalValue::InternalLinkage);
    f.addFnAttr(llvm::Attribute::AlwaysInline);
  }
}

bool callsLibraryBuiltins(const llvm::Module &m) {
  for (const llvm::Function &f : m)
    if (f.isDeclaration() && !f.use_empty() && !f.isIntrinsic() &&
        (f.getName().startswith("_Z") || f.getName().startswith("__")))
      return true;
  return false;
}

std::vector<llvm::Function *> defineMissingBuiltins(llvm::Module &m, bool beforeLibrary) {
  std::vector<llvm::Function *> missing;
  for (llvm::Function &f : m) {
    if (!f.isDeclaration() || f.use_empty() || f.isIntrinsic()) continue;
    auto mangled = demangle(f.getName());
    if (!mangled) {
      // Not an OpenCL builtin: resolved by the JIT against the process, unless it is one of
      // the SPIR-V reader's own builtins (__to_global, __spirv_...), which only the builtin
      // library defines.
      if (!beforeLibrary && (f.getName().startswith("__to_") || f.getName().startswith("__spirv_")))
        missing.push_back(&f);
      continue;
    }
    Value *result = nullptr;
    auto body = bodies().find(mangled->name);
    auto *entry = llvm::BasicBlock::Create(m.getContext(), "entry", &f);
    IRBuilder<> b(entry);
    const std::string &n = mangled->name;
    // Before the library is linked, only what it never defines: its conversions win, except
    // those to floating point with a directed rounding mode, which libclc rounds to nearest.
    bool directedToFloat = elementType(f.getReturnType())->isFloatingPointTy() &&
                           roundingOf(n, Rounding::Nearest) != Rounding::Nearest;
    if (beforeLibrary && n.rfind("convert_", 0) == 0 && !directedToFloat) {
      entry->eraseFromParent();
      continue;
    }
    if (body != bodies().end())
      result = body->second(b, f, *mangled);
    else if (n.rfind("convert_", 0) == 0)
      result = convert(b, f, *mangled);
    else if (n.rfind("atomic_load", 0) == 0 || n.rfind("atomic_store", 0) == 0 ||
             n == "atomic_init" || n.rfind("atomic_compare_exchange_", 0) == 0)
      result = atomicC11(b, f, *mangled);
    else if (n.rfind("atomic_", 0) == 0 || n.rfind("atom_", 0) == 0)
      result = atomic(b, f, *mangled);
    if (!result) {
      entry->eraseFromParent();
      if (!beforeLibrary) missing.push_back(&f);
      continue;
    }
    if (f.getReturnType()->isVoidTy()) {
      b.CreateRetVoid();
    } else {
      if (result->getType() != f.getReturnType())
        result = b.CreateBitOrPointerCast(result, f.getReturnType());
      b.CreateRet(result);
    }
    f.setLinkage(llvm::GlobalValue::InternalLinkage);
    f.addFnAttr(llvm::Attribute::AlwaysInline);
  }
  return missing;
}

}  // namespace xpurt::spirv
