#include "jit_engine.hpp"

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "jit_isa.hpp"
#include "vector_math_library.hpp"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/SubtargetFeature.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>

#include <dlfcn.h>

#include <map>
#include <string>

namespace xpurt::cpu {

JitEngine &JitEngine::instance() {
  // Never destroyed: code it made may still run while static destructors do.
  static auto *engine = new JitEngine;
  return *engine;
}

namespace {

// The loop vectoriser's second, narrower vector loop for what the first one leaves (an
// "epilogue" of 8 floats after a loop of 16) is a third copy of every vectorised loop body, and
// the work-item loops it would serve rarely have 8 or more left over: groups are sized in
// multiples of the vector, and groups that ask only for global ids merge (spirv_module.cpp).
// Without it the workloads module compiled 14 % faster (120-128 against 140-149 ms) and its six
// kernels ran as fast (docs/PERFORMANCE.md). LLVM 15 offers no other switch than its
// command-line option, which is the process's: the JIT worker's, or an application's that
// turned JIT isolation off, where it changes only how fast a loop's last iterations run.
void turnOffEpilogueVectorization() {
  auto &options = llvm::cl::getRegisteredOptions();
  if (auto it = options.find("enable-epilogue-vectorization"); it != options.end())
    if (auto *option = dynamic_cast<llvm::cl::opt<bool> *>(it->second)) option->setValue(false);
}

}  // namespace

JitEngine::JitEngine() : layout_("") {
  turnOffEpilogueVectorization();
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // LLVM may not know a recent CPU by name: name its features explicitly.
  cpu_ = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> hostFeatures;
  llvm::sys::getHostCPUFeatures(hostFeatures);
  std::map<std::string, bool> host;
  for (auto &f : hostFeatures) host[f.first().str()] = f.second;
  auto isa = static_cast<JitIsa>(core::envChoice("XPURT_CPU_ISA", {"native", "avx2"}, 0));
  llvm::SubtargetFeatures features;
  for (const auto &[name, on] : jitFeatures(std::move(host), isa)) features.AddFeature(name, on);
  features_ = features.getString();
  triple_ = llvm::Triple(llvm::sys::getProcessTriple());

  targetBuilder_ = std::make_unique<llvm::orc::JITTargetMachineBuilder>(triple_);
  llvm::orc::JITTargetMachineBuilder &builder = *targetBuilder_;
  builder.setCPU(cpu_);
  builder.addFeatures(features.getFeatures());
  builder.setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
  targetMachine_ = newTargetMachine();
  layout_ = targetMachine_->createDataLayout();
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(builder).create();
  if (!jit)
    core::fail(XPURT_ERROR_UNKNOWN, "the LLVM JIT could not start: {}",
               llvm::toString(jit.takeError()));
  jit_ = std::move(*jit);
  // What failed to link (a symbol not found, say) comes to the session, not to the lookup that
  // asked for the code: kept for lookup to say.
  jit_->getExecutionSession().setErrorReporter(
      [](llvm::Error error) { lastLinkError() = llvm::toString(std::move(error)); });
  // Vectorised math calls go to glibc's libmvec; load it so the JIT can bind them.
  if (!dlopen("libmvec.so.1", RTLD_NOW | RTLD_GLOBAL))
    core::log().warn("libmvec.so.1 could not be loaded; vector math will not be vectorised");
  core::log().info("CPU JIT for {} ({}), features {}", cpu_, triple_.str(), features_);
}

// LLVM 15's x86 backend cannot select min and max of half vectors on CPUs without AVX512-FP16
// ("Cannot select: v16f16 = X86ISD::FMAX"): it forms them from minnum/maxnum calls and from
// a compare-and-select of the same values. Comparing in float, which holds every half exactly,
// gives the same results and leaves nothing for it to form.
static void compareHalfVectorsInFloat(llvm::Module &module) {
  auto isHalfVector = [](llvm::Type *t) {
    return t->isVectorTy() && t->getScalarType()->isHalfTy();
  };
  std::vector<llvm::Instruction *> work;
  for (llvm::Function &f : module)
    for (llvm::BasicBlock &b : f)
      for (llvm::Instruction &i : b) {
        if (auto *cmp = llvm::dyn_cast<llvm::FCmpInst>(&i)) {
          if (isHalfVector(cmp->getOperand(0)->getType())) work.push_back(cmp);
        } else if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&i)) {
          llvm::Intrinsic::ID id = call->getIntrinsicID();
          bool minMax = id == llvm::Intrinsic::minnum || id == llvm::Intrinsic::maxnum ||
                        id == llvm::Intrinsic::minimum || id == llvm::Intrinsic::maximum;
          if (minMax && isHalfVector(call->getType())) work.push_back(call);
        }
      }
  for (llvm::Instruction *i : work) {
    llvm::IRBuilder<> b(i);
    auto *half = llvm::cast<llvm::VectorType>(i->getOperand(0)->getType());
    llvm::Type *wide = llvm::VectorType::get(b.getFloatTy(), half->getElementCount());
    llvm::Value *x = b.CreateFPExt(i->getOperand(0), wide);
    llvm::Value *y = b.CreateFPExt(i->getOperand(1), wide);
    llvm::Value *replacement;
    if (auto *cmp = llvm::dyn_cast<llvm::FCmpInst>(i)) {
      replacement = b.CreateFCmp(cmp->getPredicate(), x, y);
    } else {
      auto id = llvm::cast<llvm::IntrinsicInst>(i)->getIntrinsicID();
      replacement = b.CreateFPTrunc(b.CreateBinaryIntrinsic(id, x, y), half);
    }
    i->replaceAllUsesWith(replacement);
    i->eraseFromParent();
  }
}

