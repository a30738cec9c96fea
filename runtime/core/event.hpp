// Completion of one queued command: what a Future handle names. The backend that runs the
// command owns its completion: it calls complete() or fail() once, from whatever thread sees
// the command end (a queue's runner, a device's event poller). Other parts of the runtime
// attach continuations (a dependent command becoming ready, a trace record) with then().
#pragma once

#include "object.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace xpurt::core {

// The backend's side of its events: how a pending one makes progress when somebody looks at
// it or waits for it. A CPU queue runs its queued work on the waiting thread rather than
// sleep while a worker is woken (the wake-up of an idle thread costs tens of microseconds on
// some machines); a GPU backend queries or waits on the device's own event and completes it.
class EventDriver {
 public:
  virtual ~EventDriver() = default;
  // Lets completions the device has signalled be seen: called when a pending event is asked
  // whether it is done (xpurtFutureIsValid). Nothing to do where the backend completes its
  // events itself as they end.
  virtual void poll() {}
  // Makes progress on the calling thread until done() holds or there is nothing it may do
  // (the CPU: runs queued commands in queue order until the queue is empty, or another thread
  // is running it). Throws INVALID_ARGUMENT for a wait that could never end (a command of the
  // queue waiting on the queue's own later work).
  virtual void helpUntil(const std::function<bool()> &done) = 0;
};

// When a command ran, on the steady clock in nanoseconds; zero where not measured.
struct CommandTimes {
  uint64_t startNs = 0;
  uint64_t endNs = 0;
};

class Event : public Object {
 public:
  static constexpr ObjectKind kKind = ObjectKind::Event;
  Event() : Object(kKind) {}

  // Set by the backend before the event is handed out.
  void setDriver(std::shared_ptr<EventDriver> helper) { driver_ = std::move(helper); }
  const EventDriver *driver() const { return driver_.get(); }
  const std::shared_ptr<EventDriver> &sharedDriver() const { return driver_; }
  // Whether the backend is to measure the command (profiling or tracing is on).
  void setTimed(bool timed) { timed_ = timed; }
  bool timed() const { return timed_; }
  void setProfiled(bool profiled) { profiled_ = profiled; }
  bool profiled() const { return profiled_; }
  // The trace track of the command's queue and engine (0: not traced).
  // Set at enqueue and again where the slice lands (a lane of the track) when it completes,
  // while a dependent command may read it: atomic.
  void setTraceTrack(uint32_t track) { traceTrack_.store(track, std::memory_order_relaxed); }
  uint32_t traceTrack() const { return traceTrack_.load(std::memory_order_relaxed); }

  // Called once by the backend that ran the command; runs the continuations.
  void complete(CommandTimes times = {});
  void fail(std::string message, CommandTimes times = {});

  // Runs fn once the event is done: at once on this thread if it already is, else on the
  // thread that completes it. fn must not throw.
  void then(std::function<void()> fn);

  bool isDone() const { return state_.load(std::memory_order_acquire) != kPending; }
  // isDone, after letting the backend look for a completion the device has signalled.
  bool ready() const {
    if (!isDone() && driver_) driver_->poll();
    return isDone();
  }
  // Blocks until done: runs the work itself where the backend allows, else spins briefly
  // (completions are often microseconds away), then sleeps.
  void wait() const;
  bool failed() const { return state_.load(std::memory_order_acquire) == kFailed; }
  // Valid once done.
  const std::string &errorMessage() const { return error_; }
  CommandTimes times() const { return times_; }
  uint64_t deviceTimeNs() const { return times_.endNs - times_.startNs; }

 private:
  enum : uint32_t { kPending, kDone, kFailed };
  void publish(uint32_t state);

  mutable std::atomic<uint32_t> state_{kPending};
  mutable std::atomic<uint32_t> sleepers_{0};
  std::atomic<bool> hasContinuations_{false};
  bool timed_ = false;
  bool profiled_ = false;
  std::atomic<uint32_t> traceTrack_{0};
  CommandTimes times_;
  std::string error_;
  std::shared_ptr<EventDriver> driver_;
  std::mutex continuationMutex_;
  std::vector<std::function<void()>> continuations_;
};

}  // namespace xpurt::core
