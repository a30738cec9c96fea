// Device discovery and selection, and the XPURT_* configuration variables.
#include "c_api_fixture.hpp"

#include <xpurt/xpurt.hpp>

#include <climits>

namespace xpurt::test {
namespace {

TEST(Devices, TheCpuIsAlwaysThereAndDescribesItself) {
  uint32_t count = 0;
  ASSERT_EQ(xpurtGetDeviceCount(XPURT_DEVICE_TYPE_CPU, &count), XPURT_SUCCESS);
  // The CPU backend's device first; a Level Zero driver for the CPU may add more.
  EXPECT_GE(count, 1u);
  DeviceInfo info = Device::info(DeviceType::CPU, 0);
  EXPECT_EQ(info.type, XPURT_DEVICE_TYPE_CPU);
  EXPECT_STREQ(info.backend, "cpu");
  EXPECT_GT(std::string(info.name).size(), 0u);
  EXPECT_GE(info.computeUnits, 1u);
  EXPECT_GT(info.globalMemorySize, 0u);
  EXPECT_EQ(info.maxTaskCount, uint64_t{INT_MAX});
  EXPECT_TRUE(info.deviceMemoryIsHostMemory);
  EXPECT_FALSE(Device(DeviceType::CPU, 0, XPURT_DEVICE_FLAG_SEPARATE_MEMORY)
                   .info()
                   .deviceMemoryIsHostMemory);
}

TEST(Devices, EveryGetOfADeviceReturnsTheOneDeviceWhileItLives) {
  XpurtDevice a = nullptr, b = nullptr, c = nullptr, separate = nullptr;
  ASSERT_EQ(xpurtGetDevice(XPURT_DEVICE_TYPE_CPU, 0, &a), XPURT_SUCCESS);
  ASSERT_EQ(xpurtGetDevice(XPURT_DEVICE_TYPE_CPU, 0, &b), XPURT_SUCCESS);
  EXPECT_EQ(a, b);
  XpurtContext context = nullptr;
  ASSERT_EQ(xpurtNewContext(XPURT_DEVICE_TYPE_CPU, &context), XPURT_SUCCESS);
  ASSERT_EQ(xpurtContextGetDevice(context, 0, &c), XPURT_SUCCESS);
  EXPECT_EQ(c, a);
  // Other options make another device: device memory of its own.
  XpurtDeviceOptions options{sizeof options, XPURT_DEVICE_FLAG_SEPARATE_MEMORY};
  ASSERT_EQ(xpurtGetDeviceWithOptions(XPURT_DEVICE_TYPE_CPU, 0, &options, &separate),
            XPURT_SUCCESS);
  EXPECT_NE(separate, a);
  // Each get is a reference of its own: the device stays usable until the last is released.
  for (XpurtDevice d : {a, b, c}) {
    XpurtDeviceInfo info{};
    info.structSize = sizeof info;
    EXPECT_EQ(xpurtDeviceGetInfo(a, &info), XPURT_SUCCESS);
    EXPECT_EQ(xpurtRelease(d), XPURT_SUCCESS);
  }
  XpurtDeviceInfo info{};
  info.structSize = sizeof info;
  EXPECT_EQ(xpurtDeviceGetInfo(a, &info), XPURT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(xpurtRelease(context), XPURT_SUCCESS);
  EXPECT_EQ(xpurtRelease(separate), XPURT_SUCCESS);
  // A device released by everyone is made anew by the next get, with a new handle.
  XpurtDevice again = nullptr;
  ASSERT_EQ(xpurtGetDevice(XPURT_DEVICE_TYPE_CPU, 0, &again), XPURT_SUCCESS);
  EXPECT_NE(again, a);
  EXPECT_EQ(xpurtRelease(again), XPURT_SUCCESS);
}

TEST(Devices, AutoIsTheCpuWhenThereIsNoGpu) {
  if (Device::count(DeviceType::GPU) > 0) GTEST_SKIP() << "this machine has a GPU";
  EXPECT_EQ(Device(DeviceType::Auto).info().type, XPURT_DEVICE_TYPE_CPU);
  XpurtDevice d = nullptr;
  EXPECT_XPURT(XPURT_ERROR_NOT_FOUND, xpurtGetDevice(XPURT_DEVICE_TYPE_GPU, 0, &d));
  EXPECT_TRUE(contains(lastMessage(), "available: ")) << lastMessage();
  EXPECT_TRUE(contains(lastMessage(), "cpu:0")) << lastMessage();
  EXPECT_XPURT(XPURT_ERROR_NOT_FOUND,
               xpurtGetDevice(XPURT_DEVICE_TYPE_CPU, Device::count(DeviceType::CPU), &d));
  EXPECT_EQ(d, nullptr);
}

TEST(Config, XpurtDeviceChoosesTheDefaultDevice) {
  {
    ScopedEnv env("XPURT_DEVICE", "cpu:0");
    EXPECT_EQ(Device(DeviceType::Auto).info().type, XPURT_DEVICE_TYPE_CPU);
  }
  {
    ScopedEnv env("XPURT_DEVICE", "CPU");
    EXPECT_EQ(Device(DeviceType::Auto).info().type, XPURT_DEVICE_TYPE_CPU);
  }
  {
    ScopedEnv env("XPURT_DEVICE", "cuda:3");
    XpurtDevice d = nullptr;
    EXPECT_XPURT(XPURT_ERROR_NOT_FOUND, xpurtGetDevice(XPURT_DEVICE_TYPE_AUTO, 0, &d));
    EXPECT_TRUE(contains(lastMessage(), "XPURT_DEVICE=cuda:3")) << lastMessage();
    // An explicit type is not overridden.
    EXPECT_XPURT(XPURT_SUCCESS, xpurtGetDevice(XPURT_DEVICE_TYPE_CPU, 0, &d));
    xpurtRelease(d);
  }
}

// ISPCRT's variables are read by ISPCRT's API (tests/ispcrt), not by xpurt's.
TEST(Config, IspcrtGpuDeviceIsIspcrtsNotXpurts) {
  ScopedEnv env("ISPCRT_GPU_DEVICE", "gpu");
  XpurtDevice d = nullptr;
  EXPECT_XPURT(XPURT_SUCCESS, xpurtGetDevice(XPURT_DEVICE_TYPE_CPU, 0, &d));
  xpurtRelease(d);
}

// The CPU's settings are read where the CPU device is made: asked for by type, since the
// default device is a GPU where there is one.
TEST(Config, BadValuesNameTheVariableAndLeaveTheRuntimeUsable) {
  struct Case {
    const char *name, *value;
    XpurtDeviceType type;
  } cases[] = {{"XPURT_DEVICE", "fpga", XPURT_DEVICE_TYPE_AUTO},
               {"XPURT_DEVICE", "cpu:x", XPURT_DEVICE_TYPE_AUTO},
               {"XPURT_DEVICE", "auto:1", XPURT_DEVICE_TYPE_AUTO},
               {"XPURT_LOG_LEVEL", "loud", XPURT_DEVICE_TYPE_AUTO},
               {"XPURT_CPU_THREADS", "0", XPURT_DEVICE_TYPE_CPU},
               {"XPURT_CPU_THREADS", "many", XPURT_DEVICE_TYPE_CPU},
               {"XPURT_CPU_THREADS", "99999999", XPURT_DEVICE_TYPE_CPU},
               {"XPURT_CPU_DEVICE_MEMORY", "remote", XPURT_DEVICE_TYPE_CPU}};
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.name) + "=" + c.value);
    XpurtDevice d = nullptr;
    {
      ScopedEnv env(c.name, c.value);
      EXPECT_XPURT(XPURT_ERROR_INVALID_CONFIG, xpurtGetDevice(c.type, 0, &d));
      EXPECT_TRUE(contains(lastMessage(), c.name)) << lastMessage();
      EXPECT_TRUE(contains(lastMessage(), c.value)) << lastMessage();
      EXPECT_EQ(d, nullptr);
    }
    EXPECT_XPURT(XPURT_SUCCESS, xpurtGetDevice(c.type, 0, &d));
    xpurtRelease(d);
  }
}

