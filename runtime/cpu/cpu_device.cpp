#include "cpu_device.hpp"

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "cpu_queue.hpp"
#include "native_module.hpp"
#include "out_of_order_queue.hpp"
#include "spirv_module.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace xpurt::cpu {

static constexpr size_t kAlignment = 64;  // a cache line: no false sharing between views
// Allocations this large start on a 2 MiB boundary and ask for transparent huge pages: a copy or
// kernel streaming through them then misses the TLB once per 2 MiB rather than once per 4 KiB
// (the pipeline sample's copies and kernels about 1.1x as fast, docs/history/performance-log.md).
static constexpr size_t kHugePageBytes = size_t{2} << 20;
static constexpr unsigned char kPoison = 0xA5;

XpurtDeviceInfo describeHostCpu(uint32_t threads) {
  XpurtDeviceInfo info{};
  info.type = XPURT_DEVICE_TYPE_CPU;
  std::strncpy(info.backend, "cpu", sizeof info.backend - 1);
  std::string name = "host CPU", vendor = "unknown";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    auto value = [&] {
      auto colon = line.find(':');
      return colon == std::string::npos ? std::string()
                                        : line.substr(line.find_first_not_of(' ', colon + 1));
    };
    if (line.rfind("model name", 0) == 0) name = value();
    if (line.rfind("vendor_id", 0) == 0) vendor = value();
    if (name != "host CPU" && vendor != "unknown") break;
  }
  std::strncpy(info.name, name.c_str(), sizeof info.name - 1);
  std::strncpy(info.vendor, vendor.c_str(), sizeof info.vendor - 1);
  info.computeUnits = threads;
  info.globalMemorySize =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  info.maxTaskCount = INT_MAX;   // ISPC task indices and counts are 32-bit ints
  info.maxWorkGroupSize = 4096;  // work-items of a group run in loops; their state is per group
  info.deviceMemoryIsHostMemory = true;
  return info;
}

static XpurtDeviceInfo withThreadsFromEnvironment(XpurtDeviceInfo info) {
  info.computeUnits =
      static_cast<uint32_t>(core::envUnsigned("XPURT_CPU_THREADS", 1, 4096, info.computeUnits));
  return info;
}

CpuDevice::CpuDevice(core::Backend &backend, XpurtDeviceInfo info,
                     const core::DeviceOptions &options)
    : core::Device(backend),
      info_(withThreadsFromEnvironment(info)),
      arena_(takeArena(static_cast<int>(info_.computeUnits))),
      cores_(static_cast<int>(info_.computeUnits)) {
  separateMemory_ = options.separateMemory ||
                    core::envChoice("XPURT_CPU_DEVICE_MEMORY", {"host", "separate"}, 0) == 1;
  info_.deviceMemoryIsHostMemory = !separateMemory_;
  core::log().debug("CPU device '{}': {} threads, device memory {}", info_.name, info_.computeUnits,
                    separateMemory_ ? "separate" : "is host memory");
}

void *CpuDevice::allocate(size_t size, XpurtAllocationType type) {
  if (size > SIZE_MAX - kAlignment)
    core::fail(XPURT_ERROR_OUT_OF_MEMORY, "cannot allocate {} bytes", size);
  size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
  size_t alignment = rounded >= kHugePageBytes ? kHugePageBytes : kAlignment;
  void *p = nullptr;
  if (posix_memalign(&p, alignment, rounded) != 0) p = nullptr;
#if defined(MADV_HUGEPAGE)
  // Before the first touch below, which is when the kernel picks the page size. Advice only:
  // where huge pages are off or short, the memory is the same, in 4 KiB pages.
  if (p && alignment == kHugePageBytes) madvise(p, rounded, MADV_HUGEPAGE);
#endif
  if (!p)
    core::fail(XPURT_ERROR_OUT_OF_MEMORY, "cannot allocate {} bytes of {} memory on the CPU", size,
               type == XPURT_ALLOC_TYPE_DEVICE ? "device" : "host");
  // Separate device storage starts as garbage, as on a GPU, so a missing copy is seen.
  if (type == XPURT_ALLOC_TYPE_DEVICE) std::memset(p, kPoison, rounded);
  return p;
}

void CpuDevice::deallocate(void *ptr, XpurtAllocationType) noexcept {
  std::free(ptr);
}

core::Ref<core::TaskQueue> CpuDevice::createQueue(const core::QueueOptions &options) {
  if (options.outOfOrder)
    return core::makeRef<OutOfOrderQueue>(core::Ref<CpuDevice>(this), options);
  return core::makeRef<CpuQueue>(core::Ref<CpuDevice>(this), options);
}

core::Ref<core::Module> CpuDevice::loadSpirv(std::span<const std::byte> bytes,
                                             const std::string &name,
                                             const core::ModuleOptions &options) {
  return loadSpirvModule(core::Ref<core::Device>(this), bytes, name, options);
}

core::Ref<core::Module> CpuDevice::loadNativeLibrary(const core::NativeLibrary &library,
                                                     const core::ModuleOptions &options) {
  return loadNativeModule(core::Ref<core::Device>(this), library, options);
}

}  // namespace xpurt::cpu
