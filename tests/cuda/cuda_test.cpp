// What only the CUDA backend has: why it has no device on a machine without an NVIDIA driver,
// and, on an NVIDIA GPU, PTX modules loaded as they are, the driver's JIT log in the error for
// a broken one, launches beyond ISPCRT's 100,000 between syncs, device time from CUDA events,
// and a copy queue's copies overlapping a compute queue's kernel.
#include <xpurt/xpurt.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "test_params.h"

namespace xpurt::test {
namespace {

std::optional<uint32_t> cudaGpuIndex() {
  for (uint32_t i = 0, n = Device::count(DeviceType::GPU); i < n; ++i)
    if (std::string(Device::info(DeviceType::GPU, i).backend) == "cuda") return i;
  return std::nullopt;
}

class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto index = cudaGpuIndex();
    if (!index) GTEST_SKIP() << "no CUDA device on this machine";
    device.emplace(DeviceType::GPU, *index);
  }
  std::optional<Device> device;
};

TEST(CudaBackend, WithoutADeviceXpurtDeviceCudaSaysWhy) {
  if (cudaGpuIndex()) GTEST_SKIP() << "this machine has a CUDA device";
  ASSERT_EQ(setenv("XPURT_DEVICE", "cuda", 1), 0);
  try {
    Device device(DeviceType::Auto);
    ADD_FAILURE() << "XPURT_DEVICE=cuda gave a device on a machine without one";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), XPURT_ERROR_NOT_FOUND);
    std::string message = e.what();
    // No driver, a driver too old, or no GPU: the backend says which.
    EXPECT_NE(message.find("CUDA"), std::string::npos) << message;
    EXPECT_TRUE(message.find("no CUDA driver") != std::string::npos ||
                message.find("too old") != std::string::npos ||
                message.find("cuInit") != std::string::npos ||
                message.find("no device") != std::string::npos)
        << message;
  }
  unsetenv("XPURT_DEVICE");
  Device cpu(DeviceType::CPU);  // the runtime is still usable
}

// A PTX kernel written by hand: params->data[i] += 1 for i in [0, params->n), one thread each.
const char kAddOnePtx[] = R"(
.version 7.5
.target sm_50
.address_size 64
.visible .entry add_one(.param .u64 params)
{
  .reg .pred %p;
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [params];
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.u64 %rd3, [%rd2];
  ld.global.u32 %r1, [%rd2+8];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p, %r5, %r1;
  @%p bra DONE;
  cvta.to.global.u64 %rd4, %rd3;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.u32 %r2, [%rd6];
  add.s32 %r2, %r2, 1;
  st.global.u32 [%rd6], %r2;
DONE:
  ret;
}
)";

TEST_F(CudaTest, LoadsPtxAsItIsAndRunsItsKernelsAsTasks) {
  Module module = Module::fromMemory(*device, kAddOnePtx, sizeof kAddOnePtx - 1);
  Kernel addOne(module, "add_one");
  struct Params {
    void *data;
    uint32_t n;
  };
  constexpr uint32_t kN = 1000;
  Array<int32_t, AllocType::Shared> data(*device, kN);
  for (uint32_t i = 0; i < kN; ++i) data.hostPtr()[i] = static_cast<int32_t>(i);
  Array<Params, AllocType::Shared> params(*device, 1);
  params.hostPtr()[0] = {data.devicePtr(), kN};
  TaskQueue queue(*device);
  queue.launch(addOne, params, kN);  // one task per element
  queue.sync();
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(data.hostPtr()[i], static_cast<int32_t>(i) + 1);
}

TEST_F(CudaTest, ABrokenPtxModuleReportsTheJitLog) {
  const char broken[] =
      ".version 7.5\n.target sm_50\n.address_size 64\n.visible .entry k()\n{\n"
      "  no.such.instruction;\n}\n";
  XpurtModule handle = nullptr;
  EXPECT_EQ(
      xpurtLoadModuleFromMemory(device->handle(), broken, sizeof broken - 1, nullptr, &handle),
      XPURT_ERROR_INVALID_MODULE);
  std::string message = xpurtLastErrorMessage();
  EXPECT_NE(message.find("cuModuleLoadDataEx"), std::string::npos) << message;
  EXPECT_NE(message.find("JIT log"), std::string::npos) << message;
  // The device still loads and runs modules.
  Module good(*device, "xpurt_test_tasks");
  Kernel empty(good, "empty");
  TaskQueue queue(*device);
  queue.launch(empty, 1);
  queue.sync();
}

TEST_F(CudaTest, MoreThanAHundredThousandLaunchesBetweenSyncs) {
  Module module(*device, "xpurt_test_tasks");
  Kernel empty(module, "empty");
  TaskQueue queue(*device);
  constexpr int kLaunches = 120'000;
  Future last;
  for (int i = 0; i < kLaunches; ++i) last = queue.launch(empty, 1);
  queue.sync();
  EXPECT_TRUE(last.valid());
  Module spirv(*device, "xpurt_test_spirv");
  Kernel addInt(spirv, "add_int");
  Array<int32_t, AllocType::Shared> in(*device, 16), out(*device, 16);
  for (int i = 0; i < 16; ++i) in.hostPtr()[i] = i;
  queue.launch(addInt, Range(16), {Arg::read(in), Arg::write(out), 1});
  queue.sync();
  EXPECT_EQ(out.hostPtr()[15], 16);
}

TEST_F(CudaTest, ProfilingGivesDeviceTimeFromCudaEvents) {
  Module module(*device, "xpurt_test_spirv");
  Kernel addInt(module, "add_int");
  constexpr size_t kN = 1 << 24;
  Array<int32_t> in(*device, kN), out(*device, kN);
  TaskQueue queue(*device, {Engine::Any, false, true});
  queue.copyToDevice(in);
  Future f = queue.launch(addInt, Range(kN), {Arg::read(in), Arg::write(out), 1});
  queue.sync();
  uint64_t ns = f.timeNs();
  EXPECT_GT(ns, 0u);
  EXPECT_LT(ns, 1'000'000'000u);
}

}  // namespace
}  // namespace xpurt::test
