// Native CPU modules: shared libraries whose kernels follow ISPC's CPU convention, an exported
// <kernel>_cpu_entry_point(void *params, int d0, int d1, int d2) that launches the kernel's
// tasks through ISPCLaunch/ISPCSync (see ispc_task_system.cpp).
#pragma once

#include "core/backend.hpp"
#include "core/error.hpp"
#include "cpu_kernel.hpp"

#include <array>

namespace xpurt::cpu {

// Checks and loads a native library for the CPU device. Throws INVALID_MODULE or UNSUPPORTED
// with a message that says what is wrong; a SystemSearch that finds nothing returns null.
core::Ref<core::Module> loadNativeModule(core::Ref<core::Device> device,
                                         const core::NativeLibrary &library,
                                         const core::ModuleOptions &options);

class NativeKernel final : public CpuKernel {
 public:
  using EntryPoint = void (*)(void *params, int d0, int d1, int d2);
  NativeKernel(core::Ref<core::Module> module, std::string name, EntryPoint entry)
      : CpuKernel(std::move(module), std::move(name)), entry_(entry) {}

  void run(void *params, const std::array<uint32_t, 3> &dims) const override {
    entry_(params, static_cast<int>(dims[0]), static_cast<int>(dims[1]), static_cast<int>(dims[2]));
  }
  // Never reached: the base checkLaunch refuses general launches of native kernels.
  void run(const core::KernelArgs &, const core::NDRange &) const override {
    core::fail(XPURT_ERROR_UNSUPPORTED, "native kernel '{}' takes task launches only", name());
  }

 private:
  EntryPoint entry_;
};

}  // namespace xpurt::cpu