std::unique_ptr<llvm::TargetMachine> JitEngine::newTargetMachine() const {
  auto tm = targetBuilder_->createTargetMachine();
  if (!tm)
    core::fail(XPURT_ERROR_UNKNOWN, "no LLVM target machine for this CPU: {}",
               llvm::toString(tm.takeError()));
  return std::move(*tm);
}

void JitEngine::optimize(llvm::Module &module) {
  std::lock_guard lock(targetMutex_);
  optimize(module, *targetMachine_);
}

void JitEngine::optimize(llvm::Module &module, llvm::TargetMachine &target) const {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder pb(&target, tuning);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::TargetLibraryInfoImpl libraryInfo(triple_);
  bool avx512 = features_.find("+avx512f") != std::string::npos;
  addVectorMath(libraryInfo, avx512);
  // LLVM keeps to 256-bit vectors on Intel's AVX-512 CPUs unless told otherwise: its loop
  // vectoriser then ran kernels with math calls 8 work-items at a time, and the backend split
  // the work-item vectoriser's 16 lanes in two (docs/PERFORMANCE.md: math-heavy and sgemm
  // 1.2-1.5x faster with 512). min-legal-vector-width: 16 floats pass to libmvec in zmm.
  if (avx512)
    for (llvm::Function &f : module)
      if (!f.isDeclaration()) {
        f.addFnAttr("prefer-vector-width", "512");
        f.addFnAttr("min-legal-vector-width", "512");
      }
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(libraryInfo); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
  if (features_.find("+avx512fp16") == std::string::npos) compareHalfVectorsInFloat(module);
  bool avx512Vl = avx512 && features_.find("+avx512vl") != std::string::npos;
  if (defineVectorMath(module, avx512Vl)) {
    llvm::ModulePassManager inline_;
    inline_.addPass(llvm::AlwaysInlinerPass());
    inline_.run(module, mam);
    dropVectorMathBodies(module);
  }
}

std::string JitEngine::emitObject(llvm::Module &module, const std::string &name) {
  std::lock_guard lock(targetMutex_);
  return emitObject(module, name, *targetMachine_);
}

std::string JitEngine::emitObject(llvm::Module &module, const std::string &name,
                                  llvm::TargetMachine &target) const {
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream out(object);
  llvm::legacy::PassManager passes;
  if (target.addPassesToEmitFile(passes, out, nullptr, llvm::CGFT_ObjectFile))
    core::fail(XPURT_ERROR_UNKNOWN, "JIT of '{}': the target cannot emit object files", name);
  passes.run(module);
  return std::string(object.data(), object.size());
}

std::unique_ptr<JitEngine::Code> JitEngine::load(const std::vector<std::string> &objects,
                                                 const std::string &name) {
  auto &session = jit_->getExecutionSession();
  auto dylib = session.createJITDylib("xpurt.module." + std::to_string(nextDylib_++));
  if (!dylib)
    core::fail(XPURT_ERROR_UNKNOWN, "JIT of '{}': {}", name, llvm::toString(dylib.takeError()));
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(layout_.getGlobalPrefix());
  if (!process)
    core::fail(XPURT_ERROR_UNKNOWN, "JIT of '{}': {}", name, llvm::toString(process.takeError()));
  dylib->addGenerator(std::move(*process));
  std::unique_ptr<Code> code(new Code(*this, *dylib));
  for (const std::string &object : objects) {
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(object, name);
    if (auto err = jit_->addObjectFile(*dylib, std::move(buffer)))
      core::fail(XPURT_ERROR_UNKNOWN, "JIT of '{}': {}", name, llvm::toString(std::move(err)));
  }
  return code;
}

std::string &JitEngine::lastLinkError() {
  thread_local std::string error;
  return error;
}

void *JitEngine::Code::lookup(const std::string &symbol, std::string *why) {
  lastLinkError().clear();
  auto found = engine_.jit_->lookup(dylib_, symbol);
  if (!found) {
    std::string error = llvm::toString(found.takeError());
    core::log().error("JIT lookup of '{}': {}", symbol, error);
    if (why) *why = lastLinkError().empty() ? error : lastLinkError();
    return nullptr;
  }
  return found->toPtr<void *>();
}

JitEngine::Code::~Code() {
  if (auto err = engine_.jit_->getExecutionSession().removeJITDylib(dylib_))
    core::log().warn("releasing JIT code: {}", llvm::toString(std::move(err)));
}

}  // namespace xpurt::cpu
