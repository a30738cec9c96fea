// ISPCRT programs, written against ispcrt.hpp and ispcrt.h as ISPCRT's documentation and ISPC's
// examples use them, on the device ISPCRT_TEST_DEVICE names (ispcrt_test_device.hpp). Every
// value a kernel computes is checked against the host's.
#include <ispcrt.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "ispcrt_test_device.hpp"
#include "kernels/ispcrt_test_params.h"

namespace {

// The errors the error function was called with since the last take().
struct Errors {
  static std::vector<std::pair<ISPCRTError, std::string>> &seen() {
    static std::vector<std::pair<ISPCRTError, std::string>> s;
    return s;
  }
  static void record(ISPCRTError e, const char *message) { seen().emplace_back(e, message); }
  static std::vector<std::pair<ISPCRTError, std::string>> take() {
    std::vector<std::pair<ISPCRTError, std::string>> out;
    out.swap(seen());
    return out;
  }
};

float simpleReference(float v) {
  return v < 3.0f ? v * v : std::sqrt(v);
}

class IspcrtTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ispcrtSetErrorFunc(&Errors::record);
    Errors::take();
    device = ispcrt::Device(ispcrtTestDeviceType());
    ASSERT_TRUE(device) << errorsSoFar();
  }
  void TearDown() override {
    std::string unexpected = errorsSoFar();
    EXPECT_TRUE(unexpected.empty()) << "errors the test did not expect:\n" << unexpected;
  }
  static std::string errorsSoFar() {
    std::string s;
    for (const auto &e : Errors::take()) s += std::to_string(e.first) + ": " + e.second + "\n";
    return s;
  }
  bool onCpu() const { return device.getType() == ISPCRT_DEVICE_TYPE_CPU; }

  // Waits for the fence for up to 10 s, polling as ISPC's simple-fence example does.
  static bool signalledSoon(const ispcrt::Fence &fence) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (fence.status() != ISPCRT_FENCE_SIGNALED) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }

  ispcrt::Device device;
};

