// Several host threads using one queue, several queues, one future: the API is thread-safe.
#include "device_param.hpp"

#include <atomic>
#include <filesystem>
#include <thread>

namespace xpurt::test {
namespace {

class ConcurrencyTest : public DeviceTest {};

constexpr int kThreads = 4;
constexpr int kRounds = 200;

TEST_P(ConcurrencyTest, ThreadsEnqueueingOnOneQueueEachSeeTheirOwnOrder) {
  Kernel add(module, "add_value");
  std::atomic<int> callbacks{0}, outOfOrder{0};
  std::vector<std::thread> threads;
  std::vector<std::unique_ptr<Array<float, AllocType::Shared>>> values;
  for (int t = 0; t < kThreads; ++t) {
    values.push_back(std::make_unique<Array<float, AllocType::Shared>>(device, 1));
    values.back()->hostPtr()[0] = 0.0f;
  }
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Array<AddParams> params(device);
      *params.hostPtr() = {values[t]->devicePtr(), 1, 1.0f};
      queue.copyToDevice(params);
      for (int r = 0; r < kRounds; ++r) {
        queue.launch(add, params, 1);
        queue.hostCallback([&, t, r] {
          if (values[t]->hostPtr()[0] != r + 1.0f) outOfOrder++;
          callbacks++;
        });
      }
      queue.sync();  // params must outlive its launches
    });
  }
  for (auto &th : threads) th.join();
  queue.sync();
  EXPECT_EQ(callbacks.load(), kThreads * kRounds);
  EXPECT_EQ(outOfOrder.load(), 0);
  for (auto &v : values) EXPECT_EQ(v->hostPtr()[0], float(kRounds));
}

TEST_P(ConcurrencyTest, SeveralQueuesRunSideBySide) {
  Kernel add(module, "add_value");
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      TaskQueue own(device);
      std::vector<float> data(4096, 0.0f);
      Array<float> array(device, data);
      Array<AddParams> params(device);
      *params.hostPtr() = {array.devicePtr(), 4096, 0.5f};
      own.copyToDevice(params);
      own.copyToDevice(array);
      for (int r = 0; r < 50; ++r) own.launch(add, params, 4);
      own.copyToHost(array);
      own.sync();
      for (float x : data)
        if (x != 25.0f) wrong++;
    });
  }
  for (auto &th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST_P(ConcurrencyTest, ManyThreadsWaitOnOneFuture) {
  Array<int32_t, AllocType::Shared> flags(device, 2);
  flags.hostPtr()[0] = flags.hostPtr()[1] = 0;
  Array<GateParams> params(device);
  *params.hostPtr() = {flags.devicePtr(), flags.devicePtr() + 1};
  queue.copyToDevice(params);
  Future gate = queue.launch(Kernel(module, "gate"), params, 1);
  std::atomic<int> woke{0};
  std::vector<std::thread> waiters;
  for (int t = 0; t < kThreads; ++t)
    waiters.emplace_back([&, copy = gate] {  // each waiter holds its own reference
      copy.wait();
      woke++;
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // let them fall asleep
  EXPECT_EQ(woke.load(), 0);
  std::atomic_ref<int32_t>(flags.hostPtr()[1]).store(1);
  for (auto &th : waiters) th.join();
  EXPECT_EQ(woke.load(), kThreads);
}

TEST_P(ConcurrencyTest, ObjectsAreCreatedAndReleasedFromManyThreads) {
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      for (int r = 0; r < 50; ++r) {
        Array<int32_t> view(device, 16);
        Kernel k(module, "empty");
        TaskQueue q(device);
        q.fill(view, int32_t{r});
        q.launch(k, 1);
        q.copyToHost(view);
        q.sync();
        if (view.hostPtr()[15] == r) ok++;
      }
    });
  for (auto &th : threads) th.join();
  EXPECT_EQ(ok.load(), kThreads * 50);
}

// Back-to-back launch-and-wait races the executor against the waiting thread on every
// iteration (who runs the command, who sleeps, who wakes whom): none may ever hang.
TEST_P(ConcurrencyTest, ShortRoundTripsNeverHang) {
  Kernel empty(module, "empty");
  std::vector<std::thread> threads;
  std::atomic<int> incomplete{0};  // futures not complete once their sync or wait returned
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      TaskQueue own(device);
      for (int i = 0; i < 50000; ++i) {
        Future f = own.launch(empty, 1);
        if (t == 0)
          own.sync();
        else
          own.launch(empty, 1).wait();
        if (!f.valid()) incomplete++;
      }
    });
  for (int i = 0; i < 20000; ++i) {
    Future f = queue.launch(empty, 1 + i % 3);
    queue.sync();
    if (!f.valid()) incomplete++;
  }
  // Kernels of a few hundred microseconds (one task over 256 Ki floats): long enough that the
  // waiter goes to sleep before they complete.
  Array<float, AllocType::Shared> data(device, 1 << 18);
  Array<AddParams> params(device);
  *params.hostPtr() = {data.devicePtr(), 1 << 18, 1.0f};
  queue.copyToDevice(params);
  Kernel slow(module, "add_value");
  for (int i = 0; i < 1000; ++i) {
    Future f = queue.launch(slow, params, 1);
    queue.sync();
    if (!f.valid()) incomplete++;
  }
  for (auto &th : threads) th.join();
  EXPECT_EQ(incomplete.load(), 0);
}

