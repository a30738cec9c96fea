#include "vector_math_library.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/MDBuilder.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace xpurt::cpu {
namespace {

// xpurt's own vector functions are named xpurt.v<libm name>f.<lanes>, e.g. xpurt.vsinf.16.
constexpr const char *kOwnPrefix = "xpurt.v";
const char *const kOwnFunctions[] = {"sin", "cos", "exp", "log"};

std::string ownFunctionOf(llvm::StringRef name) {
  name = name.drop_front(std::strlen(kOwnPrefix));
  return name.take_until([](char c) { return c == '.'; }).drop_back().str();
}

// libmvec's name for fn of lanes floats: _ZGV, the ISA's letter (b SSE, d AVX2, e AVX-512),
// unmasked (N), the lanes, one vector parameter (v), the float function's name.
std::string libmvecName(const std::string &fn, unsigned lanes) {
  char isa = lanes == 4 ? 'b' : lanes == 8 ? 'd' : 'e';
  return std::string("_ZGV") + isa + "N" + std::to_string(lanes) + "v_" + fn + "f";
}

// LLVM 15's own libmvec table (LIBMVEC_X86), with xpurt's own functions for the float sin,
// cos, exp and log, less the __*_finite names (older glibc headers' fast-math names, which
// libclc does not call), and the AVX-512 widths if asked.
// Built once: TargetLibraryInfoImpl keeps the names as StringRefs.
class VectorMathTable {
 public:
  explicit VectorMathTable(bool avx512) {
    struct Isa {
      char letter;  // the vector ABI's: b SSE, d AVX2, e AVX-512
      unsigned floats, doubles;
    };
    std::vector<Isa> isas = {{'b', 4, 2}, {'d', 8, 4}};
    if (avx512) isas.push_back({'e', 16, 8});
    for (const Isa &isa : isas)
      for (std::string fn : {"sin", "cos", "exp", "log", "pow"}) {
        std::string params = fn == "pow" ? "vv" : "v";
        std::string prefix = std::string("_ZGV") + isa.letter + "N";
        std::string d = prefix + std::to_string(isa.doubles) + params + "_" + fn;
        add(fn, d, isa.doubles);
        add("llvm." + fn + ".f64", d, isa.doubles);
        bool own = std::find(std::begin(kOwnFunctions), std::end(kOwnFunctions), fn) !=
                   std::end(kOwnFunctions);
        std::string f = own ? kOwnPrefix + fn + "f." + std::to_string(isa.floats)
                            : prefix + std::to_string(isa.floats) + params + "_" + fn + "f";
        add(fn + "f", f, isa.floats);
        add("llvm." + fn + ".f32", f, isa.floats);
      }
  }
  const std::vector<llvm::VecDesc> &entries() const { return entries_; }

 private:
  void add(std::string scalar, std::string vector, unsigned lanes) {
    names_.push_back(std::move(scalar));
    llvm::StringRef s = names_.back();
    names_.push_back(std::move(vector));
    entries_.push_back({s, names_.back(), llvm::ElementCount::getFixed(lanes)});
  }
  std::deque<std::string> names_;  // stable addresses for the StringRefs
  std::vector<llvm::VecDesc> entries_;
};

// Builds the body of one of xpurt's own vector functions.
class VectorBody {
 public:
  VectorBody(llvm::Function &f, bool avx512)
      : f_(f),
        avx512_(avx512),
        b_(llvm::BasicBlock::Create(f.getContext(), "", &f)),
        type_(llvm::cast<llvm::FixedVectorType>(f.getReturnType())),
        ints_(llvm::FixedVectorType::get(b_.getInt32Ty(), type_->getNumElements())) {}

  void returnValue(llvm::Value *v) { b_.CreateRet(v); }