// ISPC's examples/xpu/simple: device arrays, copies, one launch, a sync and the future's time.
TEST_F(IspcrtTest, SimpleExampleComputesWhatTheHostDoes) {
  const int n = 1000;
  std::vector<float> vin(n), vout(n, -1.0f);
  for (int i = 0; i < n; ++i) vin[i] = 0.01f * static_cast<float>(i);
  ispcrt::Array<float> vinDev(device, vin);
  ispcrt::Array<float> voutDev(device, vout);
  SimpleParams p{vinDev.devicePtr(), voutDev.devicePtr(), n};
  ispcrt::Array<SimpleParams> params(device, p);
  ispcrt::Module module(device, "ispcrt_test_kernels");
  ispcrt::Kernel kernel(device, module, "simple_ispc");
  ispcrt::TaskQueue queue(device);
  queue.copyToDevice(params);
  queue.copyToDevice(vinDev);
  ispcrt::Future future = queue.launch(kernel, params, 4);
  queue.copyToHost(voutDev);
  queue.sync();
  for (int i = 0; i < n; ++i) ASSERT_EQ(vout[i], simpleReference(vin[i])) << "element " << i;
  EXPECT_TRUE(future.valid());
  EXPECT_GT(future.time(), 0u);
  EXPECT_LT(future.time(), 10'000'000'000u);
  EXPECT_EQ(vinDev.size(), static_cast<size_t>(n));
  EXPECT_EQ(vinDev.type(), ispcrt::AllocType::Device);
  EXPECT_EQ(vinDev.hostPtr(), vin.data());
}

// ISPC's examples/xpu/simple-usm: shared memory from a context, no copies.
TEST_F(IspcrtTest, SharedMemoryNeedsNoCopies) {
  ispcrt::Context context(device.getType());
  ASSERT_TRUE(context);
  ispcrt::SharedMemoryAllocator<float> sma(context);
  ispcrt::SharedVector<float> vin(64, sma), vout(64, sma);
  for (size_t i = 0; i < vin.size(); ++i) vin[i] = static_cast<float>(i) * 0.5f;
  ispcrt::Array<SimpleParams, ispcrt::AllocType::Shared> p(context);
  p.sharedPtr()->vin = vin.data();
  p.sharedPtr()->vout = vout.data();
  p.sharedPtr()->count = static_cast<int>(vin.size());
  EXPECT_EQ(p.smType(), ispcrt::SharedMemoryUsageHint::HostDeviceReadWrite);
  ispcrt::Device onContext(context);
  ASSERT_TRUE(onContext);
  EXPECT_EQ(onContext.getType(), device.getType());
  ispcrt::Module module(onContext, "ispcrt_test_kernels");
  ispcrt::Kernel kernel(onContext, module, "simple_ispc");
  ispcrt::TaskQueue queue(onContext);
  // Copies of shared memory cost nothing and change nothing, as ISPCRT's programs may make them.
  queue.copyToDevice(p);
  queue.launch(kernel, p, 2);
  queue.copyToHost(p);
  queue.sync();
  for (size_t i = 0; i < vin.size(); ++i) ASSERT_EQ(vout[i], simpleReference(vin[i])) << i;
  EXPECT_EQ(onContext.getMemoryAllocType(p.sharedPtr()), ISPCRT_ALLOC_TYPE_SHARED);
  int notAView = 0;
  EXPECT_EQ(onContext.getMemoryAllocType(&notAView), ISPCRT_ALLOC_TYPE_UNKNOWN);
  // Freed memory goes back through the allocator; a pointer it did not give is refused.
  float stranger = 0;
  EXPECT_THROW(sma.deallocate(&stranger, 1), std::invalid_argument);
}

TEST_F(IspcrtTest, LaunchesRunInTheOrderEnqueuedAcrossBarriers) {
  const int n = 4096;
  std::vector<float> data(n);
  for (int i = 0; i < n; ++i) data[i] = static_cast<float>(i % 17);
  ispcrt::Array<float> dataDev(device, data);
  ispcrt::Module module(device, "ispcrt_test_kernels");
  ispcrt::Kernel kernel(device, module, "scale_add");
  ispcrt::TaskQueue queue(device);
  // x * 2 + 1, then x * 3 - 2, then x * 0.5 + 4: the order shows in the result.
  const float steps[3][2] = {{2.0f, 1.0f}, {3.0f, -2.0f}, {0.5f, 4.0f}};
  std::vector<ispcrt::Array<ScaleAddParams>> params;
  std::vector<ScaleAddParams> blocks(3);
  for (int s = 0; s < 3; ++s) {
    blocks[s] = ScaleAddParams{dataDev.devicePtr(), n, steps[s][0], steps[s][1]};
    params.emplace_back(device, blocks[s]);
    queue.copyToDevice(params.back());
  }
  queue.copyToDevice(dataDev);
  queue.barrier();
  for (int s = 0; s < 3; ++s) {
    queue.launch(kernel, params[s], 8);
    queue.barrier();
  }
  queue.copyToHost(dataDev);
  queue.sync();
  for (int i = 0; i < n; ++i) {
    float x = static_cast<float>(i % 17);
    for (const auto &st : steps) x = x * st[0] + st[1];
    ASSERT_EQ(data[i], x) << "element " << i;
  }
}

TEST_F(IspcrtTest, TwoAndThreeDimensionalLaunchesNumberTheirTasks) {
  ispcrt::Module module(device, "ispcrt_test_kernels");
  ispcrt::Kernel kernel(device, module, "record_dims");
  ispcrt::TaskQueue queue(device);
  const int d0 = 3, d1 = 2, d2 = 4, tasks = d0 * d1 * d2;
  std::vector<int> out(8 * tasks, -1);
  ispcrt::Array<int> outDev(device, out);
  DimsParams p{outDev.devicePtr()};
  ispcrt::Array<DimsParams> params(device, p);
  queue.copyToDevice(params);
  queue.launch(kernel, params, d0, d1, d2);
  queue.copyToHost(outDev);
  queue.sync();
  for (int t = 0; t < tasks; ++t) {
    const int *o = &out[8 * t];
    int i0 = t % d0, i1 = t / d0 % d1, i2 = t / (d0 * d1);
    EXPECT_EQ(std::vector<int>(o, o + 8), (std::vector<int>{i0, i1, i2, d0, d1, d2, t, tasks}))
        << "task " << t;
  }
  // A 2-D launch: the third dimension is 1.
  std::fill(out.begin(), out.end(), -1);
  queue.copyToDevice(outDev);
  queue.launch(kernel, params, d0, d1);
  queue.copyToHost(outDev);
  queue.sync();
  for (int t = 0; t < d0 * d1; ++t) EXPECT_EQ(out[8 * t + 5], 1) << "task " << t;
  EXPECT_EQ(out[8 * (d0 * d1) + 6], -1) << "only d0 * d1 tasks ran";
}

TEST_F(IspcrtTest, CopyArrayMovesDeviceStorageAndRefusesOversizeCopies) {
  std::vector<float> a(256), b(256, 0.0f);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i) + 0.25f;
  ispcrt::Array<float> aDev(device, a), bDev(device, b);
  ispcrt::TaskQueue queue(device);
  queue.copyToDevice(aDev);
  queue.copyToDevice(bDev);
  queue.copyArray(bDev, aDev, 200);
  queue.copyToHost(bDev);
  queue.sync();
  for (size_t i = 0; i < b.size(); ++i) ASSERT_EQ(b[i], i < 200 ? a[i] : 0.0f) << i;
  std::vector<float> small(8);
  ispcrt::Array<float> smallDev(device, small);
  queue.copyArray(smallDev, aDev, 9);
  auto errors = Errors::take();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].first, ISPCRT_INVALID_ARGUMENT);
  EXPECT_NE(errors[0].second.find("ispcrtCopyMemoryView"), std::string::npos) << errors[0].second;
  queue.sync();  // the queue is usable still
  EXPECT_TRUE(Errors::take().empty());
}

