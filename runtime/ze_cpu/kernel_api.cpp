// Kernels: arguments checked against the kernel's signature as they are set, group sizes
// against the device's limits and the kernel's required size.
#include "api.hpp"
#include "core/error.hpp"
#include "cpu/cpu_kernel.hpp"
#include "driver.hpp"
#include "entry.hpp"
#include "kernel.hpp"

#include <algorithm>
#include <cstring>

namespace xpurt::ze_cpu {
namespace {

using Kind = core::KernelParam::Kind;

KernelObject &kernelOf(ze_kernel_handle_t handle) {
  requireHandle(handle);
  return *fromHandle<KernelObject>(handle);
}

// Every argument at an 8-byte aligned offset, of its parameter's size (pointers: 8 bytes;
// __local: the uint64_t byte count), all zero until set.
core::KernelArgs initialArgs(const core::KernelSignature &signature) {
  core::KernelArgs a;
  uint32_t offset = 0;
  for (const core::KernelParam &p : signature.params) {
    bool value = p.kind == Kind::Value || p.kind == Kind::Struct;
    uint32_t size = value ? p.size : 8;
    a.args.push_back(
        {p.kind == Kind::LocalPointer ? XPURT_KERNEL_ARG_LOCAL : XPURT_KERNEL_ARG_VALUE, offset,
         p.kind == Kind::LocalPointer ? 0 : size});
    offset += (size + 7) / 8 * 8;
  }
  a.data.resize(offset);
  return a;
}

// The largest divisor of n that is at most limit.
uint32_t largestDivisor(uint32_t n, uint32_t limit) {
  for (uint32_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

}  // namespace

KernelObject::KernelObject(core::Ref<core::Kernel> kernel)
    : kernel_(std::move(kernel)),
      args_(new LaunchArgs(kernel_, initialArgs(signature()))),
      isSet_(signature().params.size(), false),
      unset_(static_cast<uint32_t>(signature().params.size())) {
  const auto &required = signature().requiredLocalSize;
  if (required[0] != 0) groupSize_ = required;
}

uint64_t KernelObject::staticLocalBytes() const {
  return static_cast<const cpu::CpuKernel &>(*kernel_).staticLocalBytes();
}

LaunchArgs &KernelObject::writableArgs() {
  if (!args_.unique()) {
    auto *copy = new LaunchArgs(args_->kernel, args_->args);
    copy->checked.store(args_->checked.load(std::memory_order_relaxed), std::memory_order_relaxed);
    args_ = LaunchArgsRef(copy);
  }
  return *args_.get();
}

ze_result_t KernelObject::setArgument(uint32_t index, size_t size, const void *value) {
  const auto &params = signature().params;
  if (index >= params.size()) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
  const core::KernelParam &param = params[index];
  std::byte word[8]{};       // a pointer or a __local size, as the arguments hold it
  const void *bytes = word;  // null: zeros, for a value argument given without a value
  size_t length = sizeof word;
  switch (param.kind) {
    case Kind::GlobalPointer:
    case Kind::ConstantPointer:
      if (size != sizeof(void *)) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
      if (value) std::memcpy(word, value, sizeof(void *));  // none: a null pointer
      break;
    case Kind::LocalPointer: {
      uint64_t count = size;  // a value, if given, is ignored, as Intel's driver does
      std::memcpy(word, &count, sizeof count);
      break;
    }
    case Kind::Value:
    case Kind::Struct:
      if (size != param.size) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
      bytes = value;
      length = size;
      break;
  }
  uint32_t offset = args_->args.args[index].offset;
  const std::byte *current = args_->args.data.data() + offset;
  bool same = isSet_[index] && (bytes ? std::memcmp(current, bytes, length) == 0
                                      : std::all_of(current, current + length,
                                                    [](std::byte b) { return b == std::byte{0}; }));
  // Setting what is set already (as a launch loop may) copies nothing.
  if (!same) {
    LaunchArgs &args = writableArgs();
    std::byte *target = args.args.data.data() + offset;
    if (bytes)
      std::memcpy(target, bytes, length);
    else
      std::memset(target, 0, length);
    if (param.kind == Kind::LocalPointer) {
      args.args.args[index].size = static_cast<uint32_t>(std::min<size_t>(size, UINT32_MAX));
      args.checked.store(false, std::memory_order_relaxed);
    }
  }
  if (!isSet_[index]) {
    isSet_[index] = true;
    --unset_;
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t KernelObject::setGroupSize(uint32_t x, uint32_t y, uint32_t z) {
  const std::array<uint32_t, 3> size{x, y, z};
  const auto &required = signature().requiredLocalSize;
  uint64_t total = uint64_t{x} * y * z;
  if (total == 0 || total > kMaxGroupSize || (required[0] != 0 && size != required))
    return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
  groupSize_ = size;
  return ZE_RESULT_SUCCESS;
}

LaunchPayload KernelObject::launch(const ze_group_count_t *groupCount,
                                   const ze_group_count_t *indirectCounts) const {
  if (unset_ > 0) fail(ZE_RESULT_ERROR_INVALID_ARGUMENT);  // an argument was never set
  LaunchPayload launch{args_, {}, indirectCounts};
  core::NDRange &range = launch.range;
  const uint32_t counts[3] = {groupCount ? groupCount->groupCountX : 1,
                              groupCount ? groupCount->groupCountY : 1,
                              groupCount ? groupCount->groupCountZ : 1};
  for (int d = 0; d < 3; ++d) {
    range.localSize[d] = groupSize_[d];
    range.globalSize[d] = uint64_t{counts[d]} * groupSize_[d];
    range.globalOffset[d] = globalOffset_[d];
  }
  range.workDim = range.globalSize[2] > 1 ? 3 : range.globalSize[1] > 1 ? 2 : 1;
  // The device's own limits (__local memory), checked once per set of argument values.
  if (!args_->checked.load(std::memory_order_relaxed)) {
    core::NDRange scratch = range;
    try {
      kernel_->checkLaunch(args_->args, scratch);
    } catch (const core::Error &e) {
      fail(e.code() == XPURT_ERROR_OUT_OF_RANGE ? ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
                                                : ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    args_->checked.store(true, std::memory_order_relaxed);
  }
  return launch;
}

namespace api {

ze_result_t zeKernelCreate(ze_module_handle_t hModule, const ze_kernel_desc_t *desc,
                           ze_kernel_handle_t *phKernel) {
  return entry(ApiId::zeKernelCreate, [&] {
    requireHandle(hModule);
    requirePointer(desc);
    requirePointer(desc->pKernelName);
    requirePointer(phKernel);
    if (desc->flags > 0x3) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    ModuleObject &module = *fromHandle<ModuleObject>(hModule);
    if (module.unresolved().count(desc->pKernelName))
      return ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED;  // it calls builtins the device lacks
    core::Ref<core::Kernel> kernel;
    try {
      kernel = module.compiled().createKernel(desc->pKernelName);
    } catch (const core::Error &e) {
      if (e.code() == XPURT_ERROR_NOT_FOUND) return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
      throw;
    }
    if (!kernel->signature()) return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    *phKernel = toHandle<ze_kernel_handle_t>(new KernelObject(std::move(kernel)));
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeKernelDestroy(ze_kernel_handle_t hKernel) {
  return entry(ApiId::zeKernelDestroy, [&] {
    delete &kernelOf(hKernel);  // appended launches hold what they need
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeKernelSetGroupSize(ze_kernel_handle_t hKernel, uint32_t groupSizeX,
                                 uint32_t groupSizeY, uint32_t groupSizeZ) {
  return entry(ApiId::zeKernelSetGroupSize,
               [&] { return kernelOf(hKernel).setGroupSize(groupSizeX, groupSizeY, groupSizeZ); });
}

ze_result_t zeKernelSuggestGroupSize(ze_kernel_handle_t hKernel, uint32_t globalSizeX,
                                     uint32_t globalSizeY, uint32_t globalSizeZ,
                                     uint32_t *groupSizeX, uint32_t *groupSizeY,
                                     uint32_t *groupSizeZ) {
  return entry(ApiId::zeKernelSuggestGroupSize, [&] {
    KernelObject &kernel = kernelOf(hKernel);
    requirePointer(groupSizeX);
    requirePointer(groupSizeY);
    requirePointer(groupSizeZ);
    if (globalSizeX == 0 || globalSizeY == 0 || globalSizeZ == 0)
      return ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION;
    std::array<uint32_t, 3> size = kernel.signature().requiredLocalSize;
    if (size[0] == 0) {
      // Sizes that divide the global size, so that every group is whole: up to 256 work-items
      // (the JIT vectorises across x, 16 at a time), fewer where that leaves each thread of
      // the device fewer than four groups to run.
      uint32_t threads = driver().device(0).threads();  // every device is the whole CPU
      uint32_t budget = std::clamp<uint32_t>(globalSizeX / std::max(4 * threads, 1u), 16, 256);
      size[0] = largestDivisor(globalSizeX, budget);
      size[1] = largestDivisor(globalSizeY, std::max(1u, budget / size[0]));
      size[2] = largestDivisor(globalSizeZ, std::max(1u, budget / (size[0] * size[1])));
    }
    *groupSizeX = size[0];
    *groupSizeY = size[1];
    *groupSizeZ = size[2];
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeKernelSetArgumentValue(ze_kernel_handle_t hKernel, uint32_t argIndex, size_t argSize,
                                     const void *pArgValue) {
  return entry(ApiId::zeKernelSetArgumentValue,
               [&] { return kernelOf(hKernel).setArgument(argIndex, argSize, pArgValue); });
}

ze_result_t zeKernelSetIndirectAccess(ze_kernel_handle_t hKernel,
                                      ze_kernel_indirect_access_flags_t flags) {
  return entry(ApiId::zeKernelSetIndirectAccess, [&] {
    KernelObject &kernel = kernelOf(hKernel);
    if (flags > 0x7) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    kernel.setIndirectAccess(flags);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeKernelGetIndirectAccess(ze_kernel_handle_t hKernel,
                                      ze_kernel_indirect_access_flags_t *pFlags) {
  return entry(ApiId::zeKernelGetIndirectAccess, [&] {
    KernelObject &kernel = kernelOf(hKernel);
    requirePointer(pFlags);
    *pFlags = kernel.indirectAccess();
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeKernelGetSourceAttributes(ze_kernel_handle_t hKernel, uint32_t *pSize,
                                        char **pString) {
  return entry(ApiId::zeKernelGetSourceAttributes, [&] {
    kernelOf(hKernel);
    requirePointer(pSize);
    // The JIT keeps no source attributes: an empty string.
    if (!pString) {
      *pSize = 1;
    } else if (*pString && *pSize > 0) {
      (*pString)[0] = '\0';
    }
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeKernelSetCacheConfig(ze_kernel_handle_t hKernel, ze_cache_config_flags_t flags) {
  return entry(ApiId::zeKernelSetCacheConfig, [&] {
    kernelOf(hKernel);
    if (flags > 0x3) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return ZE_RESULT_SUCCESS;  // a hint: __local memory is ordinary memory on the CPU
  });
}

ze_result_t zeKernelGetProperties(ze_kernel_handle_t hKernel,
                                  ze_kernel_properties_t *pKernelProperties) {
  return entry(ApiId::zeKernelGetProperties, [&] {
    KernelObject &kernel = kernelOf(hKernel);
    requirePointer(pKernelProperties);
    ze_kernel_properties_t &p = *pKernelProperties;
    const auto &required = kernel.signature().requiredLocalSize;
    p.numKernelArgs = static_cast<uint32_t>(kernel.signature().params.size());
    p.requiredGroupSizeX = required[0];
    p.requiredGroupSizeY = required[1];
    p.requiredGroupSizeZ = required[2];
    p.requiredNumSubGroups = 0;
    p.requiredSubgroupSize = 0;
    p.maxSubgroupSize = kSubGroupSize;
    p.maxNumSubgroups = kMaxGroupSize / kSubGroupSize;
    p.localMemSize = static_cast<uint32_t>(kernel.staticLocalBytes());
    p.privateMemSize = 0;
    p.spillMemSize = 0;
    std::memset(&p.uuid, 0, sizeof p.uuid);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeKernelGetName(ze_kernel_handle_t hKernel, size_t *pSize, char *pName) {
  return entry(ApiId::zeKernelGetName,
               [&] { return copyString(kernelOf(hKernel).name(), pSize, pName); });
}

ze_result_t zeKernelSetGlobalOffsetExp(ze_kernel_handle_t hKernel, uint32_t offsetX,
                                       uint32_t offsetY, uint32_t offsetZ) {
  return entry(ApiId::zeKernelSetGlobalOffsetExp, [&] {
    kernelOf(hKernel).setGlobalOffset(offsetX, offsetY, offsetZ);
    return ZE_RESULT_SUCCESS;
  });
}

}  // namespace api
}  // namespace xpurt::ze_cpu