  // log(x) = e ln 2 + log(1 + m), x = (1 + m) 2^e with 1 + m in [sqrt(1/2), sqrt(2)).
  // normalOnly: x is a positive normal float (no scaling, no special values).
  llvm::Value *log(llvm::Value *x, bool normalOnly) {
    llvm::Value *m, *ef;
    if (avx512_) {
      // AVX-512's getmant and getexp split x (subnormals too) into 1 + m in [1, 2) and e,
      // and give what makes log's special values: log(+-0) = -inf from e = -inf, log(inf) =
      // inf from e = inf, NaN from m for x < 0 (and -inf) and for NaN.
      using namespace llvm::Intrinsic;
      llvm::Value *whole = avx512({x86_avx512_mask_getmant_ps_128, x86_avx512_mask_getmant_ps_256,
                                   x86_avx512_mask_getmant_ps_512},
                                  {x, b_.getInt32(kNormalizedToOneTwoNanIfNegative)});
      ef = avx512({x86_avx512_mask_getexp_ps_128, x86_avx512_mask_getexp_ps_256,
                   x86_avx512_mask_getexp_ps_512},
                  {x});
      llvm::Value *high = b_.CreateFCmpOGE(whole, real(0x1.6a09e6p+0f));
      ef = b_.CreateSelect(high, b_.CreateFAdd(ef, real(1)), ef);
      m = b_.CreateFSub(b_.CreateSelect(high, b_.CreateFMul(whole, real(0.5)), whole), real(1));
    } else {
      // Bit by bit: subnormals scaled by 2^23 first.
      llvm::Value *bits = asInts(x), *e;
      if (normalOnly) {
        e = b_.CreateSub(b_.CreateLShr(bits, integer(23)), integer(126));
      } else {
        llvm::Value *subnormal = b_.CreateFCmpOLT(x, real(0x1p-126));
        bits = asInts(b_.CreateSelect(subnormal, b_.CreateFMul(x, real(0x1p23)), x));
        e = b_.CreateSub(b_.CreateAnd(b_.CreateLShr(bits, integer(23)), integer(0xff)),
                         b_.CreateSelect(subnormal, integer(126 + 23), integer(126)));
      }
      m = asReal(b_.CreateOr(b_.CreateAnd(bits, integer(0x007fffff)),
                             integer(0x3f000000)));  // in [1/2, 1)
      llvm::Value *low = b_.CreateFCmpOLT(m, real(0x1.6a09e6p-1f));
      e = b_.CreateSub(e, b_.CreateZExt(low, ints_));
      m = b_.CreateSelect(low, b_.CreateFSub(b_.CreateFAdd(m, m), real(1)),
                          b_.CreateFSub(m, real(1)));
      ef = b_.CreateSIToFP(e, type_);
    }
    // log(1 + m), m in [sqrt(1/2) - 1, sqrt(2) - 1): Cephes' logf polynomial (relative error
    // under 8e-8), the exponent's ln 2 in two parts. a[k] multiplies m^k. The polynomial is
    // evaluated by Estrin's scheme, four multiply-adds deep rather than Horner's eight: in a
    // loop of math calls the log's chain of dependent operations is what the loop waits for
    // (docs/PERFORMANCE.md: math-heavy 8 % faster). Over every positive float: 0.86 ulp at
    // worst, against Horner's 0.83.
    const double a[] = {3.3333331174e-1,  -2.4999993993e-1, 2.0000714765e-1,
                        -1.6668057665e-1, 1.4249322787e-1,  -1.2420140846e-1,
                        1.1676998740e-1,  -1.1514610310e-1, 7.0376836292e-2};
    llvm::Value *z = b_.CreateFMul(m, m);
    llvm::Value *z2 = b_.CreateFMul(z, z);
    llvm::Value *z4 = b_.CreateFMul(z2, z2);
    auto pair = [&](int k) { return fma(real(a[k + 1]), m, real(a[k])); };
    llvm::Value *p = fma(fma(pair(6), z, pair(4)), z2, fma(pair(2), z, pair(0)));
    p = fma(real(a[8]), z4, p);
    llvm::Value *y = b_.CreateFMul(b_.CreateFMul(p, m), z);
    y = fma(ef, real(kLn2Low), y);
    y = fma(z, real(-0.5), y);
    llvm::Value *r = fma(ef, real(kLn2High), b_.CreateFAdd(m, y));
    if (avx512_ || normalOnly) return r;
    // log(+-0) = -inf, log(x < 0) = NaN, log(inf) = inf, log(NaN) = NaN.
    r = b_.CreateSelect(b_.CreateFCmpOEQ(x, real(0)), real(-HUGE_VAL), r);
    r = b_.CreateSelect(b_.CreateFCmpOLT(x, real(0)), llvm::ConstantFP::getNaN(type_), r);
    r = b_.CreateSelect(b_.CreateFCmpOEQ(x, real(HUGE_VAL)), x, r);
    return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, r);
  }