// ISPC's examples/xpu/simple-fence: a command list submitted, its fence polled.
TEST_F(IspcrtTest, CommandListsRunWhenSubmittedAndSignalTheirFence) {
  const int n = 512;
  std::vector<float> vin(n), vout(n, -1.0f);
  for (int i = 0; i < n; ++i) vin[i] = static_cast<float>(i) * 0.125f;
  ispcrt::Array<float> vinDev(device, vin), voutDev(device, vout);
  SimpleParams p{vinDev.devicePtr(), voutDev.devicePtr(), n};
  ispcrt::Array<SimpleParams> params(device, p);
  ispcrt::Module module(device, "ispcrt_test_kernels");
  ispcrt::Kernel kernel(device, module, "simple_ispc");
  ispcrt::CommandQueue queue(device, 0);
  ispcrt::CommandList list = queue.createCommandList();
  ASSERT_TRUE(list);
  list.copyToDevice(params);
  list.copyToDevice(vinDev);
  list.barrier();
  list.enableTimestamps();
  ispcrt::Future launched = list.launch(kernel, params, 2);
  list.barrier();
  list.copyToHost(voutDev);
  // Nothing runs before the list is submitted.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(vout[0], -1.0f);
  EXPECT_FALSE(launched.valid());
  ispcrt::Fence fence = list.submit();
  ASSERT_TRUE(fence);
  ASSERT_TRUE(signalledSoon(fence));
  for (int i = 0; i < n; ++i) ASSERT_EQ(vout[i], simpleReference(vin[i])) << i;
  EXPECT_TRUE(launched.valid());
  EXPECT_NE(launched.time(), UINT64_MAX);

  // Submitted again, it runs again, on what the host holds now.
  for (int i = 0; i < n; ++i) vin[i] = 5.0f + static_cast<float>(i);
  ispcrt::Fence again = list.submit();
  again.sync();
  EXPECT_EQ(again.status(), ISPCRT_FENCE_SIGNALED);
  for (int i = 0; i < n; ++i) ASSERT_EQ(vout[i], simpleReference(vin[i])) << i;
  again.reset();
  EXPECT_EQ(again.status(), ISPCRT_FENCE_UNSIGNALED);

  // Reset, it records anew; recording into a closed list is refused.
  list.close();
  list.barrier();
  auto errors = Errors::take();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].first, ISPCRT_INVALID_OPERATION);
  list.reset();
  list.copyToDevice(vinDev);
  list.submit().sync();
  queue.sync();
}

