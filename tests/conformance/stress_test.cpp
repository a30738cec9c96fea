// 32 threads enqueueing on one shared queue and on queues of their own, which they release
// with work in flight and replace; futures are waited on by other threads. Over 10^5 commands,
// and every result is checked: each thread's own order holds on any queue, nothing is lost.
#include "device_param.hpp"

#include <atomic>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace xpurt::test {
namespace {

class StressTest : public DeviceTest {};

constexpr int kThreads = 32;
constexpr int kRounds = 1600;         // two commands each: 32 * 1600 * 2 = 102,400 commands
constexpr int kOwnQueueRounds = 100;  // a thread with its own queue replaces it this often
constexpr int kElements = 16;

// Futures one thread hands to the next to wait on.
struct Mailbox {
  std::mutex mutex;
  std::deque<Future> futures;
};

TEST_P(StressTest, ThirtyTwoThreadsOnSharedAndOwnQueues) {
  Kernel add(module, "add_value");
  std::vector<Mailbox> mailboxes(kThreads);
  std::atomic<int> callbacks{0}, outOfOrder{0}, waited{0}, failedWaits{0}, ownQueues{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Array<float, AllocType::Shared> data(device, kElements);
      for (int e = 0; e < kElements; ++e) data.hostPtr()[e] = 0.0f;
      Array<AddParams> params(device);
      *params.hostPtr() = {data.devicePtr(), kElements, 1.0f};
      bool shared = t % 2 == 0;
      std::optional<TaskQueue> own;
      auto waitMail = [&] {
        std::deque<Future> mine;
        {
          std::lock_guard lock(mailboxes[t].mutex);
          mine.swap(mailboxes[t].futures);
        }
        for (Future &f : mine) {
          try {
            f.wait();
            waited++;
          } catch (const Error &) {
            failedWaits++;
          }
        }
      };
      if (shared) queue.copyToDevice(params);
      for (int r = 0; r < kRounds; ++r) {
        if (!shared && r % kOwnQueueRounds == 0) {
          own.reset();  // released with work in flight: it finishes, in order, before this
          own.emplace(device);
          own->copyToDevice(params);
          ownQueues++;
        }
        TaskQueue &q = shared ? queue : *own;
        q.launch(add, params, 2);
        Future checked = q.hostCallback([&, r] {
          if (data.hostPtr()[r % kElements] != r + 1.0f) outOfOrder++;
          callbacks++;
        });
        if (r % 16 == 0) {
          Mailbox &next = mailboxes[(t + 1) % kThreads];
          std::lock_guard lock(next.mutex);
          next.futures.push_back(std::move(checked));
        }
        if (r % 64 == 0) waitMail();
      }
      if (shared)
        queue.sync();  // the views must outlive their commands
      else
        own.reset();
      waitMail();
      for (int e = 0; e < kElements; ++e)
        if (data.hostPtr()[e] != float(kRounds)) outOfOrder++;
    });
  }
  for (auto &th : threads) th.join();
  for (int t = 0; t < kThreads; ++t)
    for (Future &f : mailboxes[t].futures) {  // posted after their waiter's last look
      f.wait();
      waited++;
    }
  EXPECT_EQ(callbacks.load(), kThreads * kRounds);
  EXPECT_EQ(outOfOrder.load(), 0);
  EXPECT_EQ(failedWaits.load(), 0);
  EXPECT_EQ(waited.load(), kThreads * ((kRounds + 15) / 16));
  EXPECT_EQ(ownQueues.load(), kThreads / 2 * (kRounds / kOwnQueueRounds));
}

XPURT_INSTANTIATE_CONFORMANCE(StressTest);

}  // namespace
}  // namespace xpurt::test
