// Completion of one queued command: what a Future handle names.
#pragma once

#include "object.hpp"

#include <atomic>
#include <cstdint>
#include <string>

namespace xpurt::core {

class Event : public Object {
 public:
  static constexpr ObjectKind kKind = ObjectKind::Future;
  Event() : Object(kKind) {}

  // Called once by the backend that ran the command.
  void complete(uint64_t deviceTimeNs);
  void fail(std::string message, uint64_t deviceTimeNs);

  bool isDone() const { return state_.load(std::memory_order_acquire) != kPending; }
  // Blocks until done: spins briefly (completions are often microseconds away), then sleeps.
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
};

}  // namespace xpurt::core
