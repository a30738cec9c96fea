#include "ptx_compiler.hpp"

#include "core/byte_stream.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "nvptx_lowering.hpp"
#include "spirv/kernel_reflection.hpp"
#include "spirv/missing_builtins.hpp"
#include "spirv/opencl_capabilities.hpp"

#include <llvm/ADT/SmallString.h>
#include <llvm/CodeGen/AtomicExpandUtils.h>
#include <llvm/CodeGen/MachineModuleInfo.h>
#include <llvm/CodeGen/Passes.h>
#include <llvm/CodeGen/TargetPassConfig.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <filesystem>
#include <mutex>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace xpurt::cuda {
namespace {

constexpr const char *kTriple = "nvptx64-nvidia-cuda";

constexpr uint32_t kPtxMagic = 0x58505458;  // "XPTX"
// 2: with the kernels that take the work dimension; 3: and the global offset; 4: and the rest
// of kLaunchValues.
constexpr uint32_t kPtxFormat = 4;

std::unique_ptr<llvm::TargetMachine> targetMachine(int sm, const std::string &name) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (!target)
    core::fail(XPURT_ERROR_INVALID_MODULE,
               "module '{}': this LLVM has no NVPTX target ({}); build xpurt with an LLVM 15 "
               "that includes it",
               name, error);
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      kTriple, "sm_" + std::to_string(sm), "+ptx75", llvm::TargetOptions(), llvm::None, llvm::None,
      llvm::CodeGenOpt::Aggressive));
}

// Floating-point atomics PTX has no instruction for (min, max, sub; double add before sm_60)
// become compare-and-swap loops: LLVM 15's NVPTX back end cannot select them.
void expandFloatAtomics(llvm::Module &m, int sm) {
  std::vector<llvm::AtomicRMWInst *> expand;
  for (llvm::Function &f : m)
    for (llvm::Instruction &i : llvm::instructions(f))
      if (auto *rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&i)) {
        llvm::Type *t = rmw->getValOperand()->getType();
        if (!t->isFloatingPointTy()) continue;
        bool native = rmw->getOperation() == llvm::AtomicRMWInst::FAdd &&
                      (t->isFloatTy() || (t->isDoubleTy() && sm >= 60));
        if (!native && rmw->getOperation() != llvm::AtomicRMWInst::Xchg) expand.push_back(rmw);
      }
  for (llvm::AtomicRMWInst *rmw : expand)
    llvm::expandAtomicRMWToCmpXchg(
        rmw, [](llvm::IRBuilder<> &b, llvm::Value *address, llvm::Value *loaded, llvm::Value *value,
                llvm::Align align, llvm::AtomicOrdering order, llvm::SyncScope::ID scope,
                llvm::Value *&success, llvm::Value *&newLoaded) {
          llvm::Type *t = b.getIntNTy(
              static_cast<unsigned>(loaded->getType()->getPrimitiveSizeInBits().getFixedSize()));
          auto *x = b.CreateAtomicCmpXchg(
              address, b.CreateBitCast(loaded, t), b.CreateBitCast(value, t), align, order,
              llvm::AtomicCmpXchgInst::getStrongestFailureOrdering(order), scope);
          success = b.CreateExtractValue(x, 1);
          newLoaded = b.CreateBitCast(b.CreateExtractValue(x, 0), loaded->getType());
        });
}

// activemask names the work-items that run the call, so it must stay in the branch it was
// written in: LLVM would hoist the identical reads of two branches above the branch (a
// non-uniform sub-group function in each arm of an if), where every work-item is active.
void keepActiveMasksInTheirBranches(llvm::Module &m) {
  for (llvm::Function &f : m)
    for (llvm::Instruction &i : llvm::instructions(f))
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i))
        if (auto *as = llvm::dyn_cast<llvm::InlineAsm>(call->getCalledOperand());
            as && as->getAsmString().find("activemask") != std::string::npos)
          call->addFnAttr(llvm::Attribute::NoMerge);
}

void optimize(llvm::Module &m, llvm::TargetMachine &tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);  // registers the NVPTX passes (NVVMReflect, ...)
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
}