TEST(Config, XpurtCpuThreadsBoundsTheDevice) {
  ScopedEnv env("XPURT_CPU_THREADS", "1");
  Device device(DeviceType::CPU);
  EXPECT_EQ(device.info().computeUnits, 1u);
  Module module(device, "xpurt_test_kernels");
  TaskQueue queue(device);
  Array<int32_t, AllocType::Shared> index(device, 16), count(device, 16);
  Array<ThreadParams> params(device);
  *params.hostPtr() = {index.devicePtr(), count.devicePtr()};
  queue.copyToDevice(params);
  queue.launch(Kernel(module, "thread_ids"), params, 16);
  queue.sync();
  for (int t = 0; t < 16; ++t) {
    EXPECT_EQ(count.hostPtr()[t], 1);
    EXPECT_EQ(index.hostPtr()[t], 0);
  }
}

TEST(Config, XpurtCpuDeviceMemorySeparatesStorage) {
  ScopedEnv env("XPURT_CPU_DEVICE_MEMORY", "separate");
  EXPECT_FALSE(Device(DeviceType::CPU).info().deviceMemoryIsHostMemory);
}

TEST(CppApi, ErrorsBecomeExceptionsWithTheirCode) {
  Device device(DeviceType::CPU);
  try {
    Module module(device, "no_such_module");
    FAIL() << "expected an exception";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), XPURT_ERROR_NOT_FOUND);
    EXPECT_TRUE(contains(e.what(), "no_such_module")) << e.what();
  }
  Module module(device, "xpurt_test_kernels");
  EXPECT_THROW(Kernel(module, "missing"), Error);
  TaskQueue queue(device);
  Array<int32_t> small(device, 4);
  EXPECT_THROW(queue.copyToDevice(small, 0, 100), Error);
  EXPECT_THROW(queue.launch(Kernel(module, "empty"), 0), Error);
  Kernel copy = Kernel(module, "empty");  // copies share one reference-counted kernel
  Kernel other = copy;
  EXPECT_EQ(copy.handle(), other.handle());
  queue.launch(other, 1).wait();
}

}  // namespace
}  // namespace xpurt::test
