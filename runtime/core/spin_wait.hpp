// Waiting for another thread: spin for a short while (a wake-up through the kernel costs
// microseconds, more than many waits last), then sleep.
#pragma once

#include <atomic>
#include <chrono>
#include <thread>

namespace xpurt::core {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  // The builtin rather than _mm_pause: the intrinsics header is 70,000 lines in every file
  // that waits.
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

// How long a waiter spins before it sleeps.
inline constexpr std::chrono::microseconds kSpinBeforeSleep{20};

// A spin's end, read from the clock only every 16th time: a spinning loop that read it each
// turn spent most of its time there.
class SpinDeadline {
 public:
  explicit SpinDeadline(std::chrono::microseconds spin)
      : until_(std::chrono::steady_clock::now() + spin) {}
  bool passed() {
    if ((++turns_ & 15) != 0) return false;
    return std::chrono::steady_clock::now() > until_;
  }

 private:
  std::chrono::steady_clock::time_point until_;
  unsigned turns_ = 0;
};

// Waits until done() holds. sleep() blocks until the watched word changes; around it the waiter
// counts itself in `sleepers`, so a writer wakes sleepers only when there are some, and looks
// at done() once more after counting itself (the writer stores, then reads `sleepers`).
template <class Done, class Sleep>
void spinThenSleep(std::atomic<uint32_t> &sleepers, Done done, Sleep sleep,
                   std::chrono::microseconds spin = kSpinBeforeSleep) {
  if (done()) return;
  SpinDeadline deadline(spin);
  while (!done()) {
    if (deadline.passed()) {
      while (!done()) {
        sleepers.fetch_add(1, std::memory_order_seq_cst);
        if (!done()) sleep();
        sleepers.fetch_sub(1, std::memory_order_seq_cst);
      }
      return;
    }
    cpuRelax();
  }
}

}  // namespace xpurt::core
