// One thread per device that sees its queues' device work end: it asks each queue with pending
// commands (a CompletionSource) to complete what the device has reached, and when none has
// moved on, lets the oldest wait on its device event for a moment. It sleeps when no queue has
// anything pending. Waiters do not depend on it alone: a thread that waits for a future or
// syncs a queue makes progress itself (completions.hpp).
#pragma once

#include <cstdint>
#include <memory>

namespace xpurt::core {

class CompletionSource {
 public:
  virtual ~CompletionSource() = default;
  struct Progress {
    bool advanced = false;  // something completed, or host work was handed on
    bool empty = false;     // nothing is pending any more: the poller lets the source go
  };
  virtual Progress progress() = 0;
  // Waits up to about timeoutNs for the oldest pending command's device work. False at once
  // when there is none to wait on (only host work is pending): the poller then sleeps until
  // woken.
  virtual bool waitAwhile(uint64_t timeoutNs) = 0;
};

class CompletionPoller {
 public:
  CompletionPoller();
  // Ends the thread, which has nothing left to do: sources hold their device, so the last
  // reference to it goes once nothing is pending. From the thread itself, it ends by itself.
  ~CompletionPoller();
  CompletionPoller(const CompletionPoller &) = delete;
  CompletionPoller &operator=(const CompletionPoller &) = delete;

  // The source has pending commands now and had none (the source tracks that): polled until
  // it has none again.
  void activate(std::shared_ptr<CompletionSource> source);
  // Something changed that progress() should see now (host work finished).
  void wake();
  bool onThisThread() const;

  // How long the poller waits on one source's oldest command before it looks at the others.
  static constexpr uint64_t kWaitNs = 200'000;

 private:
  struct State;
  static void threadBody(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

}  // namespace xpurt::core