// Threads getting and releasing one device at once (one that no other handle holds, so it is
// made and destroyed again and again) all get a device that works, and every handle alive at
// one moment names the same one.
TEST_P(ConcurrencyTest, ThreadsGettingAndReleasingOneDeviceShareItSafely) {
  uint32_t flags = GetParam().flags ^ XPURT_DEVICE_FLAG_SEPARATE_MEMORY;
  std::atomic<int> failures{0}, different{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < kRounds / 4; ++r) {
        try {
          Device a(GetParam().type, GetParam().index, flags);
          Device b(GetParam().type, GetParam().index, flags);
          if (a.handle() != b.handle()) different++;
          Array<int32_t, AllocType::Shared> one(a, 4);
          TaskQueue q(b);
          q.fill(one, int32_t{7});
          q.sync();
          if (one.hostPtr()[3] != 7) failures++;
        } catch (const Error &) {
          failures++;
        }
      }
    });
  }
  for (auto &th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(different.load(), 0);
}

// The threads of this process now.
size_t processThreads() {
  size_t n = 0;
  for ([[maybe_unused]] const auto &entry : std::filesystem::directory_iterator("/proc/self/task"))
    ++n;
  return n;
}

// A device's queues share its threads (one completion poller, one host executor): a queue owns
// none, so an application may make as many as it likes.
TEST_P(ConcurrencyTest, QueuesOwnNoThreads) {
  constexpr int kQueues = 256;
  // The device's threads, made by its first work, exist before the count.
  Kernel add(module, "add_value");
  Array<float, AllocType::Shared> value(device, 1);
  value.hostPtr()[0] = 0.0f;
  Array<AddParams> params(device);
  *params.hostPtr() = {value.devicePtr(), 1, 1.0f};
  queue.copyToDevice(params);
  queue.launch(add, params, 1);
  queue.sync();
  ASSERT_EQ(value.hostPtr()[0], 1.0f);
  // From here on the launches write nothing (no element): queues side by side do not race.
  params.hostPtr()->count = 0;
  queue.copyToDevice(params);
  queue.sync();

  size_t before = processThreads();
  std::vector<XpurtTaskQueue> queues;
  for (int i = 0; i < kQueues; ++i) {
    XpurtQueueOptions options{sizeof(XpurtQueueOptions), XPURT_ENGINE_ANY,
                              i % 2 ? XPURT_QUEUE_FLAG_OUT_OF_ORDER : 0u};
    XpurtTaskQueue q = nullptr;
    ASSERT_EQ(xpurtNewTaskQueueWithOptions(device.handle(), &options, &q), XPURT_SUCCESS);
    queues.push_back(q);
  }
  size_t created = processThreads();
  // A few threads may come or go meanwhile (oneTBB's workers, an idle executor thread that
  // ends), none per queue.
  EXPECT_LE(created, before + 4) << "threads before: " << before << ", after creating " << kQueues
                                 << " queues: " << created;

  // Every queue busy at once: the device's threads grow with the work that runs side by side
  // (bounded by the cores, for each executor: a Level Zero device has its driver's too), not
  // with the queues.
  std::atomic<int> callbacks{0};
  for (XpurtTaskQueue q : queues) {
    ASSERT_EQ(xpurtLaunch1D(q, add.handle(), params.handle(), 1, nullptr), XPURT_SUCCESS);
    ASSERT_EQ(xpurtHostCallback(
                  q,
                  [](void *n) {
                    static_cast<std::atomic<int> *>(n)->fetch_add(1);
                    return XPURT_SUCCESS;
                  },
                  &callbacks, nullptr),
              XPURT_SUCCESS);
  }
  size_t busy = processThreads();
  for (XpurtTaskQueue q : queues) ASSERT_EQ(xpurtSync(q), XPURT_SUCCESS);
  EXPECT_EQ(callbacks.load(), kQueues);
  unsigned cores = std::max(2u, std::thread::hardware_concurrency());
  EXPECT_LE(busy, before + 2 * cores + 16)
      << "threads before: " << before << ", with " << kQueues << " queues busy: " << busy;
  for (XpurtTaskQueue q : queues) EXPECT_EQ(xpurtRelease(q), XPURT_SUCCESS);
}

XPURT_INSTANTIATE_CONFORMANCE(ConcurrencyTest);

}  // namespace
}  // namespace xpurt::test
