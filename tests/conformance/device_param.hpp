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
  uint32_t flags;  // XPURT_DEVICE_FLAG_*
};

inline void PrintTo(const DeviceParam &p, std::ostream *os) {
  *os << p.name;
}

inline std::vector<DeviceParam> conformanceDevices() {
  // The CPU twice: device memory aliasing host memory, and with storage of its own, where a
  // missing copy shows as it would on a GPU.
  return {{"cpu", DeviceType::CPU, 0},
          {"cpu_separate_memory", DeviceType::CPU, XPURT_DEVICE_FLAG_SEPARATE_MEMORY}};
}

class DeviceTest : public ::testing::TestWithParam<DeviceParam> {
 protected:
  Device device{GetParam().type, 0, GetParam().flags};
  Module module{device, "xpurt_test_kernels"};
  TaskQueue queue{device};
};

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