TEST_F(IspcrtTest, ModulesLinkStaticallyAndDynamically) {
  ispcrt::ModuleOptions options(device, ISPCRT_SCALAR_MODULE, true);
  EXPECT_TRUE(options.libraryCompilation());
  EXPECT_EQ(options.moduleType(), ISPCRT_SCALAR_MODULE);
  EXPECT_EQ(options.stackSize(), 0u);
  options.setStackSize(32000);
  EXPECT_EQ(options.stackSize(), 32000u);
  ispcrt::Module kernels(device, "ispcrt_test_link_kernels");
  ispcrt::Module library(device, "ispcrt_test_link_library", options);
  ASSERT_TRUE(kernels && library);
  auto run = [&](const ispcrt::Kernel &kernel) {
    std::vector<float> data{0.0f, 1.0f, 2.5f, -4.0f};
    ispcrt::Array<float> dataDev(device, data);
    LinkParams p{dataDev.devicePtr(), static_cast<int>(data.size())};
    ispcrt::Array<LinkParams> params(device, p);
    ispcrt::TaskQueue queue(device);
    queue.copyToDevice(params);
    queue.copyToDevice(dataDev);
    queue.launch(kernel, params, 2);
    queue.copyToHost(dataDev);
    queue.sync();
    return data;
  };
  const std::vector<float> expected{1.0f, 4.0f, 8.5f, -11.0f};
  ISPCRTModule parts[] = {kernels.handle(), library.handle()};
  ispcrt::Module linked = device.staticLinkModules(parts, 2);
  ASSERT_TRUE(linked);
  EXPECT_EQ(run(ispcrt::Kernel(device, linked, "scale_linked")), expected);
  device.dynamicLinkModules(parts, 2);
  EXPECT_EQ(run(ispcrt::Kernel(device, kernels, "scale_linked")), expected);
}

TEST_F(IspcrtTest, ErrorsReachTheErrorFunctionAndLeaveTheRuntimeUsable) {
  EXPECT_EQ(ispcrtGetDevice(ISPCRT_DEVICE_TYPE_CPU, 99), nullptr);
  EXPECT_EQ(ispcrtLoadModule(device.handle(), "no_such_module"), nullptr);
  ispcrt::Module module(device, "ispcrt_test_kernels");
  EXPECT_EQ(ispcrtNewKernel(device.handle(), module.handle(), "no_such_kernel"), nullptr);
  EXPECT_EQ(ispcrtNewTaskQueue(nullptr), nullptr);
  auto errors = Errors::take();
  ASSERT_EQ(errors.size(), 4u);
  for (const auto &e : errors) EXPECT_EQ(e.first, ISPCRT_INVALID_ARGUMENT) << e.second;
  EXPECT_NE(errors[0].second.find("99"), std::string::npos) << errors[0].second;
  EXPECT_NE(errors[1].second.find("no_such_module"), std::string::npos) << errors[1].second;
  EXPECT_NE(errors[2].second.find("no_such_kernel"), std::string::npos) << errors[2].second;
  EXPECT_NE(errors[3].second.find("NULL"), std::string::npos) << errors[3].second;

  // A released handle is an error, not a crash.
  ISPCRTTaskQueue released = ispcrtNewTaskQueue(device.handle());
  ispcrtRelease(released);
  ispcrtSync(released);
  errors = Errors::take();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].second.find("released"), std::string::npos) << errors[0].second;
  // A handle of another kind.
  ispcrtSync(reinterpret_cast<ISPCRTTaskQueue>(module.handle()));
  errors = Errors::take();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].second.find("module"), std::string::npos) << errors[0].second;

  // Still usable: the simple kernel runs.
  std::vector<float> v{1.0f, 4.0f}, out(2);
  ispcrt::Array<float> vDev(device, v), outDev(device, out);
  SimpleParams p{vDev.devicePtr(), outDev.devicePtr(), 2};
  ispcrt::Array<SimpleParams> params(device, p);
  ispcrt::TaskQueue queue(device);
  queue.copyToDevice(params);
  queue.copyToDevice(vDev);
  queue.launch(ispcrt::Kernel(device, module, "simple_ispc"), params, 1);
  queue.copyToHost(outDev);
  queue.sync();
  EXPECT_EQ(out, (std::vector<float>{1.0f, 2.0f}));
}

