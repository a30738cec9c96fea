// Completion of one queued command: what a Future handle names.
#pragma once

#include "object.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace xpurt::core {

// Lets a thread that waits for queued work run that work itself rather than sleep while a
// worker is woken: the wake-up of an idle thread costs tens of microseconds on some machines.
class WaitHelper {
 public:
  virtual ~WaitHelper() = default;
  // Runs queued commands on the calling thread, in queue order, until done() holds or there
  // is nothing it may run (the queue is empty, or another thread is running it).
  virtual void helpUntil(const std::function<bool()> &done) = 0;
};

class Event : public Object {
 public:
  static constexpr ObjectKind kKind = ObjectKind::Future;
  Event() : Object(kKind) {}

  // Set by the backend before the event is handed out.
  void setWaitHelper(std::shared_ptr<WaitHelper> helper) { helper_ = std::move(helper); }

  // Called once by the backend that ran the command.
  void complete(uint64_t deviceTimeNs);
  void fail(std::string message, uint64_t deviceTimeNs);

  bool isDone() const { return state_.load(std::memory_order_acquire) != kPending; }
  // Blocks until done: runs the work itself where the backend allows, else spins briefly
  // (completions are often microseconds away), then sleeps.
  void wait() const;
  bool failed() const { return state_.load(std::memory_order_acquire) == kFailed; }
  // Valid once done.
  const std::string &errorMessage() const { return error_; }
  uint64_t deviceTimeNs() const { return timeNs_; }

 private:
  enum : uint32_t { kPending, kDone, kFailed };
  void publish(uint32_t state);

  mutable std::atomic<uint32_t> state_{kPending};
  mutable std::atomic<uint32_t> sleepers_{0};
  uint64_t timeNs_ = 0;
  std::string error_;
  std::shared_ptr<WaitHelper> helper_;
};

}  // namespace xpurt::core
