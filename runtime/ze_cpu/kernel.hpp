// Modules, build logs and kernels over the CPU device's SPIR-V JIT.
#pragma once

#include "command.hpp"
#include "entry.hpp"
#include "launch_args.hpp"

#include <level_zero/ze_api.h>

#include <array>
#include <map>
#include <string>
#include <vector>

namespace xpurt::ze_cpu {

class DeviceObject;

struct BuildLog {
  std::string text;
};

class ModuleObject {
 public:
  // kernelNames: the module's entry points, in its order.
  ModuleObject(core::Ref<core::Module> module, std::vector<std::string> kernelNames);

  core::Module &compiled() const { return *module_; }
  const std::vector<const char *> &kernelNames() const { return namePointers_; }
  // Kernels that could not be built (a builtin the CPU device lacks, which is an unresolved
  // import here): name -> why.
  const std::map<std::string, std::string> &unresolved() const { return unresolved_; }

 private:
  core::Ref<core::Module> module_;
  std::vector<std::string> names_;
  std::vector<const char *> namePointers_;
  std::map<std::string, std::string> unresolved_;
};

class KernelObject {
 public:
  explicit KernelObject(core::Ref<core::Kernel> kernel);

  const std::string &name() const { return kernel_->name(); }
  const core::KernelSignature &signature() const { return *kernel_->signature(); }
  // Bytes of __local memory of the kernel's own variables.
  uint64_t staticLocalBytes() const;
  const std::array<uint32_t, 3> &groupSize() const { return groupSize_; }

  // zeKernelSetArgumentValue: a pointer is 8 bytes (pValue null: a null pointer); a __local
  // argument takes its size in bytes and no value; a value must have its parameter's size.
  ze_result_t setArgument(uint32_t index, size_t size, const void *value);
  ze_result_t setGroupSize(uint32_t x, uint32_t y, uint32_t z);
  void setGlobalOffset(uint32_t x, uint32_t y, uint32_t z) { globalOffset_ = {x, y, z}; }
  // Every allocation is reachable from every kernel: the flags are only kept to be read back.
  ze_kernel_indirect_access_flags_t indirectAccess() const { return indirectAccess_; }
  void setIndirectAccess(ze_kernel_indirect_access_flags_t flags) { indirectAccess_ = flags; }

  // A launch of groupCount groups (null: read from indirectCounts when it runs) with the
  // arguments, group size and offset set now; throws a Failure for what the device refuses.
  LaunchPayload launch(const ze_group_count_t *groupCount,
                       const ze_group_count_t *indirectCounts) const;

 private:
  LaunchArgs &writableArgs();

  core::Ref<core::Kernel> kernel_;
  LaunchArgsRef args_;
  std::vector<bool> isSet_;
  uint32_t unset_;
  std::array<uint32_t, 3> groupSize_{1, 1, 1};
  std::array<uint32_t, 3> globalOffset_{0, 0, 0};
  ze_kernel_indirect_access_flags_t indirectAccess_ = 0;
};

}  // namespace xpurt::ze_cpu