  // sin(x) or cos(x) for |x| <= 2^16: x less a multiple of pi (in three parts, by
  // multiply-adds: the first two exactly) leaves r in [-pi/2, pi/2], sin(x) = (-1)^n sin(r);
  // cos(x) = (-1)^n sin(r) with r = |x| - (n - 1/2) pi. 1.99 ulp at worst over every float of
  // that range, for each of the two.
  llvm::Value *sinCos(llvm::Value *x, bool cosine) {
    llvm::Value *ax = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    // n = rint(|x| / pi (+ 1/2)) in the low bits of t, its parity as a sign bit.
    llvm::Value *t = fma(cosine ? b_.CreateFAdd(ax, real(0x1.921fb6p+0f)) : ax,
                         real(0x1.45f306p-2f), real(kRoundingShift));
    llvm::Value *n = b_.CreateFSub(t, real(kRoundingShift));
    llvm::Value *sign = b_.CreateShl(asInts(t), integer(31));
    if (cosine) n = b_.CreateFSub(n, real(0.5));
    llvm::Value *minusN = b_.CreateFNeg(n);
    llvm::Value *r = fma(minusN, real(0x1.921fb6p+1f), ax);
    r = fma(minusN, real(-0x1.777a5cp-24f), r);
    r = fma(minusN, real(-0x1.ee58p-49f), r);
    // sin(r) = r + r^3 s(r^2): a fit of degree 4 in r^2 by Chebyshev's nodes over
    // [0, (pi/2 + 0.002)^2]; the margin covers the rounding of n.
    const float s[] = {-0x1.555556p-3f, 0x1.11111p-7f, -0x1.a01904p-13f, 0x1.719636p-19f,
                       -0x1.9da71cp-26f};
    llvm::Value *r2 = b_.CreateFMul(r, r);
    llvm::Value *p = fma(fma(fma(fma(real(s[4]), r2, real(s[3])), r2, real(s[2])), r2, real(s[1])),
                         r2, real(s[0]));
    llvm::Value *signedR = asReal(b_.CreateXor(asInts(r), sign));
    llvm::Value *y = fma(b_.CreateFMul(r2, signedR), p, signedR);
    if (cosine) return y;
    // sin(-x) = -sin(x), applied last: sin(-0) is -0.
    return asReal(b_.CreateXor(asInts(y), b_.CreateAnd(asInts(x), integer(0x80000000))));
  }

  // exp(x) for |x| <= 87.3: x = n ln 2 + r (ln 2 in two parts), exp(x) = 2^n (1 + r + r^2
  // e(r)), e a fit of degree 4 by Chebyshev's nodes over [-ln 2 / 2, ln 2 / 2] (a margin of
  // 1e-4). 1.1 ulp at worst over every float of that range.
  llvm::Value *exp(llvm::Value *x) {
    llvm::Value *t = fma(x, real(0x1.715476p+0f), real(kRoundingShift));
    llvm::Value *minusN = b_.CreateFSub(real(kRoundingShift), t);
    llvm::Value *r = fma(minusN, real(0x1.62e43p-1f), x);
    r = fma(minusN, real(-0x1.05c61p-29f), r);
    const float e[] = {0x1p-1f, 0x1.5554dcp-3f, 0x1.55551ap-5f, 0x1.120b86p-7f, 0x1.6d1122p-10f};
    llvm::Value *p = real(e[4]);
    for (int k = 3; k >= 0; --k) p = fma(p, r, real(e[k]));
    p = fma(b_.CreateFMul(r, r), p, r);
    // 2^n: n + 127 into the exponent's bits; t's high bits shift out.
    llvm::Value *scale = asReal(b_.CreateShl(b_.CreateAdd(asInts(t), integer(127)), integer(23)));
    return fma(p, scale, scale);
  }

