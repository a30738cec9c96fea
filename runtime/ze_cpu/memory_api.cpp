// Contexts and memory. Every allocation is host memory that the CPU device reaches directly;
// the kinds differ only in what zeMemGetAllocProperties says about them.
#include "api.hpp"
#include "context.hpp"
#include "driver.hpp"
#include "entry.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>

namespace xpurt::ze_cpu {
namespace {

// At least a cache line, so that no two allocations share one.
constexpr size_t kMinAlignment = 64;

struct Allocation {
  size_t size;
  ze_memory_type_t type;
  uint64_t id;
  DeviceObject *device;  // null for host memory and shared memory tied to no device
  ContextObject *context;
};

// Every allocation of the driver by base address, for lookups of pointers into them.
class Allocations {
 public:
  void *allocate(ContextObject &context, ze_memory_type_t type, size_t size, size_t alignment,
                 DeviceObject *device, bool relaxedLimit) {
    if (size == 0) fail(ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    if (alignment & (alignment - 1)) fail(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    // Every device is the host's memory.
    if (size > driver().device(0).maxAllocBytes() && !relaxedLimit)
      fail(ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    ze_result_t outOfMemory = type == ZE_MEMORY_TYPE_HOST ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY
                                                          : ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    void *p = nullptr;
    if (posix_memalign(&p, std::max(alignment, kMinAlignment), size) != 0) fail(outOfMemory);
    try {
      std::unique_lock lock(mutex_);
      byBase_.emplace(reinterpret_cast<uintptr_t>(p),
                      Allocation{size, type, nextId_++, device, &context});
    } catch (...) {
      std::free(p);
      throw;
    }
    return p;
  }

  void free(const void *ptr) {
    {
      std::unique_lock lock(mutex_);
      if (byBase_.erase(reinterpret_cast<uintptr_t>(ptr)) == 0)
        fail(ZE_RESULT_ERROR_INVALID_ARGUMENT);  // not the start of an allocation of ours
    }
    std::free(const_cast<void *>(ptr));
  }

  void freeAllOf(const ContextObject &context) {
    std::unique_lock lock(mutex_);
    std::erase_if(byBase_, [&](const auto &entry) {
      if (entry.second.context != &context) return false;
      std::free(reinterpret_cast<void *>(entry.first));
      return true;
    });
  }

  // The allocation that contains ptr, and its base.
  std::optional<std::pair<uintptr_t, Allocation>> find(const void *ptr) {
    auto address = reinterpret_cast<uintptr_t>(ptr);
    std::shared_lock lock(mutex_);
    auto it = byBase_.upper_bound(address);
    if (it == byBase_.begin()) return std::nullopt;
    --it;
    if (address - it->first >= it->second.size) return std::nullopt;
    return *it;
  }

 private:
  std::shared_mutex mutex_;
  std::map<uintptr_t, Allocation> byBase_;
  uint64_t nextId_ = 1;
};

Allocations &allocations() {
  static auto *all = new Allocations;  // never destroyed: memory may be freed at exit
  return *all;
}

// Whether a device allocation descriptor's chain lifts the maxMemAllocSize limit.
bool relaxedLimit(const ze_device_mem_alloc_desc_t *desc) {
  for (auto *p = static_cast<const ze_base_desc_t *>(desc->pNext); p;
       p = static_cast<const ze_base_desc_t *>(p->pNext))
    if (p->stype == ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC)
      return reinterpret_cast<const ze_relaxed_allocation_limits_exp_desc_t *>(p)->flags &
             ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE;
  return false;
}

void checkDeviceDesc(const ze_device_mem_alloc_desc_t *desc) {
  requirePointer(desc);
  if (desc->flags > 0x7) fail(ZE_RESULT_ERROR_INVALID_ENUMERATION);
  if (desc->ordinal != 0) fail(ZE_RESULT_ERROR_INVALID_ARGUMENT);  // one kind of memory
}

void checkHostDesc(const ze_host_mem_alloc_desc_t *desc) {
  requirePointer(desc);
  if (desc->flags > 0xf) fail(ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

}  // namespace

namespace api {

ze_result_t zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
                            ze_context_handle_t *phContext) {
  return entry(ApiId::zeContextCreate, [&] {
    requireHandle(hDriver);
    requirePointer(desc);
    requirePointer(phContext);
    if (desc->flags > 0x1) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    *phContext = toHandle<ze_context_handle_t>(new ContextObject);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeContextCreateEx(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
                              uint32_t numDevices, ze_device_handle_t *phDevices,
                              ze_context_handle_t *phContext) {
  return entry(ApiId::zeContextCreateEx, [&] {
    requireHandle(hDriver);
    requirePointer(desc);
    requirePointer(phContext);
    if (desc->flags > 0x1) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (numDevices > 0 && !phDevices) return ZE_RESULT_ERROR_INVALID_SIZE;
    for (uint32_t i = 0; i < numDevices; ++i) deviceOf(phDevices[i]);
    *phContext = toHandle<ze_context_handle_t>(new ContextObject);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeContextDestroy(ze_context_handle_t hContext) {
  return entry(ApiId::zeContextDestroy, [&] {
    ContextObject &context = contextOf(hContext);
    allocations().freeAllOf(context);
    delete &context;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeContextGetStatus(ze_context_handle_t hContext) {
  return entry(ApiId::zeContextGetStatus, [&] {
    contextOf(hContext);
    return ZE_RESULT_SUCCESS;  // failed launches do not lose contexts (executor.hpp)
  });
}

ze_result_t zeContextSystemBarrier(ze_context_handle_t hContext, ze_device_handle_t hDevice) {
  return entry(ApiId::zeContextSystemBarrier, [&] {
    contextOf(hContext);
    deviceOf(hDevice);
    return ZE_RESULT_SUCCESS;  // the CPU's memory is coherent with the host's: nothing to flush
  });
}

ze_result_t zeContextMakeMemoryResident(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                        void *ptr, size_t size) {
  return entry(ApiId::zeContextMakeMemoryResident, [&] {
    (void)size;
    contextOf(hContext);
    deviceOf(hDevice);
    requirePointer(ptr);
    return ZE_RESULT_SUCCESS;  // host memory is always resident for the CPU
  });
}

ze_result_t zeContextEvictMemory(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                 void *ptr, size_t size) {
  return entry(ApiId::zeContextEvictMemory, [&] {
    (void)size;
    contextOf(hContext);
    deviceOf(hDevice);
    requirePointer(ptr);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeMemAllocShared(ze_context_handle_t hContext,
                             const ze_device_mem_alloc_desc_t *device_desc,
                             const ze_host_mem_alloc_desc_t *host_desc, size_t size,
                             size_t alignment, ze_device_handle_t hDevice, void **pptr) {
  return entry(ApiId::zeMemAllocShared, [&] {
    ContextObject &context = contextOf(hContext);
    checkDeviceDesc(device_desc);
    checkHostDesc(host_desc);
    requirePointer(pptr);
    DeviceObject *device = hDevice ? &deviceOf(hDevice) : nullptr;  // the device is optional
    *pptr = allocations().allocate(context, ZE_MEMORY_TYPE_SHARED, size, alignment, device,
                                   relaxedLimit(device_desc));
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeMemAllocDevice(ze_context_handle_t hContext,
                             const ze_device_mem_alloc_desc_t *device_desc, size_t size,
                             size_t alignment, ze_device_handle_t hDevice, void **pptr) {
  return entry(ApiId::zeMemAllocDevice, [&] {
    ContextObject &context = contextOf(hContext);
    DeviceObject &device = deviceOf(hDevice);
    checkDeviceDesc(device_desc);
    requirePointer(pptr);
    *pptr = allocations().allocate(context, ZE_MEMORY_TYPE_DEVICE, size, alignment, &device,
                                   relaxedLimit(device_desc));
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeMemAllocHost(ze_context_handle_t hContext, const ze_host_mem_alloc_desc_t *host_desc,
                           size_t size, size_t alignment, void **pptr) {
  return entry(ApiId::zeMemAllocHost, [&] {
    ContextObject &context = contextOf(hContext);
    checkHostDesc(host_desc);
    requirePointer(pptr);
    *pptr = allocations().allocate(context, ZE_MEMORY_TYPE_HOST, size, alignment, nullptr, false);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeMemFree(ze_context_handle_t hContext, void *ptr) {
  return entry(ApiId::zeMemFree, [&] {
    contextOf(hContext);
    requirePointer(ptr);
    allocations().free(ptr);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeMemFreeExt(ze_context_handle_t hContext,
                         const ze_memory_free_ext_desc_t *pMemFreeDesc, void *ptr) {
  return entry(ApiId::zeMemFreeExt, [&] {
    contextOf(hContext);
    requirePointer(pMemFreeDesc);
    requirePointer(ptr);
    if (pMemFreeDesc->freePolicy > 0x3) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    allocations().free(ptr);  // either policy: the application saw to it that nothing uses it
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeMemGetAllocProperties(ze_context_handle_t hContext, const void *ptr,
                                    ze_memory_allocation_properties_t *pMemAllocProperties,
                                    ze_device_handle_t *phDevice) {
  return entry(ApiId::zeMemGetAllocProperties, [&] {
    contextOf(hContext);
    requirePointer(ptr);
    requirePointer(pMemAllocProperties);
    auto found = allocations().find(ptr);
    ze_memory_allocation_properties_t &p = *pMemAllocProperties;
    p.type = found ? found->second.type : ZE_MEMORY_TYPE_UNKNOWN;
    p.id = found ? found->second.id : 0;
    p.pageSize = found ? static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
    if (phDevice) *phDevice = toHandle<ze_device_handle_t>(found ? found->second.device : nullptr);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeMemGetAddressRange(ze_context_handle_t hContext, const void *ptr, void **pBase,
                                 size_t *pSize) {
  return entry(ApiId::zeMemGetAddressRange, [&] {
    contextOf(hContext);
    requirePointer(ptr);
    auto found = allocations().find(ptr);
    if (!found) return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // not in an allocation of ours
    if (pBase) *pBase = reinterpret_cast<void *>(found->first);
    if (pSize) *pSize = found->second.size;
    return ZE_RESULT_SUCCESS;
  });
}

}  // namespace api
}  // namespace xpurt::ze_cpu