// LLVM's code generation pipeline for PTX (what TargetMachine::addPassesToEmitFile builds)
// without MachineSink. MachineSink moves each computation down into the block of its use: for
// a kernel that computes several results and combines them at its end, such as sin, cos and
// pow of each element of a float4 (bench/kernels/vector_math.cl), every value then waits in a
// register and every predicate in a predicate register until that end, across the branches of
// each function's slow path. ptxas then spills predicates into registers and back, and the
// kernel needs twice the registers (48) and 10% more instructions than nvcc's of the same
// source; without the pass, 32 registers, and within 3% of nvcc's speed instead of 10%
// (docs/history/performance-log.md, Vector math at nvcc's level). nvcc leaves such scheduling
// to ptxas too.
std::string emitPtx(llvm::Module &m, llvm::TargetMachine &tm, const std::string &name) {
  auto &target = static_cast<llvm::LLVMTargetMachine &>(tm);
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream out(ptx);
  llvm::legacy::PassManager pm;
  auto *machineModule = new llvm::MachineModuleInfoWrapperPass(&target);
  llvm::TargetPassConfig *config = target.createPassConfig(pm);
  config->disablePass(&llvm::MachineSinkingID);
  config->setDisableVerify(true);  // as addPassesToEmitFile: verify() checked the module
  pm.add(config);
  pm.add(machineModule);
  bool failed = config->addISelPasses();
  if (!failed) {
    config->addMachinePasses();
    config->setInitialized();
    failed = target.addAsmPrinter(pm, out, nullptr, llvm::CGFT_AssemblyFile,
                                  machineModule->getMMI().getContext());
  }
  if (failed)
    core::fail(XPURT_ERROR_INVALID_MODULE, "module '{}': the NVPTX target cannot emit PTX", name);
  pm.add(llvm::createFreeMachineFunctionPass());
  pm.run(m);
  return std::string(ptx.str());
}

void verify(llvm::Module &m, const std::string &name, const char *stage) {
  std::string problems;
  llvm::raw_string_ostream out(problems);
  if (llvm::verifyModule(m, &out))
    core::fail(XPURT_ERROR_INVALID_MODULE,
               "module '{}': the PTX compiler made invalid LLVM IR {} ({}); this is a bug in "
               "xpurt: please report it with the module",
               name, stage, problems);
}

void dumpIr(const llvm::Module &m, const std::string &name) {
  auto dump = core::envValue("XPURT_JIT_DUMP_DIR");
  if (!dump) return;
  std::error_code ec;
  std::string file = (std::filesystem::path(*dump) /
                      (std::filesystem::path(name).filename().string() + ".nvptx.ll"))
                         .string();
  llvm::raw_fd_ostream out(file, ec);
  if (!ec) m.print(out, nullptr);
}

}  // namespace

spirv::CheckedModule checkSpirvForCuda(std::span<const std::byte> bytes, const std::string &name) {
  spirv::CheckedModule checked =
      spirv::checkModule(bytes, name, spirv::kOpenClKernelCapabilities, "CUDA");
  for (const std::string &warning : checked.warnings) core::log().warn("{}", warning);
  return checked;
}

std::optional<int> ptxTargetFor(int major, int minor) {
  int cc = major * 10 + minor;
  for (int sm : kPtxTargets)
    if (sm <= cc) return sm;
  return std::nullopt;
}

