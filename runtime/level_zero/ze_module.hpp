// Modules on a Level Zero device: SPIR-V or a native binary built by the driver
// (zeModuleCreate), the build log in the error when the build fails. SPIR-V kernels carry the
// signature xpurt reflects from the module (in the JIT worker, as the CPU does), so launches
// are checked as on every device; a native binary's kernels take task launches only.
#pragma once

#include "core/backend.hpp"
#include "ze_device.hpp"

#include <level_zero/ze_api.h>

#include <array>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace xpurt::level_zero {

class ZeModule final : public core::Module {
 public:
  // spirv: the SPIR-V the driver built (none for a native binary), with its options, kept for
  // launchValueVariant.
  ZeModule(core::Ref<ZeDevice> device, std::string name, ze_module_handle_t handle,
           std::map<std::string, core::KernelSignature> signatures,
           std::vector<uint32_t> spirv = {}, core::ModuleOptions options = {});
  ~ZeModule() override;

  ze_module_handle_t handle() const { return handle_; }
  core::Ref<core::Kernel> createKernel(const std::string &name) override;

  // The module for launches the driver cannot express: a partial last work-group, or a global
  // offset where the driver has no global offset of its own. Built from the SPIR-V on first
  // use (spirv::addLaunchValues: its kernels take the launch values as one more argument), or
  // this module itself where no function reads the work-item built-ins those change. Throws
  // as zeModuleCreate does, and UNSUPPORTED for a native binary.
  struct LaunchValueVariant {
    ze_module_handle_t handle = nullptr;
    bool takesLaunchValues = false;
  };
  LaunchValueVariant launchValueVariant();

 private:
  ze_module_handle_t handle_;
  // The kernels' signatures where xpurt reflected them (SPIR-V; not a native binary).
  std::map<std::string, core::KernelSignature> signatures_;
  std::vector<uint32_t> spirv_;
  core::ModuleOptions options_;
  std::mutex variantMutex_;
  std::optional<LaunchValueVariant> variant_;
};

// A kernel: the module's entry point by name. Level Zero kernel objects hold their arguments
// and group size, so each queue launches a clone of its own (ze_queue.cpp); this one checks
// that the kernel exists and serves as the first clone's source of properties.
class ZeKernel final : public core::Kernel {
 public:
  // Creates the kernel object that answers questions (zeKernelCreate): throws NOT_FOUND
  // naming the module when the driver has no such kernel.
  ZeKernel(core::Ref<ZeModule> module, std::string name,
           std::optional<core::KernelSignature> signature);
  ~ZeKernel() override;
  ZeModule &zeModule() const { return static_cast<ZeModule &>(module()); }

 protected:
  // zeKernelSuggestGroupSize, remembered per global size.
  std::optional<std::array<uint64_t, 3>> suggestLocalSize(
      const core::NDRange &range) const override;

 private:
  ze_kernel_handle_t prototype_ = nullptr;
  mutable std::mutex suggestedMutex_;
  mutable std::map<std::array<uint64_t, 3>, std::array<uint64_t, 3>> suggested_;
};

// The build flags for zeModuleCreate: the module's options, then ISPCRT_IGC_OPTIONS as ISPCRT
// reads it ("+ flags" appends to them, "= flags" replaces them).
std::string buildFlags(const std::string &moduleFlags);

core::Ref<core::Module> loadZeSpirvModule(core::Ref<ZeDevice> device,
                                          std::span<const std::byte> bytes, const std::string &name,
                                          const core::ModuleOptions &options);
core::Ref<core::Module> loadZeNativeModule(core::Ref<ZeDevice> device,
                                           const core::NativeLibrary &library,
                                           const core::ModuleOptions &options);

}  // namespace xpurt::level_zero
