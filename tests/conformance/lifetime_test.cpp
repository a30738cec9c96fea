// Objects released in any order, from any thread, even from a host callback of their own
// queue: nothing hangs or aborts, work submitted before a release still runs, its futures
// complete. Each race is run 1,000 times (kIterations) so that its interleavings vary.
#include "device_param.hpp"

#include <atomic>
#include <thread>
#include <vector>

namespace xpurt::test {
namespace {

class LifetimeTest : public DeviceTest {
 protected:
  // A queue known only through its C handle, so a test decides who drops the last reference.
  XpurtTaskQueue newQueue() {
    XpurtTaskQueue q = nullptr;
    EXPECT_EQ(xpurtNewTaskQueue(device.handle(), &q), XPURT_SUCCESS);
    return q;
  }
};

constexpr int kIterations = 1000;

XpurtResult countCallback(void *data) {
  static_cast<std::atomic<int> *>(data)->fetch_add(1);
  return XPURT_SUCCESS;
}

TEST_P(LifetimeTest, ReleasingAQueueWhileAnotherThreadWaitsOnItsFuture) {
  for (int i = 0; i < kIterations; ++i) {
    XpurtTaskQueue q = newQueue();
    std::atomic<int> ran{0};
    XpurtFuture last = nullptr;
    for (int c = 0; c < 4; ++c)
      ASSERT_EQ(xpurtHostCallback(q, countCallback, &ran, c == 3 ? &last : nullptr), XPURT_SUCCESS);
    std::thread waiter([&] { EXPECT_EQ(xpurtFutureWait(last), XPURT_SUCCESS); });
    EXPECT_EQ(xpurtRelease(q), XPURT_SUCCESS);  // returns once the queue's work has run
    waiter.join();
    EXPECT_EQ(ran.load(), 4);
    EXPECT_EQ(xpurtRelease(last), XPURT_SUCCESS);
  }
}

TEST_P(LifetimeTest, ReleasingAQueueWhileOtherThreadsSubmitAndSync) {
  for (int i = 0; i < kIterations; ++i) {
    XpurtTaskQueue q = newQueue();
    std::atomic<int> ran{0};
    std::vector<std::thread> users;
    for (int t = 0; t < 4; ++t) {
      ASSERT_EQ(xpurtRetain(q), XPURT_SUCCESS);  // each user holds its own reference
      users.emplace_back([&, t] {
        for (int c = 0; c < 25; ++c)
          EXPECT_EQ(xpurtHostCallback(q, countCallback, &ran, nullptr), XPURT_SUCCESS);
        if (t % 2 == 0) {
          EXPECT_EQ(xpurtSync(q), XPURT_SUCCESS);
        }
        EXPECT_EQ(xpurtRelease(q), XPURT_SUCCESS);  // the last one destroys the queue
      });
    }
    EXPECT_EQ(xpurtRelease(q), XPURT_SUCCESS);
    for (auto &u : users) u.join();
    EXPECT_EQ(ran.load(), 100);
  }
}

// The callback holds the last reference to its queue, and work is queued behind it.
struct SelfRelease {
  XpurtTaskQueue queue;
  std::atomic<bool> go{false};
};

XpurtResult releaseOwnQueue(void *data) {
  auto *s = static_cast<SelfRelease *>(data);
  while (!s->go.load()) std::this_thread::yield();  // until the test has queued more
  return xpurtRelease(s->queue);
}

TEST_P(LifetimeTest, AHostCallbackReleasesItsOwnQueue) {
  for (int i = 0; i < kIterations; ++i) {
    SelfRelease s{newQueue()};
    std::atomic<int> ran{0};
    XpurtFuture released = nullptr, after = nullptr;
    ASSERT_EQ(xpurtHostCallback(s.queue, releaseOwnQueue, &s, &released), XPURT_SUCCESS);
    ASSERT_EQ(xpurtHostCallback(s.queue, countCallback, &ran, &after), XPURT_SUCCESS);
    s.go = true;
    EXPECT_EQ(xpurtFutureWait(released), XPURT_SUCCESS) << xpurtLastErrorMessage();
    EXPECT_EQ(xpurtFutureWait(after), XPURT_SUCCESS);  // queued before the release: it runs
    EXPECT_EQ(ran.load(), 1);
    xpurtRelease(released);
    xpurtRelease(after);
  }
}

TEST_P(LifetimeTest, ALambdaHoldingTheLastCopyOfItsQueue) {
  for (int i = 0; i < kIterations; ++i) {
    Future done;
    std::atomic<int> ran{0};
    {
      TaskQueue own(device);
      done = own.hostCallback([own, &ran] { ran++; });  // the lambda's copy outlives `own`
    }
    done.wait();
    EXPECT_EQ(ran.load(), 1);
  }
}

TEST_P(LifetimeTest, AHostCallbackReleasesTheViewsKernelAndModuleOfALaterLaunch) {
  for (int i = 0; i < kIterations; ++i) {
    XpurtModule m = nullptr;
    XpurtKernel k = nullptr;
    XpurtMemoryView data = nullptr, params = nullptr;
    ASSERT_EQ(xpurtLoadModule(device.handle(), "xpurt_test_tasks", nullptr, &m), XPURT_SUCCESS);
    ASSERT_EQ(xpurtNewKernel(m, "add_value", &k), XPURT_SUCCESS);
    ASSERT_EQ(xpurtNewMemoryView(device.handle(), nullptr, 64 * sizeof(float),
                                 XPURT_ALLOC_TYPE_SHARED, &data),
              XPURT_SUCCESS);
    ASSERT_EQ(xpurtNewMemoryView(device.handle(), nullptr, sizeof(AddParams),
                                 XPURT_ALLOC_TYPE_SHARED, &params),
              XPURT_SUCCESS);
    float *host = nullptr;
    void *dev = nullptr, *p = nullptr;
    xpurtHostPtr(data, reinterpret_cast<void **>(&host));
    xpurtDevicePtr(data, &dev);
    xpurtHostPtr(params, &p);
    for (int e = 0; e < 64; ++e) host[e] = 1.0f;
    *static_cast<AddParams *>(p) = {static_cast<float *>(dev), 64, 2.0f};
    struct Handles {
      void *h[4];
      std::atomic<bool> go{false};
    } handles{{k, m, data, params}};
    auto releaseAll = [](void *d) -> XpurtResult {
      auto *hs = static_cast<Handles *>(d);
      while (!hs->go.load()) std::this_thread::yield();
      for (void *h : hs->h)
        if (xpurtRelease(h) != XPURT_SUCCESS) return XPURT_ERROR_EXECUTION_FAILED;
      return XPURT_SUCCESS;
    };
    // The test keeps a reference to the data, to read it after the callback drops its own.
    ASSERT_EQ(xpurtRetain(data), XPURT_SUCCESS);
    ASSERT_EQ(xpurtCopyToDevice(queue.handle(), data, 0, XPURT_WHOLE_SIZE, nullptr), XPURT_SUCCESS);
    ASSERT_EQ(xpurtCopyToDevice(queue.handle(), params, 0, XPURT_WHOLE_SIZE, nullptr),
              XPURT_SUCCESS);
    ASSERT_EQ(xpurtHostCallback(queue.handle(), releaseAll, &handles, nullptr), XPURT_SUCCESS);
    ASSERT_EQ(xpurtLaunch1D(queue.handle(), k, params, 1, nullptr), XPURT_SUCCESS);
    ASSERT_EQ(xpurtCopyToHost(queue.handle(), data, 0, XPURT_WHOLE_SIZE, nullptr), XPURT_SUCCESS);
    handles.go = true;
    queue.sync();
    for (int e = 0; e < 64; ++e) ASSERT_EQ(host[e], 3.0f) << e;
    EXPECT_EQ(xpurtRelease(data), XPURT_SUCCESS);
  }
}

TEST_P(LifetimeTest, FuturesOutliveTheirQueueKernelModuleViewsAndDevice) {
  for (int i = 0; i < kIterations; ++i) {
    XpurtFuture f = nullptr;
    std::atomic<int> ran{0};
    // The results' memory must outlive the work that writes it (the launch reaches it through
    // a raw pointer in its params); every handle need not.
    std::vector<int32_t> results(8, 0);
    {
      // A device no other handle holds (the fixture's has the other memory arrangement), so
      // releasing it here ends its last handle while the work is queued.
      Device own(GetParam().type, GetParam().index,
                 GetParam().flags ^ XPURT_DEVICE_FLAG_SEPARATE_MEMORY);
      TaskQueue q(own, {Engine::Any, false, true});  // profiling: the future's time is read
      Module m(own, "xpurt_test_tasks");
      Kernel k(m, "write_index");
      MemoryView out(own, results.data(), results.size() * sizeof(int32_t));
      Array<IndexParams> params(own);
      params.hostPtr()->out = static_cast<int32_t *>(out.devicePtr());
      q.copyToDevice(params);
      q.launch(k, params, 8);
      q.copyToHost(out);
      ASSERT_EQ(xpurtHostCallback(q.handle(), countCallback, &ran, &f), XPURT_SUCCESS);
    }
    EXPECT_EQ(xpurtFutureWait(f), XPURT_SUCCESS);
    uint64_t ns = 0;
    EXPECT_EQ(xpurtFutureTimeNs(f, &ns), XPURT_SUCCESS);
    EXPECT_EQ(ran.load(), 1);
    for (int t = 0; t < 8; ++t) EXPECT_EQ(results[t], t + 1);
    EXPECT_EQ(xpurtRelease(f), XPURT_SUCCESS);
  }
}

// What a callback's own waits on its queue return.
struct OwnWait {
  explicit OwnWait(XpurtTaskQueue q) : queue(q) {}
  XpurtTaskQueue queue;
  XpurtFuture later = nullptr;
  std::atomic<bool> go{false};
  XpurtResult result = XPURT_SUCCESS;
  std::string message;
};

TEST_P(LifetimeTest, AHostCallbackThatSyncsItsOwnQueueGetsAnError) {
  // The callback runs on the executor or on this thread (sync runs queued work): both.
  for (int i = 0; i < kIterations; ++i) {
    OwnWait w(queue.handle());
    ASSERT_EQ(xpurtHostCallback(
                  queue.handle(),
                  [](void *d) {
                    auto *w = static_cast<OwnWait *>(d);
                    w->result = xpurtSync(w->queue);
                    w->message = xpurtLastErrorMessage();
                    return XPURT_SUCCESS;
                  },
                  &w, nullptr),
              XPURT_SUCCESS);
    queue.sync();
    EXPECT_EQ(w.result, XPURT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(w.message.find("xpurtSync from a host callback of the same queue"), std::string::npos)
        << w.message;
    queue.sync();  // the queue goes on
  }
}

TEST_P(LifetimeTest, AHostCallbackThatWaitsOnALaterFutureOfItsQueueGetsAnError) {
  // The callback runs on the executor or on this thread (sync runs queued work): both.
  for (int i = 0; i < kIterations; ++i) {
    OwnWait w(queue.handle());
    std::atomic<int> ran{0};
    ASSERT_EQ(xpurtHostCallback(
                  queue.handle(),
                  [](void *d) {
                    auto *w = static_cast<OwnWait *>(d);
                    while (!w->go.load()) std::this_thread::yield();
                    w->result = xpurtFutureWait(w->later);
                    w->message = xpurtLastErrorMessage();
                    return XPURT_SUCCESS;
                  },
                  &w, nullptr),
              XPURT_SUCCESS);
    ASSERT_EQ(xpurtHostCallback(queue.handle(), countCallback, &ran, &w.later), XPURT_SUCCESS);
    w.go = true;
    queue.sync();
    EXPECT_EQ(w.result, XPURT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(w.message.find("later command"), std::string::npos) << w.message;
    EXPECT_EQ(ran.load(), 1);
    EXPECT_EQ(xpurtFutureWait(w.later), XPURT_SUCCESS);
    xpurtRelease(w.later);
  }
}

TEST_P(LifetimeTest, ACallbackFailureMessageNeverAttachesToALaterFailure) {
  auto setsMessageButSucceeds = [](void *) {
    xpurtHostCallbackSetError("message of a callback that succeeded");
    return XPURT_SUCCESS;
  };
  auto failsSilently = [](void *) { return XPURT_ERROR_EXECUTION_FAILED; };
  ASSERT_EQ(xpurtHostCallback(queue.handle(), setsMessageButSucceeds, nullptr, nullptr),
            XPURT_SUCCESS);
  XpurtFuture failed = nullptr;
  ASSERT_EQ(xpurtHostCallback(queue.handle(), failsSilently, nullptr, &failed), XPURT_SUCCESS);
  EXPECT_EQ(xpurtFutureWait(failed), XPURT_ERROR_EXECUTION_FAILED);
  std::string message = xpurtLastErrorMessage();
  EXPECT_EQ(message.find("succeeded"), std::string::npos) << message;
  EXPECT_EQ(xpurtSync(queue.handle()), XPURT_ERROR_EXECUTION_FAILED);
  message = xpurtLastErrorMessage();
  EXPECT_EQ(message.find("succeeded"), std::string::npos) << message;
  xpurtRelease(failed);
}

XPURT_INSTANTIATE_CONFORMANCE(LifetimeTest);

}  // namespace
}  // namespace xpurt::test
