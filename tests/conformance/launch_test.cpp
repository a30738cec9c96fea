// Launches, ordering, futures and host callbacks: the same expectations on every device.
#include "device_param.hpp"

#include <atomic>
#include <chrono>
#include <thread>

namespace xpurt::test {
namespace {

using namespace std::chrono_literals;

class LaunchTest : public DeviceTest {
 protected:
  // What record_dims wrote: 8 ints per task of a d0 x d1 x d2 launch.
  std::vector<int32_t> recordDims(const Kernel &kernel, int d0, int d1, int d2) {
    Array<int32_t, AllocType::Shared> out(device, 8 * d0 * d1 * d2);
    Array<DimsParams> params(device);
    *params.hostPtr() = {out.devicePtr()};
    queue.copyToDevice(params);
    queue.launch(kernel, params, d0, d1, d2);
    queue.sync();
    return {out.hostPtr(), out.hostPtr() + 8 * d0 * d1 * d2};
  }
};

TEST_P(LaunchTest, TaskIndicesCoverOneTwoAndThreeDimensions) {
  Kernel kernel(module, "record_dims");
  for (auto [d0, d1, d2] : {std::tuple{7, 1, 1}, {3, 5, 1}, {3, 2, 4}}) {
    int tasks = d0 * d1 * d2;
    std::vector<int32_t> out = recordDims(kernel, d0, d1, d2);
    for (int t = 0; t < tasks; ++t) {
      const int32_t *o = out.data() + 8 * t;
      SCOPED_TRACE(testing::Message() << "task " << t << " of " << d0 << "x" << d1 << "x" << d2);
      EXPECT_EQ(o[0], t % d0);
      EXPECT_EQ(o[1], t / d0 % d1);
      EXPECT_EQ(o[2], t / (d0 * d1));
      EXPECT_EQ(o[3], d0);
      EXPECT_EQ(o[4], d1);
      EXPECT_EQ(o[5], d2);
      EXPECT_EQ(o[6], t);
      EXPECT_EQ(o[7], tasks);
    }
  }
}

TEST_P(LaunchTest, EveryTaskOfALargeLaunchRunsOnce) {
  constexpr int kTasks = 100000;
  Array<int32_t> out(device, kTasks);
  Array<IndexParams> params(device);
  *params.hostPtr() = {out.devicePtr()};
  queue.copyToDevice(params);
  queue.fill(out, int32_t{0});
  queue.launch(Kernel(module, "write_index"), params, kTasks);
  queue.copyToHost(out);
  queue.sync();
  for (int i = 0; i < kTasks; ++i) ASSERT_EQ(out.hostPtr()[i], i + 1);
}

TEST_P(LaunchTest, CommandsRunInTheOrderTheyWereEnqueued) {
  std::vector<float> data(512, 0.0f);
  Array<float> array(device, data);
  Array<AddParams> params(device);
  *params.hostPtr() = {array.devicePtr(), 512, 1.0f};
  Kernel add(module, "add_value");
  queue.copyToDevice(params);
  queue.copyToDevice(array);
  for (int i = 0; i < 100; ++i) queue.launch(add, params, 1 + i % 8);
  queue.copyToHost(array);
  queue.sync();
  for (float x : data) ASSERT_EQ(x, 100.0f);
}

TEST_P(LaunchTest, WorkStartsWhenEnqueuedAndFuturesCompleteBeforeSync) {
  Array<int32_t, AllocType::Shared> flags(device, 2);
  flags.hostPtr()[0] = flags.hostPtr()[1] = 0;
  Array<GateParams> params(device);
  *params.hostPtr() = {flags.devicePtr(), flags.devicePtr() + 1};
  queue.copyToDevice(params);
  Future gate = queue.launch(Kernel(module, "gate"), params, 1);
  Future after = queue.hostCallback([] {});
  // No sync: the kernel starts on its own.
  ASSERT_TRUE(eventually([&] { return std::atomic_ref<int32_t>(flags.hostPtr()[0]).load() == 1; }));
  EXPECT_FALSE(gate.valid());
  EXPECT_FALSE(after.valid());  // in order: waits for the gate
  std::atomic_ref<int32_t>(flags.hostPtr()[1]).store(1);
  after.wait();  // a future is usable without sync
  EXPECT_TRUE(gate.valid());
  EXPECT_TRUE(after.valid());
}

TEST_P(LaunchTest, FuturesCompleteOneByOneWhileTheHostGoesOn) {
  Array<int32_t, AllocType::Shared> flags(device, 2);
  flags.hostPtr()[0] = flags.hostPtr()[1] = 0;
  Array<GateParams> params(device);
  *params.hostPtr() = {flags.devicePtr(), flags.devicePtr() + 1};
  queue.copyToDevice(params);
  std::vector<Future> before;
  for (int i = 0; i < 5; ++i) before.push_back(queue.hostCallback([] {}));
  Future gate = queue.launch(Kernel(module, "gate"), params, 1);
  Future behind = queue.hostCallback([] {});
  for (Future &f : before) f.wait();
  ASSERT_TRUE(eventually([&] { return std::atomic_ref<int32_t>(flags.hostPtr()[0]).load() == 1; }));
  int hostWork = 0;
  for (int i = 0; i < 1000; ++i) hostWork += i;  // the host is free while the gate holds
  EXPECT_EQ(hostWork, 499500);
  EXPECT_FALSE(behind.valid());
  std::atomic_ref<int32_t>(flags.hostPtr()[1]).store(1);
  queue.sync();
  EXPECT_TRUE(gate.valid() && behind.valid());
}

TEST_P(LaunchTest, HostCallbacksRunInOrderWithLaunches) {
  Array<float, AllocType::Shared> value(device, 1);
  value.hostPtr()[0] = 0.0f;
  Array<AddParams> params(device);
  *params.hostPtr() = {value.devicePtr(), 1, 1.0f};
  queue.copyToDevice(params);
  Kernel add(module, "add_value");
  std::vector<float> seen;
  for (int i = 0; i < 10; ++i) {
    queue.launch(add, params, 1);
    queue.hostCallback([&] { seen.push_back(value.hostPtr()[0]); });
  }
  queue.sync();
  ASSERT_EQ(seen.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(seen[i], i + 1.0f);
}

TEST_P(LaunchTest, AFailedHostCallbackFailsItsFutureAndTheNextSyncOnly) {
  Future bad = queue.hostCallback([] { throw std::runtime_error("sensor offline"); });
  Future good = queue.hostCallback([] {});
  try {
    bad.wait();
    FAIL() << "wait() should throw";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), XPURT_ERROR_EXECUTION_FAILED);
    EXPECT_NE(std::string(e.what()).find("sensor offline"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(good.wait());
  EXPECT_THROW(queue.sync(), Error);
  EXPECT_NO_THROW(queue.sync());  // reported once; the queue goes on
  int ran = 0;
  queue.hostCallback([&] { ++ran; });
  queue.sync();
  EXPECT_EQ(ran, 1);
}

// ISPC's CPU convention: native modules, whose tasks launch more tasks through the runtime's
// ISPC task system, on the device's threads.
TEST_P(LaunchTest, NativeTaskKernelsSeeTheTaskModel) {
  XPURT_CPU_ONLY("native modules");
  Module native(device, "xpurt_test_kernels");
  Kernel kernel(native, "record_dims");
  constexpr int d0 = 3, d1 = 2, d2 = 4, tasks = d0 * d1 * d2;
  std::vector<int32_t> out = recordDims(kernel, d0, d1, d2);
  for (int t = 0; t < tasks; ++t) {
    const int32_t *o = out.data() + 8 * t;
    EXPECT_EQ(o[0] + d0 * (o[1] + d1 * o[2]), t) << t;
    EXPECT_EQ(o[6], t);
    EXPECT_EQ(o[7], tasks);
  }
}

TEST_P(LaunchTest, NestedIspcLaunchesAndAllocationsWork) {
  XPURT_CPU_ONLY("ISPC's task system (native modules)");
  Module native(device, "xpurt_test_kernels");
  constexpr int kOuter = 16, kInner = 8;
  Array<int32_t, AllocType::Shared> counts(device, kOuter * kInner);
  std::fill_n(counts.hostPtr(), kOuter * kInner, 0);
  Array<NestedParams> params(device);
  *params.hostPtr() = {counts.devicePtr(), kInner};
  queue.copyToDevice(params);
  queue.launch(Kernel(native, "nested"), params, kOuter);
  queue.sync();
  for (int i = 0; i < kOuter * kInner; ++i) ASSERT_EQ(counts.hostPtr()[i], 1) << i;
}

TEST_P(LaunchTest, LaunchesUseTheDevicesThreadsAndNoMore) {
  XPURT_CPU_ONLY("threads to count (native modules report them)");
  Module native(device, "xpurt_test_kernels");
  constexpr int kTasks = 64;
  Array<int32_t, AllocType::Shared> index(device, kTasks), count(device, kTasks);
  Array<ThreadParams> params(device);
  *params.hostPtr() = {index.devicePtr(), count.devicePtr()};
  queue.copyToDevice(params);
  queue.launch(Kernel(native, "thread_ids"), params, kTasks);
  queue.sync();
  int threads = static_cast<int>(device.info().computeUnits);
  for (int t = 0; t < kTasks; ++t) {
    EXPECT_EQ(count.hostPtr()[t], threads);
    EXPECT_GE(index.hostPtr()[t], 0);
    EXPECT_LT(index.hostPtr()[t], threads);
  }
}

// What a barrier orders is tested where it can show, on an out-of-order queue
// (DependencyTest.ABarrierOrdersDisjointCommands); in order, it must simply be accepted.
TEST_P(LaunchTest, LaunchesWithoutParamsCompleteAndAnInOrderBarrierIsAccepted) {
  Kernel empty(module, "empty");
  Future f = queue.launch(empty, 3);
  queue.barrier();
  Future g = queue.launch(empty, 1, 1, 1);
  queue.sync();
  EXPECT_TRUE(f.valid() && g.valid());
  queue.sync();  // an empty queue syncs at once
}

TEST_P(LaunchTest, ReleasingAQueueFinishesItsWork) {
  std::atomic<int> ran{0};
  {
    TaskQueue local(device);
    local.launch(Kernel(module, "empty"), 2);
    for (int i = 0; i < 10; ++i) local.hostCallback([&] { ran++; });
  }
  EXPECT_EQ(ran.load(), 10);
}

TEST_P(LaunchTest, HandlesMayBeReleasedWhileTheirWorkIsQueued) {
  Array<int32_t, AllocType::Shared> flags(device, 2);
  flags.hostPtr()[0] = flags.hostPtr()[1] = 0;
  Future tail;
  {
    Array<GateParams> params(device);
    *params.hostPtr() = {flags.devicePtr(), flags.devicePtr() + 1};
    queue.copyToDevice(params);
    queue.launch(Kernel(module, "gate"), params, 1);
    Array<float> scratch(device, 1000);
    queue.fill(scratch, 1.0f);
    tail = queue.copyToHost(scratch);
  }  // params, kernel and scratch are released with their commands still queued
  std::atomic_ref<int32_t>(flags.hostPtr()[1]).store(1);
  tail.wait();
  queue.sync();
}

XPURT_INSTANTIATE_CONFORMANCE(LaunchTest);

}  // namespace
}  // namespace xpurt::test
