#include "vector_math_library.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <deque>
#include <string>
#include <vector>

namespace xpurt::cpu {
namespace {

constexpr const char *kLogf = "xpurt.vlogf.";

// LLVM 15's own libmvec table (LIBMVEC_X86) less the float log and the __*_finite names (older
// glibc headers' fast-math names, which libclc does not call), and the AVX-512 widths if asked.
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
        std::string f = fn == "log" ? kLogf + std::to_string(isa.floats)
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

}  // namespace

void addVectorMath(llvm::TargetLibraryInfoImpl &libraryInfo, bool avx512) {
  static const VectorMathTable withAvx512(true), withoutAvx512(false);
  libraryInfo.addVectorizableFunctions((avx512 ? withAvx512 : withoutAvx512).entries());
}

bool defineVectorMath(llvm::Module &module) {
  llvm::LLVMContext &c = module.getContext();
  bool defined = false;
  for (llvm::Function &f : module) {
    if (!f.isDeclaration() || !f.getName().startswith(kLogf)) continue;
    defined = true;
    f.setLinkage(llvm::GlobalValue::InternalLinkage);
    f.addFnAttr(llvm::Attribute::AlwaysInline);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "", &f));
    auto *type = llvm::cast<llvm::FixedVectorType>(f.getReturnType());
    auto *ints = llvm::FixedVectorType::get(b.getInt32Ty(), type->getNumElements());
    auto real = [&](double v) { return llvm::ConstantFP::get(type, v); };
    auto integer = [&](uint32_t v) { return llvm::ConstantInt::get(ints, v); };
    auto fma = [&](llvm::Value *x, llvm::Value *y, llvm::Value *z) {
      return b.CreateIntrinsic(llvm::Intrinsic::fma, {type}, {x, y, z});
    };
    llvm::Value *x = f.getArg(0);
    // x = m * 2^e with m in [sqrt(1/2), sqrt(2)); subnormals scaled by 2^23 first.
    llvm::Value *subnormal = b.CreateFCmpOLT(x, real(0x1p-126));
    llvm::Value *scaled = b.CreateSelect(subnormal, b.CreateFMul(x, real(0x1p23)), x);
    llvm::Value *bits = b.CreateBitCast(scaled, ints);
    llvm::Value *e = b.CreateSub(b.CreateAnd(b.CreateLShr(bits, integer(23)), integer(0xff)),
                                 b.CreateSelect(subnormal, integer(126 + 23), integer(126)));
    llvm::Value *m =
        b.CreateBitCast(b.CreateOr(b.CreateAnd(bits, integer(0x007fffff)), integer(0x3f000000)),
                        type);  // in [1/2, 1)
    llvm::Value *low = b.CreateFCmpOLT(m, real(0.70710678118654752));
    e = b.CreateSub(e, b.CreateZExt(low, ints));
    m = b.CreateSelect(low, b.CreateFSub(b.CreateFAdd(m, m), real(1)), b.CreateFSub(m, real(1)));
    llvm::Value *ef = b.CreateSIToFP(e, type);
    // log(1 + m), m in [sqrt(1/2) - 1, sqrt(2) - 1): Cephes' logf polynomial (relative error
    // under 8e-8), the exponent's ln 2 in two parts. a[k] multiplies m^k. The polynomial is
    // evaluated by Estrin's scheme, four multiply-adds deep rather than Horner's eight: in a
    // loop of math calls the log's chain of dependent operations is what the loop waits for
    // (docs/PERFORMANCE.md: math-heavy 8 % faster). Over every positive float: 0.86 ulp at
    // worst, against Horner's 0.83.
    const double a[] = {3.3333331174e-1,  -2.4999993993e-1, 2.0000714765e-1,
                        -1.6668057665e-1, 1.4249322787e-1,  -1.2420140846e-1,
                        1.1676998740e-1,  -1.1514610310e-1, 7.0376836292e-2};
    llvm::Value *z = b.CreateFMul(m, m);
    llvm::Value *z2 = b.CreateFMul(z, z);
    llvm::Value *z4 = b.CreateFMul(z2, z2);
    auto pair = [&](int k) { return fma(real(a[k + 1]), m, real(a[k])); };
    llvm::Value *p = fma(fma(pair(6), z, pair(4)), z2, fma(pair(2), z, pair(0)));
    p = fma(real(a[8]), z4, p);
    llvm::Value *y = b.CreateFMul(b.CreateFMul(p, m), z);
    y = fma(ef, real(-2.12194440e-4), y);
    y = fma(z, real(-0.5), y);
    llvm::Value *r = fma(ef, real(0.693359375), b.CreateFAdd(m, y));
    // log(+-0) = -inf, log(x < 0) = NaN, log(inf) = inf, log(NaN) = NaN.
    r = b.CreateSelect(b.CreateFCmpOEQ(x, real(0)), real(-HUGE_VAL), r);
    r = b.CreateSelect(b.CreateFCmpOLT(x, real(0)), llvm::ConstantFP::getNaN(type), r);
    r = b.CreateSelect(b.CreateFCmpOEQ(x, real(HUGE_VAL)), x, r);
    r = b.CreateSelect(b.CreateFCmpUNO(x, x), x, r);
    b.CreateRet(r);
  }
  return defined;
}

}  // namespace xpurt::cpu
