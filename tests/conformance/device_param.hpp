// The conformance suite is parameterised by device: every backend runs the same tests.
#pragma once

#include <xpurt/xpurt.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "test_params.h"

namespace xpurt::test {

struct DeviceParam {
  std::string name;  // test-name suffix
  DeviceType type;
  uint32_t index;
  uint32_t flags;           // XPURT_DEVICE_FLAG_*
  bool cpuBackend = false;  // the CPU backend's device (not a Level Zero driver on the CPU)
};

inline void PrintTo(const DeviceParam &p, std::ostream *os) {
  *os << p.name;
}

// Every device of this build and machine: each GPU, then the CPU backend twice (device memory
// aliasing host memory, and with storage of its own, where a missing copy shows as it would
// on a GPU), then every other device of CPU type (a Level Zero driver running on the CPU).
inline std::vector<DeviceParam> conformanceDevices() {
  std::vector<DeviceParam> devices;
  auto named = [](DeviceType type, uint32_t index) {
    DeviceInfo info = Device::info(type, index);
    return std::string(info.backend) + (type == DeviceType::GPU ? "_gpu" : "_cpu") +
           std::to_string(index);
  };
  for (uint32_t i = 0, n = Device::count(DeviceType::GPU); i < n; ++i)
    devices.push_back({named(DeviceType::GPU, i), DeviceType::GPU, i, 0});
  devices.push_back({"cpu", DeviceType::CPU, 0, 0, true});
  devices.push_back(
      {"cpu_separate_memory", DeviceType::CPU, 0, XPURT_DEVICE_FLAG_SEPARATE_MEMORY, true});
  for (uint32_t i = 1, n = Device::count(DeviceType::CPU); i < n; ++i)
    devices.push_back({named(DeviceType::CPU, i), DeviceType::CPU, i, 0});
  return devices;
}

// The suite's kernels are SPIR-V (tests/kernels/task_kernels.cl and spirv_kernels.cl), which
// every device runs. Tests of what only the CPU device has (native modules, ISPC's task
// system, its threads) skip elsewhere, saying so.
class DeviceTest : public ::testing::TestWithParam<DeviceParam> {
 protected:
  Device device{GetParam().type, GetParam().index, GetParam().flags};
  Module module{device, "xpurt_test_tasks"};
  TaskQueue queue{device};

  bool onCpu() const { return GetParam().cpuBackend; }
};

// For a test of the CPU device alone: skips it on every other device with the reason.
#define XPURT_CPU_ONLY(what) \
  if (!onCpu())              \
  GTEST_SKIP() << "CPU device only: " << (what) << "; " << GetParam().name << " has none"

// Polls cond for up to 10 s without touching any queue (so nothing is forced by a sync).
template <class Cond>
bool eventually(Cond cond) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return true;
}

#define XPURT_INSTANTIATE_CONFORMANCE(suite)                                         \
  INSTANTIATE_TEST_SUITE_P(Devices, suite,                                           \
                           ::testing::ValuesIn(::xpurt::test::conformanceDevices()), \
                           [](const auto &param) { return param.param.name; })

}  // namespace xpurt::test