  // Whether every lane's |x| is at most limit (no NaN, no infinity).
  llvm::Value *magnitudeAtMost(llvm::Value *x, float limit) {
    llvm::Value *in =
        b_.CreateFCmpOLE(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), real(limit));
    return b_.CreateAndReduce(in);
  }

  // Whether every lane is a positive normal float.
  llvm::Value *allPositiveNormal(llvm::Value *x) {
    return b_.CreateAndReduce(b_.CreateAnd(b_.CreateFCmpOGE(x, real(0x1p-126)),
                                           b_.CreateFCmpOLE(x, real(0x1.fffffep+127))));
  }

  // Returns fast where allInRange, else what slow builds, on a cold branch.
  void returnUnless(llvm::Value *fast, llvm::Value *allInRange,
                    const std::function<llvm::Value *()> &slow) {
    llvm::LLVMContext &c = f_.getContext();
    auto *done = llvm::BasicBlock::Create(c, "", &f_);
    auto *other = llvm::BasicBlock::Create(c, "", &f_);
    b_.CreateCondBr(allInRange, done, other, llvm::MDBuilder(c).createBranchWeights(1 << 20, 1));
    b_.SetInsertPoint(done);
    b_.CreateRet(fast);
    b_.SetInsertPoint(other);
    b_.CreateRet(slow());
  }

  // libmvec's fn of the function's argument, a whole vector.
  llvm::Value *libmvec(const std::string &fn) {
    llvm::FunctionCallee callee = f_.getParent()->getOrInsertFunction(
        libmvecName(fn, type_->getNumElements()), f_.getFunctionType());
    if (auto *decl = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
      decl->setDoesNotAccessMemory();
      decl->setDoesNotThrow();
    }
    return b_.CreateCall(callee, {f_.getArg(0)});
  }

 private:
  // Adding 1.5 * 2^23 rounds a float of magnitude below 2^22 to an integer, in the low bits.
  static constexpr float kRoundingShift = 0x1.8p23f;
  // ln 2 in two positive parts, the first of 15 bits: e times it is exact, and with e = +-inf
  // (AVX-512's getexp of 0 and of inf) the two products do not cancel to NaN.
  static constexpr float kLn2High = 0x1.62e4p-1f;
  static constexpr float kLn2Low = 0x1.7f7d1cp-20f;

  llvm::Value *real(double v) { return llvm::ConstantFP::get(type_, v); }
  llvm::Value *integer(uint32_t v) { return llvm::ConstantInt::get(ints_, v); }
  llvm::Value *asInts(llvm::Value *v) { return b_.CreateBitCast(v, ints_); }
  llvm::Value *asReal(llvm::Value *v) { return b_.CreateBitCast(v, type_); }
  llvm::Value *fma(llvm::Value *x, llvm::Value *y, llvm::Value *z) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {type_}, {x, y, z});
  }

  // AVX-512's getmant: [1, 2) (interval 0), NaN for x < 0 (sign control 2).
  static constexpr int kNormalizedToOneTwoNanIfNegative = 2 << 2;

  // An AVX-512 intrinsic of the masked form (of 4, 8 or 16 floats), every lane on (and the
  // current rounding, at 16).
  llvm::Value *avx512(const llvm::Intrinsic::ID (&byWidth)[3], std::vector<llvm::Value *> args) {
    unsigned lanes = type_->getNumElements();
    args.push_back(llvm::UndefValue::get(type_));
    args.push_back(lanes == 16 ? b_.getInt16(0xffff) : b_.getInt8(0xff));
    if (lanes == 16) args.push_back(b_.getInt32(kCurrentRounding));
    llvm::Intrinsic::ID id = byWidth[lanes == 4 ? 0 : lanes == 8 ? 1 : 2];
    return b_.CreateCall(llvm::Intrinsic::getDeclaration(f_.getParent(), id), args);
  }
  static constexpr int kCurrentRounding = 4;

  llvm::Function &f_;
  bool avx512_;
  llvm::IRBuilder<> b_;
  llvm::FixedVectorType *type_;
  llvm::VectorType *ints_;
};

}  // namespace

