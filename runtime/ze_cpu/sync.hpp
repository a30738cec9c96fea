// What the driver's waits are made of: Level Zero timeouts, the device clock, and a signal
// word that host threads and executor threads wait on (events, fences).
#pragma once

#include "core/clock.hpp"

#include <atomic>
#include <cstdint>

namespace xpurt::ze_cpu {

// A Level Zero timeout in nanoseconds as a point in time: 0 asks for the state only,
// UINT64_MAX waits for ever.
class Deadline {
 public:
  explicit Deadline(uint64_t timeoutNs)
      : forever_(timeoutNs == UINT64_MAX),
        at_(forever_ ? 0 : saturatingAdd(core::steadyNowNs(), timeoutNs)) {}
  static Deadline never() { return Deadline(UINT64_MAX); }
  bool forever() const { return forever_; }
  bool passed() const { return !forever_ && core::steadyNowNs() >= at_; }
  uint64_t remainingNs() const {
    uint64_t now = core::steadyNowNs();
    return now >= at_ ? 0 : at_ - now;
  }

 private:
  static uint64_t saturatingAdd(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
  }
  bool forever_;
  uint64_t at_;
};

// The device's clock: one tick per nanosecond of the steady clock, 32 bits wide as on Intel
// GPUs (timestampValidBits and kernelTimestampValidBits are 32), so it wraps every 4.3 s and
// a consumer must take differences modulo 2^32.
inline constexpr uint32_t kTimestampBits = 32;
inline uint64_t deviceTicks() {
  return core::steadyNowNs() & ((uint64_t{1} << kTimestampBits) - 1);
}

// A flag that is set, waited for and cleared: an event's or a fence's state. A waiter spins
// briefly and then sleeps on a futex; whoever sets the flag makes the system call only when
// someone sleeps.
class SignalWord {
 public:
  explicit SignalWord(bool set = false) : word_(set ? kSet : kClear) {}
  bool isSet() const { return word_.load(std::memory_order_acquire) == kSet; }
  void set();
  // Clears a set flag; sleepers (waiting for the next set) keep sleeping.
  void clear() {
    uint32_t set = kSet;
    word_.compare_exchange_strong(set, kClear, std::memory_order_acq_rel);
  }
  // True once set, false if the deadline passed first.
  bool wait(const Deadline &deadline) const;

 private:
  static constexpr uint32_t kClear = 0, kSet = 1, kClearWithSleepers = 2;
  mutable std::atomic<uint32_t> word_;
};

}  // namespace xpurt::ze_cpu
