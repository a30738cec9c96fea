// The Level Zero CPU driver through the real loader: ctest sets ZE_ENABLE_ALT_DRIVERS to the
// driver (and, in one of its two runs, the validation layer on, whose findings come back as
// result codes that every ZE_OK checks). The driver's inspection functions are looked up in
// the library the loader loaded.
#pragma once

#include "ze_cpu_inspect.h"

#include <gtest/gtest.h>
#include <level_zero/ze_api.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#define ZE_OK(call) ASSERT_EQ(ZE_RESULT_SUCCESS, (call)) << #call
#define EXPECT_ZE_OK(call) EXPECT_EQ(ZE_RESULT_SUCCESS, (call)) << #call

namespace xpurt::ze_cpu::test {

// ze_cpu_inspect.h, from the driver the loader loaded (dlopen of the same path finds it).
struct Inspect {
  decltype(&xpurtZeCpuRecordStart) recordStart;
  decltype(&xpurtZeCpuRecordStop) recordStop;
  decltype(&xpurtZeCpuRecordClear) recordClear;
  decltype(&xpurtZeCpuRecordCount) recordCount;
  decltype(&xpurtZeCpuRecordGet) recordGet;
  decltype(&xpurtZeCpuCallCount) callCount;
  decltype(&xpurtZeCpuSetFaults) setFaults;

  static const Inspect &get();
  std::vector<XpurtZeCpuRecord> records() const;
};

// Bytes of a file in the test program's folder (the build puts the SPIR-V modules there).
std::vector<uint8_t> readBesideProgram(const std::string &name);

class ZeCpuTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite();
  void SetUp() override;
  void TearDown() override;

  // Objects made through these are destroyed after the test, newest first.
  void *allocShared(size_t size, size_t alignment = 0);
  void *allocDevice(size_t size, size_t alignment = 0);
  void *allocHost(size_t size, size_t alignment = 0);
  ze_command_list_handle_t immediateList(
      uint32_t ordinal = 0, uint32_t index = 0,
      ze_command_queue_mode_t mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
  ze_command_list_handle_t regularList(uint32_t ordinal = 0);
  ze_command_queue_handle_t queue(
      uint32_t ordinal = 0, uint32_t index = 0,
      ze_command_queue_mode_t mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
  ze_fence_handle_t fence(ze_command_queue_handle_t queue, bool signalled = false);
  ze_event_pool_handle_t eventPool(uint32_t count,
                                   ze_event_pool_flags_t flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE);
  ze_event_handle_t event(ze_event_pool_handle_t pool, uint32_t index);
  // The tests' kernels (ze_cpu_kernels.cl), built once per test.
  ze_module_handle_t kernelsModule();
  ze_module_handle_t module(const std::vector<uint8_t> &spirv,
                            const ze_module_constants_t *constants = nullptr);
  ze_kernel_handle_t kernel(ze_module_handle_t module, const char *name);
  // Takes a build log's text and destroys the log.
  static std::string takeLog(ze_module_build_log_handle_t log);
  // Waits for an event with a generous limit, so that a bug fails the test instead of hanging.
  static ze_result_t await(ze_event_handle_t event);
  void later(std::function<void()> cleanup) { cleanups_.push_back(std::move(cleanup)); }

  static inline ze_driver_handle_t driver = nullptr;
  static inline ze_device_handle_t device = nullptr;
  ze_context_handle_t context = nullptr;

 private:
  void *remember(void *ptr);
  std::vector<std::function<void()>> cleanups_;
  ze_module_handle_t kernels_ = nullptr;
};

}  // namespace xpurt::ze_cpu::test
