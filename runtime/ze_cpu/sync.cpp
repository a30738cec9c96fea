#include "sync.hpp"

#include "core/host_executor.hpp"
#include "core/spin_wait.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <ctime>

namespace xpurt::ze_cpu {
namespace {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free,
              "a futex word must be a plain 32-bit integer");

uint32_t *futexAddress(std::atomic<uint32_t> &word) {
  return reinterpret_cast<uint32_t *>(&word);
}

// Sleeps while the word holds `expected`, at most `timeoutNs` (UINT64_MAX: no limit). Returns
// on a wake-up, a signal, a changed word or the timeout alike: the caller looks again.
void futexWait(std::atomic<uint32_t> &word, uint32_t expected, uint64_t timeoutNs) {
  timespec relative{};
  timespec *limit = nullptr;
  if (timeoutNs != UINT64_MAX) {
    relative.tv_sec = static_cast<time_t>(timeoutNs / 1'000'000'000);
    relative.tv_nsec = static_cast<long>(timeoutNs % 1'000'000'000);
    limit = &relative;
  }
  syscall(SYS_futex, futexAddress(word), FUTEX_WAIT_PRIVATE, expected, limit, nullptr, 0);
}

void futexWakeAll(std::atomic<uint32_t> &word) {
  syscall(SYS_futex, futexAddress(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace

void SignalWord::set() {
  if (word_.exchange(kSet, std::memory_order_acq_rel) == kClearWithSleepers) futexWakeAll(word_);
}

bool SignalWord::wait(const Deadline &deadline) const {
  if (isSet()) return true;
  if (deadline.passed()) return false;
  // Most waits on a CPU device end within microseconds: spin before paying for a sleep.
  uint64_t spinUntil =
      core::steadyNowNs() + static_cast<uint64_t>(core::kSpinBeforeSleep.count()) * 1000;
  for (unsigned i = 1;; ++i) {
    if (isSet()) return true;
    if ((i & 63) == 0) {
      if (deadline.passed()) return false;
      if (core::steadyNowNs() > spinUntil) break;
    }
    core::cpuRelax();
  }
  for (;;) {
    uint32_t state = word_.load(std::memory_order_acquire);
    if (state == kSet) return true;
    if (deadline.passed()) return false;
    // Mark the word so that set() knows to wake us; if it changed meanwhile, look again.
    if (state == kClear &&
        !word_.compare_exchange_weak(state, kClearWithSleepers, std::memory_order_acq_rel))
      continue;
    // A list waiting in its turn on the CPU device's host executor: the executor may need
    // another thread for what sets this.
    core::HostExecutor::Blocking blocking;
    futexWait(word_, kClearWithSleepers, deadline.forever() ? UINT64_MAX : deadline.remainingNs());
  }
}

}  // namespace xpurt::ze_cpu
