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
  uint32_t flags;  // XPURT_DEVICE_FLAG_*
};

inline void PrintTo(const DeviceParam &p, std::ostream *os) {
  *os << p.name;
}

// Every device of this build and machine: each GPU, then the CPU twice (device memory
// aliasing host memory, and with storage of its own, where a missing copy shows as it would
// on a GPU).
inline std::vector<DeviceParam> conformanceDevices() {
  std::vector<DeviceParam> devices;
  for (uint32_t i = 0, n = Device::count(DeviceType::GPU); i < n; ++i)
    devices.push_back({"gpu" + std::to_string(i), DeviceType::GPU, i, 0});
  devices.push_back({"cpu", DeviceType::CPU, 0, 0});
  devices.push_back({"cpu_separate_memory", DeviceType::CPU, 0, XPURT_DEVICE_FLAG_SEPARATE_MEMORY});
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

  bool onCpu() const { return GetParam().type == DeviceType::CPU; }
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