void addVectorMath(llvm::TargetLibraryInfoImpl &libraryInfo, bool avx512) {
  static const VectorMathTable withAvx512(true), withoutAvx512(false);
  libraryInfo.addVectorizableFunctions((avx512 ? withAvx512 : withoutAvx512).entries());
}

bool defineVectorMath(llvm::Module &module, bool avx512) {
  std::vector<llvm::Function *> own;
  for (llvm::Function &f : module)
    if (f.isDeclaration() && f.getName().startswith(kOwnPrefix)) own.push_back(&f);
  for (llvm::Function *f : own) {
    f->setLinkage(llvm::GlobalValue::InternalLinkage);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    auto *type = llvm::cast<llvm::FixedVectorType>(f->getReturnType());
    // The fallback call passes the whole vector in one register, as libmvec expects.
    f->addFnAttr("min-legal-vector-width", std::to_string(type->getPrimitiveSizeInBits()));
    VectorBody body(*f, avx512);
    std::string fn = ownFunctionOf(f->getName());
    llvm::Value *x = f->getArg(0);
    if (fn == "log" && avx512) {
      body.returnValue(body.log(x, false));
    } else if (fn == "log") {
      // Without AVX-512, zeros, subnormals, infinities, NaN and negative numbers take a
      // branch of their own: the common case leaves out their scaling and selections.
      body.returnUnless(body.log(x, true), body.allPositiveNormal(x),
                        [&] { return body.log(x, false); });
    } else if (fn == "exp") {
      // exp(x) overflows past 88.72 and is subnormal below -87.34: libmvec's there.
      body.returnUnless(body.exp(x), body.magnitudeAtMost(x, 87.3f),
                        [&] { return body.libmvec("exp"); });
    } else {
      // Past 2^16, the three parts of pi no longer reduce the argument to 2 ulp (checked
      // over every float below it); Payne and Hanek's reduction is libmvec's.
      body.returnUnless(body.sinCos(x, fn == "cos"), body.magnitudeAtMost(x, 0x1p16f),
                        [&] { return body.libmvec(fn); });
    }
  }
  return !own.empty();
}

void dropVectorMathBodies(llvm::Module &module) {
  // The loop vectoriser lists the vector functions it calls in llvm.compiler.used, which
  // would keep (and compile) a copy of each own body that every call has inlined.
  if (llvm::GlobalVariable *used = module.getGlobalVariable("llvm.compiler.used")) {
    std::vector<llvm::Constant *> kept;
    auto *list = llvm::cast<llvm::ConstantArray>(used->getInitializer());
    for (llvm::Value *v : list->operands())
      if (!v->stripPointerCasts()->getName().startswith(kOwnPrefix))
        kept.push_back(llvm::cast<llvm::Constant>(v));
    if (kept.size() != list->getNumOperands()) {
      used->eraseFromParent();
      if (!kept.empty()) {
        auto *type = llvm::ArrayType::get(kept.front()->getType(), kept.size());
        auto *replacement =
            new llvm::GlobalVariable(module, type, false, llvm::GlobalValue::AppendingLinkage,
                                     llvm::ConstantArray::get(type, kept), "llvm.compiler.used");
        replacement->setSection("llvm.metadata");
      }
    }
  }
  for (llvm::Function &f : llvm::make_early_inc_range(module)) {
    if (!f.getName().startswith(kOwnPrefix)) continue;
    f.removeDeadConstantUsers();  // the old list's
    if (f.use_empty()) f.eraseFromParent();
  }
}

}  // namespace xpurt::cpu