TEST_F(IspcrtTest, HandlesAreCountedAndLentFuturesLastUntilTheSync) {
  ISPCRTDevice d = ispcrtGetDevice(ispcrtTestDeviceType(), 0);
  EXPECT_EQ(ispcrtUseCount(d), 1);
  ispcrtRetain(d);
  EXPECT_EQ(ispcrtUseCount(d), 2);
  ispcrtRelease(d);
  EXPECT_EQ(ispcrtUseCount(d), 1);
  ISPCRTTaskQueue q = ispcrtNewTaskQueue(d);
  ISPCRTModule m = ispcrtLoadModule(d, "ispcrt_test_kernels");
  ISPCRTKernel k = ispcrtNewKernel(d, m, "record_dims");
  std::vector<int> out(8, 0);
  ISPCRTMemoryView outView = ispcrtNewMemoryView(d, out.data(), out.size() * sizeof(int), nullptr);
  DimsParams p{static_cast<int *>(ispcrtDevicePtr(outView))};
  ISPCRTMemoryView params = ispcrtNewMemoryView(d, &p, sizeof p, nullptr);
  ispcrtCopyToDevice(q, params);
  ISPCRTFuture lent = ispcrtLaunch1D(q, k, params, 1);
  ISPCRTFuture kept = ispcrtLaunch1D(q, k, params, 1);
  ispcrtRetain(kept);
  EXPECT_EQ(ispcrtUseCount(lent), 1);  // the queue's
  ispcrtSync(q);
  EXPECT_EQ(ispcrtUseCount(kept), 1);  // the program's
  EXPECT_TRUE(ispcrtFutureIsValid(kept));
  EXPECT_NE(ispcrtFutureGetTimeNs(kept), UINT64_MAX);
  EXPECT_EQ(ispcrtFutureGetTimeNs(nullptr), UINT64_MAX);
  ispcrtRelease(kept);
  EXPECT_TRUE(Errors::take().empty());
  ispcrtFutureIsValid(lent);  // gone with the sync
  EXPECT_EQ(Errors::take().size(), 1u);
  for (ISPCRTGenericHandle h :
       {static_cast<void *>(params), static_cast<void *>(outView), static_cast<void *>(k),
        static_cast<void *>(m), static_cast<void *>(q), static_cast<void *>(d)})
    ispcrtRelease(h);
  EXPECT_TRUE(Errors::take().empty());
}

// Threads sharing a device, a module and a kernel, each with its own queue and data, while
// another retains and releases the shared handles.
TEST_F(IspcrtTest, ThreadsShareDevicesModulesAndKernels) {
  ispcrt::Module module(device, "ispcrt_test_kernels");
  ispcrt::Kernel kernel(device, module, "scale_add");
  const int threads = 4, rounds = 20, n = 256;
  std::vector<std::vector<float>> data(threads, std::vector<float>(n, 1.0f));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      ispcrt::TaskQueue queue(device);
      ispcrt::Array<float> dataDev(device, data[t]);
      ScaleAddParams p{dataDev.devicePtr(), n, 1.0f, static_cast<float>(t)};
      ispcrt::Array<ScaleAddParams> params(device, p);
      queue.copyToDevice(params);
      queue.copyToDevice(dataDev);
      for (int r = 0; r < rounds; ++r) queue.launch(kernel, params, 2);
      queue.copyToHost(dataDev);
      queue.sync();
    });
  workers.emplace_back([&] {
    for (int r = 0; r < 200; ++r) {
      ispcrtRetain(kernel.handle());
      ispcrtRetain(module.handle());
      ispcrtRelease(module.handle());
      ispcrtRelease(kernel.handle());
    }
  });
  for (std::thread &w : workers) w.join();
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(data[t][i], 1.0f + static_cast<float>(rounds * t)) << "thread " << t << ", " << i;
}

