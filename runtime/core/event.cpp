#include "event.hpp"

#include "host_executor.hpp"
#include "spin_wait.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <new>
#include <vector>

namespace xpurt::core {

namespace {

// Freed events, kept for the next: a queue makes one per command. A thread keeps up to
// kLocal of them, and exchanges half of those at a time with a pool that every thread shares,
// since the thread that frees a command's event (the one that releases completed commands)
// is often not the one that makes the next.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define XPURT_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(XPURT_SANITIZED)
constexpr size_t kLocal = 0;  // the sanitizers see each event's own allocation
#else
constexpr size_t kLocal = 256;
#endif
constexpr size_t kShared = 4096;

struct SharedEvents {
  std::mutex mutex;
  std::vector<void *> blocks;
};
// Never destroyed: threads return their events to it as they exit, until the process ends.
SharedEvents &sharedEvents() {
  static auto *shared = new SharedEvents;
  return *shared;
}

struct LocalEvents {
  std::array<void *, kLocal> blocks{};
  size_t count = 0;

  void refill() {
    SharedEvents &shared = sharedEvents();
    std::lock_guard lock(shared.mutex);
    size_t n = std::min(kLocal / 2, shared.blocks.size());
    for (size_t i = 0; i < n; ++i) blocks[count++] = shared.blocks[shared.blocks.size() - 1 - i];
    shared.blocks.resize(shared.blocks.size() - n);
  }
  // Hands the `n` last-freed events to the shared pool, or to malloc where it is full.
  void spill(size_t n) {
    SharedEvents &shared = sharedEvents();
    std::lock_guard lock(shared.mutex);
    for (; n > 0; --n) {
      void *p = blocks[--count];
      if (shared.blocks.size() < kShared)
        shared.blocks.push_back(p);
      else
        ::operator delete(p);
    }
  }
  ~LocalEvents();
};
thread_local LocalEvents localEvents;
// Set once the thread's events are handed back (thread exit): later ones go to malloc.
thread_local bool localEventsGone = false;

LocalEvents::~LocalEvents() {
  localEventsGone = true;
  if (count > 0) spill(count);
}

}  // namespace

void *Event::operator new(size_t size) {
  if (kLocal > 0 && size == sizeof(Event) && !localEventsGone) {
    LocalEvents &local = localEvents;
    if (local.count == 0) local.refill();
    if (local.count > 0) return local.blocks[--local.count];
  }
  return ::operator new(size);
}

void Event::operator delete(void *p, size_t size) noexcept {
  if (kLocal > 0 && size == sizeof(Event) && !localEventsGone) {
    LocalEvents &local = localEvents;
    if (local.count == kLocal) local.spill(kLocal / 2);
    local.blocks[local.count++] = p;
    return;
  }
  ::operator delete(p);
}

void Event::complete(CommandTimes times) {
  times_ = times;
  publish(kDone);
}

void Event::fail(std::string message, CommandTimes times) {
  error_ = std::move(message);
  times_ = times;
  publish(kFailed);
}

void Event::publish(uint32_t state) {
  state_.store(state, std::memory_order_seq_cst);
  // A waiter counts itself in sleepers_ before its last look at state_, so it either saw the
  // new state or is woken here.
  if (sleepers_.load(std::memory_order_seq_cst) != 0) state_.notify_all();
  // then() raises the flag before it looks at state_: either it saw the state and ran its
  // continuation itself, or the continuation is in the list taken here.
  if (hasContinuations_.load(std::memory_order_seq_cst)) {
    std::vector<std::function<void()>> ready;
    {
      std::lock_guard lock(continuationMutex_);
      ready.swap(continuations_);
    }
    // The continuations may drop the last references to this event: keep it until done.
    Ref<const Event> self(this);
    for (auto &fn : ready) fn();
  }
}

void Event::then(std::function<void()> fn) {
  {
    std::lock_guard lock(continuationMutex_);
    hasContinuations_.store(true, std::memory_order_seq_cst);
    if (state_.load(std::memory_order_seq_cst) == kPending) {
      continuations_.push_back(std::move(fn));
      return;
    }
  }
  fn();
}

void Event::wait() const {
  if (!isDone() && driver_) driver_->helpUntil([this] { return isDone(); });
  spinThenSleep(
      sleepers_, [&] { return isDone(); },
      [&] {
        HostExecutor::Blocking blocking;  // a host job waiting: its executor may need a thread
        state_.wait(kPending, std::memory_order_seq_cst);
      });
}

}  // namespace xpurt::core
