// Events and fences: a signal word each, with the state a failed launch leaves behind and,
// for pools with ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, the start and end of the command that
// signalled the event.
#pragma once

#include "sync.hpp"

#include <level_zero/ze_api.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace xpurt::ze_cpu {

class EventPool;
class CommandQueue;

class EventObject {
 public:
  EventPool &pool() const { return *pool_; }
  bool created() const { return created_; }
  bool isSignalled() const { return state_.isSet(); }
  // Whether the command that signalled it failed at run time (executor.hpp), and why.
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  const std::string &failure() const { return failure_; }
  bool wait(const Deadline &deadline) const { return state_.wait(deadline); }

  // Completes the event: start and end are device ticks, kept for timestamp pools; failure
  // is null for a command that succeeded.
  void signal(uint64_t startTicks, uint64_t endTicks, const std::string *failure) {
    start_ = startTicks;
    end_ = endTicks;
    if (failure) failure_ = *failure;
    failed_.store(failure != nullptr, std::memory_order_relaxed);
    state_.set();
  }
  // Signalled by the host: its timestamps say when.
  void signalFromHost();
  void reset() {
    state_.clear();
    failed_.store(false, std::memory_order_relaxed);
  }
  // The command's timestamps, valid once signalled.
  ze_kernel_timestamp_result_t timestamps() const {
    ze_kernel_timestamp_data_t span{start_, end_};
    return {span, span};  // the device runs one context: global and context times agree
  }

 private:
  friend class EventPool;
  EventPool *pool_ = nullptr;
  bool created_ = false;
  SignalWord state_;
  std::atomic<bool> failed_{false};
  std::string failure_;
  uint64_t start_ = 0, end_ = 0;
};

class EventPool {
 public:
  EventPool(ze_event_pool_flags_t flags, uint32_t count);
  bool hasTimestamps() const { return flags_ & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP; }
  uint32_t count() const { return count_; }
  // The event at index, for zeEventCreate: null if it exists already.
  EventObject *create(uint32_t index);
  void destroy(EventObject &event) { event.created_ = false; }

 private:
  ze_event_pool_flags_t flags_;
  uint32_t count_;
  std::unique_ptr<EventObject[]> events_;
};

class Fence {
 public:
  Fence(CommandQueue &queue, bool signalled) : queue_(queue), state_(signalled) {}
  CommandQueue &queue() const { return queue_; }
  bool isSignalled() const { return state_.isSet(); }
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  const std::string &failure() const { return failure_; }
  bool wait(const Deadline &deadline) const { return state_.wait(deadline); }
  // failure: why a command of the submission failed, or null.
  void signal(const std::string *failure) {
    if (failure) failure_ = *failure;
    failed_.store(failure != nullptr, std::memory_order_relaxed);
    state_.set();
  }
  void reset() {
    state_.clear();
    failed_.store(false, std::memory_order_relaxed);
  }

 private:
  CommandQueue &queue_;
  SignalWord state_;
  std::atomic<bool> failed_{false};
  std::string failure_;
};

}  // namespace xpurt::ze_cpu