TEST_F(IspcrtTest, DevicesAreListedByType) {
  ISPCRTDeviceType type = device.getType();
  EXPECT_NE(type, ISPCRT_DEVICE_TYPE_AUTO);
  uint32_t count = ispcrt::Device::deviceCount(type);
  EXPECT_GE(count, 1u);
  EXPECT_EQ(ispcrt::Device::allDevicesInformation(type).size(), count);
  EXPECT_EQ(ispcrt::Device::deviceCount(ISPCRT_DEVICE_TYPE_CPU), 1u);
  ispcrt::Device autoDevice(ISPCRT_DEVICE_TYPE_AUTO);
  EXPECT_EQ(autoDevice.getType(), ispcrt::Device::deviceCount(ISPCRT_DEVICE_TYPE_GPU) > 0
                                      ? ISPCRT_DEVICE_TYPE_GPU
                                      : ISPCRT_DEVICE_TYPE_CPU);
}

// Sets an environment variable for the scope.
struct ScopedEnv {
  std::string name;
  ScopedEnv(const char *n, const char *value) : name(n) { setenv(n, value, 1); }
  ~ScopedEnv() { unsetenv(name.c_str()); }
};

TEST_F(IspcrtTest, IspcrtsVariablesChooseTheGpuDeviceAndDriver) {
  if (onCpu()) GTEST_SKIP() << "ISPCRT's variables choose among GPU devices; this is the CPU";
  uint32_t count = ispcrt::Device::deviceCount(ISPCRT_DEVICE_TYPE_GPU);
  {
    // The device the variable names, whatever index is asked for.
    ScopedEnv env("ISPCRT_GPU_DEVICE", "0");
    ispcrt::Device chosen(ISPCRT_DEVICE_TYPE_GPU, count + 5);
    EXPECT_TRUE(chosen);
    EXPECT_TRUE(Errors::take().empty());
  }
  {
    ScopedEnv env("ISPCRT_GPU_DEVICE", std::to_string(count).c_str());
    EXPECT_FALSE(ispcrt::Device(ISPCRT_DEVICE_TYPE_GPU));
    auto errors = Errors::take();
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].second.find("ISPCRT_GPU_DEVICE"), std::string::npos) << errors[0].second;
  }
  {
    ScopedEnv env("ISPCRT_GPU_DRIVER", "0");
    EXPECT_TRUE(ispcrt::Device(ISPCRT_DEVICE_TYPE_GPU));
    EXPECT_TRUE(Errors::take().empty());
  }
  {
    ScopedEnv env("ISPCRT_GPU_DRIVER", "9");
    EXPECT_FALSE(ispcrt::Device(ISPCRT_DEVICE_TYPE_GPU));
    auto errors = Errors::take();
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].second.find("ISPCRT_GPU_DRIVER=9"), std::string::npos) << errors[0].second;
  }
  {
    ScopedEnv env("ISPCRT_GPU_DEVICE", "first");
    EXPECT_FALSE(ispcrt::Device(ISPCRT_DEVICE_TYPE_GPU));
    EXPECT_EQ(Errors::take().size(), 1u);
  }
  // ISPCRT_IGC_OPTIONS goes to Level Zero drivers, in ISPCRT's form only; other devices ignore
  // it.
  ScopedEnv env("ISPCRT_IGC_OPTIONS", "-no-sign");
  ispcrt::Module module(device, "ispcrt_test_kernels");
  auto errors = Errors::take();
  bool levelZero = !errors.empty();
  if (levelZero) {
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].second.find("ISPCRT_IGC_OPTIONS"), std::string::npos) << errors[0].second;
  } else {
    EXPECT_TRUE(module);
  }
}

TEST_F(IspcrtTest, NativeHandlesAreTheDriversOrNoneOnTheCpu) {
  ispcrt::TaskQueue queue(device);
  if (onCpu()) {
    EXPECT_EQ(device.nativeDeviceHandle(), nullptr);
    EXPECT_EQ(device.nativeContextHandle(), nullptr);
    EXPECT_EQ(queue.nativeTaskQueueHandle(), nullptr);
    return;
  }
  EXPECT_NE(device.nativeContextHandle(), nullptr);
  ispcrt::Context context(ISPCRT_DEVICE_TYPE_GPU, device.nativeContextHandle());
  ASSERT_TRUE(context);
  EXPECT_EQ(context.nativeContextHandle(), device.nativeContextHandle());
  ispcrt::Device again(context, device.nativeDeviceHandle());
  ASSERT_TRUE(again);
  EXPECT_EQ(again.nativeDeviceHandle(), device.nativeDeviceHandle());
  // Level Zero queues are immediate command lists, which have no command queue handle; a CUDA
  // queue's handle is its stream.
  void *q = queue.nativeTaskQueueHandle();
  auto errors = Errors::take();
  if (q == nullptr) {
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].first, ISPCRT_UNSUPPORTED);
  } else {
    EXPECT_TRUE(errors.empty());
  }
}

