// Modules on a CUDA device: SPIR-V compiled to PTX in the JIT worker (ptx_compiler.hpp,
// cached on disk), or PTX and cubin as they are, loaded with cuModuleLoadDataEx (the JIT log
// in the error when the driver refuses one). SPIR-V kernels carry the signature reflected
// from the module, so launches are checked as on every device; kernels of a PTX or cubin
// module take task launches only (one params pointer).
#pragma once

#include "core/backend.hpp"
#include "cuda_device.hpp"

#include <map>
#include <set>
#include <string>

namespace xpurt::cuda {

class CudaModule final : public core::Module {
 public:
  CudaModule(core::Ref<CudaDevice> device, std::string name, CUmodule handle,
             std::map<std::string, core::KernelSignature> signatures,
             std::map<std::string, std::string> unavailable,
             std::set<std::string> launchValueKernels = {}, bool prints = true);
  ~CudaModule() override;
  // Whether its code may call vprintf, whose output the driver writes only at a
  // synchronisation (the completion engine synchronizes with such launches' events).
  bool prints() const { return prints_; }

  CUmodule handle() const { return handle_; }
  CudaDevice &cudaDevice() const { return static_cast<CudaDevice &>(device()); }
  core::Ref<core::Kernel> createKernel(const std::string &name) override;

 private:
  CUmodule handle_;
  std::map<std::string, core::KernelSignature> signatures_;  // SPIR-V modules only
  std::map<std::string, std::string> unavailable_;           // kernel -> why
  std::set<std::string> launchValueKernels_;                 // take the launch values last
  bool prints_;
};

// A kernel: a CUfunction, which holds no launch state (arguments go with each launch), so
// one serves every queue and thread.
class CudaKernel final : public core::Kernel {
 public:
  // takesLaunchValues: the PTX kernel takes the launch values after the SPIR-V kernel's
  // parameters (KernelLaunch::values: what NVIDIA GPUs have no register for).
  CudaKernel(core::Ref<CudaModule> module, std::string name, CUfunction function,
             std::optional<core::KernelSignature> signature, bool takesLaunchValues = false);
  bool takesLaunchValues() const { return takesLaunchValues_; }

  CUfunction function() const { return function_; }
  uint32_t staticSharedBytes() const { return staticShared_; }
  bool prints() const { return static_cast<const CudaModule &>(module()).prints(); }
  // Asks the driver for more dynamic shared memory than the default 48 KB where a launch
  // needs it (once per size).
  void allowDynamicShared(uint32_t bytes);

 protected:
  void checkDeviceLimits(const core::KernelArgs &args, const core::NDRange &range) const override;

 private:
  CUfunction function_;
  bool takesLaunchValues_;
  uint32_t maxThreads_ = 1024;  // per block, as the kernel's registers allow
  uint32_t staticShared_ = 0;
  std::mutex sharedMutex_;
  uint32_t dynamicSharedAllowed_ = 48 * 1024;
};

// Bytes of dynamic shared memory a general launch's __local arguments take, each at an
// offset aligned to 16 (the PTX lowering's convention); offsets, if given, get each one's.
uint64_t layoutLocalArguments(const core::KernelArgs &args, std::vector<uint32_t> *offsets);

core::Ref<core::Module> loadCudaSpirvModule(core::Ref<CudaDevice> device,
                                            std::span<const std::byte> bytes,
                                            const std::string &name,
                                            const core::ModuleOptions &options);
core::Ref<core::Module> loadCudaNativeModule(core::Ref<CudaDevice> device,
                                             const core::NativeLibrary &library,
                                             const core::ModuleOptions &options);

}  // namespace xpurt::cuda
