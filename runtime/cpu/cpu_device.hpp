// The CPU device: memory is host memory, queues run on one oneTBB arena of the device.
#pragma once

#include "core/backend.hpp"

#include <oneapi/tbb/task_arena.h>

namespace xpurt::cpu {

class CpuDevice final : public core::Device {
 public:
  // Reads XPURT_CPU_THREADS and XPURT_CPU_DEVICE_MEMORY; throws INVALID_CONFIG on bad values.
  CpuDevice(core::Backend &backend, XpurtDeviceInfo info, const core::DeviceOptions &options);

  XpurtDeviceInfo info() const override { return info_; }
  bool deviceMemoryIsHostMemory() const override { return !separateMemory_; }
  void *allocate(size_t size, XpurtAllocationType type) override;
  void deallocate(void *ptr, XpurtAllocationType type) noexcept override;
  core::Ref<core::TaskQueue> createQueue(const core::QueueOptions &options) override;
  core::Ref<core::Module> loadModule(const core::ModuleSource &source,
                                     const core::ModuleOptions &options) override;

  // Every launch on this device runs inside this arena, so XPURT_CPU_THREADS bounds it.
  tbb::task_arena &arena() { return arena_; }

 private:
  XpurtDeviceInfo info_;
  bool separateMemory_;
  tbb::task_arena arena_;
};

// The host's CPU as a device description (name from /proc/cpuinfo, threads, memory).
XpurtDeviceInfo describeHostCpu(uint32_t threads);

}  // namespace xpurt::cpu
