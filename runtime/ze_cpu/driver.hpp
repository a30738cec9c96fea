// The driver and its devices: the host's CPU, run through xpurt's CPU backend (its oneTBB
// arena and SPIR-V JIT), linked into this library. XPURT_ZE_CPU_DEVICES=N offers it as N
// devices (for tests of programs that use several devices), all on the one CPU.
#pragma once

#include "core/backend.hpp"
#include "cpu/cpu_device.hpp"

#include <level_zero/ze_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xpurt::ze_cpu {

// Command queue groups: ordinal 0 runs everything, ordinal 1 is a copy engine.
inline constexpr uint32_t kComputeOrdinal = 0;
inline constexpr uint32_t kCopyOrdinal = 1;
inline constexpr uint32_t kQueueGroupCount = 2;
inline constexpr uint32_t kQueuesInGroup[kQueueGroupCount] = {4, 2};
inline constexpr size_t kMaxFillPatternSize = 128;

// Work-groups: what the device reports and SetGroupSize enforces.
inline constexpr uint32_t kMaxGroupSize = 1024;
inline constexpr uint32_t kMaxGroupCount = UINT32_MAX;
// The default sub-group size of the CPU JIT: one AVX-512 vector of floats.
inline constexpr uint32_t kSubGroupSize = 16;

// What a ze_device_handle_t points to. The objects behind Level Zero handles are named
// *Object (DeviceObject, ContextObject, ModuleObject, KernelObject, EventObject), apart from
// xpurt's own core::Device, core::Module, core::Kernel and core::Event they run on.
class DeviceObject {
 public:
  // index: among the driver's devices (one unless XPURT_ZE_CPU_DEVICES asks for more).
  DeviceObject(core::Ref<core::Device> cpuDevice, uint32_t index);

  cpu::CpuDevice &cpu() const { return static_cast<cpu::CpuDevice &>(*cpuDevice_); }
  const core::Ref<core::Device> &coreDevice() const { return cpuDevice_; }
  const std::string &name() const { return name_; }
  uint32_t threads() const { return threads_; }
  uint32_t clockMHz() const { return clockMHz_; }
  uint64_t memoryBytes() const { return memoryBytes_; }
  // A single allocation may be as large as the memory (ze_relaxed_allocation_limits_exp_desc_t
  // lifts even that).
  uint64_t maxAllocBytes() const { return memoryBytes_; }
  const ze_device_uuid_t &uuid() const { return uuid_; }

 private:
  core::Ref<core::Device> cpuDevice_;
  std::string name_;
  uint32_t threads_;
  uint32_t clockMHz_;
  uint64_t memoryBytes_;
  ze_device_uuid_t uuid_{};
};

// The most devices XPURT_ZE_CPU_DEVICES may ask for.
inline constexpr uint32_t kMaxDevices = 64;

class Driver {
 public:
  // Throws an xpurt Error for a bad XPURT_ZE_CPU_DEVICES.
  Driver();
  uint32_t deviceCount() const { return static_cast<uint32_t>(devices_.size()); }
  DeviceObject &device(uint32_t index) { return *devices_[index]; }
  // Whether two devices reach each other's memory (zeDeviceCanAccessPeer): yes, unless
  // XPURT_ZE_CPU_PEER_ACCESS=0 has them say no (for tests of programs that copy through the
  // host where devices lack peer access; the memory is the host's either way).
  bool peerAccess(const DeviceObject &a, const DeviceObject &b) const {
    return &a == &b || peerAccess_;
  }
  const ze_driver_uuid_t &uuid() const { return uuid_; }

 private:
  std::unique_ptr<core::Backend> backend_;  // the CPU backend the devices belong to
  std::vector<std::unique_ptr<DeviceObject>> devices_;
  bool peerAccess_ = true;
  ze_driver_uuid_t uuid_{};
};

// The driver, created by the first successful zeInit and never destroyed (executor threads
// and the loader may outlive static destructors). Entry points run only after zeInit.
Driver &driver();
// Creates the driver; throws what the CPU device throws (a bad XPURT_CPU_THREADS, say).
void createDriver();

// The device a handle names: INVALID_NULL_HANDLE for null, INVALID_ARGUMENT for another.
DeviceObject &deviceOf(ze_device_handle_t handle);

}  // namespace xpurt::ze_cpu