// Native ISPC modules exist on the CPU only: elsewhere these say so and skip.
TEST_F(IspcrtTest, NativeCpuModulesLinkAndExportFunctions) {
  if (!onCpu()) GTEST_SKIP() << "native CPU modules load on the CPU device only";
  ispcrt::Module native(device, "ispcrt_test_native");
  ispcrt::Module extra(device, "ispcrt_test_native_extra");
  ASSERT_TRUE(native && extra);
  auto answer = reinterpret_cast<int (*)()>(native.functionPtr("ispcrt_test_answer"));
  ASSERT_NE(answer, nullptr);
  EXPECT_EQ(answer(), 42);
  // Linked, one module gives the kernels of both.
  ISPCRTModule parts[] = {native.handle(), extra.handle()};
  ispcrt::Module linked = device.staticLinkModules(parts, 2);
  ispcrt::Kernel scale(device, linked, "scale_add");
  ispcrt::Kernel simple(device, linked, "simple_ispc");
  EXPECT_TRUE(scale && simple);
  device.dynamicLinkModules(parts, 2);  // native modules resolved their symbols when loaded
  // A SPIR-V module's functions have no host address.
  ispcrt::Module spirv(device, "ispcrt_test_kernels");
  EXPECT_EQ(spirv.functionPtr("simple_ispc"), nullptr);
  auto errors = Errors::take();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].first, ISPCRT_UNSUPPORTED);
}

// The application's task system (ispcrtSetTaskingCallbacks) in place of xpurt's.
struct SerialTasks {
  static int launches;
  using Task = void (*)(void *, int, int, int, int, int, int, int, int, int, int);
  static void launch(void **, void *f, void *data, int c0, int c1, int c2) {
    ++launches;
    int total = c0 * c1 * c2;
    for (int t = 0; t < total; ++t)
      reinterpret_cast<Task>(f)(data, 0, 1, t, total, t % c0, t / c0 % c1, t / (c0 * c1), c0, c1,
                                c2);
  }
  static void *alloc(void **, int64_t size, int32_t) { return std::malloc(size); }
  static void sync(void *) {}
};
int SerialTasks::launches = 0;

TEST_F(IspcrtTest, TaskingCallbacksReplaceTheTaskSystem) {
  if (!onCpu()) GTEST_SKIP() << "the tasking callbacks serve native CPU modules only";
  ispcrt::Module native(device, "ispcrt_test_native");
  ispcrt::Kernel kernel(device, native, "scale_add");
  std::vector<float> data(100, 1.0f);
  ispcrt::Array<float> dataDev(device, data);
  ScaleAddParams p{dataDev.devicePtr(), 100, 2.0f, 1.0f};
  ispcrt::Array<ScaleAddParams> params(device, p);
  ispcrt::TaskQueue queue(device);
  ispcrtSetTaskingCallbacks(&SerialTasks::launch, &SerialTasks::alloc, &SerialTasks::sync);
  SerialTasks::launches = 0;
  queue.copyToDevice(params);
  queue.copyToDevice(dataDev);
  queue.launch(kernel, params, 4);
  queue.copyToHost(dataDev);
  queue.sync();
  EXPECT_EQ(SerialTasks::launches, 1);
  ispcrtSetTaskingCallbacks(nullptr, nullptr, nullptr);
  queue.copyToDevice(dataDev);
  queue.launch(kernel, params, 4);
  queue.copyToHost(dataDev);
  queue.sync();
  EXPECT_EQ(SerialTasks::launches, 1) << "xpurt's own task system again";
  for (float v : data) ASSERT_EQ(v, 7.0f);
  // Some but not all: refused, the callbacks unchanged.
  ispcrtSetTaskingCallbacks(&SerialTasks::launch, nullptr, nullptr);
  auto errors = Errors::take();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].first, ISPCRT_INVALID_ARGUMENT);
}

}  // namespace
