// The CPU device: memory is host memory, queues run on one oneTBB arena of the device.
#pragma once

#include "arena_pool.hpp"
#include "core/backend.hpp"
#include "core_share.hpp"

namespace xpurt::cpu {

class CpuDevice final : public core::Device {
 public:
  // Reads XPURT_CPU_THREADS and XPURT_CPU_DEVICE_MEMORY; throws INVALID_CONFIG on bad values.
  CpuDevice(core::Backend &backend, XpurtDeviceInfo info, const core::DeviceOptions &options);

  XpurtDeviceInfo info() const override { return info_; }
  bool deviceMemoryIsHostMemory() const override { return !separateMemory_; }
  bool storageIsHostMemory() const override { return true; }
  void *allocate(size_t size, XpurtAllocationType type) override;
  void deallocate(void *ptr, XpurtAllocationType type) noexcept override;
  core::Ref<core::TaskQueue> createQueue(const core::QueueOptions &options) override;
  core::Ref<core::Module> loadSpirv(std::span<const std::byte> bytes, const std::string &name,
                                    const core::ModuleOptions &options) override;
  bool loadsNativeLibraries() const override { return true; }
  // One AVX-512 vector of floats: the widest the JIT vectorises the work-item loop to.
  uint32_t programCount() const override { return 16; }
  core::Ref<core::Module> loadNativeLibrary(const core::NativeLibrary &library,
                                            const core::ModuleOptions &options) override;
  // cpu_graph.cpp: a DAG of dependency counters run on the arena.
  core::Ref<core::GraphExec> lowerGraph(std::shared_ptr<const core::GraphProgram> program) override;

  // Every launch on this device runs inside its arena, so XPURT_CPU_THREADS bounds it.
  tbb::task_arena &arena() { return *arena_; }
  // How kernels and copy engines share the arena's cores (core_share.hpp).
  CoreShare &cores() { return cores_; }

 private:
  XpurtDeviceInfo info_;
  bool separateMemory_;
  PooledArena arena_;  // arena_pool.hpp says why it is pooled
  CoreShare cores_;
};

// The host's CPU as a device description (name from /proc/cpuinfo, threads, memory).
XpurtDeviceInfo describeHostCpu(uint32_t threads);

}  // namespace xpurt::cpu