PtxModule compileSpirvToPtx(const std::vector<uint32_t> &words, const std::string &name,
                            const core::ModuleOptions &options, int sm) {
  if (!options.buildFlags.empty())
    core::log().info("module '{}': build flags '{}' do not apply to the PTX compiler", name,
                     options.buildFlags);
  llvm::LLVMContext context;
  context.setOpaquePointers(true);  // else reading typed bitcode first would make it typed
  std::unique_ptr<llvm::Module> spir =
      spirv::readModule(context, words, options.specConstants, name);
  PtxModule result;
  result.kernels = spirv::reflectKernels(*spir);
  std::unique_ptr<llvm::Module> m = retargetAddressSpaces(*spir, name);
  spir.reset();
  std::unique_ptr<llvm::TargetMachine> tm = targetMachine(sm, name);
  m->setTargetTriple(kTriple);
  m->setDataLayout(tm->createDataLayout());
  llvm::Function *printf = lowerPrintfToVprintf(*m);
  std::vector<llvm::Function *> missing = linkBuiltins(*m, name);
  if (printf) missing.push_back(printf);
  result.unavailable = spirv::dropKernelsCallingMissing(*m, result.kernels, missing, "CUDA");
  for (const spirv::KernelInfo &info : result.kernels)
    if (info.requiredSubGroupSize != 0 && info.requiredSubGroupSize != 32 &&
        info.requiredSubGroupSize != 16 && !result.unavailable.count(info.name))
      result.unavailable[info.name] = fmt::format(
          "kernel '{}' requires sub-groups of {} work-items; a CUDA device runs sub-groups of "
          "32 (a warp) or 16 (half a warp)",
          info.name, info.requiredSubGroupSize);
  for (const auto &[kernel, why] : result.unavailable)
    core::log().warn("module '{}': {}; its other kernels are usable", name, why);
  result.launchValueKernels = lowerKernels(*m, result.kernels, result.unavailable);
  expandFloatAtomics(*m, sm);
  keepActiveMasksInTheirBranches(*m);
  verify(*m, name, "before optimising");
  optimize(*m, *tm);
  expandFloatAtomics(*m, sm);  // the optimiser may have formed new ones
  forwardLaunchValues(*m);
  verify(*m, name, "after optimising");
  dumpIr(*m, name);
  for (const llvm::Function &f : *m)
    if (f.isDeclaration() && !f.use_empty() && !f.isIntrinsic() && f.getName() != "vprintf")
      core::fail(XPURT_ERROR_INVALID_MODULE,
                 "module '{}': its code calls '{}', which nothing defines; link the module "
                 "that defines it (xpurtLinkModules)",
                 name, f.getName().str());
  result.ptx = emitPtx(*m, *tm, name);
  return result;
}

std::string serializePtxModule(const PtxModule &module) {
  core::Writer w;
  w.u32(kPtxMagic);
  w.u32(kPtxFormat);
  w.str(module.ptx);
  w.u32(static_cast<uint32_t>(module.kernels.size()));
  for (const spirv::KernelInfo &info : module.kernels) spirv::writeKernelInfo(w, info);
  w.u32(static_cast<uint32_t>(module.unavailable.size()));
  for (const auto &[kernel, why] : module.unavailable) {
    w.str(kernel);
    w.str(why);
  }
  w.u32(static_cast<uint32_t>(module.launchValueKernels.size()));
  for (const std::string &kernel : module.launchValueKernels) w.str(kernel);
  return w.take();
}

std::optional<PtxModule> deserializePtxModule(std::string_view bytes) {
  core::Reader r(bytes);
  if (r.u32() != kPtxMagic || r.u32() != kPtxFormat || !r.ok()) return std::nullopt;
  PtxModule module;
  module.ptx = r.str();
  uint32_t kernels = r.u32();
  // Each entry takes at least one byte: a count past the rest is malformed.
  if (!r.ok() || kernels > r.rest().size()) return std::nullopt;
  for (uint32_t k = 0; k < kernels; ++k) {
    std::optional<spirv::KernelInfo> info = spirv::readKernelInfo(r);
    if (!info || !r.ok()) return std::nullopt;
    module.kernels.push_back(std::move(*info));
  }
  uint32_t unavailable = r.u32();
  if (!r.ok() || unavailable > r.rest().size()) return std::nullopt;
  for (uint32_t u = 0; u < unavailable; ++u) {
    std::string kernel = r.str();
    std::string why = r.str();
    if (!r.ok()) return std::nullopt;
    module.unavailable.emplace(std::move(kernel), std::move(why));
  }
  uint32_t workDim = r.u32();
  if (!r.ok() || workDim > r.rest().size()) return std::nullopt;
  for (uint32_t k = 0; k < workDim; ++k) {
    std::string kernel = r.str();
    if (!r.ok()) return std::nullopt;
    module.launchValueKernels.insert(std::move(kernel));
  }
  if (!r.ok() || !r.atEnd()) return std::nullopt;
  return module;
}

}  // namespace xpurt::cuda
