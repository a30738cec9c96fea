// The Level Zero tests' fixture: xpurt's Level Zero driver for the CPU (runtime/ze_cpu), which
// the loader loaded, with its inspection functions (the commands it ran, on which queue group,
// waiting on which events) and fault injection, and its device.
#pragma once

#include "ze_cpu/ze_cpu_inspect.h"

#include <xpurt/xpurt.hpp>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace xpurt::test {

// The driver the loader loaded; its inspection functions.
struct ZeCpu {
  void *library = dlopen(XPURT_ZE_CPU_DRIVER, RTLD_NOW | RTLD_NOLOAD);
  template <class F>
  F *get(const char *name) const {
    return library ? reinterpret_cast<F *>(dlsym(library, name)) : nullptr;
  }
  decltype(&xpurtZeCpuRecordStart) recordStart = get<void()>("xpurtZeCpuRecordStart");
  decltype(&xpurtZeCpuRecordStop) recordStop = get<void()>("xpurtZeCpuRecordStop");
  decltype(&xpurtZeCpuRecordClear) recordClear = get<void()>("xpurtZeCpuRecordClear");
  decltype(&xpurtZeCpuRecordCount) recordCount = get<uint64_t()>("xpurtZeCpuRecordCount");
  decltype(&xpurtZeCpuRecordGet) recordGet =
      get<int(uint64_t, XpurtZeCpuRecord *)>("xpurtZeCpuRecordGet");
  decltype(&xpurtZeCpuCallCount) callCount = get<uint64_t()>("xpurtZeCpuCallCount");
  decltype(&xpurtZeCpuSetFaults) setFaults = get<int(const char *)>("xpurtZeCpuSetFaults");

  std::vector<XpurtZeCpuRecord> records() const {
    std::vector<XpurtZeCpuRecord> all(recordCount());
    for (uint64_t i = 0; i < all.size(); ++i) recordGet(i, &all[i]);
    return all;
  }
};

// The Level Zero device that runs on the CPU: the first CPU-type device of the level_zero
// backend.
inline std::optional<uint32_t> zeCpuIndex() {
  for (uint32_t i = 0, n = Device::count(DeviceType::CPU); i < n; ++i)
    if (std::string(Device::info(DeviceType::CPU, i).backend) == "level_zero") return i;
  return std::nullopt;
}

class LevelZeroTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto index = zeCpuIndex();
    if (!index) GTEST_SKIP() << "no Level Zero device on the CPU (ZE_ENABLE_ALT_DRIVERS unset)";
    device.emplace(DeviceType::CPU, *index);
    ASSERT_TRUE(zeCpu.library) << "the loader did not load " << XPURT_ZE_CPU_DRIVER;
    ASSERT_TRUE(zeCpu.recordGet && zeCpu.setFaults && zeCpu.callCount);
    zeCpu.setFaults("");
  }
  void TearDown() override {
    if (zeCpu.library) {
      zeCpu.setFaults("");
      zeCpu.recordStop();
      zeCpu.recordClear();
    }
  }

  ZeCpu zeCpu;
  std::optional<Device> device;
};

// Whether record `later` waits, directly or through other recorded commands, on `event`.
inline bool dependsOn(const std::vector<XpurtZeCpuRecord> &records, const XpurtZeCpuRecord &later,
                      ze_event_handle_t event, int depth = 0) {
  if (depth > 8) return false;
  uint32_t n = std::min<uint32_t>(later.numWaitEvents, XPURT_ZE_CPU_RECORD_INLINE_WAITS);
  for (uint32_t i = 0; i < n; ++i) {
    if (later.waitEvents[i] == event) return true;
    for (const XpurtZeCpuRecord &r : records)
      if (r.signalEvent == later.waitEvents[i] && r.sequence < later.sequence &&
          dependsOn(records, r, event, depth + 1))
        return true;
  }
  return false;
}

}  // namespace xpurt::test
