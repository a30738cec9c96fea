// The CPU device's JIT: host target machine (with the real CPU's features), optimisation
// pipeline, and an ORC LLJIT whose code lives as long as the module that asked for it.
#pragma once

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace xpurt::cpu {

class JitEngine {
 public:
  // The process's engine, created on first use.
  static JitEngine &instance();

  const llvm::DataLayout &dataLayout() const { return layout_; }
  const llvm::Triple &triple() const { return triple_; }
  const std::string &cpuName() const { return cpu_; }
  const std::string &cpuFeatures() const { return features_; }

  // Optimises (O3, vectorisers on, libmvec for vector math) with the host target machine.
  void optimize(llvm::Module &module);
  // Machine code for the host, as an ELF object file.
  std::string emitObject(llvm::Module &module, const std::string &name);
  // A target machine for the host of the thread's own (the engine's is shared under a lock),
  // and optimize and emitObject with it: for compiling several modules at once.
  std::unique_ptr<llvm::TargetMachine> newTargetMachine() const;
  void optimize(llvm::Module &module, llvm::TargetMachine &target) const;
  std::string emitObject(llvm::Module &module, const std::string &name,
                         llvm::TargetMachine &target) const;

  // Compiled code of one module; releasing it frees the code.
  class Code {
   public:
    ~Code();
    // Null if absent; then *why (if given) says what failed to link.
    void *lookup(const std::string &symbol, std::string *why = nullptr);

   private:
    friend class JitEngine;
    Code(JitEngine &engine, llvm::orc::JITDylib &dylib) : engine_(engine), dylib_(dylib) {}
    JitEngine &engine_;
    llvm::orc::JITDylib &dylib_;
  };
  // Links object files from emitObject (or the cache) into the process, as one module.
  std::unique_ptr<Code> load(const std::vector<std::string> &objects, const std::string &name);

 private:
  JitEngine();
  // This thread's last error of linking code into the process (the session reports them).
  static std::string &lastLinkError();
  std::unique_ptr<llvm::orc::JITTargetMachineBuilder> targetBuilder_;
  std::unique_ptr<llvm::TargetMachine> targetMachine_;
  std::mutex targetMutex_;  // the target machine is not safe to share between threads
  llvm::DataLayout layout_;
  llvm::Triple triple_;
  std::string cpu_, features_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::atomic<uint64_t> nextDylib_{0};
};

}  // namespace xpurt::cpu
